# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The calculation core touches no file: the node plan, the kubelet configuration's validation and
edit, pod values and the kubelet flag parsing all run with every file access blocked."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import builtins
import contextlib
import os

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import read_cgroups, read_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import PodSettings
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import node_cgroups_argument_spec
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec
from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args
from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
from ansible_collections.kubenode.cgroups.tests.unit.node_files import write_text


@contextlib.contextmanager
def no_files():
    """Every way to reach a file fails while the block runs (pytest needs them back to report)."""
    def refuse(*args, **kwargs):
        raise AssertionError('the pure core touched the filesystem: %r' % (args,))
    blocked = ((builtins, 'open'), (os, 'listdir'), (os, 'stat'), (os, 'lstat'), (os, 'scandir'),
               (os.path, 'exists'), (os.path, 'isdir'), (os.path, 'isfile'))
    saved = [(module, name, getattr(module, name)) for module, name in blocked]
    for module, name in blocked:
        setattr(module, name, refuse)
    try:
        yield
    finally:
        for module, name, function in saved:
            setattr(module, name, function)


NODE = {'capacity': {'cpu': '4', 'memory': '16Gi', 'ephemeral-storage': '100Gi', 'pid': '4194304'},
        'online_cpus': [0, 1, 2, 3], 'system_reserved': {'cpu': '500m', 'memory': '1Gi'},
        'kube_reserved': {'cpu': '250m', 'memory': '512Mi'}, 'system_reserved_cgroup': '/system.slice',
        'kube_reserved_cgroup': '/kube.slice', 'enforce_node_allocatable': ['pods', 'kube-reserved'],
        'cgroup_driver': 'systemd', 'profile': 'static', 'max_pods': 58, 'kubelet_version': '1.36'}


def test_a_node_is_planned_from_its_inputs_alone():
    with no_files():
        plan = plan_node(PlanOptions(**NODE))
    assert plan.allocatable['memory']['quantity'] == '14748Mi'  # 16Gi - 1Gi - 512Mi - 100Mi of hard eviction
    assert plan.cgroup('kubepods').systemd_unit == 'kubepods.slice' and plan.max_pods == 58


def test_plan_options_take_kubelet_defaults_and_name_what_is_wrong():
    options = PlanOptions(capacity=NODE['capacity'])
    assert options.cgroup_driver == 'cgroupfs' and options.cgroups_per_qos is True
    assert options.enforce_node_allocatable == ['pods']
    assert PlanOptions(cgroups_per_qos=False, enforce_node_allocatable=[]).enforce_node_allocatable == []
    with pytest.raises(TypeError, match='not PlanOptions fields: proc_path'):
        PlanOptions(proc_path='/proc')
    with pytest.raises(KubenodeError) as error:
        PlanOptions(cgroup_root=['/'])
    assert (error.value.field, error.value.value) == ('cgroup_root', ['/'])
    picked = PlanOptions.from_options(dict(NODE, proc_path='/proc', sys_path='/sys'), max_pods=30)
    assert picked.max_pods == 30 and picked.replace(max_pods=None).max_pods is None


def test_the_kubelet_configuration_is_parsed_validated_and_edited_without_files():
    text = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n# kept\nmaxPods: 110\n'
    with no_files():
        current = kc.parse(text, 'config.yaml')
        desired = kc.apply_settings(current, kc.settings_from_plan(plan_node(PlanOptions(**NODE))))
        plan = kc.validate(desired, '1.36')
        edited = kc.edit_text(text, current, desired)
        refusal = kc.cgroup_v1_refusal('v1', kubelet_rules('1.36'), desired)
    assert plan.cgroup_driver == 'systemd' and desired['maxPods'] == 58
    assert '# kept\n' in edited and 'refuses to start on this cgroup v1 node' in refusal


OPERATOR_FILE = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# reservations, as the operator wrote them
kubeReserved:
  cpu: "100m"   # quoted on purpose
  memory: 256Mi
  pid: "1000"
