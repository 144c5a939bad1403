# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What "Show the plan" prints of a run that changed a node (plugin_utils/_plan_summary)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.plugin_utils._plan_summary import (
    exposures, human_quantities, plan_summary, table_figures)

PLAN = plan_node(PlanOptions(capacity={'cpu': '8', 'memory': '32Gi', 'pods': '110'}, cgroup_driver='systemd',
                             kubelet_version='1.36', system_reserved={'cpu': '500m', 'memory': '1Gi', 'pid': '1000'},
                             eviction_hard={'memory.available': '100Mi'})).as_dict()


def result(**changes):
    found = {'cgroup_mode': 'v2', 'driver': 'systemd', 'plan': PLAN, 'changes': ['mkdir /kubepods', 'write a', 'b'],
             'impact': {'effects': [], 'pods': {'count': 3, 'source': 'the API server'}, 'pods_unknown': None}}
    found.update(changes)
    return found


def test_a_changed_node_is_shown_in_ten_lines():
    config = {'path': '/var/lib/kubelet/config.yaml', 'choice': {'reason': "kubelet's --config"},
              'replaced': ['kubeReserved', 'evictionHard']}
    assert plan_summary('node1', result(kubelet_config=config), False) == [
        'node1: cgroup v2, systemd driver, kubelet 1.36',
        'kubelet release: 1.36 (set by the operator)',
        'capacity:      cpu 8 cores, memory 32 GiB, pods 110',
        'reserved:      system cpu 0.5 cores, memory 1 GiB, pid 1k; kube none; eviction memory.available<100Mi',
        'allocatable:   cpu 7.5 cores, memory 30.9 GiB, pods 110',
        'eviction:      operator',
        "kubelet config: /var/lib/kubelet/config.yaml (kubelet's --config)",
        'replaces:      kubeReserved; evictionHard',
        'operations:    3 (mkdir /kubepods, ...)',
        'running pods:  none hurt, of 3 from the API server',
    ]


def test_check_mode_the_release_source_and_what_the_run_does_not_manage_are_said():
    plan = dict(PLAN, kubelet_version_source='the node (kubelet --version)',
                eviction=dict(PLAN['eviction'], source='kubelet defaults', defaults_kept=['nodefs.available']))
    lines = plan_summary('node2', result(plan=plan, changes=['write a'], impact={}), True)
    assert lines[0] == 'node2: cgroup v2, systemd driver, kubelet 1.36 (check mode: nothing written)'
    assert lines[1] == 'kubelet release: 1.36 (the node (kubelet --version))'
    assert lines[5] == 'eviction:      kubelet defaults; kubelet defaults kept for nodefs.available'
    assert lines[6:] == ['kubelet config: not managed', 'replaces:      nothing the file held', 'operations:    1 (write a)',
                         'running pods:  not judged']
    assert plan_summary('n', result(changes=[], impact={'pods': None, 'pods_unknown': 'pods unknown: no path'}),
                        False)[8:] == ['operations:    0 (none)', 'running pods:  pods unknown: no path']


def test_what_would_hurt_running_pods_is_said_in_kubelets_words():
    impact = {'effects': ['pod a would not be admitted', 'kubepods memory limit below its working set'], 'pods': None}
    assert plan_summary('n', result(impact=impact), False)[-1] == (
        'running pods:  pod a would not be admitted; kubepods memory limit below its working set')


def test_quantities_read_for_people():
    assert human_quantities({'cpu': {'quantity': '1500m', 'value': 1500}, 'memory': '512Mi'}) == 'cpu 1.5 cores, memory 512 MiB'
    assert human_quantities({}) == '' and human_quantities(None) == ''


def test_the_lines_show_each_figure_as_the_reports_table_does():
    """Issue 51: "memory 3.1 GiB" in these lines and "3 GiB (3125Mi)" in the report's table. The table rounds a row's
    parts so that they add up to its capacity; these lines take its figures."""
    plan = plan_node(PlanOptions(capacity={'cpu': '4', 'memory': '16Gi', 'pods': '110'}, cgroup_driver='systemd',
                                 kubelet_version='1.37', kube_reserved={'memory': '3125Mi'},
                                 system_reserved={'memory': '1000Mi'}, eviction_hard={'memory.available': '100Mi'})
                     ).as_dict()
    from ansible_collections.kubenode.cgroups.plugins.plugin_utils._filters import quantities_to_human_row
    row = quantities_to_human_row([plan['capacity']['memory'], plan['reserved']['system']['memory'],
                                   plan['reserved']['kube']['memory'], plan['eviction']['reservation']['memory'], None,
                                   plan['allocatable']['memory']], 'memory')
    figures = table_figures(plan)['memory']
    assert [figures['capacity'], figures['system'], figures['kube'], figures['eviction'], figures['allocatable']] == \
        [row[0], row[1], row[2], row[3], row[5]]
    assert row[2] == '3 GiB'  # 3125Mi alone is 3.1 GiB: here the row's sum to 16 GiB decides
    lines = plan_summary('n', result(plan=plan), False)
    assert 'kube memory 3 GiB' in lines[3] and 'memory %s' % row[5] in lines[4]


def test_a_node_open_to_pods_that_take_everything_is_said_so():
    """Issue 76: a fork bomb took every PID of a node with no PID reservation (37 of 84 ssh logins failed,
    docs/protection.md); the plan says so, naming the role variable that closes it."""
    assert exposures(PLAN) == []
    no_pid = plan_node(PlanOptions(capacity={'cpu': '8', 'memory': '32Gi', 'pods': '110'}, cgroup_driver='systemd',
                                   kubelet_version='1.36', kube_reserved={'memory': '1Gi'})).as_dict()
    assert exposures(no_pid) == ['no PID reservation: pods can take every PID of the node, and sshd, journald and '
                                 'kubelet then cannot fork (node_allocatable_pid_reserved)']
    assert plan_summary('n', result(plan=no_pid), False)[-1] == 'exposed:       ' + exposures(no_pid)[0]
    kubeadm = plan_node(PlanOptions(capacity={'cpu': '8', 'memory': '32Gi'}, cgroup_driver='systemd',
                                    kubelet_version='1.36')).as_dict()
    assert [line.split(':', maxsplit=1)[0] for line in exposures(kubeadm)] == ['no PID reservation', 'no memory reservation']
    kube_pid = plan_node(PlanOptions(capacity={'cpu': '8', 'memory': '32Gi'}, cgroup_driver='systemd',
                                     kubelet_version='1.36', kube_reserved={'memory': '1Gi', 'pid': '500'})).as_dict()
    assert exposures(kube_pid) == []
    unenforced = dict(PLAN, enforce_node_allocatable=[])
    assert exposures(unenforced)[0].startswith('pods is not in enforceNodeAllocatable')
