# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every cgroup control file the collection writes or reads, declared once.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure. One row per resource (koordlet's cgroup resource registry, cgroup_resource.go, is the model): the key
the plan's resources use, the cgroup v1 file and its hierarchy, the cgroup v2 file, the systemd unit setting
and the property `systemctl show` reports for it (v1 and v2 names), how a value written compares with what
the kernel shows, whether it is a limit (parents grow before children, shrink after them) and whether a
kernel may lack it, the value a new cgroup starts with where the collection owns a file kubelet never writes,
which value of a ResourceConfig (_cgroup_math) the row holds, what it accepts there, and how it is written in its
files and unit properties. The plan's file names, the rendering of a cgroup's resources, the readers, the planner
and its comparison, the boot script, the systemd overrides and the way back's OOM count (MEMORY_EVENTS) all take
their names and rules from here; no other module spells a control file.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the values a row renders; _cgroup_math imports this registry
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_math import ResourceConfig

PAGE_SIZE = 4096
# What v1 memory.limit_in_bytes (and any v1 counter) shows when unlimited: PAGE_COUNTER_MAX in 4 KiB pages.
V1_UNLIMITED_MEMORY = 9223372036854771712
_PAGE_UNITS = {'KB': 1 << 10, 'MB': 1 << 20, 'GB': 1 << 30, 'TB': 1 << 40, 'PB': 1 << 50}


def file_version(mode: str | None) -> str:
    """The control files a cgroup mode uses: 'v2' on the unified hierarchy, 'v1' on v1 and hybrid (where kubelet,
    like the collection, works in the v1 hierarchies)."""
    return 'v2' if mode == 'v2' else 'v1'


# How a row's values compare: each the kernel's own rendering of what was written, so that a value written and the
# value the kernel then shows compare equal. comparable(name, value) -> the value as the kernel shows it.

def _unlimited(value: str) -> bool:
    return value in ('max', '-1') or (value.isdigit() and int(value) >= V1_UNLIMITED_MEMORY)


def _as_text(name: str, value: str) -> str:
    return value


def _as_count(name: str, value: str) -> str:
    """pids.max: every unlimited spelling is 'max'."""
    return 'max' if _unlimited(value) else value


