# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Edges of the run layer no other test pinned: each found by `make mutation MUTATION_ARGS="--sample 120"`
(docs/testing.md)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from types import SimpleNamespace

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _measurement as measurement
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._drivers import CgroupfsDriver
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroup_usage import memory_limit_now


def test_the_measurement_sizes_profiles_for_kubelets_max_pods_when_the_plan_counts_none():
    plan = plan_node(PlanOptions(capacity={'cpu': '4', 'memory': '16Gi'}))
    assert plan.value('capacity', 'pods') is None and measurement._max_pods(plan) == 110
    assert measurement._max_pods(plan._replace(max_pods=58)) == 58
    assert measurement._max_pods(plan_node(PlanOptions(capacity={'cpu': '4', 'memory': '16Gi', 'pods': '30'}))) == 30


def test_the_memory_is_watched_once_a_second_over_the_window(tmp_path, monkeypatch):
    slept = []
    monkeypatch.setattr(measurement.time, 'sleep', slept.append)
    peaks = measurement.watch_memory(CgroupLayout('v2', {}, str(tmp_path)), str(tmp_path), {'kube': (None, 'none')},
                                     'v2', 3)
    assert slept == [1, 1, 1] and peaks == {}


def test_a_v1_node_missing_a_hierarchy_kubelet_needs_is_refused_naming_them(tmp_path):
    layout = CgroupLayout('v1', {'cpu': str(tmp_path / 'cpu'), 'memory': str(tmp_path / 'memory')}, str(tmp_path))
    target = ops.CgroupfsTarget(layout, str(tmp_path), None)
    with pytest.raises(KubenodeError) as error:
        ops.plan_cgroupfs([('kubepods', PlannedCgroup('kubepods', '/kubepods'))], target, None, ops.EMPTY_STATE)
    assert (error.value.field, error.value.value) == ('cgroupfs_path', str(tmp_path))
    assert 'cgroup v1 hierarchies kubelet needs are not mounted: cpuacct, cpuset, pids, systemd' in str(error.value)


def test_a_planned_path_that_climbs_is_refused_naming_its_cgroup(tmp_path):
    target = ops.CgroupfsTarget(CgroupLayout('v2', {}, str(tmp_path)), str(tmp_path), [])
    with pytest.raises(KubenodeError) as error:
        ops.plan_cgroupfs([('system_reserved', PlannedCgroup('system_reserved', '/a/../b'))], target, None,
                          ops.EMPTY_STATE)
    assert error.value.field == 'system_reserved path'


@pytest.mark.parametrize('written, seen', [('9223372036854771712', None), ('1073741824', 1073741824), (None, None)])
def test_a_v1_memory_limit_at_the_kernels_unlimited_value_is_no_limit(tmp_path, written, seen):
    memory = tmp_path / 'memory' / 'kubepods'
    memory.mkdir(parents=True)
    if written is not None:
        (memory / 'memory.limit_in_bytes').write_text(written + '\n')
    layout = CgroupLayout('v1', {'memory': str(tmp_path / 'memory')}, str(tmp_path))
    assert memory_limit_now(layout, str(tmp_path), '/kubepods') == seen


def _cgroupfs_run(paths, mode='v2', systemd_running=True):
    """What CgroupfsDriver.unit_steps reads of a run: its entries, whether systemd is PID 1, the cgroup mode."""
    entries = [(key, SimpleNamespace(cgroupfs_path=path)) for key, path in paths.items()]
    return SimpleNamespace(entries=entries, systemd_running=systemd_running,
                           layout=SimpleNamespace(is_v2=mode == 'v2'))


def test_a_cgroupfs_cgroup_systemd_owns_gets_one_warning_and_not_the_v2_one_too():
    driver = CgroupfsDriver()
    steps, warnings, placed, changed = driver.unit_steps(
        _cgroupfs_run({'kubepods': '/kubepods', 'system_reserved': '/system.slice'}), {}, [])
    assert (steps, placed, changed) == ([], [], set())
    assert len(warnings) == 1 and warnings[0].startswith('system_reserved: systemd owns /system.slice')
    # None owned: the v2 warning alone; without systemd as PID 1, or on v1, none.
    assert [w[:28] for w in driver.unit_steps(_cgroupfs_run({'kubepods': '/kubepods'}), {}, [])[1]] == [
        'systemd is PID 1 on this cgr']
    assert driver.unit_steps(_cgroupfs_run({'kubepods': '/kubepods'}, systemd_running=False), {}, [])[1] == []
    assert driver.unit_steps(_cgroupfs_run({'kubepods': '/kubepods'}, mode='v1'), {}, [])[1] == []
