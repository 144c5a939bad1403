# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubelet's resource admission of the pods bound to a node, as it runs when kubelet restarts: which pods a new
Allocatable no longer admits, and which a critical pod would preempt.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure. Sources (kubernetes 1.37): pkg/kubelet/kubelet.go (HandlePodAdditions: the pods of a source sorted by
creation time, each admitted against the pods admitted before it), pkg/kubelet/allocation/allocation_manager.go
(AddPod, canAdmitPod), pkg/kubelet/lifecycle/predicate.go (predicateAdmitHandler.Admit, generalFilter: reasons
OutOfcpu, OutOfmemory, ...), pkg/scheduler/framework/plugins/noderesources/fit.go (Fits, fitsRequest,
computePodResourceRequest), pkg/kubelet/preemption/preemption.go (CriticalPodAdmissionHandler, getPodsToPreempt),
pkg/api/v1/resource/helpers.go (GetResourceRequest), component-helpers resource/helpers.go (PodRequests).
Only the resource predicate is modelled: node affinity, host ports, taints, the OS label and the topology, CPU and
memory managers' admission are not (docs/guide.md says so).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, List, Tuple

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import (
    BESTEFFORT, BURSTABLE, GUARANTEED, pod_level_resource, pod_level_resources_set)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import (
    aggregate_containers, is_critical, pod_level_requests_set, pod_requests, qos_class)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import Quantity

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = 'cpu', 'memory', 'ephemeral-storage', 'pods'
# predicate.go's PodAdmitResult reasons for an InsufficientResourceError, else InsufficientResourcePrefix + name.
_OUT_OF = {CPU: 'OutOfcpu', MEMORY: 'OutOfmemory', EPHEMERAL_STORAGE: 'OutOfephemeral-storage', PODS: 'OutOfpods'}
UNEXPECTED_ADMISSION_ERROR = 'UnexpectedAdmissionError'
# (resource, amount): what preemption must free (admissionRequirementList).
Requirements = List[Tuple[str, int]]
# (resource, requested, used, capacity): a resource fitsRequest finds short.
Shortage = Tuple[str, int, int, int]


class AdmissionRules(object):
    """The feature gates admission depends on: PodLevelResources (requests from the pod's own resources), and
    hugepages as pod-level resources (kubelet 1.33 and later)."""

    __slots__ = ('pod_level', 'pod_level_hugepages', 'only_set_pod_level', 'preemption_counts_pod_requests',
                 'ties_by_uid')

    def __init__(self, pod_level: bool, pod_level_hugepages: bool, only_set_pod_level: bool = False,
                 preemption_counts_pod_requests: bool = True, ties_by_uid: bool = False) -> None:
        self.pod_level, self.pod_level_hugepages = pod_level, pod_level_hugepages
        # PodLevelResourcesFixKubeletQOSClass (1.37): empty pod-level resources leave the QoS class to the containers.
        self.only_set_pod_level = only_set_pod_level
        # Preemption counts a pod's requests as PodRequests does from kubelet 1.34 (KubeletRules).
        self.preemption_counts_pod_requests = preemption_counts_pod_requests
        # Pods created in the same second are admitted in UID order from kubelet 1.38 (KubeletRules).
        self.ties_by_uid = ties_by_uid


class Candidate(object):
    """A pod kubelet will admit again at its restart: the parsed pod, where it came from and whether it runs now."""

    __slots__ = ('pod', 'key', 'source', 'created', 'running', 'uid')

    def __init__(self, pod: Any, source: str, created: str | None = '', running: bool | None = None,
                 uid: str | None = '') -> None:
        self.pod, self.source, self.created, self.running, self.uid = pod, source, created or '', running, uid or ''
        self.key = '%s/%s' % (pod.namespace or 'default', pod.name)


