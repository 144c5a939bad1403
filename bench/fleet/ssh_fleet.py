# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One sshd per fake node on 127.0.0.1, for the fleet benchmark's SSH mode.

sshd comes from Debian's openssh-server package, unpacked into the work directory (installing
the package would enable a system ssh service). As root, sshd needs its privilege separation
user and /run/sshd: the user comes from nss_wrapper's files in the work directory, /run/sshd is
made if missing and removed again. Everything listens on 127.0.0.1 only, and stop() ends every
sshd and every SSH control master this fleet started.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import signal
import socket
import subprocess
import time

NSS_WRAPPER = ('/usr/lib/x86_64-linux-gnu/libnss_wrapper.so', '/usr/lib/aarch64-linux-gnu/libnss_wrapper.so',
               '/usr/lib/libnss_wrapper.so')
PRIVSEP_DIR = '/run/sshd'
SSHD_CONFIG = """ListenAddress 127.0.0.1
HostKey {work}/host_key
AuthorizedKeysFile {work}/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
MaxStartups 400
MaxSessions 100
Subsystem sftp internal-sftp
LogLevel ERROR
"""


def _run(argv, **kwargs):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kwargs)


def unpacked_sshd(cache):
    """sshd from the openssh-server package, unpacked (not installed) under cache."""
    sshd = os.path.join(cache, 'root', 'usr', 'sbin', 'sshd')
    if not os.path.exists(sshd):
        os.makedirs(cache, exist_ok=True)
        _run(['apt-get', 'download', 'openssh-server'], cwd=cache)
        package = sorted(glob.glob(os.path.join(cache, 'openssh-server_*.deb')))[-1]
        _run(['dpkg-deb', '-x', package, os.path.join(cache, 'root')])
    return sshd


def free_ports(count):
    sockets, ports = [], []
    for _index in range(count):
        handle = socket.socket()
        handle.bind(('127.0.0.1', 0))
        sockets.append(handle)
        ports.append(handle.getsockname()[1])
    for handle in sockets:
        handle.close()
    return ports


class SshFleet(object):
    def __init__(self, work, cache, hosts):
        self.work, self.cache, self.hosts = work, cache, hosts
        self.processes, self.ports = [], []
        self.made_privsep_dir = False
        self.control_dir = os.path.join(work, 'cp')

    def start(self):
        os.makedirs(self.control_dir, exist_ok=True)
        sshd = unpacked_sshd(self.cache)
        preload = [path for path in NSS_WRAPPER if os.path.exists(path)]
        if not preload:
            raise SystemExit('libnss-wrapper is missing: make bench-fleet-ssh installs it')
        _run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', os.path.join(self.work, 'host_key')])
        _run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', os.path.join(self.work, 'client_key')])
        os.rename(os.path.join(self.work, 'client_key.pub'), os.path.join(self.work, 'authorized_keys'))
        with open(os.path.join(self.work, 'passwd'), 'w') as handle:
            handle.write('root:x:0:0:root:/root:/bin/bash\nsshd:x:65534:65534::%s:/usr/sbin/nologin\n' % PRIVSEP_DIR)
        with open(os.path.join(self.work, 'group'), 'w') as handle:
            handle.write('root:x:0:\nnogroup:x:65534:\n')
        with open(os.path.join(self.work, 'sshd_config'), 'w') as handle:
            handle.write(SSHD_CONFIG.format(work=self.work))
        if not os.path.isdir(PRIVSEP_DIR):
            os.mkdir(PRIVSEP_DIR, 0o755)
            self.made_privsep_dir = True
        env = dict(os.environ, LD_PRELOAD=preload[0], NSS_WRAPPER_PASSWD=os.path.join(self.work, 'passwd'),
                   NSS_WRAPPER_GROUP=os.path.join(self.work, 'group'))
        self.ports = free_ports(self.hosts)
        log = open(os.path.join(self.work, 'sshd.log'), 'w')
        for port in self.ports:
            self.processes.append(subprocess.Popen(
                [sshd, '-D', '-e', '-f', os.path.join(self.work, 'sshd_config'), '-p', str(port)],
                env=env, stdout=log, stderr=log))
        deadline = time.time() + 60
        for port, process in zip(self.ports, self.processes):
            while True:
                if process.poll() is not None:
                    raise SystemExit('sshd on port %d exited; see %s' % (port, log.name))
                try:
                    socket.create_connection(('127.0.0.1', port), timeout=1).close()
                    break
                except (IOError, OSError):
                    if time.time() > deadline:
                        raise SystemExit('sshd on port %d did not answer' % port)
                    time.sleep(0.05)
        return self

    def host_vars(self, index):
        return {'ansible_connection': 'ssh', 'ansible_host': '127.0.0.1', 'ansible_port': self.ports[index],
                'ansible_user': 'root', 'ansible_ssh_private_key_file': os.path.join(self.work, 'client_key'),
                'ansible_ssh_common_args': '-o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no'}

    def ansible_env(self):
        """SSH as an operator sets it: pipelining and ControlPersist, control sockets in the work dir."""
        return {'ANSIBLE_PIPELINING': 'True', 'ANSIBLE_SSH_CONTROL_PATH_DIR': self.control_dir,
                'ANSIBLE_SSH_ARGS': '-o ControlMaster=auto -o ControlPersist=60s', 'ANSIBLE_TIMEOUT': '30'}

    def close_masters(self):
        """End the SSH control masters of this fleet, so that every measured run starts cold."""
        marker = self.control_dir.encode()
        for entry in os.listdir('/proc'):
            if not entry.isdigit():
                continue
            try:
                with open('/proc/%s/cmdline' % entry, 'rb') as handle:
                    cmdline = handle.read()
            except (IOError, OSError):
                continue
            if marker in cmdline and cmdline.startswith(b'ssh'):
                try:
                    os.kill(int(entry), signal.SIGTERM)
                except OSError:
                    pass

    def stop(self):
        self.close_masters()
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.made_privsep_dir:
            os.rmdir(PRIVSEP_DIR)
