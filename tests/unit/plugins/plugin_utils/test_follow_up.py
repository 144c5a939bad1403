# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node_allocatable role's steps after a change, without I/O (plugin_utils/_follow_up)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _follow_up as steps

RUNTIME = {'service': 'containerd.service', 'reason': 'slice'}
KUBELET = {'service': 'kubelet.service', 'reason': 'config'}


def test_restarts_follow_the_two_switches_in_node_cgroups_order():
    assert steps.restarts_to_make([RUNTIME, KUBELET], True, True) == ([RUNTIME, KUBELET], [])
    assert steps.restarts_to_make([RUNTIME, KUBELET], False, True) == ([RUNTIME], [KUBELET])
    assert steps.restarts_to_make([RUNTIME, KUBELET], True, False) == ([KUBELET], [RUNTIME])
    assert steps.restarts_to_make(None, True, True) == ([], [])


def test_the_api_gate_asks_once_then_every_two_seconds_until_the_timeout():
    assert steps.api_tries(120) == 61
    assert steps.api_tries(10) == 6
    assert steps.api_tries(11) == 7
    assert steps.api_tries(0) == 1


def test_the_gate_waits_only_for_a_kubelet_restarted_by_a_real_run():
    kubelet = [{'service': 'kubelet.service', 'changed': True}]
    assert steps.health_gate_needed('http://127.0.0.1:10248/healthz', False, kubelet)
    assert not steps.health_gate_needed('http://127.0.0.1:10248/healthz', True, kubelet)
    assert not steps.health_gate_needed('', False, kubelet)
    assert not steps.health_gate_needed('http://x', False, [{'service': 'kubelet.service', 'changed': False}])
    assert not steps.health_gate_needed('http://x', False, [{'service': 'containerd.service', 'changed': True}])


def test_verify_decides_the_audit():
    assert steps.audit_wanted('always', False) and steps.audit_wanted('changed', True)
    assert not steps.audit_wanted('changed', False) and not steps.audit_wanted('never', True)


def test_the_read_back_stands_only_when_every_pending_service_was_restarted():
    outcome = {'verification': {'drift': []}, 'restart_pending': [RUNTIME, KUBELET]}
    both = [{'service': 'containerd.service', 'changed': True}, {'service': 'kubelet.service', 'changed': True}]
    assert steps.read_back_stands(outcome, both)
    assert not steps.read_back_stands(outcome, both[:1])
    assert not steps.read_back_stands(outcome, [both[0], dict(both[1], changed=False)])
    assert not steps.read_back_stands({'restart_pending': []}, [])  # no read-back (check mode, verify: never)
    assert steps.read_back_stands({'verification': {}, 'restart_pending': []}, [])


def test_node_drift_info_reads_the_kubelet_configuration_node_cgroups_chose():
    args = {'cgroupfs_path': '/r/sys/fs/cgroup', 'proc_path': '/r/proc', 'systemd_control_dirs': ['/r/c'],
            'containerd_config_path': '/r/c.toml', 'crio_config_paths': [], 'systemd_unit_dir': '/r/u',
            'persist_script': '/r/p', 'kubelet_root_dir': '/r/k', 'generations_dir': '/r/g', 'kubelet_config': {'kubelet_dropin_dir': '/r/d'}}
    role = {'services': ['kubelet'], 'kubelet_settings': None, 'allow_driver_mismatch': False, 'persist': True,
            'kubelet_config_path': '/given', 'kubelet_config_dropin': None}.get
    chosen = {'plan': {'p': 1}, 'kubelet_config': {'choice': {'path': '/chosen', 'dropin': True, 'dropin_dir': '/cd'}}}
    made = steps.drift_info_args(chosen, role, args)
    assert made['kubelet_config_path'] == '/chosen' and made['kubelet_config_dropin'] is True
    assert made['kubelet_dropin_dir'] == '/cd' and made['kubelet_settings'] == {} and made['node_root'] == '/'
    assert made['cgroupfs_path'] == '/r/sys/fs/cgroup' and made['kubelet_root_dir'] == '/r/k' and made['generations_dir'] == '/r/g'
    made = steps.drift_info_args({'plan': {}}, role, args)
    assert made['kubelet_config_path'] == '/given' and 'kubelet_config_dropin' not in made
    assert made['kubelet_dropin_dir'] == '/r/d'


def test_the_audit_result_is_the_comparison_without_the_modules_bookkeeping():
    comparison = {'drift': [], 'plan': {}, 'changed': False, 'invocation': {}, 'warnings': []}
    assert steps.audit_result(comparison, True) == {'drift': [], 'plan': {}, 'check_mode': True}
    assert steps.module_failure('Step', {'msg': 'boom'}) == 'Step: boom'
    assert steps.module_failure('Step', {}) == 'Step: failed'


def test_the_plan_shown_says_what_was_restarted_and_what_was_left():
    restarted = [{'service': 'containerd.service', 'reason': 'slice', 'changed': True},
                 {'service': 'kubelet.service', 'reason': 'config', 'changed': False}]
    assert steps.restarts_line(restarted, []) == 'restarted:     containerd.service (slice)'
    assert steps.restarts_line([], [KUBELET]) == 'restarted:     nothing; left to the operator: kubelet.service'
