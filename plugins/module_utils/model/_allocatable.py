# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node plan: Node Allocatable and every value kubelet writes to its node-level cgroups.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Sources: kubernetes pkg/kubelet/cm/node_container_manager_linux.go,
qos_container_manager_linux.go, container_manager_linux.go, cmd/kubelet/app/server.go,
pkg/kubelet/nodestatus/setters.go, pkg/kubelet/apis/config/validation/validation.go.
Pure: takes plain data (PlanOptions), returns a NodePlan (as_dict() for the modules), raises KubenodeError on bad
input.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._eviction import (
    Threshold, hard_eviction_reservation, parse_thresholds, resolve_eviction_hard)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._feature_gates import check_gate_names, check_gate_values
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_set import OptionSet
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._profiles import MIB, profile_reservation
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._reservation import MEASURED_PROFILE, measured_reserved
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import DECIMAL_SI, Quantity, parse_quantity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import (
    ResourceList, cpu_quantity, format_cpuset, hugepage_size_bytes, is_hugepages, parse_capacity, parse_cpuset,
    parse_reservation, report_list)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules, kubelet_rules

MEMORY_RESERVATION_POLICIES = ('None', 'TieredReservation')
# Resources kubelet's container manager knows (cm.capacity); pid is only in internalCapacity.
_NOT_IN_CM_CAPACITY = ('pid', 'pods')


def parse_feature_gates(gates: object, field: str = 'feature_gates', rules: KubeletRules | None = None,
                        accepted: Collection[str] = ()) -> dict[str, bool]:
    """The gates as a dict; with rules, each name must be one that kubelet release knows
    (accepted: names taken as they are, see _feature_gates.check_gate_names)."""
    if gates is None:
        return {}
    if not isinstance(gates, dict):
        raise KubenodeError('must be a mapping of feature gate name to true or false', field=field, value=gates)
    for name, enabled in gates.items():
        if not isinstance(enabled, bool):
            raise KubenodeError('feature gate values must be true or false', field='%s.%s' % (field, name),
                                value=enabled)
    if rules is not None:
        check_gate_names(gates, rules, field, accepted)
        check_gate_values(gates, rules, field)
    return dict(gates)


def parse_qos_reserved(qos_reserved: object, gates: Mapping[str, bool], field: str = 'qos_reserved') -> dict[str, int]:
    """cm.ParseQOSReserved: only memory, as an integer percentage 0-100."""
    if not qos_reserved:
        return {}
    if not isinstance(qos_reserved, dict):
        raise KubenodeError('must be a mapping like {memory: "50%%"}', field=field, value=qos_reserved)
    if not gates.get('QOSReserved', False):
        raise KubenodeError('qosReserved needs the QOSReserved feature gate (feature_gates: {QOSReserved: true})',
                            field=field, value=qos_reserved)
    result = {}
    for name, value in qos_reserved.items():
        if name != 'memory':
            raise KubenodeError('cannot reserve "%s" resource' % name, field=field, value=name)
        text = str(value)
        if not text.endswith('%'):
            raise KubenodeError("percentage expected, got '%s'" % text, field='%s.%s' % (field, name), value=value)
        digits = text.rstrip('%')
        try:
            percent = int(digits, 10)
        except ValueError:
            raise KubenodeError("invalid number in percentage '%s'" % text, field='%s.%s' % (field, name),
                                value=value)
        if not 0 <= percent <= 100:
            raise KubenodeError('percentage must be between 0 and 100', field='%s.%s' % (field, name), value=value)
        result[name] = percent
    return result


