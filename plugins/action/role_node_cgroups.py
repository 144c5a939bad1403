# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups with its arguments built on the controller from the node_allocatable role's variables.

Why an action: a template for a task's whole argument dict makes ansible-core warn on every run ("Using a
template for task args is unsafe"), and one template per argument costs a compile per host and argument
(docs/performance.md). Here the mapping is Python, each variable is templated once, the module's errors
name the role variables the operator set, and kubespray's own inventory variables can be the source.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import re
import time

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, INPUT, nothing_written
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_pods import api_pods_for_plan
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import NODE_PATHS
from ansible_collections.kubenode.cgroups.plugins.plugin_utils._fleet import WARNINGS_FACT
from ansible_collections.kubenode.cgroups.plugins.plugin_utils._role_spec import (
    entry_point_options, typed_values)

display = Display()

PREFIX = 'node_allocatable_'
MODULE = 'kubenode.cgroups.node_cgroups'
# Set by the node and audit playbooks where they write the fleet report: the node's warnings are said there, once
# for the batch and naming the hosts, not by every host here. The fact (_fleet.WARNINGS_FACT) keeps them for the report.
WARNINGS_ONCE = '__node_allocatable_warnings_once'
# Set by tasks/audit.yml from node_audit_upgrade_to: the audit previews an upgrade to this kubelet release.
UPGRADE_TO = '__node_allocatable_upgrade_to'
# Set by tasks/drain.yml on its run of this task, the node drained for the change: no check-mode plan first.
DRAINED_FOR_CHANGE = '__node_allocatable_drained_for_change'

# The role variables given to node_cgroups under the option of the same name (without the prefix).
SAME_NAME = ('profile', 'system_reserved', 'kube_reserved', 'merge_default_eviction_settings',
             'enforce_node_allocatable', 'cgroup_driver', 'cgroup_root', 'keep_reserved_out_of_swap',
             'feature_gates', 'extra_feature_gates', 'allow_kubelet_version_mismatch', 'persist', 'accept_impact',
             'pods', 'use_receipt', 'confirm_timeout')
# Options given only when the role variable is set (empty or null: the module's own default).
WHEN_SET = ('capacity', 'max_pods', 'eviction_hard', 'reserved_system_cpus', 'qos_reserved', 'kubelet_binary',
            'measured_reservation', 'static_pod_path', 'min_memory_reserved')
# kubelet_config's options and the role variables behind them.
KUBELET_CONFIG_OPTIONS = (('kubelet_config_path', 'kubelet_config_path'), ('kubelet_config_dropin', 'kubelet_config_dropin'),
                          ('kubelet_dropin_dir', 'kubelet_dropin_dir'), ('allow_driver_mismatch', 'allow_driver_mismatch'),
                          ('backup', 'kubelet_config_backup'), ('kubelet_settings', 'kubelet_settings'))

# KubeletConfiguration keys the plan writes, and the option that sets each.
KUBELET_KEYS = (('cgroupDriver', 'cgroup_driver'), ('kubeReserved', 'kube_reserved'), ('systemReserved', 'system_reserved'),
                ('evictionHard', 'eviction_hard'), ('enforceNodeAllocatable', 'enforce_node_allocatable'),
                ('kubeReservedCgroup', 'kube_reserved_cgroup'), ('systemReservedCgroup', 'system_reserved_cgroup'),
                ('reservedSystemCPUs', 'reserved_system_cpus'), ('featureGates', 'feature_gates'),
                ('maxPods', 'max_pods'), ('qosReserved', 'qos_reserved'))

# The node's paths (_node_argspec.NODE_PATHS, the modules' defaults): option, the role variable that sets it
# (its name without the prefix), its usual place under node_allocatable_root.
PATHS = tuple((option, option, usual) for option, usual in NODE_PATHS if option != 'kubelet_config_paths')
KUBELET_CONFIG_PATHS = tuple(dict(NODE_PATHS)['kubelet_config_paths'])

# kubespray's variables (roles/kubernetes/node/defaults/main.yml) and their defaults there: kubespray's
# kubelet template always writes both reservation maps, with these values when the inventory sets none.
KUBESPRAY_RESERVED = (
    ('kube', 'cpu', 'kube_cpu_reserved', '100m'),
    ('kube', 'memory', 'kube_memory_reserved', '256Mi'),
    ('kube', 'ephemeral-storage', 'kube_ephemeral_storage_reserved', '500Mi'),
    ('kube', 'pid', 'kube_pid_reserved', '1000'),
    ('system', 'cpu', 'system_cpu_reserved', '500m'),
    ('system', 'memory', 'system_memory_reserved', '512Mi'),
    ('system', 'ephemeral-storage', 'system_ephemeral_storage_reserved', '500Mi'),
    ('system', 'pid', 'system_pid_reserved', '1000'),
)
KUBESPRAY_VARIABLES = tuple(name for _scope, _resource, name, _default in KUBESPRAY_RESERVED) + (
    'kube_reserved', 'system_reserved', 'kube_reserved_cgroups', 'system_reserved_cgroups',
    'kube_reserved_cgroups_for_service_slice', 'system_reserved_cgroups_for_service_slice', 'eviction_hard',
    'kubelet_enforce_node_allocatable', 'kubelet_max_pods', 'kubelet_cgroup_driver', 'kubelet_fail_cgroup_v1',
    'kube_version')
