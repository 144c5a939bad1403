# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups on fake cgroup v1, v2 and hybrid trees; systemctl is recorded, never run."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import os
import shutil

import pytest
import yaml

from ansible.module_utils import basic

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args, snapshot

DATA = os.path.join(os.path.dirname(__file__), '..', '..', 'data')
GI = 1024 ** 3
CAPACITY = {'cpu': '4', 'memory': '16Gi', 'pid': '100000', 'hugepages-2Mi': '0', 'hugepages-1Gi': '0'}


@pytest.fixture(params=['v2', 'v1', 'hybrid'])
def tree(request, tmp_path, monkeypatch):
    return FakeCgroupfs(tmp_path, request.param, monkeypatch)


def args(tree, **extra):
    return node_cgroups_args(tree, CAPACITY, **extra)


def file_in(tree, controller, relative, name):
    if tree.mode == 'v2':
        return tree.read(relative.strip('/'), name)
    return tree.read(controller, relative.strip('/'), name)


def test_check_apply_verify_rerun(run_module, tree):
    before = snapshot(tree.root)
    checked = run_module(node_cgroups, args(tree), check_mode=True)
    assert checked['changed'] and checked['changes']
    assert snapshot(tree.root) == before  # check mode touched nothing

    applied = run_module(node_cgroups, args(tree))
    assert applied['changed'] and applied['cgroup_mode'] == tree.mode
    allocatable_memory = 16 * GI - GI - 512 * 1024 ** 2
    # What kubelet writes into kubepods when it starts: planned, shown, left to kubelet.
    assert applied['plan']['cgroups']['kubepods']['resources']['memory'] == allocatable_memory
    assert applied['plan']['cgroups']['kubepods']['resources']['cpu_shares'] == 3328  # 3250m
    if tree.mode == 'v2':
        assert set(tree.read('cgroup.subtree_control').split()) >= {'cpu', 'cpuset', 'memory', 'hugetlb', 'pids'}
        assert tree.read('kubepods', 'cgroup.subtree_control').split() == ['cpu', 'cpuset', 'hugetlb', 'memory', 'pids']
        assert tree.read('kubepods', 'cpu.weight') == '100' and tree.read('kubepods', 'memory.max') == 'max'
        assert tree.read('kubepods', 'burstable', 'cpu.weight') == '100'
        assert tree.read('system', 'hugetlb.2MB.max') == '0'
        assert tree.read('system', 'pids.max') == '1000'
    else:
        for hierarchy in ('cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'systemd', 'hugetlb'):
            for relative in ('kubepods', 'kubepods/burstable', 'kubepods/besteffort', 'system', 'kube'):
                assert os.path.isdir(tree.path(hierarchy, relative)), (hierarchy, relative)
        assert tree.read('cpuset', 'kubepods', 'burstable', 'cpuset.cpus') == '0-3'  # inherited
        assert tree.read('cpu', 'kubepods', 'cpu.shares') == '1024'  # kubelet's to write
        assert tree.read('memory', 'kube', 'memory.limit_in_bytes') == str(512 * 1024 ** 2)
    assert file_in(tree, 'memory', '/system', 'memory.max' if tree.mode == 'v2' else 'memory.limit_in_bytes') \
        == str(GI)

    again = run_module(node_cgroups, args(tree))
    assert again['changed'] is False and again['changes'] == []
    assert run_module(node_cgroups, args(tree), check_mode=True)['changed'] is False


def test_kernel_page_rounding_does_not_cause_endless_changes(run_module, tree):
    odd = args(tree, system_reserved={'memory': '1000000001'}, enforce_node_allocatable=['pods', 'system-reserved'])
    run_module(node_cgroups, odd)
    stored = file_in(tree, 'memory', '/system', 'memory.max' if tree.mode == 'v2' else 'memory.limit_in_bytes')
    assert stored == str(1000000001 // 4096 * 4096)
    assert run_module(node_cgroups, odd)['changed'] is False


class _Kernel(object):
    """A CgroupSnapshot stand-in: every directory exists, files hold what the dict says."""

    def __init__(self, values):
        self.values = values

    def isdir(self, path):
        return True

    def read(self, path):
        return self.values.get(path, '')

    def exists(self, path):
        return True


@pytest.mark.parametrize('parent, child, first', [(8, 4, 'child'), (32, 16, 'parent')])
def test_limits_grow_parents_first_and_shrink_children_first(parent, child, first):
    """A nested pair of managed cgroups (a kube-reserved slice inside another): the kernel never sees a child
    above its parent, whichever way the limits move from 16Gi and 8Gi."""
    root = '/fake/cgroup'
    entries = [('system_reserved', PlannedCgroup('system_reserved', '/outer', v2_files={'memory.max': str(parent * GI)})),
               ('kube_reserved', PlannedCgroup('kube_reserved', '/outer/inner', v2_files={'memory.max': str(child * GI)}))]
    kernel = _Kernel({root + '/outer/memory.max': str(16 * GI), root + '/outer/inner/memory.max': str(8 * GI)})
    operations = ops.plan_cgroupfs(entries, ops.CgroupfsTarget(CgroupLayout('v2', {}, root), root, []), None, kernel)
    order = [o.cgroup for o in operations if o.kind == 'write']
    assert order == (['kube_reserved', 'system_reserved'] if first == 'child' else ['system_reserved', 'kube_reserved'])


@pytest.mark.parametrize('code, text', [(errno.EBUSY, 'Device or resource busy'), (errno.EACCES, 'Permission denied'),
                                        (errno.EROFS, 'Read-only file system')])
def test_kernel_refusal_names_file_value_and_error_then_converges(run_module, tmp_path, monkeypatch, code, text):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    run_module(node_cgroups, args(tree, enforce_node_allocatable=[]))
    target = tree.path('system', 'memory.max')
    tree.fail(target, code)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree))
    message = failure.value.result['msg']
    assert target in message and str(GI) in message and text in message
    # An honest partial result: changed, what was applied, the step that failed, and what to do.
    result = failure.value.result
    assert result['applied'] and result['changed'] is True
    assert result['failed_step'].startswith('write %s' % target) and 'run again to complete' in message
    del tree.failures[target]
    assert run_module(node_cgroups, args(tree))['changed'] is True
    assert run_module(node_cgroups, args(tree))['changed'] is False


