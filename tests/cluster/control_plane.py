#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Kubernetes control plane as a test's own processes on this machine (issue 52): etcd, kube-apiserver,
kube-controller-manager and kube-scheduler built from the Go modules (make cluster-bin), listening on 127.0.0.1
only, every file in one state directory, every process stopped by `down`.

    python3 tests/cluster/control_plane.py up --bin .cache/cluster/bin --state /tmp/cp   # prints the kubeconfig
    python3 tests/cluster/control_plane.py down --state /tmp/cp

The certificates and kubeconfigs are kubeadm's own (`kubeadm init phase certs` and `kubeconfig` with --cert-dir
and --kubeconfig-dir, --kubernetes-version so that nothing is fetched). The API server advertises 10.0.2.2, the
address under which a QEMU guest on the user network reaches this machine's 127.0.0.1, and its certificate names
both. Nothing outside the state directory is written; never kubelet or a container runtime here.
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time

# The address a QEMU guest on the user network reaches this machine's 127.0.0.1 under (slirp's gateway).
GUEST_VISIBLE_HOST = '10.0.2.2'
SERVICE_CIDR = '10.96.0.0/12'
STATE_FILE = 'control-plane.json'
COMPONENTS = ('etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler')


def free_port():
    """A TCP port nothing listens on at 127.0.0.1 now."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]
    finally:
        probe.close()


def run(argv, log):
    """Run a one-shot command (kubeadm's phases), its output appended to log; fail naming it."""
    with open(log, 'a') as out:
        out.write('$ %s\n' % ' '.join(argv))
        out.flush()
        code = subprocess.call(argv, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        raise SystemExit('%s failed (%d): see %s' % (argv[0], code, log))


def kubeadm_files(binaries, state, version, port, log):
    """kubeadm's PKI and the kubeconfigs of the admin, the controller manager and the scheduler, in state."""
    pki = os.path.join(state, 'pki')
    common = ['--kubernetes-version', version]
    run([os.path.join(binaries, 'kubeadm'), 'init', 'phase', 'certs', 'all', '--cert-dir', pki,
         '--apiserver-advertise-address', GUEST_VISIBLE_HOST, '--apiserver-cert-extra-sans', '127.0.0.1,localhost',
         '--service-cidr', SERVICE_CIDR] + common, log)
    for kind in ('super-admin', 'controller-manager', 'scheduler'):
        run([os.path.join(binaries, 'kubeadm'), 'init', 'phase', 'kubeconfig', kind, '--cert-dir', pki,
             '--kubeconfig-dir', state, '--control-plane-endpoint', '127.0.0.1:%d' % port] + common, log)
        # kubeadm names the local endpoint (advertise address and bind port) in the controller manager's and the
        # scheduler's, and refuses a loopback advertise address: point every one at 127.0.0.1 here.
        path = os.path.join(state, kind + '.conf')
        with open(path) as handle:
            lines = handle.read().splitlines(True)
        with open(path, 'w') as handle:
            handle.writelines('    server: https://127.0.0.1:%d\n' % port if line.strip().startswith('server: ')
                              else line for line in lines)
    return pki


def commands(binaries, state, pki, ports):
    """{component: argv}, with the flags kubeadm's static pod manifests give them, on this machine's ports."""
    etcd_client = 'http://127.0.0.1:%d' % ports['etcd']
    etcd_peer = 'http://127.0.0.1:%d' % ports['etcd_peer']

    def pki_file(name):
        return os.path.join(pki, name)

    def kubeconfig(name):
        return os.path.join(state, name)

    return {
        'etcd': [os.path.join(binaries, 'etcd'), '--name', 'control-plane', '--data-dir', os.path.join(state, 'etcd'),
                 '--listen-client-urls', etcd_client, '--advertise-client-urls', etcd_client,
                 '--listen-peer-urls', etcd_peer, '--initial-advertise-peer-urls', etcd_peer,
                 '--initial-cluster', 'control-plane=%s' % etcd_peer, '--listen-metrics-urls', '',
                 '--log-level', 'warn'],
        'kube-apiserver': [
            os.path.join(binaries, 'kube-apiserver'), '--bind-address=127.0.0.1',
            '--advertise-address=%s' % GUEST_VISIBLE_HOST, '--secure-port=%d' % ports['apiserver'],
            '--etcd-servers=%s' % etcd_client, '--allow-privileged=true', '--authorization-mode=Node,RBAC',
            '--client-ca-file=%s' % pki_file('ca.crt'), '--enable-admission-plugins=NodeRestriction',
            '--enable-bootstrap-token-auth=true', '--tls-cert-file=%s' % pki_file('apiserver.crt'),
            '--tls-private-key-file=%s' % pki_file('apiserver.key'),
            '--kubelet-client-certificate=%s' % pki_file('apiserver-kubelet-client.crt'),
            '--kubelet-client-key=%s' % pki_file('apiserver-kubelet-client.key'),
            '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
            '--proxy-client-cert-file=%s' % pki_file('front-proxy-client.crt'),
            '--proxy-client-key-file=%s' % pki_file('front-proxy-client.key'),
            '--requestheader-client-ca-file=%s' % pki_file('front-proxy-ca.crt'),
            '--requestheader-allowed-names=front-proxy-client', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
            '--requestheader-group-headers=X-Remote-Group', '--requestheader-username-headers=X-Remote-User',
            '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
            '--service-account-key-file=%s' % pki_file('sa.pub'),
            '--service-account-signing-key-file=%s' % pki_file('sa.key'),
            '--service-cluster-ip-range=%s' % SERVICE_CIDR],
        'kube-controller-manager': [
            os.path.join(binaries, 'kube-controller-manager'), '--bind-address=127.0.0.1',
            '--secure-port=%d' % ports['controller_manager'],
            '--kubeconfig=%s' % kubeconfig('controller-manager.conf'),
            '--authentication-kubeconfig=%s' % kubeconfig('controller-manager.conf'),
            '--authorization-kubeconfig=%s' % kubeconfig('controller-manager.conf'),
            '--client-ca-file=%s' % pki_file('ca.crt'), '--root-ca-file=%s' % pki_file('ca.crt'),
            '--cluster-signing-cert-file=%s' % pki_file('ca.crt'),
            '--cluster-signing-key-file=%s' % pki_file('ca.key'),
            '--service-account-private-key-file=%s' % pki_file('sa.key'),
            '--controllers=*,bootstrapsigner,tokencleaner', '--use-service-account-credentials=true',
            '--leader-elect=false'],
        'kube-scheduler': [
            os.path.join(binaries, 'kube-scheduler'), '--bind-address=127.0.0.1',
            '--secure-port=%d' % ports['scheduler'], '--kubeconfig=%s' % kubeconfig('scheduler.conf'),
            '--authentication-kubeconfig=%s' % kubeconfig('scheduler.conf'),
            '--authorization-kubeconfig=%s' % kubeconfig('scheduler.conf'), '--leader-elect=false'],
    }


def healthy(port, path='/readyz', ca=None):
    """Whether https://127.0.0.1:port/path answers 200 (the certificate is checked against ca when given)."""
    context = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()  # nosec - readiness probe
    try:
        import urllib.request
        with urllib.request.urlopen('https://127.0.0.1:%d%s' % (port, path), context=context, timeout=5) as answer:
            return answer.status == 200
    except Exception:  # pylint: disable=broad-except
        return False


def wait_for(what, check, seconds, processes):
    deadline = time.time() + seconds
    while time.time() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                raise SystemExit('%s exited (%s) while waiting for %s' % (name, process.returncode, what))
        if check():
            return
        time.sleep(1)
    raise SystemExit('%s not ready within %d s' % (what, seconds))


def up(binaries, state, version, timeout):
    """Start the control plane; write its state file; return it."""
    binaries, state = os.path.abspath(binaries), os.path.abspath(state)
    if not os.path.isdir(state):
        os.makedirs(state)
    log = os.path.join(state, 'kubeadm.log')
    ports = dict((name, free_port()) for name in ('etcd', 'etcd_peer', 'apiserver', 'controller_manager', 'scheduler'))
    started = time.time()
    pki = kubeadm_files(binaries, state, version, ports['apiserver'], log)
    argv = commands(binaries, state, pki, ports)
    processes = {}
    try:
        for name in COMPONENTS:
            out = open(os.path.join(state, name + '.log'), 'w')
            # Its own session, so that down stops it and whatever it started, and a Ctrl-C here does not.
            processes[name] = subprocess.Popen(argv[name], stdout=out, stderr=subprocess.STDOUT, cwd=state,
                                               start_new_session=True)
            out.close()
            if name == 'etcd':
                wait_for('etcd', lambda: _tcp_open(ports['etcd']), timeout, processes)
            if name == 'kube-apiserver':
                wait_for('kube-apiserver', lambda: healthy(ports['apiserver'], ca=os.path.join(pki, 'ca.crt')),
                         timeout, processes)
        record = {'state': state, 'kubeconfig': os.path.join(state, 'super-admin.conf'), 'ports': ports,
                  'pids': dict((name, p.pid) for name, p in processes.items()), 'version': version,
                  'server': 'https://127.0.0.1:%d' % ports['apiserver'],
                  'guest_server': 'https://%s:%d' % (GUEST_VISIBLE_HOST, ports['apiserver']),
                  'seconds_to_ready': round(time.time() - started, 1)}
    except BaseException:
        stop(dict((name, p.pid) for name, p in processes.items()))
        raise
    with open(os.path.join(state, STATE_FILE), 'w') as handle:
        json.dump(record, handle, indent=2, sort_keys=True)
    return record


def _tcp_open(port):
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(1)
    try:
        return probe.connect_ex(('127.0.0.1', port)) == 0
    finally:
        probe.close()


def stop(pids, seconds=20):
    """SIGTERM each component's process group, then SIGKILL what is left after seconds."""
    for pid in pids.values():
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.time() + seconds
    for pid in pids.values():
        while time.time() < deadline and _alive(pid):
            time.sleep(0.2)
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def _alive(pid):
    try:
        waited, _status = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except OSError:
        pass  # not our child (down from another process): ask the kernel
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def down(state):
    path = os.path.join(os.path.abspath(state), STATE_FILE)
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        record = json.load(handle)
    stop(record['pids'])
    os.remove(path)
    return record


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    sub = parser.add_subparsers(dest='command', required=True)
    start = sub.add_parser('up', help='start the control plane and print its state (kubeconfig, ports, pids)')
    start.add_argument('--bin', required=True, help='the directory of etcd, kubeadm and the control plane binaries')
    start.add_argument('--state', required=True, help='the directory every file goes to')
    start.add_argument('--version', default='v1.37.2', help="the release kubeadm is told (nothing is fetched)")
    start.add_argument('--timeout', type=int, default=180, help='seconds each component has to become ready')
    finish = sub.add_parser('down', help='stop what up started')
    finish.add_argument('--state', required=True)
    args = parser.parse_args(argv)
    if args.command == 'up':
        print(json.dumps(up(args.bin, args.state, args.version, args.timeout), indent=2, sort_keys=True))
    else:
        record = down(args.state)
        print('stopped %s' % ', '.join(sorted(record['pids'])) if record else 'nothing running')
    return 0


if __name__ == '__main__':
    sys.exit(main())