# Set in every kubespray inventory whatever the reservation: not a sign that kubespray's reservation is meant.
KUBESPRAY_CLUSTER_VARIABLES = ('kube_version',)


# kubespray's own variables near the names above, which a misspelling check must not take for one: the control
# plane's reservations (roles/kubernetes/node/defaults/main.yml).
KUBESPRAY_NEIGHBOURS = tuple('%s_master_%s_reserved' % (scope, resource) for scope in ('kube', 'system')
                             for resource in ('cpu', 'memory', 'ephemeral_storage', 'pid'))


def kubespray_misspellings(names):
    """[(name, the kubespray variable it is closest to)] for the variables among names that are a misspelling of one
    this role reads in kubespray mode (kube_memory_reseved): kubespray would ignore them, and so would the plan,
    leaving kubespray's default in place without a word. Only near misses count (difflib's ratio 0.9): kubespray has
    hundreds of other kube_* variables."""
    known = set(KUBESPRAY_VARIABLES) | set(KUBESPRAY_NEIGHBOURS)
    found = []
    for name in names:
        if not isinstance(name, str) or name in known or not name.startswith(('kube', 'system', 'eviction')):
            continue
        close = difflib.get_close_matches(name, KUBESPRAY_VARIABLES, n=1, cutoff=0.9)
        if close:
            found.append((name, close[0]))
    return sorted(found)


def _set(value):
    return value is not None and value != '' and value != {} and value != []


def kubespray_settings(value_of):
    """(node_cgroups options, {option path: kubespray variable}) from kubespray's inventory variables, read
    as kubespray's kubelet template reads them. value_of(name, default) gives a variable's templated value."""
    options, origin = {'profile': 'static'}, {}
    reserved = {'kube': {}, 'system': {}}
    for scope, resource, name, default in KUBESPRAY_RESERVED:
        reserved[scope][resource] = str(value_of(name, default))
        origin['%s_reserved.%s' % (scope, resource)] = name
    options['kube_reserved'], options['system_reserved'] = reserved['kube'], reserved['system']
    origin['kube_reserved'], origin['system_reserved'] = 'kube_*_reserved', 'system_*_reserved'
    # kube_reserved / system_reserved (booleans) decide only the reserved cgroups since kubespray 2.26;
    # kubespray's default for *_reserved_cgroups is "/{{ *_reserved_cgroups_for_service_slice }}".
    for scope in ('kube', 'system'):
        enabled = value_of('%s_reserved' % scope, False)
        service_slice = value_of('%s_reserved_cgroups_for_service_slice' % scope, '%s.slice' % scope)
        options['%s_reserved_cgroup' % scope] = (value_of('%s_reserved_cgroups' % scope, '/%s' % service_slice)
                                                 if enabled in (True, 'true', 'True') else None)
        origin['%s_reserved_cgroup' % scope] = '%s_reserved_cgroups' % scope
    eviction = value_of('eviction_hard', {})
    origin['eviction_hard'] = 'eviction_hard'
    if _set(eviction):
        options['eviction_hard'] = eviction
        # kubespray writes evictionHard as given, without mergeDefaultEvictionSettings: kubelet then drops every
        # default signal the map leaves out, and so does the plan - writing them back would fight kubespray's next
        # run over the file (kubespray_eviction_dropped says so instead).
        options['keep_default_eviction_signals'] = False
    enforce = value_of('kubelet_enforce_node_allocatable', '""')
    if isinstance(enforce, str) and enforce.strip() not in ('', '""'):
        options['enforce_node_allocatable'] = [item.strip() for item in enforce.split(',') if item.strip()]
        origin['enforce_node_allocatable'] = 'kubelet_enforce_node_allocatable'
    elif isinstance(enforce, list):
        options['enforce_node_allocatable'] = enforce
        origin['enforce_node_allocatable'] = 'kubelet_enforce_node_allocatable'
    max_pods = value_of('kubelet_max_pods', None)
    if max_pods is not None:
        options['max_pods'] = max_pods  # node_cgroups checks it is an integer
        origin['max_pods'] = 'kubelet_max_pods'
    driver = value_of('kubelet_cgroup_driver', None)
    if driver:
        options['cgroup_driver'] = driver
        origin['cgroup_driver'] = 'kubelet_cgroup_driver'
    # The release kubespray installs (v1.33.4, or 1.33.4 since kubespray 2.27): the rules the plan follows, and the
    # release the node's kubelet is held to as with node_allocatable_kubelet_version.
    version = value_of('kube_version', None)
    if _set(version):
        options['kubelet_version'] = str(version)
        origin['kubelet_version'] = 'kube_version'
    return options, origin


KUBESPRAY_CONFIG_SUFFIX = '/etc/kubernetes/kubelet-config.yaml'
# kubelet's hard eviction signals by default (pkg/kubelet/eviction/defaults_linux.go), the disk ones a partial
# evictionHard switches off.
KUBELET_DEFAULT_SIGNALS = ('memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available',
                           'imagefs.inodesFree')


