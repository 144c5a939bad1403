# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a plan does to what already runs on the node, said before it lands (issue 37): the pods kubelet no longer
admits when it restarts with the plan's Allocatable, and the memory limits the plan lowers under what their cgroup
uses now (the kernel reclaims, then OOM-kills; cgroup v1 refuses the write with EBUSY).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure: the pods (_node_pods) and the cgroups' use (_cgroup_usage) are read by the caller.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_math import squeezes
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import (
    BURSTABLE, GUARANTEED, pod_model)

MIB = 1048576
# The cgroups whose memory limit the plan sets, in the order they are said.
LIMITED = ('kubepods', 'system_reserved', 'kube_reserved')


def allocatable_values(plan: NodePlan, max_pods: int | None) -> dict[str, Any]:
    """{resource: int64} of the plan's Allocatable as kubelet's admission compares with it (cpu in millicores),
    pods its maxPods."""
    values = dict((name, entry['value']) for name, entry in (plan.allocatable or {}).items())
    values[pod_model().admission.PODS] = max_pods
    return values


def admission_rules(rules: Any, gates: Mapping[str, bool] | None) -> Any:
    return pod_model().admission.AdmissionRules(rules.gate(gates, 'PodLevelResources'), rules.pod_level_hugepages,
                                                rules.gate(gates, 'PodLevelResourcesFixKubeletQOSClass'),
                                                rules.preemption_counts_pod_requests, rules.admission_ties_by_uid)


def pods_impact(candidates: Sequence[Any], allocatable: Mapping[str, Any] | None, rules: Any, source: str) -> dict[str, Any]:
    """The admission of the pods found, and the ones the change stops (or preempts) among those that run now or
    whose state is unknown; a pod that does not run now is no loss of this change. With no candidates, allocatable
    and rules are not read."""
    results = pod_model().admission.admit(candidates, allocatable, rules) if candidates else []
    hurt = [r for r in results if r['running'] is not False]
    # Static pods: kubelet's order is random, so what it refuses is what every order refuses, and what some do.
    refused = [r for r in hurt if (r['static_order'] == 'always') if r['source'] != 'api'] + \
        [r for r in hurt if r['source'] == 'api' and not r['admitted']]
    at_risk = [r for r in hurt if r['source'] != 'api' and r['static_order'] == 'maybe']
    preempting = [r for r in results if r['preempts']]
    return {'source': source, 'count': len(candidates), 'refused': refused, 'at_risk': at_risk,
            'preempting': preempting, 'not_running': [r['pod'] for r in results if r['running'] is False],
            'admission': results}


def memory_limit_after(plan: NodePlan, key: str, tier_limits: Mapping[str, int] | None = None) -> int | None:
    """The memory limit the plan leaves one cgroup with, as memory_impact and qos_tier_impact compare it: a QoS
    tier's from tier_limits (qos_tier_limits), kubepods' and an enforced reserved cgroup's from the plan; else None."""
    if tier_limits and key in tier_limits:
        return tier_limits[key]
    planned = plan.cgroup(key)
    if not planned or not planned.enforced:
        return None
    return planned.resources.get('memory')


def _squeezed(key: str, planned: PlannedCgroup, after: int | None, used: Mapping[str, int] | None,
              now: int | None) -> dict[str, Any] | None:
    """The impact row of one cgroup the new memory limit (after) squeezes (squeezes), else None."""
    if after is None or used is None or not squeezes(after, now, used):
        return None
    return {'cgroup': key, 'path': planned.path, 'limit_now': now, 'limit_after': after, 'usage': used['usage'],
            'working_set': used['working_set'], 'inactive_file': used['inactive_file']}


