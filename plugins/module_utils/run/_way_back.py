# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_generation: confirm the node's pending generation once its gate passed, or revert it (node/_generations).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

The gate's last measure is taken here, on the node, in the confirming round trip: no new OOM kill since the change's
first write (the counts node_cgroups read then, oom-baseline) in kubepods, the reserved cgroups, and the units of
kubelet and the container runtime. cgroup v2's memory.events counts a cgroup's subtree, and outlives a child's
removal. v1's counts a kill only in the victim's own cgroup, gone with a transient unit: on v1 the kernel's log says
each kill since the change with the victim's cgroup.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_files import MEMORY_EVENTS
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _generations as generations
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_lock import NodeLock
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import RunCommand, Systemctl, service_name, show


def oom_kill_count(text: str | None, field: str = 'oom_kill') -> int | None:
    """The oom_kill counter of a memory.events (v2) or memory.oom_control (v1) text, or None."""
    for line in (text or '').splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == field and words[1].isdigit():
            return int(words[1])
    return None


def oom_kills(layout: fs.CgroupLayout, relative: str) -> int | None:
    """OOM kills in the cgroup at relative and below, as the kernel counts them, or None when it has no memory
    controller files (gone, or not a memory cgroup)."""
    relative = relative.lstrip('/')
    if layout.is_v2:
        return oom_kill_count(fs.read_file(os.path.join(layout.unified, relative, str(MEMORY_EVENTS.v2))))
    memory = layout.v1_hierarchies.get('memory')
    if not memory:
        return None
    top = os.path.join(memory, relative)
    if not os.path.isdir(top):
        return None
    total: int | None = None
    for directory, _dirs, names in os.walk(top):
        if MEMORY_EVENTS.v1 in names:
            count = oom_kill_count(fs.read_file(os.path.join(directory, str(MEMORY_EVENTS.v1))))
            if count is not None:
                total = (total or 0) + count
    return total


def oom_kill_records(text: str | None) -> list[dict[str, str | None]]:
    """The kernel's oom-kill records in a kernel log's text: [{'oom_memcg', 'task_memcg', 'task', 'pid'}]."""
    found = []
    for line in (text or '').splitlines():
        head, sep, fields = line.partition('oom-kill:')
        if not sep:
            continue
        record = dict(field.split('=', 1) for field in fields.split(',') if '=' in field)
        found.append(dict((key, record.get(key)) for key in ('oom_memcg', 'task_memcg', 'task', 'pid')))
    return found


def oom_kills_in_kernel_log(run_command: RunCommand, since: int, watched: Mapping[str, str]) -> dict[str, int] | None:
    """{name: OOM kills since the epoch since whose victim was in the cgroup watched[name] or below}, from the
    kernel's log (journalctl -k), or None when it cannot be read. cgroup v1 counts a kill only in the victim's own
    memory cgroup, which systemd removes with a transient unit, so its counters can miss one; the log names both the
    cgroup whose limit was hit and the victim's."""
    rc, out, _err = run_command(['journalctl', '-k', '-o', 'cat', '--no-pager', '--since', '@%d' % since])
    if rc != 0:
        return None
    records = oom_kill_records(out)
    return dict((name, len([r for r in records if _in_cgroup(r['task_memcg'], path)])) for name, path in watched.items())


def _in_cgroup(cgroup: str | None, path: str) -> bool:
    """Whether cgroup is path or below it."""
    return cgroup is not None and (cgroup == path or cgroup.startswith(path.rstrip('/') + '/'))


def unit_cgroups(systemctl: Systemctl | None, units: Iterable[str]) -> dict[str, str]:
    """{unit: its cgroup path (systemd's ControlGroup)}; a unit systemd does not run is left out."""
    if not units or systemctl is None:
        return {}
    names = [service_name(u) for u in units]
    shown = show(systemctl, names, ['Id', 'ControlGroup'])
    groups = dict((name, (shown.get(name) or {}).get('ControlGroup') or '') for name in names)
    return dict((name, group) for name, group in groups.items() if group)


def oom_baseline(layout: fs.CgroupLayout, systemctl: Systemctl | None, cgroups: Iterable[str],
                 units: Iterable[str]) -> dict[str, dict[str, Any]]:
    """What the gate compares with, read before the change's first write: {name: {'path', 'count', 'unit'}} of the
    cgroups (kubepods, the reserved cgroups) and the units' own cgroups (kubelet, the runtime)."""
    found = dict((path, {'path': path, 'count': oom_kills(layout, path), 'unit': False}) for path in cgroups)
    for unit, path in unit_cgroups(systemctl, units).items():
        found[unit] = {'path': path, 'count': oom_kills(layout, path), 'unit': True}
    return found


def oom_counts_now(layout: fs.CgroupLayout, systemctl: Systemctl | None,
                   baseline: Mapping[str, Mapping[str, Any]]) -> dict[str, int | None]:
    """{name: count} now of the baseline's cgroups; a unit's cgroup asked of systemd again (a restart into another
    slice moves it)."""
    now_in = unit_cgroups(systemctl, [name for name, item in baseline.items() if item.get('unit')])
    return dict((name, oom_kills(layout, now_in.get(name, item['path']) if item.get('unit') else item['path']))
                for name, item in baseline.items())


def new_oom_kills(before: Mapping[str, int | None], after: Mapping[str, int | None]) -> dict[str, dict[str, int | None]]:
    """{name: {'before', 'after'}} of the cgroups whose OOM kill count rose."""
    return dict((name, {'before': before.get(name), 'after': count}) for name, count in sorted(after.items())
                if count is not None and _rose(before.get(name), count))


def _rose(before: int | None, after: int) -> bool:
    return before is not None and after > before


