# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_allocatable role's arguments for node_cgroups, built on the controller (plugins/action/role_node_cgroups.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible_collections.kubenode.cgroups.plugins.action.role_node_cgroups import (
    ActionModule, kubespray_reservations_dropped, name_role_variables)

DEFAULTS = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'node_allocatable', 'defaults',
                        'main.yml')


def build(**variables):
    """node_cgroups' arguments for the role's defaults with these variables over them."""
    with open(DEFAULTS) as handle:
        values = yaml.safe_load(handle)
    values.update(variables)

    def value_of(name, default=None):
        return values.get(name, default)

    return ActionModule.module_args(lambda name: value_of('node_allocatable_' + name), value_of)


def test_the_defaults_ask_the_node_and_keep_the_usual_paths():
    args, origin = build()
    assert args['kubelet_version'] == 'auto' and args['profile'] == 'gke'
    assert args['cgroupfs_path'] == '/sys/fs/cgroup' and args['lock_path'] == '/run/lock/kubenode-cgroups.lock'
    assert 'kubelet_binary' not in args and 'kubelet_config_paths' not in args and 'node_root' not in args
    assert args['kube_reserved_cgroup'] == '/kube.slice' and args['services'] == ['kubelet', 'containerd', 'crio']
    assert origin['kubelet_version'] == 'node_allocatable_kubelet_version'


def test_a_root_moves_every_path_and_the_lock_under_it_and_asks_no_kubelet_of_this_machine():
    args, _origin = build(node_allocatable_root='/srv/node')
    assert args['lock_path'] == '/srv/node/run/lock/kubenode-cgroups.lock'
    assert args['kubelet_config_paths'] == ['/srv/node/var/lib/kubelet/config.yaml',
                                            '/srv/node/etc/kubernetes/kubelet-config.yaml']
    assert 'kubelet_config_path' not in args['kubelet_config']  # found under the root, as on a node
    assert args['kubelet_binary'] == ''
    assert args['node_root'] == '/srv/node'  # what the node names (kubelet's --config, ...) is read under it
    every_path = [v for k, v in args.items() if k.endswith(('_path', '_dir', '_script'))]
    assert all(path.startswith('/srv/node/') for path in every_path)


def test_kubespray_mode_reads_kubesprays_variables_with_its_defaults():
    args, origin = build(node_allocatable_variables='kubespray', kube_memory_reserved='1Gi', kube_reserved=True,
                         kubelet_enforce_node_allocatable='pods,kube-reserved', kubelet_max_pods=58)
    assert args['profile'] == 'static'
    assert args['kube_reserved'] == {'cpu': '100m', 'memory': '1Gi', 'ephemeral-storage': '500Mi', 'pid': '1000'}
    assert args['system_reserved'] == {'cpu': '500m', 'memory': '512Mi', 'ephemeral-storage': '500Mi', 'pid': '1000'}
    assert args['enforce_node_allocatable'] == ['pods', 'kube-reserved'] and args['max_pods'] == 58
    assert args['kube_reserved_cgroup'] == '/kube.slice' and 'system_reserved_cgroup' not in args
    assert 'eviction_hard' not in args  # kubespray's {} leaves kubelet's defaults
    assert origin['kube_reserved.memory'] == 'kube_memory_reserved'


def test_kubespray_mode_plans_for_the_release_kubespray_installs_unless_the_role_names_one(monkeypatch):
    """Issue 51: kubespray's own kube_version was not read in kubespray mode."""
    args, origin = build(node_allocatable_variables='kubespray', kube_version='v1.33.4')
    assert args['kubelet_version'] == 'v1.33.4' and origin['kubelet_version'] == 'kube_version'
    args, origin = build(node_allocatable_variables='kubespray', kube_version='1.33.4',
                         node_allocatable_kubelet_version='1.34')
    assert args['kubelet_version'] == '1.34' and origin['kubelet_version'] == 'node_allocatable_kubelet_version'
    # In role mode kube_version, which every kubespray inventory sets, is neither read nor warned about.
    warned = []
    monkeypatch.setattr('ansible_collections.kubenode.cgroups.plugins.action.role_node_cgroups.display.warning',
                        warned.append)
    args, _origin = build(kube_version='v1.33.4')
    assert args['kubelet_version'] == 'auto' and warned == []
    result, _sent = run_action(monkeypatch, True, node_allocatable_variables='kubespray', kube_verison='v1.33.4')
    assert 'did you mean kube_version?' in result['msg']


def test_a_misspelled_kubespray_variable_fails_in_kubespray_mode_naming_the_closest(monkeypatch):
    """Issue 51: kube_memory_reseved was ignored without a word in kubespray mode, while a misspelled role variable
    fails."""
    result, sent = run_action(monkeypatch, True, node_allocatable_variables='kubespray', kube_memory_reseved='1Gi',
                              kube_master_memory_reserved='2Gi', kube_network_plugin='calico')
    assert result['failed'] and sent == [] and result['msg'].endswith('Nothing was written.')
    assert 'kube_memory_reseved: kubespray has no such variable' in result['msg']
    assert 'did you mean kube_memory_reserved?' in result['msg']
    # kubespray's own neighbours and its other variables are no misspelling; in role mode nothing is checked.
    assert 'kube_master_memory_reserved' not in result['msg'] and 'kube_network_plugin' not in result['msg']
    result, sent = run_action(monkeypatch, True, kube_memory_reseved='1Gi')
    assert not result.get('failed') and len(sent) == 1


def test_kubesprays_service_slice_names_its_reserved_cgroup():
    """kubespray's kube_reserved_cgroups defaults to "/{{ kube_reserved_cgroups_for_service_slice }}"."""
    args, _origin = build(node_allocatable_variables='kubespray', kube_reserved=True,
                          kube_reserved_cgroups_for_service_slice='k8s.slice')
    assert args['kube_reserved_cgroup'] == '/k8s.slice'
    named, _origin = build(node_allocatable_variables='kubespray', kube_reserved=True,
                           kube_reserved_cgroups_for_service_slice='k8s.slice', kube_reserved_cgroups='/runtime.slice')
    assert named['kube_reserved_cgroup'] == '/runtime.slice'


def test_role_mode_says_which_kubespray_reservations_it_replaces():
    outcome = {'kubelet_config': {'choice': {'path': '/srv/node/etc/kubernetes/kubelet-config.yaml'},
                                  'replaced': ['systemReserved.memory: 512Mi -> (removed)',
                                               'kubeReserved.pid: 1000 -> (removed)', 'maxPods: 110 -> 58']}}
    warning = kubespray_reservations_dropped('role', outcome)
    assert warning.startswith("/srv/node/etc/kubernetes/kubelet-config.yaml is kubespray's kubelet configuration")
    assert 'systemReserved.memory: 512Mi -> (removed); kubeReserved.pid: 1000 -> (removed)' in warning
    assert 'maxPods' not in warning and 'node_allocatable_variables: kubespray' in warning
    assert kubespray_reservations_dropped('kubespray', outcome) is None
    outcome['kubelet_config']['choice']['path'] = '/var/lib/kubelet/config.yaml'
    assert kubespray_reservations_dropped('role', outcome) is None


