# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 77: the audit tells the truth at a glance. A drifting node is drift in the headline, its status and its
place; the report says which kind of run wrote it; a limited run keeps the fleet's other nodes as last seen; the
role's warnings are said once for the batch, naming the hosts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible_collections.kubenode.cgroups.plugins.action.node_results import batch_warnings
from ansible_collections.kubenode.cgroups.plugins.action.role_node_cgroups import generic_warning
from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet, _fleet_report
from ansible_collections.kubenode.cgroups.tests.unit.plugins.plugin_utils.test_fleet_report import entry


def audited(host, drift=0):
    found = entry(host, status='audited', operations=None)
    found['summary'] = dict(found['summary'], drift=[{'item': 'kubelet config', 'check': '/c', 'live': 'a: 1',
                                                      'planned': 'a: 2'}] * drift)
    return found


def test_an_audit_counts_the_nodes_that_match_and_those_that_drift_and_puts_the_drifting_first():
    fleet = [audited('n1'), audited('n2'), audited('n3', drift=2), audited('n4')]
    assert _fleet_report.headline(fleet) == '4 node(s): 3 match, 1 drifts, 0 failed, 0 not reached'
    assert [(e['host'], e['shown']) for e in _fleet_report.prepared(fleet, 'audit')] == [
        ('n3', 'drift (2)'), ('n1', 'match'), ('n2', 'match'), ('n4', 'match')]
    md = _fleet_report.render(fleet, 'audit')['report.md']
    assert '**4 node(s): 3 match, 1 drifts, 0 failed, 0 not reached.**' in md
    assert [line.split(' | ')[:2] for line in md.splitlines() if line.startswith('| n') and 'status' not in line] == [
        ['| n3', 'drift (2)'], ['| n1', 'match'], ['| n2', 'match'], ['| n4', 'match']]
    assert 'by an audit: nothing was written, and every drift below is on the node now.' in md
    assert 'apply run' not in md and '(check mode)' not in md
    assert '| kubelet config | /c | a: 1 | a: 2 |' in md


def test_failed_rolled_back_and_unreached_nodes_are_counted_apart_from_match_and_drift():
    fleet = [audited('n1', drift=1), audited('n2', drift=1), dict(audited('n3'), status='failed'),
             dict(audited('n4'), status='rolled back'), dict(audited('n5'), status='not reached', summary=None)]
    assert _fleet_report.headline(fleet) == \
        '5 node(s): 0 match, 2 drift, 1 rolled back, 1 failed, 1 not reached'
    # An apply run keeps its words: the match and drift counts are an audit's.
    assert _fleet_report.headline([entry('a'), entry('b', status='unchanged')]) == \
        '2 node(s): 1 applied, 1 unchanged, 0 failed, 0 not reached'


def test_the_header_names_the_kind_of_run_from_what_ran_not_from_the_statuses():
    """The audit of a node whose newest generation was rolled back said "Written ... by an apply run"."""
    fleet = [audited('n1'), dict(audited('n2'), status='rolled back', message='rolled back: on demand (x)')]
    md = _fleet_report.render(fleet, 'audit')['report.md']
    assert 'by an audit:' in md and 'apply run' not in md
    assert 'Rolled back: on demand (x)' in md and 'rolled back: rolled back' not in md.lower()
    assert 'by a check-mode run (`--check`): nothing was written' in _fleet_report.render(fleet, 'check')['report.md']
    runs = ({'kind': 'audit', 'check_mode': True}, {'check_mode': True},
            {'playbook': 'Audit Node Allocatable across the fleet'}, {})
    assert [_fleet.run_kind(run) for run in runs] == ['audit', 'check', 'audit', 'apply']


def test_a_merge_names_every_kind_of_run_it_holds():
    run = {'id': 1, 'playbook': 'p', 'check_mode': False}
    documents = [_fleet.shard(audited('n1'), dict(run, kind='audit'), 't1'),
                 _fleet.shard(entry('n2'), dict(run, id=2, kind='apply'), 't2'),
                 _fleet.shard(entry('n3', status='would apply'), dict(run, id=3, kind='check', check_mode=True), 't3')]
    fleet, runs, counted = _fleet.merge(documents)
    md = _fleet_report.render(fleet, None, runs, counted)['report.md']
    assert 'by runs of 3 kinds (an audit, a check-mode run, an apply run), each node saying which' in md
    assert '## n1: match (from an audit)' in md and '## n3: would apply (from a check-mode run)' in md


