# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pod and container cgroup values: what kubelet and the OCI runtime write for each pod.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Sources: kubernetes component-helpers resource/helpers.go (PodRequests, PodLimits),
pkg/apis/core/v1/helper/qos (ComputePodQOS), pkg/kubelet/cm/helpers_linux.go
(ResourceConfigForPod), pkg/kubelet/kuberuntime/kuberuntime_container_linux.go,
pkg/kubelet/qos/policy.go (GetContainerOOMScoreAdjust), pkg/kubelet/types (IsNodeCriticalPod).

Pods are taken as the API server stores them: kubelet does not copy limits into missing
requests. Set api_defaults to apply that API-server defaulting to bare specs first.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import math
from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PodRequests, kubepods_memory_qos, qos_tiers
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import (
    BESTEFFORT, BURSTABLE, GUARANTEED, LIMITED_SWAP, NO_SWAP, POD_LEVEL_RESOURCES, PodSettings, pod_level_resource,
    pod_level_resources_set)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import Quantity, parse_quantity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import ResourceList, hugepage_size_bytes, is_hugepages
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules

# A container's (init, name) to the (requests, limits or None) its status reports as allocated.
StatusResources = dict[tuple[bool, str], tuple[ResourceList, 'ResourceList | None']]
# Called with each container's values as the aggregation takes them (kubelet's containerFn).
ContainerFn = Callable[[ResourceList], None]

GUARANTEED_OOM_SCORE_ADJ = -997
BESTEFFORT_OOM_SCORE_ADJ = 1000
SYSTEM_CRITICAL_PRIORITY = 2000000000
_CLASS_PRIORITIES = {'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000}
_QOS_RESOURCES = ('cpu', 'memory')


class Container(object):
    __slots__ = ('name', 'requests', 'limits', 'sidecar', 'init')

    def __init__(self, name: str, requests: ResourceList, limits: ResourceList, sidecar: bool, init: bool) -> None:
        self.name, self.requests, self.limits, self.sidecar, self.init = name, requests, limits, sidecar, init


class Pod(object):
    __slots__ = ('name', 'namespace', 'uid', 'containers', 'init_containers', 'overhead', 'requests', 'limits',
                 'has_pod_resources', 'priority', 'priority_given', 'priority_class_name', 'annotations', 'status_qos',
                 'resize', 'status_resources')
    name: str
    namespace: str
    uid: str
    containers: list[Container]
    init_containers: list[Container]
    overhead: ResourceList
    requests: ResourceList
    limits: ResourceList
    has_pod_resources: bool
    priority: int
    priority_given: bool
    priority_class_name: str
    annotations: Mapping[str, Any]
    status_qos: str | None
    resize: dict[str, str] | None
    status_resources: StatusResources


def _resource_list(value: object, field: str) -> ResourceList:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise KubenodeError('must be a mapping of resource name to quantity', field=field, value=value)
    return dict((str(k), parse_quantity(v, '%s.%s' % (field, k))) for k, v in value.items())


def _container(data: object, field: str, init: bool, api_defaults: bool) -> Container:
    if not isinstance(data, dict):
        raise KubenodeError('must be a container mapping', field=field, value=data)
    resources = data.get('resources') or {}
    requests = _resource_list(resources.get('requests'), field + '.resources.requests')
    limits = _resource_list(resources.get('limits'), field + '.resources.limits')
    if api_defaults:
        for name, value in limits.items():
            requests.setdefault(name, value)
    return Container(data.get('name') or '', requests, limits, init and data.get('restartPolicy') == 'Always', init)


def _validate_resources(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity], field: str) -> None:
    """ValidateResourceRequirements: no negative quantity, no request above its limit."""
    for kind, values in (('requests', requests), ('limits', limits)):
        for name, value in sorted(values.items()):
            if value.sign() < 0:
                raise KubenodeError('%s.%s[%s]: Invalid value: "%s": must be greater than or equal to 0'
                                    % (field, kind, name, value), field='%s.%s.%s' % (field, kind, name), value=str(value))
    for name, request in sorted(requests.items()):
        limit = limits.get(name)
        if limit is not None and request.cmp(limit) > 0:
            raise KubenodeError('%s.requests: Invalid value: "%s": must be less than or equal to %s limit of %s'
                                % (field, request, name, limit), field='%s.requests.%s' % (field, name),
                                value=str(request))


