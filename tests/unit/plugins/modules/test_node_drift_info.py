# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import kubelet_config, node_cgroups, node_drift_info

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, snapshot
from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail

SETTINGS = {'capacity': {'cpu': '4', 'memory': '16Gi', 'hugepages-2Mi': '0'}, 'cgroup_driver': 'cgroupfs',
            'system_reserved': {'memory': '1Gi'}, 'system_reserved_cgroup': '/system',
            'enforce_node_allocatable': ['pods', 'system-reserved'],
            # kubelet from 1.35 refuses cgroup v1 unless told (failCgroupV1): these nodes run 1.34.
            'kubelet_version': '1.34'}


@pytest.fixture(params=['v2', 'v1'])
def node(request, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, request.param, monkeypatch, pid1='init')
    files = {'kubelet_config_path': str(tmp_path / 'config.yaml'), 'dropin_dir': str(tmp_path / 'conf.d'),
             'containerd_config_path': str(tmp_path / 'containerd.toml'),
             'crio_config_paths': [str(tmp_path / 'crio.conf')]}
    return tree, files


def converge(run_module, tree, files):
    applied = run_module(node_cgroups, dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, **tree.node_paths()))
    run_module(kubelet_config, {'plan': applied['plan'], 'path': files['kubelet_config_path'],
                                'dropin_dir': files['dropin_dir'],
                                'containerd_config_path': files['containerd_config_path'],
                                'crio_config_paths': files['crio_config_paths']})
    return applied['plan']


def drift_of(run_module, tree, files, plan, **extra):
    return run_module(node_drift_info, dict(files, plan=plan, cgroupfs_path=tree.root, proc_path=tree.proc, **extra))


def test_a_converged_node_has_no_drift_and_a_broken_one_has(run_module, node):
    tree, files = node
    plan = converge(run_module, tree, files)
    assert drift_of(run_module, tree, files, plan)['drift'] == []
    memory = tree.path('system', 'memory.max') if tree.mode == 'v2' else tree.path('memory', 'system',
                                                                                   'memory.limit_in_bytes')
    with open(memory, 'w') as handle:
        handle.write('536870912\n')
    # kubepods' values are kubelet's (it writes them at every start): one changed by hand is none of ours.
    with open(tree.path('kubepods', 'cpu.weight') if tree.mode == 'v2' else tree.path('cpu', 'kubepods', 'cpu.shares'),
              'w') as handle:
        handle.write('5\n')
    with open(files['kubelet_config_path'], 'a') as handle:
        handle.write('maxPods: 50\nsystemReserved: {memory: 2Gi}\n')
    found = drift_of(run_module, tree, files, plan)['drift']
    assert {'item': 'system_reserved', 'check': os.path.basename(memory), 'live': '536870912',
            'planned': str(1024 ** 3)} in found
    assert not [d for d in found if d['item'] == 'kubepods']
    assert any(d['item'] == 'kubelet config' and 'systemReserved' in d['live'] for d in found)


def test_a_node_never_converged(run_module, node):
    tree, files = node
    plan = run_module(node_cgroups, dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, **tree.node_paths()),
                      check_mode=True)['plan']
    found = drift_of(run_module, tree, files, plan)['drift']
    system = tree.path('system') if tree.mode == 'v2' else tree.path('memory', 'system')
    assert {'item': 'system_reserved', 'check': 'exists', 'live': 'missing', 'planned': system} in found
    assert any(d['live'] == 'missing' and d['item'] == 'kubelet config' for d in found)


def test_settings_plan_on_the_node_in_the_same_round_trip(run_module, node):
    """allocatable_info's options instead of a plan: the same plan, the same verdict, one module call."""
    tree, files = node
    plan = converge(run_module, tree, files)
    settings = dict(SETTINGS, kubelet_version=plan['kubelet_version'])
    found = run_module(node_drift_info, dict(files, settings=settings, cgroupfs_path=tree.root, proc_path=tree.proc))
    assert found['drift'] == [] and found['plan']['cgroups'] == plan['cgroups']
    with pytest.raises(ModuleFail) as failure:
        run_module(node_drift_info, dict(files, settings=dict(SETTINGS, kube_reservd={}), cgroupfs_path=tree.root,
                                         proc_path=tree.proc))
    assert failure.value.result['msg'].startswith('settings: ') and 'kube_reservd' in failure.value.result['msg']


