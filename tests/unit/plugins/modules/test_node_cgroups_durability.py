# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What keeps a node right after node_cgroups: the boot script, kernel drift under systemd, overrides."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import pytest

from ansible.module_utils import basic

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _boot_persistence as boot
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups, node_drift_info

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args, snapshot

GI = 1024 ** 3
CAPACITY = {'cpu': '4', 'memory': '16Gi', 'pid': '100000', 'hugepages-2Mi': '0'}


def cgroupfs_args(tree, **extra):
    return node_cgroups_args(tree, CAPACITY, **extra)


def systemd_args(tree, **extra):
    return cgroupfs_args(tree, cgroup_driver='systemd', system_reserved_cgroup='/system.slice',
                         kube_reserved_cgroup='/kube.slice', **extra)


def read(path):
    with open(path) as handle:
        return handle.read()


def reboot(tree):
    """What a reboot leaves of a v1 tree: the mounted hierarchies, and the root cpuset."""
    for hierarchy in os.listdir(tree.root):
        top = tree.path(hierarchy)
        for entry in os.listdir(top):
            if os.path.isdir(os.path.join(top, entry)):
                subprocess.run(['rm', '-rf', '--', os.path.join(top, entry)], check=True)


@pytest.mark.parametrize('mode', ['v1', 'hybrid'])
def test_boot_script_rebuilds_every_hierarchy_and_value_after_a_reboot(run_module, tmp_path, monkeypatch, mode):
    tree = FakeCgroupfs(tmp_path, mode, monkeypatch)
    tree.systemd.run_services = True
    result = run_module(node_cgroups, cgroupfs_args(tree))
    paths = result['persistence']
    script = read(paths['script'])
    assert os.access(paths['script'], os.X_OK) and script.startswith('#!/bin/sh')
    assert 'restart kubenode-cgroups.service' in tree.systemd.calls  # run once (for real) when written
    reboot(tree)
    assert not os.path.isdir(tree.path('memory', 'kube'))
    run = subprocess.run(['/bin/sh', paths['script']], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    for hierarchy in ('cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'systemd', 'hugetlb'):
        for relative in ('kubepods', 'kubepods/burstable', 'kubepods/besteffort', 'system', 'kube'):
            assert os.path.isdir(tree.path(hierarchy, relative)), (hierarchy, relative)
    assert tree.read('cpuset', 'kubepods', 'burstable', 'cpuset.cpus') == '0-3'  # filled from the parent
    assert '/kubepods/cpu.shares' not in script  # kubelet writes kubepods' values when it starts, after the script
    assert tree.read('memory', 'kube', 'memory.limit_in_bytes') == str(512 * 1024 ** 2)
    assert tree.read('pids', 'system', 'pids.max') == '1000'
    assert tree.read('hugetlb', 'system', 'hugetlb.2MB.limit_in_bytes') == '0'


def test_boot_script_enables_v2_controllers_and_reports_what_it_cannot_do(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    paths = run_module(node_cgroups, cgroupfs_args(tree))['persistence']
    script = read(paths['script'])
    assert "enable %s 'cpu cpuset memory hugetlb pids'" % tree.root in script
    # The reserved cgroups' values; kubepods' are kubelet's.
    assert '/kube/cpu.weight' in script and '/kubepods/cpu.weight' not in script
    # A value the kernel refuses is named but leaves kubelet free to start and judge its own values ...
    os.remove(tree.path('kube', 'memory.max'))
    os.mkdir(tree.path('kube', 'memory.max'))
    run = subprocess.run(['/bin/sh', paths['script']], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and 'cannot write' in run.stderr and '/kube/memory.max' in run.stderr
    assert tree.read('kube', 'cpu.weight') == '10'
    # ... while what kubelet validates at start (here, a controller) fails the script and so kubelet's start.
    os.remove(tree.path('cgroup.subtree_control'))
    subprocess.run(['mkdir', tree.path('cgroup.subtree_control')], check=True)  # a write the shell cannot make
    run = subprocess.run(['/bin/sh', paths['script']], capture_output=True, text=True, check=False)
    assert run.returncode == 1 and 'cannot enable' in run.stderr


def test_a_boot_script_that_fails_fails_the_task(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    tree.systemd.failing_services.add('kubenode-cgroups.service')
    with pytest.raises(Exception) as failure:
        run_module(node_cgroups, cgroupfs_args(tree))
    assert 'systemctl restart kubenode-cgroups.service failed' in str(failure.value)
    assert failure.value.result['applied']  # what was done before is listed


def test_persistence_units_are_owned_checked_and_removed(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch)
    files = [os.path.join(tree.node_paths()['systemd_unit_dir'], name) for name in (
        'kubenode-cgroups.service', 'multi-user.target.wants/kubenode-cgroups.service',
        'kubelet.service.d/45-kubenode-cgroups.conf')] + [tree.node_paths()['persist_script']]
    checked = run_module(node_cgroups, cgroupfs_args(tree), check_mode=True)
    assert checked['persistence']['changed'] and not any(os.path.lexists(f) for f in files)
    assert any(c.startswith('create ' + files[0]) for c in checked['changes'])
    run_module(node_cgroups, cgroupfs_args(tree))
    assert all(os.path.lexists(f) for f in files)
    unit = read(files[0])
    assert 'Before=kubelet.service' in unit and 'Type=oneshot' in unit and 'WantedBy=multi-user.target' in unit
    assert os.readlink(files[1]) == files[0]
    dropin = read(files[2])
    assert 'ExecStartPre=%s' % files[3] in dropin and 'After=kubenode-cgroups.service' in dropin
    again = run_module(node_cgroups, cgroupfs_args(tree))
    assert again['changed'] is False and again['persistence']['changed'] is False
    # A changed plan rewrites the script, and daemon-reload comes before any cgroup write.
    del tree.systemd.calls[:]
    changed = run_module(node_cgroups, cgroupfs_args(tree, kube_reserved={'cpu': '250m', 'memory': '1Gi'}))
    assert changed['persistence']['changed'] and str(GI) in read(files[3])
    assert changed['changes'].index('systemctl daemon-reload') < min(
        i for i, c in enumerate(changed['changes']) if c.startswith('write '))
    off = run_module(node_cgroups, cgroupfs_args(tree, persist=False))
    assert off['changed'] and not any(os.path.lexists(f) for f in files) and off['persistence'] is None
    run_module(node_cgroups, cgroupfs_args(tree))
    tiers = ['besteffort', 'burstable', 'kubepods']
    removed = run_module(node_cgroups, cgroupfs_args(tree, state='absent', cgroups=tiers))
    assert removed['changed'] and not any(os.path.lexists(f) for f in files)


def test_systemd_driver_script_holds_only_what_systemd_cannot(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'hybrid', monkeypatch)
    result = run_module(node_cgroups, systemd_args(tree))
    script = read(result['persistence']['script'])
    assert 'make_dir %s' % tree.path('cpuset', 'kube.slice') in script
    # cpuset.mems as the parent has it; cpuset.cpus every CPU, as kubelet writes it (none CPU manager policy)
    assert 'copy_cpuset %s %s' % (tree.path('cpuset', 'cpuset.mems'), tree.path('cpuset', 'kube.slice', 'cpuset.mems')) \
        in script
    assert 'put %s 0-3' % tree.path('cpuset', 'kube.slice', 'cpuset.cpus') in script
    assert 'hugetlb.2MB.limit_in_bytes 0' in script
    assert 'cpu.shares' not in script and 'memory.limit_in_bytes' not in script  # systemd restores those
    unit = read(result['persistence']['unit'])
    assert 'Wants=kubepods.slice kubepods-burstable.slice kubepods-besteffort.slice kube.slice' in unit
    # hugetlb of the reserved slices is written (and verified) under the systemd driver too.
    assert tree.read('hugetlb', 'system.slice', 'hugetlb.2MB.limit_in_bytes') == '0'
    assert tree.read('hugetlb', 'kubepods.slice', 'hugetlb.2MB.limit_in_bytes') == _cgroup_files.V1_UNLIMITED_MEMORY \
        .__str__()  # kubelet writes kubepods' own


@pytest.mark.parametrize('mode', ['v2', 'v1'])
def test_kernel_drift_under_systemd_is_reported_and_repaired(run_module, tmp_path, monkeypatch, mode):
    tree = FakeCgroupfs(tmp_path, mode, monkeypatch)
    run_module(node_cgroups, systemd_args(tree))
    weight = ('kube.slice', 'cpu.weight') if mode == 'v2' else ('cpu', 'kube.slice', 'cpu.shares')
    planned = tree.read(*weight)
    with open(tree.path(*weight), 'w') as handle:
        handle.write('50\n')  # behind systemd's back: unit file and systemctl show still agree with the plan
    checked = run_module(node_cgroups, systemd_args(tree), check_mode=True)
    assert checked['changed'] and any(c.startswith('write %s: 50 -> %s' % (tree.path(*weight), planned))
                                      for c in checked['changes'])
    assert tree.read(*weight) == '50'
    fixed = run_module(node_cgroups, systemd_args(tree))
    assert fixed['changed'] and tree.read(*weight) == planned
    assert run_module(node_cgroups, systemd_args(tree))['changed'] is False


def test_overrides_that_disagree_with_the_plan_go_and_kubelets_stay(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    run_module(node_cgroups, systemd_args(tree))
    systemd = tree.systemd
    planned_memory = str(15 * 1024 ** 3)
    systemd.set_property('kubepods.slice', 'MemoryMax', planned_memory)  # as kubelet does over D-Bus
    systemd.set_property('kube.slice', 'CPUWeight', '77')  # an earlier repair, or an operator
    drift = run_module(node_drift_info, dict(plan=run_module(node_cgroups, systemd_args(tree), check_mode=True)['plan'],
                                             cgroupfs_path=tree.root, proc_path=tree.proc, check_kubelet_config=False,
                                             services=[], systemd_control_dirs=tree.node_paths()['systemd_control_dirs']))
    overrides = [d for d in drift['drift'] if d['check'].startswith('override ')]
    assert [(d['item'], d['live']) for d in overrides] == [('kube.slice', 'CPUWeight=77')]
    # The plan stops enforcing kube-reserved: kube.slice has no planned CPUWeight, and no override may stay.
    relaxed = systemd_args(tree, enforce_node_allocatable=['pods'])
    result = run_module(node_cgroups, relaxed)
    runtime = tree.node_paths()['systemd_control_dirs'][1]
    assert not os.path.exists(os.path.join(runtime, 'kube.slice.d', '50-CPUWeight.conf'))
    assert os.path.exists(os.path.join(runtime, 'kubepods.slice.d', '50-MemoryMax.conf'))  # kubelet's
    assert systemd.properties['kubepods.slice']['MemoryMax'] == planned_memory
    assert 'CPUWeight' not in systemd.properties.get('kube.slice', {})
    assert not any('set-property' in c for c in result['changes'] + systemd.calls)
    assert run_module(node_cgroups, relaxed)['changed'] is False


def test_kubelets_overrides_are_read_only_by_a_run_that_removes_its_slices(run_module, tmp_path, monkeypatch):
    """A run that keeps kubepods.slice takes nothing from kubelet's overrides of it (kubelet rewrites them at every
    start: a receipt that read them was not used after kubelet's restart); one with state absent removes them with
    the slice."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    run_module(node_cgroups, systemd_args(tree))
    tree.systemd.set_property('kubepods.slice', 'MemoryMax', str(15 * 1024 ** 3))  # as kubelet does over D-Bus
    override = os.path.join(tree.node_paths()['systemd_control_dirs'][1], 'kubepods.slice.d', '50-MemoryMax.conf')
    opened = []
    real_open = open
    monkeypatch.setattr('builtins.open', lambda path, *args, **kwargs: opened.append(str(path)) or real_open(
        path, *args, **kwargs))
    assert run_module(node_cgroups, systemd_args(tree, use_receipt=False))['changed'] is False
    assert override not in opened and os.path.exists(override)
    removed = run_module(node_cgroups, systemd_args(tree, state='absent'))
    assert override in opened and not os.path.exists(override)
    assert any(override in change for change in removed["changes"]), removed["changes"]


def test_systemd_driver_without_systemd_fails_before_writing(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    before = snapshot(str(tmp_path))
    for check_mode in (True, False):
        with pytest.raises(Exception) as failure:
            run_module(node_cgroups, systemd_args(tree), check_mode=check_mode)
        assert 'systemd cgroup driver needs systemd as PID 1' in str(failure.value)
    assert snapshot(str(tmp_path)) == before


def test_cgroupfs_driver_warns_about_a_reserved_cgroup_systemd_owns(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch)
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    for check_mode in (True, False):
        run_module(node_cgroups, cgroupfs_args(tree, system_reserved_cgroup='/system.slice'), check_mode=check_mode)
        assert any('systemd owns /system.slice' in w and '/system-reserved' in w for w in warnings)
        del warnings[:]


def test_reserved_cgroups_kept_out_of_swap_under_both_drivers(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    tree.systemd.run_services = True
    result = run_module(node_cgroups, cgroupfs_args(tree, keep_reserved_out_of_swap=True))
    assert read(tree.path('system', 'memory.swap.max')).strip() == '0'
    assert read(tree.path('kube', 'memory.swap.max')).strip() == '0'
    assert read(tree.path('kubepods', 'memory.swap.max')).strip() == 'max'  # pods keep kubelet's rules
    assert 'memory.swap.max 0' in read(result['persistence']['script']).replace("'", '')
    assert not run_module(node_cgroups, cgroupfs_args(tree, keep_reserved_out_of_swap=True))['changed']
    # The kernel is the truth: a value written behind our back is reported, then repaired.
    with open(tree.path('kube', 'memory.swap.max'), 'w') as handle:
        handle.write('max\n')
    checked = run_module(node_cgroups, cgroupfs_args(tree, keep_reserved_out_of_swap=True), check_mode=True)
    assert checked['changed'] and any('memory.swap.max' in str(change) for change in checked['changes'])
    run_module(node_cgroups, cgroupfs_args(tree, keep_reserved_out_of_swap=True))
    assert read(tree.path('kube', 'memory.swap.max')).strip() == '0'

    systemd_tree = FakeCgroupfs(tmp_path / 'systemd', 'v2', monkeypatch)
    run_module(node_cgroups, systemd_args(systemd_tree, keep_reserved_out_of_swap=True))
    units = systemd_tree.node_paths()['systemd_unit_dir']
    for unit_file in ('system.slice.d/50-kubenode-cgroups.conf', 'kube.slice'):
        assert 'MemorySwapMax=0' in read(os.path.join(units, unit_file))
    assert 'MemorySwapMax' not in read(os.path.join(units, 'kubepods.slice'))


def test_the_boot_script_writes_values_children_first():
    """At boot every limit starts at its maximum, so each value lowers it: children before parents."""
    operations = [ops.Operation('mkdir', '/cg/outer', cgroup='system_reserved', depth=1),
                  ops.Operation('mkdir', '/cg/outer/inner', cgroup='kube_reserved', depth=2),
                  ops.Operation('write', '/cg/outer/memory.max', '2048', cgroup='system_reserved', depth=1),
                  ops.Operation('write', '/cg/outer/inner/memory.max', '1024', cgroup='kube_reserved', depth=2)]
    script = boot.script(ops.ordered(operations), 'cgroupfs', 'v2')
    assert script.index('make_dir /cg/outer\n') < script.index('make_dir /cg/outer/inner\n') \
        < script.index('put /cg/outer/inner/memory.max 1024') < script.index('put /cg/outer/memory.max 2048')
