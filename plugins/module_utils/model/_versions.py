# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which kubelet rules apply to which kubelet minor release.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import re
from typing import Any, Mapping

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_values import (
    AUTO, DEFAULT_KUBELET_VERSION, NEWEST_MINOR, OLDEST_MINOR)

_VERSION_RE = re.compile(r'^v?1\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?$')


class KubeletRules(object):
    """Version-dependent kubelet behaviour, one flag per rule."""

    def __init__(self, minor: int) -> None:
        self.minor = minor
        self.version = '1.%d' % minor
        self._eviction_rules(minor)
        self._memory_rules(minor)
        self._node_cgroup_rules(minor)
        self._swap_rules(minor)
        self._pod_rules(minor)
        self._cpu_manager_rules(minor)
        self._gate_rules(minor)

    def _eviction_rules(self, minor: int) -> None:
        """Hard eviction and what enforceNodeAllocatable takes."""
        # PR #121834: imagefs.inodesFree joined the default hard-eviction set.
        self.eviction_defaults_include_imagefs_inodes = minor >= 30
        # PR #127577: mergeDefaultEvictionSettings.
        self.has_merge_default_eviction_settings = minor >= 33
        # PR #125982: *-reserved-compressible enforcement keys.
        self.has_compressible_enforcement = minor >= 32
        # PR #124268: enforceNodeAllocatable [none] allowed without cgroupsPerQOS.
        self.none_enforcement_without_qos = minor >= 31
        self.known_enforcement_keys = ['pods', 'system-reserved', 'kube-reserved', 'none']
        if self.has_compressible_enforcement:
            self.known_enforcement_keys = ['pods', 'system-reserved', 'system-reserved-compressible',
                                           'kube-reserved', 'kube-reserved-compressible', 'none']

    def _memory_rules(self, minor: int) -> None:
        """Memory QoS: memory.high, memory.min and memory.low, and what kubelet clears."""
        # memory.high: floor((req + f*(limit-req))/page)*page since 1.27; limit*f before.
        self.memory_high_interpolates = minor >= 27
        # memoryThrottlingFactor: 0.8, 0.9 from 1.27, null (no memory.high) from 1.37 (KEP-2570 "Beta v1.37").
        self.default_memory_throttling_factor = None if minor >= 37 else (0.9 if minor >= 27 else 0.8)
        # PR #138139: from 1.37 a container without a memory request and limit (BestEffort or not) gets memory.high
        # (factor x allocatable) under MemoryQoS: kuberuntime's condition is "request != limit || request == 0";
        # and a container without its own memory limit in a pod with a pod-level memory limit gets none (the pod
        # cgroup's memory.high throttles it).
        self.memory_high_without_request = minor >= 37
        self.pod_level_memory_high = minor >= 37
        # PRs #138903 and #139377: with MemoryQoS off, kubelet 1.37 resets memory.min of kubepods and memory.low of
        # the burstable tier to 0 at start, and sends memory.high=max for every container it creates or resizes.
        self.clears_memory_qos_when_off = minor >= 37

    def _node_cgroup_rules(self, minor: int) -> None:
        """The node's cgroups: their cpuset, cgroup v1, the memory reservation policy."""
        # PR #125923 (1.32): with the none CPU manager policy, getCgroupConfig gives kubepods and each enforced reserved
        # cgroup every CPU of the node as its cpuset (systemd's AllowedCPUs), so that systemd keeps the cpuset cgroup.
        self.cpuset_on_node_cgroups = minor >= 32
        # failCgroupV1 exists from 1.31 (KEP-4569) and defaults to true from 1.35.
        self.has_fail_cgroup_v1 = minor >= 31
        self.fail_cgroup_v1_default = minor >= 35
        # memoryReservationPolicy (None | TieredReservation) from 1.36.
        self.has_memory_reservation_policy = minor >= 36

    def _swap_rules(self, minor: int) -> None:
        """Swap and the OOM killer."""
        # NodeSwap: beta and on by default with NoSwap as the default behaviour from 1.30, GA (locked) from 1.34.
        self.has_no_swap_behavior = minor >= 30
        self.node_swap_default = minor >= 30
        self.node_swap_locked = minor >= 34
        # PR #125277: containers of critical pods never get swap.
        self.critical_pods_never_swap = minor >= 31
        # PR #117793: memory.oom.group=1 on every container on cgroup v2; PR #126096: singleProcessOOMKill (1.32).
        self.sets_memory_oom_group = minor >= 28
        self.has_single_process_oom_kill = minor >= 32

    def _pod_rules(self, minor: int) -> None:
        """Pods: pod-level resources, limits, OOM scores, admission and the reserved CPU's rounding."""
        # PR #130577: hugepages-* are pod-level resources (IsSupportedPodLevelResource); PR #131089: a container that
        # names no hugepages gets the pod-level hugepage limits.
        self.pod_level_hugepages = minor >= 33
        self.pod_level_hugepages_to_containers = minor >= 34
        # ResourceConfigForPod: from 1.37 a CPU or memory limit counts as declared only when every init and app
        # container has its own (podutil.ContainerIter); before, as the limits aggregation calls back.
        self.limits_declared_by_every_container = minor >= 37
        # qos/policy.go GetContainerOOMScoreAdjust: from 1.32 a sidecar's score is at most its pod's regular
        # containers' lowest (KEP-753); before, every container is scored by its own memory request alone.
        self.sidecar_oom_score_capped = minor >= 32
        # pkg/api/v1/resource GetResourceRequestQuantity, what a critical pod's preemption counts: PodRequests from
        # 1.34 (sidecars, pod-level resources); before, the app containers' sum with each init container's request as
        # a floor (kubernetes 1.33.13's helpers.go).
        self.preemption_counts_pod_requests = minor >= 34
        # util/sliceutils PodsByCreationTime: from 1.38 pods created in the same second are ordered by UID (before,
        # sort.Sort left them as they came), so HandlePodAdditions admits them in that order.
        self.admission_ties_by_uid = minor >= 38
        # qos/helpers.go remainingPodMemReqPerContainer: the unrequested pod-level memory is never negative from 1.37.
        self.remaining_pod_memory_clamped = minor >= 37
        # cmd/kubelet/app parseResourceList: a reserved CPU rounded to the nearest whole millicore from 1.37.
        self.rounds_reserved_cpu = minor >= 37

    def _cpu_manager_rules(self, minor: int) -> None:
        """The static CPU manager policy."""
        # The static CPU manager policy gives no exclusive CPUs to a pod with pod-level resources: in 1.34 and 1.35
        # when PodLevelResources is on, from 1.36 unless PodLevelResourceManagers and PodLevelResources both are (the
        # pod's spec.resources counts even with the gate off); policy_static.go's Allocate.
        self.static_policy_skips_pod_level = 'unless-managers' if minor >= 36 else ('with-gate' if minor >= 34 else None)

    def _gate_rules(self, minor: int) -> None:
        """The defaults of the feature gates the collection reads, and the locked ones."""
        # The defaults of the gates whose values change what kubelet writes (kube_features.go of each release).
        self.gate_defaults = {
            'MemoryQoS': minor >= 37,
            'PodLevelResources': minor >= 34,
            'DisableCPUQuotaWithExclusiveCPUs': minor >= 33,
            'InPlacePodVerticalScaling': minor >= 33,
            'NodeSwap': self.node_swap_default,
            # CPUCFSQuotaPeriod's gate: alpha and off until 1.36, GA and on from 1.36 (kube_features.go).
            'CustomCPUCFSQuotaPeriod': minor >= 36,
            'PodLevelResourceManagers': False,
            # Beta and on from 1.37: empty pod-level resources ({}) no longer decide a pod's QoS class (qos.go).
            'PodLevelResourcesFixKubeletQOSClass': minor >= 37,
            'QOSReserved': False,
        }
        # Gates locked to their default: kubelet refuses another value ("cannot set feature gate X to false,
        # feature is locked to true"). 1.37: the changelog's GA gates, the ones this collection reads among them.
        self.locked_gates = {}
        if self.node_swap_locked:
            self.locked_gates['NodeSwap'] = True
        if minor >= 37:
            self.locked_gates['DisableCPUQuotaWithExclusiveCPUs'] = True

    def gate(self, gates: Mapping[str, bool], name: str) -> bool:
        """Whether gate name is on: as gates set it, else this release's default."""
        return gates.get(name, self.gate_defaults.get(name, False))


