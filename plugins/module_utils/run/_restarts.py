# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which services run with an older configuration or slice than the one on disk.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

A run can die between writing kubelet's configuration and restarting kubelet; the next run then
finds nothing to change. So the restart is derived from the node, not remembered: a service whose
main process started before one of its files was last written, or that runs outside the slice its
Slice= drop-in names, needs a restart. pending() is pure; read_units() asks systemd; services_to_restart() is the
decision a run takes from both, traced as one read (node/_io_trace): what it records is the decision, not the main
PID and start time systemd shows, which the restart it asks for moves (run/_receipt.follow_confirmation).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_files import PROCS_FILE
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import Systemctl, show
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced_systemctl

SHOW_PROPERTIES = 'Id,ActiveState,ExecMainStartTimestampMonotonic,ControlGroup,MainPID'


def read_units(systemctl: Systemctl, units: Iterable[str]) -> dict[str, dict[str, str]]:
    """{unit: fields} of `systemctl show`; systemctl(*args) -> (rc, out, err)."""
    return show(systemctl, units, SHOW_PROPERTIES.split(','))


def file_mtimes(paths: Iterable[str]) -> dict[str, float]:
    """{path: mtime} of the paths that exist."""
    found = {}
    for path in paths:
        try:
            found[path] = os.stat(path).st_mtime
        except OSError:
            continue
    return found


@traced_systemctl
def services_to_restart(systemctl: Systemctl, watched: Mapping[str, Mapping[str, Any]],
                        systemd_hierarchy: str | None) -> list[dict[str, Any]]:
    """pending() of the watched units (pending's watched) as systemd shows them now, with the processes each left in
    its cgroup read under systemd_hierarchy (the node's name=systemd hierarchy, None when it has none)."""
    shown = read_units(systemctl, sorted(watched))
    files = [path for entry in watched.values() for path in entry['files']]
    left_behind = dict((unit, processes_left_behind(systemd_hierarchy, shown.get(unit) or {})) for unit in watched)
    return pending(watched, shown, file_mtimes(files), left_behind=left_behind)


def held_warning(entry: Mapping[str, Any]) -> str:
    """The warning for a service pending() found held in its old slice."""
    return ('%s %s, held there by the processes it left running (container shims): systemd keeps a unit\'s cgroup '
            'while they run, so a restart would not move it; it moves when they end, at the latest at the next boot'
            % (entry['service'], entry['reason']))


def processes_left_behind(systemd_hierarchy: str | None, fields: Mapping[str, Any]) -> bool:
    """Whether the unit's cgroup (systemd's own hierarchy) holds processes other than its main one. Their number is
    not asked: it moves as containers come and go (_cgroupfs.holds_other_processes)."""
    group = fields.get('ControlGroup') or ''
    if not group or not systemd_hierarchy:
        return False
    return fs.holds_other_processes(os.path.join(systemd_hierarchy, group.lstrip('/'), PROCS_FILE),
                                    str(fields.get('MainPID') or ''))


def pending(watched: Mapping[str, Mapping[str, Any]], shown: Mapping[str, Mapping[str, str]], mtimes: Mapping[str, float],
            wall_now: float | None = None, monotonic_now: float | None = None,
            left_behind: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """[{service, reason}] for the services that must restart to run what is on disk.

    watched: {unit: {'files': [paths it reads at start], 'slice_path': cgroup path of its Slice= or None}}.
    The start time systemd reports is on the monotonic clock, file times on the wall clock.
    left_behind: {unit: whether its cgroup holds processes other than its main one}. A unit outside its slice whose
    cgroup holds such processes (containerd's shims: KillMode=process) is 'held': systemd keeps the cgroup while they
    run, so a restart would not move it (it moves once they end, at the latest at the next boot).
    """
    wall_now = time.time() if wall_now is None else wall_now
    monotonic_now = time.monotonic() if monotonic_now is None else monotonic_now
    found: list[dict[str, Any]] = []
    for unit in sorted(watched):
        fields = shown.get(unit) or {}
        start = int(fields.get('ExecMainStartTimestampMonotonic') or 0)
        if fields.get('ActiveState') != 'active' or not start:
            continue  # not running: its next start reads what is on disk
        started = wall_now - (monotonic_now - start / 1e6)
        newer = sorted(path for path in watched[unit]['files'] if mtimes.get(path, 0) > started)
        slice_path = watched[unit].get('slice_path')
        if newer:
            found.append({'service': unit, 'reason': '%s changed after it started' % ', '.join(newer)})
        elif slice_path and not (fields.get('ControlGroup') or '').startswith(slice_path + '/'):
            reason = 'runs in %s, not in %s' % (fields.get('ControlGroup'), slice_path)
            if (left_behind or {}).get(unit):
                found.append({'service': unit, 'reason': reason, 'held': True})
            else:
                found.append({'service': unit, 'reason': reason})
    return found
