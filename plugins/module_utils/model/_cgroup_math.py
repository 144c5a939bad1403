# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU and memory conversions and cgroup file values, as kubelet, runc and systemd do them.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Sources: kubernetes pkg/kubelet/cm/helpers_linux.go and cgroup_manager_linux.go,
opencontainers/cgroups utils.go, fs, fs2 and systemd packages, systemd's cgroup-util.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError

MIN_SHARES = 2
MAX_SHARES = 262144
SHARES_PER_CPU = 1024
MILLI_CPU_TO_CPU = 1000
QUOTA_PERIOD_US = 100000
MIN_QUOTA_PERIOD_US = 1000
MAX_WEIGHT = 10000
# The QoS tiers' hugetlb limit: kubelet writes int64(1 << 62), not "max".
HUGETLB_UNBOUNDED = 1 << 62
# systemd's USEC_INFINITY, used by the CPUQuotaPerSecUSec property for "no quota".
USEC_INFINITY = (1 << 64) - 1


def go_div(numerator, denominator):
    """Go's integer division: truncates toward zero."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def milli_cpu_to_shares(milli_cpu):
    """MilliCPUToShares: cpu.shares for a CPU amount in millicores."""
    if milli_cpu == 0:
        return MIN_SHARES
    shares = go_div(milli_cpu * SHARES_PER_CPU, MILLI_CPU_TO_CPU)
    return min(max(shares, MIN_SHARES), MAX_SHARES)


def milli_cpu_to_quota(milli_cpu, period_us=QUOTA_PERIOD_US, custom_period=False):
    """MilliCPUToQuota: CFS quota in microseconds; 0 means no quota.

    Without the CustomCPUCFSQuotaPeriod feature gate kubelet always uses 100ms.
    """
    if milli_cpu == 0:
        return 0
    if not custom_period:
        period_us = QUOTA_PERIOD_US
    return max(go_div(milli_cpu * period_us, MILLI_CPU_TO_CPU), MIN_QUOTA_PERIOD_US)


def container_milli_cpu_to_quota(milli_cpu, period_us):
    """kuberuntime's milliCPUToQuota: the period is already the effective one."""
    if milli_cpu == 0:
        return 0
    return max(go_div(milli_cpu * period_us, MILLI_CPU_TO_CPU), MIN_QUOTA_PERIOD_US)


def linear_weight(shares):
    """getCPUWeight in kubelet (every cgroup kubelet writes itself) and ConvertCPUSharesToCgroupV2Value before
    runc 1.3.2 and crun 1.23: cpu.weight = 1 + (shares - 2) * 9999 / 262142, shares clamped to kubelet's range."""
    if shares == 0:
        return 0
    shares = max(shares, MIN_SHARES)
    if shares >= MAX_SHARES:
        return MAX_WEIGHT
    return 1 + ((shares - 2) * 9999) // 262142


def _go_log2(value):
    # Go's math.Log2 (frexp + log of the fraction); exact for powers of two.
    fraction, exponent = math.frexp(value)
    if fraction == 0.5:
        return float(exponent - 1)
    return math.log(fraction) * (1 / math.log(2)) + exponent


def quadratic_weight(shares):
    """ConvertCPUSharesToCgroupV2Value in opencontainers/cgroups >= v0.0.3 (runc >= 1.3.2, crun >= 1.23): the
    quadratic fit in log2(shares) that maps the default 1024 shares to the default weight 100."""
    if shares == 0:
        return 0
    if shares <= 2:
        return 1
    if shares >= MAX_SHARES:
        return MAX_WEIGHT
    log2 = _go_log2(float(shares))
    exponent = (log2 * log2 + 125 * log2) / 612.0 - 7.0 / 34.0
    return int(math.ceil(math.pow(10, exponent)))


# How shares become cpu.weight: kubelet's own cgroups are always linear; an OCI runtime's containers follow
# its release (oci_weight_formula). The filter still accepts the older names kubelet and oci.
WEIGHT_FORMULAS = {'linear': linear_weight, 'quadratic': quadratic_weight}
_FORMULA_ALIASES = {'kubelet': 'linear', 'oci': 'quadratic'}