def kubelet_rules(version: object = None, field: str = 'kubelet_version') -> KubeletRules:
    """Parse "1.34", "v1.34.2" or "1.34.2-eks-1" into KubeletRules; KubeletRules parsed before are passed on
    as they are (a run parses its release once)."""
    if isinstance(version, KubeletRules):
        return version
    if version is None or version == '':
        version = DEFAULT_KUBELET_VERSION
    if not isinstance(version, str):
        raise KubenodeError('must be a string such as "1.34" (an unquoted 1.30 in YAML is the number 1.3: quote it)',
                            field=field, value=version)
    match = _VERSION_RE.match(version.strip())
    if not match:
        raise KubenodeError('not a Kubernetes version; expected a form like "1.34" or "v1.34.2"',
                            field=field, value=version)
    minor = int(match.group(1))
    if not OLDEST_MINOR <= minor <= NEWEST_MINOR:
        hint = ''
        if OLDEST_MINOR <= minor * 10 <= NEWEST_MINOR and match.group(1) == str(minor):
            # "1.3": YAML reads an unquoted 1.30 as the number 1.3, and a string of it was made somewhere between.
            hint = ' (an unquoted 1.%d0 in YAML is the number 1.%d: quote it, "1.%d0")' % (minor, minor, minor)
        raise KubenodeError('kubelet 1.%d is not supported; supported releases are 1.%d to 1.%d%s'
                            % (minor, OLDEST_MINOR, NEWEST_MINOR, hint), field=field, value=version)
    return KubeletRules(minor)


