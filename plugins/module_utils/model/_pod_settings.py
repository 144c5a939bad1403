# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node settings that pod and container values depend on (PodSettings), checked as kubelet checks them: the
part of the pod model that kubelet's configuration (_kubelet_config) validates on every run, apart from the pods
themselves (_pods), which a node without pods never needs (a module's imports are compiled from source on every
run on the node: AnsiballZ ships no bytecode).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Sources: pkg/kubelet/apis/config/validation (cpuCFSQuotaPeriod, memoryThrottlingFactor, memorySwap,
singleProcessOOMKill), component-helpers resource/helpers.go (IsSupportedPodLevelResource, IsPodLevelResourcesSet),
pkg/kubelet/cm/helpers_linux.go and kuberuntime_container_linux.go (memory protection under MemoryQoS).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import collections
import re
from collections.abc import Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import (
    MemoryRules, memory_reservation_policy, parse_feature_gates, parse_qos_reserved)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_files import file_version
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import MAX_INT64, parse_quantity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import hugepage_size_bytes, is_hugepages
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules

# kubelet's QoS classes (v1.PodQOSClass): the memory protection MemoryQoS gives depends on them.
GUARANTEED, BURSTABLE, BESTEFFORT = 'Guaranteed', 'Burstable', 'BestEffort'
NO_SWAP, LIMITED_SWAP = 'NoSwap', 'LimitedSwap'
SWAP_BEHAVIORS = ('', NO_SWAP, LIMITED_SWAP)
POD_LEVEL_RESOURCES = ('cpu', 'memory')
_DURATION_RE = re.compile(r'([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|\u00b5s|ms|s|m|h)')
_DURATION_US = {'ns': 0.001, 'us': 1, '\u00b5s': 1, 'ms': 1000, 's': 1000000, 'm': 60000000, 'h': 3600000000}
# The pod model's two modules, as pod_model() gives them.
PodModel = collections.namedtuple('PodModel', 'pods admission')


