# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_results on the controller: without a fleet it reads the play's hosts itself, and writes their shards."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
from unittest.mock import MagicMock
from ansible.errors import AnsibleActionFail
from ansible.playbook.task import Task

from ansible_collections.kubenode.cgroups.plugins.action import node_results


def run(task_vars, **args):
    task = Task()
    task.args = args
    connection = MagicMock()
    connection._shell.tmpdir = ''  # pylint: disable=protected-access
    action = node_results.ActionModule(task, connection=connection, play_context=None, loader=None, templar=None,
                                       shared_loader_obj=None)
    return action.run(task_vars=task_vars)


def play(check_mode=False):
    hostvars = {
        'node1': {'__node_allocatable_cgroups': {'changed': True, 'plan': {'reserved': {}}, 'changes': ['write x'],
                                                 'cgroup_mode': 'v2'}},
        'node2': {'node_allocatable_failed': {'task': 'Plan', 'msg': 'refused'}},
        'node3': {},
    }
    return {'ansible_play_hosts_all': ['node1', 'node2', 'node3'], 'hostvars': hostvars,
            'ansible_check_mode': check_mode}


def test_without_a_fleet_the_plays_hosts_are_read_and_a_shard_written_for_each_reached_one(tmp_path):
    result = run(play(), dir=str(tmp_path), run={'id': 'run-7', 'playbook': 'node'})
    assert result['hosts'] == ['node1', 'node2']  # node3 was not reached: no shard
    assert sorted(p.name for p in tmp_path.iterdir()) == ['node1.json', 'node2.json']
    node1 = json.loads((tmp_path / 'node1.json').read_text())
    assert (node1['status'], node1['operations'], node1['run']['id']) == ('applied', 1, 'run-7')
    node2 = json.loads((tmp_path / 'node2.json').read_text())
    assert (node2['status'], node2['message']) == ('failed', 'Plan: refused')


def test_check_mode_of_the_run_says_would_apply(tmp_path):
    run(play(check_mode=True), dir=str(tmp_path))
    assert json.loads((tmp_path / 'node1.json').read_text())['status'] == 'would apply'


def test_a_given_fleet_is_used_as_it_is(tmp_path):
    fleet = [{'host': 'other', 'status': 'audited', 'message': '', 'operations': None, 'summary': None,
              'sizing': None, 'impact': None}]
    assert run(play(), fleet=fleet, dir=str(tmp_path))['hosts'] == ['other']


@pytest.mark.parametrize('fleet', [{'host': 'a'}, [{'status': 'applied'}], ['node1']])
def test_a_fleet_that_is_not_a_list_of_entries_is_refused_naming_it(tmp_path, fleet):
    with pytest.raises(AnsibleActionFail, match='^fleet: must be a list'):
        run(play(), fleet=fleet, dir=str(tmp_path))
    assert list(tmp_path.iterdir()) == []


class StoredVariables(object):
    """ansible-core's HostVars as the action sees it: raw_get gives a host's variables as stored; hostvars[host]
    would template each value again on access."""

    def __init__(self, hostvars):
        self.hostvars = hostvars

    def raw_get(self, host):
        return self.hostvars[host]

    def __getitem__(self, host):
        raise AssertionError('templated again: %s' % host)

    get = __getitem__


def test_the_plays_hosts_are_read_as_stored_not_templated_again(tmp_path):
    task_vars = play()
    task_vars['hostvars'] = StoredVariables(task_vars['hostvars'])
    assert run(task_vars, dir=str(tmp_path))['hosts'] == ['node1', 'node2']
