# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading and writing cgroupfs: the host's cgroup mode, hierarchies and cgroup files.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Thin I/O over a configurable mount point, so tests run on a fake tree. cgroup files are
written in place (a rename would not reach the kernel) and only after comparing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import re

from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError, host_error

# Controllers kubelet validates (cgroup_v1_manager_linux.go / cgroup_v2_manager_linux.go).
V1_REQUIRED = ('cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'systemd')
V1_OPTIONAL = ('hugetlb',)
V2_CONTROLLERS = ('cpu', 'cpuset', 'memory', 'hugetlb', 'pids')
_V1_KNOWN = V1_REQUIRED + V1_OPTIONAL + ('net_cls', 'net_prio', 'blkio', 'devices', 'freezer', 'perf_event',
                                         'rdma', 'misc')
MEMORY_FILES = ('memory.limit_in_bytes', 'memory.max', 'memory.min', 'memory.low', 'memory.swap.max')
PAGE_SIZE = 4096
# What v1 memory.limit_in_bytes shows when unlimited (PAGE_COUNTER_MAX in 4 KiB pages).
V1_UNLIMITED_MEMORY = 9223372036854771712
_UNITS = {'KB': 1 << 10, 'MB': 1 << 20, 'GB': 1 << 30, 'TB': 1 << 40, 'PB': 1 << 50}


class CgroupWriteError(KubenodeError):
    """The kernel refused a write; says which file, which value and why."""


def read_mountinfo(proc_path):
    """[(mount point, fs type, super options)] from <proc>/self/mountinfo."""
    mounts = []
    path = os.path.join(proc_path, 'self/mountinfo')
    try:
        with open(path) as handle:
            lines = handle.readlines()
    except (IOError, OSError) as error:
        raise host_error('read the mount table', error, path)
    for line in lines:
        fields = line.split()
        if ' - ' not in line or len(fields) < 10:
            continue
        separator = fields.index('-')
        mount_point = fields[4].replace('\\040', ' ')
        mounts.append((mount_point, fields[separator + 1], fields[separator + 3]))
    return mounts


def detect_layout(proc_path, cgroupfs_path):
    """The cgroup mode under cgroupfs_path: v2, hybrid or v1, and where each hierarchy is."""
    root = cgroupfs_path.rstrip('/') or '/'
    v1, unified = {}, None
    for mount_point, fs_type, options in read_mountinfo(proc_path):
        if mount_point != root and not mount_point.startswith(root + '/'):
            continue
        if fs_type == 'cgroup2':
            unified = mount_point
        elif fs_type == 'cgroup':
            for option in options.split(','):
                name = option[len('name='):] if option.startswith('name=') else option
                if name in _V1_KNOWN:
                    v1[name] = mount_point
    if unified == root:
        mode = 'v2'
    elif v1:
        mode = 'hybrid' if unified else 'v1'
    else:
        raise KubenodeError('no cgroup filesystem is mounted there', field='cgroupfs_path', value=cgroupfs_path)
    return {'mode': mode, 'v1_hierarchies': v1, 'unified': unified}


def read_file(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError) as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise


def write_file(path, value):
    """Write a cgroup file in place; a refusal becomes a CgroupWriteError naming file and value."""
    try:
        with open(path, 'w') as handle:
            handle.write(value)
    except (IOError, OSError) as error:
        raise CgroupWriteError('the kernel refused %s for %s: %s' % (value, path, os.strerror(error.errno or errno.EIO)),
                               field=path, value=value)


def hugetlb_page_bytes(file_name):
    match = re.match(r'^hugetlb\.([0-9]+)([KMGTP]B)\.', file_name)
    return int(match.group(1)) * _UNITS[match.group(2)] if match else None


def normalize(file_name, value):
    """Compare what we write with what the kernel shows: unlimited spellings, page rounding, cpusets."""
    if value is None:
        return None
    value = value.strip()
    if file_name.startswith('memory.') or file_name == 'pids.max':
        if value in ('max', '-1') or (value.isdigit() and int(value) >= V1_UNLIMITED_MEMORY):
            return 'max'
        if file_name in MEMORY_FILES and value.isdigit():
            return str(int(value) // PAGE_SIZE * PAGE_SIZE)
    page = hugetlb_page_bytes(file_name)
    if page and value.isdigit():
        return str(int(value) // page * page)
    if file_name in ('cpuset.cpus', 'cpuset.mems'):
        return ','.join(str(c) for c in _expand(value))
    if file_name == 'cpu.max':
        parts = value.split()
        return ' '.join(parts) if len(parts) == 2 else '%s 100000' % parts[0]
    return value


def _expand(cpuset):
    cpus = []
    for part in [p for p in cpuset.split(',') if p]:
        bounds = part.split('-')
        cpus.extend(range(int(bounds[0]), int(bounds[-1]) + 1))
    return cpus


def cgroup_path(root, relative, field='path'):
    """root + an absolute cgroup path, refusing anything that would leave root."""
    parts = relative.strip('/').split('/') if relative.strip('/') else []
    if any(part in ('', '.', '..') for part in parts):
        raise KubenodeError('cgroup paths must not contain empty, "." or ".." components', field=field,
                            value=relative)
    path = os.path.normpath(os.path.join(root, *parts)) if parts else os.path.normpath(root)
    if path != os.path.normpath(root) and not path.startswith(os.path.normpath(root) + os.sep):
        raise KubenodeError('resolves outside the cgroup root %s' % root, field=field, value=relative)
    return path


V1_FILES = ('cpu.shares', 'cpu.cfs_quota_us', 'cpu.cfs_period_us', 'memory.limit_in_bytes', 'pids.max',
            'cpuset.cpus', 'cpuset.mems')
V2_FILES = ('cpu.weight', 'cpu.max', 'memory.max', 'memory.min', 'memory.low', 'memory.swap.max', 'pids.max', 'cpuset.cpus',
            'cgroup.controllers', 'cgroup.subtree_control')
_HUGETLB_RE = re.compile(r'^hugetlb\.([0-9]+[KMGTP]B)\.(limit_in_bytes|max)$')


def parse_value(value):
    """A control file's value: None when empty, 'max' for every unlimited spelling, an int, else the text."""
    if value is None or value == '':
        return None
    if value == 'max' or (value.isdigit() and int(value) >= V1_UNLIMITED_MEMORY):
        return 'max'
    try:
        return int(value)
    except ValueError:
        return value


def read_cgroup(layout, root, relative):
    """Live values of one cgroup, normalised, plus raw contents and kubelet's Validate verdict."""
    raw, values, missing = {}, {}, []
    if layout['mode'] == 'v2':
        directory = cgroup_path(root, relative)
        exists = os.path.isdir(directory)
        if exists:
            for name in sorted(os.listdir(directory)):
                if name in V2_FILES or _HUGETLB_RE.match(name):
                    raw[name] = read_file(os.path.join(directory, name))
            offered = (read_file(os.path.join(root, 'cgroup.controllers')) or '').split()
            have = (raw.get('cgroup.controllers') or '').split()
            missing = [c for c in V2_CONTROLLERS if c in offered and c not in have]
    else:
        exists = False
        for hierarchy, mount in sorted(layout['v1_hierarchies'].items()):
            directory = cgroup_path(mount, relative)
            if not os.path.isdir(directory):
                if hierarchy in V1_REQUIRED + V1_OPTIONAL:
                    missing.append(directory)
                continue
            exists = True
            for name in sorted(os.listdir(directory)):
                if name in V1_FILES or _HUGETLB_RE.match(name):
                    raw[name] = read_file(os.path.join(directory, name))
    if 'cpu.shares' in raw:
        values['cpu_shares'] = parse_value(raw['cpu.shares'])
    if 'cpu.weight' in raw:
        values['cpu_weight'] = parse_value(raw['cpu.weight'])
    for file_name, key in (('memory.limit_in_bytes', 'memory'), ('memory.max', 'memory'), ('memory.min', 'memory_min'),
                           ('memory.low', 'memory_low'), ('memory.swap.max', 'memory_swap_max'), ('pids.max', 'pids'),
                           ('cpuset.cpus', 'cpuset_cpus')):
        if file_name in raw:
            values[key] = raw[file_name] if key == 'cpuset_cpus' else parse_value(raw[file_name])
    if 'cpu.cfs_quota_us' in raw:
        values['cpu_quota'], values['cpu_period'] = parse_value(raw['cpu.cfs_quota_us']), parse_value(raw['cpu.cfs_period_us'])
    if 'cpu.max' in raw and raw['cpu.max']:
        quota, _sep, period = raw['cpu.max'].partition(' ')
        values['cpu_quota'] = -1 if quota == 'max' else parse_value(quota)
        values['cpu_period'] = parse_value(period or '100000')
    hugetlb = dict((m.group(1), parse_value(raw[n])) for n in raw for m in [_HUGETLB_RE.match(n)] if m)
    if hugetlb:
        values['hugetlb'] = hugetlb
    return {'path': relative, 'exists': exists, 'resources': values, 'raw': raw, 'missing': missing,
            'kubelet_accepts': exists and not missing}
