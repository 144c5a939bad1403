# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Is the reservation right? What the reserved cgroups use against what was reserved for them.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure: reservation_info reads the control files (_cgroup_files.USAGE) twice, sample_seconds apart; this module
parses them and judges. The rule (docs/guide.md, "Sizing from what the node uses"):
- memory: the peak plus 25% (memory is not compressible: a daemon over its share is killed or the node
  evicts), at least 128Mi, at most half the node's memory;
- CPU: the use over the window plus 50% (a short window misses bursts), at least 100m, at most half
  the node's CPUs;
both rounded up (whole MiB, 10 millicores). The verdict is "under" on OOM kills, sustained pressure or a use
within the window above the reservation; "over" when the reservation is more than twice the recommendation
and the gap is worth having (256Mi, 250m); "ok" else; "unmeasured" for a cgroup with no processes of its own,
and for CPU over a window too short to say (MIN_CPU_WINDOW_SECONDS). The memory peak since the cgroup was
made (memory.peak) may be a start-up burst long gone: it is reported with its age and sizes the
recommendation, while the verdict judges the highest use seen in the window. Where one side reserves
nothing of a resource (the gke profile reserves everything as kube-reserved), its use is judged with the
other's against what both reserve together, and said so.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_files import MEMORY_PEAK
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_values import MEASURED_PROFILE, PROFILES
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._profiles import profile_reservation
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_math import parse_int
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import parse_quantity

MIB = 1024 * 1024
MEMORY_MARGIN_PERCENT = 25
CPU_MARGIN_PERCENT = 50
MEMORY_FLOOR = 128 * MIB
CPU_FLOOR_MILLI = 100
# The most one reserved cgroup is given: half the node, so that both stay under half of it.
CAP_DIVISOR = 2
OVER_FACTOR = 2
OVER_MEMORY_GAP = 256 * MIB
OVER_CPU_GAP_MILLI = 250
# Sustained pressure: the share of the last minute some task of the cgroup waited (avg60, percent).
MEMORY_PRESSURE_LIMIT = 10.0
CPU_PRESSURE_LIMIT = 25.0
SCOPES = ('system', 'kube')
VERDICT_ORDER = ('under', 'over', 'ok', 'unmeasured')
# The shortest window whose CPU average says anything about a daemon's use: a few seconds catch a lull or a
# burst. Pressure (avg60, a minute) is judged whatever the window.
MIN_CPU_WINDOW_SECONDS = 10


def parse_keyed(text: str | None) -> dict[str, int]:
    """"key value" lines (memory.events, cpu.stat, memory.oom_control) as {key: int}."""
    result: dict[str, int] = {}
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1].isdigit():
            result[fields[0]] = int(fields[1])
    return result


def parse_pressure(text: str | None) -> dict[str, dict[str, float]] | None:
    """A PSI file ("some avg10=0.00 avg60=0.00 avg300=0.00 total=0" and "full ...") as nested dicts."""
    if text is None:
        return None
    result: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0] not in ('some', 'full'):
            continue
        values: dict[str, float] = {}
        for field in fields[1:]:
            name, _sep, value = field.partition('=')
            try:
                values[name] = int(value) if name == 'total' else float(value)
            except ValueError:
                continue
        result[fields[0]] = values
    return result


def cpu_usage_ns(text: str | None, version: str) -> int | None:
    """Total CPU time of the cgroup in nanoseconds: v2 cpu.stat usage_usec, v1 cpuacct.usage."""
    if text is None:
        return None
    if version == 'v2':
        usec = parse_keyed(text).get('usage_usec')
        return None if usec is None else usec * 1000
    return parse_int(text)


def memory_events(text: str | None, version: str) -> dict[str, int]:
    """{oom, oom_kill, high, max} (v2) or {oom_kill, under_oom} (v1 memory.oom_control)."""
    counts = parse_keyed(text)
    keys = ('oom', 'oom_kill', 'high', 'max') if version == 'v2' else ('oom_kill', 'under_oom')
    return dict((key, counts[key]) for key in keys if key in counts)