def validate_enforcement(enforce: object, cgroups_per_qos: bool, system_cgroup: str, kube_cgroup: str,
                         reserved_cpus: str, rules: KubeletRules) -> None:
    """The enforceNodeAllocatable part of ValidateKubeletConfiguration, with kubelet's messages."""
    field = 'enforce_node_allocatable'
    if not isinstance(enforce, list) or not all(isinstance(k, str) for k in enforce):
        raise KubenodeError('must be a list of strings', field=field, value=enforce)
    errors = []
    compressible = rules.has_compressible_enforcement
    if compressible:
        for full in ('system-reserved', 'kube-reserved'):
            if full in enforce and full + '-compressible' in enforce:
                errors.append('invalid configuration: both "%s" and "%s-compressible" cannot be specified together '
                              'in enforceNodeAllocatable (--enforce-node-allocatable)' % (full, full))
    seen = set()
    for key in enforce:
        if key in seen:
            errors.append('invalid configuration: duplicated enforcements "%s" in enforceNodeAllocatable '
                          '(--enforce-node-allocatable)' % key)
            continue
        seen.add(key)
        if key not in rules.known_enforcement_keys:
            quoted = ['"%s"' % k for k in rules.known_enforcement_keys]
            # kubelet < 1.32 wrote "a, b, c, or d"; later releases drop the comma before "or".
            last = ', or ' if not compressible else ' or '
            errors.append('invalid configuration: option "%s" specified for enforceNodeAllocatable '
                          '(--enforce-node-allocatable). Valid options are %s%s%s'
                          % (key, ', '.join(quoted[:-1]), last, quoted[-1]))
            continue
        if key == 'none':
            if len(enforce) > 1:
                errors.append('invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not '
                              'contain additional enforcements when "none" is specified')
            if rules.none_enforcement_without_qos:
                continue
        for scope, cgroup_name, flag in (('system', system_cgroup, 'system-reserved-cgroup'),
                                         ('kube', kube_cgroup, 'kube-reserved-cgroup')):
            if key in ('%s-reserved' % scope, '%s-reserved-compressible' % scope) and not cgroup_name:
                if compressible:
                    errors.append('invalid configuration: %sReservedCgroup (--%s) must be specified when "%s-reserved" '
                                  'or "%s-reserved-compressible" included in enforceNodeAllocatable '
                                  '(--enforce-node-allocatable)' % (scope, flag, scope, scope))
                else:
                    errors.append('invalid configuration: %sReservedCgroup (--%s) must be specified when "%s-reserved" '
                                  'contained in enforceNodeAllocatable (--enforce-node-allocatable)'
                                  % (scope, flag, scope))
        if not cgroups_per_qos:
            errors.append('invalid configuration: cgroupsPerQOS (--cgroups-per-qos) must be set to true when "%s" '
                          'contained in enforceNodeAllocatable (--enforce-node-allocatable)' % key)
    if errors:
        raise KubenodeError('; '.join(errors), field=field, value=enforce)
    if reserved_cpus and (system_cgroup or kube_cgroup):
        raise KubenodeError("invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with "
                            'systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup '
                            '(--kube-reserved-cgroup). Reserved CPUs take the place of the reserved cgroups: leave '
                            'system_reserved_cgroup and kube_reserved_cgroup empty and enforce only "pods" (the '
                            'node_allocatable role does so itself when node_allocatable_reserved_system_cpus is set), '
                            'and confine system daemons with systemd AllowedCPUs= instead',
                            field='reserved_system_cpus', value=reserved_cpus)


def memory_reservation_policy(policy: str | None, rules: KubeletRules, memory_qos: bool) -> str | None:
    """kubelet's memoryReservationPolicy, validated as kubelet validates it: "None" by default from 1.36,
    absent (None) before."""
    if policy is None:
        return 'None' if rules.has_memory_reservation_policy else None
    if not rules.has_memory_reservation_policy:
        raise KubenodeError('memoryReservationPolicy exists only from kubelet 1.36', field='memory_reservation_policy',
                            value=policy)
    if policy not in MEMORY_RESERVATION_POLICIES:
        raise KubenodeError('invalid configuration: option "%s" specified for memoryReservationPolicy. Valid '
                            'options are "None" or "TieredReservation"' % policy,
                            field='memory_reservation_policy', value=policy)
    if policy == 'TieredReservation' and not memory_qos:
        raise KubenodeError('invalid configuration: memoryReservationPolicy "TieredReservation" requires MemoryQoS '
                            'feature gate to be enabled', field='memory_reservation_policy', value=policy)
    return policy


def _sum_reservation(capacity: Mapping[str, Quantity], system: Mapping[str, Quantity], kube: Mapping[str, Quantity],
                     eviction: Mapping[str, Quantity]) -> ResourceList:
    """GetNodeAllocatableReservation: system + kube + hard eviction, zeros left out."""
    result = {}
    for name in capacity:
        value = Quantity(0, DECIMAL_SI)
        for part in (system, kube, eviction):
            if name in part:
                value = value.add(part[name])
        if not value.is_zero():
            result[name] = value
    return result


def _absolute(capacity: Mapping[str, Quantity], system: Mapping[str, Quantity], kube: Mapping[str, Quantity]) -> ResourceList:
    """getNodeAllocatableAbsoluteImpl: capacity - system - kube, clamped at 0 (no eviction)."""
    result = {}
    for name, value in capacity.items():
        for part in (system, kube):
            if name in part:
                value = value.sub(part[name])
        result[name] = value.with_value(0) if value.sign() < 0 else value
    return result


def _scheduling_allocatable(status_capacity: Mapping[str, Quantity], reservation: Mapping[str, Quantity]) -> ResourceList:
    """nodestatus.MachineInfo: capacity - reservation, clamped, then hugepages out of memory."""
    allocatable = {}
    for name, value in status_capacity.items():
        if name in reservation:
            value = value.sub(reservation[name])
        allocatable[name] = value.with_value(0) if value.sign() < 0 else value
    for name, value in status_capacity.items():
        if is_hugepages(name) and 'memory' in allocatable:
            memory = allocatable['memory'].sub(value)
            allocatable['memory'] = memory.with_value(0) if memory.sign() < 0 else memory
    return allocatable


