# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Node results as shards and their merge (plugin_utils/_fleet): the newest result of a node wins, a node of the
inventory with none is not reached, and any mix of files, directories and AWX artifacts reads alike."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil

import pytest

from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet

PLAN = {'kubelet_version': '1.37', 'cgroup_driver': 'systemd', 'enforce_node_allocatable': ['pods'],
        'capacity': {'memory': {'quantity': '16Gi'}}, 'reserved': {'system': {}, 'kube': {}},
        'allocatable': {'memory': {'quantity': '15Gi'}}, 'eviction': {'reservation': {}, 'hard': {'memory.available': '100Mi'}},
        'cgroups': {'kubepods': {'cgroupfs_path': '/kubepods', 'systemd_unit': 'kubepods.slice', 'v1_files': {},
                                 'v2_files': {'memory.max': '1'}, 'systemd_properties': {'v2': {}}, 'resources': {'x': 1}},
                    'kube_reserved': {'cgroupfs_path': '/kube'}},
        'pods': {'big': 'detail'}}


def entry(host, status='applied', operations=2):
    return {'host': host, 'status': status, 'message': '', 'operations': operations,
            'summary': {'plan': PLAN, 'drift': [{'item': 'x', 'check': 'c', 'live': 'l', 'planned': 'p'}],
                        'cgroup_mode': 'v2', 'check_mode': False}, 'sizing': None,
            'impact': {'effects': [], 'memory': [], 'pods': None}, 'warnings': []}


def shard(host, written, run_id='run-1', **kwargs):
    return _fleet.shard(entry(host, **kwargs), {'id': run_id, 'playbook': 'node', 'check_mode': False}, written)


def test_a_shard_is_the_report_entry_with_its_schema_node_time_and_run():
    document = shard('node1', '2026-11-26T10:00:00.000001Z')
    assert document['schema'] == _fleet.SCHEMA and document['version'] == _fleet.VERSION
    assert dict((k, document[k]) for k in ('host',) + _fleet.ENTRY_KEYS) == entry('node1')
    assert _fleet.checked(json.loads(json.dumps(document)), 'here') == document


def test_the_newest_result_of_a_node_wins_and_the_inventorys_nodes_come_first():
    documents = [shard('node2', '2026-11-26T10:00:00.000000Z', status='failed'),
                 shard('node2', '2026-11-26T11:00:00.000000Z', run_id='run-2'),
                 shard('zeta', '2026-11-26T10:00:00.000000Z'), shard('node1', '2026-11-26T10:00:00.000000Z')]
    fleet, runs, counted = _fleet.merge(documents, ['node1', 'node2', 'node3'])
    assert [(e['host'], e['status']) for e in fleet] == [
        ('node1', 'applied'), ('node2', 'applied'), ('node3', 'not reached'), ('zeta', 'applied')]
    assert fleet[2] == {'host': 'node3', 'status': 'not reached', 'message': '', 'operations': None, 'summary': None,
                        'sizing': None, 'impact': None, 'warnings': None}
    assert counted == {'shards': 4, 'duplicates': 1, 'not_reached': 1}
    assert [(r['run']['id'], r['nodes']) for r in runs] == [('run-1', 2), ('run-2', 1)]
    assert runs[0]['label'] == 'run-1 (node)'


def test_a_result_seen_twice_is_counted_once():
    twice = shard('node1', '2026-11-26T10:00:00.000000Z')
    fleet, runs, counted = _fleet.merge([twice, dict(twice)], ['node1'])
    assert len(fleet) == 1 and counted['duplicates'] == 1 and runs[0]['nodes'] == 1


def test_an_artifact_keeps_only_what_the_report_shows_and_renders_alike():
    small = _fleet.trimmed(shard('node1', 't'))
    plan = small['summary']['plan']
    assert sorted(plan) == sorted(list(_fleet.REPORT_PLAN_KEYS[:1]) + [
        'cgroup_driver', 'enforce_node_allocatable', 'capacity', 'reserved', 'allocatable', 'eviction', 'cgroups'])
    assert plan['eviction'] == {'reservation': {}, 'hard': {'memory.available': '100Mi'}} and list(plan['cgroups']) == ['kubepods']
    assert 'resources' not in plan['cgroups']['kubepods'] and plan['cgroups']['kubepods']['v2_files'] == {'memory.max': '1'}
    assert small['summary']['drift'] == entry('node1')['summary']['drift']
    assert len(json.dumps(small)) < len(json.dumps(shard('node1', 't')))


