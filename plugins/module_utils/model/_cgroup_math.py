# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU and memory conversions and cgroup file values, as kubelet, runc and systemd do them.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Sources: kubernetes pkg/kubelet/cm/helpers_linux.go and cgroup_manager_linux.go,
opencontainers/cgroups utils.go, fs, fs2 and systemd packages, systemd's cgroup-util.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import math
import re
from typing import Any, Iterable, Mapping

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


def go_div(numerator: int, denominator: int) -> int:
    """Go's integer division: truncates toward zero."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def milli_cpu_to_shares(milli_cpu: int) -> int:
    """MilliCPUToShares: cpu.shares for a CPU amount in millicores."""
    if milli_cpu == 0:
        return MIN_SHARES
    shares = go_div(milli_cpu * SHARES_PER_CPU, MILLI_CPU_TO_CPU)
    return min(max(shares, MIN_SHARES), MAX_SHARES)


def milli_cpu_to_quota(milli_cpu: int, period_us: int = QUOTA_PERIOD_US, custom_period: bool = False) -> int:
    """MilliCPUToQuota: CFS quota in microseconds; 0 means no quota.

    Without the CustomCPUCFSQuotaPeriod feature gate kubelet always uses 100ms.
    """
    if milli_cpu == 0:
        return 0
    if not custom_period:
        period_us = QUOTA_PERIOD_US
    return max(go_div(milli_cpu * period_us, MILLI_CPU_TO_CPU), MIN_QUOTA_PERIOD_US)


def container_milli_cpu_to_quota(milli_cpu: int, period_us: int) -> int:
    """kuberuntime's milliCPUToQuota: the period is already the effective one."""
    if milli_cpu == 0:
        return 0
    return max(go_div(milli_cpu * period_us, MILLI_CPU_TO_CPU), MIN_QUOTA_PERIOD_US)


def linear_weight(shares: int) -> int:
    """getCPUWeight in kubelet (every cgroup kubelet writes itself) and ConvertCPUSharesToCgroupV2Value before
    runc 1.3.2 and crun 1.23: cpu.weight = 1 + (shares - 2) * 9999 / 262142, shares clamped to kubelet's range."""
    if shares == 0:
        return 0
    shares = max(shares, MIN_SHARES)
    if shares >= MAX_SHARES:
        return MAX_WEIGHT
    return 1 + ((shares - 2) * 9999) // 262142


def _go_log2(value: float) -> float:
    # Go's math.Log2 (frexp + log of the fraction); exact for powers of two.
    fraction, exponent = math.frexp(value)
    if fraction == 0.5:
        return float(exponent - 1)
    return math.log(fraction) * (1 / math.log(2)) + exponent


def quadratic_weight(shares: int) -> int:
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


def oci_weight_formula(name: str, version: object, field: str = 'oci_runtime') -> str:
    """"quadratic" or "linear": how this OCI runtime release turns CPU shares into cpu.weight."""
    if name not in OCI_QUADRATIC_SINCE:
        raise KubenodeError('no known cpu.weight formula for this OCI runtime; known are %s'
                            % ', '.join(sorted(OCI_QUADRATIC_SINCE)), field=field + '.name', value=name)
    match = _RELEASE_RE.match(str(version or ''))
    if not match:
        raise KubenodeError('not a release number such as "1.3.2"', field=field + '.version', value=version)
    release = tuple(int(part or 0) for part in match.groups())
    return 'quadratic' if release >= OCI_QUADRATIC_SINCE[name] else 'linear'


def shares_to_weight(shares: int, formula: str = 'linear', field: str = 'formula') -> int:
    """cpu.weight for shares by a formula of WEIGHT_FORMULAS (or its older name, kubelet or oci)."""
    function = WEIGHT_FORMULAS.get(_FORMULA_ALIASES.get(formula, formula))
    if function is None:
        raise KubenodeError('unknown formula; use "linear" (kubelet\'s own cgroups; also called kubelet) or '
                            '"quadratic" (containers of runc >= 1.3.2 and crun >= 1.23; also called oci)',
                            field=field, value=formula)
    return function(shares)


def weight_to_shares(weight: int) -> int:
    """cpuWeightToCPUShares: how kubelet reads a cpu.weight back."""
    if weight == 0:
        return 0
    return ((weight - 1) * 262142) // 9999 + 2


def systemd_cpu_quota(quota_us: int, period_us: int) -> tuple[int, int]:
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


def hugepage_unit(size_bytes: int | str, field: str = 'hugepage size') -> str:
    """HugePageUnitSizeFromByteSize: 2097152 -> "2MB", used in hugetlb.<unit>.* file names."""
    unit = _UNITS.get(size_bytes)
    if unit is None:
        unit = _UNITS[size_bytes] = _hugepage_unit(size_bytes, field)
    return unit


def _hugepage_unit(size_bytes: int | str, field: str) -> str:
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


