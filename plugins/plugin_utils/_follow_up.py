# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the node_allocatable role does after node_cgroups changed a node, as steps without I/O: the restarts to
make (node_restart, which then waits for the restarted kubelet's health on the node), how long the API server's
gate waits, whether node_cgroups' own read-back stands for the audit, and the arguments of the modules that do the
rest. role_node_cgroups runs them in the same task (plugins/action/role_node_cgroups.py).

PRIVATE plugin_utils: internal to kubenode.cgroups, may change without notice.

Why one task: every task costs every host a worker on the controller, whether it runs or is skipped, about 1.3 s
per 100 hosts (docs/performance.md, "Folding the follow-up"). The restarts, the health gate, the audit and its
measurement were four such tasks after every change. The verdict on drift stays a task of the role's, after the
report, which only a node that differs from its plan runs.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

# A Kubernetes object as the API server returns it (a Node, a Pod, an Event), and a node_allocatable_ variable's
# templated value by its name without the prefix.
ApiObject = Mapping[str, Any]
RoleValue = Callable[[str], Any]

KUBELET = 'kubelet.service'
# Seconds between two questions to the API server for the restarted kubelet's Node (kubelet's own health endpoint is
# asked on the node, every second, by node_restart). A question is one GET of one Node, in the controller's process.
API_DELAY = 2
# The steps, as their failures name them (the node playbook's fleet report shows the message).
RESTART_STEP = 'Restart what runs with an older configuration or slice than the one on disk'
HEALTH_STEP = 'Wait until the restarted kubelet is healthy before the next batch goes'
AUDIT_STEP = 'Verify the node against the plan'
MEASURE_STEP = 'Measure what the reserved cgroups use against what was reserved'
PREVIEW_STEP = 'Preview the kubelet upgrade (node_audit_upgrade_to)'
API_STEP = 'Wait until the API server has the node Ready after kubelet\'s restart, with no pod rejected by its admission'
# The reasons kubelet's admission gives a pod it rejects (lifecycle.PodAdmitResult; "OutOf" + the resource for
# resources): a pod failed with one of these after the restart was refused by the new configuration.
ADMISSION_REASONS = ('UnexpectedAdmissionError', 'NodeAffinity', 'NodeName', 'PodOSNotSupported', 'InvalidNodeInfo')


def restarts_to_make(pending: Iterable[Mapping[str, Any]] | None, restart_kubelet: bool,
                     restart_runtime: bool) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(the restarts to make, those left to the operator) of node_cgroups' restart_pending: kubelet's with
    node_allocatable_restart_kubelet, the others (the runtime's) with node_allocatable_restart_runtime. The order is
    node_cgroups': the runtime before kubelet."""
    chosen: list[Mapping[str, Any]] = []
    left: list[Mapping[str, Any]] = []
    for item in pending or []:
        wanted = restart_kubelet if item.get('service') == KUBELET else restart_runtime
        (chosen if wanted else left).append(item)
    return chosen, left


def restarts_line(restarted: Iterable[Mapping[str, Any]], left: Sequence[Mapping[str, Any]]) -> str:
    """The line "Show the plan" adds for the restarts: what this run restarted (or, in check mode, would), and
    what it left to the operator (node_allocatable_restart_kubelet or _runtime off)."""
    line = 'restarted:     %s' % (', '.join('%s (%s)' % (entry['service'], entry.get('reason'))
                                            for entry in restarted if entry['changed']) or 'nothing')
    if left:
        line += '; left to the operator: %s' % ', '.join(item['service'] for item in left)
    return line


def api_tries(timeout: float, delay: float = API_DELAY) -> int:
    """How many times the API server is asked for the Node: once, then every delay seconds until timeout has passed."""
    return int(math.ceil(float(timeout) / delay)) + 1


def restart_args(services: Sequence[str], health_url: str | None, health_timeout: Any) -> dict[str, Any]:
    """node_restart's arguments: the services in node_cgroups' order, and kubelet's health endpoint to wait for after
    them (none when the gate does not wait: no kubelet restarted, check mode, or no URL)."""
    module_args: dict[str, Any] = {'services': list(services)}
    if health_url:
        module_args.update(health_url=health_url, health_timeout=int(health_timeout))
    return module_args


def restart_failure(result: Mapping[str, Any], health_timeout: Any) -> str:
    """The step a failed node_restart stopped at, as the role names it: the restart systemd refused (and the
    service), or the health gate."""
    if result.get('failed_step') == 'health':
        return '%s: %s' % (HEALTH_STEP, result.get('msg') or 'kubelet did not answer within %s s' % health_timeout)
    service = result.get('failed_service')
    return '%s%s: %s' % (RESTART_STEP, ' (%s)' % service if service else '', result.get('msg') or 'failed')


def health_gate_needed(health_url: Any, check_mode: bool, restarted: Iterable[Mapping[str, Any]]) -> bool:
    """The gate waits only for a kubelet this run restarted, and not in check mode (nothing was restarted)."""
    return bool(health_url) and not check_mode and any(
        entry['service'] == KUBELET and entry['changed'] for entry in restarted)


def audit_wanted(verify: str | None, changed: Any) -> bool:
    """node_allocatable_verify: always, or changed and the run changed the node."""
    return verify == 'always' or (verify == 'changed' and bool(changed))


def read_back_stands(outcome: Mapping[str, Any], restarted: Iterable[Mapping[str, Any]]) -> bool:
    """node_cgroups' read-back (its verification, made in its own round trip) is the audit when every service it
    found needing a restart was restarted: it leaves those services out. Otherwise node_drift_info reads the node."""
    if not isinstance(outcome.get('verification'), dict):
        return False
    return len(outcome.get('restart_pending') or []) == len([entry for entry in restarted if entry['changed']])


def drift_info_args(outcome: Mapping[str, Any], role: RoleValue, args: Mapping[str, Any]) -> dict[str, Any]:
    """node_drift_info's arguments for the node node_cgroups just planned: its plan, the kubelet configuration it
    chose, the paths it was given. role(name) is a node_allocatable_ variable's templated value."""
    choice = (outcome.get('kubelet_config') or {}).get('choice') or {}
    module_args = {
        'plan': outcome['plan'],
        'services': role('services'),
        'check_kubelet_config': True,
        'kubelet_settings': role('kubelet_settings') or {},
        'allow_driver_mismatch': bool(role('allow_driver_mismatch')),
        'persist': role('persist'),
        # What the node names (kubelet's --config in its unit or process) is read under its root, as node_cgroups
        # read it: under '/' a fake node's kubelet would name another file than the one chosen. The paths below are
        # already under the root, and stay as they are.
        'node_root': args.get('node_root') or '/',
    }
    for option in ('cgroupfs_path', 'proc_path', 'systemd_control_dirs', 'containerd_config_path',
                   'crio_config_paths', 'systemd_unit_dir', 'persist_script', 'kubelet_root_dir', 'generations_dir'):
        module_args[option] = args[option]
    path = choice.get('path') or role('kubelet_config_path')
    if path:
        module_args['kubelet_config_path'] = path
    dropin = choice['dropin'] if 'dropin' in choice else role('kubelet_config_dropin')
    if dropin is not None:
        module_args['kubelet_config_dropin'] = dropin
    dropin_dir = choice.get('dropin_dir') or (args.get('kubelet_config') or {}).get('kubelet_dropin_dir')
    if dropin_dir:
        module_args['kubelet_dropin_dir'] = dropin_dir
    return module_args


def reservation_info_args(plan: Any, sample_seconds: int, args: Mapping[str, Any]) -> dict[str, Any]:
    """reservation_info's arguments: what the reserved cgroups of this plan use, over sample_seconds."""
    return {'plan': plan, 'sample_seconds': sample_seconds, 'cgroupfs_path': args['cgroupfs_path'],
            'proc_path': args['proc_path'], 'node_root': '/'}


def preview_args(outcome: Mapping[str, Any], role: RoleValue, args: Mapping[str, Any], target: str) -> dict[str, Any]:
    """node_drift_info's arguments for the upgrade preview of the node node_cgroups just planned (the audit
    playbook's node_audit_upgrade_to): drift_info_args, but the plan options node_cgroups was given as settings,
    planned by node_drift_info for the node's release and for target alike, instead of the plan, which is for one."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import (
        PLAN_NODE_PATHS, plan_argument_spec)
    module_args = drift_info_args(outcome, role, args)
    del module_args['plan']
    options = plan_argument_spec()
    module_args['settings'] = dict((name, value) for name, value in args.items()
                                   if name in options and name not in PLAN_NODE_PATHS and value is not None)
    module_args.update((name, args[name]) for name in PLAN_NODE_PATHS if args.get(name) is not None)
    module_args['upgrade_to'] = target
    return module_args


def audit_result(comparison: Mapping[str, Any], check_mode: bool) -> dict[str, Any]:
    """node_audit_result, as the node_audit role keeps it: the comparison, and whether it was a dry run."""
    result = dict((key, value) for key, value in comparison.items()
                  if key not in ('changed', 'failed', 'invocation', 'warnings', 'deprecations'))
    result['check_mode'] = bool(check_mode)
    return result


def module_failure(step: str, result: Mapping[str, Any]) -> str:
    """The message of a module the role ran for a step, failed: the step's name first, as the report shows it."""
    return '%s: %s' % (step, result.get('msg') or 'failed')


def ready_condition(node: ApiObject | None) -> tuple[str | None, str | None, str]:
    """(status, lastHeartbeatTime, reason and message) of a Node's Ready condition, from the API server's object;
    (None, None, '') when it has none."""
    for condition in ((node or {}).get('status') or {}).get('conditions') or []:
        if condition.get('type') == 'Ready':
            said = ': '.join(part for part in (condition.get('reason'), condition.get('message')) if part)
            return condition.get('status'), condition.get('lastHeartbeatTime'), said
    return None, None, ''


def ready_after(node: ApiObject | None, heartbeat_before: str | None) -> bool:
    """Whether the Node is Ready by a heartbeat kubelet posted after heartbeat_before (the Ready condition's
    lastHeartbeatTime read before the restart; None: any). A Ready condition the old kubelet posted stays in the API
    server for up to 40 s after it stopped (the node lifecycle controller's grace period): only a newer heartbeat
    comes from the restarted kubelet. RFC 3339 UTC times in the API's one form compare as strings."""
    status, heartbeat, _said = ready_condition(node)
    return status == 'True' and heartbeat is not None and (heartbeat_before is None or heartbeat > heartbeat_before)


def rejected_by_admission(pods: Iterable[ApiObject] | None) -> dict[str, str]:
    """{'namespace/name': reason} of the pods kubelet's admission rejected (phase Failed, an admission reason)."""
    rejected = {}
    for pod in pods or []:
        status = pod.get('status') or {}
        reason = status.get('reason') or ''
        if status.get('phase') == 'Failed' and admission_reason(reason):
            meta = pod.get('metadata') or {}
            rejected['%s/%s' % (meta.get('namespace'), meta.get('name'))] = reason
    return rejected


def admission_reason(reason: str | None) -> bool:
    return bool(reason) and (str(reason).startswith('OutOf') or reason in ADMISSION_REASONS)


def live_pod_uids(pods: Iterable[ApiObject] | None) -> set[str | None] | None:
    """The UIDs of the pods that had not ended (neither Failed nor Succeeded), or None when the pods are unknown."""
    if pods is None:
        return None
    return set((pod.get('metadata') or {}).get('uid') for pod in pods
               if (pod.get('status') or {}).get('phase') not in ('Failed', 'Succeeded'))


def rejected_in_events(events: Iterable[ApiObject] | None, node_name: str, since: str | None,
                       live_uids: set[str | None] | None = None) -> dict[str, str]:
    """{'namespace/name': reason} of the pods kubelet's admission rejected, from the Warning events kubelet of
    node_name recorded (kubelet.rejectPod): those of a pod that was alive before the restart (live_uids, from the pods
    read before the change - a pod once rejected never runs again, and events outlive their pods), else those after
    since (an RFC 3339 time of the node's clock; kubelet stamps its events so, though its Ready heartbeat may be
    minutes old). The pod's phase alone does not say it: a rejected pod whose containers were running and exited 0
    when stopped ends Succeeded (seen on kubelet 1.37 with a pause container)."""
    rejected = {}
    for event in events or []:
        source, involved = event.get('source') or {}, event.get('involvedObject') or {}
        stamp = event.get('lastTimestamp') or event.get('eventTime') or event.get('firstTimestamp') or ''
        recent = involved.get('uid') in live_uids if live_uids is not None else (since is None or str(stamp) > since)
        if (source.get('component') == 'kubelet' and source.get('host') == node_name
                and admission_reason(event.get('reason')) and involved.get('kind') == 'Pod' and recent):
            rejected['%s/%s' % (involved.get('namespace'), involved.get('name'))] = str(event.get('reason'))
    return rejected


def newly_rejected(before: Mapping[str, str], after: Mapping[str, str], accepted: Iterable[str] | None) -> list[str]:
    """The pods rejected after the restart that were not before, less those the accepted impact preview named
    (node_allocatable_accept_impact: the operator agreed to lose them): ['namespace/name (reason)']."""
    return ['%s (%s)' % (pod, reason) for pod, reason in sorted(after.items())
            if pod not in before and pod not in set(accepted or ())]


def accepted_still_running(accepted: Iterable[str] | None, pods: Iterable[ApiObject] | None) -> list[str]:
    """The pods the accepted preview named that the API server shows neither rejected nor ended after kubelet's
    restart: kubelet re-admitted them by the Node's Allocatable the API server still held from before its restart
    (its predicate admission reads the informer's Node, kubelet.GetCachedNode, until its first status update), so they run
    on over the new Allocatable until its next restart."""
    named = set(accepted or ())
    found = []
    for pod in pods or []:
        meta, status = pod.get('metadata') or {}, pod.get('status') or {}
        key = '%s/%s' % (meta.get('namespace'), meta.get('name'))
        if key in named and status.get('phase') not in ('Failed', 'Succeeded'):
            found.append(key)
    return sorted(found)


def refused_by_preview(outcome: Mapping[str, Any]) -> list[str]:
    """The pods the impact preview said the change refuses ('namespace/name')."""
    pods = ((outcome.get('impact') or {}).get('pods') or {})
    return [row.get('pod') for row in pods.get('refused') or [] if row.get('pod')]


def api_gate_line(node_name: str, node: ApiObject | None, rejected: Iterable[str], readmitted: Sequence[str] = ()) -> str:
    """The line "Show the plan" adds for the API server's word after the restart (and the pods kubelet was restarted
    again for, to judge them by the new Allocatable)."""
    _status, heartbeat, _said = ready_condition(node)
    allocatable = ((node or {}).get('status') or {}).get('allocatable') or {}
    shown = ', '.join('%s %s' % (name, allocatable[name]) for name in ('cpu', 'memory', 'pods') if name in allocatable)
    line = 'API server:    node %s Ready (heartbeat %s), Allocatable %s; rejected by admission: %s' % (
        node_name, heartbeat, shown or 'not reported', ', '.join(rejected) or 'none')
    if readmitted:
        line += ('; kubelet restarted again to judge %s by the new Allocatable (it had judged them by the one the API '
                 'server held from before its restart)' % ', '.join(readmitted))
    return line
