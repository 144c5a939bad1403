# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.module_utils import basic

from ansible_collections.kubenode.cgroups.plugins.modules import cgroup_info, node_cgroups

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs

CONTAINERD_V2 = '''version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = true
'''
CONTAINERD_V3 = '''version = 3
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  SystemdCgroup = false
'''


@pytest.fixture
def no_systemctl(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False: None)


def configs(tmp_path, kubelet=None, containerd=None, crio=None):
    result = {'kubelet_config_paths': [str(tmp_path / 'kubelet.yaml')],
              'containerd_config_path': str(tmp_path / 'containerd.toml'),
              'crio_config_paths': [str(tmp_path / 'crio.conf'), str(tmp_path / 'crio.conf.d/*.conf')]}
    for text, name in ((kubelet, 'kubelet.yaml'), (containerd, 'containerd.toml'), (crio, 'crio.conf')):
        if text is not None:
            (tmp_path / name).write_text(text)
    return result


@pytest.mark.parametrize('mode', ['v2', 'v1', 'hybrid'])
def test_reads_back_what_node_cgroups_wrote(run_module, tmp_path, monkeypatch, mode, no_systemctl):
    tree = FakeCgroupfs(tmp_path, mode, monkeypatch)
    run_module(node_cgroups, {'capacity': {'cpu': '4', 'memory': '16Gi', 'hugepages-2Mi': '0'}, 'cgroup_driver': 'cgroupfs',
                              'cgroupfs_path': tree.root, 'proc_path': tree.proc,
                              'system_reserved': {'memory': '1Gi'}, 'system_reserved_cgroup': '/system',
                              'enforce_node_allocatable': ['pods', 'system-reserved'], **tree.node_paths()})
    result = run_module(cgroup_info, dict(configs(tmp_path), cgroup_driver='cgroupfs', cgroupfs_path=tree.root,
                                          proc_path=tree.proc, system_reserved_cgroup='/system'))
    assert result['cgroup_mode'] == mode and result['changed'] is False
    kubepods = result['cgroups']['kubepods']
    assert kubepods['exists'] and kubepods['kubelet_accepts'] and kubepods['missing'] == []
    # kubepods' values are kubelet's to write when it starts: node_cgroups made the cgroup and left them.
    assert kubepods['resources']['memory'] == 'max'
    assert result['cgroups']['system_reserved']['resources']['memory'] == 1024 ** 3
    assert result['cgroups']['burstable']['resources']['memory'] == 'max'  # v1 9223372036854771712 too
    if mode == 'v2':
        assert kubepods['resources']['cpu_weight'] == 100 and 'hugetlb' in result['v2_controllers']['enabled']
    else:
        assert kubepods['resources']['cpu_shares'] == 1024


def test_missing_v1_hierarchy_is_what_kubelet_rejects(run_module, tmp_path, monkeypatch, no_systemctl):
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch)
    for hierarchy in ('cpu', 'cpuacct', 'memory', 'pids', 'systemd'):  # what systemd makes for a slice
        (tmp_path / 'sys/fs/cgroup' / hierarchy / 'system.slice').mkdir()
    result = run_module(cgroup_info, dict(configs(tmp_path), cgroup_driver='systemd', cgroupfs_path=tree.root,
                                          proc_path=tree.proc, system_reserved_cgroup='/system.slice'))
    reserved = result['cgroups']['system_reserved']
    assert reserved['exists'] and not reserved['kubelet_accepts']
    assert sorted(p.split('/')[-2] for p in reserved['missing']) == ['cpuset', 'hugetlb']  # kubernetes#125763