def test_driver_mismatch_is_drift(run_module, node):
    tree, files = node
    plan = converge(run_module, tree, files)
    with open(files['containerd_config_path'], 'w') as handle:
        handle.write('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
                     '  SystemdCgroup = true\n')
    result = drift_of(run_module, tree, files, plan)
    assert any(d['item'] == 'cgroup driver' and 'containerd=systemd' in d['live'] for d in result['drift'])
    assert any(d['item'] == 'kubelet config' and 'container runtime' in d['live'] for d in result['drift'])
    # Accepted by the operator (node_cgroups' allow_driver_mismatch): shown, not drift.
    allowed = drift_of(run_module, tree, files, plan, allow_driver_mismatch=True)
    assert allowed['drivers']['mismatch'] and not [d for d in allowed['drift'] if 'driver' in d['item'] + d['live']]


def test_not_a_plan_is_refused(run_module, node):
    tree, files = node
    with pytest.raises(ModuleFail) as failure:
        drift_of(run_module, tree, files, {'allocatable': {}})
    assert 'plan' in failure.value.result['msg']
    assert os.path.isdir(tree.root)


def test_values_the_old_audit_never_read_are_drift_and_repaired(run_module, tmp_path, monkeypatch):
    """memory.swap.max and memory.min of a reserved cgroup (v2): node_cgroups --check and the audit report
    them alike, and a run writes them back."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    args = dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, keep_reserved_out_of_swap=True,
                feature_gates={'MemoryQoS': True}, memory_reservation_policy='TieredReservation', kubelet_version='1.36',
                **tree.node_paths())
    plan = run_module(node_cgroups, args)['plan']
    audit = dict(tree.audit_paths(), plan=plan, cgroupfs_path=tree.root, proc_path=tree.proc, check_kubelet_config=False)
    assert run_module(node_drift_info, audit)['drift'] == []
    for name, value in (('memory.swap.max', 'max'), ('memory.min', '0')):
        with open(tree.path('system', name), 'w') as handle:
            handle.write(value + '\n')
    checked = run_module(node_cgroups, args, check_mode=True)['changes']
    drift = run_module(node_drift_info, audit)['drift']
    assert checked == ['write %s: 0 -> 1073741824' % tree.path('system', 'memory.min'),
                       'write %s: max -> 0' % tree.path('system', 'memory.swap.max')]
    assert [(d['item'], d['check'], d['live'], d['planned']) for d in drift] == [
        ('system_reserved', 'memory.min', '0', '1073741824'), ('system_reserved', 'memory.swap.max', 'max', '0')]
    assert run_module(node_cgroups, args)['changes'] == checked
    assert run_module(node_drift_info, audit)['drift'] == []


@pytest.mark.parametrize('name, hand, default', [
    ('memory.min', '3000000000', '0'), ('memory.low', '1048576', '0'), ('memory.swap.max', '0', 'max')])
def test_a_hand_set_protection_or_swap_limit_on_an_owned_cgroup_is_drift(
        run_module, tmp_path, monkeypatch, name, hand, default):
    """Issue 35 (9): kubelet writes no memory.min, memory.low or memory.swap.max into a reserved cgroup; the
    collection owns them there, at the kernel's default, so a value set by hand is reported by --check and the
    audit alike and a run puts the default back."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    args = dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, **tree.node_paths())
    plan = run_module(node_cgroups, args)['plan']
    assert plan['cgroups']['system_reserved']['v2_files'][name] == default
    audit = dict(tree.audit_paths(), plan=plan, cgroupfs_path=tree.root, proc_path=tree.proc, check_kubelet_config=False)
    with open(tree.path('system', name), 'w') as handle:
        handle.write(hand + '\n')
    checked = run_module(node_cgroups, args, check_mode=True)['changes']
    assert checked == ['write %s: %s -> %s' % (tree.path('system', name), hand, default)]
    assert run_module(node_drift_info, audit)['drift'] == [
        {'item': 'system_reserved', 'check': name, 'live': hand, 'planned': default}]
    assert run_module(node_cgroups, args)['changes'] == checked
    assert tree.read('system', name) == default
    assert run_module(node_drift_info, audit)['drift'] == []