def _validate_like_the_api_server(pod: Pod, spec_field: str) -> None:
    """What the API server refuses never reaches a node, so it gets no plan either."""
    if not pod.containers:
        raise KubenodeError('%s.containers: Required value' % spec_field, field=spec_field + '.containers', value=[])
    for index, container in enumerate(pod.containers):
        _validate_resources(container.requests, container.limits,
                            '%s.containers[%d].resources' % (spec_field, index))
    for index, container in enumerate(pod.init_containers):
        _validate_resources(container.requests, container.limits,
                            '%s.initContainers[%d].resources' % (spec_field, index))
    if pod.has_pod_resources:
        _validate_resources(pod.requests, pod.limits, spec_field + '.resources')


def parse_pod(data: object, field: str, api_defaults: bool = False) -> Pod:
    """A Pod (as kubectl get -o json gives it) or a bare PodSpec."""
    if not isinstance(data, dict):
        raise KubenodeError('must be a Pod object or a pod spec', field=field, value=data)
    spec = data['spec'] if isinstance(data.get('spec'), dict) else data
    spec_field = field + '.spec' if spec is not data else field
    metadata = data.get('metadata') or {}
    pod = Pod()
    pod.name = metadata.get('name') or ''
    pod.namespace = metadata.get('namespace') or ''
    pod.uid = str(metadata.get('uid') or '')
    pod.annotations = metadata.get('annotations') or {}
    pod.containers = [_container(c, '%s.containers[%d]' % (spec_field, i), False, api_defaults)
                      for i, c in enumerate(spec.get('containers') or [])]
    pod.init_containers = [_container(c, '%s.initContainers[%d]' % (spec_field, i), True, api_defaults)
                           for i, c in enumerate(spec.get('initContainers') or [])]
    pod.overhead = _resource_list(spec.get('overhead'), spec_field + '.overhead')
    pod_resources = spec.get('resources')
    pod.has_pod_resources = isinstance(pod_resources, dict)
    pod_resources = pod_resources or {}
    pod.requests = _resource_list(pod_resources.get('requests'), spec_field + '.resources.requests')
    pod.limits = _resource_list(pod_resources.get('limits'), spec_field + '.resources.limits')
    if api_defaults:
        for name, value in pod.limits.items():
            if name in POD_LEVEL_RESOURCES:
                pod.requests.setdefault(name, value)
    _validate_like_the_api_server(pod, spec_field)
    pod.priority_class_name = spec.get('priorityClassName') or ''
    priority = spec.get('priority')
    # spec.priority unset (a static pod: no API server admitted it) matters to kubelet's preemption.
    pod.priority_given = priority is not None
    if priority is None:
        # The Priority admission plugin fills this in from the class before kubelet sees the pod.
        priority = _CLASS_PRIORITIES.get(pod.priority_class_name, 0)
    pod.priority = int(priority)
    status = data.get('status') if spec is not data else None
    status = status if isinstance(status, dict) else {}
    pod.status_qos = status.get('qosClass') or None
    pod.resize = _resize_state(status)
    pod.status_resources = {}
    for init, key in ((False, 'containerStatuses'), (True, 'initContainerStatuses')):
        for index, container_status in enumerate(status.get(key) or []):
            found = _status_resources(container_status, '%s.status.%s[%d]' % (field, key, index))
            if found is not None:
                pod.status_resources[(init, container_status.get('name') or '')] = found
    return pod


def _resize_state(status: Mapping[str, Any]) -> dict[str, str] | None:
    """{state: pending or in_progress, reason, message} of an in-place resize, or None: the PodResizePending and
    PodResizeInProgress conditions (kubelet 1.33 and later), else status.resize (before)."""
    for condition in status.get('conditions') or []:
        if not isinstance(condition, dict) or str(condition.get('status')) != 'True':
            continue
        state = {'PodResizePending': 'pending', 'PodResizeInProgress': 'in_progress'}.get(str(condition.get('type')))
        if state:
            return {'state': state, 'reason': condition.get('reason') or '', 'message': condition.get('message') or ''}
    legacy = status.get('resize')
    if legacy in ('Proposed', 'Deferred', 'Infeasible'):
        return {'state': 'pending', 'reason': legacy, 'message': ''}
    if legacy == 'InProgress':
        return {'state': 'in_progress', 'reason': '', 'message': ''}
    return None


