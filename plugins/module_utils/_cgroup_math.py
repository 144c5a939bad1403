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

from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError

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


def shares_to_weight_kubelet(shares):
    """getCPUWeight: the linear mapping kubelet uses for every cgroup it writes itself."""
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


def shares_to_weight_oci(shares):
    """ConvertCPUSharesToCgroupV2Value in opencontainers/cgroups >= v0.0.3 (runc >= 1.3.2)."""
    if shares == 0:
        return 0
    if shares <= 2:
        return 1
    if shares >= MAX_SHARES:
        return MAX_WEIGHT
    log2 = _go_log2(float(shares))
    exponent = (log2 * log2 + 125 * log2) / 612.0 - 7.0 / 34.0
    return int(math.ceil(math.pow(10, exponent)))


# The first release of each OCI runtime that writes cpu.weight with the quadratic formula.
OCI_QUADRATIC_SINCE = {'runc': (1, 3, 2), 'crun': (1, 23, 0)}
_RELEASE_RE = re.compile(r'^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?')


def shares_to_weight_linear(shares):
    """ConvertCPUSharesToCgroupV2Value before the quadratic formula (runc < 1.3.2, crun < 1.23)."""
    if shares == 0:
        return 0
    return 1 + go_div((shares - 2) * 9999, 262142)


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


def runtime_weight(shares, formula):
    return shares_to_weight_oci(shares) if formula == 'quadratic' else shares_to_weight_linear(shares)


def shares_to_weight(shares, formula='kubelet', field='formula'):
    if formula == 'kubelet':
        return shares_to_weight_kubelet(shares)
    if formula == 'oci':
        return shares_to_weight_oci(shares)
    raise KubenodeError('unknown formula; use "kubelet" (linear, kubelet-managed cgroups) or "oci" '
                        '(runc >= 1.3.2 and crun >= 1.23, container cgroups)', field=field, value=formula)


def weight_to_shares_kubelet(weight):
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


def hugepage_unit(size_bytes, field='hugepage size'):
    """HugePageUnitSizeFromByteSize: 2097152 -> "2MB", used in hugetlb.<unit>.* file names."""
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


def resource_files(config, page_sizes):
    """The v1 files, v2 files and systemd properties libcontainer writes for a ResourceConfig.

    config keys (all optional; absent means "not set"): cpu_shares, cpu_quota, cpu_period,
    memory, pids, hugetlb ({page size bytes: limit}), memory_min, memory_low, memory_swap_max (v2 only), cpuset.
    page_sizes: every hugepage size on the host, in bytes; sizes not in hugetlb get 0.
    """
    v1, v2, sd_v1, sd_v2 = {}, {}, {}, {}
    shares = config.get('cpu_shares')
    if shares is not None:
        v1['cpu.shares'] = str(shares)
        sd_v1['CPUShares'] = str(shares)
        weight = shares_to_weight_kubelet(shares)
        if weight:
            v2['cpu.weight'] = str(weight)
            sd_v2['CPUWeight'] = str(weight)
    quota, period = config.get('cpu_quota'), config.get('cpu_period')
    if quota is not None or period is not None:
        quota = 0 if quota is None else quota
        period = 0 if period is None else period
        if period:
            v1['cpu.cfs_period_us'] = str(period)
        if quota:
            v1['cpu.cfs_quota_us'] = str(quota)
        if quota or period:
            cpu_max = 'max' if quota <= 0 else str(quota)
            v2['cpu.max'] = '%s %d' % (cpu_max, period) if period else cpu_max
        per_sec, _quota = systemd_cpu_quota(quota, period)
        for props in (sd_v1, sd_v2):
            props['CPUQuotaPerSecUSec'] = 'infinity' if per_sec == USEC_INFINITY else str(per_sec)
            if period:
                props['CPUQuotaPeriodUSec'] = str(period)
    memory = config.get('memory')
    if memory:  # libcontainer never writes a memory limit of 0
        v1['memory.limit_in_bytes'] = str(memory)
        v2['memory.max'] = 'max' if memory == -1 else str(memory)
        sd_v1['MemoryLimit'] = 'infinity' if memory == -1 else str(memory)
        sd_v2['MemoryMax'] = 'infinity' if memory == -1 else str(memory)
    pids = config.get('pids')
    if pids is not None:
        pids_value = 'max' if pids < 0 else str(pids or 1)
        v1['pids.max'] = v2['pids.max'] = pids_value
        sd_v1['TasksMax'] = sd_v2['TasksMax'] = 'infinity' if pids < 0 else str(pids or 1)
    hugetlb = config.get('hugetlb')
    if hugetlb is not None:
        for size in sorted(set(page_sizes) | set(hugetlb)):
            unit = hugepage_unit(size)
            limit = str(hugetlb.get(size, 0))
            v1['hugetlb.%s.limit_in_bytes' % unit] = limit
            v1['hugetlb.%s.rsvd.limit_in_bytes' % unit] = limit
            v2['hugetlb.%s.max' % unit] = limit
            v2['hugetlb.%s.rsvd.max' % unit] = limit
    for key, file_name, prop in (('memory_min', 'memory.min', 'MemoryMin'), ('memory_low', 'memory.low', 'MemoryLow'),
                                 ('memory_swap_max', 'memory.swap.max', 'MemorySwapMax')):
        if config.get(key) is not None:
            v2[file_name] = str(config[key])
            sd_v2[prop] = str(config[key])
    if config.get('cpuset'):
        v1['cpuset.cpus'] = v2['cpuset.cpus'] = config['cpuset']
        sd_v1['AllowedCPUs'] = sd_v2['AllowedCPUs'] = config['cpuset']
    return {'v1_files': v1, 'v2_files': v2, 'systemd_properties': {'v1': sd_v1, 'v2': sd_v2}}
