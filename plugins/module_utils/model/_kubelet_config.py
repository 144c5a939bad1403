# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""KubeletConfiguration: kubelet's drop-in merge, semantic comparison and validation.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure: works on texts and parsed mappings, reads no file (_kubelet_config_file does). Validation
reuses the node plan's rules, so that what kubelet would refuse at start-up is refused here first,
with kubelet's wording.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import copy
import json
import re
import traceback
from collections import namedtuple
from collections.abc import Collection, Iterable, Mapping
from typing import Any

try:
    import yaml
    HAS_YAML = True
    YAML_IMPORT_ERROR = None
except ImportError:
    HAS_YAML = False
    YAML_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, parse_feature_gates, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._eviction import (
    parse_percentage, parse_thresholds)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import PodSettings, parse_duration_us, swap_setting
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import parse_quantity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import parse_cpuset
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules, kubelet_rules

# A KubeletConfiguration document (or the part of one a change sets): kubelet's keys to their values.
Document = dict[str, Any]

API_VERSION = 'kubelet.config.k8s.io/v1beta1'
KIND = 'KubeletConfiguration'
QUANTITY_MAPS = ('systemReserved', 'kubeReserved')
THRESHOLD_MAPS = ('evictionHard', 'evictionSoft')
MANAGED_KEYS = (
    'systemReserved', 'kubeReserved', 'evictionHard', 'evictionSoft', 'evictionSoftGracePeriod',
    'mergeDefaultEvictionSettings', 'enforceNodeAllocatable', 'systemReservedCgroup', 'kubeReservedCgroup',
    'cgroupDriver', 'cgroupsPerQOS', 'cgroupRoot', 'reservedSystemCPUs', 'qosReserved', 'featureGates',
    'memoryThrottlingFactor', 'memoryReservationPolicy', 'podPidsLimit', 'cpuCFSQuota', 'cpuCFSQuotaPeriod',
    'failCgroupV1', 'maxPods', 'failSwapOn', 'memorySwap', 'cpuManagerPolicy', 'cpuManagerPolicyOptions',
    'topologyManagerPolicy', 'topologyManagerScope', 'topologyManagerPolicyOptions', 'kubeletCgroups',
)
# Fields of KubeletConfiguration v1beta1 that exist but that this module leaves to other tools.
OTHER_KUBELET_KEYS = (
    'address', 'authentication', 'authorization', 'clusterDNS', 'clusterDomain',
    'containerLogMaxFiles', 'containerLogMaxSize', 'containerRuntimeEndpoint',
    'cpuManagerReconcilePeriod', 'evictionPressureTransitionPeriod', 'fileCheckFrequency', 'healthzBindAddress',
    'healthzPort', 'httpCheckFrequency', 'imageGCHighThresholdPercent', 'imageGCLowThresholdPercent',
    'imageMinimumGCAge', 'logging', 'memoryManagerPolicy', 'nodeStatusReportFrequency',
    'nodeStatusUpdateFrequency', 'podsPerCore', 'port', 'readOnlyPort', 'registerNode', 'resolvConf', 'rotateCertificates',
    'runtimeRequestTimeout', 'serializeImagePulls', 'serverTLSBootstrap', 'shutdownGracePeriod',
    'shutdownGracePeriodCriticalPods', 'singleProcessOOMKill', 'staticPodPath', 'streamingConnectionIdleTimeout',
    'syncFrequency', 'systemCgroups', 'tlsCertFile', 'tlsPrivateKeyFile', 'volumeStatsAggPeriod',
)
_TYPES: dict[str, type | tuple[type, ...]] = {
    'mergeDefaultEvictionSettings': bool, 'cgroupsPerQOS': bool, 'cpuCFSQuota': bool, 'failCgroupV1': bool,
    'failSwapOn': bool, 'memorySwap': dict,
    'systemReservedCgroup': str, 'kubeReservedCgroup': str, 'cgroupRoot': str, 'reservedSystemCPUs': str,
    'cgroupDriver': str, 'cpuCFSQuotaPeriod': str, 'memoryReservationPolicy': str,
    'podPidsLimit': int, 'maxPods': int, 'enforceNodeAllocatable': list, 'featureGates': dict,
    'systemReserved': dict, 'kubeReserved': dict, 'evictionHard': dict, 'evictionSoft': dict,
    'evictionSoftGracePeriod': dict, 'qosReserved': dict, 'memoryThrottlingFactor': (int, float),
    'cpuManagerPolicy': str, 'cpuManagerPolicyOptions': dict, 'topologyManagerPolicy': str,
    'topologyManagerScope': str, 'topologyManagerPolicyOptions': dict, 'kubeletCgroups': str,
}
# cpumanager's NewManager and its static policy options (policy_options.go).
CPU_MANAGER_POLICIES = ('none', 'static')
STATIC_POLICY_OPTIONS = ('full-pcpus-only', 'distribute-cpus-across-numa', 'align-by-socket',
                         'distribute-cpus-across-cores', 'strict-cpu-reservation', 'prefer-align-cpus-by-uncorecache')