def kubespray_eviction_dropped(eviction):
    """A warning, or None: kubespray's eviction_hard leaves out some of kubelet's default signals, which kubelet
    then does not watch on this node; the kubespray variable to set, rather than a file the two would fight over."""
    if not isinstance(eviction, dict) or not eviction:
        return None
    missing = [signal for signal in KUBELET_DEFAULT_SIGNALS if signal not in eviction]
    if not missing:
        return None
    return ('kubespray\'s eviction_hard names %s alone, and kubespray writes it without mergeDefaultEvictionSettings: '
            'kubelet then does not evict on %s here, and the plan says so. To keep them, add them to eviction_hard in '
            'kubespray\'s inventory (kubelet\'s defaults: nodefs.available 10%%, nodefs.inodesFree 5%%, '
            'imagefs.available 15%%, imagefs.inodesFree 5%%, memory.available 100Mi)'
            % (', '.join(sorted(eviction)), ', '.join(missing)))


def kubespray_reservations_dropped(source, outcome):
    """A warning, or None: in role mode on a node whose kubelet reads kubespray's configuration, the reservations this
    run replaces there (kubespray's systemReserved and kubeReserved, pid included) - said, never dropped silently."""
    change = outcome.get('kubelet_config') or {}
    path = (change.get('choice') or {}).get('path') or ''
    dropped = [line for line in change.get('replaced') or [] if line.startswith(('systemReserved', 'kubeReserved'))]
    if source != 'role' or not path.endswith(KUBESPRAY_CONFIG_SUFFIX) or not dropped:
        return None
    return ('%s is kubespray\'s kubelet configuration, and this run replaces its reservations (%s) with the plan\'s. To '
            'keep kubespray\'s, set %svariables: kubespray, or give them as %ssystem_reserved and %skube_reserved'
            % (path, '; '.join(dropped), PREFIX, PREFIX, PREFIX))


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset()

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        templar = self._templar
        templated = {}

        def value_of(name, default=None):
            if name not in task_vars:
                return default
            if name not in templated:
                templated[name] = templar.template(task_vars[name])
            return templated[name]

        def role(name):
            return value_of(PREFIX + name)

        # The role's variables as their types say ("false" from -e or an INI inventory is False), before any
        # other reads them; those that break the argument specification stop the node before anything is sent.
        errors = self.type_role_variables(task_vars, value_of, templated)
        if errors:
            result.update(failed=True, changed=False, argument_errors=errors, failure=INPUT,
                          msg='The role\'s variables break its argument specification (meta/argument_specs.yml): %s. '
                              'Nothing was written.' % '; '.join(errors))
            return result
        if role('variables') == 'kubespray':
            misspelled = kubespray_misspellings(task_vars)
            if misspelled:
                result.update(failed=True, changed=False, failure=INPUT, msg=nothing_written('; '.join(
                    '%s: kubespray has no such variable, and in %svariables: kubespray mode the plan would ignore it '
                    'as kubespray does; did you mean %s?' % (name, PREFIX, close) for name, close in misspelled)))
                return result
        args, origin = self.module_args(role, value_of)
        try:
            api_pods = self.api_pods(role, task_vars)
        except AnsibleError as error:
            result.update(failed=True, changed=False, failure=HOST, msg=str(error))
            return result
        if api_pods is not None:
            # What the plan reads of them: the receipt then compares that, not what moves on its own.
            args['pods'] = api_pods_for_plan(api_pods)
        outcome = self.drain_first(role, args, task_vars)
        if outcome and outcome.get('drain_first'):
            result.update(outcome)
            return result
        outcome = outcome or self._execute_module(module_name=MODULE, module_args=args, task_vars=task_vars)
        if outcome.get('failed') and isinstance(outcome.get('msg'), str):
            outcome['msg'] = name_role_variables(outcome['msg'], origin)
            # ansible-core shows a failed module's own summary (its msg, with the module's option names) in
            # preference to msg: without it, the error shown is the one that names the role variables.
            outcome.pop('exception', None)
        kept, said = [], []
        for warning in outcome.get('warnings') or []:
            # ansible-core 2.19+ hands module warnings back as WarningSummary objects (their text in event.msg).
            text = warning if isinstance(warning, str) else getattr(getattr(warning, 'event', None), 'msg', None)
            if isinstance(text, str):
                said.append(name_role_variables(text, origin, leading_field=False))
            else:
                kept.append(warning)
        if 'warnings' in outcome:
            outcome['warnings'] = kept
        # Kept for the fleet report, and said once for the batch there, naming the hosts (node_results), where the
        # playbook writes one; else here, for this host.
        kept_warnings = [{'text': text, 'generic': generic_warning(text, args.get('node_root'))} for text in said]
        outcome['ansible_facts'] = {WARNINGS_FACT: kept_warnings}
        if not self._templar.template(task_vars.get(WARNINGS_ONCE, False)):
            for text in said:
                display.warning(text)
        dropped = kubespray_reservations_dropped(role('variables') or 'role', outcome)
        if dropped:
            display.warning(dropped)
        outcome['paths'] = dict((key, args[key]) for key, _variable, _usual in PATHS)
        # Whether the role goes on after this task for this node (its meta: end_role reads it): to show and verify
        # a change, to make a restart, or to verify on every run. An idempotent run ends there, and spares its
        # worker the summary's imports (ansible-core compiles a collection's files in every task's worker).
        outcome['needs_follow_up'] = bool(outcome.get('changed') or outcome.get('restart_pending')
                                          or role('verify') == 'always' or generation_pending(outcome))
        if outcome['needs_follow_up'] and not outcome.get('failed') and isinstance(outcome.get('plan'), dict):
            from ansible_collections.kubenode.cgroups.plugins.plugin_utils._plan_summary import plan_summary
            # What "Show the plan" prints (plugin_utils/_plan_summary).
            # in the words of the role's variables, as its warnings and errors are
            outcome['summary'] = [name_role_variables(line, origin, leading_field=False) for line in plan_summary(
                task_vars.get('inventory_hostname'), outcome, bool(self._play_context.check_mode))]
            self.follow_up(outcome, role, args, task_vars, api_pods)
        result.update(outcome)
        return result

    def drain_first(self, role, args, task_vars):
        """node_allocatable_drain, on a live run of a node not yet drained for its change: the run planned in check mode
        (nothing written). A node it would change is left as it is, for tasks/drain.yml to cordon and drain and then
        to run this task again (with DRAINED_FOR_CHANGE): this task's result for it (drain_first). node_cgroups'
        failure, when the plan failed. None otherwise: the run goes on, and an unchanged node ends there."""
        if not role('drain') or self._play_context.check_mode or task_vars.get(DRAINED_FOR_CHANGE):
            return None
        planned = self.dry_run(args, task_vars)
        if planned.get('failed'):
            return planned
        if not (planned.get('changed') or planned.get('restart_pending')):
            return None
        return dict(changed=False, drain_first=True, needs_follow_up=False,
                    restart_pending=planned.get('restart_pending') or [],
                    msg='the run would change this node: it is cordoned and drained first')

    def dry_run(self, args, task_vars):
        """node_cgroups' answer in check mode, whatever the task's mode: what the run would do, nothing written."""
        live = self._task.check_mode
        self._task.check_mode = True
        try:
            return self._execute_module(module_name=MODULE, module_args=dict(args), task_vars=task_vars)
        finally:
            self._task.check_mode = live

    @staticmethod
    def api_access(role):
        """The variable that gives the role access to the API server (node_allocatable_kubeconfig, or
        node_allocatable_api for the controller's own kubeconfig and context), or None."""
        if role('kubeconfig'):
            return PREFIX + 'kubeconfig'
        return PREFIX + 'api' if role('api') else None

    def api_read(self, role, task_vars, what, **options):
        """Objects from the API server, read on the controller through kubernetes.core's k8s lookup with the role's
        access. Raises AnsibleError naming the variable and what was read when they cannot be read."""
        try:
            from ansible.plugins.loader import lookup_loader
            lookup = lookup_loader.get('kubernetes.core.k8s', loader=self._loader, templar=self._templar)
            if lookup is None:
                raise AnsibleError('the kubernetes.core collection is not installed')
            if role('kubeconfig'):
                options['kubeconfig'] = role('kubeconfig')
            found = lookup.run([], variables=task_vars, **options)
        # The kubernetes client's errors are many (configuration, TLS, HTTP, discovery): each is said as it comes.
        except Exception as error:  # pylint: disable=broad-except
            raise AnsibleError('%s: cannot read %s (%s)' % (
                self.api_access(role), what, str(error).strip() or type(error).__name__))
        return [item for item in found or [] if isinstance(item, dict)]

    def node_name(self, role, task_vars):
        return role('node_name') or task_vars.get('inventory_hostname')

    def api_pods(self, role, task_vars):
        """The pods the API server has bound to this node, when the role has access to the API; None without
        access, or when node_allocatable_pods gives them. Raises AnsibleError, naming the variable, when they cannot
        be read: the node is then not touched."""
        if not self.api_access(role) or role('pods'):
            return None
        node = self.node_name(role, task_vars)
        try:
            return self.api_read(role, task_vars, 'the pods the API server has bound to node %s' % node, kind='Pod',
                                 field_selector='spec.nodeName=%s' % node)
        except AnsibleError as error:
            raise AnsibleError('%s. Nothing was written.' % error)

    def api_node(self, role, task_vars):
        """This node's Node object from the API server (None when it has none, or without access)."""
        if not self.api_access(role):
            return None
        node = self.node_name(role, task_vars)
        found = self.api_read(role, task_vars, 'node %s' % node, kind='Node', resource_name=node)
        return found[0] if found else None

    def api_gate(self, outcome, role, task_vars, before, readmitted=None):
        """After kubelet's restart, with access to the API: the Node Ready by a heartbeat of the restarted kubelet
        within node_allocatable_health_timeout, and no pod newly rejected by kubelet's admission but those the accepted
        impact preview named. before: (the Node, the pods) read before the change. Fails the step otherwise.
        A pod the accepted preview named that still runs was re-admitted by the stale Allocatable (accepted_still_running):
        kubelet is restarted once more, the API server holding the new Allocatable now, and the gate asked again."""
        from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _follow_up as steps
        node_before, pods_before = before
        heartbeat_before = steps.ready_condition(node_before)[1]
        name = self.node_name(role, task_vars)
        timeout = role('health_timeout')
        tries = steps.api_tries(timeout)
        node = None
        for attempt in range(tries):
            try:
                node = self.api_node(role, task_vars)
            except AnsibleError as error:
                return self.fail_step(outcome, '%s: %s' % (steps.API_STEP, error))
            if steps.ready_after(node, heartbeat_before):
                break
            if attempt + 1 < tries:
                time.sleep(steps.API_DELAY)
        else:
            if not node:
                return self.fail_step(outcome, '%s: the API server has no node %s; set %snode_name to its name in the '
                                               'cluster' % (steps.API_STEP, name, PREFIX))
            status, heartbeat, said = steps.ready_condition(node)
            return self.fail_step(outcome, '%s: node %s is not Ready in the API server with a heartbeat after kubelet\'s '
                                           'restart within %s s (Ready: %s, last heartbeat %s%s)'
                                  % (steps.API_STEP, name, timeout, status, heartbeat, '; ' + said if said else ''))
        for attempt in range(tries):
            try:
                pods, rejected_now = self.rejected_since(role, task_vars, name, heartbeat_before, pods_before)
            except AnsibleError as error:
                return self.fail_step(outcome, '%s: %s' % (steps.API_STEP, error))
            # After the second restart kubelet judges the pods it re-admitted by the new Allocatable, and their
            # rejection reaches the API server some seconds after its Ready heartbeat: the gate waits for it (within
            # the timeout, past which a pod that still runs is named as re-admitted).
            if not readmitted or all(pod in rejected_now for pod in readmitted) or attempt + 1 == tries:
                break
            time.sleep(steps.API_DELAY)
        accepted = steps.refused_by_preview(outcome) if role('accept_impact') else []
        stale = [pod for pod in steps.accepted_still_running(accepted, pods) if pod not in rejected_now]
        if stale and not readmitted:
            done = self._execute_module(module_name=RESTART_MODULE, task_vars=task_vars, module_args=steps.restart_args(
                [steps.KUBELET], role('health_url'), timeout))
            if done.get('failed'):
                return self.fail_step(outcome, steps.restart_failure(done, timeout))
            outcome['restarted'].append({'service': steps.KUBELET, 'changed': True, 'reason': (
                'again, to admit %s by the new Allocatable: kubelet judged them by the one the API server held from '
                'before its restart' % ', '.join(stale))})
            return self.api_gate(outcome, role, task_vars, (node, pods_before), readmitted=stale)
        rejected = steps.newly_rejected(steps.rejected_by_admission(pods_before), rejected_now, accepted)
        outcome['summary'] = (outcome.get('summary') or []) + [steps.api_gate_line(
            name, node, sorted(rejected_now), readmitted or [])]
        outcome['api_gate'] = {'node': name, 'ready_heartbeat': steps.ready_condition(node)[1],
                               'allocatable': ((node or {}).get('status') or {}).get('allocatable'),
                               'rejected': sorted(rejected_now)}
        if rejected:
            return self.fail_step(outcome, '%s: kubelet\'s admission rejected %s after its restart, which the impact '
                                           'preview did not name as accepted' % (steps.API_STEP, ', '.join(rejected)))
        return None

    def rejected_since(self, role, task_vars, name, heartbeat_before, pods_before):
        """The pods bound to the node now, and {namespace/name: reason} of those kubelet's admission rejected after the
        heartbeat: the pods kubelet failed for it (their phase), and those its events name among the pods alive before
        (a rejected pod may end Succeeded). Raises AnsibleError when the API cannot be read."""
        from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _follow_up as steps
        pods = self.api_pods(role, task_vars) or []
        events = self.api_read(role, task_vars, "kubelet's events", kind='Event',
                               field_selector='type=Warning,source=kubelet')
        rejected = dict(steps.rejected_by_admission(pods))
        rejected.update(steps.rejected_in_events(events, name, heartbeat_before, steps.live_pod_uids(pods_before)))
        return pods, rejected

    def follow_up(self, outcome, role, args, task_vars, api_pods=None):
        """After a change, in this task rather than four more per host (plugin_utils/_follow_up): restart what runs
        with an older configuration or slice than the one on disk, wait for the restarted kubelet's health, audit
        the node (node_cgroups' read-back, or node_drift_info) and measure it. A failed step fails the host and
        names the step; what was written stays, and the next run, which derives its restarts from the node,
        completes it."""
        from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _follow_up as steps
        check_mode = bool(self._play_context.check_mode)
        chosen, left = steps.restarts_to_make(outcome.get('restart_pending'), role('restart_kubelet'),
                                              role('restart_runtime'))
        outcome['restarted'], outcome['restarts_left'] = [], left
        api_node_before = None
        if self.api_access(role) and steps.health_gate_needed(True, check_mode, [
                {'service': item['service'], 'changed': True} for item in chosen]):
            # The Node before kubelet's restart: the gate waits for a heartbeat of the restarted kubelet.
            try:
                api_node_before = self.api_node(role, task_vars) or {}
            except AnsibleError as error:
                return self.fail_step(outcome, '%s: %s' % (steps.API_STEP, error))
        failure = None
        if chosen:
            # The restarts and the wait for the restarted kubelet's health, in one round trip (node_restart).
            services = [item['service'] for item in chosen]
            url = role('health_url') if steps.health_gate_needed(
                role('health_url'), check_mode, [{'service': service, 'changed': True} for service in services]) else None
            done = self._execute_module(module_name=RESTART_MODULE, task_vars=task_vars,
                                        module_args=steps.restart_args(services, url, role('health_timeout')))
            reasons = dict((item['service'], item.get('reason')) for item in chosen)
            outcome['restarted'] = [{'service': entry['service'], 'reason': reasons.get(entry['service']),
                                     'changed': bool(entry.get('changed'))} for entry in done.get('restarted') or []]
            outcome['changed'] = outcome['changed'] or any(entry['changed'] for entry in outcome['restarted'])
            if done.get('failed'):
                failure = steps.restart_failure(done, role('health_timeout'))
        if chosen or left:
            # "Show the plan" says what was restarted, and what was left to the operator.
            outcome['summary'] = (outcome.get('summary') or []) + [steps.restarts_line(outcome['restarted'], left)]
        if failure:
            return self.gate_failed(outcome, args, task_vars, failure)
        if api_node_before is not None and steps.health_gate_needed(True, check_mode, outcome['restarted']):
            self.api_gate(outcome, role, task_vars, (api_node_before, api_pods))
            if outcome.get('failed'):
                return self.gate_failed(outcome, args, task_vars, outcome['msg'])
        if generation_pending(outcome) and not check_mode:
            self.confirm(outcome, role, args, task_vars)
            if outcome.get('failed'):
                return None
        elif check_mode:
            # What the node's newest generation says now (confirmed, inside its window, rolled back and why), and
            # what this change would arm.
            lines = ['way back: %s' % outcome['generation']['summary']] if (outcome.get('generation') or {}).get(
                'summary') else []
            if outcome.get('changed') and role('confirm_timeout'):
                lines.append('way back: the change would be kept as a generation and reverted by the node unless its '
                             'gate passes within %s s' % role('confirm_timeout'))
            outcome['summary'] = (outcome.get('summary') or []) + lines
        if not steps.audit_wanted(role('verify'), outcome.get('changed')):
            return None
        if steps.read_back_stands(outcome, outcome['restarted']):
            comparison = outcome['verification']
        else:
            comparison = self._execute_module(module_name='kubenode.cgroups.node_drift_info', task_vars=task_vars,
                                              module_args=steps.drift_info_args(outcome, role, args))
            if comparison.get('failed'):
                return self.fail_step(outcome, steps.module_failure(steps.AUDIT_STEP, comparison))
        outcome['audit'] = steps.audit_result(comparison, check_mode)
        target = self._templar.template(task_vars[UPGRADE_TO]) if task_vars.get(UPGRADE_TO) else None
        if target:
            # The audit playbook's upgrade preview, planned from the same variables as the node playbook's plan.
            preview = self._execute_module(module_name='kubenode.cgroups.node_drift_info', task_vars=task_vars,
                                           module_args=steps.preview_args(outcome, role, args, str(target)))
            if preview.get('failed'):
                return self.fail_step(outcome, steps.module_failure(steps.PREVIEW_STEP, preview))
            outcome['audit']['upgrade'] = preview.get('upgrade')
        outcome['sizing'] = None
        if role('measure'):
            sizing = self._execute_module(module_name='kubenode.cgroups.reservation_info', task_vars=task_vars,
                                          module_args=steps.reservation_info_args(outcome['audit']['plan'],
                                                                                  role('sample_seconds'), args))
            if sizing.get('failed'):
                return self.fail_step(outcome, steps.module_failure(steps.MEASURE_STEP, sizing))
            outcome['sizing'] = dict((key, value) for key, value in sizing.items() if key not in ('invocation',))
        # The verdict on drift is the role's last task, after the report has the node's drift.
        outcome['fails_on_drift'] = bool(outcome['audit'].get('drift')) and not check_mode
        return None

    def gate_failed(self, outcome, args, task_vars, message):
        """The gate failed: the host fails with the step's message, and a change inside its confirmation window is
        rolled back now, by the node (node_generation), rather than when its timer ends."""
        self.fail_step(outcome, message)
        if not generation_pending(outcome) or self._play_context.check_mode:
            return None
        back = self._execute_module(module_name=GENERATION_MODULE, task_vars=task_vars, module_args=dict(
            generation_args(args), state='rolled_back', trigger='gate', reason=' '.join(message.split())))
        outcome['generation'] = back.get('generation') or outcome.get('generation')
        if back.get('failed'):
            outcome['msg'] = '%s. The rollback failed too: %s' % (message, back.get('msg'))
        else:
            outcome['rolled_back'] = True
            outcome['msg'] = '%s. The node rolled the change back to its last known good state (generation %s).' % (
                message, (back.get('generation') or {}).get('id'))
        return None

    def confirm(self, outcome, role, args, task_vars):
        """The gate's last measure and the end of the window: after a restart, node_allocatable_oom_watch_seconds
        waited here, on the controller (a controller lost meanwhile leaves the revert to the node's timer), then
        node_generation compares the OOM kill counts with those read before the change and confirms the generation,
        or rolls it back at once and the host fails with the figures."""
        watch = role('oom_watch_seconds') or 0
        if watch and outcome.get('restarted'):
            time.sleep(watch)
        done = self._execute_module(module_name=GENERATION_MODULE, task_vars=task_vars, module_args=dict(
            generation_args(args), state='confirmed'))
        outcome['generation'] = done.get('generation') or outcome.get('generation')
        outcome['gate'] = done.get('gate')
        if done.get('failed'):
            outcome['rolled_back'] = bool(done.get('rolled_back')) or (
                (done.get('generation') or {}).get('state') == 'rolled-back')
            return self.fail_step(outcome, 'Confirm the change once its gate passed: %s' % done.get('msg'))
        outcome['summary'] = (outcome.get('summary') or []) + [way_back_line(outcome['generation'], outcome['gate'])]
        return None

    @staticmethod
    def fail_step(outcome, message):
        """The host fails with the step's message; what node_cgroups wrote and reported stays in the result. A step
        after the change (a restart, the health gate, the audit, the measurement) fails on the host's state."""
        outcome.update(failed=True, msg=message, failure=HOST)
        return None

    @staticmethod
    def type_role_variables(task_vars, value_of, templated):
        """Convert the role's variables in templated (value_of's store) to the types of the role's argument
        specification, and return ansible-core's messages for those that break it. ansible-core's own validation
        task (the role listed in a play, or included without rolespec_validate: false) checks them too, but leaves
        them as strings; the node playbook spares every host that task."""
        role_path = task_vars.get('role_path')
        if not role_path:
            return []
        options = entry_point_options(role_path)
        converted, errors = typed_values(options, dict((name, value_of(name)) for name in options if name in task_vars))
        if not errors:
            templated.update(converted)
        return errors

    @staticmethod
    def module_args(role, value_of):
        """(node_cgroups' arguments, {option path: the variable the operator sets it with})."""
        root = role('root') or ''
        args, origin = {}, {}
        for name in SAME_NAME:
            args[name] = role(name)
        for name in WHEN_SET:
            value = role(name)
            if name == 'kubelet_binary' and value is None and root:
                value = ''  # a fake node: its kubelet, if any, is not this machine's to ask
            if _set(value) or (name == 'kubelet_binary' and value == ''):
                args[name] = value
        version = role('kubelet_version')
        args['kubelet_version'] = str(version) if _set(version) else 'auto'
        reserved_cpus = role('reserved_system_cpus')
        for scope in ('system', 'kube'):
            cgroup = role('%s_reserved_cgroup' % scope)
            if cgroup and not reserved_cpus:  # reserved CPUs take the place of the reserved cgroups
                args['%s_reserved_cgroup' % scope] = cgroup
        args['services'] = role('services') if role('kube_reserved_cgroup') and not reserved_cpus else []
        args['verify'] = role('verify') == 'changed'
        origin['node_root'] = PREFIX + 'root'
        for option, variable, usual in PATHS:
            origin[option] = PREFIX + variable
            given = role(variable)
            args[option] = given if _set(given) else (
                [root + path for path in usual] if isinstance(usual, list) else root + usual)
        if root:
            args['kubelet_config_paths'] = [root + path for path in KUBELET_CONFIG_PATHS]
            args['node_root'] = root  # what the node names (kubelet's --config, ...) is read under it
        kubelet = {}
        for option, variable in KUBELET_CONFIG_OPTIONS:
            value = role(variable)
            if value is not None and value != '':
                kubelet[option] = value
            origin['kubelet_config.' + option] = PREFIX + variable
            origin.setdefault(option, PREFIX + variable)  # as messages name it, without kubelet_config.
        if root and 'kubelet_dropin_dir' not in kubelet:
            kubelet['kubelet_dropin_dir'] = root + '/etc/kubernetes/kubelet.conf.d'
        settings = dict(kubelet.get('kubelet_settings') or {})
        if args['feature_gates']:
            settings['featureGates'] = args['feature_gates']
        # Plan options the role gives only from the KubeletConfiguration keys behind them.
        origin['cpu_manager_policy'] = PREFIX + 'kubelet_settings.cpuManagerPolicy'
        origin['memory_reservation_policy'] = PREFIX + 'kubelet_settings.memoryReservationPolicy'
        if settings.get('cpuManagerPolicy') in ('none', 'static'):
            # The plan's cpusets follow the policy kubelet runs with (kubelet writes them for none).
            args['cpu_manager_policy'] = settings['cpuManagerPolicy']
        swap = role('swap_behavior')
        if swap:
            settings.update(failSwapOn=False, memorySwap={'swapBehavior': swap})
            origin['kubelet_config.kubelet_settings.memorySwap'] = PREFIX + 'swap_behavior'
        kubelet['kubelet_settings'] = settings
        args['kubelet_config'] = kubelet
        for name in SAME_NAME + WHEN_SET + ('kubelet_version', 'system_reserved_cgroup', 'kube_reserved_cgroup',
                                            'services'):
            origin.setdefault(name, PREFIX + name)
        source = role('variables') or 'role'
        found = [name for name in KUBESPRAY_VARIABLES
                 if name not in KUBESPRAY_CLUSTER_VARIABLES and value_of(name) is not None]
        if source == 'kubespray':
            options, kubespray_origin = kubespray_settings(value_of)
            if _set(version):  # node_allocatable_kubelet_version, when set, is the operator's word over kube_version
                options.pop('kubelet_version', None)
                kubespray_origin.pop('kubelet_version', None)
            if reserved_cpus:
                options.pop('kube_reserved_cgroup', None)
                options.pop('system_reserved_cgroup', None)
            args.update(options)
            if not options.get('kube_reserved_cgroup'):
                args.pop('kube_reserved_cgroup', None)
                args['services'] = []
            if not options.get('system_reserved_cgroup'):
                args.pop('system_reserved_cgroup', None)
            origin.update(kubespray_origin)
            dropped = kubespray_eviction_dropped(options.get('eviction_hard'))
            if dropped:
                display.warning(dropped)
            fail_v1 = value_of('kubelet_fail_cgroup_v1')
            if fail_v1 is not None and 'failCgroupV1' not in settings:
                settings['failCgroupV1'] = fail_v1 in (True, 'true', 'True')
        elif source != 'role':
            raise AnsibleActionFail('%svariables: must be "role" or "kubespray", not %r' % (PREFIX, source))
        elif found:
            display.warning('kubespray\'s variables %s are set for this host and ignored: the reservation comes from '
                            'the node_allocatable_ variables (profile %s). Set node_allocatable_variables: kubespray '
                            'to plan from kubespray\'s own (docs/guide.md, "kubespray")'
                            % (', '.join(found), args['profile']))
        if source == 'role':
            pid_reserved(args, origin, role('pid_reserved'))
        # Errors found on the merged kubelet configuration name its keys; the plan writes these from the options.
        for key, option in KUBELET_KEYS:
            origin.setdefault(key, origin.get(option, PREFIX + option))
            for path in [p for p in origin if p.startswith(option + '.')]:
                origin.setdefault(key + path[len(option):], origin[path])
        return args, origin


