# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report rendered in the controller process (plugin_utils/_fleet_report): the report of one run and the
report merged from its node results differ only in what they say of the runs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet, _fleet_report
from ansible_collections.kubenode.cgroups.tests.unit.plugins.plugin_utils import test_fleet

RUN = {'id': 7, 'playbook': 'node', 'check_mode': True}
PLAN = plan_node(PlanOptions(capacity={'cpu': '8', 'memory': '32Gi', 'ephemeral-storage': '100Gi', 'pid': '100000'},
                             cgroup_driver='systemd', kube_reserved={'memory': '1Gi'})).as_dict()


def entry(host, **kwargs):
    found = test_fleet.entry(host, **kwargs)
    found['summary'] = dict(found['summary'], plan=PLAN)
    return found


def without_run_lines(text):
    return [line for line in text.splitlines() if not line.startswith(('Written ', 'Merged from ', '<p class="run">'))]


def test_a_merged_report_reads_as_the_report_of_the_run_it_merges():
    fleet = [entry('node1'), entry('node2', status='failed', operations=None),
             {'host': 'node3', 'status': 'not reached', 'message': '', 'operations': None, 'summary': None, 'sizing': None,
              'impact': None}]
    one = _fleet_report.render(fleet, 'check')
    documents = [_fleet.shard(e, RUN, '2026-11-26T10:00:00.000000Z') for e in fleet if e['status'] != 'not reached']
    merged_fleet, runs, counted = _fleet.merge(documents, ['node1', 'node2', 'node3'])
    merged = _fleet_report.render(merged_fleet, None, runs, counted)
    for name in ('report.md', 'index.html'):
        assert without_run_lines(merged[name]) == without_run_lines(one[name])
    assert 'Merged from 1 run(s): 7 (node, --check), 2 node(s). 2 node result(s) read' in merged['report.md']
    assert 'by a check-mode run' in merged['report.md'] and 'by a check-mode run' in one['report.md']
    report = json.loads(merged['report.json'])
    assert report['runs'] == ['7 (node, --check)'] and report['counted']['not_reached'] == 1
    assert 'runs' not in json.loads(one['report.json'])


def test_a_merge_of_apply_runs_is_no_check_mode_report():
    documents = [_fleet.shard(entry('node1'), dict(RUN, check_mode=False), 't')]
    fleet, runs, counted = _fleet.merge(documents)
    assert 'by an apply run' in _fleet_report.render(fleet, None, runs, counted)['report.md']


def test_a_merge_of_check_mode_and_apply_runs_says_per_node_which_kind_it_came_from():
    """Issue 51: such a merge said "by an apply run: every drift below is left on the node after it"."""
    documents = [_fleet.shard(entry('node1', status='would apply'), RUN, 't1'),
                 _fleet.shard(entry('node2', operations=1), dict(RUN, id=8, check_mode=False), 't2')]
    fleet, runs, counted = _fleet.merge(documents)
    texts = _fleet_report.render(fleet, None, runs, counted)
    md, html = texts['report.md'], texts['index.html']
    assert 'by an apply run' not in md and 'by runs of 2 kinds (a check-mode run, an apply run), each node' in md
    assert [line for line in md.splitlines() if line.startswith('## ')] == [
        '## node1: would apply (from a check-mode run)', '## node2: applied (1 operation) (from an apply run)']
    assert '<b>runs of 2 kinds (a check-mode run, an apply run)' in html and '(from an apply run)</h2>' in html
    # One kind of run alone: no per-node word.
    fleet, runs, counted = _fleet.merge(documents[1:])
    assert '(from an' not in _fleet_report.render(fleet, None, runs, counted)['report.md']


def test_names_are_escaped_in_html_and_missing_parts_of_a_plan_take_their_defaults():
    odd = entry('<b>node</b>')
    odd['summary'] = dict(odd['summary'], plan=dict(odd['summary']['plan'], reserved={'system': {}, 'kube': {}}))
    html = _fleet_report.render([odd], 'apply')['index.html']
    assert '&lt;b&gt;node&lt;/b&gt;' in html and '<b>node</b>' not in html