def _status_resources(container_status: object, field: str) -> tuple[ResourceList, ResourceList | None] | None:
    """(requests, limits or None) a container status reports as allocated: resources (what the runtime was
    given), else allocatedResources (requests only, kubelet 1.27 to 1.32); None when it reports neither."""
    if not isinstance(container_status, dict):
        raise KubenodeError('must be a container status mapping', field=field, value=container_status)
    resources = container_status.get('resources')
    if isinstance(resources, dict) and (resources.get('requests') or resources.get('limits')):
        return (_resource_list(resources.get('requests'), field + '.resources.requests'),
                _resource_list(resources.get('limits'), field + '.resources.limits'))
    if container_status.get('allocatedResources'):
        return _resource_list(container_status['allocatedResources'], field + '.allocatedResources'), None
    return None


def _add(target: ResourceList, source: Mapping[str, Quantity]) -> None:
    for name, value in source.items():
        target[name] = target[name].add(value) if name in target else value


def _max_into(target: ResourceList, source: Mapping[str, Quantity]) -> None:
    for name, value in source.items():
        if name not in target or value.cmp(target[name]) > 0:
            target[name] = value


def aggregate_containers(pod: Pod, which: str, container_fn: ContainerFn | None = None) -> ResourceList:
    """AggregateContainerRequests / AggregateContainerLimits, sidecar rules included."""
    total: ResourceList = {}
    for container in pod.containers:
        values = getattr(container, which)
        if container_fn:
            container_fn(values)
        _add(total, values)
    sidecars: ResourceList = {}
    init_max: ResourceList = {}
    for container in pod.init_containers:
        values = getattr(container, which)
        if container.sidecar:
            _add(total, values)
            _add(sidecars, values)
            values = dict(sidecars)
        else:
            combined: ResourceList = {}
            _add(combined, values)
            _add(combined, sidecars)
            values = combined
        if container_fn:
            container_fn(values)
        _max_into(init_max, values)
    _max_into(total, init_max)
    return total


def pod_level_requests_set(pod: Pod, hugepages: bool = False) -> bool:
    return any(pod_level_resource(name, hugepages) for name in pod.requests)


def pod_requests(pod: Pod, pod_level: bool, exclude_overhead: bool = False, hugepages: bool = False) -> ResourceList:
    requests = aggregate_containers(pod, 'requests')
    if pod_level and pod_level_requests_set(pod, hugepages):
        for name, value in pod.requests.items():
            if pod_level_resource(name, hugepages):
                requests[name] = value
    if not exclude_overhead:
        _add(requests, pod.overhead)
    return requests


def pod_limits(pod: Pod, pod_level: bool, container_fn: ContainerFn | None = None, hugepages: bool = False) -> ResourceList:
    limits = aggregate_containers(pod, 'limits', container_fn)
    if pod_level and pod_level_resources_set(pod, hugepages):
        for name, value in pod.limits.items():
            if name in POD_LEVEL_RESOURCES:
                limits[name] = value
    for name, value in pod.overhead.items():
        if name in limits:  # overhead only raises limits that are set
            limits[name] = limits[name].add(value)
    return limits


def _positive(resources: Mapping[str, Quantity]) -> ResourceList:
    return dict((n, q) for n, q in resources.items() if n in _QOS_RESOURCES and q.sign() > 0)


def qos_class(pod: Pod, pod_level: bool, only_set_pod_level: bool = False) -> str:
    """GetPodQOS: status.qosClass when the pod has one, else ComputePodQOS. only_set_pod_level: the
    PodLevelResourcesFixKubeletQOSClass gate (kubelet 1.37): empty pod-level resources ({}) leave the QoS class to
    the containers."""
    if pod.status_qos:
        return pod.status_qos
    requests: ResourceList = {}
    limits: ResourceList = {}
    guaranteed = True
    if pod_level and pod.has_pod_resources and (not only_set_pod_level or pod_level_resources_set(pod, True)):
        _add(requests, _positive(pod.requests))
        if pod.limits:
            positive_limits = _positive(pod.limits)
            _add(limits, positive_limits)
            if not set(_QOS_RESOURCES) <= set(positive_limits):
                guaranteed = False
        else:
            guaranteed = False
    else:
        for container in pod.containers + pod.init_containers:
            _add(requests, _positive(container.requests))
            container_limits = _positive(container.limits)
            _add(limits, container_limits)
            if not set(_QOS_RESOURCES) <= set(container_limits):
                guaranteed = False
    if not requests and not limits:
        return BESTEFFORT
    if guaranteed:
        for name, request in requests.items():
            if name not in limits or limits[name].cmp(request) != 0:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