def _as_memory(name: str, value: str) -> str:
    """Memory: unlimited spellings are 'max', bytes are rounded down to whole pages (the kernel's page counter)."""
    if _unlimited(value):
        return 'max'
    return str(int(value) // PAGE_SIZE * PAGE_SIZE) if value.isdigit() else value


def _as_hugetlb(name: str, value: str) -> str:
    """hugetlb limits are rounded down to whole huge pages of the file's size."""
    page = hugetlb_page_bytes(name)
    if not value.isdigit() or page is None:
        return value
    return str(int(value) // page * page)


def _as_cpuset(name: str, value: str) -> str:
    """A CPU or memory-node list, ranges expanded: "0-2" and "0,1,2" are the same set."""
    return ','.join(str(c) for c in expand_cpus(value))


def _as_cpu_max(name: str, value: str) -> str:
    """v2 cpu.max holds quota and period; a quota alone keeps the default period. v1's quota file is a number."""
    if name != 'cpu.max':
        return value
    parts = value.split()
    return ' '.join(parts) if len(parts) == 2 else '%s 100000' % parts[0]


COMPARISONS = {'text': _as_text, 'count': _as_count, 'memory': _as_memory, 'hugetlb': _as_hugetlb,
               'cpuset': _as_cpuset, 'cpu_max': _as_cpu_max}


# How a row's file is read into the plan's resources ({key: value}, as cgroup_info reports them).

def _read_value(row: ControlFile, values: dict, name: str, text: str | None, version: str) -> None:
    values[row.key] = parse(text)


def _read_text(row: ControlFile, values: dict, name: str, text: str | None, version: str) -> None:
    values[row.key] = text


def _read_per_page_size(row: ControlFile, values: dict, name: str, text: str | None, version: str) -> None:
    values.setdefault(row.key, {})[hugetlb_unit(name)] = parse(text)


def _read_quota(row: ControlFile, values: dict, name: str, text: str | None, version: str) -> None:
    """v1's quota file is the quota; v2's cpu.max holds the quota ('max': -1, kubelet's unlimited) and the period."""
    if version != 'v2':
        values[row.key] = parse(text)
    elif text:
        quota, _sep, period = text.partition(' ')
        values[row.key] = -1 if quota == 'max' else parse(quota)
        values[CPU_PERIOD.key] = parse(period or '100000')


def _read_nothing(row: ControlFile, values: dict, name: str, text: str | None, version: str) -> None:
    """A file the resources leave out (it holds nothing the plan's resources name)."""


READERS = {'value': _read_value, 'text': _read_text, 'per_page_size': _read_per_page_size, 'quota': _read_quota,
           'nothing': _read_nothing}


# How a unit-file setting's value reads in the units `systemctl show` (and the plan) use.
_TIME_UNITS = {'us': 1, 'ms': 1000, 's': 1000000}


def _setting_as_is(value: str) -> str:
    return value


def _setting_percent_of_cpu(value: str) -> str:
    """CPUQuota=150% -> 1500000: usec per second."""
    return str(int(round(float(value[:-1]) * 10000))) if value.endswith('%') else value


def _setting_time_span(value: str) -> str:
    """CPUQuotaPeriodSec=100ms -> 100000: usec (a bare number is seconds)."""
    match = re.match(r'^([0-9]+)(us|ms|s)?$', value)
    return str(int(match.group(1)) * _TIME_UNITS[match.group(2) or 's']) if match else value


def _setting_cpu_list(value: str) -> str:
    return ','.join(str(cpu) for cpu in expand_cpus(value))


SETTING_UNITS = {'as_is': _setting_as_is, 'percent_of_cpu': _setting_percent_of_cpu, 'time_span': _setting_time_span,
                 'cpu_list': _setting_cpu_list}


# What a row accepts as its value in a ResourceConfig (_cgroup_math.ResourceConfig.of checks it): the check returns
# the reason a value is refused, or None.

def _accepts_nothing(value: object) -> str | None:
    return 'no value is set for this file: it is computed or only read'


def _accepts_int(value: object) -> str | None:
    return None if isinstance(value, int) and not isinstance(value, bool) else 'must be an integer'


def _accepts_bytes_or_max(value: object) -> str | None:
    if value == 'max' or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return None
    return 'must be a number of bytes or "max"'


def _accepts_cpu_list(value: object) -> str | None:
    return None if isinstance(value, str) and re.match(r'^[0-9,\- ]*$', value) else 'must be a CPU list such as "0-3,6"'


def _accepts_per_page_size(value: object) -> str | None:
    if isinstance(value, dict) and all(isinstance(size, int) and isinstance(limit, int) and not isinstance(limit, bool)
                                       for size, limit in value.items()):
        return None
    return 'must map hugepage sizes in bytes to limits in bytes'


ACCEPTS = {'nothing': _accepts_nothing, 'int': _accepts_int, 'bytes_or_max': _accepts_bytes_or_max,
           'cpu_list': _accepts_cpu_list, 'per_page_size': _accepts_per_page_size}


class Rendered(object):
    """The v1 and v2 files and the systemd properties of one cgroup rendered so far, by version."""

    __slots__ = ('files', 'properties')

    def __init__(self) -> None:
        self.files: dict[str, dict[str, str]] = {'v1': {}, 'v2': {}}
        self.properties: dict[str, dict[str, str]] = {'v1': {}, 'v2': {}}

    def put(self, row: ControlFile, value: str, versions: tuple[str, ...] = ('v1', 'v2'), unit: str | None = None,
            shown: str | None = None) -> None:
        """A row's value in its file and property of each version (shown: the property's spelling, if another)."""
        for version, name, prop in targets(row, versions, unit):
            if name:
                self.files[version][name] = value
            if prop:
                self.properties[version][prop] = value if shown is None else shown


# How a row writes its value of a ResourceConfig into its files and unit properties, as libcontainer and systemd
# spell it. render(row, resources, out): out is a Rendered.

def _render_nothing(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """A row no cgroup's resources set (read only, or the kernel's to fill)."""


def _render_number(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """The value as it is, in every file and property the row has ('max' shows as systemd's infinity)."""
    value = resources.value_of(row)
    if value is not None:
        text = str(value)
        out.put(row, text, shown='infinity' if text == 'max' else None)


def _render_if_set(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """The value, unless it is 0 or empty (a cpu.weight of 0 shares, an empty cpuset are not written)."""
    value = resources.value_of(row)
    if value:
        out.put(row, str(value))


def _render_memory_limit(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """libcontainer never writes a limit of 0; -1 is unlimited."""
    memory = resources.value_of(row)
    if memory:
        out.put(row, 'max' if memory == -1 else str(memory), ('v2',), shown='infinity' if memory == -1 else None)
        out.put(row, str(memory), ('v1',), shown='infinity' if memory == -1 else None)


def _render_pids(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """A negative limit is unlimited, 0 is written as 1 (libcontainer's fs and fs2)."""
    pids = resources.value_of(row)
    if pids is not None:
        text = 'max' if pids < 0 else str(pids or 1)
        out.put(row, text, shown='infinity' if pids < 0 else text)


def _render_cpu_period(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """The CFS period, when the quota or the period is set: its v1 file and the property (v2's is in cpu.max)."""
    if resources.cpu_period:
        out.put(row, str(resources.cpu_period))


def _render_cpu_quota(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """The CFS quota: v1's file, v2's cpu.max (quota and period), and the quota per second systemd shows."""
    quota, period = resources.cpu_quota, resources.cpu_period
    if quota is None and period is None:
        return
    quota, period = quota or 0, period or 0
    cpu_max = 'max' if quota <= 0 else str(quota)
    texts = {'v1': str(quota) if quota else None,
             'v2': ('%s %d' % (cpu_max, period) if period else cpu_max) if quota or period else None}
    for version, name, prop in targets(row, ('v1', 'v2')):
        text = texts[version]
        if name and text is not None:
            out.files[version][name] = text
        if prop and resources.cpu_quota_shown is not None:
            out.properties[version][prop] = resources.cpu_quota_shown


def _render_per_page_size(row: ControlFile, resources: ResourceConfig, out: Rendered) -> None:
    """One file per hugepage size of the host, 0 for a size the resources do not limit."""
    for unit, limit in resources.hugetlb_files:
        out.put(row, limit, unit=unit)


RENDERERS = {'nothing': _render_nothing, 'number': _render_number, 'if_set': _render_if_set,
             'memory_limit': _render_memory_limit, 'pids': _render_pids, 'cpu_period': _render_cpu_period,
             'cpu_quota': _render_cpu_quota, 'per_page_size': _render_per_page_size}


class ControlFile(object):
    """One resource's control files and how they behave. v1/v2 names with '{unit}' stand for one file per
    hugepage size (2MB). compare, read, setting_units, render and accepts name the row's behaviour (COMPARISONS,
    READERS, SETTING_UNITS, RENDERERS, ACCEPTS); the row carries the functions themselves. source: the
    ResourceConfig attribute that holds the row's value; 'unified' (kubelet's map of cgroup v2 files) holds it under
    the row's key."""

    __slots__ = ('key', 'v1', 'hierarchy', 'v2', 'setting', 'property_v1', 'property_v2', 'compare', 'limit',
                 'optional', 'default', 'comparable', 'read', 'setting_units', 'source', 'render', 'accepts',
                 'settable')

    def __init__(self, key: str, v1: str | None = None, hierarchy: str | None = None, v2: str | None = None,
                 setting: str | None = None, property_v1: str | None = None, property_v2: str | None = None,
                 compare: str = 'text', limit: bool = False, optional: bool = False, default: int | str | None = None,
                 read: str = 'value', setting_units: str = 'as_is', source: str | None = None, render: str = 'nothing',
                 accepts: str = 'nothing') -> None:
        self.key, self.v1, self.hierarchy, self.v2 = key, v1, hierarchy, v2
        self.setting, self.property_v1, self.property_v2 = setting, property_v1, property_v2
        self.compare, self.limit, self.optional, self.default = compare, limit, optional, default
        self.comparable = COMPARISONS[compare]
        self.read = READERS[read]
        self.setting_units = SETTING_UNITS[setting_units]
        self.source = source or key
        self.render = RENDERERS[render]
        self.accepts = ACCEPTS[accepts]
        self.settable = accepts != 'nothing'

    def file_in(self, version: str) -> str:
        """The row's file under cgroup version 'v1' or 'v2', for a row known to have one there."""
        name = self.v2 if version == 'v2' else self.v1
        if name is None:
            raise ValueError('%s has no cgroup %s file' % (self.key, version))
        return name


CPU_SHARES = ControlFile('cpu_shares', v1='cpu.shares', hierarchy='cpu', setting='CPUShares', property_v1='CPUShares',
                         render='number', accepts='int')
# Computed from the shares (ResourceConfig.cpu_weight): kubelet writes cpu.weight for the shares it computes.
CPU_WEIGHT = ControlFile('cpu_weight', v2='cpu.weight', setting='CPUWeight', property_v2='CPUWeight', render='if_set')
# v2 holds quota and period in one file, cpu.max ("max 100000"); systemd shows the quota per second.
CPU_QUOTA = ControlFile('cpu_quota', v1='cpu.cfs_quota_us', hierarchy='cpu', v2='cpu.max', setting='CPUQuota',
                        property_v1='CPUQuotaPerSecUSec', property_v2='CPUQuotaPerSecUSec', compare='cpu_max',
                        read='quota', setting_units='percent_of_cpu', render='cpu_quota', accepts='int')
CPU_PERIOD = ControlFile('cpu_period', v1='cpu.cfs_period_us', hierarchy='cpu', setting='CPUQuotaPeriodSec',
                         property_v1='CPUQuotaPeriodUSec', property_v2='CPUQuotaPeriodUSec', setting_units='time_span',
                         render='cpu_period', accepts='int')
MEMORY_LIMIT = ControlFile('memory', v1='memory.limit_in_bytes', hierarchy='memory', v2='memory.max',
                           setting='MemoryMax', property_v1='MemoryLimit', property_v2='MemoryMax', compare='memory',
                           limit=True, render='memory_limit', accepts='int')
# systemd's cgroup v1 spelling of MemoryMax; its set-property drop-in is 50-MemoryLimit.conf.
MEMORY_LIMIT_V1_SETTING = 'MemoryLimit'
# The memory protections and the swap limit: kubelet writes them for kubepods and the QoS tiers with MemoryQoS
# (and swap for pods), never for a reserved cgroup. The reserved cgroups the collection makes or enforces hold
# the plan's value or this default, the kernel's for a new cgroup: a hand-set value there is drift, repaired.
MEMORY_MIN = ControlFile('memory_min', v2='memory.min', setting='MemoryMin', property_v2='MemoryMin', compare='memory',
                         limit=True, default=0, source='unified', render='number', accepts='bytes_or_max')
MEMORY_LOW = ControlFile('memory_low', v2='memory.low', setting='MemoryLow', property_v2='MemoryLow', compare='memory',
                         limit=True, default=0, source='unified', render='number', accepts='bytes_or_max')
MEMORY_SWAP_MAX = ControlFile('memory_swap_max', v2='memory.swap.max', setting='MemorySwapMax',
                              property_v2='MemorySwapMax', compare='memory', limit=True, default='max',
                              source='unified', render='number', accepts='bytes_or_max')
OWNED_BY_DEFAULT = (MEMORY_MIN, MEMORY_LOW, MEMORY_SWAP_MAX)
PIDS_LIMIT = ControlFile('pids', v1='pids.max', hierarchy='pids', v2='pids.max', setting='TasksMax',
                         property_v1='TasksMax', property_v2='TasksMax', compare='count', limit=True, render='pids',
                         accepts='int')
CPUSET_CPUS = ControlFile('cpuset_cpus', v1='cpuset.cpus', hierarchy='cpuset', v2='cpuset.cpus', setting='AllowedCPUs',
                          property_v1='AllowedCPUs', property_v2='AllowedCPUs', compare='cpuset', limit=True, read='text',
                          setting_units='cpu_list', source='cpuset', render='if_set', accepts='cpu_list')
CPUSET_MEMS = ControlFile('cpuset_mems', v1='cpuset.mems', hierarchy='cpuset', compare='cpuset', limit=True,
                          read='nothing')
HUGETLB_LIMIT = ControlFile('hugetlb', v1='hugetlb.{unit}.limit_in_bytes', hierarchy='hugetlb', v2='hugetlb.{unit}.max',
                            compare='hugetlb', limit=True, read='per_page_size', render='per_page_size',
                            accepts='per_page_size')
# Kernels before 5.7 have no reservation files; libcontainer skips them there, and so do we.
HUGETLB_RESERVATION = ControlFile('hugetlb_reservation', v1='hugetlb.{unit}.rsvd.limit_in_bytes', hierarchy='hugetlb',
                                  v2='hugetlb.{unit}.rsvd.max', compare='hugetlb', limit=True, optional=True,
                                  read='nothing', source='hugetlb', render='per_page_size')

# Read only, for whether the swap controller is there (kubelet's swapControllerAvailable): never planned.
MEMORY_SWAP_V1 = ControlFile('memory_memsw', v1='memory.memsw.limit_in_bytes', hierarchy='memory', compare='memory',
                             limit=True)

# In the order a cgroup's files are written (the period before the quota, as libcontainer's fs.CpuGroup does).
RESOURCES = (CPU_SHARES, CPU_WEIGHT, CPU_PERIOD, CPU_QUOTA, MEMORY_LIMIT, PIDS_LIMIT, HUGETLB_LIMIT, HUGETLB_RESERVATION,
             MEMORY_MIN, MEMORY_LOW, MEMORY_SWAP_MAX, CPUSET_CPUS, CPUSET_MEMS)

# What a cgroup uses, read by reservation_info and never written: the same row shape, no setting.
MEMORY_CURRENT = ControlFile('memory_current', v1='memory.usage_in_bytes', hierarchy='memory', v2='memory.current')
# memory.peak: kernel 5.19 and later; v1 keeps the high-water mark since the cgroup was made (or reset).
MEMORY_PEAK = ControlFile('memory_peak', v1='memory.max_usage_in_bytes', hierarchy='memory', v2='memory.peak',
                          optional=True)
# v2 counts oom, oom_kill, high and max events; v1's oom_control holds oom_kill (4.13 and later) and under_oom.
MEMORY_EVENTS = ControlFile('memory_events', v1='memory.oom_control', hierarchy='memory', v2='memory.events')
MEMORY_PRESSURE = ControlFile('memory_pressure', v2='memory.pressure', optional=True)
CPU_PRESSURE = ControlFile('cpu_pressure', v2='cpu.pressure', optional=True)
# v2: usage_usec in cpu.stat; v1: cpuacct.usage in nanoseconds.
CPU_USAGE = ControlFile('cpu_usage', v1='cpuacct.usage', hierarchy='cpuacct', v2='cpu.stat')
PIDS_CURRENT = ControlFile('pids_current', v1='pids.current', hierarchy='pids', v2='pids.current', optional=True)
# The page cache the kernel can reclaim, which kubelet's working set leaves out: inactive_file (v2), and on v1
# total_inactive_file (the cgroup's subtree) - cadvisor's reading.
MEMORY_STAT = ControlFile('memory_stat', v1='memory.stat', hierarchy='memory', v2='memory.stat')
USAGE = (MEMORY_CURRENT, MEMORY_PEAK, MEMORY_EVENTS, MEMORY_PRESSURE, CPU_PRESSURE, CPU_USAGE, PIDS_CURRENT, MEMORY_STAT)
INACTIVE_FILE_KEY = {'v1': 'total_inactive_file', 'v2': 'inactive_file'}

# The v2 files that say which controllers a cgroup has and hands down.
V2_CONTROLLERS_FILE = 'cgroup.controllers'
V2_SUBTREE_CONTROL = 'cgroup.subtree_control'
# The file listing a cgroup's processes (both versions).
PROCS_FILE = 'cgroup.procs'

# Unit-file setting (the set-property drop-in's name, 50-<Setting>.conf) -> the property `systemctl show` uses.
PROPERTY_BY_SETTING = dict([(row.setting, row.property_v2 or row.property_v1) for row in RESOURCES if row.setting]
                           + [(MEMORY_LIMIT_V1_SETTING, MEMORY_LIMIT.property_v1)])
# The v1 hierarchies and v2 controllers the planned files live in, from the rows: a new row in a new hierarchy is
# made, and its controller enabled, where kubelet's validation lists allow it (_cgroupfs).
PLANNED_HIERARCHIES = tuple(sorted(set(row.hierarchy for row in RESOURCES if row.hierarchy)))
PLANNED_V2_CONTROLLERS = tuple(sorted(set(row.v2.split('.')[0] for row in RESOURCES if row.v2)))
# Unit-file setting -> its row (MemoryLimit, systemd's v1 spelling of MemoryMax, is the memory limit's).
ROW_BY_SETTING = dict([(row.setting, row) for row in RESOURCES if row.setting] + [(MEMORY_LIMIT_V1_SETTING, MEMORY_LIMIT)])


def _pattern(name: str) -> re.Pattern:
    return re.compile('^%s$' % re.escape(name).replace(re.escape('{unit}'), '(?P<unit>[0-9]+[KMGTP]B)'))


_BY_FILE = [(_pattern(name), row, version) for row in RESOURCES for version, name in (('v1', row.v1), ('v2', row.v2))
            if name]


def row_of(file_name: str) -> ControlFile | None:
    """The ControlFile a file name belongs to (either version), or None."""
    for pattern, row, _version in _BY_FILE:
        if pattern.match(file_name):
            return row
    return None


def file_name(row: ControlFile, version: str, unit: str | None = None) -> str | None:
    """The file of row under cgroup version 'v1' or 'v2' (None when that version has none)."""
    name = row.v1 if version == 'v1' else row.v2
    return name.format(unit=unit) if name and unit else name


_TARGETS: dict = {}


def targets(row: ControlFile, versions: tuple[str, ...], unit: str | None = None
            ) -> tuple[tuple[str, str | None, str | None], ...]:
    """((version, file name or None, systemd property or None), ...) of row under each of versions; the
    property only for a file without a unit. Kept once computed: the planner asks for each row many times."""
    key = (row.key, versions, unit)
    found = _TARGETS.get(key)
    if found is None:
        found = _TARGETS[key] = tuple(
            (version, file_name(row, version, unit),
             None if unit is not None else (row.property_v1 if version == 'v1' else row.property_v2))
            for version in versions)
    return found


def v1_hierarchy(name: str) -> str | None:
    """The v1 hierarchy a file lives in (cpu, memory, pids, cpuset, hugetlb), or None."""
    row = row_of(name)
    return row.hierarchy if row else None


def is_limit(name: str) -> bool:
    row = row_of(name)
    return bool(row and row.limit)


def may_be_missing(name: str) -> bool:
    """A file some kernels lack, which is skipped there rather than refused."""
    row = row_of(name)
    return bool(row and row.optional)


def holds_only_default(name: str, value: object) -> bool:
    """True when value is the kernel's own for a file it may lack: a kernel without memory.swap.max (no swap
    accounting) behaves as the default, so writing it there is skipped rather than refused."""
    row = row_of(name)
    return bool(row and row.default is not None and str(value) == str(row.default))


def skipped_when_missing(name: str, value: object) -> bool:
    """A write the kernel may not have a file for: an optional file, or the default of an owned one."""
    return may_be_missing(name) or holds_only_default(name, value)


def known_file(name: str, version: str) -> bool:
    """True for a control file this registry declares under that cgroup version."""
    return any(pattern.match(name) for pattern, _row, v in _BY_FILE if v == version)


def hugetlb_page_bytes(name: str) -> int | None:
    match = re.match(r'^hugetlb\.([0-9]+)([KMGTP]B)\.', name)
    return int(match.group(1)) * _PAGE_UNITS[match.group(2)] if match else None


def hugetlb_unit(name: str) -> str | None:
    """"2MB" of hugetlb.2MB.max; None for any other file."""
    for pattern, row, _version in _BY_FILE:
        match = pattern.match(name)
        if match and row in (HUGETLB_LIMIT, HUGETLB_RESERVATION):
            return match.group('unit')
    return None


def expand_cpus(text: str | None) -> list[int]:
    """A cpuset list ("0-2,4", or systemd's "0-2 4") as a sorted list of CPU numbers."""
    cpus: set[int] = set()
    for part in [p for p in re.split(r'[,\s]+', text or '') if p]:
        bounds = part.split('-')
        cpus.update(range(int(bounds[0]), int(bounds[-1]) + 1))
    return sorted(cpus)


def parse(value: str | None) -> int | str | None:
    """A control file's value: None when empty, 'max' for every unlimited spelling, an int, else the text."""
    if value is None or value == '':
        return None
    if value == 'max' or (value.isdigit() and int(value) >= V1_UNLIMITED_MEMORY):
        return 'max'
    try:
        return int(value)
    except ValueError:
        return value


def comparable(name: str, value: str | None) -> str | None:
    """A value as the kernel would show it, so that what we write and what it shows compare equal: unlimited
    spellings, memory rounded down to pages, hugetlb to its page size, cpusets expanded, cpu.max's period."""
    if value is None:
        return None
    row = row_of(name)
    return (row.comparable if row else _as_text)(name, value.strip())


def limit_order(name: str, value: str | None) -> float | int | None:
    """A limit as a comparable number: unlimited above every other, None when it is no number."""
    parsed = parse(comparable(name, value))
    if parsed == 'max':
        return float('inf')
    return parsed if isinstance(parsed, int) else None