def pod_model() -> Any:
    """The pod model, kubelet's pods (_pods) and admission (_admission), imported when the first pod is met: a node
    without pods (most workers) does not compile those 970 lines on every run - AnsiballZ ships sources, compiled each
    time a module runs. The one place the collection loads them on demand."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _admission, _pods
    return PodModel(_pods, _admission)


def pod_level_resource(name: str, hugepages: bool = False) -> bool:
    """IsSupportedPodLevelResource: cpu and memory, and hugepages-* from kubelet 1.33."""
    return name in POD_LEVEL_RESOURCES or bool(hugepages and is_hugepages(name))


def pod_level_resources_set(pod: Any, hugepages: bool = False) -> bool:
    """IsPodLevelResourcesSet: a pod-level request or limit of a resource that can be one (hugepages from 1.33)."""
    return any(pod_level_resource(name, hugepages) for name in list(pod.requests) + list(pod.limits))


def parse_duration_us(text: Any, field: str) -> int:
    """A Go duration ("100ms", "1.5s") in whole microseconds."""
    if isinstance(text, bool) or not isinstance(text, str):
        raise KubenodeError('must be a duration string such as "100ms"', field=field, value=text)
    position, total = 0, 0.0
    while position < len(text):
        match = _DURATION_RE.match(text, position)
        if not match:
            raise KubenodeError('must be a duration string such as "100ms"', field=field, value=text)
        total += float(match.group(1)) * _DURATION_US[match.group(2)]
        position = match.end()
    if not text:
        raise KubenodeError('must be a duration string such as "100ms"', field=field, value=text)
    return int(total)


def swap_setting(behavior: str | None, gates: Mapping[str, bool], rules: Any, field: str = 'swap_behavior',
                 gates_field: str = 'feature_gates') -> tuple[bool, str]:
    """(NodeSwap enabled, behaviour) for memorySwap.swapBehavior, refused as kubelet refuses it. gates come from
    parse_feature_gates with the same rules, which refuses NodeSwap false where it is locked."""
    node_swap = rules.gate(gates, 'NodeSwap')
    behavior = behavior or ''
    if behavior and not node_swap:
        raise KubenodeError('invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature '
                            'flag is disabled', field=field, value=behavior)
    if behavior not in SWAP_BEHAVIORS:
        raise KubenodeError('invalid configuration: memorySwap.swapBehavior "%s" must be one of: "", "LimitedSwap" '
                            'or "NoSwap"' % behavior, field=field, value=behavior)
    if node_swap and not rules.has_no_swap_behavior:
        # Before 1.30 an empty swapBehavior meant LimitedSwap and UnlimitedSwap existed: other rules.
        raise KubenodeError('NodeSwap is modelled from kubelet 1.30 (NoSwap, and LimitedSwap in proportion to the '
                            'memory request); kubelet %s had other swap rules' % rules.version,
                            field=gates_field + '.NodeSwap', value=True)
    return node_swap, behavior or NO_SWAP


def _oci_runtime(runtime: Any) -> dict[str, Any] | None:
    """{name, version, formula} of the OCI runtime given (the formula it turns CPU shares into cpu.weight by), or
    None."""
    if runtime is None:
        return None
    if not isinstance(runtime, dict) or not runtime.get('name'):
        raise KubenodeError('must be a mapping {name: runc or crun, version: "1.3.2"}', field='oci_runtime',
                            value=runtime)
    version = runtime.get('version')
    if version is not None and not isinstance(version, str):
        raise KubenodeError('must be a string such as "1.3.0" (an unquoted 1.30 in YAML is the number 1.3: '
                            'quote it)', field='oci_runtime.version', value=version)
    name, version = str(runtime['name']), version or ''
    return {'name': name, 'version': version, 'formula': cgmath.oci_weight_formula(name, version)}


class PodSettings(object):
    """The node settings that pod and container values depend on."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.rules = kubelet_rules(params.get('kubelet_version'))
        self.gates = parse_feature_gates(params.get('feature_gates'), rules=self.rules,
                                         accepted=params.get('extra_feature_gates') or ())
        self.pod_level = self.rules.gate(self.gates, 'PodLevelResources')
        self.only_set_pod_level = self.rules.gate(self.gates, 'PodLevelResourcesFixKubeletQOSClass')
        self.custom_period = self.rules.gate(self.gates, 'CustomCPUCFSQuotaPeriod')
        self._cpu_settings(params)
        self._memory_settings(params)
        self._node_settings(params)
        self._swap_settings(params)
        self._oom_settings(params.get('single_process_oom_kill'))
        self.hugepage_sizes = _hugepage_sizes(params.get('hugepage_sizes'))
        self._cpu_manager_settings(params)
        self.oci_runtime = _oci_runtime(params.get('oci_runtime'))

    def _cpu_settings(self, params: Mapping[str, Any]) -> None:
        """CPU CFS quota and its period (cpuCFSQuota, cpuCFSQuotaPeriod and its gate)."""
        quota = params.get('cpu_cfs_quota')
        self.cpu_cfs_quota = True if quota is None else bool(quota)
        self.cpu_period = parse_duration_us(params.get('cpu_cfs_quota_period') or '100ms', 'cpu_cfs_quota_period')
        if self.cpu_period != cgmath.QUOTA_PERIOD_US:
            if not self.custom_period:
                raise KubenodeError('cpuCFSQuotaPeriod other than 100ms needs the CustomCPUCFSQuotaPeriod feature gate',
                                    field='cpu_cfs_quota_period', value=params.get('cpu_cfs_quota_period'))
            if not 1000 <= self.cpu_period <= 1000000:
                raise KubenodeError('cpuCFSQuotaPeriod must be between 1ms and 1sec, inclusive',
                                    field='cpu_cfs_quota_period', value=params.get('cpu_cfs_quota_period'))

    def _memory_settings(self, params: Mapping[str, Any]) -> None:
        """memory.high's factor, the page size, pids, the node's memory and the memory reservation policy."""
        factor = params.get('memory_throttling_factor')
        if factor is None:
            factor = self.rules.default_memory_throttling_factor
        if factor is not None and (isinstance(factor, bool) or not isinstance(factor, (int, float))
                                   or not 0 < factor <= 1):
            raise KubenodeError('invalid configuration: memoryThrottlingFactor %s must be greater than 0 and less than '
                                'or equal to 1.0' % factor, field='memory_throttling_factor', value=factor)
        # None from 1.37 unless set: no memory.high.
        self.memory_throttling_factor = None if factor is None else float(factor)
        self.page_size = params.get('page_size') or 4096
        if isinstance(self.page_size, bool) or not isinstance(self.page_size, int) or self.page_size <= 0 \
                or self.page_size & (self.page_size - 1):
            raise KubenodeError('must be a memory page size: a power of two number of bytes, such as 4096',
                                field='page_size', value=self.page_size)
        self.pod_pids_limit = params.get('pod_pids_limit')
        self.memory_capacity = _optional_bytes(params.get('memory_capacity'), 'memory_capacity')
        self.allocatable_memory = _optional_bytes(params.get('allocatable_memory'), 'allocatable_memory')
        if self.allocatable_memory is None:
            self.allocatable_memory = self.memory_capacity
        self.policy = memory_reservation_policy(params.get('memory_reservation_policy'), self.rules,
                                                self.rules.gate(self.gates, 'MemoryQoS'))
        self.qos_reserved = parse_qos_reserved(params.get('qos_reserved'), self.gates)

    def _node_settings(self, params: Mapping[str, Any]) -> None:
        """The driver, the cgroup root, the cgroup version and MemoryQoS on it."""
        # kubelet's driver and cgroup root, checked as the node plan checks them (_cgroup_names).
        self.driver = names.checked_driver(params.get('cgroup_driver') or 'cgroupfs')
        self.cgroup_root = names.checked_cgroup_root(params.get('cgroup_root') or '/')
        self.api_defaults = bool(params.get('api_defaults'))
        mode = params.get('cgroup_mode') or params.get('cgroup_version') or 'v2'
        if mode not in ('v1', 'v2', 'hybrid'):
            raise KubenodeError('must be "v1", "v2" or "hybrid"', field='cgroup_mode', value=mode)
        # kubelet writes v1 files on a hybrid host: the unified hierarchy holds no controllers there.
        self.cgroup_version = file_version(mode)
        # kuberuntime and the QoS manager enforce MemoryQoS only on cgroup v2 (isCgroup2UnifiedMode).
        self.memory_qos = self.rules.gate(self.gates, 'MemoryQoS') and self.cgroup_version == 'v2'
        self.memory_qos_cleared = self.rules.clears_memory_qos_when_off and self.cgroup_version == 'v2' \
            and not self.memory_qos

    def _cpu_manager_settings(self, params: Mapping[str, Any]) -> None:
        """The CPU manager policy and what it changes in the pods' CPU limits."""
        self.cpu_manager_policy = params.get('cpu_manager_policy') or 'none'
        if self.cpu_manager_policy not in ('none', 'static'):
            raise KubenodeError('must be "none" or "static"', field='cpu_manager_policy',
                                value=self.cpu_manager_policy)
        # kuberuntime and the pod container manager: no CFS quota where the static policy gives exclusive CPUs.
        self.quota_off_with_exclusive_cpus = self.cpu_manager_policy == 'static' and self.rules.gate(
            self.gates, 'DisableCPUQuotaWithExclusiveCPUs')
        self.pod_level_resource_managers = self.rules.gate(self.gates, 'PodLevelResourceManagers')
        # InPlacePodVerticalScaling: beta and on from 1.33, GA in 1.35; a pod's allocation can differ from its spec.
        self.in_place_resize = self.rules.gate(self.gates, 'InPlacePodVerticalScaling')

    def _oom_settings(self, single_process_oom_kill: bool | None) -> None:
        """Whether containers get memory.oom.group=1 (kubelet.go: singleProcessOOMKill, false by default on cgroup
        v2 and always true on v1; validation_linux.go refuses an explicit false on v1)."""
        if single_process_oom_kill is not None and not self.rules.has_single_process_oom_kill:
            raise KubenodeError('singleProcessOOMKill exists only from kubelet 1.32', field='single_process_oom_kill',
                                value=single_process_oom_kill)
        if single_process_oom_kill is False and self.cgroup_version == 'v1':
            raise KubenodeError('invalid configuration: singleProcessOOMKill must not be explicitly set to false when '
                                'using cgroup v1', field='single_process_oom_kill', value=False)
        self.memory_oom_group = (self.cgroup_version == 'v2' and self.rules.sets_memory_oom_group
                                 and not single_process_oom_kill)

    def _swap_settings(self, params: Mapping[str, Any]) -> None:
        """memorySwap.swapBehavior as kubelet validates it, and what the swap limit formula needs."""
        self.node_swap, self.swap_behavior = swap_setting(params.get('swap_behavior'), self.gates, self.rules)
        controller = params.get('swap_controller')
        self.swap_controller = True if controller is None else bool(controller)
        self.swap_capacity = _optional_bytes(params.get('swap_capacity'), 'swap_capacity', zero_allowed=True)
        if self.swap_behavior == LIMITED_SWAP and self.cgroup_version == 'v2' and self.swap_controller:
            if self.swap_capacity is None:
                raise KubenodeError('LimitedSwap gives each Burstable container a share of the swap space: give '
                                    'swap_capacity (SwapTotal of /proc/meminfo, as cgroup_info reports it)',
                                    field='swap_capacity', value=None)
            if self.memory_capacity is None:
                raise KubenodeError('LimitedSwap divides the swap space by the node memory capacity: give '
                                    'memory_capacity', field='memory_capacity', value=None)

    def pod_level_set(self, pod: Any) -> bool:
        """Whether kubelet takes the pod's pod-level resources: the gate on and IsPodLevelResourcesSet."""
        return self.pod_level and pod_level_resources_set(pod, self.rules.pod_level_hugepages)

    def memory_rules(self) -> MemoryRules:
        return MemoryRules(self.memory_qos, self.policy, self.qos_reserved, self.memory_qos_cleared)

    def pod_memory_protection(self, qos: str, request: int) -> tuple[int | None, int | None]:
        """(memory.min, memory.low) ResourceConfigForPod writes to the pod cgroup with MemoryQoS enforced: the pod's
        memory request as memory.min before 1.36; from 1.36 only under TieredReservation, as memory.min for a
        Guaranteed pod and memory.low for the others; nothing without a request."""
        if not self.memory_qos or request <= 0:
            return None, None
        if self.policy is None:
            return request, None
        if self.policy != 'TieredReservation':
            return None, None
        return (request, None) if qos == GUARANTEED else (None, request)

    def container_memory_protection(self, qos: str, request: int) -> tuple[int | None, int | None]:
        """(memory.min, memory.low) kuberuntime's generateLinuxContainerResources sends for a container with MemoryQoS
        enforced: its memory request as memory.min before 1.36 (nothing without one); from 1.36, under
        TieredReservation and with a request, memory.min for a Guaranteed pod's container and memory.low for the
        others', and otherwise both 0 - sent for every container, request or not."""
        if not self.memory_qos:
            return None, None
        if self.policy is None:
            return (request, None) if request > 0 else (None, None)
        if request > 0 and self.policy == 'TieredReservation':
            return (request, None) if qos == GUARANTEED else (None, request)
        return 0, 0