def container_hugetlb(pod: Pod, container: Container, settings: PodSettings) -> dict[int, int]:
    """GetHugepageLimitsFromResources: {page size bytes: limit} - 0 for every page size of the node, then from kubelet
    1.34 (PR #131089) the pod's pod-level hugepage limits, then the container's own limits over those, size by size;
    a size the node does not have is dropped."""
    required = {}
    if settings.rules.pod_level_hugepages_to_containers and settings.pod_level_set(pod):
        required.update(_named_hugepage_limits(pod.limits))
    required.update(_named_hugepage_limits(container.limits))
    return dict((size, required.get(size, 0)) for size in settings.hugepage_sizes)


def _named_hugepage_limits(resources: Mapping[str, Quantity], summed: bool = False) -> dict[int, int]:
    """{page size bytes: limit} of the hugepages-* resources whose size kubelet can read: a name it cannot
    ("hugepages-2MB") is skipped, as GetHugepageLimitsFromResources skips it (and the cgroup manager skips the
    pod's). summed: two names of one size add up (HugePageLimits), else the last one counts."""
    limits: dict[int, int] = {}
    for name, value in resources.items():
        if not is_hugepages(name):
            continue
        try:
            size = hugepage_size_bytes(name)
            cgmath.hugepage_unit(size)
        except KubenodeError:
            continue
        limits[size] = value.value() + (limits.get(size, 0) if summed else 0)
    return limits


def exclusive_cpus(pod: Pod, container: Container, qos: str, settings: PodSettings) -> int:
    """The CPUs the static CPU manager policy gives the container for itself (policy_static.go's Allocate and
    guaranteedCPUs): an integer CPU request in a Guaranteed pod; none for a pod with pod-level resources unless the
    release's pod-level resource managers take it (static_policy_skips_pod_level); with those, only a container whose
    own requests equal its limits (cpu and memory)."""
    if settings.cpu_manager_policy != 'static' or qos != GUARANTEED:
        return 0
    pod_level_set = pod_level_resources_set(pod, settings.rules.pod_level_hugepages)
    skips = settings.rules.static_policy_skips_pod_level
    if pod_level_set and (skips == 'with-gate' and settings.pod_level or skips == 'unless-managers' and not (
            settings.pod_level and settings.pod_level_resource_managers)):
        return 0
    if settings.pod_level and settings.pod_level_resource_managers and pod_level_set:
        for name in ('cpu', 'memory'):
            request, limit = container.requests.get(name), container.limits.get(name)
            if request is None or limit is None or request.nano != limit.nano:
                return 0
    cpu = container.requests.get('cpu')
    if cpu is None or cpu.value() * 1000 != cpu.milli_value():
        return 0
    return cpu.value()


def pod_has_exclusive_cpus(pod: Pod, qos: str, settings: PodSettings) -> bool:
    """podHasExclusiveCPUs: any container of the pod with exclusive CPUs, regular init containers included - the pod
    cgroup is made when every container of the pod was admitted, theirs too."""
    return any(exclusive_cpus(pod, c, qos, settings) for c in pod.init_containers + pod.containers)


