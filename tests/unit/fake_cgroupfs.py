# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A cgroupfs in a temp dir that behaves like the kernel where the modules can tell.

- mkdir creates the control files of the controllers the cgroup gets (v2: its parent's
  cgroup.subtree_control; v1: the hierarchy's), with the kernel's defaults;
- new v1 cpusets start with empty cpuset.cpus and cpuset.mems;
- writes round memory down to 4 KiB pages and hugetlb down to the page size, spell v1
  "unlimited" as 9223372036854771712, and can be made to fail with EBUSY, EACCES or EROFS;
- a v2 child refuses a controller its parent did not enable in cgroup.subtree_control.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import re
import subprocess
import time

from ansible.module_utils import basic

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_names import expand_slice


def _hugetlb_page_bytes(name):
    """The kernel's own rounding unit for a hugetlb file (hugetlb.2MB.max: 2 MiB), written out here so that
    the fake does not borrow the code under test."""
    match = re.match(r'^hugetlb\.([0-9]+)([KMG])B\.', name)
    return int(match.group(1)) << {'K': 10, 'M': 20, 'G': 30}[match.group(2)] if match else None


V2_FILES = {
    'cpu': {'cpu.weight': '100', 'cpu.max': 'max 100000'},
    'memory': {'memory.max': 'max', 'memory.min': '0', 'memory.low': '0', 'memory.swap.max': 'max'},
    'pids': {'pids.max': 'max'},
    'cpuset': {'cpuset.cpus': '', 'cpuset.mems': ''},
    'hugetlb': {'hugetlb.2MB.max': 'max', 'hugetlb.2MB.rsvd.max': 'max', 'hugetlb.1GB.max': 'max',
                'hugetlb.1GB.rsvd.max': 'max'},
}
V1_UNLIMITED = '9223372036854771712'
V1_FILES = {
    'cpu': {'cpu.shares': '1024', 'cpu.cfs_quota_us': '-1', 'cpu.cfs_period_us': '100000'},
    'cpuacct': {},
    'memory': {'memory.limit_in_bytes': V1_UNLIMITED},
    'pids': {'pids.max': 'max'},
    'cpuset': {'cpuset.cpus': '', 'cpuset.mems': ''},
    'hugetlb': {'hugetlb.2MB.limit_in_bytes': V1_UNLIMITED, 'hugetlb.1GB.limit_in_bytes': V1_UNLIMITED},
    'systemd': {},
}


def node_cgroups_args(tree, node_capacity, **extra):
    """node_cgroups' options for the tests' usual node: both reserved cgroups enforced, on this fake root."""
    base = {'capacity': dict(node_capacity), 'cgroup_driver': 'cgroupfs', 'cgroupfs_path': tree.root,
            'proc_path': tree.proc, 'system_reserved': {'cpu': '500m', 'memory': '1Gi', 'pid': '1000'},
            'kube_reserved': {'cpu': '250m', 'memory': '512Mi'}, 'system_reserved_cgroup': '/system',
            'kube_reserved_cgroup': '/kube', 'enforce_node_allocatable': ['pods', 'system-reserved', 'kube-reserved']}
    base.update(tree.node_paths())
    base.update(extra)
    return base


def snapshot(root):
    """Every file under root with its content, but the node lock (taken by every run that writes)."""
    result = {}
    for directory, _dirs, files in os.walk(root):
        for name in files:
            if name == 'kubenode-cgroups.lock':
                continue
            with open(os.path.join(directory, name)) as handle:
                result[os.path.join(directory, name)] = handle.read()
    return result


def _write(path, text):
    with open(path, 'w') as handle:
        handle.write(text)


class FakeCgroupfs(object):
    def __init__(self, tmp_path, mode, monkeypatch, pid1='systemd'):
        self.mode = mode
        self.base = str(tmp_path)
        self.root = str(tmp_path / 'sys/fs/cgroup')
        self.proc = str(tmp_path / 'proc')
        self.failures = {}
        os.makedirs(os.path.join(self.proc, 'self'))
        os.makedirs(os.path.join(self.proc, '1'))
        _write(os.path.join(self.proc, '1/comm'), pid1 + '\n')
        mounts = []
        if mode == 'v2':
            os.makedirs(self.root)
            _write(os.path.join(self.root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n')
            _write(os.path.join(self.root, 'cgroup.subtree_control'), 'memory pids\n')
            _write(os.path.join(self.root, 'cgroup.procs'), '1\n')
            mounts.append((self.root, 'cgroup2', 'rw,nsdelegate'))
        else:
            for hierarchy in V1_FILES:
                path = os.path.join(self.root, hierarchy)
                os.makedirs(path)
                _write(os.path.join(path, 'cgroup.procs'), '1\n')
                if hierarchy == 'cpuset':
                    _write(os.path.join(path, 'cpuset.cpus'), '0-3\n')
                    _write(os.path.join(path, 'cpuset.mems'), '0\n')
                option = 'name=systemd' if hierarchy == 'systemd' else hierarchy
                mounts.append((path, 'cgroup', 'rw,' + option))
            if mode == 'hybrid':
                os.makedirs(os.path.join(self.root, 'unified'))
                mounts.append((os.path.join(self.root, 'unified'), 'cgroup2', 'rw'))
        with open(os.path.join(self.proc, 'self/mountinfo'), 'w') as handle:
            for index, (point, fs_type, options) in enumerate(mounts):
                handle.write('%d 1 0:%d / %s rw,nosuid - %s %s %s\n' % (30 + index, 30 + index, point, fs_type,
                                                                        fs_type, options))
        real_mkdir, real_rmdir = os.mkdir, os.rmdir
        monkeypatch.setattr(_cgroupfs, 'write_file', self.write_file)
        monkeypatch.setattr(os, 'mkdir', lambda path, *a: self.mkdir(real_mkdir, path, *a))
        monkeypatch.setattr(os, 'rmdir', lambda path: self.rmdir(real_rmdir, path))
        # With systemd as PID 1 the modules call systemctl: a recording fake answers, never the host's.
        self.systemd = FakeSystemd(monkeypatch, self, self.node_paths()['systemd_unit_dir']) if pid1 == 'systemd' \
            else None

    def node_paths(self):
        """node_cgroups' options for the node's files outside cgroupfs, all under this fake root."""
        return {'systemd_unit_dir': os.path.join(self.base, 'etc/systemd/system'),
                'systemd_control_dirs': [os.path.join(self.base, 'etc/systemd/system.control'),
                                         os.path.join(self.base, 'run/systemd/system.control')],
                'persist_script': os.path.join(self.base, 'usr/local/libexec/kubenode-cgroups-restore'),
                'lock_path': os.path.join(self.base, 'run/lock/kubenode-cgroups.lock'),
                # Not there unless a test puts one: the release is then the newest GA release, with a warning.
                'kubelet_binary': os.path.join(self.base, 'usr/bin/kubelet'),
                'kubelet_root_dir': os.path.join(self.base, 'var/lib/kubelet'),
                'kubelet_config_paths': [os.path.join(self.base, 'var/lib/kubelet/config.yaml'),
                                         os.path.join(self.base, 'etc/kubernetes/kubelet-config.yaml')]}

    def audit_paths(self):
        """node_drift_info's options for the same files (it takes no lock)."""
        return dict((k, v) for k, v in self.node_paths().items() if k != 'lock_path')

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def read(self, *parts):
        with open(self.path(*parts)) as handle:
            return handle.read().strip()

    def fail(self, file_path, error):
        self.failures[file_path] = error

    def mkdir(self, real_mkdir, path, *args):
        path = os.fspath(path)
        real_mkdir(path, *args)
        if not path.startswith(self.root):
            return
        _write(os.path.join(path, 'cgroup.procs'), '')
        if self.mode == 'v2':
            parent_enabled = (open(os.path.join(os.path.dirname(path), 'cgroup.subtree_control')).read().split())
            _write(os.path.join(path, 'cgroup.controllers'), ' '.join(parent_enabled) + '\n')
            _write(os.path.join(path, 'cgroup.subtree_control'), '\n')
            for controller in parent_enabled:
                for name, value in V2_FILES.get(controller, {}).items():
                    _write(os.path.join(path, name), value + '\n')
        else:
            hierarchy = os.path.relpath(path, self.root).split(os.sep, 1)[0]
            for name, value in V1_FILES.get(hierarchy, {}).items():
                _write(os.path.join(path, name), value + '\n')

    def rmdir(self, real_rmdir, path):
        """cgroupfs: control files never block rmdir; child cgroups and tasks do (EBUSY)."""
        path = os.fspath(path)
        if path.startswith(self.root):
            entries = os.listdir(path)
            procs = os.path.join(path, 'cgroup.procs')
            busy = os.path.exists(procs) and open(procs).read().strip()
            if busy or any(os.path.isdir(os.path.join(path, e)) for e in entries):
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), path)
            for entry in entries:
                os.remove(os.path.join(path, entry))
        real_rmdir(path)

    def _offer_to_children(self, directory, enabled):
        """Children see the controllers their parent enables, and get those controllers' files."""
        for child in os.listdir(directory):
            child_path = os.path.join(directory, child)
            if not os.path.isdir(child_path):
                continue
            _write(os.path.join(child_path, 'cgroup.controllers'), ' '.join(sorted(enabled)) + '\n')
            for controller in enabled:
                for name, default in V2_FILES.get(controller, {}).items():
                    if not os.path.exists(os.path.join(child_path, name)):
                        _write(os.path.join(child_path, name), default + '\n')

    def write_file(self, path, value):
        if path in self.failures:
            code = self.failures[path]
            raise _cgroupfs.CgroupWriteError('the kernel refused %s for %s: %s' % (value, path, os.strerror(code)),
                                             path=path, value=value)
        name = os.path.basename(path)
        if not os.path.exists(path):
            raise _cgroupfs.CgroupWriteError('the kernel refused %s for %s: %s' % (value, path,
                                                                                   os.strerror(errno.ENOENT)), path=path, value=value)
        stored = value
        if name == 'cgroup.subtree_control':
            directory = os.path.dirname(path)
            current = set(open(path).read().split())
            controllers = set(open(os.path.join(directory, 'cgroup.controllers')).read().split())
            for token in value.split():
                if token[1:] not in controllers:
                    raise _cgroupfs.CgroupWriteError('the kernel refused %s for %s: %s'
                                                     % (value, path, os.strerror(errno.ENOENT)), path=path, value=value)
                (current.add if token[0] == '+' else current.discard)(token[1:])
            stored = ' '.join(sorted(current))
            self._offer_to_children(directory, current)
        elif value.lstrip('-').isdigit():
            number = int(value)
            page = _hugetlb_page_bytes(name) or (4096 if name.startswith('memory.') else None)
            if page and number >= 0:
                stored = str(number // page * page)
            if self.mode != 'v2' and number == -1 and name.endswith('limit_in_bytes'):
                stored = V1_UNLIMITED
        _write(path, stored + '\n')


class FakeSystemd(object):
    """Records systemctl calls; starting a slice makes its cgroup as systemd does."""

    def __init__(self, monkeypatch, tree, unit_dir):
        self.tree, self.unit_dir = tree, unit_dir
        self.runtime_control = tree.node_paths()['systemd_control_dirs'][1]
        self.calls, self.active, self.properties = [], set(), {}
        self.run_services, self.failing_services = False, set()
        # What systemd reports of running services: ActiveState, ExecMainStartTimestampMonotonic, ControlGroup.
        self.running = {}
        # Properties shown as systemctl prints them (ExecStart=, EnvironmentFiles=), kept over daemon-reloads;
        # a list is printed as one line per element, as systemd does for EnvironmentFiles=.
        self.shown = {}
        self.started = 0  # services started: the PID of the next one's main process
        self.installed = {'containerd.service', 'kubelet.service'}
        # kubelet binaries (under the fake root) and what they answer to --version.
        self.kubelet_binaries = {}
        monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False: '/bin/' + name)
        monkeypatch.setattr(basic.AnsibleModule, 'run_command', self.run_command)

    def load_units(self):
        """What systemd makes of the unit files, drop-ins and set-property overrides (which win)."""
        self.properties = {}
        for top in [self.unit_dir] + self.tree.node_paths()['systemd_control_dirs']:
            for directory, _dirs, files in sorted(os.walk(top)):
                for name in sorted(files):
                    unit = name if directory == top else os.path.basename(directory)[:-2]
                    with open(os.path.join(directory, name)) as handle:
                        for line in handle:
                            if '=' in line and not line.startswith(('#', 'Description', 'Before')):
                                key, value = line.strip().split('=', 1)
                                self.properties.setdefault(unit, {})[key] = value

    def set_property(self, unit, name, value):
        """systemctl set-property --runtime: a drop-in per property under /run/systemd/system.control."""
        directory = os.path.join(self.runtime_control, unit + '.d')
        if not os.path.isdir(directory):
            os.makedirs(directory)
        with open(os.path.join(directory, '50-%s.conf' % name), 'w') as handle:
            handle.write('# created via "systemctl set-property"\n[Slice]\n%s=%s\n' % (name, value))
        self.properties.setdefault(unit, {})[name] = value

    def make_slice(self, unit):
        parts = [p for p in expand_slice(unit).split('/') if p]
        if self.tree.mode == 'v2':
            for depth in range(len(parts)):
                control = self.tree.path(*(parts[:depth] + ['cgroup.subtree_control']))
                _cgroupfs.write_file(control, '+cpu +memory +pids')
                child = self.tree.path(*parts[:depth + 1])
                if not os.path.isdir(child):
                    os.mkdir(child)
            return
        for hierarchy in ('cpu', 'cpuacct', 'memory', 'pids', 'systemd'):
            for depth in range(1, len(parts) + 1):
                directory = self.tree.path(hierarchy, *parts[:depth])
                if not os.path.isdir(directory):
                    os.mkdir(directory)

    def run_oneshot(self, unit):
        """A service's start: recorded; with run_services, its ExecStart= is run as systemd would (a shell
        bypasses the fake kernel's rounding, so only tests about the script itself turn this on)."""
        if unit in self.failing_services:
            return 1, '', 'Job for %s failed because the control process exited with error code.' % unit
        if not self.run_services:
            self.active.add(unit)
            return 0, '', ''
        with open(os.path.join(self.unit_dir, unit)) as handle:
            command = [line.strip().split('=', 1)[1] for line in handle if line.startswith('ExecStart=')][0]
        if not command.startswith(self.tree.base + os.sep):
            raise AssertionError('the fake systemd runs only what lies under the fake root, not %s' % command)
        done = subprocess.run(['/bin/sh', command], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return 1, '', 'Job for %s failed: %s' % (unit, done.stderr)
        self.active.add(unit)
        return 0, '', ''

    def start_service(self, unit, cgroup=None, seconds_ago=0):
        """A running service: started seconds_ago, in cgroup (by default where its Slice= drop-in says)."""
        if cgroup is None:
            cgroup = '/system.slice/' + unit
            dropin = os.path.join(self.unit_dir, unit + '.d', '50-kubenode-slice.conf')
            if os.path.exists(dropin):
                with open(dropin) as handle:
                    unit_slice = [line.split('=', 1)[1].strip() for line in handle if line.startswith('Slice=')][0]
                cgroup = expand_slice(unit_slice) + '/' + unit
        self.running[unit] = {'ActiveState': 'active', 'ControlGroup': cgroup,
                              'ExecMainStartTimestampMonotonic': str(int((time.monotonic() - seconds_ago) * 1e6))}
        # systemd shows ExecStart= with the last start's time and PID (systemctl show -p ExecStart).
        if 'ExecStart' in self.shown.get(unit, {}):
            self.started += 1
            self.shown[unit]['ExecStart'] = re.sub(
                r'start_time=\[[^]]*\] ; stop_time=\[[^]]*\] ; pid=\d+',
                'start_time=[%s] ; stop_time=[n/a] ; pid=%d' % (time.strftime('%a %Y-%m-%d %H:%M:%S UTC', time.gmtime(
                    time.time() - seconds_ago)), 1000 + self.started), self.shown[unit]['ExecStart'])

    def run_command(self, command, **kwargs):
        if command[1:] == ['--version'] and command[0] in self.kubelet_binaries:
            self.calls.append(' '.join(command))
            return 0, self.kubelet_binaries[command[0]] + '\n', ''
        verb = command[1:]
        self.calls.append(' '.join(verb))
        if verb[0] == 'is-active':
            return (0, 'active\n', '') if verb[1] in self.active else (3, 'inactive\n', '')
        if verb[0] in ('start', 'restart') and verb[1] in self.running:
            self.start_service(verb[1])
            return 0, '', ''
        if verb[0] in ('start', 'restart') and verb[1].endswith('.service'):
            return self.run_oneshot(verb[1])
        if verb[0] == 'start':
            self.active.add(verb[1])
            self.make_slice(verb[1])
        if verb[0] == 'daemon-reload':
            self.load_units()
        if verb[0] == 'set-property':
            for assignment in verb[3:]:
                self.set_property(verb[2], *assignment.split('=', 1))
        if verb[0] == 'show' and verb[1] == '--property=Id,LoadState':
            blocks = ['Id=%s\nLoadState=%s' % (u, 'loaded' if u in self.installed else 'not-found') for u in verb[2:]]
            return 0, '\n\n'.join(blocks), ''
        if verb[0] == 'show':
            wanted = verb[1].split('=', 1)[1].split(',')
            blocks = []
            for unit in verb[2:]:
                known = dict(self.properties.get(unit, {}), Id=unit, **self.running.get(unit, {}))
                known.update(self.shown.get(unit, {}))
                blocks.append(''.join('%s=%s\n' % (n, v) for n in wanted
                                      for v in (known[n] if isinstance(known.get(n), list) else [known.get(n, '')])))
            return 0, '\n'.join(blocks), ''
        return 0, '', ''
