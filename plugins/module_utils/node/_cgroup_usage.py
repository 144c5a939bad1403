# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a cgroup uses now, read from the kernel (or a node root): the usage rows of _cgroup_files, its tasks, and
kubelet's working set (usage less the reclaimable page cache). Read only.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections.abc import Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as files
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout, cgroup_path, read_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_math import lowers_limit, parse_int, squeezes
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced


def cgroup_directory(layout: CgroupLayout, root: str, path: str, hierarchy: str | None) -> str | None:
    """Where a cgroup's files of one hierarchy are (v1), or its one directory (v2); None when absent."""
    if layout.is_v2:
        base = root
    else:
        base = layout.v1_hierarchies.get(hierarchy)
        if base is None:
            return None
    directory = cgroup_path(base, path)
    return directory if os.path.isdir(directory) else None


def _processes(layout: CgroupLayout, root: str, path: str) -> int:
    """The tasks of the cgroup and everything under it: pids.current where the pids controller counts them,
    else the cgroup.procs lines of the subtree."""
    version = layout.file_version
    directory = cgroup_directory(layout, root, path, files.PIDS_CURRENT.hierarchy)
    counted = parse_int(read_file(os.path.join(directory, files.PIDS_CURRENT.file_in(version)))) \
        if directory else None
    if counted is not None:
        return counted
    directory = cgroup_directory(layout, root, path, files.MEMORY_CURRENT.hierarchy)
    if directory is None:
        return 0
    total = 0
    for current, _dirs, names in os.walk(directory):
        if files.PROCS_FILE in names:
            total += len((read_file(os.path.join(current, files.PROCS_FILE)) or '').split())
    return total


def read_usage(layout: CgroupLayout, root: str, path: str) -> tuple[dict[str, str | None] | None, int]:
    """{usage row key: file text or None} of one cgroup, and its tasks; (None, 0) when the cgroup is absent."""
    version = layout.file_version
    raw: dict[str, str | None] = {}
    found = False
    for row in files.USAGE:
        name = getattr(row, version)
        if name is None:
            continue
        directory = cgroup_directory(layout, root, path, row.hierarchy)
        if directory is None:
            continue
        found = True
        raw[row.key] = read_file(os.path.join(directory, name))
    if not found:
        return None, 0
    return raw, _processes(layout, root, path)


def read_memory_current(layout: CgroupLayout, root: str, path: str, version: str) -> int | None:
    directory = cgroup_directory(layout, root, path, files.MEMORY_CURRENT.hierarchy)
    return parse_int(read_file(os.path.join(directory, files.MEMORY_CURRENT.file_in(version)))) \
        if directory else None


def memory_stat_value(text: str | None, key: str) -> int | None:
    """One counter of a memory.stat text, or None."""
    for line in (text or '').splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return parse_int(parts[1])
    return None


def read_working_set(layout: CgroupLayout, root: str, path: str) -> dict[str, int] | None:
    """{usage, inactive_file, working_set} in bytes of one cgroup, as kubelet's eviction manager (cadvisor) counts
    its working set: usage less inactive_file, never below 0; None when the cgroup or its usage is absent."""
    version = layout.file_version
    directory = cgroup_directory(layout, root, path, files.MEMORY_CURRENT.hierarchy)
    if directory is None:
        return None
    usage = parse_int(read_file(os.path.join(directory, files.MEMORY_CURRENT.file_in(version))))
    if usage is None:
        return None
    inactive = memory_stat_value(read_file(os.path.join(directory, files.MEMORY_STAT.file_in(version))),
                                 files.INACTIVE_FILE_KEY[version]) or 0
    return {'usage': usage, 'inactive_file': inactive, 'working_set': max(0, usage - inactive)}


def memory_limit_now(layout: CgroupLayout, root: str, path: str) -> int | None:
    """The cgroup's memory limit now in bytes; None when unlimited or absent."""
    version = layout.file_version
    directory = cgroup_directory(layout, root, path, files.MEMORY_LIMIT.hierarchy)
    if directory is None:
        return None
    value = parse_int(read_file(os.path.join(directory, files.MEMORY_LIMIT.file_in(version))))
    return None if value is None or value >= files.V1_UNLIMITED_MEMORY else value


@traced
def squeezed_memory(mode: str, v1_hierarchies: Mapping[str, str], root: str, path: str,
                    limit_after: int | None) -> dict[str, Any] | None:
    """{limit_now, used (read_working_set)} of a cgroup whose memory limit limit_after lowers below its working set
    now (_cgroup_math.squeezes), else None: all the impact takes of its memory. Traced as that, not as the files:
    the use moves all the time, and kubepods' limit moves when the restarted kubelet writes the new one, while the answer
    stays None (a receipt kept before the restart answers the run after it: run/_receipt). The use is read only
    where the limit falls. Here, beside the reads, so that a receipt's replay imports no planner."""
    layout = CgroupLayout(mode, v1_hierarchies)
    now = memory_limit_now(layout, root, path)
    if not lowers_limit(limit_after, now):
        return None
    used = read_working_set(layout, root, path)
    return {'limit_now': now, 'used': used} if squeezes(limit_after, now, used) else None