def test_kubesprays_variables_in_role_mode_are_named_in_a_warning(monkeypatch):
    warned = []
    monkeypatch.setattr('ansible_collections.kubenode.cgroups.plugins.action.role_node_cgroups.display.warning',
                        warned.append)
    args, _origin = build(kube_memory_reserved='1Gi', eviction_hard={'memory.available': '200Mi'})
    assert args['profile'] == 'gke' and 'eviction_hard' not in args
    assert len(warned) == 1 and 'kube_memory_reserved, eviction_hard' in warned[0]
    assert 'node_allocatable_variables: kubespray' in warned[0]


def test_errors_and_warnings_name_the_variables_the_operator_sets():
    _args, origin = build()
    assert name_role_variables('kube_reserved.memory: failed to parse', origin) == \
        'node_allocatable_kube_reserved.memory: failed to parse'
    assert name_role_variables(
        'kubelet_version: the node runs kubelet 1.29.4, not 1.33. Leave kubelet_version unset, or set '
        'allow_kubelet_version_mismatch', origin) == (
        'node_allocatable_kubelet_version: the node runs kubelet 1.29.4, not 1.33. Leave node_allocatable_kubelet_version '
        'unset, or set node_allocatable_allow_kubelet_version_mismatch')
    assert name_role_variables('kubelet_config.kubelet_settings.failCgroupV1: refuses', origin) == \
        'node_allocatable_kubelet_settings.failCgroupV1: refuses'
    assert name_role_variables('feature_gates: goes in extra_feature_gates (role: node_allocatable_extra_feature_gates)',
                               origin) == 'node_allocatable_feature_gates: goes in node_allocatable_extra_feature_gates'
    assert name_role_variables('planned with 1.36; set kubelet_version', origin, leading_field=False) == \
        'planned with 1.36; set node_allocatable_kubelet_version'
    _args, kubespray = build(node_allocatable_variables='kubespray')
    assert name_role_variables('kube_reserved.memory: bad', kubespray) == 'kube_memory_reserved: bad'


def test_a_refusal_on_the_merged_kubelet_configuration_names_the_variable_behind_the_key():
    _args, origin = build()
    assert name_role_variables('cgroupDriver: kubelet would use the cgroupfs cgroup driver. Make them agree, or set '
                               'allow_driver_mismatch (role: node_allocatable_allow_driver_mismatch)', origin) == \
        'node_allocatable_cgroup_driver: kubelet would use the cgroupfs cgroup driver. Make them agree, or set ' \
        'node_allocatable_allow_driver_mismatch'
    _args, kubespray = build(node_allocatable_variables='kubespray')
    assert name_role_variables('kubeReserved.memory: bad', kubespray) == 'kube_memory_reserved: bad'


def test_a_reservation_above_capacity_names_kubesprays_variables_in_kubespray_mode():
    _args, kubespray = build(node_allocatable_variables='kubespray')
    message = ('system_reserved.memory: invalid Node Allocatable configuration. memory reserved = system 512Mi '
               '(system_reserved.memory) + kube 384Mi (kube_reserved.memory) + hard eviction 100Mi (eviction_hard, '
               'kubelet defaults).')
    assert name_role_variables(message, kubespray) == (
        'system_memory_reserved: invalid Node Allocatable configuration. memory reserved = system 512Mi '
        '(system_memory_reserved) + kube 384Mi (kube_memory_reserved) + hard eviction 100Mi (eviction_hard, '
        'kubelet defaults).')
    _args, role = build()
    assert name_role_variables(message, role).startswith(
        'node_allocatable_system_reserved.memory: invalid Node Allocatable configuration. memory reserved = system '
        '512Mi (node_allocatable_system_reserved.memory) + kube 384Mi (node_allocatable_kube_reserved.memory)')


def test_the_measured_profile_takes_the_recommendation_from_its_role_variable():
    recommendation = {'system_reserved': {'cpu': '100m', 'memory': '375Mi'}, 'kube_reserved': {'memory': '1125Mi'}}
    args, origin = build(node_allocatable_profile='measured', node_allocatable_measured_reservation=recommendation)
    assert args['profile'] == 'measured' and args['measured_reservation'] == recommendation
    assert name_role_variables('measured_reservation.kube_reserved.memory: bad', origin) == \
        'node_allocatable_measured_reservation.kube_reserved.memory: bad'
    args, _origin = build()
    assert 'measured_reservation' not in args  # empty: not given, the module's own default


ROLE = os.path.join(os.path.dirname(DEFAULTS), '..')


def action_for(role_validated, check_mode=False, **variables):
    """(role_node_cgroups as ansible-core makes it for a task of the role, its task variables): the role's defaults
    with variables over them; role_validated: whether ansible-core prepended its validation task (the role in a
    play's roles)."""
    from unittest.mock import MagicMock
    from ansible.playbook.task import Task
    from ansible.template import Templar
    from ansible.parsing.dataloader import DataLoader
    with open(DEFAULTS) as handle:
        task_vars = yaml.safe_load(handle)
    task_vars.update(variables, role_path=ROLE, inventory_hostname='node1')
    task = Task()
    task.args = {}
    task._role = MagicMock(_should_validate=role_validated)  # pylint: disable=protected-access
    connection = MagicMock()
    connection._shell.tmpdir = ''  # pylint: disable=protected-access
    action = ActionModule(task, connection=connection, play_context=MagicMock(check_mode=check_mode), loader=None,
                          templar=Templar(loader=DataLoader(), variables=task_vars), shared_loader_obj=None)
    return action, task_vars


def run_action(monkeypatch, role_validated, outcome=None, check_mode=False, **variables):
    """role_node_cgroups' result, node_cgroups answering outcome, and the arguments sent to the node."""
    action, task_vars = action_for(role_validated, check_mode, **variables)
    sent = []

    def execute_module(module_name, module_args, task_vars):
        sent.append(module_args)
        return dict(outcome or {'changed': False, 'restart_pending': []})

    monkeypatch.setattr(action, '_execute_module', execute_module)
    return action.run(task_vars=task_vars), sent


def test_a_role_without_ansible_cores_validation_task_checks_its_variables_before_anything_is_sent(monkeypatch):
    """rolespec_validate: false spares every host ansible-core's validation task: the same check, here."""
    result, sent = run_action(monkeypatch, False, node_allocatable_verify='sometimes',
                              node_allocatable_restart_kubelet='perhaps')
    assert result['failed'] and sent == []
    assert len(result['argument_errors']) == 2
    assert any('node_allocatable_verify' in e and 'sometimes' in e for e in result['argument_errors'])
    assert any('node_allocatable_restart_kubelet' in e for e in result['argument_errors'])
    assert result['msg'].endswith('Nothing was written.') and 'meta/argument_specs.yml' in result['msg']


def test_variables_given_as_strings_are_read_as_their_types(monkeypatch):
    """-e key=value and an INI inventory give every value as a string: "false" is False (as a string it would be
    true), "58" is 58, a list comes as commas or as JSON text."""
    result, sent = run_action(monkeypatch, True, node_allocatable_max_pods='58',
                              node_allocatable_enforce_node_allocatable='pods,kube-reserved',
                              node_allocatable_services='["kubelet", "containerd"]',
                              node_allocatable_persist='false', node_allocatable_keep_reserved_out_of_swap='no')
    assert not result.get('failed'), result
    assert sent[0]['max_pods'] == 58 and sent[0]['enforce_node_allocatable'] == ['pods', 'kube-reserved']
    assert sent[0]['services'] == ['kubelet', 'containerd']
    assert sent[0]['persist'] is False and sent[0]['keep_reserved_out_of_swap'] is False
    # A string that is no boolean is refused before anything is sent, naming the variable and the value.
    result, sent = run_action(monkeypatch, True, node_allocatable_persist='maybe')
    assert result['failed'] and sent == [] and 'node_allocatable_persist' in result['argument_errors'][0]
    assert "'maybe'" in result['argument_errors'][0]


