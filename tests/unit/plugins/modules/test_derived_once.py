# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Derived once (issue 56): a changed node_cgroups run, verify on and with the kubelet configuration, computes each
derived value once - the plan, the run's plan, the kubelet configuration read, merged and validated - and every later
step reads what was derived. The calls are counted by the interpreter's profiler, so a call through any import path
counts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import os
import shutil
import sys

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _allocatable
from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args

DATA = os.path.join(os.path.dirname(__file__), '..', '..', 'data')
CAPACITY = {'cpu': '4', 'memory': '16Gi', 'pid': '100000', 'hugepages-2Mi': '0', 'hugepages-1Gi': '0'}
COLLECTION = os.sep + os.path.join('plugins', 'module_utils') + os.sep


def counted_calls(function, names):
    """{(function name, its arguments as repr shows them): calls} of the collection's module_utils functions of
    names while function() runs: a call with the same arguments again is a value derived twice."""
    calls = collections.Counter()

    def profile(frame, event, _arg):
        code = frame.f_code
        if event == 'call' and code.co_name in names and COLLECTION in code.co_filename:
            arguments = [repr(frame.f_locals.get(name)) for name in code.co_varnames[:code.co_argcount]]
            calls[(code.co_name, '; '.join(arguments))] += 1

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return calls


def changed_run(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path / 'cg', 'v2', monkeypatch)
    config = tmp_path / 'kubelet' / 'config.yaml'
    config.parent.mkdir()
    shutil.copy(os.path.join(DATA, 'kubeadm-kubelet-config.yaml'), str(config))
    options = node_cgroups_args(tree, CAPACITY, containerd_config_path=str(tmp_path / 'containerd.toml'),
                                crio_config_paths=[str(tmp_path / 'crio.conf')], verify=True, use_receipt=False,
                                kubelet_config={'path': str(config), 'dropin_dir': str(tmp_path / 'kubelet.conf.d')})
    return lambda: run_module(node_cgroups, options)


# Run once each: the plan, the run's plan, kubelet's configuration read and merged, the change validated, the keys
# the plan stands for. Per cgroup, once each: its files rendered, its managed view.
ONCE_A_RUN = ('plan_node', 'plan_run', 'validate', 'compute_change', 'read_config', 'settings_from_plan')
ONCE_A_VALUE = ('resource_files', 'planned', 'from_entry', 'check_entry', 'merge', 'plan_inputs', 'cgroup_config')


def test_a_changed_run_derives_each_value_once(run_module, tmp_path, monkeypatch):
    monkeypatch.setattr(_allocatable, '_OWNED_DEFAULTS', {})  # as in a module's own process
    calls = counted_calls(changed_run(run_module, tmp_path, monkeypatch), ONCE_A_RUN + ONCE_A_VALUE)
    per_function = collections.Counter()
    for (name, _arguments), count in calls.items():
        per_function[name] += count
    assert dict((name, per_function[name]) for name in ONCE_A_RUN) == dict((name, 1) for name in ONCE_A_RUN)
    assert [key for key, count in calls.items() if count > 1] == []
    # The five cgroups of the plan (kubepods, two QoS tiers, two reserved cgroups), each rendered once, and the files
    # at the kernel's defaults the collection owns in both reserved cgroups beyond kubelet's (own_unwritten_files).
    # plan_node builds each cgroup's record once (PlannedCgroup.planned); the run's own plan is neither read back
    # from entries nor checked again (from_entry and check_entry are for plans handed back through an option).
    assert (per_function['resource_files'], per_function['planned'], per_function['from_entry'],
            per_function['check_entry']) == (6, 5, 0, 0)


def test_the_count_sees_a_value_derived_twice(run_module, tmp_path, monkeypatch):
    """The check can fail: a run that validates its kubelet configuration again is seen."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
    validate = kc.validate

    def twice(*args, **kwargs):
        validate(*args, **kwargs)
        return validate(*args, **kwargs)

    monkeypatch.setattr(kc, 'validate', twice)
    calls = counted_calls(changed_run(run_module, tmp_path, monkeypatch), ('validate',))
    assert sorted(calls.values()) == [2]


class Files(object):
    def __init__(self, texts):
        self.texts = texts

    def read(self, path):
        if path not in self.texts:
            raise LookupError(path)
        return self.texts[path]


def test_the_read_back_settles_the_change_only_where_the_files_hold_what_it_wrote():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_cgroups import settled_change
    change = {'path': '/c.yaml', 'before': 'a: 1\n', 'after': 'a: 2\n', 'changed': True, 'replaced': ['a'],
              'flags_file': {'path': '/flags', 'before': 'X=\n', 'after': 'X=--config-dir=/d\n'}}
    settled = settled_change(change, Files({'/c.yaml': 'a: 2\n', '/flags': 'X=--config-dir=/d\n'}))
    assert (settled['before'], settled['changed'], settled['replaced']) == ('a: 2\n', False, [])
    assert settled['flags_file'] is None
    # Another hand wrote either file, or the newer snapshot did not read one: computed from the node instead.
    assert settled_change(change, Files({'/c.yaml': 'a: 3\n', '/flags': 'X=--config-dir=/d\n'})) is None
    assert settled_change(change, Files({'/c.yaml': 'a: 2\n', '/flags': 'X=\n'})) is None
    assert settled_change(change, Files({'/c.yaml': 'a: 2\n'})) is None