def _readable(quantity: Quantity, name: str) -> str:
    if name == 'cpu':
        return '%s (%d millicores)' % (quantity, quantity.milli_value())
    return '%s (%d)' % (quantity, quantity.value())


def _with_resource(options: str, resource: str) -> str:
    """'kube_reserved, profile gke' -> 'kube_reserved.memory, profile gke'; the eviction term stays as it is."""
    first, sep, rest = options.partition(',')
    if first.endswith('_reserved'):
        first += '.' + resource
    return first + sep + rest


def validate_node_allocatable(capacity: Mapping[str, Quantity], reservation: Mapping[str, Quantity],
                              terms: Sequence[tuple[str, Mapping[str, Quantity], str]] = ()) -> None:
    """validateNodeAllocatable, with the quantities rendered readably instead of as Go structs, and each
    term of a reservation above capacity named with the option that set it.

    terms: [(label, {resource: Quantity}, options)], such as ('kube', kube, 'kube_reserved, profile gke').
    """
    errors, culprits = [], []
    for name in sorted(reservation):
        remaining = capacity[name].sub(reservation[name])
        if remaining.sign() < 0:
            errors.append('Resource "%s" has a reservation of %s but capacity of %s. Expected capacity >= reservation.'
                          % (name, _readable(reservation[name], name), _readable(capacity[name], name)))
            # Each term names the option that set it, down to the resource (kube_reserved.memory).
            parts = [(label, values[name], _with_resource(option, name)) for label, values, option in terms
                     if name in values and not values[name].is_zero()]
            if parts:
                errors.append('%s reserved = %s.' % (name, ' + '.join(
                    '%s %s (%s)' % (label, value, option) for label, value, option in parts)))
                culprits.append(max(parts, key=lambda part: part[1].nano))
    if errors:
        if culprits:
            _label, value, option = culprits[0]
            raise KubenodeError('invalid Node Allocatable configuration. ' + ' '.join(errors),
                                field=option.split(',')[0], value=str(value))
        raise KubenodeError('invalid Node Allocatable configuration. ' + ' '.join(errors), field='capacity')


def hugepage_limits(resources: Mapping[str, Quantity]) -> dict[int, int]:
    """HugePageLimits: {page size bytes: bytes}, summed per page size, from hugepages-* keys."""
    limits: dict[int, int] = {}
    for name, value in resources.items():
        if is_hugepages(name):
            size = hugepage_size_bytes(name)
            limits[size] = limits.get(size, 0) + value.value()
    return limits


def cgroup_config(resources: Mapping[str, Quantity], compressible_only: bool = False) -> dict[str, Any]:
    """getCgroupConfig: the ResourceConfig kubelet builds from a resource list."""
    config: dict[str, Any] = {}
    if 'cpu' in resources:
        config['cpu_shares'] = cgmath.milli_cpu_to_shares(resources['cpu'].milli_value())
    if compressible_only:
        return config
    if 'memory' in resources:
        config['memory'] = resources['memory'].value()
    if 'pid' in resources:
        config['pids'] = resources['pid'].value()
    config['hugetlb'] = hugepage_limits(resources)
    return config


def node_cpuset(options: PlanOptions, capacity: Mapping[str, Quantity], rules: KubeletRules) -> str | None:
    """getCgroupConfig's CPUSet, or None: with the none CPU manager policy (whose allocatable CPUs are empty) kubelet
    gives kubepods and every enforced reserved cgroup all the node's CPUs (cpuManager.GetAllCPUs), from 1.32."""
    if not rules.cpuset_on_node_cgroups or (options.cpu_manager_policy or 'none') != 'none':
        return None
    online = options.online_cpus
    if online is None and 'cpu' in capacity:
        online = list(range(capacity['cpu'].value()))
    return format_cpuset(sorted(online)) if online else None


def planned_cgroup(key: str, parts: Sequence[str], driver: str, config: Mapping[str, Any], page_sizes: Iterable[int],
                   **plan: Any) -> PlannedCgroup:
    """The plan's record of one cgroup: its names, the resources config sets (getCgroupConfig's ResourceConfig) and
    the files and properties they render to; plan: what the plan says of it (enforced, source...)."""
    resources, rendered = cgmath.cgroup_values(config, page_sizes)
    return PlannedCgroup.planned(key, names.describe(parts, driver), resources, rendered, **plan)