def test_shards_are_read_from_directories_files_and_artifact_dumps(tmp_path):
    directory = tmp_path / 'slice1'
    written = _fleet.write_shards(str(directory), [shard('node1', 'a'), shard('node/2', 'a')])
    assert sorted(os.path.basename(p) for p in written) == ['node1.json', 'node_2.json']
    assert _fleet.write_shards(str(directory), [shard('node1', 'a')]) == []  # unchanged: left alone
    dump = tmp_path / 'artifacts.json'
    dump.write_text(json.dumps({'other': 1, _fleet.artifact_key('node.3'): _fleet.trimmed(shard('node.3', 'b'))}))
    found = _fleet.read_shards([str(directory), str(dump)])
    assert sorted(d['host'] for d in found) == ['node.3', 'node/2', 'node1']
    assert _fleet.artifact_key('node.3') == 'kubenode_cgroups_node__node_3'


def test_a_later_batch_rewrites_only_the_shards_whose_result_changed(tmp_path):
    directory = str(tmp_path)
    first = [shard('node1', '2026-12-02T10:00:00.000001Z'), shard('node2', '2026-12-02T10:00:00.000001Z')]
    assert len(_fleet.write_shards(directory, first)) == 2
    # The next batch: node1 is as it was, node2 has a result of this batch, node3 is new; a later time stamps all.
    later = '2026-12-02T10:05:00.000001Z'
    batch = [shard('node1', later), shard('node2', later, status='failed'), shard('node3', later)]
    written = _fleet.write_shards(directory, batch)
    assert sorted(os.path.basename(p) for p in written) == ['node2.json', 'node3.json']
    kept = _fleet.read_shards([directory])
    assert dict((d['host'], (d['status'], d['written'])) for d in kept) == {
        'node1': ('applied', '2026-12-02T10:00:00.000001Z'), 'node2': ('failed', later), 'node3': ('applied', later)}
    # Another run's shard of the same result is that run's, not this one's: written anew.
    assert _fleet.write_shards(directory, [shard('node1', later, run_id='run-2')]) == [os.path.join(directory, 'node1.json')]
    (tmp_path / 'node3.json').write_text('{"half')
    assert _fleet.write_shards(directory, [shard('node3', later)]) == [os.path.join(directory, 'node3.json')]


# What the real ansible-runner 2.4.3 wrote for the node playbook (--check, node_artifacts: true) on one fake node: two
# of its job events, the playbook's start and its stats, whose artifact_data holds the node's result (issue 51).
RUNNER_ARTIFACTS = os.path.join(os.path.dirname(__file__), '..', '..', 'data', 'ansible-runner-artifacts')


def test_ansible_runners_artifacts_are_read_as_they_are(tmp_path):
    """shards= named <private_data_dir>/artifacts/<ident> and found no node result."""
    for path in (RUNNER_ARTIFACTS, os.path.join(RUNNER_ARTIFACTS, 'r1')):
        found = _fleet.read_shards([path])
        assert [(d['host'], d['status'], d['run']['check_mode']) for d in found] == [('node1', 'failed', True)]
    # One event file, and the same events as AWX's API pages them, or in a list.
    events = [json.load(open(name)) for name in _fleet._runner_events(RUNNER_ARTIFACTS)]  # pylint: disable=protected-access
    stats = [e for e in events if e['event'] == 'playbook_on_stats']
    assert len(events) == 2 and len(stats) == 1
    for value in (stats[0], {'count': 2, 'results': events}, events):
        dump = tmp_path / 'events.json'
        dump.write_text(json.dumps(value))
        assert [d['host'] for d in _fleet.read_shards([str(dump)])] == ['node1']
    # An AWX job as its API shows it: its artifacts.
    job = tmp_path / 'job.json'
    job.write_text(json.dumps({'id': 42, 'status': 'successful', 'artifacts': stats[0]['event_data']['artifact_data']}))
    assert [d['host'] for d in _fleet.read_shards([str(job)])] == ['node1']


def test_a_verbose_event_among_ansible_runners_job_events_is_passed_over(tmp_path):
    """shards= named a slice's artifacts with an event of a warning ansible printed at its start (cryptography
    51's deprecation of DSA, imported by ansible-core 2.19): "neither a node result nor artifacts"."""
    events = tmp_path / 'slice3' / 'job_events'
    shutil.copytree(os.path.join(RUNNER_ARTIFACTS, 'r1', 'job_events'), str(events))
    # As ansible-runner 2.4.3 writes a line printed outside a callback: no event_data.
    (events / '2-1b8995d0-4c22-42d6-9cbe-c9f4e5442a3b.json').write_text(json.dumps({
        'event': 'verbose', 'uuid': '1b8995d0-4c22-42d6-9cbe-c9f4e5442a3b', 'counter': 2,
        'stdout': 'CryptographyDeprecationWarning: DSA is deprecated', 'start_line': 0, 'end_line': 1,
        'runner_ident': 'slice3', 'created': '2026-12-06T22:26:15.552215+00:00'}))
    found = _fleet.read_shards([str(tmp_path / 'slice3')])
    assert [(d['host'], d['status']) for d in found] == [('node1', 'failed')]