# validation.go.
TOPOLOGY_MANAGER_POLICIES = ('none', 'best-effort', 'restricted', 'single-numa-node')
TOPOLOGY_MANAGER_SCOPES = ('container', 'pod')
TOPOLOGY_POLICY_OPTIONS = ('prefer-closest-numa-nodes', 'max-allowable-numa-nodes')
# strconv.ParseBool.
_GO_BOOLS = ('1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False')


def check_document(document: object, source: str) -> Document:
    """A KubeletConfiguration document: a mapping with kubelet's apiVersion and kind."""
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise KubenodeError('is not a YAML mapping', field=source, value=type(document).__name__)
    if document and document.get('apiVersion') != API_VERSION:
        raise KubenodeError('apiVersion must be %s' % API_VERSION, field=source, value=document.get('apiVersion'))
    if document and document.get('kind') != KIND:
        raise KubenodeError('kind must be %s' % KIND, field=source, value=document.get('kind'))
    return document


def check_settings(settings: Mapping[str, Any], field: str = 'settings') -> None:
    """The keys we were asked to set: each must be a KubeletConfiguration field this module manages."""
    for key, value in settings.items():
        if key not in MANAGED_KEYS:
            if key in OTHER_KUBELET_KEYS:
                raise KubenodeError('is a KubeletConfiguration field this module does not manage', field=field,
                                    value=key)
            raise KubenodeError('kubelet does not know this KubeletConfiguration field', field=field, value=key)
        expected = _TYPES[key]
        if value is not None and (isinstance(value, bool) and expected is not bool
                                  or not isinstance(value, expected)):
            raise KubenodeError('has the wrong type', field='%s.%s' % (field, key), value=value)


def apply_settings(document: Mapping[str, Any] | None, settings: Mapping[str, Any], defaults: Mapping[str, Any] | None = None,
                   read: Mapping[str, Any] | None = None) -> Document:
    """document with our keys set (None removes a key); featureGates are merged, never replaced. A value
    equal in meaning to the one the document holds (1Gi and 1024Mi, "100m" and 100m) is kept as written.
    defaults ({key: kubelet's own value}): a key that what kubelet reads (read, else document) leaves out is not
    added to say what kubelet does anyway, so that a file another tool renders (kubespray's) is not fought over."""
    result: Document = copy.deepcopy(dict(document)) if document else {'apiVersion': API_VERSION, 'kind': KIND}
    result.setdefault('apiVersion', API_VERSION)
    result.setdefault('kind', KIND)
    read = document if read is None else read
    defaults = defaults or {}
    for key, value in settings.items():
        if key in defaults and key not in (read or {}) and value is not None \
                and comparable({key: value}) == comparable({key: defaults[key]}):
            continue
        if value is None:
            result.pop(key, None)
        elif key == 'featureGates':
            gates = dict(result.get('featureGates') or {})
            gates.update(value)
            result['featureGates'] = gates
        else:
            result[key] = _as_written(key, result.get(key), copy.deepcopy(value))
    return result


