# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups' one entry point: lock, read the node once, plan once, run the driver's executor, read back.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._audit import compare
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_executor import executor_for
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_impact import read_impact
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_lock import NodeLock
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import read_node


def resolve(host, spec, run_command):
    """The node read once, the run planned once from that reading, and its driver's executor. When the node
    cannot be read, a bad option is still named first (validate_options)."""
    try:
        node = read_node(spec, host.systemctl, run_command)
    except (KubenodeError, IOError, OSError):
        ops.validate_options(spec)
        raise
    run = ops.plan_run(spec, node)
    return executor_for(run.driver)(host, spec, node, run, spec.check_mode), node, run


def read_back(host, spec, run, restart_pending, run_command):
    """The node compared with its plan after the writes, as node_drift_info would report it: the node read
    again, the same plan (not planned again)."""
    node = read_node(spec, host.systemctl, run_command)
    again = ops.replan_kubelet_change(spec, node, run)
    # What the role's restart is about to move is not drift yet.
    return compare(host, spec, node, again, spec.kubelet_config_option('allow_driver_mismatch', False),
                   ignore_restarts=set(pending['service'] for pending in restart_pending))


def refuse_unaccepted(impact, accepted):
    """The gate: a plan that would stop running pods or push a cgroup under its use is refused before the first
    write, the impact its message, unless the operator accepted it (accept_impact)."""
    if impact['effects'] and not accepted:
        raise KubenodeError('this change would hurt what runs on the node; nothing was written. %s. Set accept_impact '
                            'to true to apply it anyway.' % '; '.join(impact['effects']), field='accept_impact',
                            value=False)


def apply(host, spec, run_command):
    """One node_cgroups run: a result dict for exit_json, with 'failed' (and an honest account of what was
    applied before the failure) when it failed, and 'warnings' for the module to show."""
    executor = impact = None
    # Check mode writes nothing, so it needs no lock (and no write access to /run/lock).
    lock = _NoLock() if spec.check_mode else NodeLock(spec.lock_path, spec.lock_timeout)
    try:
        with lock:
            executor, node, run = resolve(host, spec, run_command)
            if spec.state == 'present':
                impact = read_impact(spec, node, run.plan)
                refuse_unaccepted(impact, spec.accept_impact)
                executor.present()
                restart_pending = executor.find_restarts()
            else:
                executor.absent()
                restart_pending = []
            verification = None
            if spec.verify and executor.changes and spec.state == 'present' and not spec.check_mode:
                verification = read_back(host, spec, run, restart_pending, run_command)
    except (KubenodeError, IOError, OSError) as error:
        message = str(error) if isinstance(error, KubenodeError) else str(host_error('change', error))
        applied = executor.applied if executor else []
        if applied:
            message += (' %d change(s) were applied before this failure (see applied) and the rest were not; '
                        'fix the cause and run again to complete the change.' % len(applied))
        changes = executor.changes if executor else []
        return dict(failed=True, msg=message, changed=bool(applied), applied=applied, changes=changes,
                    failed_step=changes[-1] if changes else None, warnings=executor.warnings if executor else [],
                    impact=impact)
    result = dict(changed=bool(executor.changes), changes=executor.changes, cgroup_mode=executor.layout['mode'],
                  driver=executor.driver, managed=dict((k, executor.path_for(e)) for k, e in executor.entries),
                  services_changed=executor.services_changed, services_not_installed=executor.skipped_services,
                  plan=executor.plan, persistence=executor.persistence, restart_pending=restart_pending,
                  diff=executor.diffs, impact=impact,
                  warnings=executor.warnings + (executor.kubelet_change['warnings'] if executor.kubelet_change else []))
    if executor.kubelet_change and spec.state == 'present':
        result['kubelet_config'] = executor.kubelet_result
    if verification is not None:
        result['verification'] = dict((k, v) for k, v in verification.items() if k != 'warnings')
    return result


class _NoLock(object):
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False