def test_a_limited_run_shows_the_fleets_other_nodes_as_last_seen(tmp_path):
    run = {'id': 1, 'playbook': 'node', 'check_mode': False, 'kind': 'apply'}
    _fleet.write_shards(str(tmp_path), [_fleet.shard(entry(h), run, '2026-12-08T01:00:00.000000Z') for h in ('a', 'b')])
    (tmp_path / 'broken.json').write_text('{')
    others, unreadable = _fleet.last_seen(str(tmp_path), ['a', 'c'])
    assert [(e['host'], e['last_seen'], e['kind']) for e in others] == [('b', True, 'apply')]
    assert len(unreadable) == 1 and 'broken.json: not JSON' in unreadable[0]
    fleet = [entry('a', status='unchanged'), entry('c')] + others
    md = _fleet_report.render(fleet, 'apply')['report.md']
    assert '**3 node(s): 2 applied, 1 unchanged, 0 failed, 0 not reached; 1 of them as last seen by an earlier run.**' in md
    assert '| b | applied (last seen) |' in md
    assert '## b: applied (2 operations) (last seen 2026-12-08 01:00 UTC, by an apply run)' in md
    assert _fleet.last_seen(str(tmp_path / 'none'), []) == ([], [])


def test_the_release_line_says_where_the_release_came_from_in_a_few_words():
    assert _fleet_report.release_source('the newest GA release, as its binary was not asked: kubelet_binary is empty '
                                        '(kubelet found: x)') == 'not read from the node, the newest GA release assumed'
    assert _fleet_report.release_source('/usr/bin/kubelet --version of kubelet.service (Kubernetes v1.37.2)') == \
        '/usr/bin/kubelet --version of kubelet.service'
    assert _fleet_report.release_source('set by the operator; the node\'s kubelet could not be asked') == \
        'set by the operator'


def test_a_warning_of_many_hosts_is_said_once_naming_them():
    def fact(root, text):
        said = text % root.rstrip('/')  # a root given with its trailing slash names the same tree
        return {'__node_allocatable_warnings': [{'text': said, 'generic': generic_warning(said, root)}]}
    text = 'systemd is not PID 1 under %s'
    hostvars = {'n1': fact('/fleet/n1', text), 'n2': fact('/fleet/n2/', text), 'n3': fact('/fleet/n3', 'alone %s'),
                'n4': {}}
    assert sorted(batch_warnings(['n1', 'n2', 'n3', 'n4'], hostvars)) == [
        'on n1, n2: systemd is not PID 1 under <node root>', 'on n3: alone /fleet/n3']
    # Only the batch's hosts: an earlier batch's warnings were said with it.
    assert batch_warnings(['n3'], hostvars) == ['on n3: alone /fleet/n3']
    assert generic_warning('x /y', '') == 'x /y'


def test_the_shards_of_a_run_say_its_kind(tmp_path):
    documents = [_fleet.shard(audited('n1'), {'id': 1, 'kind': 'audit'}, 't')]
    paths = _fleet.write_shards(str(tmp_path), documents)
    with open(paths[0]) as handle:
        assert json.load(handle)['run']['kind'] == 'audit'
    assert os.path.basename(paths[0]) == 'n1.json'


def test_each_node_keeps_its_own_warnings_in_the_report():
    """Said once for the batch on the console, each warning stays in the node's own words on its card."""
    variables = {'node_audit_result': audited('n1')['summary'],
                 '__node_allocatable_warnings': [{'text': 'systemd is not PID 1 under /fleet/n1', 'generic': 'g'}]}
    found = _fleet.play_entry('n1', variables, False)
    assert found['warnings'] == ['systemd is not PID 1 under /fleet/n1']
    texts = _fleet_report.render([found], 'audit')
    assert '- Warning: systemd is not PID 1 under /fleet/n1' in texts['report.md']
    assert '<p class="pending">warning: systemd is not PID 1 under /fleet/n1</p>' in texts['index.html']
    assert _fleet.play_entry('n2', {'node_audit_result': audited('n2')['summary']}, False)['warnings'] == []


def test_a_failure_says_whether_the_input_or_the_host_failed():
    """Issue 78: a playbook or AWX retries a host failure, never an input one."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import (
        HOST, INPUT, HostError, KubenodeError, KubeletConfigRefused, failure_of)
    assert failure_of(KubenodeError('bad', field='kube_reserved')) == INPUT == 'input'
    assert failure_of(KubeletConfigRefused('refused')) == INPUT
    assert failure_of(HostError('cannot write /x: Read-only file system')) == HOST == 'host'
    assert failure_of(OSError(30, 'Read-only file system')) == HOST