def _as_written(key: str, written: Any, value: Any) -> Any:
    """value, with the operator's spelling of every part that means the same."""
    if written is None:
        return value
    if isinstance(value, dict) and isinstance(written, dict):
        kept = {}
        for name, item in value.items():
            same = name in written and comparable({key: {name: written[name]}}) == comparable({key: {name: item}})
            kept[name] = written[name] if same else item
        return kept
    return written if comparable({key: written}) == comparable({key: value}) else value


# What changed_values says of a key or value a side does not have.
UNSET = '(unset)'


def changed_values(current: Mapping[str, Any] | None, desired: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """[("kubeReserved.memory", "256Mi", "3125Mi"), ...]: each managed value the change sets, replaces or removes,
    as (key, what the file holds, what the plan writes); "(unset)" where there is none."""
    changed: list[tuple[str, str, str]] = []
    current = current or {}
    for key in MANAGED_KEYS:
        before, after = current.get(key), desired.get(key)
        if isinstance(before, dict) and isinstance(after, dict):
            for name in sorted(set(before) | set(after)):
                if name not in after:
                    changed.append(('%s.%s' % (key, name), str(before[name]), UNSET))
                elif name not in before:
                    changed.append(('%s.%s' % (key, name), UNSET, str(after[name])))
                elif comparable({key: {name: before[name]}}) != comparable({key: {name: after[name]}}):
                    changed.append(('%s.%s' % (key, name), str(before[name]), str(after[name])))
        elif (key in current) != (key in desired and after is not None) or (
                key in current and comparable({key: before}) != comparable({key: after})):
            changed.append((key, json.dumps(before) if key in current else UNSET,
                            UNSET if after is None else json.dumps(after)))
    return changed


def replaced_values(current: Mapping[str, Any] | None, desired: Mapping[str, Any]) -> list[str]:
    """["kubeReserved.memory: 256Mi -> 3125Mi", ...]: the values the file held that the change replaces or
    removes (what is added where nothing was is not listed)."""
    return ['%s: %s -> %s' % (key, before, '(removed)' if after == UNSET else after)
            for key, before, after in changed_values(current, desired) if before != UNSET]


def merge(documents: Iterable[Mapping[str, Any]]) -> Document:
    """kubelet --config-dir: each later document is decoded over the result, so maps merge key by
    key, lists and scalars replace."""
    result: Document = {}
    for document in documents:
        for key, value in document.items():
            if isinstance(value, dict) and isinstance(result.get(key), dict):
                merged = dict(result[key])
                merged.update(value)
                result[key] = merged
            else:
                result[key] = copy.deepcopy(value)
    return result


def _normal_threshold(value: object) -> object:
    text = str(value)
    if text.endswith('%'):
        try:
            return ('%', parse_percentage(text, 'threshold'))
        except KubenodeError:
            return text
    try:
        return ('q', parse_quantity(text).nano)
    except KubenodeError:
        return text


def comparable(document: Mapping[str, Any] | None) -> Document:
    """A comparable form: 1Gi equals 1024Mi, 10% equals 10.0%, ordering of maps ignored."""
    result = {}
    for key, value in (document or {}).items():
        if key in QUANTITY_MAPS and isinstance(value, dict):
            value = dict((k, _normal_quantity(v)) for k, v in value.items())
        elif key in THRESHOLD_MAPS and isinstance(value, dict):
            value = dict((k, _normal_threshold(v)) for k, v in value.items())
        elif key == 'cpuCFSQuotaPeriod' and isinstance(value, str):
            try:
                value = parse_duration_us(value, key)
            except KubenodeError:
                pass
        result[key] = value
    return result


def _normal_quantity(value: Any) -> Any:
    try:
        return parse_quantity(value).nano
    except KubenodeError:
        return value


# The keys a node plan is computed from, with kubelet's value when a configuration leaves one out.
PLAN_INPUT_DEFAULTS: Document = {
    'systemReserved': {}, 'kubeReserved': {}, 'evictionHard': None, 'mergeDefaultEvictionSettings': False,
    'enforceNodeAllocatable': ['pods'], 'cgroupDriver': 'cgroupfs', 'maxPods': 110, 'reservedSystemCPUs': '',
    'systemReservedCgroup': '', 'kubeReservedCgroup': '', 'cgroupsPerQOS': True, 'cgroupRoot': '/',
    'qosReserved': {}, 'featureGates': {}, 'memoryReservationPolicy': None,
}


class PlannedFrom(namedtuple('PlannedFrom', ('inputs', 'plan', 'settings'))):
    """A NodePlan with what it was computed from (plan_inputs of the KubeletConfiguration keys it stands for): when
    the configuration kubelet will read says the same, validating it reuses the plan instead of planning again.
    settings: the keys the plan stands for (settings_from_plan), derived once for the change that writes them."""

    __slots__ = ()


def plan_inputs(config: Mapping[str, Any]) -> Document:
    """The plan-relevant keys of a configuration in a comparable form, kubelet's defaults filled in."""
    values = {}
    for key, default in PLAN_INPUT_DEFAULTS.items():
        value = config.get(key)
        values[key] = default if value is None or (value in ('', {}) and default is not None) else value
    return comparable(values)


def _plan_of(config: Mapping[str, Any], capacity: Mapping[str, Any], online_cpus: list[int] | None, rules: KubeletRules,
             driver: str, gates: Mapping[str, bool], accepted: Collection[str]) -> NodePlan:
    """The NodePlan of a kubelet configuration (the reservation, eviction, enforcement and cgroup keys kubelet's
    container manager takes)."""
    return plan_node(PlanOptions(
        capacity=capacity, online_cpus=online_cpus, kubelet_version=rules,
        system_reserved=config.get('systemReserved'), kube_reserved=config.get('kubeReserved'),
        eviction_hard=config.get('evictionHard'),
        merge_default_eviction_settings=config.get('mergeDefaultEvictionSettings'),
        reserved_system_cpus=config.get('reservedSystemCPUs'),
        enforce_node_allocatable=config.get('enforceNodeAllocatable'),
        cgroups_per_qos=config.get('cgroupsPerQOS'), cgroup_root=config.get('cgroupRoot'), cgroup_driver=driver,
        system_reserved_cgroup=config.get('systemReservedCgroup'),
        kube_reserved_cgroup=config.get('kubeReservedCgroup'), qos_reserved=config.get('qosReserved'),
        feature_gates=gates, extra_feature_gates=accepted,
        memory_reservation_policy=config.get('memoryReservationPolicy'), max_pods=config.get('maxPods')))


def _validate_pod_settings(config: Mapping[str, Any], rules: KubeletRules, gates: Mapping[str, bool], accepted: Collection[str],
                           driver: str) -> None:
    """The keys the pods' values take (soft eviction, memorySwap, CFS quota, memory QoS), as kubelet validates
    them."""
    _validate_soft_eviction(config)
    memory_swap = config.get('memorySwap') or {}
    if not isinstance(memory_swap, dict):
        raise KubenodeError('must be a mapping such as {swapBehavior: LimitedSwap}', field='memorySwap',
                            value=memory_swap)
    swap_setting(memory_swap.get('swapBehavior'), gates, rules,
                 field='memorySwap.swapBehavior', gates_field='featureGates')
    # The other options are checked under kubelet's names: podPidsLimit by its type, the swap behaviour above,
    # singleProcessOOMKill in _validate_release_keys, cpuManagerPolicy with the CPU manager's keys, cgroupRoot in the
    # node's plan.
    options = pod_settings_options(config)
    settings = {name: options[name] for name in _VALIDATED_POD_OPTIONS}
    settings.update({'kubelet_version': rules.version, 'feature_gates': gates, 'extra_feature_gates': accepted,
                     'cgroup_driver': driver})
    PodSettings(settings)


_VALIDATED_POD_OPTIONS = ('cpu_cfs_quota', 'cpu_cfs_quota_period', 'memory_throttling_factor',
                          'memory_reservation_policy', 'qos_reserved')


def pod_settings_options(config: Mapping[str, Any]) -> dict[str, Any]:
    """The options of PodSettings (pod_cgroup_info's) a KubeletConfiguration sets, by kubelet's keys: what kubelet
    reads from its configuration when it computes a pod's and its containers' values."""
    swap: Mapping[str, Any] = config['memorySwap'] if isinstance(config.get('memorySwap'), dict) else {}
    return {
        'feature_gates': config.get('featureGates') or {},
        'cpu_cfs_quota': config.get('cpuCFSQuota'), 'cpu_cfs_quota_period': config.get('cpuCFSQuotaPeriod'),
        'memory_throttling_factor': config.get('memoryThrottlingFactor'),
        'memory_reservation_policy': config.get('memoryReservationPolicy'),
        'qos_reserved': config.get('qosReserved'), 'pod_pids_limit': config.get('podPidsLimit'),
        'single_process_oom_kill': config.get('singleProcessOOMKill'),
        'cpu_manager_policy': config.get('cpuManagerPolicy'), 'swap_behavior': swap.get('swapBehavior'),
        'cgroup_root': config.get('cgroupRoot'),
    }


def _validate_release_keys(config: Mapping[str, Any], rules: KubeletRules) -> None:
    """maxPods, and the keys that exist only from a release on."""
    if config.get('maxPods') is not None and config['maxPods'] < 0:
        raise KubenodeError('invalid configuration: maxPods (--max-pods) %d must not be a negative number'
                            % config['maxPods'], field='maxPods', value=config['maxPods'])
    if config.get('singleProcessOOMKill') is not None and not rules.has_single_process_oom_kill:
        raise KubenodeError('singleProcessOOMKill exists only from kubelet 1.32', field='singleProcessOOMKill',
                            value=config['singleProcessOOMKill'])
    if config.get('failCgroupV1') is not None and not rules.has_fail_cgroup_v1:
        raise KubenodeError('failCgroupV1 exists only from kubelet 1.31', field='failCgroupV1',
                            value=config['failCgroupV1'])


def validate(config: Mapping[str, Any], rules_version: object, capacity: Mapping[str, Any] | None = None,
             runtime_driver: Mapping[str, str] | None = None, allow_driver_mismatch: bool = False,
             extra_feature_gates: Iterable[str] = (), gates_on_node: Iterable[str] = (),
             planned: PlannedFrom | None = None) -> NodePlan:
    """What kubelet would refuse at start-up, on the merged configuration.

    gates_on_node: feature gate names the node's configuration already holds; only names this change
    brings are checked against kubelet's known gates (the node's kubelet is the judge of its own).
    planned: a PlannedFrom; when the configuration says the same as its inputs, its plan stands for it (it passed
    the same checks) and none is computed.
    """
    accepted = frozenset(extra_feature_gates) | frozenset(gates_on_node)
    rules = kubelet_rules(rules_version)
    gates = parse_feature_gates(config.get('featureGates'), 'featureGates', rules, accepted)
    driver = config.get('cgroupDriver') or 'cgroupfs'
    if driver not in ('cgroupfs', 'systemd'):
        raise KubenodeError('must be "cgroupfs" or "systemd"', field='cgroupDriver', value=driver)
    if capacity:
        online_cpus = None
    else:
        # Capacity unknown: every rule but "capacity >= reservation" can still be checked.
        capacity = {'cpu': '1Mi', 'memory': '1Ei', 'ephemeral-storage': '1Ei', 'pid': '1Ei'}
        online_cpus = parse_cpuset(config.get('reservedSystemCPUs') or '', 'reservedSystemCPUs')
    if planned and planned.inputs in (plan_inputs(config), plan_inputs(
            dict(kubelet_default_settings(planned.plan), **config))):  # what kubelet fills in where left out
        plan = planned.plan
    else:
        plan = _plan_of(config, capacity, online_cpus, rules, driver, gates, accepted)
    _validate_pod_settings(config, rules, gates, accepted, driver)
    _validate_release_keys(config, rules)
    _validate_cpu_and_topology_managers(config, plan)
    if runtime_driver and runtime_driver['value'] != driver and not allow_driver_mismatch:
        raise KubenodeError('kubelet would use the %s cgroup driver but the container runtime (%s) uses %s; pods '
                            'would not start. Make them agree, or set allow_driver_mismatch (role: '
                            'node_allocatable_allow_driver_mismatch)'
                            % (driver, runtime_driver['path'], runtime_driver['value']),
                            field='cgroupDriver', value=driver)
    return plan


def _go_quote_list(values: Iterable[str]) -> str:
    return '[%s]' % ' '.join('"%s"' % v for v in values)


def _validate_cpu_and_topology_managers(config: Mapping[str, Any], plan: NodePlan) -> None:
    """What kubelet refuses in its CPU and Topology Manager settings: validation.go, then cpumanager's
    NewManager when the container manager starts."""
    topology = config.get('topologyManagerPolicy') or 'none'
    if topology not in TOPOLOGY_MANAGER_POLICIES:
        raise KubenodeError('invalid configuration: topologyManagerPolicy (--topology-manager-policy) "%s" must be '
                            'one of: %s' % (topology, _go_quote_list(TOPOLOGY_MANAGER_POLICIES)),
                            field='topologyManagerPolicy', value=topology)
    scope = config.get('topologyManagerScope') or 'container'
    if scope not in TOPOLOGY_MANAGER_SCOPES:
        raise KubenodeError('invalid configuration: topologyManagerScope (--topology-manager-scope) "%s" must be '
                            'one of: "container", or "pod"' % scope, field='topologyManagerScope', value=scope)
    for name in (config.get('topologyManagerPolicyOptions') or {}):
        if name not in TOPOLOGY_POLICY_OPTIONS:
            raise KubenodeError('unsupported topologymanager option: "%s"' % name,
                                field='topologyManagerPolicyOptions', value=name)
    policy = config.get('cpuManagerPolicy') or 'none'
    options = config.get('cpuManagerPolicyOptions') or {}
    if policy not in CPU_MANAGER_POLICIES:
        raise KubenodeError('unknown policy: "%s"' % policy, field='cpuManagerPolicy', value=policy)
    if policy == 'none':
        if options:
            raise KubenodeError('None policy: received unsupported options=map[%s]'
                                % ' '.join('%s:%s' % item for item in sorted(options.items())),
                                field='cpuManagerPolicyOptions', value=options)
        return
    for name, value in options.items():
        if name not in STATIC_POLICY_OPTIONS:
            raise KubenodeError('unsupported cpumanager option: "%s" (%s)' % (name, value),
                                field='cpuManagerPolicyOptions', value=name)
        if str(value) not in _GO_BOOLS:
            raise KubenodeError('bad value for option "%s": strconv.ParseBool: parsing "%s": invalid syntax'
                                % (name, value), field='cpuManagerPolicyOptions.%s' % name, value=value)
    # GetNodeAllocatableReservation leaves a zero CPU reservation out, which the static policy cannot start with.
    if plan.value('reservation', 'cpu') is None:
        raise KubenodeError('[cpumanager] unable to determine reserved CPU resources for static policy: the static '
                            'policy needs systemReserved.cpu + kubeReserved.cpu (or reservedSystemCPUs) above zero',
                            field='cpuManagerPolicy', value=policy)


def cgroup_v1_refusal(cgroup_mode: str, rules: KubeletRules, config: Mapping[str, Any]) -> str | None:
    """kubelet's message when it would refuse to start on this cgroup v1 (or hybrid) host, else None."""
    if cgroup_mode == 'v2' or not rules.fail_cgroup_v1_default or config.get('failCgroupV1') is False:
        return None
    return ('kubelet %s refuses to start on this cgroup %s node: failCgroupV1 is true, its default since kubelet '
            '1.35. Move the node to cgroup v2 (boot with systemd.unified_cgroup_hierarchy=1), or keep cgroup v1 '
            'for now with failCgroupV1: false in the kubelet settings (role: node_allocatable_kubelet_settings)'
            % (rules.version, cgroup_mode))


def cpu_manager_checkpoint_conflict(config: Mapping[str, Any], checkpoint_text: str, checkpoint_path: str) -> str | None:
    """kubelet's start-up error when its CPU manager checkpoint was written by another policy, else None."""
    try:
        recorded = json.loads(checkpoint_text).get('policyName')
    except (ValueError, AttributeError):
        return None
    policy = config.get('cpuManagerPolicy') or 'none'
    if not recorded or recorded == policy:
        return None
    return ('could not restore state from checkpoint: configured policy "%s" differs from state checkpoint policy '
            '"%s", please drain this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet'
            % (policy, recorded, checkpoint_path))


def _validate_soft_eviction(config: Mapping[str, Any]) -> None:
    soft = config.get('evictionSoft') or {}
    grace = config.get('evictionSoftGracePeriod') or {}
    parse_thresholds(soft, 'evictionSoft')
    for signal in soft:
        if signal not in grace:
            raise KubenodeError('grace period must be specified for the soft eviction threshold %s' % signal,
                                field='evictionSoftGracePeriod', value=signal)
    for signal, period in grace.items():
        if parse_duration_us(period, 'evictionSoftGracePeriod.%s' % signal) < 0:
            raise KubenodeError('grace period must not be negative', field='evictionSoftGracePeriod.%s' % signal,
                                value=period)


def settings_from_plan(plan: NodePlan) -> Document:
    """The KubeletConfiguration keys a NodePlan stands for."""
    settings: Document = {
        'systemReserved': dict((k, v['quantity']) for k, v in plan.reserved_of('system').items()),
        'kubeReserved': dict((k, v['quantity']) for k, v in plan.reserved_of('kube').items()),
        'evictionHard': dict(plan.eviction_part('hard') or {}),
        'enforceNodeAllocatable': list(plan.enforce_node_allocatable or ['pods']),
        'cgroupDriver': plan.cgroup_driver,
    }
    if plan.max_pods is not None:
        settings['maxPods'] = plan.max_pods
    if plan.reserved_system_cpus:
        settings['reservedSystemCPUs'] = plan.reserved_system_cpus
    for scope in ('system', 'kube'):
        planned = plan.cgroup('%s_reserved' % scope)
        settings['%sReservedCgroup' % scope] = planned.configured_name if planned else None
    # An empty reservation is written as no key at all, as kubelet's default means the same.
    for key in QUANTITY_MAPS:
        if not settings[key]:
            settings[key] = None
    return settings


def kubelet_default_settings(plan: NodePlan) -> Document:
    """{key: value} of a NodePlan's settings that are kubelet's own defaults (pkg/kubelet/apis/config/v1beta1
    defaults.go): enforceNodeAllocatable ["pods"], and evictionHard where the plan keeps the release's defaults."""
    defaults: Document = {'enforceNodeAllocatable': ['pods']}
    if plan.eviction_part('source') == 'kubelet defaults':
        defaults['evictionHard'] = dict(plan.eviction_part('hard') or {})
    return defaults


# kubespray's variable behind kubeletCgroups (its kubelet-config template). Its kubelet_runtime_cgroups is the
# --runtime-cgroups flag (kubelet.env), not a KubeletConfiguration field: kubelet names the runtime's cgroup with it
# for its stats (cAdvisor's cgroup roots) and moves no process there, so it is no business of the reservation's.
KUBESPRAY_SERVICE_CGROUP_VARIABLES = {'kubeletCgroups': 'kubelet_kubelet_cgroups'}


def service_cgroup_settings(current: Mapping[str, Any], slice_path: str | None, services: Iterable[str]) -> dict[str, str]:
    """kubeletCgroups where the node's configuration names it, moved to where the services are placed (slice_path,
    the kube-reserved slice): kubelet moves its own process into the cgroup it names (the container manager's
    system containers, ensureProcessInContainerWithOOMScore), which would take it back out of the reservation. A
    configuration that leaves it unset keeps it unset; kubelet not among the placed services leaves it as it is."""
    if not slice_path or 'kubelet' not in services:
        return {}
    value = current.get('kubeletCgroups')
    if not isinstance(value, str) or not value.strip('/'):
        return {}
    wanted = '%s/kubelet.service' % slice_path.rstrip('/')
    return {'kubeletCgroups': wanted} if value != wanted else {}


def parse(text: str, source: str) -> Document:
    """The KubeletConfiguration document in text (from source, for the errors); text that is not YAML is
    an error naming its source."""
    try:
        # libyaml's safe loader when PyYAML was built with it: the same documents, several times faster.
        document = yaml.load(text, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))
    except yaml.YAMLError as error:
        # PyYAML names a string it parsed "<unicode string>": the file it came from is named instead.
        raise KubenodeError('is not valid YAML: %s' % str(error).replace('\n', ' ').replace(
            '"<unicode string>"', '"%s"' % source), field=source)
    return check_document(document, source)


