# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups' one entry point: lock, read the node once, plan once, perform the steps, read back.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._audit import compare
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError, failure_of, host_error, nothing_written
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_steps as steps
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_impact import read_impact
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import Record
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _io_trace
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _generations as generations
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost, KeepingHost, host_for
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _receipt
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _way_back as way_back
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import RunCommand, service_name
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_lock import NodeLock, NoLock
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import NodeSnapshot, read_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_module import NodeModule
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec


def resolve(host: DryHost, spec: NodeSpec, run_command: RunCommand) -> tuple[NodeSnapshot, ops.RunPlan]:
    """The node read once and the run planned once from that reading. When the node cannot be read, a bad option
    is still named first (validate_options)."""
    try:
        node = read_node(spec, host.systemctl, run_command)
    except (KubenodeError, HostError, IOError, OSError):
        ops.validate_options(spec)
        raise
    return node, ops.plan_run(spec, node)


def read_back(host: DryHost, spec: NodeSpec, run: ops.RunPlan, restart_pending: list[dict[str, Any]],
              run_command: RunCommand) -> dict[str, Any]:
    """The node compared with its plan after the writes, as node_drift_info would report it: the node read
    again, the same plan (not planned again)."""
    node = read_node(spec, host.systemctl, run_command)
    again = ops.replan_kubelet_change(spec, node, run)
    # What the role's restart is about to move is not drift yet.
    return compare(DryHost(host.systemctl), spec, node, again, spec.kubelet_config_option('allow_driver_mismatch', False),
                   ignore_restarts=set(pending['service'] for pending in restart_pending))


def refuse_unaccepted(impact: dict[str, Any], accepted: bool) -> None:
    """The gate: a plan that would stop running pods or push a cgroup under its use is refused before the first
    write, the impact its message, unless the operator accepted it (accept_impact)."""
    if impact['effects'] and not accepted:
        raise KubenodeError('this change would hurt what runs on the node: %s. Set accept_impact to true to apply it '
                            'anyway' % '; '.join(impact['effects']), field='accept_impact', value=False)


# The cgroups whose OOM kills the way back's gate counts, besides kubelet's and the runtime's units.
WATCHED = ('kubepods', 'system_reserved', 'kube_reserved')


def keep_generation(host: DryHost, spec: NodeSpec, node: NodeSnapshot, run: ops.RunPlan, node_run: steps.NodeRun,
                    run_command: RunCommand) -> None:
    """Give a live host the generation that keeps what this run writes over (node/_generations): opened at its first
    write, with a revert armed for confirm_timeout seconds when systemd is PID 1."""
    if not isinstance(host, KeepingHost):
        return
    kubelet_files: list[str] = []
    if run.kubelet_change:
        flags = run.kubelet_change.get('flags_file')
        kubelet_files = [run.kubelet_change['path']] + ([flags['path']] if flags else [])
    kubelet_unit = spec.kubelet_unit()
    managed = node_run.managed()
    watched = [managed[key] for key in WATCHED if managed.get(key)]
    units = [kubelet_unit] + [service_name(s) for s in spec.services if service_name(s) != kubelet_unit]
    systemctl = host.systemctl if node.systemd_running else None
    host.generation = generations.Generation(
        spec.generations_dir, spec.lock_path, spec.confirm_timeout, node.systemd_running, run_command,
        lambda path: generations.restart_for(path, spec.systemd_unit_dir, kubelet_unit, kubelet_files), kubelet_unit,
        baseline=lambda: way_back.oom_baseline(node.layout, systemctl, watched, units))


def generation_result(host: DryHost, spec: NodeSpec) -> dict[str, Any] | None:
    """The generation this run kept, else the node's newest (its state: confirmed, inside its window, rolled back)."""
    generation = getattr(host, 'generation', None)  # a KeepingHost's, once the node was read
    kept = generation.result() if generation else None
    found = kept or generations.read_latest(spec.generations_dir)
    if found:
        found['summary'] = generations.describe(found)
    return found