def test_a_string_false_turns_the_measurement_and_the_restart_off(monkeypatch):
    result, calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)),
                                      answers={'kubenode.cgroups.node_drift_info': [dict(READ_BACK)]},
                                      node_allocatable_measure='false', node_allocatable_restart_kubelet='false',
                                      node_allocatable_health_timeout='12')
    assert [name for name, _args in calls] == ['kubenode.cgroups.node_drift_info']  # no restart, no measurement
    assert result['sizing'] is None and result['restarts_left'] == PENDING[1:]


def test_valid_variables_pass_and_a_templated_one_is_checked_as_its_value(monkeypatch):
    result, sent = run_action(monkeypatch, False)
    assert not result.get('failed') and len(sent) == 1 and 'argument_errors' not in result
    from ansible.template import trust_as_template
    result, sent = run_action(monkeypatch, False, node_allocatable_max_pods=trust_as_template('{{ 50 + 8 }}'))
    assert not result.get('failed') and sent[0]['max_pods'] == 58
    result, sent = run_action(monkeypatch, False, node_allocatable_max_pods=trust_as_template('{{ "many" }}'))
    assert result['failed'] and sent == [] and 'node_allocatable_max_pods' in result['argument_errors'][0]


def test_the_role_ends_after_this_task_unless_something_follows_up(monkeypatch):
    plan = {'plan': None}
    result, _sent = run_action(monkeypatch, True, outcome=dict(plan, changed=False, restart_pending=[]))
    assert result['needs_follow_up'] is False and 'summary' not in result
    for outcome, variables in (({'changed': True, 'restart_pending': []}, {}),
                               ({'changed': False, 'restart_pending': [{'service': 'kubelet.service'}]}, {}),
                               ({'changed': False, 'restart_pending': []}, {'node_allocatable_verify': 'always'})):
        result, _sent = run_action(monkeypatch, True, outcome=outcome, **variables)
        assert result['needs_follow_up'] is True, (outcome, variables)


def drained_run(monkeypatch, outcome, check_mode=False, drain='true', **variables):
    """role_node_cgroups' result with node_allocatable_drain on, node_cgroups answering outcome, and the mode of each
    node_cgroups call it made: ['check' or 'live']."""
    action, task_vars = action_for(True, check_mode, node_allocatable_drain=drain, **variables)
    action._task.check_mode = check_mode  # pylint: disable=protected-access
    modes = []

    def execute_module(module_name, module_args, task_vars):
        if module_name == 'kubenode.cgroups.node_cgroups':
            modes.append('check' if action._task.check_mode else 'live')  # pylint: disable=protected-access
            return dict(outcome)
        return {'changed': True}

    monkeypatch.setattr(action, '_execute_module', execute_module)
    return action.run(task_vars=task_vars), modes


def test_with_the_drain_a_node_the_run_would_change_is_left_for_the_drain_and_the_others_go_on(monkeypatch):
    """node_allocatable_drain: the run is planned in check mode in the same task. A node it would change (a write or a
    restart) is left as it is, for tasks/drain.yml, which runs the task again once the node is drained; an unchanged
    node goes on at once, and so ends the role there, as it does without the drain."""
    for outcome in ({'changed': True, 'restart_pending': []},
                    {'changed': False, 'restart_pending': [{'service': 'kubelet.service'}]}):
        result, modes = drained_run(monkeypatch, outcome)
        assert modes == ['check'], outcome
        assert result['drain_first'] is True and result['changed'] is False and result['needs_follow_up'] is False
        assert result['restart_pending'] == outcome['restart_pending']
    result, modes = drained_run(monkeypatch, {'changed': False, 'restart_pending': []})
    assert modes == ['check', 'live'] and 'drain_first' not in result and result['needs_follow_up'] is False
    # drain.yml's run, the node drained: the change is made, with no second plan first.
    result, modes = drained_run(monkeypatch, {'changed': True, 'restart_pending': []},
                                __node_allocatable_drained_for_change=True)
    assert modes == ['live'] and 'drain_first' not in result and result['needs_follow_up'] is True
    # Nothing is drained in check mode, nor with the drain off ("false" from -e is off).
    result, modes = drained_run(monkeypatch, {'changed': True, 'restart_pending': []}, check_mode=True)
    assert modes == ['check'] and 'drain_first' not in result
    result, modes = drained_run(monkeypatch, {'changed': True, 'restart_pending': []}, drain='false')
    assert modes == ['live'] and 'drain_first' not in result
    # A plan that fails is the task's failure, and nothing is drained or written.
    result, modes = drained_run(monkeypatch, {'failed': True, 'msg': 'kube_reserved: bad', 'changed': False})
    assert modes == ['check'] and result['failed'] and 'drain_first' not in result


# After a change: the restarts, the health gate, the audit and the measurement, in this one task
# (plugin_utils/_follow_up.py).
PLAN = {'kubelet_version': '1.37', 'reserved': {}}
READ_BACK = {'drift': [], 'cgroup_mode': 'v2', 'plan': PLAN}


def follow_up(monkeypatch, outcome, answers=None, check_mode=False, **variables):
    """role_node_cgroups' result after node_cgroups answered outcome, and the modules it then ran, in order:
    [(module, arguments)]. answers: {module: [its results, one per call]} (the last one repeats)."""
    action, task_vars = action_for(True, check_mode, **variables)
    calls, answers = [], dict(answers or {})

    def execute_module(module_name, module_args, task_vars):
        calls.append((module_name, module_args))
        if module_name == 'kubenode.cgroups.node_cgroups':
            return dict(outcome)
        if module_name == RESTART and module_name not in answers:
            return restarted_all(module_args)
        queue = answers.get(module_name) or [{'changed': True}]
        return dict(queue.pop(0) if len(queue) > 1 else queue[0])

    slept = []
    monkeypatch.setattr(action, '_execute_module', execute_module)
    monkeypatch.setattr('ansible_collections.kubenode.cgroups.plugins.action.role_node_cgroups.time.sleep', slept.append)
    result = action.run(task_vars=task_vars)
    return result, calls[1:], slept


def changed(**extra):
    outcome = {'changed': True, 'changes': ['write x'], 'plan': PLAN, 'restart_pending': [],
               'kubelet_config': {'choice': {'path': '/var/lib/kubelet/config.yaml', 'dropin': False,
                                             'reason': 'kubeadm layout'}}}
    outcome.update(extra)
    return outcome


PENDING = [{'service': 'containerd.service', 'reason': 'slice'}, {'service': 'kubelet.service', 'reason': 'config'}]
RESTART = 'kubenode.cgroups.node_restart'
HEALTH_URL = 'http://127.0.0.1:10248/healthz'


def restarted_all(module_args):
    """node_restart's answer on a node where every restart succeeds and kubelet answers at the second try."""
    health = {'url': module_args['health_url'], 'healthy': True, 'status': 200, 'said': 'ok', 'tries': 2,
              'seconds': 1.2} if module_args.get('health_url') else None
    return {'changed': True, 'restarted': [{'service': service, 'changed': True} for service in module_args['services']],
            'health': health}