def dump(document: Mapping[str, Any]) -> str:
    return yaml.safe_dump(document, default_flow_style=False, sort_keys=False)


_TOP_LEVEL_KEY = re.compile(r'^([A-Za-z_][\w.-]*)\s*:(\s|$)')
_NESTED_KEY = re.compile(r'^( +)([A-Za-z_][\w./-]*)\s*:(\s|$)')


def _blocks(text: str) -> tuple[list[str], list[tuple[str, list[str], list[str]]]]:
    """(header lines, [(key, value lines, trailing comment and blank lines)]) of a block-style mapping."""
    header: list[str] = []
    blocks: list[tuple[str, list[str], list[str]]] = []
    for line in text.splitlines(True):
        match = _TOP_LEVEL_KEY.match(line)
        if match:
            blocks.append((match.group(1), [line], []))
        elif not blocks:
            header.append(line)
        elif not line.strip() or line.startswith('#'):
            blocks[-1][2].append(line)
        else:
            # An indented line after comments continues the value: the comments were inside it.
            blocks[-1][1].extend(blocks[-1][2] + [line])
            del blocks[-1][2][:]
    return header, blocks


def _edit_mapping(value_lines: list[str], current: Mapping[str, Any], desired: Mapping[str, Any]) -> list[str] | None:
    """The lines of a block mapping "key:" whose entries change: entries that stay keep their lines as
    written (quotes, comments), changed ones are rewritten at the entries' indentation, new ones appended.
    None when the block is not one this can edit (flow style, a value on the key's own line)."""
    first, children = value_lines[0], value_lines[1:]
    if first.split(':', 1)[1].split('#', 1)[0].strip():
        return None
    entries, indent = [], None
    for line in children:
        match = _NESTED_KEY.match(line)
        if match and (indent is None or len(match.group(1)) == indent):
            indent = len(match.group(1))
            entries.append((match.group(2), [line]))
        elif entries:
            entries[-1][1].append(line)
        elif not line.strip() or line.lstrip().startswith('#'):
            continue
        else:
            return None
    if indent is None:
        return None
    pad = ' ' * indent
    lines = [first]
    for name, entry_lines in entries:
        if name not in desired:
            continue
        if name in current and current[name] == desired[name]:
            lines.extend(entry_lines)
        else:
            lines.extend(pad + line + '\n' for line in dump({name: desired[name]}).splitlines())
    for name in desired:
        if name not in dict(entries):
            lines.extend(pad + line + '\n' for line in dump({name: desired[name]}).splitlines())
    return lines


