# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
from unittest.mock import MagicMock
from ansible.errors import AnsibleActionFail
from ansible.playbook.task import Task

from ansible_collections.kubenode.cgroups.plugins.action import role_variables

ROLE = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'node_allocatable')


def run(task_vars, **args):
    task = Task()
    task.args = args
    connection = MagicMock()
    connection._shell.tmpdir = ''
    action = role_variables.ActionModule(task, connection=connection, play_context=None, loader=None, templar=None,
                                         shared_loader_obj=None)
    return action.run(task_vars=task_vars)


def test_a_misspelled_role_variable_is_named_with_the_closest_known_one(monkeypatch):
    warnings = []
    monkeypatch.setattr(role_variables.display, 'warning', warnings.append)
    result = run({'role_path': ROLE, 'node_allocatable_sytem_reserved': {'memory': '1Gi'},
                  'node_allocatable_kube_reserved': {}, 'node_allocatable_zzz': 1, '__node_allocatable_x': 1,
                  'inventory_hostname': 'node1'}, prefix='node_allocatable_')
    assert result['unknown'] == [
        {'name': 'node_allocatable_sytem_reserved', 'closest': 'node_allocatable_system_reserved', 'hosts': ['node1']},
        {'name': 'node_allocatable_zzz', 'closest': None, 'hosts': ['node1']}]
    assert warnings == [
        'node_allocatable_sytem_reserved (on node1): the role node_allocatable does not know this variable and '
        'ignores it (did you mean node_allocatable_system_reserved?)',
        'node_allocatable_zzz (on node1): the role node_allocatable does not know this variable and ignores it '
        '(no such variable)']
    assert result['changed'] is False


def test_run_once_it_checks_every_host_of_the_batch(monkeypatch):
    monkeypatch.setattr(role_variables.display, 'warning', lambda text: None)
    hostvars = {'node2': {'node_allocatable_max_pod': 50},
                'node3': {'node_allocatable_max_pod': 60, 'node_allocatable_profile': 'eks'}}
    result = run({'role_path': ROLE, 'inventory_hostname': 'node1', 'ansible_play_batch': ['node1', 'node2', 'node3'],
                  'hostvars': hostvars}, prefix='node_allocatable_')
    assert result['unknown'] == [{'name': 'node_allocatable_max_pod', 'closest': 'node_allocatable_max_pods',
                                  'hosts': ['node2', 'node3']}]


def test_every_default_of_the_role_is_known(monkeypatch):
    import yaml
    with open(os.path.join(ROLE, 'defaults', 'main.yml')) as handle:
        defaults = yaml.safe_load(handle)
    monkeypatch.setattr(role_variables.display, 'warning', pytest.fail)
    assert run(dict(defaults, role_path=ROLE), prefix='node_allocatable_')['unknown'] == []


def test_the_roles_refuse_a_misspelled_variable_naming_it_and_the_way_out(monkeypatch):
    """unknown: fail (the node_allocatable role's default): the task fails, so nothing after it is written."""
    monkeypatch.setattr(role_variables.display, 'warning', pytest.fail)
    result = run({'role_path': ROLE, 'node_allocatable_sytem_reserved': {'memory': '1Gi'},
                  'inventory_hostname': 'node1'}, prefix='node_allocatable_', unknown='fail')
    assert result['failed'] is True
    assert result['msg'] == (
        'node_allocatable_sytem_reserved (on node1): the role node_allocatable does not know this variable and would '
        'ignore it (did you mean node_allocatable_system_reserved?). Nothing was written. Correct the name, or set '
        'node_allocatable_unknown_variables: warn where the inventory carries unrelated node_allocatable_* variables')
    clean = run({'role_path': ROLE, 'node_allocatable_system_reserved': {}, 'inventory_hostname': 'node1'},
                prefix='node_allocatable_', unknown='fail')
    assert 'failed' not in clean and clean['unknown'] == []
    with pytest.raises(AnsibleActionFail):
        run({'role_path': ROLE}, prefix='node_allocatable_', unknown='maybe')


def test_outside_a_role_or_without_prefix_it_fails():
    with pytest.raises(AnsibleActionFail):
        run({}, prefix='node_allocatable_')
    with pytest.raises(AnsibleActionFail):
        run({'role_path': ROLE})