def unhealthy(timeout, said='Connection refused'):
    """node_restart's answer when kubelet restarted and never answered its health endpoint."""
    message = 'kubelet did not answer %s with 200 within %s s of its restart (%s)' % (HEALTH_URL, timeout, said)
    return {'failed': True, 'changed': True, 'failed_step': 'health', 'msg': message,
            'restarted': [{'service': 'kubelet.service', 'changed': True}]}


def test_a_change_restarts_the_runtime_then_kubelet_waits_for_its_health_and_takes_the_read_back_as_the_audit(monkeypatch):
    result, calls, slept = follow_up(monkeypatch, changed(restart_pending=PENDING, verification=dict(READ_BACK)))
    # One round trip: the restarts in node_cgroups' order, then the wait for the restarted kubelet's health.
    assert calls == [(RESTART, {'services': ['containerd.service', 'kubelet.service'], 'health_url': HEALTH_URL,
                                'health_timeout': 120})]
    assert slept == []  # the node waits, not the controller
    assert [entry['service'] for entry in result['restarted']] == ['containerd.service', 'kubelet.service']
    assert result['restarts_left'] == [] and not result.get('failed')
    assert result['summary'][-1] == 'restarted:     containerd.service (slice), kubelet.service (config)'
    # Every pending service restarted: node_cgroups' read-back is the audit, no node_drift_info round trip.
    assert result['audit'] == dict(READ_BACK, check_mode=False) and result['sizing'] is None
    assert result['fails_on_drift'] is False and result['needs_follow_up'] is True


def test_a_kubelet_that_never_answers_fails_the_node_naming_the_step_after_the_timeout(monkeypatch):
    result, calls, slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)),
        answers={RESTART: [unhealthy(12)]}, node_allocatable_health_timeout='12')
    assert calls == [(RESTART, {'services': ['kubelet.service'], 'health_url': HEALTH_URL, 'health_timeout': 12})]
    assert slept == []
    assert result['msg'] == ('Wait until the restarted kubelet is healthy before the next batch goes: kubelet did not '
                             'answer %s with 200 within 12 s of its restart (Connection refused)' % HEALTH_URL)
    assert result['failed'] and result['restarted'] == [{'service': 'kubelet.service', 'reason': 'config',
                                                         'changed': True}]
    # What node_cgroups wrote stays in the result, and nothing after the gate ran.
    assert result['changes'] == ['write x'] and 'audit' not in result


def test_a_failed_restart_fails_the_node_and_stops_there(monkeypatch):
    result, calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING, verification=dict(READ_BACK)),
        answers={RESTART: [{'failed': True, 'failed_step': 'restart', 'failed_service': 'containerd.service',
                            'restarted': [], 'msg': 'Unit containerd.service not found.'}]})
    assert [name for name, _args in calls] == [RESTART]
    assert result['msg'] == ('Restart what runs with an older configuration or slice than the one on disk '
                             '(containerd.service): Unit containerd.service not found.')
    assert result['failed'] and result['restarted'] == [] and 'audit' not in result


def test_a_restart_left_to_the_operator_is_audited_by_node_drift_info_and_drift_fails_only_a_real_run(monkeypatch):
    drift = [{'item': 'kubelet.service', 'check': 'restart pending', 'live': 'old', 'planned': 'new'}]
    for check_mode in (False, True):
        result, calls, _slept = follow_up(
            monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)), check_mode=check_mode,
            answers={'kubenode.cgroups.node_drift_info': [dict(READ_BACK, drift=drift, changed=False)]},
            node_allocatable_restart_kubelet=False)
        assert [name for name, _args in calls] == ['kubenode.cgroups.node_drift_info']  # no restart, no gate
        assert result['restarts_left'] == PENDING[1:] and result['restarted'] == []
        audit_args = calls[0][1]
        assert audit_args['plan'] == PLAN and audit_args['kubelet_config_path'] == '/var/lib/kubelet/config.yaml'
        assert audit_args['kubelet_config_dropin'] is False and audit_args['services'] == ['kubelet', 'containerd', 'crio']
        assert result['audit']['drift'] == drift and result['audit']['check_mode'] is check_mode
        assert 'changed' not in result['audit']
        assert result['fails_on_drift'] is (not check_mode) and not result.get('failed')


def test_the_audit_of_a_node_under_a_root_reads_what_the_node_names_under_it(monkeypatch):
    """Issue 51: under '/' the kubelet unit of a fake node named another file than node_cgroups chose (a false
    'kubelet never reads this file' row in every check-mode report on a root)."""
    _result, calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:]), check_mode=True, node_allocatable_root='/srv/node',
        answers={'kubenode.cgroups.node_drift_info': [dict(READ_BACK)]})
    audit_args = dict(calls)['kubenode.cgroups.node_drift_info']
    assert audit_args['node_root'] == '/srv/node' and audit_args['cgroupfs_path'] == '/srv/node/sys/fs/cgroup'
    _result, calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:]), check_mode=True,
        answers={'kubenode.cgroups.node_drift_info': [dict(READ_BACK)]})
    assert dict(calls)['kubenode.cgroups.node_drift_info']['node_root'] == '/'


def test_check_mode_restarts_nothing_it_waits_for_and_measurement_follows_the_audit(monkeypatch):
    sizing = {'changed': False, 'recommendation': {'system': {'memory': '1Gi'}}, 'invocation': {}}
    result, calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:]), check_mode=True,
        answers={'kubenode.cgroups.node_drift_info': [dict(READ_BACK)],
                 'kubenode.cgroups.reservation_info': [sizing]},
        node_allocatable_measure=True, node_allocatable_sample_seconds=3)
    # node_restart runs in check mode (it says what it would restart), with no health gate to wait for.
    assert [name for name, _args in calls] == [RESTART, 'kubenode.cgroups.node_drift_info',
                                               'kubenode.cgroups.reservation_info']
    assert calls[0][1] == {'services': ['kubelet.service']}
    assert calls[2][1]['plan'] == PLAN and calls[2][1]['sample_seconds'] == 3
    assert result['sizing'] == {'changed': False, 'recommendation': {'system': {'memory': '1Gi'}}}


def test_no_audit_without_verify_and_nothing_follows_an_unchanged_node(monkeypatch):
    result, calls, _slept = follow_up(monkeypatch, changed(), node_allocatable_verify='never')
    assert calls == [] and 'audit' not in result and 'fails_on_drift' not in result
    result, calls, _slept = follow_up(monkeypatch, dict(changed(), changed=False))
    assert calls == [] and 'restarted' not in result and result['needs_follow_up'] is False


def test_a_failed_audit_or_measurement_fails_the_node_naming_the_step(monkeypatch):
    result, _calls, _slept = follow_up(
        monkeypatch, changed(), answers={'kubenode.cgroups.node_drift_info': [{'failed': True, 'msg': 'no plan'}]})
    assert result['failed'] and result['msg'] == 'Verify the node against the plan: no plan' and 'audit' not in result
    result, _calls, _slept = follow_up(
        monkeypatch, changed(verification=dict(READ_BACK)), node_allocatable_measure=True,
        answers={'kubenode.cgroups.reservation_info': [{'failed': True, 'msg': 'no cgroup'}]})
    assert result['failed'] and result['msg'].startswith('Measure what the reserved cgroups use') and 'no cgroup' in result['msg']