def test_absent_removes_and_refuses_busy_cgroups(run_module, tree):
    run_module(node_cgroups, args(tree))
    kube_procs = tree.path('kube', 'cgroup.procs') if tree.mode == 'v2' else tree.path('cpu', 'kube', 'cgroup.procs')
    with open(kube_procs, 'w') as handle:
        handle.write('4242\n')
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, state='absent'))
    assert 'processes are still inside' in failure.value.result['msg']
    assert os.path.isdir(os.path.dirname(kube_procs))  # nothing removed
    with open(kube_procs, 'w') as handle:
        handle.write('')
    removed = run_module(node_cgroups, args(tree, state='absent'))
    assert removed['changed']
    assert not os.path.exists(tree.path('kubepods')) and not os.path.exists(tree.path('cpu', 'kubepods'))
    assert run_module(node_cgroups, args(tree, state='absent'))['changed'] is False


@pytest.mark.parametrize('name', ['/kube/../../etc', '/kube//x', '/kube/./x'])
def test_unsafe_paths_are_refused_before_anything_is_touched(run_module, tmp_path, monkeypatch, name):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    before = snapshot(tree.root)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, kube_reserved_cgroup=name))
    assert name in failure.value.result['msg']
    assert snapshot(tree.root) == before


def test_diff_shows_before_and_after(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    run_module(node_cgroups, args(tree, enforce_node_allocatable=[]))
    result = run_module(node_cgroups, dict(args(tree), _ansible_diff=True), check_mode=True)
    memory = [d for d in result['diff'] if d['before_header'].endswith('system/memory.max')][0]
    assert memory['before'] == 'max\n' and memory['after'] == '%d\n' % GI


def test_systemd_driver_writes_units_reloads_once_and_starts(run_module, tree, tmp_path, monkeypatch):
    unit_dir = str(tmp_path / 'etc/systemd/system')
    systemd = tree.systemd
    options = args(tree, cgroup_driver='systemd', system_reserved_cgroup='/system.slice',
                   kube_reserved_cgroup='/kube.slice/kube-reserved.slice', systemd_unit_dir=unit_dir)
    result = run_module(node_cgroups, options)
    assert result['managed']['kube_reserved'] == '/kube.slice/kube-reserved.slice'
    assert systemd.calls.count('daemon-reload') == 1
    assert 'start kubepods-burstable.slice' in systemd.calls
    with open(os.path.join(unit_dir, 'kubepods.slice')) as handle:
        unit = handle.read()
    # kubepods' unit makes the slice; kubelet sets its values over D-Bus when it starts.
    assert unit.endswith('[Slice]\n') and 'CPU' not in unit and 'Memory' not in unit
    dropin = os.path.join(unit_dir, 'system.slice.d', '50-kubenode-cgroups.conf')
    with open(dropin) as handle:
        assert ('MemoryMax=%d' if tree.mode == 'v2' else 'MemoryLimit=%d') % GI in handle.read()
    if tree.mode != 'v2':
        # systemd makes no cpuset or hugetlb directories for slices on v1 (kubernetes#125763).
        assert os.path.isdir(tree.path('cpuset', 'kube.slice', 'kube-reserved.slice'))
        assert tree.read('cpuset', 'kube.slice', 'kube-reserved.slice', 'cpuset.cpus') == '0-3'
        assert os.path.isdir(tree.path('hugetlb', 'kubepods.slice', 'kubepods-besteffort.slice'))
    del systemd.calls[:]
    again = run_module(node_cgroups, options)
    assert again['changed'] is False and 'daemon-reload' not in systemd.calls
    # A runtime override behind our back is drift: the override goes, and the unit file's value is back ...
    prop = 'MemoryMax' if tree.mode == 'v2' else 'MemoryLimit'
    systemd.set_property('kube-reserved.slice', prop, '1')
    override = os.path.join(systemd.runtime_control, 'kube-reserved.slice.d', '50-%s.conf' % prop)
    # ... but kubepods' are kubelet's (it sets them over D-Bus at every start): they stay.
    systemd.set_property('kubepods.slice', prop, str(15 * GI))
    kubelets = os.path.join(systemd.runtime_control, 'kubepods.slice.d', '50-%s.conf' % prop)
    checked = run_module(node_cgroups, options, check_mode=True)
    assert any(c.startswith('remove %s' % override) for c in checked['changes']) and os.path.exists(override)
    assert not any(kubelets in c for c in checked['changes'])
    fixed = run_module(node_cgroups, options)
    assert fixed['changed'] and not os.path.exists(override) and os.path.exists(kubelets)
    assert systemd.properties['kube-reserved.slice'][prop] != '1'
    assert run_module(node_cgroups, options)['changed'] is False


def test_cgroupfs_driver_on_systemd_v2_host_warns(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    run_module(node_cgroups, args(tree))
    assert any('daemon-reload' in w for w in warnings)
    del warnings[:]
    other = FakeCgroupfs(tmp_path / 'plain', 'v2', monkeypatch, pid1='init')
    run_module(node_cgroups, args(other))
    assert not any('daemon-reload' in w for w in warnings)
    assert [w for w in warnings if 'after a reboot' in w]  # and no boot script without systemd


def test_plan_for_another_driver_is_refused(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    plan = {'cgroup_driver': 'systemd', 'cgroups': {}}
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, plan=plan))
    assert 'computed for the systemd cgroup driver' in failure.value.result['msg']


def test_services_are_placed_in_the_kube_reserved_slice(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    unit_dir = str(tmp_path / 'etc/systemd/system')
    systemd = tree.systemd
    options = args(tree, cgroup_driver='systemd', system_reserved_cgroup='/system.slice',
                   kube_reserved_cgroup='/kube.slice', systemd_unit_dir=unit_dir,
                   services=['containerd', 'kubelet', 'crio'])
    result = run_module(node_cgroups, options)
    assert result['services_changed'] == ['containerd.service', 'kubelet.service']
    assert result['services_not_installed'] == ['crio.service']
    with open(os.path.join(unit_dir, 'kubelet.service.d', '50-kubenode-slice.conf')) as handle:
        assert 'Slice=kube.slice' in handle.read()
    assert systemd.calls.count('daemon-reload') == 1
    again = run_module(node_cgroups, options)
    assert again['changed'] is False and again['services_changed'] == []
    removed = run_module(node_cgroups, dict(options, state='absent'))
    assert 'kubelet.service' in removed['services_changed']
    assert not os.path.exists(os.path.join(unit_dir, 'kubelet.service.d', '50-kubenode-slice.conf'))


def test_services_are_only_looked_up_with_the_cgroupfs_driver(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    systemd = tree.systemd
    result = run_module(node_cgroups, args(tree, services=['containerd', 'crio']))
    assert result['services_changed'] == [] and result['services_not_installed'] == ['crio.service']
    assert not any(c.startswith('start') for c in systemd.calls)  # no slice: only the boot unit is reloaded
    no_systemd = FakeCgroupfs(tmp_path / 'plain', 'v2', monkeypatch, pid1='init')
    plain = run_module(node_cgroups, args(no_systemd, services=['containerd']))
    assert plain['services_not_installed'] == ['containerd.service']


def test_services_need_a_kube_reserved_slice_with_systemd(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, cgroup_driver='systemd', system_reserved_cgroup='/system.slice',
                                      kube_reserved_cgroup=None, enforce_node_allocatable=['pods'],
                                      services=['containerd']))
    assert 'kube_reserved' in failure.value.result['msg']


@pytest.fixture
def kubelet_files(tmp_path):
    """kubeadm's kubelet config and no container runtime config, under tmp_path."""
    config = tmp_path / 'kubelet' / 'config.yaml'
    config.parent.mkdir()
    shutil.copy(os.path.join(DATA, 'kubeadm-kubelet-config.yaml'), str(config))
    return {'containerd_config_path': str(tmp_path / 'containerd.toml'),
            'crio_config_paths': [str(tmp_path / 'crio.conf')],
            'kubelet_config': {'path': str(config), 'dropin_dir': str(tmp_path / 'kubelet.conf.d')}}


def test_kubelet_config_is_written_in_the_same_round_trip(run_module, tmp_path, monkeypatch, kubelet_files):
    tree = FakeCgroupfs(tmp_path / 'cg', 'v2', monkeypatch)
    config_path = kubelet_files['kubelet_config']['path']
    with open(config_path) as handle:
        original = handle.read()
    checked = run_module(node_cgroups, dict(args(tree, **kubelet_files), _ansible_diff=True), check_mode=True)
    assert checked['kubelet_config']['changed'] and 'write %s' % config_path in checked['changes']
    assert [d for d in checked['diff'] if d['before_header'] == config_path][0]['before'] == original
    with open(config_path) as handle:
        assert handle.read() == original  # check mode wrote nothing

    applied = run_module(node_cgroups, args(tree, **kubelet_files))
    with open(config_path) as handle:
        config = yaml.safe_load(handle)
    assert config['systemReserved'] == {'cpu': '500m', 'memory': '1Gi', 'pid': '1k'}  # canonical form
    assert config['kubeReserved'] == {'cpu': '250m', 'memory': '512Mi'}
    assert config['enforceNodeAllocatable'] == ['pods', 'system-reserved', 'kube-reserved']
    assert (config['cgroupDriver'], config['kubeReservedCgroup']) == ('cgroupfs', '/kube')
    assert config['clusterDNS'] == ['10.96.0.10']  # the file's other keys are kept
    assert applied['kubelet_config']['config']['systemReservedCgroup'] == '/system'
    assert tree.read('kube', 'memory.max') == str(512 * 1024 ** 2)

    again = run_module(node_cgroups, args(tree, **kubelet_files))
    assert again['changed'] is False and again['kubelet_config']['changed'] is False


def test_kubelet_config_drop_in_with_extra_settings(run_module, tmp_path, monkeypatch, kubelet_files):
    tree = FakeCgroupfs(tmp_path / 'cg', 'v2', monkeypatch)
    kubelet_files['kubelet_config'].update(dropin=True, settings={'podPidsLimit': 4096})
    result = run_module(node_cgroups, args(tree, **kubelet_files))
    dropin = os.path.join(kubelet_files['kubelet_config']['dropin_dir'], '50-kubenode.conf')
    with open(dropin) as handle:
        written = yaml.safe_load(handle)
    assert result['kubelet_config']['path'] == dropin
    assert written['podPidsLimit'] == 4096 and written['kubeReservedCgroup'] == '/kube'


@pytest.mark.parametrize('kubelet_config, message', [
    ({'settings': {'maxPods': -1}}, 'maxPods'),
    ({'settings': {'clusterDNS': ['10.0.0.10']}}, 'kubelet_config.kubelet_settings: is a KubeletConfiguration field'),
    ({'settings': {'noSuchKey': 1}}, 'kubelet_config.kubelet_settings: kubelet does not know'),
    ({'dropin': True, 'dropin_name': '../evil.conf'}, 'kubelet_config.kubelet_dropin_name'),
])
def test_a_refused_kubelet_config_leaves_the_node_untouched(
        run_module, tmp_path, monkeypatch, kubelet_files, kubelet_config, message):
    tree = FakeCgroupfs(tmp_path / 'cg', 'v2', monkeypatch)
    kubelet_files['kubelet_config'].update(kubelet_config)
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, **kubelet_files))
    assert message in failure.value.result['msg']
    assert failure.value.result['applied'] == []
    assert snapshot(str(tmp_path)) == before


def test_kubelet_config_is_refused_with_state_absent(run_module, tmp_path, monkeypatch, kubelet_files):
    tree = FakeCgroupfs(tmp_path / 'cg', 'v2', monkeypatch)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, state='absent', **kubelet_files))
    assert 'kubelet configuration' in failure.value.result['msg'] and 'state=absent' in failure.value.result['msg']
