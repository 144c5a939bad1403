# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Micro benchmarks of the calculation core (make bench). Targets: node plan < 2 ms, 110 pods < 20 ms."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import plan_pods

NODE = {
    'capacity': {'cpu': '16', 'memory': '64Gi', 'ephemeral-storage': '200Gi', 'pid': '4194304',
                 'hugepages-2Mi': '2Gi', 'hugepages-1Gi': '0'},
    'system_reserved': {'cpu': '500m', 'memory': '1Gi', 'pid': '1000'},
    'kube_reserved': {'cpu': '250m', 'memory': '1Gi', 'ephemeral-storage': '1Gi'},
    'eviction_hard': {'memory.available': '500Mi', 'nodefs.available': '10%'},
    'enforce_node_allocatable': ['pods', 'system-reserved', 'kube-reserved'],
    'system_reserved_cgroup': '/system.slice', 'kube_reserved_cgroup': '/kube.slice', 'cgroup_driver': 'systemd',
}


def _pod(index):
    kinds = [
        ({'cpu': '100m', 'memory': '128Mi'}, {'cpu': '500m', 'memory': '256Mi'}),
        ({'cpu': '1', 'memory': '1Gi'}, {'cpu': '1', 'memory': '1Gi'}),
        ({}, {}),
    ]
    requests, limits = kinds[index % 3]
    return {
        'metadata': {'name': 'pod-%d' % index, 'uid': '00000000-0000-0000-0000-%012d' % index},
        'spec': {
            'initContainers': [{'name': 'proxy', 'restartPolicy': 'Always',
                                'resources': {'requests': {'cpu': '50m', 'memory': '64Mi'}}}],
            'containers': [{'name': 'app-%d' % c, 'resources': {'requests': requests, 'limits': limits}}
                           for c in range(2)],
        },
    }


PODS = {'pods': [_pod(i) for i in range(110)], 'memory_capacity': '64Gi', 'allocatable_memory': '62Gi',
        'cgroup_driver': 'systemd', 'feature_gates': {'MemoryQoS': True}, 'kubelet_version': '1.35'}


def test_node_plan(benchmark):
    result = benchmark(lambda: plan_node(PlanOptions(**NODE)))
    assert result.cgroup('kubepods').resources['cpu_shares'] == 15616


def test_plan_for_110_pods(benchmark):
    result = benchmark(plan_pods, PODS)
    assert len(result['pods']) == 110