def is_extended(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a name with a domain outside kubernetes.io (a device plugin's)."""
    return '/' in name and 'kubernetes.io/' not in name and not name.startswith('requests.')


def _integer(name: str, quantity: Quantity) -> int:
    """The int64 the scheduler's Resource keeps: MilliValue for cpu, Value for the rest (both round up)."""
    return quantity.milli_value() if name == CPU else quantity.value()


def fit_request(pod: Any, rules: AdmissionRules, allocatable: Mapping[str, int]) -> dict[str, int]:
    """computePodResourceRequest (PodRequests, pod-level requests when PodLevelResources is on), after
    removeMissingExtendedResources: {resource: int64}, extended resources the node does not have left out."""
    requests = pod_requests(pod, rules.pod_level, hugepages=rules.pod_level_hugepages)
    values: dict[str, int] = {}
    for name, quantity in requests.items():
        if name == PODS or (is_extended(name) and name not in allocatable):
            continue
        values[name] = max(values.get(name, 0), _integer(name, quantity))
    return values


def node_requested(admitted: Iterable[Candidate], rules: AdmissionRules, allocatable: Mapping[str, int]) -> dict[str, int]:
    """NodeInfo.Requested: the sum of the admitted pods' requests."""
    total: dict[str, int] = {}
    for candidate in admitted:
        for name, value in fit_request(candidate.pod, rules, allocatable).items():
            total[name] = total.get(name, 0) + value
    return total


def insufficient(request: Mapping[str, int], requested: Mapping[str, int], pod_count: int,
                 allocatable: Mapping[str, int]) -> list[Shortage]:
    """fitsRequest: [(resource, requested, used, capacity)] in its order - pods, cpu, memory, ephemeral-storage,
    then the scalar resources (hugepages, extended), which kubelet visits in Go's map order (random: when two of
    them are short, either may be the reason kubelet gives); here by name."""
    found: list[Shortage] = []
    allowed_pods = allocatable.get(PODS, 0)
    if pod_count + 1 > allowed_pods:
        found.append((PODS, 1, pod_count, allowed_pods))
    if not any(request.values()):
        return found
    scalars = sorted(name for name in request if name not in (CPU, MEMORY, EPHEMERAL_STORAGE))
    for name in [CPU, MEMORY, EPHEMERAL_STORAGE] + scalars:
        want = request.get(name, 0)
        if want > 0 and want > allocatable.get(name, 0) - requested.get(name, 0):
            found.append((name, want, requested.get(name, 0), allocatable.get(name, 0)))
    return found


def out_of(name: str) -> str:
    return _OUT_OF.get(name, 'OutOf%s' % name)


def insufficient_message(name: str, want: int, used: int, capacity: int) -> str:
    """InsufficientResourceError.Error(), kubelet's words."""
    return "Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d" % (name, want, used, capacity)


def resource_request(pod: Any, name: str, rules: AdmissionRules) -> int:
    """GetResourceRequest: 1 for pods; else PodRequests without overhead - the containers' aggregate unless
    PodLevelResources is on and the pod sets pod-level resources, and its pod-level requests over it whatever the
    gate (kubelet's helper does not ask it) - then the overhead added to a non-zero request; millicores for cpu."""
    if name == PODS:
        return 1
    if rules.preemption_counts_pod_requests:
        hugepages = rules.pod_level_hugepages
        requests = {} if rules.pod_level and pod_level_resources_set(pod, hugepages) \
            else aggregate_containers(pod, 'requests')
        if pod_level_requests_set(pod, hugepages):
            requests.update((n, q) for n, q in pod.requests.items() if pod_level_resource(n, hugepages))
        quantity = requests.get(name)
    else:
        quantity = _request_before_134(pod, name)
    if quantity is None or quantity.is_zero():
        return 0
    overhead = pod.overhead.get(name)
    if overhead is not None:
        quantity = quantity.add(overhead)
    return _integer(name, quantity)


def _request_before_134(pod: Any, name: str) -> Quantity | None:
    """GetResourceRequestQuantity before kubelet 1.34: the app containers' requests summed, then raised to any
    init container's own request (sidecars and pod-level resources not counted)."""
    quantity: Quantity | None = None
    for container in pod.containers:
        request = container.requests.get(name)
        if request is not None:
            quantity = request if quantity is None else quantity.add(request)
    for container in pod.init_containers:
        request = container.requests.get(name)
        if request is not None and (quantity is None or quantity.cmp(request) < 0):
            quantity = request
    return quantity


def _subtract(requirements: Requirements, pods: Sequence[Candidate], rules: AdmissionRules) -> Requirements:
    """admissionRequirementList.subtract."""
    remaining: Requirements = []
    for name, amount in requirements:
        for candidate in pods:
            amount -= resource_request(candidate.pod, name, rules)
            if amount <= 0:
                break
        if amount > 0:
            remaining.append((name, amount))
    return remaining


def _distance(requirements: Requirements, candidate: Candidate, rules: AdmissionRules) -> float:
    total = 0.0
    for name, amount in requirements:
        remaining = float(amount - resource_request(candidate.pod, name, rules))
        if remaining > 0:
            total += (remaining / float(amount)) ** 2
    return total


def _smaller_request(first: Candidate, second: Candidate, rules: AdmissionRules) -> bool:
    """smallerResourceRequest: memory, then cpu; true when equal."""
    for name in (MEMORY, CPU):
        one, other = resource_request(first.pod, name, rules), resource_request(second.pod, name, rules)
        if one != other:
            return one < other
    return True


def _by_distance(pods: Sequence[Candidate], requirements: Requirements, rules: AdmissionRules) -> list[Candidate] | None:
    """getPodsToPreemptByDistance, or None when the pods cannot meet the requirements."""
    left = list(pods)
    chosen: list[Candidate] = []
    while requirements:
        if not left:
            return None
        best_distance, best = float(len(requirements) + 1), 0
        for index, candidate in enumerate(left):
            distance = _distance(requirements, candidate, rules)
            if distance < best_distance or (distance == best_distance and _smaller_request(candidate, left[best], rules)):
                best_distance, best = distance, index
        requirements = _subtract(requirements, [left[best]], rules)
        chosen.append(left[best])
        left[best] = left[-1]
        left.pop()
    return chosen


def preemptable(preemptor: Any, preemptee: Any) -> bool:
    """types.Preemptable: a critical pod preempts a non-critical one, else a higher priority a lower one when both
    have a priority (a static pod's manifest usually has none)."""
    if is_critical(preemptor) and not is_critical(preemptee):
        return True
    return bool(preemptor.priority_given and preemptee.priority_given and preemptor.priority > preemptee.priority)


def pods_to_preempt(candidate: Candidate, admitted: Sequence[Candidate], requirements: Requirements,
                    rules: AdmissionRules) -> tuple[list[Candidate] | None, Requirements]:
    """getPodsToPreempt: the pods whose eviction frees the requirements (BestEffort first, then Burstable, then
    Guaranteed), or (None, what is still missing) when all of them together could not."""
    tiers: dict[str, list[Candidate]] = {BESTEFFORT: [], BURSTABLE: [], GUARANTEED: []}
    for other in admitted:
        if preemptable(candidate.pod, other.pod):
            tiers[qos_class(other.pod, rules.pod_level, rules.only_set_pod_level)].append(other)
    best_effort, burstable, guaranteed = tiers[BESTEFFORT], tiers[BURSTABLE], tiers[GUARANTEED]
    missing = _subtract(requirements, best_effort + burstable + guaranteed, rules)
    if missing:
        return None, missing
    # kubelet's order: the Guaranteed pods needed even with every BestEffort and Burstable pod gone, then the
    # Burstable pods needed with every BestEffort pod and those gone, then the BestEffort pods needed with both sets gone.
    guaranteed_out = _by_distance(guaranteed, _subtract(requirements, best_effort + burstable, rules), rules)
    if guaranteed_out is None:
        return None, requirements
    burstable_out = _by_distance(burstable, _subtract(requirements, best_effort + guaranteed_out, rules), rules)
    if burstable_out is None:
        return None, requirements
    best_effort_out = _by_distance(best_effort, _subtract(requirements, burstable_out + guaranteed_out, rules), rules)
    if best_effort_out is None:
        return None, requirements
    return best_effort_out + burstable_out + guaranteed_out, []


def admission_order(candidates: Iterable[Candidate], ties_by_uid: bool = False) -> list[Candidate]:
    """HandlePodAdditions' order: the static pods (the file source, which reports first) before the API server's,
    each source's pods by creation time (sliceutils.PodsByCreationTime), from 1.38 pods of the same time by UID.
    Static pods have none, and kubelet's file source hands them over from a map (client-go's UndeltaStore.List):
    their order is random (their UIDs, a hash kubelet computes, are not known here either). They are taken here in
    the order given (name order), and static_order_risk() says what another order could change."""
    def created(candidate: Candidate) -> tuple[str, str]:
        return (candidate.created, candidate.uid if ties_by_uid else '')
    candidates = list(candidates)
    static = [c for c in candidates if c.source != 'api']
    bound = [c for c in candidates if c.source == 'api']
    return sorted(static, key=created) + sorted(bound, key=created)


def static_order_risk(candidates: Sequence[Candidate], allocatable: Mapping[str, int],
                      rules: AdmissionRules) -> dict[str, str]:
    """{pod key: 'always' or 'maybe'} of the static pods kubelet's random order decides for. Static pods are
    admitted first and are all critical, so none preempts another: a static pod that does not fit the node alone is
    refused in every order ('always'); one that fits alone, but not beside every other static pod that can be
    admitted, is refused in some orders ('maybe')."""
    static = [c for c in candidates if c.source != 'api']
    requests = dict((c.key, fit_request(c.pod, rules, allocatable)) for c in static)
    alone = dict((c.key, insufficient(requests[c.key], {}, 0, allocatable)) for c in static)
    risk = dict((key, 'always') for key, short in alone.items() if short)
    room = [c for c in static if c.key not in risk]
    for candidate in room:
        others = [c for c in room if c is not candidate]
        if _refused_after_some(candidate, others, requests, allocatable, rules):
            risk[candidate.key] = 'maybe'
    return risk


EXACT_STATIC_PODS = 12


def _refused_after_some(candidate: Candidate, others: Sequence[Candidate], requests: Mapping[str, Mapping[str, int]],
                        allocatable: Mapping[str, int], rules: AdmissionRules) -> bool:
    """Whether some set of the other static pods that fits the node together leaves candidate no room: admitted
    first, in any order, they all get in, and candidate is then refused. Every set is tried up to
    EXACT_STATIC_PODS others; beyond, all of them together (which may say so of a pod no order refuses)."""
    def total(chosen: Sequence[Candidate]) -> dict[str, int]:
        summed: dict[str, int] = {}
        for other in chosen:
            for name, value in requests[other.key].items():
                summed[name] = summed.get(name, 0) + value
        return summed

    def short_after(chosen: Sequence[Candidate]) -> list[Shortage]:
        return insufficient(requests[candidate.key], total(chosen), len(chosen), allocatable)
    if len(others) > EXACT_STATIC_PODS:
        return bool(short_after(others))
    for mask in range(1, 1 << len(others)):
        chosen = [c for index, c in enumerate(others) if mask >> index & 1]
        summed = total(chosen)
        fits = len(chosen) <= allocatable.get(PODS, 0) and all(
            value <= allocatable.get(name, 0) for name, value in summed.items() if value > 0)
        if fits and short_after(chosen):
            return True
    return False


def admit(candidates: Sequence[Candidate], allocatable: Mapping[str, int], rules: AdmissionRules) -> list[dict[str, Any]]:
    """Each pod in kubelet's order through the resource predicate against the pods admitted before it, a critical
    pod that does not fit admitted by preempting others where they can free enough. allocatable: {resource:
    int64} (cpu in millicores, pods the node's maxPods). Returns [{pod, source, running, admitted, reason,
    message, preempts, preempted_by}] in that order."""
    admitted: list[Candidate] = []
    results: list[dict[str, Any]] = []
    by_key: dict[str, dict[str, Any]] = {}
    for candidate in admission_order(candidates, rules.ties_by_uid):
        request = fit_request(candidate.pod, rules, allocatable)
        short = insufficient(request, node_requested(admitted, rules, allocatable), len(admitted), allocatable)
        result = {'pod': candidate.key, 'source': candidate.source, 'running': candidate.running, 'admitted': True,
                  'reason': '', 'message': '', 'requests': dict(request), 'preempts': [], 'preempted_by': None,
                  'insufficient': [name for name, _want, _used, _capacity in short], 'static_order': None}
        if short and is_critical(candidate.pod):
            requirements = [(name, want - (capacity - used)) for name, want, used, capacity in short]
            victims, missing = pods_to_preempt(candidate, admitted, requirements, rules)
            if victims is None:
                result.update(admitted=False, reason=UNEXPECTED_ADMISSION_ERROR, message=(
                    'Unexpected error while attempting to recover from admission failure: preemption: error finding '
                    'a set of pods to preempt: no set of running pods found to reclaim resources: %s'
                    % _requirements_text(missing)))
            else:
                for victim in victims:
                    admitted.remove(victim)
                    by_key[victim.key].update(admitted=False, reason='Preempting', preempted_by=candidate.key,
                                              message='Preempted in order to admit critical pod')
                result['preempts'] = [victim.key for victim in victims]
        elif short:
            name, want, used, capacity = short[0]
            result.update(admitted=False, reason=out_of(name), message=insufficient_message(name, want, used, capacity))
        if result['admitted']:
            admitted.append(candidate)
        results.append(result)
        by_key[candidate.key] = result
    for key, risk in static_order_risk(candidates, allocatable, rules).items():
        by_key[key]['static_order'] = risk
    return results


def _requirements_text(requirements: Requirements) -> str:
    """admissionRequirementList.toString."""
    return '[' + ''.join('(res: %s, q: %d), ' % (name, amount) for name, amount in requirements) + ']'
