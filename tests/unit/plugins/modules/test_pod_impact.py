# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a change does to what runs on the node (issue 37), on a fake node: node_cgroups and node_drift_info say
which pods kubelet would no longer admit with the new Allocatable and which memory limits fall under their
cgroup's working set; node_cgroups refuses such a change before the first write, in check mode too, unless
accept_impact."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups, node_drift_info

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args, snapshot
from ansible_collections.kubenode.cgroups.tests.unit.node_files import write_text

MI = 1048576
CAPACITY = {'cpu': '4', 'memory': '4Gi', 'pid': '100000', 'hugepages-2Mi': '0'}
CONFIG = ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: cgroupfs\n'
          'staticPodPath: /etc/kubernetes/manifests\n')


def static_pod(tmp_path, name, memory, cpu='100m'):
    write_text(str(tmp_path / 'etc/kubernetes/manifests' / (name + '.yaml')),
               'apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  containers:\n  - name: c\n    image: x\n'
               '    resources: {requests: {memory: %s, cpu: %s}, limits: {memory: %s}}\n' % (name, memory, cpu, memory))


def node(tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    write_text(str(tmp_path / 'var/lib/kubelet/config.yaml'), CONFIG)
    write_text(str(tmp_path / 'proc/sys/kernel/hostname'), 'Node-1\n')
    return tree


def args(tree, tmp_path, **extra):
    # Allocatable memory: 4Gi - 1Gi - 512Mi - 100Mi (eviction) = 2460Mi.
    base = dict(node_root=str(tmp_path), kubelet_config={}, containerd_config_path=str(tmp_path / 'etc/containerd/c.toml'),
                crio_config_paths=[], kubelet_binary='')
    base.update(extra)
    return node_cgroups_args(tree, CAPACITY, **base)


def test_a_change_that_would_refuse_a_running_static_pod_is_refused_before_any_write(run_module, tmp_path, monkeypatch):
    tree = node(tmp_path, monkeypatch)
    # 3Gi cannot fit 2460Mi in any order; a, b and c fit alone, not all together (which kubelet's order decides)
    for name, memory in (('a', '1Gi'), ('b', '1Gi'), ('c', '600Mi'), ('huge', '3Gi')):
        static_pod(tmp_path, name, memory)
    for name in ('a', 'b', 'c', 'huge'):
        write_text(str(tmp_path / ('var/log/pods/default_%s-node-1_0f0%s/c/0.log' % (name, name))), '')
    before = snapshot(str(tmp_path))
    for check_mode in (True, False):
        with pytest.raises(ModuleFail) as failure:
            run_module(node_cgroups, args(tree, tmp_path), check_mode=check_mode)
        message = failure.value.result['msg']
        assert message.startswith('accept_impact: this change would hurt what runs on the node: ')
        assert message.endswith('. Nothing was written.')
        # A static pod is critical: kubelet looks for pods to preempt, finds none (static pods are critical too).
        assert ('pod default/huge-node-1 would not be admitted when kubelet restarts: UnexpectedAdmissionError '
                '(Unexpected error while attempting to recover from admission failure: preemption: error finding a '
                'set of pods to preempt: no set of running pods found to reclaim resources: [(res: memory, q: %d), ])'
                % ((3072 - (2460 - 2048)) * MI) in message)  # after a and b, in name order
        assert ('static pods default/a-node-1, default/b-node-1, default/c-node-1 may not all be admitted when kubelet '
                'restarts: they do not all fit, and kubelet admits static pods in a random order' in message)
        impact = failure.value.result['impact']
        assert [row['pod'] for row in impact['pods']['refused']] == ['default/huge-node-1']
        at_risk = [row['pod'] for row in impact['pods']['at_risk']]
        assert at_risk == ['default/a-node-1', 'default/b-node-1', 'default/c-node-1']
        assert impact['pods']['source'] == 'static pods (/etc/kubernetes/manifests)'
        assert snapshot(str(tmp_path)) == before
    done = run_module(node_cgroups, args(tree, tmp_path, accept_impact=True))
    assert done['changed'] and len(done['impact']['effects']) == 2


def test_a_static_pod_kubelet_does_not_run_now_is_no_loss_of_the_change(run_module, tmp_path, monkeypatch):
    tree = node(tmp_path, monkeypatch)
    for name, memory in (('a', '2Gi'), ('b', '1Gi'), ('c', '3Gi')):
        static_pod(tmp_path, name, memory)
    # kubelet keeps a log directory for a only: b and c are not running today
    write_text(str(tmp_path / 'var/log/pods/default_a-node-1_0a0a/c/0.log'), '')
    result = run_module(node_cgroups, args(tree, tmp_path, accept_impact=True), check_mode=True)
    assert result['impact']['pods']['refused'] == []
    assert result['impact']['pods']['not_running'] == ['default/b-node-1', 'default/c-node-1']
    # but b could be admitted before a at the next restart: a is at risk
    assert [row['pod'] for row in result['impact']['pods']['at_risk']] == ['default/a-node-1']


def test_a_fitting_change_has_no_impact_and_is_applied(run_module, tmp_path, monkeypatch):
    tree = node(tmp_path, monkeypatch)
    static_pod(tmp_path, 'a', '1Gi')
    result = run_module(node_cgroups, args(tree, tmp_path))
    assert result['changed'] and result['impact']['effects'] == []
    assert [(r['pod'], r['admitted']) for r in result['impact']['pods']['admission']] == [('default/a-node-1', True)]


def test_pods_from_the_api_server_are_judged_after_the_static_ones(run_module, tmp_path, monkeypatch):
    tree = node(tmp_path, monkeypatch)
    static_pod(tmp_path, 'a', '2Gi')
    pods = [{'metadata': {'name': 'web', 'namespace': 'shop', 'creationTimestamp': '2026-11-01T00:00:00Z'},
             'spec': {'containers': [{'name': 'c', 'resources': {'requests': {'memory': '512Mi'}}}]},
             'status': {'phase': 'Running'}},
            {'metadata': {'name': 'a-node-1', 'namespace': 'default',
                          'annotations': {'kubernetes.io/config.mirror': 'x'}},
             'spec': {'containers': [{'name': 'c', 'resources': {'requests': {'memory': '2Gi'}}}]},
             'status': {'phase': 'Running'}},
            {'metadata': {'name': 'done', 'namespace': 'shop'},
             'spec': {'containers': [{'name': 'c', 'resources': {'requests': {'memory': '2Gi'}}}]},
             'status': {'phase': 'Succeeded'}}]
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, tmp_path, pods=pods), check_mode=True)
    impact = failure.value.result['impact']
    # the mirror pod is the static pod a, and the pod that ended is no longer admitted by anyone
    assert [r['pod'] for r in impact['pods']['admission']] == ['default/a-node-1', 'shop/web']
    assert [r['pod'] for r in impact['pods']['refused']] == ['shop/web']
    assert impact['pods']['source'] == 'static pods (/etc/kubernetes/manifests) and the API server'