@pytest.mark.parametrize('kubelet, containerd, crio, expected, mismatch', [
    ('cgroupDriver: systemd\n', CONTAINERD_V2, None, {'kubelet': 'systemd', 'containerd': 'systemd'}, False),
    ('cgroupDriver: systemd\n', CONTAINERD_V3, None, {'kubelet': 'systemd', 'containerd': 'cgroupfs'}, True),
    ("cgroupDriver: 'cgroupfs'  # old\n", None, '[crio.runtime]\ncgroup_manager = "systemd"\n',
     {'kubelet': 'cgroupfs', 'crio': 'systemd'}, True),
    ('kind: KubeletConfiguration\n', 'version = 2\n', None, {'kubelet': 'cgroupfs', 'containerd': 'cgroupfs'}, False),
])
def test_driver_detection(run_module, tmp_path, monkeypatch, no_systemctl, kubelet, containerd, crio, expected,
                          mismatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    result = run_module(cgroup_info, dict(configs(tmp_path, kubelet, containerd, crio), cgroupfs_path=tree.root,
                                          proc_path=tree.proc))
    drivers = result['drivers']
    for source, value in expected.items():
        assert drivers[source]['value'] == value
    assert drivers['mismatch'] is mismatch
    if 'cgroupDriver' in kubelet:
        assert result['cgroup_driver'] == expected['kubelet']  # auto follows kubelet's own setting


def test_unknown_mount_is_a_clear_error(run_module, tmp_path, monkeypatch, no_systemctl):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
    with pytest.raises(ModuleFail) as failure:
        run_module(cgroup_info, dict(configs(tmp_path), cgroupfs_path=str(tmp_path / 'elsewhere'),
                                     proc_path=tree.proc))
    assert 'cgroupfs_path' in failure.value.result['msg']


@pytest.mark.parametrize('mode', ['v2', 'v1'])
def test_reports_the_swap_space_and_the_swap_controller_as_kubelet_tests_it(run_module, tmp_path, monkeypatch, mode,
                                                                            no_systemctl):
    tree = FakeCgroupfs(tmp_path, mode, monkeypatch)
    args = dict(configs(tmp_path), cgroupfs_path=tree.root, proc_path=tree.proc)
    # A partial /proc (no meminfo): unknown, not a failure.
    assert run_module(cgroup_info, args)['swap'] == {'capacity': None, 'controller': None}
    (tmp_path / 'proc/meminfo').write_text('MemTotal:       16384000 kB\nSwapTotal:       2097148 kB\n')
    (tmp_path / 'proc/self/cgroup').write_text('0::/user.slice/session-1.scope\n' if mode == 'v2'
                                               else '4:memory:/user.slice\n0::/user.slice/session-1.scope\n')
    assert run_module(cgroup_info, args)['swap'] == {'capacity': str(2097148 * 1024), 'controller': False}
    if mode == 'v2':
        own = tmp_path / 'sys/fs/cgroup/user.slice/session-1.scope'
        own.mkdir(parents=True)
        (own / 'memory.swap.max').write_text('max\n')
    else:
        (tmp_path / 'sys/fs/cgroup/memory/memory.memsw.limit_in_bytes').write_text('9223372036854771712\n')
    assert run_module(cgroup_info, args)['swap']['controller'] is True


def test_reports_the_oci_runtime_and_its_weight_formula(run_module, tmp_path, monkeypatch, no_systemctl):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    args = dict(configs(tmp_path, containerd=CONTAINERD_V2), cgroupfs_path=tree.root, proc_path=tree.proc)
    # runc not installed: the configuration still names it.
    assert run_module(cgroup_info, args)['oci_runtime'] == {
        'engine': 'containerd', 'runtime': 'runc', 'runtime_type': 'io.containerd.runc.v2', 'binary': 'runc',
        'name': 'runc', 'version': None, 'path': str(tmp_path / 'containerd.toml')}
    runc = tmp_path / 'runc'
    runc.write_text('')
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False: str(runc))
    monkeypatch.setattr(basic.AnsibleModule, 'run_command',
                        lambda self, argv, **kw: (0, 'runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1\n', ''))
    found = run_module(cgroup_info, args)['oci_runtime']
    assert (found['version'], found['formula']) == ('1.1.5+ds1', 'linear')
