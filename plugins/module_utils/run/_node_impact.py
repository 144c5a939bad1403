# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A plan's impact on the node it is for (_impact), read from that node: its pods (_node_pods), kubelet's
configuration as it reads it now (staticPodPath, maxPods, featureGates), and the use and limit of the cgroups whose
memory limit the plan sets (_cgroup_usage). Read only.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _impact
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import parse_qos_reserved
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroup_usage import squeezed_memory
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._detect import swap_controller
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_config_file import current_config
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_totals import swap_total
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_pods import api_pods, static_pods
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_cgroups import kubelet_config_read_paths
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import NodeSnapshot
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec

if TYPE_CHECKING:  # the pod model is imported when the first pod is met (pod_model)
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._admission import Candidate

DEFAULT_MAX_PODS = 110


def kubelet_config_now(spec: NodeSpec, node: NodeSnapshot) -> dict[str, Any]:
    """kubelet's configuration as it reads it now: the file it is started with (else the one named, else the first
    known one) and its --config-dir drop-ins."""
    return current_config(kubelet_config_read_paths(spec, node), (node.kubelet or {}).get('config_dir'),
                          files=node.files)


class NodePods(object):
    """The pods kubelet admits again at its restart, read once: candidates (_admission.Candidate) and the words
    for where they came from (empty when nothing says which pods the node runs); swap: what the pods' container
    values read of the node's swap (read_swap), None when it was not read (no pods, or no layout given)."""

    __slots__ = ('candidates', 'sources', 'swap')

    def __init__(self, candidates: Sequence[Candidate], sources: Sequence[str],
                 swap: Mapping[str, Any] | None = None) -> None:
        self.candidates, self.sources, self.swap = candidates, sources, swap

    def describe(self) -> str:
        """Where the pods came from, in words."""
        return ' and '.join(self.sources)


def read_pods(spec: NodeSpec, config: Mapping[str, Any], layout: CgroupLayout | None = None) -> NodePods:
    """The node's pods: the static pods of kubelet's staticPodPath (or the static_pod_path option) and the API
    server's pods of this node (the pods option); with the node's cgroup layout, pods found and a swapBehavior in
    kubelet's configuration, the node's swap their containers' values then depend on (read_swap)."""
    static_path = spec.static_pod_path or config.get('staticPodPath')
    candidates = static_pods(static_path, spec.node_root, spec.proc_path) + api_pods(spec.pods)
    sources = (['static pods (%s)' % static_path] if static_path else []) + (['the API server'] if spec.pods else [])
    swap_behavior = config['memorySwap'].get('swapBehavior') if isinstance(config.get('memorySwap'), dict) else None
    swap = read_swap(spec, layout) if layout is not None and candidates and swap_behavior else None
    return NodePods(candidates, sources, swap)


def read_swap(spec: NodeSpec, layout: CgroupLayout) -> dict[str, Any]:
    """What kubelet reads of the node's swap for a container's memory.swap.max (pod_cgroup_info's options):
    swap_capacity, SwapTotal of meminfo (cAdvisor's MachineInfo.SwapCapacity, which LimitedSwap shares out), and
    swap_controller, kubelet's swapControllerAvailable."""
    return {'swap_capacity': swap_total(spec.proc_path),
            'swap_controller': swap_controller(layout, spec.cgroupfs_path, spec.proc_path)}


def read_impact(spec: NodeSpec, node: NodeSnapshot, plan: NodePlan, rules: KubeletRules | None = None,
                pods: NodePods | None = None, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The impact of a NodePlan on the node a NodeSnapshot shows (spec: the NodeSpec, whose pods option holds the API
    server's pods of this node, and static_pod_path, else kubelet's). rules: the run's KubeletRules, else the
    plan's release. pods: the NodePods read already (read_pods), else read here; config: kubelet's configuration as
    it reads it now (RunPlan.kubelet_config_now), else read here."""
    config = kubelet_config_now(spec, node) if config is None else config
    rules = kubelet_rules(rules or plan.kubelet_version)
    # The run validated them already; a preview reads them as they are.
    gates: Mapping[str, bool] = config['featureGates'] if isinstance(config.get('featureGates'), dict) else {}
    pods_read = pods or read_pods(spec, config)
    candidates, sources = pods_read.candidates, pods_read.sources
    max_pods = plan.value('allocatable', 'pods') or config.get('maxPods') or DEFAULT_MAX_PODS
    admitted: dict[str, Any] | None = None
    unknown = None
    tier_limits: dict[str, int] = {}
    if sources:
        # Nothing to admit, no admission rules: the pod model is imported only for pods (_pod_settings.pod_model).
        admission_rules = _impact.admission_rules(rules, gates) if candidates else None
        allocatable = _impact.allocatable_values(plan, max_pods) if candidates else None
        admitted = _impact.pods_impact(candidates, allocatable, admission_rules, pods_read.describe())
        if gates.get('QOSReserved'):
            percent = parse_qos_reserved(config.get('qosReserved'), gates, 'qosReserved').get('memory')
            tier_limits = _impact.qos_tier_limits(plan, admitted['admission'], candidates, percent, admission_rules)
    else:
        unknown = ('pods unknown: kubelet reads no staticPodPath and no pods were given from the API server '
                   '(the pods option)')
    usage: dict[str, Any] = {}
    limits_now: dict[str, int | None] = {}
    for key in _impact.LIMITED + tuple(tier_limits):
        planned = plan.cgroup(key)
        if planned:
            squeezed = squeezed_memory(node.layout.mode, dict(node.layout.v1_hierarchies), spec.cgroupfs_path,
                                       planned.path, _impact.memory_limit_after(plan, key, tier_limits))
            if squeezed:
                limits_now[key], usage[key] = squeezed['limit_now'], squeezed['used']
    memory = _impact.memory_impact(plan, usage, limits_now) + _impact.qos_tier_impact(plan, tier_limits, usage,
                                                                                      limits_now)
    return _impact.assemble(admitted, memory, unknown)