class PlanOptions(OptionSet):
    """What plan_node() computes from, in allocatable_info's option names: the part of kubelet's NodeConfig
    (and KubeletConfiguration) that sizes Node Allocatable and the node-level cgroups, with the node's
    capacity. A field left unset (None) takes kubelet's default, which is not always the modules' default
    (keep_default_eviction_signals: kubelet keeps no signal a given evictionHard leaves out)."""

    DEFAULTS = (
        ('capacity', None),  # {resource: quantity}; required
        ('online_cpus', None),  # [cpu id]; None: 0..capacity.cpu-1
        ('max_pods', None),
        ('kubelet_version', None),  # None: the newest GA release
        ('feature_gates', None),
        ('extra_feature_gates', ()),
        ('cgroup_driver', 'cgroupfs'),
        ('cgroups_per_qos', True),
        ('cgroup_root', ''),  # '': "/" with cgroupsPerQOS, else none
        ('enforce_node_allocatable', ('pods',)),
        ('system_reserved_cgroup', ''),
        ('kube_reserved_cgroup', ''),
        ('reserved_system_cpus', ''),
        ('memory_reservation_policy', None),
        ('qos_reserved', None),
        ('system_reserved', None),
        ('kube_reserved', None),
        ('eviction_hard', None),  # None: the release's defaults (or the profile's)
        ('profile', None),
        ('measured_reservation', None),  # the measured profile's: reservation_info's recommendation
        ('min_memory_reserved', None),  # a floor under a profile's memory: system plus kube together
        ('merge_default_eviction_settings', False),
        ('keep_default_eviction_signals', False),
        ('keep_reserved_out_of_swap', False),
        ('cpu_manager_policy', None),  # KubeletConfiguration cpuManagerPolicy; None: kubelet's "none"
    )
    __slots__ = tuple(name for name, _default in DEFAULTS)
    capacity: Mapping[str, Any] | None
    online_cpus: list[int] | None
    max_pods: int | None
    kubelet_version: str | None
    feature_gates: Mapping[str, bool] | None
    extra_feature_gates: Collection[str]
    cgroup_driver: str
    cgroups_per_qos: bool
    cgroup_root: str
    enforce_node_allocatable: list[str]
    system_reserved_cgroup: str
    kube_reserved_cgroup: str
    reserved_system_cpus: str
    memory_reservation_policy: str | None
    qos_reserved: Mapping[str, str] | None
    system_reserved: Mapping[str, Any] | None
    kube_reserved: Mapping[str, Any] | None
    eviction_hard: object
    profile: str | None
    measured_reservation: Mapping[str, Any] | None
    min_memory_reserved: object
    merge_default_eviction_settings: bool
    keep_default_eviction_signals: bool
    keep_reserved_out_of_swap: bool
    cpu_manager_policy: str | None

    def __init__(self, **options: Any) -> None:
        super(PlanOptions, self).__init__(**options)
        for name in ('cgroup_root', 'system_reserved_cgroup', 'kube_reserved_cgroup', 'reserved_system_cpus'):
            if not isinstance(getattr(self, name), str):
                raise KubenodeError('must be a string', field=name, value=getattr(self, name))
        self.enforce_node_allocatable = list(self.enforce_node_allocatable)


class NodeConfig(object):
    """What the plan takes from kubelet's NodeConfig (cm.NodeConfig, validated as kubelet's server.go and
    validation.go do): the release's rules, the feature gates, the driver, the cgroup root, enforceNodeAllocatable and
    the reserved cgroups, and the memory QoS rules."""

    __slots__ = ('rules', 'gates', 'driver', 'cgroups_per_qos', 'cgroup_root', 'enforce', 'system_cgroup',
                 'kube_cgroup', 'memory_qos', 'policy', 'memory_rules')

    def __init__(self, options: PlanOptions) -> None:
        self.rules = kubelet_rules(options.kubelet_version)
        self.gates = parse_feature_gates(options.feature_gates, rules=self.rules, accepted=options.extra_feature_gates)
        self.driver = names.checked_driver(options.cgroup_driver)
        self.cgroups_per_qos = options.cgroups_per_qos
        self.cgroup_root = names.checked_cgroup_root(options.cgroup_root or ('/' if self.cgroups_per_qos else ''))
        self.enforce = options.enforce_node_allocatable
        self.system_cgroup, self.kube_cgroup = options.system_reserved_cgroup, options.kube_reserved_cgroup
        validate_enforcement(self.enforce, self.cgroups_per_qos, self.system_cgroup, self.kube_cgroup,
                             options.reserved_system_cpus, self.rules)
        self.memory_qos = self.rules.gate(self.gates, 'MemoryQoS')
        self.policy = memory_reservation_policy(options.memory_reservation_policy, self.rules, self.memory_qos)
        self.memory_rules = MemoryRules(self.memory_qos, self.policy, parse_qos_reserved(options.qos_reserved,
                                                                                         self.gates),
                                        self.rules.clears_memory_qos_when_off)
        if self.driver == 'systemd' and self.cgroup_root not in ('', '/'):
            try:
                names.to_systemd(self.root_parts())
            except KubenodeError:
                raise KubenodeError('has an empty component, which the systemd cgroup driver cannot name as a slice',
                                    field='cgroup_root', value=self.cgroup_root)

    def root_parts(self) -> list[str]:
        """The cgroup pods go under (kubepods under cgroupRoot, or cgroupRoot itself without cgroupsPerQOS)."""
        return names.node_allocatable_root(self.cgroup_root, self.cgroups_per_qos)