class ResourceConfig(object):
    """kubelet's ResourceConfig (pkg/kubelet/cm/types.go): what one cgroup is given. Its values are held as the
    registry's rows name them (_cgroup_files: each row's source and what it accepts); unified is kubelet's map of
    cgroup v2 files (memory.min, memory.low, memory.swap.max), by the rows' keys. What the rows write and kubelet
    derives is computed once here: cpu_weight (getCPUWeight of the shares), cpu_quota_shown (the quota per second
    systemd shows) and hugetlb_files ((unit, limit) per hugepage size of the host, 0 where none is set)."""

    __slots__ = ('cpu_shares', 'cpu_quota', 'cpu_period', 'memory', 'pids', 'hugetlb', 'cpuset', 'unified',
                 'cpu_weight', 'cpu_quota_shown', 'hugetlb_files')

    def __init__(self, values: Mapping[str, Any], page_sizes: Iterable[int] = ()) -> None:
        self.unified: dict[str, Any] = dict((key, value) for key, value in values.items() if key not in self.__slots__)
        self.cpu_shares: int | None = values.get('cpu_shares')
        self.cpu_quota: int | None = values.get('cpu_quota')
        self.cpu_period: int | None = values.get('cpu_period')
        self.memory: int | None = values.get('memory')
        self.pids: int | None = values.get('pids')
        self.hugetlb: dict[int, int] | None = values.get('hugetlb')
        self.cpuset: str | None = values.get('cpuset')
        self.cpu_weight = None if self.cpu_shares is None else linear_weight(self.cpu_shares)
        self.cpu_quota_shown: str | None = None
        if self.cpu_quota is not None or self.cpu_period is not None:
            per_sec, _quota = systemd_cpu_quota(self.cpu_quota or 0, self.cpu_period or 0)
            self.cpu_quota_shown = 'infinity' if per_sec == USEC_INFINITY else str(per_sec)
        hugetlb = self.hugetlb
        self.hugetlb_files = () if hugetlb is None else tuple(
            (hugepage_unit(size), str(hugetlb.get(size, 0))) for size in sorted(set(page_sizes) | set(hugetlb)))

    @classmethod
    def of(cls, config: Mapping[str, Any], page_sizes: Iterable[int] = (),
           rows: tuple[cgfiles.ControlFile, ...] | None = None) -> ResourceConfig:
        """The ResourceConfig of a mapping by the rows' keys (None: not set), each value checked by the row that
        holds it. page_sizes: every hugepage size on the host, in bytes. rows: the registry's (RESOURCES)."""
        rows = cgfiles.RESOURCES if rows is None else rows
        takers = dict((row.key if row.source == 'unified' else row.source, row) for row in rows if row.settable)
        values = {}
        for key, value in config.items():
            if value is None:
                continue
            row = takers.get(key)
            reason = row.accepts(value) if row else 'no control file holds it'
            if reason:
                raise KubenodeError(reason, field=key, value=value)
            values[key] = value
        return cls(values, page_sizes)

    def __repr__(self) -> str:
        return 'ResourceConfig(%s)' % ', '.join('%s=%r' % (name, getattr(self, name)) for name in self.__slots__)

    def value_of(self, row: cgfiles.ControlFile) -> Any:
        """The value a registry row holds (None: not set)."""
        return self.unified.get(row.key) if row.source == 'unified' else getattr(self, row.source)


def resource_files(config: ResourceConfig | Mapping[str, Any], page_sizes: Iterable[int],
                   rows: tuple[cgfiles.ControlFile, ...] | None = None) -> dict[str, Any]:
    """The v1 files, v2 files and systemd properties libcontainer writes for a cgroup's resources: each registry
    row renders its value of the ResourceConfig (_cgroup_files.RENDERERS), in the rows' order.

    config: a ResourceConfig, or a mapping by the rows' keys (absent or None: not set) - cpu_shares, cpu_quota,
    cpu_period, memory, pids, hugetlb ({page size bytes: limit}), memory_min, memory_low, memory_swap_max (v2 only;
    bytes or 'max'), cpuset. page_sizes: every hugepage size on the host, in bytes; sizes not in hugetlb get 0.
    rows: the registry's (RESOURCES), or more of them.
    """
    rows = cgfiles.RESOURCES if rows is None else rows
    resources = config if isinstance(config, ResourceConfig) else ResourceConfig.of(config, page_sizes, rows)
    out = cgfiles.Rendered()
    for row in rows:
        row.render(row, resources, out)
    return {'v1_files': out.files['v1'], 'v2_files': out.files['v2'], 'systemd_properties': out.properties}


def cgroup_values(config: Mapping[str, Any], page_sizes: Iterable[int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the plan's resources of one cgroup, its files and properties): the mapping as given, hugetlb by unit
    ("2MB") and cpu.weight beside the shares, then resource_files - the ResourceConfig built once for both."""
    resources = ResourceConfig.of(config, page_sizes)
    values = dict(config)
    if 'hugetlb' in values:
        values['hugetlb'] = dict((hugepage_unit(size), limit) for size, limit in sorted(values['hugetlb'].items()))
    if 'cpu_shares' in values:
        values['cpu_weight'] = resources.cpu_weight
    return values, resource_files(resources, page_sizes)


def parse_int(text: str | None) -> int | None:
    """A counter file's integer, None when the file is missing or holds no number."""
    if text is None:
        return None
    text = text.strip()
    return int(text) if text.isdigit() else None


def lowers_limit(after: int | None, now: int | None) -> bool:
    """Whether a limit after the change is below the limit now (no limit now: any limit is lower): the only case
    _squeezed compares with the cgroup's use."""
    return after is not None and (now is None or after < now)


def squeezes(after: int | None, now: int | None, used: Mapping[str, int] | None) -> bool:
    """Whether a cgroup's new memory limit (after) is lower than its limit now and below its working set (its use less
    the inactive page cache the kernel can reclaim, as kubelet counts it)."""
    return after is not None and lowers_limit(after, now) and used is not None and after < used['working_set']
