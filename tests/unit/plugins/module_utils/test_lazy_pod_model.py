# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pod model (_pods, _admission) is imported only where there are pods: a module's imports are compiled from
source on every run on the node (AnsiballZ ships no bytecode), and a node without pods does not need it. Each case
runs in a fresh interpreter, where nothing was imported before."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import textwrap

import pytest

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import fresh_interpreter

MU = 'ansible_collections.kubenode.cgroups.plugins.module_utils'
POD_MODEL = (MU + '.model._pods', MU + '.model._admission')
# What node_cgroups imports to plan, apply, read back and judge the impact on a node.
CONVERGE_IMPORTS = '''
from {mu}.model import _kubelet_config, _impact
from {mu}.run import _node_run, _node_impact, _node_cgroups, _audit, _receipt
from {mu}.node import _node_pods
'''.format(mu=MU)


def loaded_after(code, tmp_path):
    """The pod model's modules loaded once code ran in a fresh interpreter."""
    script = CONVERGE_IMPORTS + textwrap.dedent(code) + '''
import sys
print(' '.join(name for name in {pod_model!r} if name in sys.modules))
'''.format(pod_model=POD_MODEL)
    return fresh_interpreter(script, tmp_path).split()


def test_planning_and_judging_a_node_without_pods_leaves_the_pod_model_unloaded(tmp_path):
    os.makedirs(str(tmp_path / 'etc' / 'kubernetes' / 'manifests'))
    assert loaded_after('''
        assert _node_pods.static_pods('/etc/kubernetes/manifests', {root!r}, {root!r}) == []
        assert _node_pods.api_pods([]) == []
        pods = _impact.pods_impact([], None, None, 'static pods')
        assert pods == {{'source': 'static pods', 'count': 0, 'refused': [], 'at_risk': [], 'preempting': [],
                         'not_running': [], 'admission': []}}, pods
        class Plan(object):
            def value(self, *path):
                return 1000
        # qosReserved sets the QoS tiers' limits with no pods too: Allocatable less nothing.
        assert _impact.qos_tier_limits(Plan(), [], [], 50, None) == {{'burstable': 1000, 'besteffort': 1000}}
        '''.format(root=str(tmp_path)), tmp_path) == []


MANIFEST = '''apiVersion: v1
kind: Pod
metadata: {name: etcd, namespace: kube-system}
spec:
  containers:
  - name: etcd
    image: etcd
    resources: {requests: {cpu: 100m, memory: 100Mi}}
'''


@pytest.mark.parametrize('code', [
    "_node_pods.static_pods('/manifests', {root!r}, {root!r})",
    "_node_pods.api_pods([{{'metadata': {{'name': 'web'}}, 'spec': {{'containers': [{{'name': 'c'}}]}}}}])",
])
def test_the_first_pod_found_loads_it(tmp_path, code):
    os.makedirs(str(tmp_path / 'manifests'))
    (tmp_path / 'manifests' / 'etcd.yaml').write_text(MANIFEST)
    assert loaded_after(code.format(root=str(tmp_path)), tmp_path) == list(POD_MODEL)