# The first release of each OCI runtime that writes cpu.weight with the quadratic formula.
OCI_QUADRATIC_SINCE = {'runc': (1, 3, 2), 'crun': (1, 23, 0)}
_RELEASE_RE = re.compile(r'^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?')


def oci_weight_formula(name, version, field='oci_runtime'):
    """"quadratic" or "linear": how this OCI runtime release turns CPU shares into cpu.weight."""
    if name not in OCI_QUADRATIC_SINCE:
        raise KubenodeError('no known cpu.weight formula for this OCI runtime; known are %s'
                            % ', '.join(sorted(OCI_QUADRATIC_SINCE)), field=field + '.name', value=name)
    match = _RELEASE_RE.match(str(version or ''))
    if not match:
        raise KubenodeError('not a release number such as "1.3.2"', field=field + '.version', value=version)
    release = tuple(int(part or 0) for part in match.groups())
    return 'quadratic' if release >= OCI_QUADRATIC_SINCE[name] else 'linear'


def shares_to_weight(shares, formula='linear', field='formula'):
    """cpu.weight for shares by a formula of WEIGHT_FORMULAS (or its older name, kubelet or oci)."""
    function = WEIGHT_FORMULAS.get(_FORMULA_ALIASES.get(formula, formula))
    if function is None:
        raise KubenodeError('unknown formula; use "linear" (kubelet\'s own cgroups; also called kubelet) or '
                            '"quadratic" (containers of runc >= 1.3.2 and crun >= 1.23; also called oci)',
                            field=field, value=formula)
    return function(shares)


def weight_to_shares(weight):
    """cpuWeightToCPUShares: how kubelet reads a cpu.weight back."""
    if weight == 0:
        return 0
    return ((weight - 1) * 262142) // 9999 + 2