systemReserved: {cpu: "500m"}
maxPods: 110
"""


def test_the_edit_keeps_what_the_operator_wrote_and_names_what_it_replaces():
    current = kc.parse(OPERATOR_FILE, 'config.yaml')
    # The plan spells pid 1000 as 1k and 500m as 0.5: equal in meaning, so kept as written.
    desired = kc.apply_settings(current, {'kubeReserved': {'cpu': '100m', 'memory': '3125Mi', 'pid': '1k'},
                                          'systemReserved': {'cpu': '0.5'}, 'evictionHard': {'memory.available': '100Mi'}})
    edited = kc.edit_text(OPERATOR_FILE, current, desired)
    assert '  cpu: "100m"   # quoted on purpose\n  memory: 3125Mi\n  pid: "1000"\n' in edited
    assert 'systemReserved: {cpu: "500m"}\n' in edited and '# reservations, as the operator wrote them' in edited
    assert kc.parse(edited, 'edited') == desired
    assert kc.replaced_values(current, desired) == ['kubeReserved.memory: 256Mi -> 3125Mi']


def test_the_edit_drops_and_adds_entries_of_a_changed_mapping():
    current = kc.parse(OPERATOR_FILE, 'config.yaml')
    desired = kc.apply_settings(current, {'kubeReserved': {'memory': '1Gi', 'ephemeral-storage': '1Gi'}})
    edited = kc.edit_text(OPERATOR_FILE, current, desired)
    assert kc.parse(edited, 'edited') == desired
    assert 'kubeReserved:\n  memory: 1Gi\n  ephemeral-storage: 1Gi\n' in edited
    assert kc.replaced_values(current, desired) == [
        'kubeReserved.cpu: 100m -> (removed)', 'kubeReserved.memory: 256Mi -> 1Gi', 'kubeReserved.pid: 1000 -> (removed)']


def test_pod_values_and_kubelet_flags_need_no_files():
    with no_files():
        settings = PodSettings({'kubelet_version': '1.36', 'cgroup_driver': 'systemd'})
        flags = discovery.kubelet_flags(['--config', '/a.yaml', '--config-dir=/d'])
    assert settings.policy == 'None' and flags == {'config': '/a.yaml', 'config_dir': '/d'}


def test_node_cgroups_plans_a_node_from_one_reading(tmp_path, monkeypatch, run_module):
    """The host is read once (read_node, then read_cgroups for the cgroups the plan names); the run and
    its kernel operations are planned with every file access blocked, and are what the module does."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    kubelet_file = tree.node_paths()['kubelet_config_paths'][0]
    write_text(kubelet_file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                             'cgroupDriver: cgroupfs\nmaxPods: 58\n')
    write_text(os.path.join(tree.proc, 'meminfo'), 'MemTotal:       16777216 kB\n')
    write_text(os.path.join(tree.proc, 'cpuinfo'), ''.join('processor\t: %d\n' % n for n in range(4)))
    args = node_cgroups_args(tree, {}, capacity=None, cgroup_driver='auto', sys_path=str(tmp_path / 'sys'),
                             kubelet_config={'kubelet_config_path': kubelet_file})
    spec = NodeSpec(ArgumentSpecValidator(node_cgroups_argument_spec()).validate(args).validated_parameters, True)
    node = read_node(spec, systemctl=None)
    with no_files():
        run = ops.plan_run(spec, node)
    kernel = read_cgroups(node.layout, tree.root, run.entries)
    with no_files():
        operations = ops.plan_cgroupfs(run.entries, ops.CgroupfsTarget(
            node.layout, tree.root, ops.offered_controllers(tree.root, kernel)), None, kernel)
    # The driver and maxPods come from the kubelet file in the snapshot, the capacity from its /proc.
    assert run.driver == 'cgroupfs' and run.plan.max_pods is None
    assert run.plan.capacity['pods']['quantity'] == '58'
    assert run.plan.capacity['memory']['quantity'] == '16Gi' and run.plan.capacity['cpu']['quantity'] == '4'
    assert run.kubelet_change['changed'] and run.kubelet_change['config']['kubeReserved'] == {
        'cpu': '250m', 'memory': '512Mi'}
    planned = [o.describe() for o in operations]
    assert 'mkdir %s' % tree.path('kubepods') in planned
    with pytest.raises(LookupError, match='was not read into the node snapshot'):
        node.files.read('/etc/elsewhere.yaml')
    with pytest.raises(LookupError, match='was not read into the cgroup snapshot'):
        kernel.isdir(tree.path('elsewhere'))
    module_changes = run_module(node_cgroups, args, check_mode=True)['changes']
    assert module_changes == planned + ['write %s' % kubelet_file]


