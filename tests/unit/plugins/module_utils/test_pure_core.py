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

from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils._allocatable import plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils._pods import PodSettings
from ansible_collections.kubenode.cgroups.plugins.module_utils._versions import kubelet_rules


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
        plan = plan_node(dict(NODE))
    assert plan['allocatable']['memory']['quantity'] == '14748Mi'  # 16Gi - 1Gi - 512Mi - 100Mi of hard eviction
    assert plan['cgroups']['kubepods']['systemd_unit'] == 'kubepods.slice' and plan['max_pods'] == 58


def test_the_kubelet_configuration_is_parsed_validated_and_edited_without_files():
    text = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n# kept\nmaxPods: 110\n'
    with no_files():
        current = kc.parse(text, 'config.yaml')
        desired = kc.apply_settings(current, kc.settings_from_plan(plan_node(dict(NODE))))
        plan = kc.validate(desired, '1.36')
        edited = kc.edit_text(text, current, desired)
        refusal = kc.cgroup_v1_refusal('v1', kubelet_rules('1.36'), desired)
    assert plan['cgroup_driver'] == 'systemd' and desired['maxPods'] == 58
    assert '# kept\n' in edited and 'refuses to start on this cgroup v1 node' in refusal


def test_pod_values_and_kubelet_flags_need_no_files():
    with no_files():
        settings = PodSettings({'kubelet_version': '1.36', 'cgroup_driver': 'systemd'})
        flags = discovery.kubelet_flags(['--config', '/a.yaml', '--config-dir=/d'])
    assert settings.policy == 'None' and flags == {'config': '/a.yaml', 'config_dir': '/d'}