def pid_reserved(args: dict, origin: dict, pids: object) -> None:
    """node_allocatable_pid_reserved as systemReserved.pid, unless a reservation map names a pid or it is 0: the
    system's share of the node's tasks, so that a pod that forks without end leaves sshd, journald and kubelet room
    (make protection, docs/protection.md). systemReserved rather than kubeReserved: enforced on the kube-reserved
    cgroup, a pid limit there would also hold containerd's shims, a dozen tasks a pod."""
    if pids in (None, '', 0, '0') or any('pid' in (args.get(scope) or {}) for scope in ('system_reserved', 'kube_reserved')):
        return
    args['system_reserved'] = dict(args.get('system_reserved') or {}, pid=str(pids))
    origin['system_reserved.pid'] = PREFIX + 'pid_reserved'


GENERATION_MODULE = 'kubenode.cgroups.node_generation'
RESTART_MODULE = 'kubenode.cgroups.node_restart'


def generation_pending(outcome):
    """Whether the node's newest generation (node_cgroups' result) waits for its gate's confirmation."""
    return (outcome.get('generation') or {}).get('state') == 'pending'


def generation_args(args):
    """node_generation's options, from node_cgroups' (the same node, root and lock)."""
    return dict((name, args[name]) for name in ('generations_dir', 'lock_path', 'cgroupfs_path', 'proc_path',
                                                'node_root') if args.get(name))