def edit_text(text: str | None, current: Mapping[str, Any], desired: Mapping[str, Any]) -> str:
    """desired as the file's new text, keeping every line of the keys that do not change as it was
    (comments, quoting, order); in a mapping that changes (kubeReserved), the entries that stay keep their
    lines too; changed keys are rewritten in place, new ones appended. Falls back to a plain dump when the
    text is not a block mapping this can edit safely: the result must parse back to exactly desired."""
    if text is None:
        return dump(desired)
    header, blocks = _blocks(text)
    lines, seen = list(header), set()
    for key, value_lines, trailer in blocks:
        seen.add(key)
        if key not in desired:
            lines.extend(trailer)
            continue
        if key in current and current[key] == desired[key]:
            lines.extend(value_lines)
        elif isinstance(current.get(key), dict) and isinstance(desired[key], dict) and desired[key]:
            lines.extend(_edit_mapping(value_lines, current[key], desired[key]) or [dump({key: desired[key]})])
        else:
            lines.append(dump({key: desired[key]}))
        lines.extend(trailer)
    added = [key for key in desired if key not in seen]
    if added:
        if lines and not lines[-1].endswith('\n'):
            lines.append('\n')
        lines.append(dump(dict((key, desired[key]) for key in added)))
    edited = ''.join(lines)
    try:
        if yaml.safe_load(edited) == desired:
            return edited
    except yaml.YAMLError:
        pass
    return dump(desired)