def systemd_cpu_quota(quota_us, period_us):
    """(CPUQuotaPerSecUSec, quota written to cgroupfs) as opencontainers/cgroups' systemd driver does."""
    if period_us == 0:
        period_us = QUOTA_PERIOD_US
    if quota_us <= 0:
        return USEC_INFINITY, -1
    per_sec = quota_us * 1000000 // period_us
    if per_sec % 10000:
        per_sec = (per_sec // 10000 + 1) * 10000
        quota_us = -(-per_sec * period_us // 1000000)
    return per_sec, quota_us


_UNITS: dict = {}


def hugepage_unit(size_bytes, field='hugepage size'):
    """HugePageUnitSizeFromByteSize: 2097152 -> "2MB", used in hugetlb.<unit>.* file names."""
    unit = _UNITS.get(size_bytes)
    if unit is None:
        unit = _UNITS[size_bytes] = _hugepage_unit(size_bytes, field)
    return unit


def _hugepage_unit(size_bytes, field):
    units = ('B', 'KB', 'MB', 'GB', 'TB', 'PB')
    size = int(size_bytes)
    if size <= 0:
        raise KubenodeError('hugepage size must be positive', field=field, value=size_bytes)
    index = 0
    while size % 1024 == 0 and index < len(units) - 1:
        size //= 1024
        index += 1
    if size > 1023:
        raise KubenodeError('size: %d%s must be guaranteed to divisible into the largest units' % (size, units[index]),
                            field=field, value=size_bytes)
    return '%d%s' % (size, units[index])


class _Rendered(object):
    """The v1 and v2 files and the systemd properties rendered so far, by version."""

    __slots__ = ('files', 'properties')

    def __init__(self):
        self.files = {'v1': {}, 'v2': {}}
        self.properties = {'v1': {}, 'v2': {}}

    def put(self, row, value, versions=('v1', 'v2'), unit=None, shown=None):
        """A row's value in its file and property of each version (shown: the property's spelling, if another)."""
        for version, name, prop in cgfiles.targets(row, versions, unit):
            if name:
                self.files[version][name] = value
            if prop:
                self.properties[version][prop] = value if shown is None else shown


def _render_cpu(config, out):
    """cpu.shares (v1) and cpu.weight (v2); the CFS quota and period (cpu.cfs_*_us, cpu.max, CPUQuota)."""
    shares = config.get('cpu_shares')
    if shares is not None:
        out.put(cgfiles.CPU_SHARES, str(shares), ('v1',))
        weight = linear_weight(shares)
        if weight:
            out.put(cgfiles.CPU_WEIGHT, str(weight), ('v2',))
    quota, period = config.get('cpu_quota'), config.get('cpu_period')
    if quota is None and period is None:
        return
    quota = 0 if quota is None else quota
    period = 0 if period is None else period
    per_sec, _quota = systemd_cpu_quota(quota, period)
    shown_quota = 'infinity' if per_sec == USEC_INFINITY else str(per_sec)
    if period:
        out.put(cgfiles.CPU_PERIOD, str(period), ('v1',))
        out.properties['v2'][cgfiles.CPU_PERIOD.property_v2] = str(period)
    if quota:
        out.files['v1'][cgfiles.CPU_QUOTA.v1] = str(quota)
    if quota or period:
        cpu_max = 'max' if quota <= 0 else str(quota)
        out.files['v2'][cgfiles.CPU_QUOTA.v2] = '%s %d' % (cpu_max, period) if period else cpu_max
    out.properties['v1'][cgfiles.CPU_QUOTA.property_v1] = shown_quota
    out.properties['v2'][cgfiles.CPU_QUOTA.property_v2] = shown_quota


def _render_memory(config, out):
    """The memory limit (libcontainer never writes one of 0; -1 is unlimited)."""
    memory = config.get('memory')
    if memory:
        out.files['v1'][cgfiles.MEMORY_LIMIT.v1] = str(memory)
        out.files['v2'][cgfiles.MEMORY_LIMIT.v2] = 'max' if memory == -1 else str(memory)
        out.properties['v1'][cgfiles.MEMORY_LIMIT.property_v1] = 'infinity' if memory == -1 else str(memory)
        out.properties['v2'][cgfiles.MEMORY_LIMIT.property_v2] = 'infinity' if memory == -1 else str(memory)


def resource_files(config, page_sizes):
    """The v1 files, v2 files and systemd properties libcontainer writes for a ResourceConfig.

    config keys (all optional; absent means "not set"): cpu_shares, cpu_quota, cpu_period,
    memory, pids, hugetlb ({page size bytes: limit}), memory_min, memory_low, memory_swap_max (v2 only; bytes or
    'max'), cpuset.
    page_sizes: every hugepage size on the host, in bytes; sizes not in hugetlb get 0.
    File and property names come from the registry (_cgroup_files).
    """
    out = _Rendered()
    _render_cpu(config, out)
    _render_memory(config, out)
    pids = config.get('pids')
    if pids is not None:
        out.put(cgfiles.PIDS_LIMIT, 'max' if pids < 0 else str(pids or 1),
                shown='infinity' if pids < 0 else str(pids or 1))
    hugetlb = config.get('hugetlb')
    if hugetlb is not None:
        for size in sorted(set(page_sizes) | set(hugetlb)):
            unit = hugepage_unit(size)
            limit = str(hugetlb.get(size, 0))
            out.put(cgfiles.HUGETLB_LIMIT, limit, unit=unit)
            out.put(cgfiles.HUGETLB_RESERVATION, limit, unit=unit)
    for row in (cgfiles.MEMORY_MIN, cgfiles.MEMORY_LOW, cgfiles.MEMORY_SWAP_MAX):  # cgroup v2 only
        if config.get(row.key) is not None:
            value = str(config[row.key])
            out.put(row, value, ('v2',), shown='infinity' if value == 'max' else value)
    if config.get('cpuset'):
        out.put(cgfiles.CPUSET_CPUS, config['cpuset'])
    return {'v1_files': out.files['v1'], 'v2_files': out.files['v2'], 'systemd_properties': out.properties}