@pytest.mark.parametrize('verify', [False, True])
def test_one_run_plans_once(tmp_path, monkeypatch, run_module, verify):
    """node_cgroups computes the node plan once per run, with kubelet_config (whose validation reuses the
    plan) and with verify (whose read-back compares with the same plan). A run that keeps its receipt after writing
    plans once more, in the dry pass whose reads the receipt keeps; the next run, answered by it, plans none."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    kubelet_file = tree.node_paths()['kubelet_config_paths'][0]
    write_text(kubelet_file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                             'cgroupDriver: cgroupfs\nmaxPods: 58\n')
    calls = []

    def counted(params):
        calls.append(params)
        return plan_node(params)
    monkeypatch.setattr(ops, 'plan_node', counted)
    monkeypatch.setattr(kc, 'plan_node', counted)
    args = node_cgroups_args(tree, {'cpu': '4', 'memory': '16Gi'}, cgroup_driver='auto', verify=verify,
                             kube_reserved={'cpu': '500m', 'memory': '1Gi'},
                             kubelet_config={'kubelet_config_path': kubelet_file})
    result = run_module(node_cgroups, dict(args, use_receipt=False))
    assert result['changed'] and len(calls) == 1
    assert ('verification' in result) == verify and (not verify or result['verification']['drift'] == [])
    write_text(kubelet_file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                             'cgroupDriver: cgroupfs\nmaxPods: 57\n')
    del calls[:]
    result = run_module(node_cgroups, args)
    assert result['changed'] and result['receipt']['kept'] and len(calls) == 2
    del calls[:]
    again = run_module(node_cgroups, args)
    assert again['receipt']['used'] and not again['changed'] and calls == []
    # The kubelet configuration is still validated with the plan: one kubelet would refuse is refused.
    del calls[:]
    with pytest.raises(ModuleFail, match='cpumanager'):
        run_module(node_cgroups, dict(args, kube_reserved={'memory': '1Gi'}, system_reserved={'memory': '1Gi'}, kubelet_config={
            'kubelet_config_path': kubelet_file, 'kubelet_settings': {'cpuManagerPolicy': 'static'}}))
    assert len(calls) == 1


@pytest.mark.parametrize('version', [1.31, 1, ['1.34']])
def test_a_kubelet_release_that_is_not_a_string_is_refused(version):
    with pytest.raises(KubenodeError) as error:
        kubelet_rules(version, field='kubeletVersion')
    assert (error.value.field, error.value.value) == ('kubeletVersion', version)
    assert 'must be a string such as "1.34"' in str(error.value)


def test_single_process_oom_kill_is_a_kubelet_field_from_1_32():
    assert kc.validate({'singleProcessOOMKill': True}, '1.32').kubelet_version == '1.32'
    with pytest.raises(KubenodeError) as error:
        kc.validate({'singleProcessOOMKill': True}, '1.31')
    assert str(error.value) == 'singleProcessOOMKill: singleProcessOOMKill exists only from kubelet 1.32 (got True)'
    with pytest.raises(KubenodeError) as error:
        kc.check_settings({'singleProcessOOMKill': True}, field='kubelet_settings')
    assert 'a KubeletConfiguration field this module does not manage' in str(error.value)


@pytest.mark.parametrize('option, value', [('cgroup_driver', 'cgroupsfs'), ('cgroup_root', 'kubepods')])
def test_the_node_plan_and_the_pod_settings_refuse_a_driver_or_root_kubelet_would(option, value):
    """kubelet's cgroupDriver and cgroupRoot, checked once (_cgroup_names) for the node plan and the pods alike."""
    for build in (lambda: plan_node(PlanOptions(**{option: value})), lambda: PodSettings({option: value})):
        with pytest.raises(KubenodeError) as refused:
            build()
        assert (refused.value.field, refused.value.value) == (option, value)