def way_back_line(generation, gate):
    """The plan summary's line for a confirmed change: the generation and the figures its gate judged it by (the
    OOM kill counts it could read; none read is said, not shown as zeros)."""
    gate = gate or {}
    counted = sorted((name, value['after']) for name, value in (gate.get('oom_kills') or {}).items()
                     if (value or {}).get('after') is not None)
    if counted:
        oom = ', no new OOM kill (%s)' % ', '.join('%s %s' % pair for pair in counted)
    else:
        oom = ', no OOM kill count readable here' if gate.get('oom_kills') else ''
    return 'way back: generation %s confirmed %s s after it was armed%s' % (
        (generation or {}).get('id'), gate.get('watched_seconds'), oom)


def generic_warning(text, root):
    """A warning in words every node of a fleet shares: its node root (a fake node's tree) said as <node root>, so
    that one line can name every host it concerns."""
    root = (root or '').rstrip('/')
    return text.replace(root, '<node root>') if root else text


def name_role_variables(message, origin, leading_field=True):
    """A node_cgroups message with its leading option (kube_reserved.memory: ...) and the option names it
    mentions written as the variables the operator sets (node_allocatable_kube_reserved.memory, or
    kubespray's kube_memory_reserved)."""
    head, sep, rest = message.partition(': ')
    if leading_field and sep and ' ' not in head:
        parts = head.split('.')
        for cut in range(len(parts), 0, -1):
            option = '.'.join(parts[:cut])
            if option in origin:
                tail = '.'.join(parts[cut:])
                head = origin[option] + ('.' + tail if tail else '')
                break
    else:
        head, sep, rest = '', '', message
    names = sorted((name for name in origin if '_' in name.split('.')[0]), key=len, reverse=True)
    pattern = re.compile(r'(?<![\w.])(%s)(?![\w])' % '|'.join(re.escape(name) for name in names))
    rest = pattern.sub(lambda m: origin[m.group(1)], rest)
    # The module's own hint for role users ("X (role: node_allocatable_X)") says the same twice now.
    rest = re.sub(r'(\b[\w.]+) \(role: \1\)', r'\1', rest)
    return head + sep + rest