def test_a_restart_alone_makes_the_task_changed(monkeypatch):
    """A node left with a restart pending by an earlier run: nothing to write, the restart is this run's change."""
    result, calls, _slept = follow_up(monkeypatch, dict(changed(restart_pending=PENDING[:1]), changed=False),
                                      node_allocatable_verify='never')
    assert calls == [(RESTART, {'services': ['containerd.service']})]  # no kubelet restarted: no health to wait for
    assert result['changed'] is True and result['restarted'][0]['changed'] is True


def test_the_plan_lines_name_the_role_variables_as_its_warnings_do(monkeypatch):
    """Issue 51: the warning named node_allocatable_kubelet_binary, the plan line beside it kubelet_binary."""
    plan = dict(PLAN, kubelet_version_source='the newest GA release, as its binary was not asked: '
                                             'kubelet_binary is empty, as under a node root')
    result, _calls, _slept = follow_up(monkeypatch, changed(plan=plan, verification=dict(READ_BACK)))
    line = [text for text in result['summary'] if text.startswith('kubelet release:')][0]
    assert 'node_allocatable_kubelet_binary is empty' in line and ' kubelet_binary' not in line


class FakeK8sLookup(object):
    """kubernetes.core's k8s lookup as the role calls it: the calls kept, its answer (or its error) given."""

    def __init__(self, answer=None, error=None):
        self.calls, self.answer, self.error = [], answer, error

    def run(self, terms, variables=None, **kwargs):
        self.calls.append(kwargs)
        if self.error:
            raise self.error
        return self.answer


def with_lookup(monkeypatch, lookup):
    monkeypatch.setattr('ansible.plugins.loader.lookup_loader.get',
                        lambda name, *args, **kwargs: lookup if name == 'kubernetes.core.k8s' else None)


def test_with_api_access_the_pods_bound_to_the_node_are_read_and_judged(monkeypatch):
    """Issue 52: the role reads the pods the API server has bound to each node itself (make cluster-smoke runs it
    against a real API server)."""
    pods = [{'metadata': {'name': 'web', 'namespace': 'default'}, 'spec': {'nodeName': 'node1'}}]
    lookup = FakeK8sLookup(pods)
    with_lookup(monkeypatch, lookup)
    result, sent = run_action(monkeypatch, True)
    assert lookup.calls == [] and sent[0]['pods'] == []  # no access given: nothing asked
    result, sent = run_action(monkeypatch, True, node_allocatable_kubeconfig='/etc/k.conf')
    assert lookup.calls == [{'kind': 'Pod', 'field_selector': 'spec.nodeName=node1', 'kubeconfig': '/etc/k.conf'}]
    assert sent[0]['pods'] == pods and not result.get('failed')
    result, sent = run_action(monkeypatch, True, node_allocatable_api=True, node_allocatable_node_name='n1.example')
    assert lookup.calls[-1] == {'kind': 'Pod', 'field_selector': 'spec.nodeName=n1.example'}
    # pods given by the operator are theirs: the API is not asked over them
    result, sent = run_action(monkeypatch, True, node_allocatable_api=True, node_allocatable_pods=[{'kind': 'Pod'}])
    assert len(lookup.calls) == 2 and sent[0]['pods'] == [{'kind': 'Pod'}]


def test_the_module_gets_what_the_plan_reads_of_the_api_pods(monkeypatch):
    """A re-run on a cluster node: kubelet updating its pods' status between two runs (resourceVersion, a condition's
    time) must not change the options the receipt compares; mirror pods (kubelet admits the static pod) are left out."""
    def pods(version, time):
        return [{'metadata': {'name': 'web', 'namespace': 'default', 'resourceVersion': version,
                              'managedFields': [{'time': time}]},
                 'spec': {'nodeName': 'node1'},
                 'status': {'phase': 'Running', 'conditions': [{'type': 'Ready', 'lastTransitionTime': time}]}},
                {'metadata': {'name': 'etcd-node1', 'namespace': 'kube-system',
                              'annotations': {'kubernetes.io/config.mirror': 'abc'}}, 'spec': {}}]
    sent_pods = []
    for version, time in (('1', '10:00'), ('2', '10:05')):
        with_lookup(monkeypatch, FakeK8sLookup(pods(version, time)))
        _result, sent = run_action(monkeypatch, True, node_allocatable_kubeconfig='/etc/k.conf')
        sent_pods.append(sent[0]['pods'])
    assert sent_pods[0] == sent_pods[1] == [{'metadata': {'name': 'web', 'namespace': 'default'},
                                             'spec': {'nodeName': 'node1'}, 'status': {'phase': 'Running'}}]


def test_an_api_that_cannot_be_read_fails_the_node_before_anything_is_sent(monkeypatch):
    with_lookup(monkeypatch, FakeK8sLookup(error=RuntimeError('connection refused')))
    result, sent = run_action(monkeypatch, True, node_allocatable_kubeconfig='/etc/k.conf')
    assert result['failed'] and sent == []
    assert result['msg'] == ('node_allocatable_kubeconfig: cannot read the pods the API server has bound to node node1 '
                             '(connection refused). Nothing was written.')
    with_lookup(monkeypatch, None)
    result, sent = run_action(monkeypatch, True, node_allocatable_api=True)
    assert sent == [] and 'node_allocatable_api: cannot read' in result['msg']
    assert 'the kubernetes.core collection is not installed' in result['msg']


HEALTHY = {RESTART: [restarted_all({'services': ['kubelet.service'], 'health_url': HEALTH_URL})]}


class SequenceK8sLookup(object):
    """The k8s lookup answering Node reads from a queue (the last one repeats) and Pod reads with pods()."""

    def __init__(self, nodes, pods):
        self.calls, self.nodes, self.pods = [], list(nodes), pods

    events = ()

    def run(self, terms, variables=None, **kwargs):
        self.calls.append(kwargs)
        if kwargs['kind'] == 'Node':
            return [self.nodes.pop(0) if len(self.nodes) > 1 else self.nodes[0]]
        if kwargs['kind'] == 'Event':
            return list(self.events)
        return self.pods(len([call for call in self.calls if call['kind'] == 'Pod']))


def api_node(status, heartbeat, memory='3Gi'):
    return {'metadata': {'name': 'node1'}, 'status': {
        'allocatable': {'cpu': '1900m', 'memory': memory, 'pods': '110'},
        'conditions': [{'type': 'MemoryPressure', 'status': 'False', 'lastHeartbeatTime': heartbeat},
                       {'type': 'Ready', 'status': status, 'lastHeartbeatTime': heartbeat,
                        'reason': 'KubeletReady' if status == 'True' else 'KubeletNotReady',
                        'message': 'kubelet is posting ready status' if status == 'True' else 'PLEG is not healthy'}]}}


def api_pod(name, phase='Running', reason=None):
    status = {'phase': phase}
    if reason:
        status['reason'] = reason
    return {'metadata': {'name': name, 'namespace': 'default', 'uid': 'uid-' + name}, 'spec': {'nodeName': 'node1'},
            'status': status}