def resource_config_for_pod(pod: Pod, settings: PodSettings,
                            enforce_cpu_limits: bool | None = None) -> tuple[str, ResourceList, dict[str, Any]]:
    """ResourceConfigForPod: the values kubelet writes to the pod cgroup."""
    enforce_cpu_limits = settings.cpu_cfs_quota if enforce_cpu_limits is None else enforce_cpu_limits
    declared = {'cpu': True, 'memory': True}

    def note_limits(limits: Mapping[str, Quantity]) -> None:
        for name in declared:
            if name not in limits or limits[name].is_zero():
                declared[name] = False

    requests = pod_requests(pod, settings.pod_level, hugepages=settings.rules.pod_level_hugepages)
    if settings.rules.limits_declared_by_every_container:
        # 1.37: every init and app container's own limits (podutil.ContainerIter), not the aggregation's callback.
        limits = pod_limits(pod, settings.pod_level, hugepages=settings.rules.pod_level_hugepages)
        for container in pod.init_containers + pod.containers:
            note_limits(container.limits)
    else:
        limits = pod_limits(pod, settings.pod_level, note_limits, settings.rules.pod_level_hugepages)
    if settings.pod_level_set(pod):
        for name in declared:
            if name in pod.limits and not pod.limits[name].is_zero():
                declared[name] = True
    cpu_requests = requests['cpu'].milli_value() if 'cpu' in requests else 0
    cpu_limits = limits['cpu'].milli_value() if 'cpu' in limits else 0
    memory_limits = limits['memory'].value() if 'memory' in limits else 0
    shares = cgmath.milli_cpu_to_shares(cpu_requests)
    quota = cgmath.milli_cpu_to_quota(cpu_limits, settings.cpu_period, settings.custom_period)
    if not enforce_cpu_limits:
        quota = -1
    qos = qos_class(pod, settings.pod_level, settings.only_set_pod_level)
    config: dict[str, Any] = {}
    if qos == GUARANTEED:
        config.update(cpu_shares=shares, cpu_quota=quota, cpu_period=settings.cpu_period, memory=memory_limits)
    elif qos == BURSTABLE:
        config['cpu_shares'] = shares
        if declared['cpu']:
            config.update(cpu_quota=quota, cpu_period=settings.cpu_period)
        if declared['memory']:
            config['memory'] = memory_limits
    else:
        config['cpu_shares'] = cgmath.MIN_SHARES
    config['hugetlb'] = _named_hugepage_limits(requests, summed=True)
    memory_request = requests['memory'].value() if 'memory' in requests else 0
    memory_min, memory_low = settings.pod_memory_protection(qos, memory_request)
    if memory_min is not None:
        config['memory_min'] = memory_min
    if memory_low is not None:
        config['memory_low'] = memory_low
    if settings.pod_pids_limit is not None and settings.pod_pids_limit > 0:
        config['pids'] = settings.pod_pids_limit
    return qos, requests, config


def is_critical(pod: Pod) -> bool:
    """types.IsCriticalPod: a static or mirror pod, or priority at least system-cluster-critical."""
    source = pod.annotations.get('kubernetes.io/config.source')
    static = source is not None and source != 'api'
    return static or 'kubernetes.io/config.mirror' in pod.annotations or pod.priority >= SYSTEM_CRITICAL_PRIORITY


def is_node_critical(pod: Pod) -> bool:
    """types.IsNodeCriticalPod: critical (static, mirror or priority) and system-node-critical."""
    return is_critical(pod) and pod.priority_class_name == 'system-node-critical'


def _memory_request(container: Container) -> int:
    request = container.requests.get('memory')
    return request.value() if request is not None else 0


def oom_score_adj(pod: Pod, container: Container, memory_capacity: int | None, qos: str, pod_level: bool,
                  rules: KubeletRules) -> int | None:
    """GetContainerOOMScoreAdjust."""
    if is_node_critical(pod) or qos == GUARANTEED:
        return GUARANTEED_OOM_SCORE_ADJ
    if qos == BESTEFFORT:
        return BESTEFFORT_OOM_SCORE_ADJ
    if not memory_capacity:
        return None  # the Burstable formula divides by the node's memory capacity
    request = _memory_request(container)
    remaining = 0
    if pod_level and pod_level_requests_set(pod, rules.pod_level_hugepages):
        remaining = _remaining_pod_memory_per_container(pod, rules)
    adjust = 1000 - cgmath.go_div(1000 * (request + remaining), memory_capacity)
    if container.sidecar and rules.sidecar_oom_score_capped:
        regular = [_memory_request(c) for c in pod.containers]
        minimum = (min(regular) if regular else 0) + remaining
        adjust = min(adjust, 1000 - cgmath.go_div(1000 * minimum, memory_capacity))
    if adjust < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ
    if adjust == BESTEFFORT_OOM_SCORE_ADJ:
        return adjust - 1
    return adjust


