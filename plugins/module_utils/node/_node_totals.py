# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The totals a node's capacity is read from (_detect): MemTotal and SwapTotal of /proc/meminfo, the size of the
filesystem kubelet's root directory is on.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Each is traced as what it answers (node/_io_trace.traced): the free memory beside MemTotal and the free blocks of
a filesystem move at every read of a live node while the totals do not. Light to import, for a receipt's replay
calls them (run/_receipt).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


@traced
def memory_total(proc_path: str) -> int:
    """MemTotal of meminfo in bytes (cAdvisor's MachineInfo.MemoryCapacity)."""
    match = re.search(r'^MemTotal:\s+([0-9]+) kB', _read(os.path.join(proc_path, 'meminfo')), re.M)
    if not match:
        raise KubenodeError('no MemTotal line in meminfo', field='proc_path', value=proc_path)
    return int(match.group(1)) * 1024


@traced
def swap_total(proc_path: str) -> int:
    """SwapTotal of meminfo in bytes (cAdvisor's MachineInfo.SwapCapacity); 0 without the line."""
    match = re.search(r'^SwapTotal:\s+([0-9]+) kB', _read(os.path.join(proc_path, 'meminfo')), re.M)
    return int(match.group(1)) * 1024 if match else 0


@traced
def filesystem_capacity(path: str) -> int:
    """statvfs of the kubelet root dir, or of its nearest existing parent."""
    while not os.path.exists(path) and path not in ('', '/'):
        path = os.path.dirname(path)
    stats = os.statvfs(path or '/')
    return stats.f_frsize * stats.f_blocks