def test_with_api_access_the_gate_waits_for_a_ready_heartbeat_of_the_restarted_kubelet(monkeypatch):
    """Issue 52: a Ready condition the old kubelet posted stays in the API for 40 s after it stopped; the batch goes
    on only once the restarted kubelet posted Ready. The Node is read only when kubelet is restarted."""
    lookup = SequenceK8sLookup([api_node('True', '2026-11-28T05:00:00Z'), api_node('True', '2026-11-28T05:00:00Z'),
                                api_node('Unknown', '2026-11-28T05:00:00Z'), api_node('True', '2026-11-28T05:00:41Z')],
                               lambda count: [api_pod('web')])
    with_lookup(monkeypatch, lookup)
    result, _calls, slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)),
                                      answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf')
    assert [call['kind'] for call in lookup.calls] == ['Pod', 'Node', 'Node', 'Node', 'Node', 'Pod', 'Event']
    assert lookup.calls[-1] == {'kind': 'Event', 'field_selector': 'type=Warning,source=kubelet',
                                'kubeconfig': '/etc/k.conf'}
    assert lookup.calls[1] == {'kind': 'Node', 'resource_name': 'node1', 'kubeconfig': '/etc/k.conf'}
    assert slept == [2, 2] and not result.get('failed')
    assert result['api_gate'] == {'node': 'node1', 'ready_heartbeat': '2026-11-28T05:00:41Z', 'rejected': [],
                                  'allocatable': {'cpu': '1900m', 'memory': '3Gi', 'pods': '110'}}
    assert result['summary'][-1] == ('API server:    node node1 Ready (heartbeat 2026-11-28T05:00:41Z), Allocatable '
                                     'cpu 1900m, memory 3Gi, pods 110; rejected by admission: none')
    # No kubelet restart (or check mode): the API is asked for the pods only.
    lookup.calls[:] = []
    follow_up(monkeypatch, changed(restart_pending=PENDING[:1], verification=dict(READ_BACK)), answers=HEALTHY,
              node_allocatable_kubeconfig='/etc/k.conf')
    assert [call['kind'] for call in lookup.calls] == ['Pod']


def test_a_node_never_ready_again_fails_the_gate_naming_the_condition(monkeypatch):
    lookup = SequenceK8sLookup([api_node('True', '2026-11-28T05:00:00Z'), api_node('False', '2026-11-28T05:00:09Z')],
                               lambda count: [])
    with_lookup(monkeypatch, lookup)
    result, _calls, slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)),
                                      answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf',
                                      node_allocatable_health_timeout=10)
    assert result['failed'] and slept == [2, 2, 2, 2, 2] and 'audit' not in result
    assert result['msg'] == ("Wait until the API server has the node Ready after kubelet's restart, with no pod rejected "
                             "by its admission: node node1 is not Ready in the API server with a heartbeat after "
                             "kubelet's restart within 10 s (Ready: False, last heartbeat 2026-11-28T05:00:09Z; "
                             "KubeletNotReady: PLEG is not healthy)")


def test_pods_rejected_by_admission_after_the_restart_fail_the_gate_unless_the_accepted_preview_named_them(monkeypatch):
    """A pod kubelet already failed before the change is no news; one it rejects after the restart is, unless the
    operator accepted the impact that named it."""
    before = [api_pod('old', 'Failed', 'OutOfcpu'), api_pod('web'), api_pod('db'), api_pod('done', 'Failed', 'Error')]
    after = [api_pod('old', 'Failed', 'OutOfcpu'), api_pod('web', 'Failed', 'OutOfmemory'),
             api_pod('db', 'Failed', 'UnexpectedAdmissionError'), api_pod('done', 'Failed', 'Error')]
    nodes = [api_node('True', '2026-11-28T05:00:00Z'), api_node('True', '2026-11-28T05:00:30Z')]
    refused = [{'pod': 'default/web', 'reason': 'OutOfmemory', 'message': 'Node didn\'t have enough'}]
    impact = {'pods': {'source': 'the API server', 'count': 4, 'refused': refused,
                       'at_risk': [], 'preempting': [], 'not_running': [], 'admission': []},
              'memory': [], 'pods_unknown': None, 'effects': ['pod default/web refused']}
    with_lookup(monkeypatch, SequenceK8sLookup(nodes, lambda count: before if count == 1 else after))
    result, _calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK),
                                                            impact=impact),
                                       answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf')
    assert result['failed'] and result['msg'].endswith(
        "kubelet's admission rejected default/db (UnexpectedAdmissionError), default/web (OutOfmemory) after its "
        "restart, which the impact preview did not name as accepted")
    with_lookup(monkeypatch, SequenceK8sLookup(nodes, lambda count: before if count == 1 else after))
    result, _calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK),
                                                            impact=impact),
                                       answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf',
                                       node_allocatable_accept_impact=True)
    assert result['msg'].endswith("rejected default/db (UnexpectedAdmissionError) after its restart, which the impact "
                                  "preview did not name as accepted")
    assert result['api_gate']['rejected'] == ['default/db', 'default/old', 'default/web']


def test_a_node_the_api_server_does_not_know_is_named_with_the_variable_to_set(monkeypatch):
    class NoNode(SequenceK8sLookup):
        def run(self, terms, variables=None, **kwargs):
            self.calls.append(kwargs)
            return [] if kwargs['kind'] == 'Node' else []
    with_lookup(monkeypatch, NoNode([], None))
    result, _calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)),
                                       answers=HEALTHY, node_allocatable_api=True, node_allocatable_health_timeout=5)
    assert result['failed'] and result['msg'].endswith(
        'the API server has no node node1; set node_allocatable_node_name to its name in the cluster')


def test_an_accepted_pod_readmitted_by_the_stale_allocatable_gets_kubelet_restarted_once_more(monkeypatch):
    """Found on the cluster scenario's node: after its restart kubelet judged the API server's pods by the Node's
    Allocatable the API server still held from before it, and the pod the accepted preview named ran on; at its next
    restart kubelet rejected it, as previewed. The gate restarts kubelet once more, so that it happens now."""
    before = [api_pod('web'), api_pod('db')]
    readmitted = [api_pod('web'), api_pod('db')]
    rejected = [api_pod('web', 'Failed', 'OutOfmemory'), api_pod('db')]
    nodes = [api_node('True', '2026-11-28T05:00:00Z'), api_node('True', '2026-11-28T05:00:30Z', '4Gi'),
             api_node('True', '2026-11-28T05:00:30Z', '3Gi'), api_node('True', '2026-11-28T05:00:50Z', '3Gi')]
    refused = [{'pod': 'default/web', 'reason': 'OutOfmemory', 'message': 'no room'}]
    impact = {'pods': {'source': 'the API server', 'count': 2, 'refused': refused, 'at_risk': [], 'preempting': [],
                       'not_running': [], 'admission': []},
              'memory': [], 'pods_unknown': None, 'effects': ['pod default/web refused']}
    lookup = SequenceK8sLookup(nodes, lambda count: [before, readmitted, rejected][min(count, 3) - 1])
    with_lookup(monkeypatch, lookup)
    result, calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK),
                                                           impact=impact),
                                      answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf',
                                      node_allocatable_accept_impact=True)
    assert not result.get('failed')
    assert [args for name, args in calls if name == RESTART] == [
        {'services': ['kubelet.service'], 'health_url': HEALTH_URL, 'health_timeout': 120}] * 2
    assert result['restarted'][-1]['reason'].startswith('again, to admit default/web by the new Allocatable')
    assert result['api_gate']['rejected'] == ['default/web'] and result['api_gate']['ready_heartbeat'].endswith('50Z')
    assert result['summary'][-1].endswith('rejected by admission: default/web; kubelet restarted again to judge '
                                          'default/web by the new Allocatable (it had judged them by the one the API '
                                          'server held from before its restart)')
    # Not accepted: nothing to take now, no second restart (the gate fails only on rejections)
    with_lookup(monkeypatch, SequenceK8sLookup(nodes, lambda count: before))
    result, calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK),
                                                           impact=impact),
                                      answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf')
    assert [name for name, args in calls].count(RESTART) == 1