def _remaining_pod_memory_per_container(pod: Pod, rules: KubeletRules) -> int:
    """remainingPodMemReqPerContainer: the pod-level memory request the containers do not request, shared out; never
    below 0 from 1.37."""
    pod_memory = pod.requests.get('memory')
    if pod_memory is None or pod_memory.is_zero():
        return 0
    containers = len(pod.containers) + len(pod.init_containers)
    aggregated = aggregate_containers(pod, 'requests').get('memory')
    remaining = pod_memory.value() - (aggregated.value() if aggregated is not None else 0)
    if rules.remaining_pod_memory_clamped:
        remaining = max(remaining, 0)
    return cgmath.go_div(remaining, containers) if containers else 0


def _effective_limit(pod: Pod, container: Container, name: str, settings: PodSettings) -> Quantity | None:
    limit = container.limits.get(name)
    if (limit is None or limit.is_zero()) and settings.pod_level and any(n in POD_LEVEL_RESOURCES for n in pod.limits):
        limit = pod.limits.get(name)
    return limit


def memory_high(pod: Pod, container: Container, request: int, settings: PodSettings) -> int | str | None:
    """MemoryQoS memory.high for a container (kuberuntime's generateLinuxContainerResources), 'max' where kubelet
    clears it, or None when kubelet sends none. The container's own memory limit counts, never a pod-level one
    passed down: without its own limit the ceiling is the node's allocatable memory."""
    if not settings.memory_qos:
        return 'max' if settings.memory_qos_cleared else None
    factor = settings.memory_throttling_factor
    if factor is None:
        return None
    own_limit = container.limits.get('memory')
    limit = own_limit.value() if own_limit is not None else 0
    # Guaranteed containers (request = limit) are never throttled; from 1.37 a container with neither is.
    if request == limit and not (request == 0 and settings.rules.memory_high_without_request):
        return None
    if limit == 0 and settings.rules.pod_level_memory_high and settings.pod_level_set(pod) \
            and not _is_zero(pod.limits.get('memory')):
        return None  # skipContainerMemoryHigh: the pod cgroup's memory.high throttles it
    ceiling = limit or settings.allocatable_memory or 0
    if not ceiling:
        return None
    if settings.rules.memory_high_interpolates:
        page = settings.page_size
        high = int(math.floor((float(request) + (float(ceiling) - float(request)) * factor) / float(page))) * page
        return high if high != 0 and high > request else None
    high = int(float(ceiling) * factor)
    return high if high > request else None


def _is_zero(quantity: Quantity | None) -> bool:
    return quantity is None or quantity.is_zero()


def container_swap_behavior(pod: Pod, container: Container, qos: str, settings: PodSettings) -> str:
    """GetContainerSwapBehavior: LimitedSwap only for a Burstable, non-critical container on cgroup v2."""
    if settings.swap_behavior != LIMITED_SWAP or not settings.node_swap or not settings.swap_controller:
        return NO_SWAP
    if settings.cgroup_version != 'v2':
        return NO_SWAP
    if settings.rules.critical_pods_never_swap and is_critical(pod):
        return NO_SWAP
    # Quantity.Cmp and IsZero: exact, not the byte counts Value() rounds to (1000500m and 1001 differ).
    request = container.requests.get('memory')
    limit = container.limits.get('memory')
    request_nano = request.nano if request is not None else 0
    limit_nano = limit.nano if limit is not None else 0
    no_memory = request_nano == 0 and limit_nano == 0
    if qos != BURSTABLE or no_memory or request_nano == limit_nano:
        return NO_SWAP
    return LIMITED_SWAP