@pytest.mark.parametrize('content, said', [
    ('{not json', 'not JSON'),
    (json.dumps({'schema': 'other'}), 'not a node result'),
    (json.dumps(dict(shard('n', 't'), version=2)), 'version 2'),
    (json.dumps(dict(shard('n', 't'), host='')), 'has no host'),
    (json.dumps({'unrelated': 1}), 'neither a node result nor artifacts')])
def test_what_is_not_a_node_result_is_refused_naming_the_file(tmp_path, content, said):
    path = tmp_path / 'bad.json'
    path.write_text(content)
    with pytest.raises(_fleet.ShardError) as refused:
        _fleet.read_shards([str(path)])
    assert said in str(refused.value) and str(path) in str(refused.value)


def test_a_missing_path_is_refused():
    with pytest.raises(_fleet.ShardError, match='no such file or directory'):
        _fleet.read_shards(['/nonexistent/kubenode-shards'])


def registered(changed=True, **extra):
    result = {'changed': changed, 'plan': PLAN, 'changes': ['write a', 'write b', 'write c'], 'cgroup_mode': 'v2'}
    result.update(extra)
    return result


AUDIT = {'plan': PLAN, 'drift': [{'item': 'x'}], 'cgroup_mode': 'v1', 'check_mode': False, 'impact': {'effects': ['a']}}


@pytest.mark.parametrize('variables, check_mode, status, operations, message', [
    ({'__node_allocatable_cgroups': registered()}, False, 'applied', 3, ''),
    ({'__node_allocatable_cgroups': registered()}, True, 'would apply', 3, ''),
    ({'__node_allocatable_cgroups': registered(changed=False)}, False, 'unchanged', 3, ''),
    # A failed node keeps its operations: what was written stays.
    ({'__node_allocatable_cgroups': registered(), 'node_allocatable_failed': {'task': 'Gate', 'msg': 'refused'}},
     False, 'failed', 3, 'Gate: refused'),
    ({'node_allocatable_failed': {'task': 'Plan', 'msg': 'bad value'}}, False, 'failed', None, 'Plan: bad value'),
    ({'node_audit_result': AUDIT}, False, 'audited', None, ''),
    # A skipped task registers a result with no plan: the node counts as not reached.
    ({'__node_allocatable_cgroups': {'skipped': True}}, False, 'not reached', None, ''),
    ({}, False, 'not reached', None, ''),
    # The way back: a node that rolled its change back says so, with the gate's message when the run failed on it,
    # else with what its newest generation says (an audit, a later run that changed nothing).
    ({'__node_allocatable_cgroups': registered(generation={'state': 'rolled-back', 'summary': 'rolled back: x'}),
      'node_allocatable_failed': {'task': 'Gate', 'msg': 'healthz; rolled back'}},
     False, 'rolled back', 3, 'Gate: healthz; rolled back'),
    ({'node_audit_result': dict(AUDIT, generation={'state': 'revert-failed', 'summary': 'revert failed: y'})},
     False, 'rolled back', None, 'revert failed: y'),
    ({'__node_allocatable_cgroups': registered(generation={'state': 'confirmed', 'summary': 'generation 2 confirmed'})},
     False, 'applied', 3, ''),
])
def test_a_play_entry_says_what_happened_to_the_host(variables, check_mode, status, operations, message):
    found = _fleet.play_entry('node1', variables, check_mode)
    said = (found['host'], found['status'], found['operations'], found['message'])
    assert said == ('node1', status, operations, message)
    assert set(found) == set(('host',) + _fleet.ENTRY_KEYS)


def test_a_play_entry_summarises_the_audit_else_the_applied_plan_with_no_drift():
    applied = _fleet.play_entry('n', {'__node_allocatable_cgroups': registered()}, True)
    assert applied['summary'] == {'plan': PLAN, 'drift': [], 'cgroup_mode': 'v2', 'check_mode': True}
    assert applied['impact'] is None and applied['sizing'] is None
    audited = _fleet.play_entry('n', {'__node_allocatable_cgroups': registered(), 'node_audit_result': AUDIT,
                                      'node_audit_sizing': {'reserved': {}}}, False)
    assert audited['summary'] is AUDIT and audited['sizing'] == {'reserved': {}}
    # The impact node_cgroups found first, else the audit's.
    assert audited['impact'] == {'effects': ['a']}
    own = _fleet.play_entry('n', {'__node_allocatable_cgroups': registered(impact={'effects': []}),
                                  'node_audit_result': AUDIT}, False)
    assert own['impact'] == {'effects': []}


def test_play_entries_keep_the_plays_order():
    hostvars = {'b': {}, 'a': {'node_audit_result': AUDIT}}
    assert [(e['host'], e['status']) for e in _fleet.play_entries(['b', 'a'], hostvars.get, False)] == [
        ('b', 'not reached'), ('a', 'audited')]