def test_after_the_second_restart_the_gate_waits_for_kubelet_to_reject_the_readmitted_pod(monkeypatch):
    """Seen on the cluster scenario's node (2026-11-30): kubelet posted Ready after the second restart before its
    rejection of the re-admitted pod reached the API server, and a gate that read the pods once found none rejected.
    The gate asks again every 2 s until the pod is rejected; one still running at the timeout is named re-admitted."""
    before = [api_pod('web'), api_pod('db')]
    running = [api_pod('web'), api_pod('db')]
    rejected = [api_pod('web', 'Failed', 'OutOfmemory'), api_pod('db')]
    nodes = [api_node('True', '2026-11-28T05:00:00Z'), api_node('True', '2026-11-28T05:00:30Z', '3Gi'),
             api_node('True', '2026-11-28T05:00:50Z', '3Gi')]
    refused = [{'pod': 'default/web', 'reason': 'OutOfmemory', 'message': 'no room'}]
    impact = {'pods': {'source': 'the API server', 'count': 2, 'refused': refused, 'at_risk': [], 'preempting': [],
                       'not_running': [], 'admission': []},
              'memory': [], 'pods_unknown': None, 'effects': ['pod default/web refused']}
    # Pod reads: before the change, after the first restart, then three after the second before the rejection shows.
    answers = [before, running, running, running, running, rejected]
    lookup = SequenceK8sLookup(nodes, lambda count: answers[min(count, len(answers)) - 1])
    with_lookup(monkeypatch, lookup)
    result, calls, slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK),
                                                          impact=impact),
                                     answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf',
                                     node_allocatable_accept_impact=True)
    assert not result.get('failed') and [name for name, args in calls].count(RESTART) == 2
    assert result['api_gate']['rejected'] == ['default/web'] and slept.count(2) >= 3
    assert result['summary'][-1].split('; ')[1] == 'rejected by admission: default/web'
    # Still running at the timeout: named as re-admitted, after the gate asked through its whole window.
    lookup = SequenceK8sLookup(nodes, lambda count: answers[min(count, 2) - 1])
    with_lookup(monkeypatch, lookup)
    result, calls, slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK),
                                                          impact=impact),
                                     answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf',
                                     node_allocatable_accept_impact=True, node_allocatable_health_timeout=10)
    assert not result.get('failed') and result['api_gate']['rejected'] == []
    # once, then every 2 s until the 10 s passed: 6 reads after the second restart
    assert len([call for call in lookup.calls if call['kind'] == 'Pod']) == 2 + 6
    assert result['summary'][-1].endswith('rejected by admission: none; kubelet restarted again to judge default/web by '
                                          'the new Allocatable (it had judged them by the one the API server held '
                                          'from before its restart)')


def kubelet_event(pod, reason, stamp, host='node1', uid=None):
    return {'reason': reason, 'type': 'Warning', 'lastTimestamp': stamp, 'source': {'component': 'kubelet', 'host': host},
            'involvedObject': {'kind': 'Pod', 'namespace': 'default', 'name': pod, 'uid': uid or 'uid-' + pod}}


def test_a_rejected_pod_that_ended_succeeded_is_known_by_kubelets_event(monkeypatch):
    """Seen on kubelet 1.37: a running pod kubelet's admission rejects at its restart ends Succeeded when its
    containers exit 0 on SIGTERM; kubelet's OutOfmemory event names it. Events of a pod that had ended before (or is
    gone: events outlive pods, and a Ready heartbeat may be older than they), of other nodes, or of other reasons are
    not this change's."""
    nodes = [api_node('True', '2026-11-28T05:00:00Z'), api_node('True', '2026-11-28T05:00:30Z')]
    before = [api_pod('web'), api_pod('db'), api_pod('old', 'Succeeded')]
    lookup = SequenceK8sLookup(nodes, lambda count: before if count == 1 else [api_pod('web', 'Succeeded'), api_pod('db')])
    lookup.events = [kubelet_event('web', 'OutOfmemory', '2026-11-28T05:00:20Z'),
                     kubelet_event('old', 'OutOfcpu', '2026-11-28T05:00:20Z'),
                     kubelet_event('db', 'OutOfcpu', '2026-11-28T05:00:20Z', uid='uid-an-earlier-db'),
                     kubelet_event('db', 'OutOfcpu', '2026-11-28T05:00:20Z', host='node2'),
                     kubelet_event('db', 'BackOff', '2026-11-28T05:00:20Z')]
    with_lookup(monkeypatch, lookup)
    result, _calls, _slept = follow_up(monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK)),
                                       answers=HEALTHY, node_allocatable_kubeconfig='/etc/k.conf')
    assert result['failed'] and result['msg'].endswith(
        "kubelet's admission rejected default/web (OutOfmemory) after its restart, which the impact preview did not "
        "name as accepted")
    assert result['api_gate']['rejected'] == ['default/web']


# The way back (issue 53): a change inside its confirmation window is confirmed by node_generation once the gate
# passed, after the OOM watch; a failed gate rolls it back at once.
WINDOW = {'id': '000002', 'state': 'pending', 'timeout': 120}


def test_a_change_that_passes_its_gate_is_confirmed_after_the_oom_watch(monkeypatch):
    result, calls, slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK), generation=dict(WINDOW)),
        answers={'kubenode.cgroups.node_generation': [{
            'changed': True, 'generation': dict(WINDOW, state='confirmed'),
            'gate': {'watched_seconds': 41, 'oom_kills': {'/kubepods.slice': {'before': 0, 'after': 0},
                                                          '/kube.slice': {'before': None, 'after': None}}}}]})
    names = [name for name, _args in calls]
    assert names == [RESTART, 'kubenode.cgroups.node_generation']
    # The window is waited on the controller, after the restart; the node only compares and confirms.
    assert slept == [30]
    assert calls[-1][1] == {'state': 'confirmed', 'generations_dir': '/var/lib/kubenode-cgroups/generations',
                            'lock_path': '/run/lock/kubenode-cgroups.lock', 'cgroupfs_path': '/sys/fs/cgroup',
                            'proc_path': '/proc'}
    assert not result.get('failed') and result['generation']['state'] == 'confirmed'
    assert ('way back: generation 000002 confirmed 41 s after it was armed, no new OOM kill (/kubepods.slice 0)'
            in result['summary'])
    # Nothing restarted: confirmed at once, no wait.
    result, calls, slept = follow_up(monkeypatch, changed(verification=dict(READ_BACK), generation=dict(WINDOW)))
    assert slept == [] and [name for name, _args in calls] == ['kubenode.cgroups.node_generation']