def oom_reason(rose: Mapping[str, Mapping[str, Any]], seconds: int) -> str:
    return 'OOM kills within %d s of the change: %s' % (seconds, ', '.join(
        '%s %d -> %d' % (name, counts['before'], counts['after']) for name, counts in sorted(rose.items())))


def run_revert(run_command: RunCommand, generation: Mapping[str, Any], mode: str, reason: str) -> str:
    """Run a generation's revert script (it takes the node lock itself); HostError when it fails."""
    script = os.path.join(generation['path'], 'revert.sh')
    rc, out, err = run_command(['/bin/sh', script, mode, reason])
    if rc != 0:
        raise HostError('generations_dir: the revert of generation %s failed: %s (got "%s")'
                        % (generation['id'], (err or out).strip(), generation['path']), operation='revert',
                        path=script)
    return (out or '').strip()


def confirm(params: Mapping[str, Any], layout: fs.CgroupLayout | None, systemctl: Systemctl | None, run_command: RunCommand,
            check_mode: bool, clock: Callable[[], float] | None = None) -> dict[str, Any]:
    """state=confirmed: the generation's OOM kill counts (read before its first write, oom-baseline) compared with
    now - a kill since the change reverts it at once instead - then the newest generation marked confirmed and its
    timer stopped. The window is the controller's to wait (the role waits node_allocatable_oom_watch_seconds after
    the restart): a node-side wait would outlive a lost controller and confirm for it. A result dict (failed when
    it was not confirmed)."""
    directory = params['generations_dir']
    latest = generations.read_latest(directory)
    if not latest or latest['state'] == generations.CONFIRMED:
        return dict(changed=False, generation=latest, msg='nothing to confirm')
    if latest['state'] != generations.PENDING:
        return dict(failed=True, changed=False, generation=latest,
                    msg='generation %s was not confirmed: %s' % (latest['id'], generations.describe(latest)))
    baseline = generations.read_baseline(directory, latest['id'])
    now = int((clock or time.time)())
    seconds = now - (latest.get('since') or now)
    gate: dict[str, Any] = {'watched_seconds': seconds}
    if baseline and layout is not None:
        before: dict[str, int | None] = dict((name, item['count']) for name, item in baseline.items())
        after: dict[str, int | None]
        if layout.is_v2:
            after = oom_counts_now(layout, systemctl, baseline)
        else:
            # cgroup v1: the kernel's log since the generation was armed, every kill attributed to its victim's cgroup.
            before.update((name, 0) for name in baseline)
            logged = oom_kills_in_kernel_log(run_command, latest.get('armed') or now, dict(
                (name, item['path']) for name, item in baseline.items())) or {}
            gate['source'] = 'the kernel log (journalctl -k)' if logged else 'none: the kernel log could not be read'
            after = dict((name, logged.get(name)) for name in baseline)
        rose = new_oom_kills(before, after)
        gate.update(oom_kills=dict((name, {'before': before[name], 'after': after.get(name)}) for name in sorted(before)),
                    new_oom_kills=rose)
        if rose:
            reason = oom_reason(rose, seconds)
            if check_mode:
                return dict(failed=True, changed=False, gate=gate, generation=latest,
                            msg='the change would be rolled back: %s' % reason)
            said = run_revert(run_command, latest, 'gate', reason)
            return dict(failed=True, changed=True, rolled_back=True, gate=gate, revert_output=said,
                        generation=generations.read_generation(directory, latest['id']),
                        msg='the change was rolled back: %s' % reason)
    if check_mode:
        return dict(changed=True, gate=gate, generation=latest, msg='generation %s would be confirmed' % latest['id'])
    with NodeLock(params['lock_path'], params['lock_timeout']):
        again = generations.read_generation(directory, latest['id'])
        if again['state'] != generations.PENDING:
            return dict(failed=True, changed=False, gate=gate, generation=again,
                        msg='generation %s was not confirmed in time: %s' % (again['id'], generations.describe(again)))
        generations.mark(directory, latest['id'], '%s %d\n' % (generations.CONFIRMED, now))
        if latest.get('timeout') and systemctl is not None:
            run_command(['systemctl', 'stop', generations.timer_unit(latest['id'])])
    return dict(changed=True, gate=gate, generation=generations.read_generation(directory, latest['id']),
                msg='generation %s confirmed' % latest['id'])


def roll_back(params: Mapping[str, Any], run_command: RunCommand, check_mode: bool) -> dict[str, Any]:
    """state=rolled_back: the newest generation reverted (a pending one after a failed gate, a confirmed one on
    demand). Check mode says what it would restore and restart."""
    directory = params['generations_dir']
    latest = generations.read_latest(directory)
    if not latest:
        raise KubenodeError('the node has no generation to roll back to', field='generations_dir', value=directory)
    if latest['state'] not in (generations.PENDING, generations.CONFIRMED):
        return dict(changed=False, generation=latest,
                    msg='generation %s is %s: nothing to roll back' % (latest['id'], generations.describe(latest)))
    would = dict(restores=latest['restores'], restarts=latest['restarts'])
    if check_mode:
        return dict(changed=True, generation=latest, would=would,
                    msg='would restore %d item(s) of generation %s and restart %s' % (
                        len(latest['restores']), latest['id'], ', '.join(latest['restarts']) or 'nothing'))
    mode = 'gate' if latest['state'] == generations.PENDING and params['trigger'] == 'gate' else 'demand'
    said = run_revert(run_command, latest, mode, params['reason'])
    found = generations.read_generation(directory, latest['id'])
    return dict(changed=True, generation=found, would=would, revert_output=said, rolled_back=True,
                msg='generation %s: %s' % (found['id'], generations.describe(found)))