_KERNEL_PAGE_SIZE = re.compile(r'^(?:hugepages-)?([0-9]+)kB$')


def _hugepage_sizes(sizes: Any, field: str = 'hugepage_sizes') -> list[int]:
    """The node's hugepage sizes in bytes, from quantities ("2Mi"), hugepages-* resource names, or the kernel's
    directory names under /sys/kernel/mm/hugepages ("hugepages-2048kB")."""
    if sizes is None:
        return []
    if not isinstance(sizes, list):
        raise KubenodeError('must be a list of page sizes such as ["2Mi", "1Gi"]', field=field, value=sizes)
    result: set[int] = set()
    for index, size in enumerate(sizes):
        item = '%s[%d]' % (field, index)
        kernel = _KERNEL_PAGE_SIZE.match(size) if isinstance(size, str) else None
        if kernel:
            # What `ls /sys/kernel/mm/hugepages` prints (hugepages-2048kB), or its size alone (2048kB).
            size_bytes = int(kernel.group(1)) * 1024
            if not size_bytes:
                raise KubenodeError('must be a positive page size such as "2Mi"', field=item, value=size)
            result.add(size_bytes)
            cgmath.hugepage_unit(size_bytes, item)
            continue
        name = size if isinstance(size, str) and is_hugepages(size) else 'hugepages-%s' % size
        try:
            size_bytes = hugepage_size_bytes(name, item)
        except KubenodeError as error:
            raise KubenodeError('must be a positive page size such as "2Mi" (%s)' % error.message, field=item,
                                value=size)
        result.add(size_bytes)
        cgmath.hugepage_unit(size_bytes, item)
    return sorted(result)


def _optional_bytes(value: Any, field: str, zero_allowed: bool = False) -> int | None:
    """A byte count of the node (cadvisor's MachineInfo), which kubelet converts with int64(): above
    2^63-1 it would turn negative there, so it is refused here. zero_allowed: a node without swap has 0."""
    if value is None:
        return None
    quantity = parse_quantity(value, field)
    if quantity.sign() < 0 or quantity.is_zero() and not zero_allowed:
        raise KubenodeError('must be a %s quantity' % ('non-negative' if zero_allowed else 'positive'), field=field,
                            value=value)
    if quantity.value() > MAX_INT64:
        raise KubenodeError('must be at most %d bytes: kubelet converts it with int64()' % MAX_INT64, field=field,
                            value=value)
    return quantity.value()