def test_a_failed_gate_rolls_the_change_back_at_once_and_says_so(monkeypatch):
    result, calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:], verification=dict(READ_BACK), generation=dict(WINDOW)),
        answers={RESTART: [unhealthy(5)],
                 'kubenode.cgroups.node_generation': [{'changed': True, 'rolled_back': True,
                                                       'generation': dict(WINDOW, state='rolled-back')}]},
        node_allocatable_health_timeout=5)
    back = [args for name, args in calls if name == 'kubenode.cgroups.node_generation']
    assert len(back) == 1 and back[0]['state'] == 'rolled_back' and back[0]['trigger'] == 'gate'
    assert back[0]['reason'].startswith('Wait until the restarted kubelet is healthy')
    assert result['failed'] and result['rolled_back']
    assert result['msg'].endswith('The node rolled the change back to its last known good state (generation 000002).')
    # A failed gate with no window open rolls nothing back.
    result, calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:], generation=dict(WINDOW, state='confirmed')),
        answers={RESTART: [unhealthy(5)]}, node_allocatable_health_timeout=5)
    assert result['failed'] and 'kubenode.cgroups.node_generation' not in [name for name, _args in calls]


def test_an_oom_kill_in_the_window_fails_the_node_rolled_back(monkeypatch):
    result, _calls, _slept = follow_up(
        monkeypatch, changed(restart_pending=PENDING[1:], generation=dict(WINDOW)),
        answers={'kubenode.cgroups.node_generation': [{
            'failed': True, 'rolled_back': True, 'generation': dict(WINDOW, state='rolled-back'),
            'msg': 'the change was rolled back: OOM kills within 30 s of the change: /system.slice 0 -> 1'}]})
    assert result['failed'] and result['rolled_back'] and '/system.slice 0 -> 1' in result['msg']
    assert 'audit' not in result


def test_a_pending_change_found_by_an_unchanged_run_is_followed_up_and_check_mode_says_what_it_would_arm(monkeypatch):
    result, _sent = run_action(monkeypatch, True, outcome={'changed': False, 'restart_pending': [],
                                                           'generation': dict(WINDOW)})
    assert result['needs_follow_up'] is True
    result, calls, _slept = follow_up(monkeypatch, changed(verification=dict(READ_BACK), generation={
        'id': '000003', 'state': 'rolled-back', 'summary': 'rolled back: healthz (gate, generation 000003)'}),
        check_mode=True)
    assert 'kubenode.cgroups.node_generation' not in [name for name, _args in calls]
    assert result['summary'][-2:] == [
        'way back: rolled back: healthz (gate, generation 000003)',
        'way back: the change would be kept as a generation and reverted by the node unless its gate passes within '
        '120 s']


def test_a_node_with_no_oom_count_readable_says_so_rather_than_zeros():
    from ansible_collections.kubenode.cgroups.plugins.action.role_node_cgroups import way_back_line
    assert way_back_line({'id': '000001'}, {'watched_seconds': 1, 'oom_kills': {'/kubepods': {'after': None}}}) == (
        'way back: generation 000001 confirmed 1 s after it was armed, no OOM kill count readable here')
    assert way_back_line({'id': '000001'}, {'watched_seconds': 1}) == (
        'way back: generation 000001 confirmed 1 s after it was armed')


def test_the_defaults_reserve_pids_for_the_system():
    """Issue 76: without a PID reservation a fork bomb took every task of the node and 37 of 84 ssh logins failed
    (docs/protection.md); the role's default keeps 1000 of them from pods, as systemReserved.pid."""
    args, origin = build()
    assert args['system_reserved'] == {'pid': '1000'}
    assert args['kube_reserved'] == {}
    assert origin['system_reserved.pid'] == 'node_allocatable_pid_reserved'


def test_a_pid_the_operator_reserves_is_kept_and_zero_reserves_none():
    args, _origin = build(node_allocatable_kube_reserved={'pid': '4000', 'memory': '1Gi'})
    assert args['system_reserved'] == {} and args['kube_reserved'] == {'pid': '4000', 'memory': '1Gi'}
    args, _origin = build(node_allocatable_system_reserved={'pid': '500', 'cpu': '200m'})
    assert args['system_reserved'] == {'pid': '500', 'cpu': '200m'}
    args, _origin = build(node_allocatable_system_reserved={'cpu': '200m'}, node_allocatable_pid_reserved=2048)
    assert args['system_reserved'] == {'cpu': '200m', 'pid': '2048'}
    for none in (0, '0', '', None):
        args, _origin = build(node_allocatable_pid_reserved=none)
        assert args['system_reserved'] == {}


def test_kubespray_mode_keeps_kubesprays_pids_and_adds_none():
    args, _origin = build(node_allocatable_variables='kubespray', system_pid_reserved='300')
    assert args['system_reserved']['pid'] == '300' and args['kube_reserved']['pid'] == '1000'


def test_the_defaults_put_a_floor_under_the_profiles_memory_and_empty_takes_it_away():
    args, origin = build()
    assert args['min_memory_reserved'] == '512Mi' and origin['min_memory_reserved'] == 'node_allocatable_min_memory_reserved'
    args, _origin = build(node_allocatable_min_memory_reserved='')
    assert 'min_memory_reserved' not in args


def role_path_messages():
    """Every string the node's side of the role path holds (module_utils, node_cgroups and node_drift_info, which
    the role runs): the words of every warning and error it can raise, read from the source."""
    import ast
    import glob
    plugins = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins')
    paths = sorted(glob.glob(os.path.join(plugins, 'module_utils', '**', '*.py'), recursive=True)) + [
        os.path.join(plugins, 'modules', name) for name in ('node_cgroups.py', 'node_drift_info.py')]
    for path in paths:
        with open(path) as handle:
            tree = ast.parse(handle.read())
        # Docstrings, and the modules' documentation, are no message.
        docstrings = set(id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) or (
            isinstance(node, ast.Assign) and [getattr(t, 'id', None) for t in node.targets] in (
                ['DOCUMENTATION'], ['EXAMPLES'], ['RETURN'])))
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == 'field' and isinstance(node.value, ast.Constant):
                yield os.path.basename(path), '%s: refused' % node.value.value  # KubenodeError's leading field
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and ' ' in node.value:
                yield os.path.basename(path), node.value


def test_no_message_of_the_role_path_names_a_module_option_the_operator_does_not_set():
    """Issue 77: through the role, warnings told the user to set module options (kubelet_binary,
    kubelet_config_dropin, kubelet_version). Every option of node_cgroups that any message of the role path
    names is written as the role variable that sets it, by name_role_variables."""
    import re
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import node_cgroups_argument_spec
    spec = node_cgroups_argument_spec()
    options = set(name for name in spec if '_' in name)
    options.update(name for name in spec['kubelet_config']['options'] if '_' in name)
    _args, origin = build()
    word = re.compile(r'(?<![\w.])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w])')
    left = set()
    checked = 0
    for source, text in role_path_messages():
        named = [name for name in word.findall(text) if name in options]
        if not named:
            continue
        checked += 1
        said = name_role_variables(text, origin, leading_field=text.endswith(': refused'))
        left.update((source, name) for name in named if re.search(r'(?<![\w.])%s(?![\w])' % name, said))
    assert checked > 30  # the walk found the messages (42 name an option today)
    assert sorted(left) == []