def test_the_legend_names_only_the_marks_a_bar_draws_and_eviction_shows_its_share():
    """Issue 51: a legend for marks that were not drawn (no node has hugepages nor system-reserved here), and the
    hard eviction of nodefs.available<10% shown as bytes (25.2 GiB (27055317804))."""
    texts = _fleet_report.render([entry('node1')], 'apply')
    html, md = texts['index.html'], texts['report.md']
    legend = [line for line in html.splitlines() if line.startswith('<p class="legend">')]
    assert len(legend) == 1
    for label in ('kube reserved', 'hard eviction', 'allocatable'):
        assert '</i>%s</span>' % label in legend[0]
    for label in ('hugepages', 'system reserved'):
        assert '</i>%s</span>' % label not in legend[0]
    storage = [line for line in md.splitlines() if line.startswith('| ephemeral-storage |')][0]
    assert '10 GiB (10%)' in storage and '(10737418' not in storage
    huge = plan_node(PlanOptions(capacity={'cpu': '8', 'memory': '32Gi', 'hugepages-2Mi': '2Gi', 'hugepages-1Gi': '0'},
                                 cgroup_driver='systemd', system_reserved={'memory': '1Gi'})).as_dict()
    with_hugepages = entry('node2')
    with_hugepages['summary'] = dict(with_hugepages['summary'], plan=huge)
    texts = _fleet_report.render([entry('node1'), with_hugepages], 'apply')
    html, md = texts['index.html'], texts['report.md']
    assert '</i>hugepages</span>' in html and '</i>system reserved</span>' in html
    # a hugepage size the node has none of is no row; one it has is
    assert '| hugepages-2Mi |' in md and '<td>hugepages-2Mi</td>' in html
    assert 'hugepages-1Gi' not in md and 'hugepages-1Gi' not in html


def test_the_report_is_written_atomically_and_left_alone_when_unchanged(tmp_path):
    texts = {'report.md': 'a\n', 'index.html': '<p>a</p>\n'}
    written = _fleet_report.write(str(tmp_path / 'r'), texts)
    assert sorted(os.path.basename(p) for p in written) == ['index.html', 'report.md']
    assert _fleet_report.write(str(tmp_path / 'r'), texts) == []
    assert sorted(os.listdir(str(tmp_path / 'r'))) == ['index.html', 'report.md']


def test_an_upgrade_preview_adds_the_ready_column():
    """node_audit_upgrade_to: the fleet table says, node by node, whether the target kubelet would start there."""
    ready = entry('node1')
    ready['summary'] = dict(ready['summary'], upgrade={
        'release': '1.34', 'target': '1.35', 'ready': True, 'blockers': [], 'allocatable': None,
        'cgroup_changes': [{'cgroup': 'kubepods', 'file': 'memory.min', 'now': None, 'target': '0'}],
        'pods': {'source': 'the API server', 'count': 1, 'unknown': None, 'changes': [
            {'pod': 'apps/web', 'container': 'app', 'name': name, 'now': None, 'target': 0}
            for name in ('memory_min', 'memory_low')]}})
    stopped = entry('node2')
    stopped['summary'] = dict(stopped['summary'], upgrade={
        'release': '1.34', 'target': '1.35', 'ready': False, 'cgroup_changes': [], 'allocatable': None,
        'blockers': ['kubelet 1.35 refuses to start on this cgroup v1 node: failCgroupV1 is true']})
    texts = _fleet_report.render([ready, stopped, entry('node3')], 'check')
    md, html = texts['report.md'], texts['index.html']
    rows = [line for line in md.splitlines() if line.startswith('| node')]
    assert rows[0] == '| node | status | impact on running pods | ready for 1.35 |'
    assert '| node1 | applied | none known (pods unknown) | yes, 1 cgroup value(s) change, 2 pod value(s) change |' in md
    assert '| node2 | applied | none known (pods unknown) | no: kubelet 1.35 refuses to start on this cgroup v1 node: failCgroupV1 is true |' in md
    assert '| node3 | applied | none known (pods unknown) | - |' in md
    assert '<th>ready for 1.35</th>' in html and '<td class="bad">no: kubelet 1.35 refuses' in html
    # Without a preview the table keeps its three columns.
    assert '| node | status | impact on running pods |\n' in _fleet_report.render([entry('node1')], 'check')['report.md']