class Usage(object):
    """What one cgroup used, parsed from one read of its usage files (raw: {row key: text or None})."""

    __slots__ = ('exists', 'memory_current', 'memory_peak', 'peak_file', 'events', 'memory_pressure',
                 'cpu_pressure', 'cpu_ns', 'processes', 'window_peak')

    def __init__(self, raw: Mapping[str, str | None] | None, version: str, processes: int | None,
                 window_peak: int | None = None) -> None:
        self.exists = raw is not None
        raw = raw or {}
        self.memory_current = parse_int(raw.get('memory_current'))
        self.memory_peak = parse_int(raw.get('memory_peak'))
        self.peak_file = getattr(MEMORY_PEAK, version)
        self.events = memory_events(raw.get('memory_events'), version)
        self.memory_pressure = parse_pressure(raw.get('memory_pressure'))
        self.cpu_pressure = parse_pressure(raw.get('cpu_pressure'))
        self.cpu_ns = cpu_usage_ns(raw.get('cpu_usage'), version)
        self.processes = processes
        # The highest memory.current read over the window (reservation_info reads it every second).
        self.window_peak = window_peak


def cpu_used_milli(first: Usage, second: Usage, seconds: float) -> int | None:
    """Millicores used over the window: CPU time between two reads over the wall time between them."""
    if first.cpu_ns is None or second.cpu_ns is None or seconds <= 0:
        return None
    return max(0, second.cpu_ns - first.cpu_ns) * 1000 // int(seconds * 1e9)