def container_swap(pod: Pod, container: Container, qos: str, settings: PodSettings,
                   memory_limit: int) -> tuple[str | None, int | None, int | None]:
    """configureContainerSwapResources: (behaviour, memory.swap.max on v2, memsw limit on v1).

    Nothing is written without the swap controller (kubelet checks memory.swap.max in its own cgroup
    on v2, memory.memsw.limit_in_bytes on v1), nor by kubelet releases before 1.30 (not modelled).
    """
    if not settings.swap_controller or not settings.rules.has_no_swap_behavior:
        return None, None, None
    behavior = container_swap_behavior(pod, container, qos, settings)
    if settings.cgroup_version == 'v1':
        # memsw = memory limit: no swap above the limit (the kernel ignores it without a limit).
        return behavior, None, memory_limit or None
    if behavior == NO_SWAP:
        return behavior, 0, None
    request = _memory_request(container)
    capacity = settings.memory_capacity or 0  # given with LimitedSwap on v2 (PodSettings)
    if capacity <= 0 or request > capacity:
        return NO_SWAP, 0, None  # calcSwapForBurstablePods refuses; kubelet falls back to no swap
    return behavior, int(float(request) / float(capacity) * float(settings.swap_capacity or 0)), None


def container_values(pod: Pod, container: Container, qos: str, settings: PodSettings) -> dict[str, Any]:
    """What kubelet sends over CRI for a container (the runtime writes it) plus oom_score_adj."""
    cpu_request = container.requests.get('cpu')
    cpu_limit = _effective_limit(pod, container, 'cpu', settings)
    memory_limit = _effective_limit(pod, container, 'memory', settings)
    if cpu_request is None and cpu_limit is not None:
        shares = cgmath.milli_cpu_to_shares(cpu_limit.milli_value())
    else:
        shares = cgmath.milli_cpu_to_shares(cpu_request.milli_value() if cpu_request is not None else 0)
    limit_bytes = memory_limit.value() if memory_limit is not None else 0
    values: dict[str, Any] = {
        'name': container.name,
        'init': container.init,
        'sidecar': container.sidecar,
        'cpu_shares': shares,
        'cpu_weight': {'linear': cgmath.linear_weight(shares), 'quadratic': cgmath.quadratic_weight(shares)},
        'memory_limit': limit_bytes or None,
        'cpu_quota': None,
        'cpu_period': None,
    }
    if settings.oci_runtime:
        # What the container's cpu.weight holds on cgroup v2: the runtime converts the shares kubelet sends.
        values['cpu_weight']['runtime'] = cgmath.shares_to_weight(shares, settings.oci_runtime['formula'])
    values['hugetlb'] = dict((cgmath.hugepage_unit(size), limit)
                             for size, limit in sorted(container_hugetlb(pod, container, settings).items()))
    values['exclusive_cpus'] = exclusive_cpus(pod, container, qos, settings)
    if settings.cpu_cfs_quota:
        period = settings.cpu_period if settings.custom_period else cgmath.QUOTA_PERIOD_US
        values['cpu_period'] = period
        values['cpu_quota'] = cgmath.container_milli_cpu_to_quota(
            cpu_limit.milli_value() if cpu_limit is not None else 0, period)
        if values['exclusive_cpus'] and settings.quota_off_with_exclusive_cpus:
            values['cpu_quota'] = -1  # calculateLinuxResources: disableCPUQuota
    request_bytes = _memory_request(container)
    memory_min, memory_low = settings.container_memory_protection(qos, request_bytes)
    values['memory_min'] = memory_min
    values['memory_low'] = memory_low
    values['memory_high'] = memory_high(pod, container, request_bytes, settings)
    values['oom_score_adj'] = oom_score_adj(pod, container, settings.memory_capacity, qos, settings.pod_level,
                                            settings.rules)
    # calculateLinuxResources: the kernel kills the container's processes together on an OOM.
    values['memory_oom_group'] = 1 if settings.memory_oom_group else None
    values['swap_behavior'], values['memory_swap_max'], values['memory_memsw_limit'] = container_swap(
        pod, container, qos, settings, limit_bytes)
    return values


def pod_values(pod: Pod, settings: PodSettings) -> tuple[str, ResourceList, dict[str, Any]]:
    """(QoS class, requests, the pod's entry values): what kubelet writes to the pod cgroup and sends for each
    container, for a pod as kubelet's allocation has it."""
    qos = qos_class(pod, settings.pod_level, settings.only_set_pod_level)
    # The pod container manager turns its CPU limit off for a pod with exclusive CPUs.
    enforce = settings.cpu_cfs_quota and not (
        settings.quota_off_with_exclusive_cpus and pod_has_exclusive_cpus(pod, qos, settings))
    qos, requests, config = resource_config_for_pod(pod, settings, enforce)
    values, rendered = cgmath.cgroup_values(config, settings.hugepage_sizes)
    entry: dict[str, Any] = {'resources': values}
    entry.update(rendered)
    entry['containers'] = [container_values(pod, c, qos, settings) for c in pod.init_containers + pod.containers]
    return qos, requests, entry