@pytest.mark.parametrize('keep_out_of_swap', [False, True])
def test_a_kernel_without_swap_accounting_keeps_the_default_and_refuses_a_limit(
        run_module, tmp_path, monkeypatch, keep_out_of_swap):
    """No memory.swap.max (swapaccount=0): the kernel's default is what it does anyway, so it is skipped; a plan
    that keeps the reserved cgroups out of swap cannot be kept there, and is refused with nothing written."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    args = dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, keep_reserved_out_of_swap=keep_out_of_swap,
                **tree.node_paths())
    run_module(node_cgroups, args)
    os.remove(tree.path('system', 'memory.swap.max'))
    if not keep_out_of_swap:
        assert run_module(node_cgroups, args)['changes'] == []
        return
    before = snapshot(tree.root)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args)
    assert 'memory.swap.max' in failure.value.result['msg']
    assert snapshot(tree.root) == before


@pytest.mark.parametrize('hand', ['0', ''])
def test_a_v1_cpuset_narrowed_or_emptied_by_hand_gets_its_parents_again(run_module, tmp_path, monkeypatch, hand):
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch, pid1='init')
    args = dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, **tree.node_paths())
    plan = run_module(node_cgroups, args)['plan']
    cpus = tree.path('cpuset', 'system', 'cpuset.cpus')
    assert tree.read('cpuset', 'system', 'cpuset.cpus') == '0-3'  # the parent's, as a new cpuset gets them
    audit = dict(tree.audit_paths(), plan=plan, cgroupfs_path=tree.root, proc_path=tree.proc, check_kubelet_config=False)
    with open(cpus, 'w') as handle:
        handle.write(hand + '\n')
    checked = run_module(node_cgroups, args, check_mode=True)['changes']
    # every CPU, as kubelet writes it on an enforced reserved cgroup (none CPU manager policy)
    assert checked == ['write %s: %s -> 0-3' % (cpus, hand)]
    assert run_module(node_drift_info, audit)['drift'] == [
        {'item': 'system_reserved', 'check': 'cpuset.cpus', 'live': hand, 'planned': '0-3'}]
    run_module(node_cgroups, args)
    assert tree.read('cpuset', 'system', 'cpuset.cpus') == '0-3'
    assert run_module(node_drift_info, audit)['drift'] == []


def test_a_reserved_cgroup_kubelet_would_refuse_at_start_is_named_as_kubelets_check(run_module, node):
    """kubelet's Validate (cgroup_manager_linux.go) refuses system-reserved missing from one v1 hierarchy, or on v2
    without a controller the root offers: the audit says so beside the step that would mend it
    (_audit.kubelet_validate_drift)."""
    tree, files = node
    plan = converge(run_module, tree, files)
    if tree.mode == 'v2':
        with open(tree.path('system', 'cgroup.controllers'), 'w') as handle:
            handle.write('cpu\n')  # the root offers memory and pids too
        broken = tree.path('system')
    else:
        broken = tree.path('pids', 'system')
        os.rmdir(broken)
    found = [d for d in drift_of(run_module, tree, files, plan)['drift'] if d['check'] == 'kubelet Validate']
    assert [(d['item'], d['planned']) for d in found] == [('system_reserved', 'every hierarchy and controller')]
    assert (broken in found[0]['live']) if tree.mode == 'v1' else ('memory' in found[0]['live'])


def test_an_upgrade_preview_names_what_the_target_writes_and_what_stops_it(run_module, node):
    """A node converged for kubelet 1.34, previewed for 1.37: the values 1.37 writes differently, a gate the node's
    configuration sets that 1.37 locks, and on cgroup v1 the failCgroupV1 default that stops kubelet from 1.35.
    Nothing is written."""
    tree, files = node
    converge(run_module, tree, files)
    settings = dict(SETTINGS, kubelet_version='1.34')
    audit = dict(files, settings=settings, cgroupfs_path=tree.root, proc_path=tree.proc)
    before = snapshot(tree.root)
    same = run_module(node_drift_info, dict(audit, upgrade_to='1.34'))['upgrade']
    assert same.pop('pods')['unknown'].startswith('pods unknown')
    assert same == {'release': '1.34', 'target': '1.34', 'ready': True, 'blockers': [], 'cgroup_changes': [],
                    'allocatable': None, 'ignored_keys': []}
    preview = run_module(node_drift_info, dict(audit, upgrade_to='1.37'))
    assert preview['drift'] == []  # the drift stays against the node's own release
    upgrade = preview['upgrade']
    assert (upgrade['release'], upgrade['target']) == ('1.34', '1.37')
    if tree.mode == 'v2':
        # MemoryQoS is on by default from 1.37: the enforced system-reserved cgroup's memory.min is its reservation,
        # kubepods' memory.min is written (0)
        assert {'cgroup': 'system_reserved', 'file': 'memory.min', 'now': '0', 'target': str(1024 ** 3)} \
            in upgrade['cgroup_changes']
        assert {'cgroup': 'kubepods', 'file': 'memory.min', 'now': None, 'target': '0'} in upgrade['cgroup_changes']
        assert upgrade['ready'] and upgrade['blockers'] == []
    else:
        assert not upgrade['ready']
        assert any('failCgroupV1 is true' in blocker for blocker in upgrade['blockers'])
    # A gate the node's configuration sets that 1.37 has locked: kubelet 1.37 would not start with it.
    with open(files['kubelet_config_path'], 'a') as handle:
        handle.write('featureGates: {InPlacePodVerticalScaling: false}\n')
    upgrade = run_module(node_drift_info, dict(audit, upgrade_to='1.37'))['upgrade']
    assert not upgrade['ready']
    assert any(blocker.startswith('the kubelet configuration: ') and 'InPlacePodVerticalScaling' in blocker
               for blocker in upgrade['blockers'])
    assert snapshot(tree.root) == before
    with pytest.raises(ModuleFail) as failure:
        run_module(node_drift_info, dict(audit, upgrade_to='1.40'))
    assert failure.value.result['msg'].startswith('upgrade_to: kubelet 1.40 is not supported')
    with pytest.raises(ModuleFail) as failure:
        run_module(node_drift_info, dict(files, plan={'cgroup_driver': 'cgroupfs'}, upgrade_to='1.37',
                                         cgroupfs_path=tree.root, proc_path=tree.proc))
    assert failure.value.result['msg'].startswith('upgrade_to: previews an upgrade from settings')


def test_an_upgrade_preview_names_the_keys_the_target_kubelet_ignores(run_module, node):
    """A key kubelet 1.38 added (k8s.io/kubelet v0.38.0-beta.0's KubeletConfiguration) in the configuration of a 1.34
    node: a 1.37 kubelet does not know it and ignores it (its strict decoding fails, it decodes leniently and starts
    without it), a 1.38 one reads it. Neither keeps kubelet from starting."""
    tree, files = node
    converge(run_module, tree, files)
    with open(files['kubelet_config_path'], 'a') as handle:
        handle.write('clientCertificateKeyAlgorithm: ECDSA-P256\n')
    audit = dict(files, settings=dict(SETTINGS, kubelet_version='1.34'), cgroupfs_path=tree.root, proc_path=tree.proc)
    to_137 = run_module(node_drift_info, dict(audit, upgrade_to='1.37'))['upgrade']
    assert to_137['ignored_keys'] == ['clientCertificateKeyAlgorithm']
    assert run_module(node_drift_info, dict(audit, upgrade_to='1.38'))['upgrade']['ignored_keys'] == []


def api_pod(name, requests, limits):
    return {'metadata': {'name': name, 'namespace': 'apps', 'uid': name + '-uid'},
            'spec': {'containers': [{'name': 'app', 'resources': {'requests': requests, 'limits': limits}}]},
            'status': {'phase': 'Running'}}


def test_an_upgrade_preview_of_a_limited_swap_node_reads_the_node_s_swap(run_module, node):
    """Under LimitedSwap kubelet gives each Burstable container of a cgroup v2 node a share of the node's swap
    (SwapTotal of meminfo) where the swap controller is there: the preview reads both from the node, as kubelet does,
    and plans the pods' values for both releases (found on a VM, whose preview said the values were not known)."""
    tree, files = node
    converge(run_module, tree, files)
    with open(files['kubelet_config_path'], 'a') as handle:
        handle.write('failSwapOn: false\nmemorySwap: {swapBehavior: LimitedSwap}\n')
    with open(os.path.join(tree.proc, 'meminfo'), 'w') as handle:
        handle.write('MemTotal:       16777216 kB\nSwapTotal:       2097152 kB\n')
    with open(os.path.join(tree.proc, 'self/cgroup'), 'w') as handle:
        handle.write('0::/\n')
    if tree.mode == 'v2':
        with open(os.path.join(tree.root, 'memory.swap.max'), 'w') as handle:
            handle.write('max\n')
    audit = dict(files, settings=dict(SETTINGS, kubelet_version='1.34'), cgroupfs_path=tree.root, proc_path=tree.proc,
                 pods=[api_pod('web', {'cpu': '250m', 'memory': '256Mi'}, {'memory': '512Mi'})])
    preview = run_module(node_drift_info, dict(audit, upgrade_to='1.37'))['upgrade']['pods']
    assert (preview['count'], preview['unknown']) == (1, None)
    # The share is the same in both releases: no swap value among the changes.
    assert not [c for c in preview['changes'] if 'swap' in c['name']]


def test_an_upgrade_preview_names_the_values_the_target_gives_the_pods(run_module, node):
    """The pods of the node (here the API server's, the pods option) planned by both releases: on cgroup v2 kubelet
    1.37 turns MemoryQoS on, and under the default memoryReservationPolicy (None) it sends every container
    memory.min and memory.low 0 where 1.34 sent none; the pod cgroups' files and QoS classes stay. Without pods the
    preview says so."""
    tree, files = node
    converge(run_module, tree, files)
    audit = dict(files, settings=dict(SETTINGS, kubelet_version='1.34'), cgroupfs_path=tree.root, proc_path=tree.proc)
    unknown = run_module(node_drift_info, dict(audit, upgrade_to='1.37'))['upgrade']['pods']
    assert unknown['changes'] is None and unknown['unknown'].startswith('pods unknown')
    pods = [api_pod('web', {'cpu': '250m', 'memory': '256Mi'}, {'memory': '512Mi'}), api_pod('idle', {}, {})]
    preview = run_module(node_drift_info, dict(audit, upgrade_to='1.37', pods=pods))['upgrade']['pods']
    assert (preview['source'], preview['count'], preview['unknown']) == ('the API server', 2, None)
    changed = dict(((c['pod'], c['container'], c['name']), (c['now'], c['target'])) for c in preview['changes'])
    if tree.mode == 'v2':
        assert changed == dict(((pod, 'app', name), (None, 0)) for pod in ('apps/web', 'apps/idle')
                               for name in ('memory_min', 'memory_low'))
    else:
        # kubelet keeps MemoryQoS to cgroup v2: nothing a v1 node's pods get changes.
        assert changed == {}
    assert run_module(node_drift_info, dict(audit, upgrade_to='1.34', pods=pods))['upgrade']['pods']['changes'] == []