def memory_impact(plan: NodePlan, usage: Mapping[str, Any], limits_now: Mapping[str, int | None]) -> list[dict[str, Any]]:
    """[{cgroup, path, limit_now, limit_after, usage, working_set, inactive_file}] of kubepods and the enforced
    reserved cgroups the plan squeezes (_squeezed): what the kernel cannot reclaim it OOM-kills."""
    cgroups = plan.cgroups
    rows = [_squeezed(key, cgroups[key], memory_limit_after(plan, key), usage.get(key), limits_now.get(key))
            for key in LIMITED if memory_limit_after(plan, key) is not None]
    return [row for row in rows if row]


def qos_tier_limits(plan: NodePlan, results: Sequence[Mapping[str, Any]], candidates: Sequence[Any], percent: int | None,
                    rules: Any) -> dict[str, int]:
    """{'burstable': bytes, 'besteffort': bytes}: the QoS tiers' memory limits the QoS manager sets with qosReserved
    (qos_container_manager_linux.go, setMemoryReserve) once kubelet re-admitted the pods - Allocatable less percent
    of the admitted Guaranteed pods' memory requests, and of the Burstable ones' too for besteffort - or {} without
    qosReserved."""
    allocatable = plan.value('allocatable_absolute', 'memory')
    if percent is None or not allocatable:
        return {}
    admitted = set(r['pod'] for r in results if r['admitted'])
    requested = {GUARANTEED: 0, BURSTABLE: 0}
    for candidate in candidates:
        qos = pod_model().pods.qos_class(candidate.pod, rules.pod_level, rules.only_set_pod_level)
        if candidate.key in admitted and qos in requested:
            requested[qos] += pod_model().admission.fit_request(candidate.pod, rules, {}).get('memory', 0)
    burstable = allocatable - requested[GUARANTEED] * percent // 100
    return {'burstable': burstable, 'besteffort': burstable - requested[BURSTABLE] * percent // 100}


def qos_tier_impact(plan: NodePlan, limits_after: Mapping[str, int], usage: Mapping[str, Any],
                    limits_now: Mapping[str, int | None]) -> list[dict[str, Any]]:
    """memory_impact's rows for the QoS tiers whose qosReserved limit would fall under their working set now."""
    cgroups = plan.cgroups
    rows = [_squeezed(key, cgroups[key], after, usage.get(key), limits_now.get(key))
            for key, after in sorted(limits_after.items()) if cgroups.get(key)]
    return [row for row in rows if row]


def _mib(value: int) -> str:
    return '%dMi' % (value // MIB) if value % MIB == 0 else '%d bytes' % value


def summary(impact: Mapping[str, Any]) -> list[str]:
    """One line per effect, kubelet's words where kubelet says it: the gate's message and the report's rows."""
    lines = []
    for row in impact['pods']['refused'] if impact['pods'] else []:
        lines.append('pod %s would not be admitted when kubelet restarts: %s (%s)'
                     % (row['pod'], row['reason'], row['message']))
    at_risk = impact['pods']['at_risk'] if impact['pods'] else []
    if at_risk:
        lines.append('static pods %s may not all be admitted when kubelet restarts: they do not all fit, and kubelet '
                     'admits static pods in a random order' % ', '.join(row['pod'] for row in at_risk))
    for row in impact['pods']['preempting'] if impact['pods'] else []:
        lines.append('critical pod %s would preempt %s when kubelet restarts' % (row['pod'], ', '.join(row['preempts'])))
    for row in impact['memory']:
        now = 'unlimited' if row['limit_now'] is None else _mib(row['limit_now'])
        lines.append('%s (%s) memory limit %s -> %s is below its working set %s (use %s, of which %s reclaimable '
                     'page cache): OOM risk' % (row['cgroup'], row['path'], now, _mib(row['limit_after']),
                                                _mib(row['working_set']), _mib(row['usage']), _mib(row['inactive_file'])))
    return lines


def assemble(pods: dict[str, Any] | None, memory: list[dict[str, Any]], pods_unknown_reason: str | None = None) -> dict[str, Any]:
    impact: dict[str, Any] = {'pods': pods, 'memory': memory, 'pods_unknown': pods_unknown_reason}
    impact['effects'] = summary(impact)
    return impact