def allocated_pod(pod: Pod, settings: PodSettings) -> Pod:
    """UpdatePodFromAllocation: the pod with the resources kubelet allocated, which its cgroups are built from.
    With in-place resize, a resize not yet admitted (pending) leaves the allocation where it was: the
    resources the containers' statuses report. Otherwise the allocation is the spec."""
    if not settings.in_place_resize or not pod.resize or pod.resize['state'] != 'pending':
        return pod
    allocated = Pod()
    for name in Pod.__slots__:
        setattr(allocated, name, getattr(pod, name))
    allocated.containers = [_allocated_container(c, pod.status_resources) for c in pod.containers]
    allocated.init_containers = [_allocated_container(c, pod.status_resources) for c in pod.init_containers]
    return allocated


def _allocated_container(container: Container, status_resources: StatusResources) -> Container:
    found = status_resources.get((container.init, container.name))
    if found is None:
        return container
    requests, limits = found
    return Container(container.name, requests, container.limits if limits is None else limits, container.sidecar,
                     container.init)


def plan_pods(params: Mapping[str, Any]) -> dict[str, Any]:
    """Per-pod and per-container values plus the QoS tier values the pods imply."""
    settings = PodSettings(params)
    pods = params.get('pods')
    if isinstance(pods, dict) and isinstance(pods.get('items'), list):
        pods = pods['items']  # a kubectl get pods -o json List
    if not isinstance(pods, list):
        raise KubenodeError('must be a list of Pod objects or pod specs', field='pods', value=pods)
    root = names.node_allocatable_root(settings.cgroup_root, True)
    results = []
    burstable_milli, memory_by_qos = 0, {GUARANTEED: 0, BURSTABLE: 0, BESTEFFORT: 0}
    for index, data in enumerate(pods):
        field = 'pods[%d]' % index
        pod = parse_pod(data, field, settings.api_defaults)
        qos, requests, values = pod_values(allocated_pod(pod, settings), settings)
        if qos == BURSTABLE and 'cpu' in requests:
            burstable_milli += requests['cpu'].milli_value()
        if qos != BESTEFFORT and 'memory' in requests:
            memory_by_qos[qos] += requests['memory'].value()
        parent = root if qos == GUARANTEED else names.new_cgroup_name(root, qos.lower())
        parts = names.new_cgroup_name(parent, 'pod' + pod.uid) if pod.uid else None
        entry: dict[str, Any] = {'name': pod.name, 'namespace': pod.namespace, 'uid': pod.uid, 'qos_class': qos}
        if parts is not None:
            entry['cgroup'] = names.describe(parts, settings.driver)
        entry.update(values)
        if settings.in_place_resize and pod.resize:
            entry['resize'] = dict(pod.resize)
            if pod.resize['state'] == 'pending':
                # What the cgroups become once kubelet admits the resize and carries it out: the spec's values.
                entry['resize']['once_done'] = pod_values(pod, settings)[2]
        results.append(entry)
    absolute = {}
    if settings.allocatable_memory:
        absolute['memory'] = Quantity.from_int(settings.allocatable_memory)
    tiers = qos_tiers(root, settings.driver, [], absolute,
                      settings.memory_rules(),
                      PodRequests(burstable_milli, memory_by_qos[GUARANTEED], memory_by_qos[BURSTABLE]))
    kubepods = names.describe(root, settings.driver)
    kubepods['resources'] = kubepods_memory_qos(settings.memory_rules(), memory_by_qos[GUARANTEED],
                                                memory_by_qos[BURSTABLE])
    kubepods.update(cgmath.resource_files(kubepods['resources'], []))
    return {'pods': results, 'qos': {'kubepods': kubepods, 'burstable': tiers['burstable'].as_entry(),
                                     'besteffort': tiers['besteffort'].as_entry()},
            'kubelet_version': settings.rules.version, 'oci_runtime': settings.oci_runtime}
