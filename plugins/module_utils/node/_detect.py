# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read the node's capacity the way kubelet's cAdvisor does (_node_snapshot calls it once per run).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Every path is taken relative to a root option so that tests can use a fake /proc and /sys.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import BINARY_SI, Quantity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import parse_cpuset
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_totals import (
    filesystem_capacity, memory_total)

_HUGEPAGES_DIR_RE = re.compile(r'^hugepages-([0-9]+)kB$')


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def online_cpus(sys_path: str, proc_path: str) -> list[int]:
    """Online CPU ids: /sys/devices/system/cpu/online, else the processors in /proc/cpuinfo."""
    online = os.path.join(sys_path, 'devices/system/cpu/online')
    if os.path.exists(online):
        return parse_cpuset(_read(online).strip(), online)
    processors = re.findall(r'^processor\s*:\s*([0-9]+)', _read(os.path.join(proc_path, 'cpuinfo')), re.M)
    if not processors:
        raise KubenodeError('no CPU found', field='proc_path', value=proc_path)
    return sorted(int(p) for p in processors)


def swap_controller(layout: CgroupLayout, cgroupfs_path: str, proc_path: str) -> bool:
    """kubelet's swapControllerAvailable: memory.swap.max in the caller's own v2 cgroup, or
    memory.memsw.limit_in_bytes at the root of the v1 memory hierarchy."""
    if not layout.is_v2:
        memory = layout.v1_hierarchies.get('memory')
        return bool(memory) and os.path.exists(os.path.join(memory, cgfiles.MEMORY_SWAP_V1.file_in('v1')))
    match = re.search(r'^0::(/.*)$', _read(os.path.join(proc_path, 'self/cgroup')), re.M)
    if not match:
        return False
    return os.path.exists(os.path.join(cgroupfs_path, match.group(1).lstrip('/'), cgfiles.MEMORY_SWAP_MAX.file_in('v2')))


def hugepages(sys_path: str) -> dict[str, int]:
    """{"hugepages-2Mi": bytes} for every page size, including sizes with no pages."""
    base = os.path.join(sys_path, 'kernel/mm/hugepages')
    result: dict[str, int] = {}
    if not os.path.isdir(base):
        return result
    for entry in sorted(os.listdir(base)):
        match = _HUGEPAGES_DIR_RE.match(entry)
        if not match:
            continue
        size_kb = int(match.group(1))
        pages = int(_read(os.path.join(base, entry, 'nr_hugepages')).strip() or 0)
        # kubelet names the resource after the page size quantity, e.g. hugepages-2Mi.
        name = 'hugepages-' + str(Quantity.from_int(size_kb * 1024, BINARY_SI))
        result[name] = pages * size_kb * 1024
    return result


def pid_capacity(proc_path: str) -> int | None:
    """min(pid_max, threads-max), as pkg/kubelet/stats/pidlimit does."""
    values = []
    for name in ('sys/kernel/pid_max', 'sys/kernel/threads-max'):
        path = os.path.join(proc_path, name)
        if os.path.exists(path):
            values.append(int(_read(path).strip()))
    return min(values) if values else None


def _binary(value: int) -> str:
    return str(Quantity.from_int(value, BINARY_SI))


def detect_capacity(proc_path: str = '/proc', sys_path: str = '/sys',
                    kubelet_root_dir: str = '/var/lib/kubelet') -> tuple[dict[str, str], list[int]]:
    """(capacity map of integer strings, online CPU ids)."""
    try:
        cpus = online_cpus(sys_path, proc_path)
        # The formats cAdvisor's capacity uses, so that values print as kubectl shows them.
        capacity = {
            'cpu': str(len(cpus)),
            'memory': _binary(memory_total(proc_path)),
            'ephemeral-storage': _binary(filesystem_capacity(kubelet_root_dir)),
        }
        pids = pid_capacity(proc_path)
        if pids is not None:
            capacity['pid'] = str(pids)
        for name, value in hugepages(sys_path).items():
            capacity[name] = _binary(value)
    except (IOError, OSError) as error:
        raise HostError('capacity: cannot detect the node capacity (%s); give capacity to plan without reading the '
                        'host' % host_error('read', error), operation='read', path=getattr(error, 'filename', None))
    return capacity, cpus
