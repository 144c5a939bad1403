# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""reservation_info's measurement: the reserved cgroups and kubepods read at both ends of a window and their memory
every second (_cgroup_usage), judged by _reservation.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import time
from collections.abc import Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _reservation as sizing
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroup_usage import (
    cgroup_directory, read_memory_current, read_usage)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout, read_file

# A scope (system, kube, kubepods) to its cgroup's path (None: none to measure) and why that one.
Targets = dict[str, tuple['str | None', str]]

SYSTEM_SLICE = '/system.slice'


def targets(plan: NodePlan, layout: CgroupLayout, root: str) -> Targets:
    """{scope: (cgroup path, why this one)} of a NodePlan's reserved cgroups, and kubepods'."""
    cgroups = plan.cgroups
    result: Targets = {}
    for scope in sizing.SCOPES:
        planned = cgroups.get('%s_reserved' % scope)
        if planned:
            result[scope] = (planned.path, "the plan's %s_reserved_cgroup" % scope)
        elif scope == 'system' and cgroup_directory(layout, root, SYSTEM_SLICE, 'memory'):
            result[scope] = (SYSTEM_SLICE, 'the plan names no system-reserved cgroup: %s, where systemd runs the '
                                           "system's services" % SYSTEM_SLICE)
        else:
            result[scope] = (None, 'the plan names no %s-reserved cgroup' % scope)
    if cgroups.get('kubepods'):
        result['kubepods'] = (cgroups['kubepods'].path, "the plan's node allocatable cgroup")
    return result


def _values(plan: NodePlan, section: str) -> dict[str, Any]:
    values = dict((kind, plan.value(section, kind)) for kind in ('cpu', 'memory'))
    return dict((kind, value) for kind, value in values.items() if value is not None)


def read_all(layout: CgroupLayout, root: str, where: Targets, version: str,
             window_peaks: Mapping[str, int] | None = None) -> dict[str, sizing.Usage]:
    result: dict[str, sizing.Usage] = {}
    for scope, (path, _why) in where.items():
        if path:
            raw, processes = read_usage(layout, root, path)
            result[scope] = sizing.Usage(raw, version, processes, (window_peaks or {}).get(scope))
    return result


def watch_memory(layout: CgroupLayout, root: str, where: Targets, version: str, seconds: float) -> dict[str, int]:
    """The highest memory.current of each target, read once a second over the window (the window's own peak:
    memory.peak spans the cgroup's whole life)."""
    peaks: dict[str, int] = {}
    for step in range(int(seconds) + 1):
        if step:
            time.sleep(1)
        for scope, (path, _why) in where.items():
            current = read_memory_current(layout, root, path, version) if path else None
            if current is not None:
                peaks[scope] = max(peaks.get(scope, 0), current)
    return peaks


def uptime_seconds(proc_path: str) -> int | None:
    """Seconds since the node booted (/proc/uptime), or None."""
    text = read_file(os.path.join(proc_path, 'uptime'))
    try:
        return int(float(text.split()[0])) if text else None
    except (ValueError, IndexError):
        return None


def measure(plan: NodePlan, layout: CgroupLayout, root: str, seconds: float, proc_path: str = '/proc') -> dict[str, Any]:
    """Reads of every target at both ends of the window, and of their memory every second, judged by
    _reservation."""
    version = layout.file_version
    where = targets(plan, layout, root)
    first = read_all(layout, root, where, version)
    peaks = watch_memory(layout, root, where, version, seconds)
    second = read_all(layout, root, where, version, peaks)
    capacity = _values(plan, 'capacity')
    reserved_of = plan.reserved or {}
    reserved: dict[str, Any] = {}
    for scope in sizing.SCOPES:
        path, why = where[scope]
        if path is None:
            reserved[scope] = {'verdict': 'unmeasured', 'reasons': [why], 'cgroup': None, 'cgroup_source': why}
            continue
        amounts = dict((kind, value['value']) for kind, value in (reserved_of.get(scope) or {}).items()
                       if kind in ('cpu', 'memory'))
        entry = sizing.assess_reserved(amounts, first[scope], second[scope], seconds, capacity)
        entry.update(cgroup=path, cgroup_source=why)
        reserved[scope] = entry
    sizing.judge_together(reserved)
    uptime = uptime_seconds(proc_path)
    result: dict[str, Any] = {'cgroup_version': version, 'sample_seconds': seconds, 'reserved': reserved,
                              'verdict': sizing.worst([reserved[s]['verdict'] for s in sizing.SCOPES]),
                              'recommendation': sizing.recommendation(reserved), 'uptime_seconds': uptime,
                              'cpu_window_minimum': sizing.MIN_CPU_WINDOW_SECONDS,
                              'peak_since': sizing.peak_age(uptime, version)}
    kubepods_path = where['kubepods'][0] if 'kubepods' in where else None
    if kubepods_path is not None:
        result['kubepods'] = sizing.pods_use(kubepods_path, first['kubepods'], second['kubepods'], seconds,
                                             _values(plan, 'allocatable'))
    result['use'] = sizing.total_use(reserved)
    result['profiles'] = sizing.profiles_side_by_side(capacity, _max_pods(plan), sizing.plan_total(reserved_of),
                                                      result['recommendation'])
    return result


def _max_pods(plan: NodePlan) -> int:
    pods = plan.value('capacity', 'pods')
    return pods if pods is not None else (plan.max_pods or 110)