class Reserved(object):
    """systemReserved and kubeReserved as kubelet parses them (parseResourceList), after what the profile sizes and
    reservedSystemCPUs replace; the eviction map the profile asks when the operator gives none."""

    __slots__ = ('system', 'kube', 'cpus', 'profile_sized', 'eviction_hard')

    def __init__(self, system: ResourceList, kube: ResourceList, cpus: list[int], profile_sized: bool,
                 eviction_hard: object) -> None:
        self.system, self.kube, self.cpus = system, kube, cpus
        self.profile_sized, self.eviction_hard = profile_sized, eviction_hard


def node_capacity(options: PlanOptions) -> ResourceList:
    """The node's capacity as kubelet reports it (cadvisor's, plus pods from maxPods when not given)."""
    if options.capacity is None:
        raise KubenodeError('the node capacity is required', field='capacity')
    capacity = parse_capacity(options.capacity)
    if options.max_pods is not None and 'pods' not in capacity:
        capacity['pods'] = Quantity.from_int(options.max_pods)
    return capacity


def _sized_by_profile(options: PlanOptions, capacity: Mapping[str, Quantity], system_raw: dict[str, Any],
                      kube_raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], bool, object]:
    """(system, kube, sized, eviction_hard): the raw reservations with what the profile (or the measurement) sizes
    under the operator's own values; sized: whether a profile sized kubeReserved."""
    eviction_hard = options.eviction_hard
    capacity_values = {
        'cpu': capacity['cpu'].milli_value() if 'cpu' in capacity else None,
        'memory': capacity['memory'].value() if 'memory' in capacity else None,
    }
    if options.profile == MEASURED_PROFILE:
        measured_system, measured_kube = measured_reserved(options.measured_reservation, capacity_values)
        measured_system.update(system_raw)
        measured_kube.update(kube_raw)
        return measured_system, measured_kube, False, eviction_hard
    sized = profile_reservation(options.profile, capacity_values, options.max_pods)
    if sized is None:
        return system_raw, kube_raw, False, eviction_hard
    profile_kube, profile_eviction = sized
    if 'memory' not in kube_raw:
        profile_kube['memory'] = memory_with_floor(profile_kube.get('memory'), system_raw.get('memory'),
                                                   options.min_memory_reserved)
    profile_kube.update(kube_raw)
    return system_raw, profile_kube, True, profile_eviction if eviction_hard is None else eviction_hard