def _round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def recommend_memory(peak: int, capacity: int | None) -> int:
    cap = capacity // CAP_DIVISOR if capacity else None
    wanted = _round_up(peak * (100 + MEMORY_MARGIN_PERCENT) // 100, MIB)
    value = max(MEMORY_FLOOR, wanted)
    return min(value, cap) if cap else value


def recommend_cpu(used: int, capacity_milli: int | None) -> int:
    cap = capacity_milli // CAP_DIVISOR if capacity_milli else None
    wanted = _round_up(used * (100 + CPU_MARGIN_PERCENT) // 100, 10)
    value = max(CPU_FLOOR_MILLI, wanted)
    return min(value, cap) if cap else value


MEMORY_RULE = ("the higher of the window's and the lifetime peak + %d%%, at least %dMi, at most 1/%d of the node's "
               'memory, rounded up to whole MiB' % (MEMORY_MARGIN_PERCENT, MEMORY_FLOOR // MIB, CAP_DIVISOR))
CPU_RULE = ('use over the window + %d%%, at least %dm, at most 1/%d of the node\'s CPUs, rounded up to 10m'
            % (CPU_MARGIN_PERCENT, CPU_FLOOR_MILLI, CAP_DIVISOR))


def _sustained(pressure: Mapping[str, Mapping[str, float]] | None, limit: float) -> float | None:
    """The avg60 of "some" at or above limit percent, or None."""
    some = (pressure or {}).get('some') or {}
    value = some.get('avg60')
    return value if value is not None and value >= limit else None


def judge_memory(reserved: int, usage: Usage) -> tuple[list[str], list[str], list[str], int | None, int | None]:
    """(the causes and reasons it is under, the notes, the use judged, the lifetime peak) of a reserved cgroup's
    memory. The use judged is the highest seen in the window; the lifetime peak (memory.peak, since the cgroup
    was made) only sizes the recommendation and is noted when above the reservation."""
    window = usage.window_peak if usage.window_peak is not None else usage.memory_current
    lifetime = usage.memory_peak if usage.memory_peak is not None else usage.memory_current
    causes: list[str] = []
    reasons: list[str] = []
    notes: list[str] = []
    kills = usage.events.get('oom_kill', 0)
    if kills:
        causes.append('oom_kill')
        reasons.append('%d OOM kill%s in the cgroup since it was made (%s)'
                       % (kills, '' if kills == 1 else 's', 'memory.events oom_kill'))
    pressure = _sustained(usage.memory_pressure, MEMORY_PRESSURE_LIMIT)
    if pressure is not None:
        causes.append('pressure')
        reasons.append('memory pressure: its tasks waited %.1f%% of the last minute (some avg60)' % pressure)
    if window is not None and window > reserved:
        causes.append('use')
        reasons.append('used up to %s in the window, above the %s reserved' % (_mib(window), _mib(reserved))
                       if reserved else 'nothing reserved for it, and it used up to %s in the window' % _mib(window))
    if usage.memory_peak and window is not None and lifetime is not None and window <= reserved < lifetime:
        notes.append('its peak since the cgroup was made, %s, is above the %s reserved: a burst before the window '
                     '(a start, a backup), sized for but not judged' % (_mib(lifetime), _mib(reserved)))
    return causes, reasons, notes, window, lifetime


def judge_cpu(reserved: int, used: int | None, usage: Usage, seconds: float) -> tuple[list[str], list[str], bool]:
    """(the causes and reasons a reserved cgroup's CPU is under, whether the window can tell)."""
    causes: list[str] = []
    reasons: list[str] = []
    pressure = _sustained(usage.cpu_pressure, CPU_PRESSURE_LIMIT)
    if pressure is not None:
        causes.append('pressure')
        reasons.append('CPU pressure: its tasks waited %.1f%% of the last minute (some avg60)' % pressure)
    long_enough = seconds >= MIN_CPU_WINDOW_SECONDS
    if long_enough and used is not None and used > reserved:
        causes.append('use')
        reasons.append('used %dm over the window, above the %dm reserved' % (used, reserved) if reserved else
                       'nothing reserved for it, and it used %dm over the window' % used)
    return causes, reasons, long_enough


def _mib(value: int) -> str:
    return '%dMi' % (value // MIB) if value % MIB == 0 else '%.1fMi' % (value / float(MIB))


def _milli(value: int) -> str:
    return '%dm' % value


def _judge(kind: str, reserved: int, used: int | None, causes: list[str], under_reasons: list[str],
           recommended: int, rule: str) -> dict[str, Any]:
    gap, show = (OVER_MEMORY_GAP, _mib) if kind == 'memory' else (OVER_CPU_GAP_MILLI, _milli)
    if under_reasons:
        verdict, reasons = 'under', list(under_reasons)
        if used is not None and recommended < used:
            reasons.append('the recommendation is held at half the node: the use alone is more than this node '
                           'should give its daemons')
    elif reserved > recommended * OVER_FACTOR and reserved - recommended >= gap:
        verdict = 'over'
        reasons = ['%s reserved, more than %d times the %s the use calls for'
                   % (show(reserved), OVER_FACTOR, show(recommended))]
    else:
        verdict, reasons = 'ok', []
    return {'reserved': reserved, 'used': used, 'headroom': None if used is None else reserved - used,
            'recommended': recommended, 'rule': rule, 'verdict': verdict, 'reasons': reasons, 'causes': causes}


def assess_reserved(reserved: Mapping[str, int], first: Usage, second: Usage, seconds: float,
                    capacity: Mapping[str, int]) -> dict[str, Any]:
    """One reserved cgroup: {memory: {...}, cpu: {...}} with the verdict of each, from two reads."""
    if not second.exists:
        return _unmeasured('the cgroup does not exist on the node')
    if not second.processes:
        return _unmeasured('the cgroup holds no processes: the daemons it is reserved for run elsewhere, so its use '
                           'says nothing')
    memory_reserved = reserved.get('memory', 0)
    causes, reasons, notes, window, lifetime = judge_memory(memory_reserved, second)
    memory = _judge('memory', memory_reserved, window, causes, reasons,
                    recommend_memory(max(window or 0, lifetime or 0), capacity.get('memory')), MEMORY_RULE)
    memory['reasons'] += notes
    memory.update({'current': second.memory_current, 'window_peak': window, 'peak': lifetime,
                   'peak_source': second.peak_file if second.memory_peak is not None else
                   'the current use (no peak file: memory.peak needs kernel 5.19)'})
    cpu_reserved = reserved.get('cpu', 0)
    used = cpu_used_milli(first, second, seconds)
    causes, reasons, long_enough = judge_cpu(cpu_reserved, used, second, seconds)
    if long_enough or reasons:
        cpu = _judge('cpu', cpu_reserved, used, causes, reasons, recommend_cpu(used or 0, capacity.get('cpu')),
                     CPU_RULE)
    else:
        cpu = {'reserved': cpu_reserved, 'used': used, 'headroom': None if used is None else cpu_reserved - used,
               'recommended': max(cpu_reserved, CPU_FLOOR_MILLI), 'rule': 'not enough data: kept at the reservation',
               'verdict': 'unmeasured', 'causes': [],
               'reasons': ['not enough data: a %s s window is too short to judge CPU use (at least %d s)'
                           % (seconds, MIN_CPU_WINDOW_SECONDS)]}
    return {'verdict': worst([memory['verdict'], cpu['verdict']]), 'memory': memory, 'cpu': cpu,
            'events': second.events, 'pressure': {'memory': second.memory_pressure, 'cpu': second.cpu_pressure},
            'processes': second.processes}


def judge_together(assessed: dict[str, Any]) -> dict[str, Any]:
    """Where one side reserves nothing of a resource and the other some (the gke profile puts it all in
    kube-reserved), a use of the empty side is not "under" while both together stay within what both reserve:
    the profile sized them as one. Said in its reasons; OOM kills and pressure still make it under."""
    for kind in ('memory', 'cpu'):
        found = [(assessed.get(scope) or {}).get(kind) for scope in SCOPES]
        entries = [entry for entry in found if entry is not None]
        if len(entries) != len(found):
            continue
        empty = [entry for entry in entries if entry['reserved'] == 0]
        if len(empty) != 1 or empty[0]['verdict'] != 'under' or empty[0]['causes'] != ['use']:
            continue
        reserved = sum(entry['reserved'] for entry in entries)
        used = sum(entry['used'] or 0 for entry in entries)
        if used > reserved:
            continue
        show = _mib if kind == 'memory' else _milli
        empty[0]['verdict'] = 'ok'
        empty[0]['reasons'] = ['nothing reserved for it alone: judged with the other side, as the plan reserves %s '
                               'for both together and together they used %s' % (show(reserved), show(used))]
        empty[0]['judged_together'] = True
    for scope in SCOPES:
        entry = assessed.get(scope) or {}
        if 'memory' in entry and 'cpu' in entry:
            entry['verdict'] = worst([entry['memory']['verdict'], entry['cpu']['verdict']])
    return assessed


def peak_age(uptime: int | None, version: str) -> str:
    """How old a lifetime peak may be, in words: since its cgroup was made, at most since the node booted."""
    since = 'since the cgroup was made%s' % (' (or its peak was last reset)' if version == 'v1' else '')
    if uptime is None:
        return since
    hours, minutes = uptime // 3600, uptime % 3600 // 60
    age = '%dh%02dm' % (hours, minutes) if hours else ('%dm' % minutes if minutes else '%ds' % uptime)
    return '%s, at most %s ago (the node booted then)' % (since, age)


def _unmeasured(why: str) -> dict[str, Any]:
    return {'verdict': 'unmeasured', 'reasons': [why]}


def worst(verdicts: list[str | None]) -> str:
    present = [v for v in verdicts if v]
    return min(present, key=VERDICT_ORDER.index) if present else 'unmeasured'


def _as_quantities(values: Mapping[str, int]) -> dict[str, str]:
    result = {}
    if 'cpu' in values:
        result['cpu'] = '%dm' % values['cpu']
    if 'memory' in values:
        result['memory'] = '%dMi' % -(-values['memory'] // MIB)
    return result


def recommendation(assessed: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """{system_reserved: {cpu, memory}, kube_reserved: {...}} as quantity strings, for the measured profile."""
    result = {}
    for scope in SCOPES:
        entry = assessed.get(scope) or {}
        values = dict((kind, entry[kind]['recommended']) for kind in ('cpu', 'memory') if kind in entry)
        if values:
            result['%s_reserved' % scope] = _as_quantities(values)
    return result


def profiles_side_by_side(capacity: Mapping[str, Any], max_pods: int | None, static: Any,
                          measured: Mapping[str, Any]) -> dict[str, Any]:
    """What each sizing profile reserves on this node (cpu in millicores, memory in bytes), beside the plan's own
    reservations ("static") and the recommendation ("measured")."""
    recommended: dict[str, Any] = {}
    for scope in SCOPES:
        values = measured.get('%s_reserved' % scope) or {}
        recommended[scope] = dict((kind, {'value': _value(kind, text)}) for kind, text in values.items())
    result: dict[str, Any] = {'static': static, MEASURED_PROFILE: plan_total(recommended) if measured else
                              {'error': 'unmeasured: no reserved cgroup was measured, so there is nothing to recommend'}}
    for profile in PROFILES:
        try:
            sized = profile_reservation(profile, capacity, max_pods)
        except KubenodeError as error:
            result[profile] = {'error': error.message}
            continue
        if sized is None:  # static: the plan's own reservations, above
            continue
        kube = sized[0]
        result[profile] = dict((kind, _value(kind, kube[kind])) for kind in ('cpu', 'memory') if kind in kube)
    return result


def plan_total(reserved: Mapping[str, Any]) -> dict[str, int]:
    """The cpu (millicores) and memory (bytes) of systemReserved and kubeReserved together, from a plan's
    reserved ({scope: {resource: {value}}})."""
    total = {'cpu': 0, 'memory': 0}
    for scope in SCOPES:
        for kind in total:
            total[kind] += ((reserved.get(scope) or {}).get(kind) or {}).get('value', 0)
    return total


def total_use(assessed: Mapping[str, Any]) -> dict[str, int | None]:
    """The reserved cgroups' memory (the highest in the window) and CPU use together, of those measured; None
    where no cgroup was measured (nothing to add up is not a use of 0)."""
    memory: int | None = None
    cpu: int | None = None
    for scope in SCOPES:
        entry = assessed.get(scope) or {}
        if (entry.get('memory') or {}).get('used') is not None:
            memory = (memory or 0) + entry['memory']['used']
        if (entry.get('cpu') or {}).get('used') is not None:
            cpu = (cpu or 0) + entry['cpu']['used']
    return {'memory_peak': memory, 'cpu_used': cpu}


def pods_use(path: str, first: Usage, second: Usage, seconds: float, allocatable: Any) -> dict[str, Any]:
    """What kubepods uses, beside what Allocatable gives the pods."""
    if not second.exists:
        return {'cgroup': path, 'exists': False}
    peak = second.memory_peak if second.memory_peak is not None else second.memory_current
    return {'cgroup': path, 'exists': True, 'allocatable': allocatable, 'processes': second.processes,
            'memory': {'current': second.memory_current, 'peak': peak},
            'cpu': {'used': cpu_used_milli(first, second, seconds)}, 'events': second.events}


def _value(kind: str, text: str, field: str | None = None) -> int:
    quantity = parse_quantity(text, field or kind)
    return quantity.milli_value() if kind == 'cpu' else quantity.value()


def measured_reserved(measured: Any, capacity: Mapping[str, int | None],
                      field: str = 'measured_reservation') -> tuple[dict[str, str], dict[str, str]]:
    """(systemReserved, kubeReserved) of the measured profile: the recommendation given, each value held between
    the rule's floor and half the node, as quantity strings."""
    if not isinstance(measured, dict) or not any(measured.get('%s_reserved' % scope) for scope in SCOPES):
        raise KubenodeError('profile "measured" reserves what the node was seen to use: give the recommendation of '
                            'reservation_info (system_reserved and kube_reserved)', field=field, value=measured)
    unknown = sorted(set(measured) - set('%s_reserved' % scope for scope in SCOPES))
    if unknown:
        raise KubenodeError('unknown key %s; expected system_reserved and kube_reserved' % unknown[0],
                            field=field, value=measured)
    result = []
    for scope in SCOPES:
        name = '%s_reserved' % scope
        values = measured.get(name) or {}
        if not isinstance(values, dict):
            raise KubenodeError('must be a mapping of cpu and memory', field='%s.%s' % (field, name), value=values)
        clamped: dict[str, int] = {}
        for kind, text in sorted(values.items()):
            item = '%s.%s.%s' % (field, name, kind)
            if kind not in ('cpu', 'memory'):
                raise KubenodeError('only cpu and memory are measured', field=item, value=text)
            if not isinstance(text, str):
                text = str(text) if isinstance(text, int) and not isinstance(text, bool) else text
            if not isinstance(text, str):
                raise KubenodeError('must be a quantity such as "512Mi" or "250m"', field=item, value=text)
            value = _value(kind, text, item)
            floor = MEMORY_FLOOR if kind == 'memory' else CPU_FLOOR_MILLI
            cap = (capacity.get(kind) or 0) // CAP_DIVISOR
            value = max(floor, value)
            if cap:
                value = min(value, max(cap, floor))
            clamped[kind] = value
        result.append(_as_quantities(clamped))
    return result[0], result[1]