def minor_of(version: object) -> int | None:
    """The minor release of a version string ("1.34", "v1.34.2", ...), supported or not; None when it is none."""
    match = _VERSION_RE.match(str(version).strip())
    return int(match.group(1)) if match else None


def node_kubelet_release(requested: object, found: Mapping[str, Any] | None, allow_mismatch: bool = False,
                         field: str = 'kubelet_version',
                         mismatch_field: str = 'allow_kubelet_version_mismatch') -> tuple[str, str, list[str]]:
    """(release "1.N", where it came from, warnings): the kubelet release a node is planned for.

    requested: the option ("auto" or empty: the node's). found: _kubelet_discovery.ask_kubelet_version's
    answer about the binary kubelet is started with, with 'started_by' (the unit or process); with 'not_asked' (why)
    where a kubelet was found and its binary deliberately not run; None when no binary could be asked. A release
    the operator names that differs from the node's is refused unless allow_mismatch (a planned upgrade); a node
    newer or older than the supported range is refused, never planned with another release's rules.
    """
    requested = '' if requested is None else requested
    if isinstance(requested, float):
        kubelet_rules(requested, field)  # the unquoted-YAML hint
    requested = str(requested).strip()
    node_version = found.get('version') if found else None
    node_minor = minor_of(node_version) if node_version else None
    if found and node_version and node_minor is not None:
        described = '%s --version of %s (Kubernetes v%s)' % (found['binary'], found['started_by'], node_version)
        if not OLDEST_MINOR <= node_minor <= NEWEST_MINOR:
            newer = node_minor > NEWEST_MINOR
            raise KubenodeError('this node runs kubelet %s (%s), %s than the %s release this collection supports '
                                '(1.%d to 1.%d): its rules are not known here, and planning it with 1.%d\'s would '
                                'be wrong%s' % (node_version, described, 'newer' if newer else 'older',
                                                'newest' if newer else 'oldest', OLDEST_MINOR, NEWEST_MINOR,
                                                NEWEST_MINOR if newer else OLDEST_MINOR,
                                                '; upgrade kubenode.cgroups' if newer else ''),
                                field=field, value=requested or AUTO)
        if requested in ('', AUTO):
            return '1.%d' % node_minor, described, []
        rules = kubelet_rules(requested, field)
        if rules.minor != node_minor and not allow_mismatch:
            raise KubenodeError('the node runs kubelet %s (%s), not %s: a plan for another release would write what '
                                "this kubelet may refuse. Leave %s unset to plan for the node's release, or set %s "
                                'to plan ahead of an upgrade' % (node_version, described, requested, field,
                                                                 mismatch_field),
                                field=field, value=requested)
        if rules.minor != node_minor:
            return rules.version, 'set by the operator for an upgrade (the node runs %s: %s)' % (
                node_version, described), []
        return rules.version, 'set by the operator, and the node agrees (%s)' % described, []
    if requested in ('', AUTO):
        if found and found.get('not_asked'):
            why = 'its binary was not asked: %s' % found['not_asked']
        else:
            why = ('%s --version of %s answered %r' % (found['binary'], found['started_by'], found['output'][:80])
                   if found else 'no kubelet unit, process or binary found')
        return DEFAULT_KUBELET_VERSION, 'the newest GA release, as %s' % why, [
            'the kubelet release could not be read from this node (%s): planned with kubelet %s\'s rules, the newest '
            'GA release; set %s if the node will run another release' % (why, DEFAULT_KUBELET_VERSION, field)]
    return kubelet_rules(requested, field).version, 'set by the operator; %s' % (
        'the node\'s kubelet could not be asked' if not found or found.get('not_asked')
        else 'the node\'s kubelet gave no release'), []