def memory_with_floor(profile_memory: Any, system_memory: Any, floor: object) -> Any:
    """The profile's kubeReserved.memory, raised so that systemReserved and kubeReserved keep at least floor from
    pods together (min_memory_reserved; the collection's own rule, not kubelet's). A profile's formula scales with
    the node, and on a small one it leaves kubepods a limit above what the machine can give beside its daemons:
    make protection measured a kubeadm node of 1 GiB whose system held 428 MiB, against GKE's 255Mi (issue 76,
    docs/protection.md)."""
    if floor in (None, '', 0, '0'):
        return profile_memory
    needed = parse_quantity(floor, 'min_memory_reserved').value()
    if needed < 0:
        raise KubenodeError('must not be negative', field='min_memory_reserved', value=floor)
    system = parse_quantity(system_memory, 'system_reserved.memory').value() if system_memory not in (None, '') else 0
    sized = parse_quantity(profile_memory, 'kube_reserved.memory').value() if profile_memory is not None else 0
    if system + sized >= needed:
        return profile_memory
    return '%dMi' % -(-(needed - system) // MIB)


def _reserved_cpus(options: PlanOptions, capacity: Mapping[str, Quantity]) -> list[int]:
    """reservedSystemCPUs parsed, each an online CPU of the node."""
    text = options.reserved_system_cpus
    reserved_cpus = parse_cpuset(text, 'reserved_system_cpus')
    online = options.online_cpus
    if reserved_cpus and online is None and 'cpu' in capacity:
        online = list(range(capacity['cpu'].value()))
    if reserved_cpus and online is not None:
        outside = sorted(set(reserved_cpus) - set(online))
        if outside:
            raise KubenodeError('reserved CPUs %s are not online CPUs of this node (online: %s)'
                                % (format_cpuset(outside), format_cpuset(online) or 'none'),
                                field='reserved_system_cpus', value=text)
    return reserved_cpus


def reserved_resources(options: PlanOptions, capacity: Mapping[str, Quantity], rules: KubeletRules) -> Reserved:
    """The Reserved of the node (server.go: systemReserved and kubeReserved parsed; reservedSystemCPUs' size is
    systemReserved.cpu and kubeReserved.cpu is dropped unparsed)."""
    system_raw, kube_raw, sized, eviction_hard = _sized_by_profile(
        options, capacity, dict(options.system_reserved or {}), dict(options.kube_reserved or {}))
    reserved_cpus = _reserved_cpus(options, capacity)
    if reserved_cpus:
        system_raw['cpu'] = str(len(reserved_cpus))
        kube_raw.pop('cpu', None)
    system = parse_reservation(system_raw, 'system_reserved', rules.rounds_reserved_cpu)
    kube = parse_reservation(kube_raw, 'kube_reserved', rules.rounds_reserved_cpu)
    if reserved_cpus:
        system['cpu'] = cpu_quantity(len(reserved_cpus))
    return Reserved(system, kube, reserved_cpus, sized, eviction_hard)


def hard_eviction(options: PlanOptions, reserved: Reserved, rules: KubeletRules) -> tuple[dict[str, Any], list[Threshold]]:
    """{hard, source, defaults_kept} and the thresholds: evictionHard as kubelet resolves it (the operator's, else
    the profile's, else kubelet's defaults; mergeDefaultEvictionSettings)."""
    source = 'operator' if options.eviction_hard is not None else (
        'profile %s' % options.profile if reserved.eviction_hard is not None else 'kubelet defaults')
    eviction_map, defaults_kept = resolve_eviction_hard(
        reserved.eviction_hard, bool(options.merge_default_eviction_settings), rules,
        keep_defaults=bool(options.keep_default_eviction_signals))
    return {'hard': eviction_map, 'source': source, 'defaults_kept': defaults_kept}, parse_thresholds(eviction_map)


def node_allocatable(options: PlanOptions, capacity: Mapping[str, Quantity], reserved: Reserved,
                     eviction: Mapping[str, Any], thresholds: list[Threshold]) -> dict[str, ResourceList]:
    """GetNodeAllocatableReservation and its validation, and what follows from it: {reservation, eviction
    reservation, allocatable (the Node's status), absolute (the QoS tiers'), internal_absolute (kubepods')}."""
    cm_capacity = dict((k, v) for k, v in capacity.items() if k not in _NOT_IN_CM_CAPACITY)
    internal_capacity = dict((k, v) for k, v in capacity.items() if k != 'pods')
    eviction_reservation = hard_eviction_reservation(thresholds, cm_capacity)
    reservation = _sum_reservation(cm_capacity, reserved.system, reserved.kube, eviction_reservation)
    validate_node_allocatable(cm_capacity, reservation, (
        ('system', reserved.system, 'system_reserved' + (', reserved_system_cpus' if reserved.cpus else '')),
        ('kube', reserved.kube,
         'kube_reserved' + (', profile %s' % options.profile if reserved.profile_sized else '')),
        ('hard eviction', eviction_reservation, 'eviction_hard' + (
            ', %s' % eviction['source'] if eviction['source'] != 'operator' else ''))))
    return {'reservation': reservation, 'eviction_reservation': eviction_reservation,
            'allocatable': _scheduling_allocatable(_status_capacity(capacity), reservation),
            'absolute': _absolute(cm_capacity, reserved.system, reserved.kube),
            'internal_absolute': _absolute(internal_capacity, reserved.system, reserved.kube),
            'internal_capacity': internal_capacity}


def _status_capacity(capacity: Mapping[str, Quantity]) -> ResourceList:
    """The Node's status.capacity: no pid."""
    return dict((k, v) for k, v in capacity.items() if k != 'pid')


def node_cgroups(options: PlanOptions, config: NodeConfig, capacity: Mapping[str, Quantity], reserved: Reserved,
                 allocatable: Mapping[str, ResourceList]) -> dict[str, PlannedCgroup]:
    """{key: PlannedCgroup}: what kubelet writes to kubepods (getCgroupConfig of Allocatable or of the capacity), the
    QoS tiers (the QoS manager) and the enforced reserved cgroups (enforceNodeAllocatableCgroups)."""
    page_sizes = sorted(hugepage_limits(dict((k, v) for k, v in capacity.items() if is_hugepages(k))))
    all_cpus = node_cpuset(options, capacity, config.rules)
    cgroups = {}
    root_parts = config.root_parts()
    if config.cgroups_per_qos or root_parts:
        enforced = config.cgroups_per_qos and 'pods' in config.enforce
        source = allocatable['internal_absolute'] if enforced else allocatable['internal_capacity']
        values = cgroup_config(source)
        if all_cpus:
            values['cpuset'] = all_cpus
        if config.cgroups_per_qos:
            # The QoS manager's minute loop sets kubepods (the Guaranteed tier) hugetlb unbounded.
            values['hugetlb'] = dict((size, cgmath.HUGETLB_UNBOUNDED) for size in page_sizes)
            values.update(kubepods_memory_qos(config.memory_rules))
        cgroups['kubepods'] = planned_cgroup('kubepods', root_parts, config.driver, values, page_sizes, enforced=True,
                                             source='allocatable' if enforced else 'capacity')
    if config.cgroups_per_qos:
        cgroups.update(qos_tiers(root_parts, config.driver, page_sizes, allocatable['absolute'], config.memory_rules))
    for scope, cgroup_name, resources in (('system', config.system_cgroup, reserved.system),
                                          ('kube', config.kube_cgroup, reserved.kube)):
        entry = _reserved_cgroup(scope, cgroup_name, resources, config.enforce, config.driver, page_sizes,
                                 config.memory_qos, config.policy, bool(options.keep_reserved_out_of_swap), all_cpus)
        if entry is not None:
            cgroups['%s_reserved' % scope] = entry
    return cgroups


def plan_node(options: PlanOptions) -> NodePlan:
    """Compute the whole node plan (a NodePlan) from PlanOptions, in kubelet's steps: its NodeConfig, the capacity,
    the reservation and hard eviction, Allocatable, and the cgroups it writes."""
    config = NodeConfig(options)
    capacity = node_capacity(options)
    reserved = reserved_resources(options, capacity, config.rules)
    eviction, thresholds = hard_eviction(options, reserved, config.rules)
    allocatable = node_allocatable(options, capacity, reserved, eviction, thresholds)
    cgroups = node_cgroups(options, config, capacity, reserved, allocatable)
    eviction['reservation'] = report_list(allocatable['eviction_reservation'])
    return NodePlan(
        kubelet_version=config.rules.version,
        cgroup_driver=config.driver,
        # Written as maxPods by kubelet_config; None when kubelet keeps its own.
        max_pods=options.max_pods,
        # Written as reservedSystemCPUs; its size is already systemReserved.cpu above.
        reserved_system_cpus=format_cpuset(reserved.cpus) if reserved.cpus else None,
        enforce_node_allocatable=config.enforce,
        capacity=report_list(_status_capacity(capacity)),
        internal_capacity=report_list(allocatable['internal_capacity']),
        reserved={'system': report_list(reserved.system), 'kube': report_list(reserved.kube)},
        # Where the eviction map came from, and which of kubelet's default signals were added to it.
        eviction=eviction,
        reservation=report_list(allocatable['reservation']),
        allocatable=report_list(allocatable['allocatable']),
        allocatable_absolute=report_list(allocatable['internal_absolute']),
        cgroups=cgroups,
        node_allocatable_root=names.describe(config.root_parts(), config.driver),
        fail_cgroup_v1_default=config.rules.fail_cgroup_v1_default,
    )


def kubepods_memory_qos(rules: MemoryRules, guaranteed_requests: int = 0, burstable_requests: int = 0) -> dict[str, int]:
    """kubepods' memory.min as the QoS manager's UpdateCgroups sets it: the Guaranteed and Burstable requests,
    under TieredReservation only from 1.36; 0 where a release resets it (the gate off from 1.37)."""
    if not rules.memory_qos:
        return {'memory_min': 0} if rules.clears_when_off else {}
    total = guaranteed_requests + burstable_requests
    if rules.policy is None:
        return {'memory_min': total} if total > 0 else {}
    return {'memory_min': total if rules.policy == 'TieredReservation' else 0}


class MemoryRules(object):
    """What decides the QoS tiers' memory values: the MemoryQoS gate, memoryReservationPolicy, qosReserved, and
    whether the release resets the protections when the gate is off."""

    __slots__ = ('memory_qos', 'policy', 'qos_reserved', 'clears_when_off')

    def __init__(self, memory_qos: bool, policy: str | None, qos_reserved: Mapping[str, int] | None,
                 clears_when_off: bool = False) -> None:
        self.memory_qos, self.policy, self.qos_reserved = memory_qos, policy, qos_reserved or {}
        self.clears_when_off = clears_when_off


class PodRequests(object):
    """The pods' requests the QoS manager sums: burstable CPU, and memory of Guaranteed and Burstable pods."""

    __slots__ = ('burstable_milli_cpu', 'guaranteed_memory', 'burstable_memory')

    def __init__(self, burstable_milli_cpu: int = 0, guaranteed_memory: int = 0, burstable_memory: int = 0) -> None:
        self.burstable_milli_cpu = burstable_milli_cpu
        self.guaranteed_memory, self.burstable_memory = guaranteed_memory, burstable_memory


NO_PODS = PodRequests()


def qos_tiers(root_parts: Sequence[str], driver: str, page_sizes: Sequence[int], absolute: Mapping[str, Quantity],
              rules: MemoryRules, requests: PodRequests = NO_PODS) -> dict[str, PlannedCgroup]:
    """The burstable and besteffort cgroups as the QoS manager's UpdateCgroups leaves them."""
    policy, guaranteed_requests, burstable_requests = rules.policy, requests.guaranteed_memory, requests.burstable_memory
    unbounded = dict((size, cgmath.HUGETLB_UNBOUNDED) for size in page_sizes)
    burstable: dict[str, Any] = {'cpu_shares': cgmath.milli_cpu_to_shares(requests.burstable_milli_cpu), 'hugetlb': dict(unbounded)}
    besteffort: dict[str, Any] = {'cpu_shares': cgmath.MIN_SHARES, 'hugetlb': dict(unbounded)}
    if rules.memory_qos:
        if policy is None:
            if burstable_requests > 0:
                burstable['memory_min'] = burstable_requests
        else:
            burstable['memory_low'] = burstable_requests if policy == 'TieredReservation' else 0
    elif rules.clears_when_off:
        burstable['memory_low'] = 0
    percent = rules.qos_reserved.get('memory')
    allocatable_memory = absolute['memory'].value() if 'memory' in absolute else 0
    if percent is not None and allocatable_memory:
        burstable['memory'] = allocatable_memory - (guaranteed_requests * percent // 100)
        besteffort['memory'] = burstable['memory'] - (burstable_requests * percent // 100)
    return dict((key, planned_cgroup(key, names.new_cgroup_name(root_parts, key), driver, values, page_sizes,
                                     enforced=True))
                for key, values in (('burstable', burstable), ('besteffort', besteffort)))


def _reserved_cgroup(scope: str, cgroup_name: str, reserved: Mapping[str, Quantity], enforce: Sequence[str], driver: str,
                     page_sizes: Sequence[int], memory_qos: bool, policy: str | None, out_of_swap: bool = False,
                     all_cpus: str | None = None) -> PlannedCgroup | None:
    full, compressible = '%s-reserved' % scope, '%s-reserved-compressible' % scope
    enforced = full in enforce or compressible in enforce
    if not cgroup_name:
        return None
    parts = names.check_reserved_cgroup(cgroup_name, driver, '%s_reserved_cgroup' % scope)
    config = {}
    if enforced:
        config = cgroup_config(reserved, compressible_only=compressible in enforce)
        # enforceExistingCgroup: with MemoryQoS on, memory.min is the memory reserved, whatever
        # memoryReservationPolicy says (the policy governs kubepods and the QoS tiers only).
        if 'memory' in config and memory_qos:
            config['memory_min'] = config['memory']
        if all_cpus:
            config['cpuset'] = all_cpus
    if out_of_swap:
        # Ours, not kubelet's: the system and kube daemons never swap (cgroup v2, MemorySwapMax=0).
        config['memory_swap_max'] = 0
    planned = planned_cgroup('%s_reserved' % scope, parts, driver, config, page_sizes if enforced else [],
                             enforced=enforced,
                             enforcement=full if full in enforce else (compressible if enforced else None),
                             configured_name=cgroup_name)
    if enforced or not names.systemd_owned(planned.path or ''):
        planned = own_unwritten_files(planned, config)
    return planned


_OWNED_DEFAULTS: dict[tuple[cgfiles.ControlFile, ...], dict[str, Any]] = {}


def _owned_defaults(rows: tuple[cgfiles.ControlFile, ...]) -> dict[str, Any]:
    """The files and properties of rows at the kernel's defaults, rendered once a process for each set of rows."""
    if rows not in _OWNED_DEFAULTS:
        _OWNED_DEFAULTS[rows] = cgmath.resource_files(dict((row.key, row.default) for row in rows), [])
    return _OWNED_DEFAULTS[rows]


def own_unwritten_files(planned: PlannedCgroup, config: Mapping[str, Any]) -> PlannedCgroup:
    """Ours, not kubelet's: a reserved cgroup the collection makes or enforces holds in memory.min, memory.low and
    memory.swap.max the plan's value, else the kernel's default, so that a hand-set protection or swap limit there
    is drift the audit reports and a run repairs (cgroup v2; v1 has none of these files)."""
    owned = _owned_defaults(tuple(row for row in cgfiles.OWNED_BY_DEFAULT if config.get(row.key) is None))
    return planned.owning(owned['v2_files'], owned['systemd_properties']['v2'])