def apply(host: DryHost, spec: NodeSpec, run_command: RunCommand) -> dict[str, Any]:
    """One node_cgroups run on host (node/_hosts: LiveHost, or DryHost in check mode): a result dict for exit_json,
    with 'failed' (and an honest account of what was applied before the failure) when it failed, and 'warnings'
    for the module to show."""
    done: steps.Done | None = None
    impact: dict[str, Any] | None = None
    # Check mode writes nothing, so it needs no lock (and no write access to /run/lock).
    lock = NoLock() if spec.check_mode else NodeLock(spec.lock_path, spec.lock_timeout)
    try:
        with lock:
            node, run = resolve(host, spec, run_command)
            node_run = steps.NodeRun(spec, node, run)
            done = steps.Done(Record(run.warnings))
            keep_generation(host, spec, node, run, node_run, run_command)
            if spec.state == 'present':
                impact = read_impact(spec, node, run.plan, run.rules, config=run.kubelet_config_now)
                refuse_unaccepted(impact, spec.accept_impact)
                steps.present(node_run, host, done)
                restart_pending = steps.find_restarts(node_run, host, done)
            else:
                steps.absent(node_run, host, done)
                restart_pending = []
            verification = None
            if spec.verify and done.record.changes and spec.state == 'present' and not spec.check_mode:
                verification = read_back(host, spec, run, restart_pending, run_command)
    except (KubenodeError, HostError, IOError, OSError) as error:
        message = str(error) if isinstance(error, (KubenodeError, HostError)) else str(host_error('change', error))
        record = done.record if done else Record()
        if record.applied:
            message += (' %d change(s) were applied before this failure (see applied) and the rest were not; '
                        'fix the cause and run again to complete the change.' % len(record.applied))
        else:
            message = nothing_written(message)
        return dict(failed=True, msg=message, failure=failure_of(error), changed=bool(record.applied), applied=record.applied,
                    changes=record.changes, failed_step=record.changes[-1] if record.changes else None,
                    warnings=record.warnings + (done.held_warnings if done else []), impact=impact,
                    generation=generation_result(host, spec))
    record = done.record
    result = dict(changed=bool(record.changes), changes=record.changes, cgroup_mode=node.layout.mode,
                  driver=run.driver, managed=node_run.managed(), services_changed=done.services_changed,
                  services_not_installed=done.skipped_services, plan=run.plan.as_dict(), persistence=done.persistence,
                  restart_pending=restart_pending, diff=record.diffs, impact=impact,
                  generation=generation_result(host, spec),
                  warnings=record.warnings + (run.kubelet_change['warnings'] if run.kubelet_change else [])
                  + done.held_warnings)
    if run.kubelet_change and spec.state == 'present':
        result['kubelet_config'] = done.kubelet_result
    if verification is not None:
        result['verification'] = dict((k, v) for k, v in verification.items() if k not in ('warnings', 'plan'))
        result['verification']['plan'] = verification['plan'].as_dict()
    return result


def run_and_keep(module: NodeModule, spec: NodeSpec) -> tuple[dict[str, Any], str | None]:
    """apply() on the module's node, its reads traced, and the receipt kept (run/_receipt) when the node is left with
    nothing to change: (result, None when kept, else why not). A run that wrote is followed by a dry pass, traced:
    what the next run will read and answer."""
    if spec.check_mode or not spec.use_receipt:
        return (apply(host_for(module), spec, module.run_command),
                'use_receipt is false' if not spec.use_receipt else 'not kept by a check run')
    with _io_trace.Trace(module) as trace:
        result = apply(host_for(module), spec, module.run_command)
    if result.get('failed'):
        return result, 'the run failed'
    kept = result
    if result['changed']:
        with _io_trace.Trace(module) as trace:
            kept = apply(DryHost(systemd.runner(module)), spec, module.run_command)
        if kept.get('failed') or kept['changed']:
            return result, 'the node had changes left after this run'
    return result, _receipt.keep(module, trace, kept)