def test_a_memory_limit_lowered_under_the_working_set_is_an_oom_risk(run_module, tmp_path, monkeypatch):
    tree = node(tmp_path, monkeypatch)
    kube = tree.path('kube')
    os.makedirs(kube)
    write_text(os.path.join(kube, 'memory.max'), 'max\n')
    write_text(os.path.join(kube, 'memory.current'), '%d\n' % (700 * MI))
    write_text(os.path.join(kube, 'memory.stat'), 'anon 1\ninactive_file %d\nactive_file 5\n' % (50 * MI))
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, tmp_path))
    assert snapshot(str(tmp_path)) == before
    row = failure.value.result['impact']['memory'][0]
    assert row == {'cgroup': 'kube_reserved', 'path': '/kube', 'limit_now': None, 'limit_after': 512 * MI,
                   'usage': 700 * MI, 'working_set': 650 * MI, 'inactive_file': 50 * MI}
    assert ('kube_reserved (/kube) memory limit unlimited -> 512Mi is below its working set 650Mi (use 700Mi, of '
            'which 50Mi reclaimable page cache): OOM risk') in failure.value.result['msg']
    # page cache alone over the new limit is reclaimed, not killed: no impact
    write_text(os.path.join(kube, 'memory.stat'), 'inactive_file %d\n' % (300 * MI))
    assert run_module(node_cgroups, args(tree, tmp_path), check_mode=True)['impact']['memory'] == []


def test_the_audit_reports_the_same_impact(run_module, tmp_path, monkeypatch):
    tree = node(tmp_path, monkeypatch)
    for name, memory in (('a', '2Gi'), ('b', '1Gi')):
        static_pod(tmp_path, name, memory)
    planned = run_module(node_cgroups, args(tree, tmp_path, accept_impact=True), check_mode=True)
    paths = dict(tree.audit_paths(), kubelet_binary='')
    audited = run_module(node_drift_info, dict(
        plan=planned['plan'], node_root=str(tmp_path), cgroupfs_path=tree.root, proc_path=tree.proc,
        containerd_config_path=str(tmp_path / 'etc/containerd/c.toml'), crio_config_paths=[],
        check_kubelet_config=False, **paths))
    assert audited['impact']['effects'] == planned['impact']['effects'] != []


def test_a_qos_tier_qosreserved_would_squeeze_under_its_use_is_an_oom_risk(run_module, tmp_path, monkeypatch):
    """qosReserved (QOSReserved gate): the burstable tier's limit is Allocatable less the Guaranteed pods' requests;
    a Guaranteed static pod of 1Gi leaves the tier 2560Mi - 1Gi, under the 2000Mi its pods hold now."""
    tree = node(tmp_path, monkeypatch)
    write_text(str(tmp_path / 'var/lib/kubelet/config.yaml'),
               CONFIG + 'featureGates: {QOSReserved: true}\nqosReserved: {memory: 100%}\n')
    write_text(str(tmp_path / 'etc/kubernetes/manifests/db.yaml'),
               'apiVersion: v1\nkind: Pod\nmetadata: {name: db}\nspec:\n  containers:\n  - name: c\n    image: x\n'
               '    resources: {limits: {memory: 1Gi, cpu: "1"}}\n')
    burstable = tree.path('kubepods', 'burstable')
    os.makedirs(burstable)
    write_text(os.path.join(burstable, 'memory.max'), 'max\n')
    write_text(os.path.join(burstable, 'memory.current'), '%d\n' % (2000 * MI))
    write_text(os.path.join(burstable, 'memory.stat'), 'inactive_file 0\n')
    result = run_module(node_cgroups, args(tree, tmp_path, accept_impact=True), check_mode=True)
    assert result['impact']['memory'] == [{
        'cgroup': 'burstable', 'path': '/kubepods/burstable', 'limit_now': None, 'limit_after': (2560 - 1024) * MI,
        'usage': 2000 * MI, 'working_set': 2000 * MI, 'inactive_file': 0}]
    # without qosReserved the tier has no memory limit to squeeze
    write_text(str(tmp_path / 'var/lib/kubelet/config.yaml'), CONFIG)
    assert run_module(node_cgroups, args(tree, tmp_path), check_mode=True)['impact']['memory'] == []
