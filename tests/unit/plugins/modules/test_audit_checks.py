# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each check of the audit (run/_audit.py) that no step of the run mends, one test each that fails when the check is
removed (found by make mutation): the driver kubelet's own file names (also when the plan went to a drop-in),
systemd's absence under the systemd driver, a plan for a kubelet release the node does not run (older or newer),
what stops the dry run, and an audit that reads only (a target the run could not write is no drift)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import kubelet_config, node_cgroups, node_drift_info
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _preflight
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import kubelet_driver
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_steps

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs
from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
from ansible_collections.kubenode.cgroups.tests.unit.node_files import write_text

SETTINGS = {'capacity': {'cpu': '4', 'memory': '16Gi', 'hugepages-2Mi': '0'}, 'cgroup_driver': 'cgroupfs',
            'system_reserved': {'memory': '1Gi'}, 'system_reserved_cgroup': '/system',
            'enforce_node_allocatable': ['pods', 'system-reserved'], 'kubelet_version': '1.36'}
SYSTEMD_CONTAINERD = ('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
                      '  SystemdCgroup = true\n')


def files_of(tmp_path):
    return {'containerd_config_path': str(tmp_path / 'containerd.toml'), 'crio_config_paths': [str(tmp_path / 'crio.conf')]}


def audit(run_module, tree, tmp_path, plan, **extra):
    args = dict(files_of(tmp_path), plan=plan, cgroupfs_path=tree.root, proc_path=tree.proc, kubelet_binary='')
    args.update(extra)
    return run_module(node_drift_info, args)


def applied_plan(run_module, tree, **extra):
    args = dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, **tree.node_paths())
    args['kubelet_binary'] = ''
    args.update(extra)
    return run_module(node_cgroups, args)['plan']


def test_the_driver_is_read_from_kubelets_own_file_when_the_plan_went_to_a_drop_in(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    main, dropins = str(tmp_path / 'config.yaml'), str(tmp_path / 'conf.d')
    write_text(main, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: cgroupfs\n')
    os.makedirs(dropins)
    plan = applied_plan(run_module, tree)
    run_module(kubelet_config, dict(files_of(tmp_path), plan=plan, path=main, dropin=True, dropin_dir=dropins))
    write_text(files_of(tmp_path)['containerd_config_path'], SYSTEMD_CONTAINERD)
    found = audit(run_module, tree, tmp_path, plan, kubelet_config_path=main, kubelet_config_dropin=True,
                  kubelet_dropin_dir=dropins)['drift']
    assert [d['live'] for d in found if d['item'] == 'cgroup driver'] == ['kubelet=cgroupfs, containerd=systemd']


def test_the_systemd_driver_without_systemd_as_pid_1_is_drift(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    plan = applied_plan(run_module, tree, cgroup_driver='systemd', system_reserved_cgroup='/system.slice')
    with open(os.path.join(tree.proc, '1', 'comm'), 'w') as handle:
        handle.write('init\n')
    found = audit(run_module, tree, tmp_path, plan, check_kubelet_config=False)['drift']
    assert found == [{'item': 'systemd', 'check': 'PID 1', 'live': 'not systemd', 'planned': 'systemd'}]


def test_a_plan_for_an_older_release_than_the_node_runs_is_drift_too(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    binary = tree.node_paths()['kubelet_binary']
    write_text(binary, '#!/bin/sh\n')
    os.chmod(binary, 0o755)
    tree.systemd.kubelet_binaries[binary] = 'Kubernetes v1.37.2'
    args = dict(SETTINGS, cgroupfs_path=tree.root, proc_path=tree.proc, allow_kubelet_version_mismatch=True,
                **tree.node_paths())
    plan = run_module(node_cgroups, args)['plan']
    found = audit(run_module, tree, tmp_path, plan, check_kubelet_config=False, kubelet_binary=binary,
                  **dict((k, v) for k, v in tree.audit_paths().items() if k != 'kubelet_binary'))['drift']
    assert found == [{'item': 'kubelet release', 'check': 'the plan is for it', 'live': '1.37.2', 'planned': '1.36'}]


def test_what_stops_the_dry_run_is_drift_named_by_its_field(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    plan = applied_plan(run_module, tree)

    def stopped(field):
        def present(*args, **kwargs):
            raise KubenodeError('cannot be made', field=field)
        return present
    for field, item, said in (('cgroupfs_path', 'cgroupfs_path', 'cgroupfs_path: cannot be made'),
                              (None, 'node', 'cannot be made')):
        monkeypatch.setattr(_node_steps, 'present', stopped(field))
        found = audit(run_module, tree, tmp_path, plan, check_kubelet_config=False)['drift']
        assert {'item': item, 'check': 'can be made to match the plan', 'live': said, 'planned': 'the plan'} in found


def test_the_audit_only_reads_a_target_the_run_could_not_write_is_no_drift(run_module, tmp_path, monkeypatch):
    """node_cgroups refuses up front a target it cannot write (nothing written); the audit writes nothing, so that
    check is not its business (present's check_writes)."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    plan = applied_plan(run_module, tree)
    monkeypatch.setattr(_preflight, 'writable_directory_problem', lambda directory, room=True:
                        '%s is on a read-only filesystem' % directory)
    with pytest.raises(ModuleFail) as refused:
        applied_plan(run_module, tree)
    assert 'is on a read-only filesystem' in refused.value.result['msg']
    assert refused.value.result['msg'].endswith('Nothing was written.')
    found = audit(run_module, tree, tmp_path, plan, check_kubelet_config=False)['drift']
    assert [d for d in found if 'read-only' in d['live']] == []


def test_kubelets_driver_is_its_merged_configurations(tmp_path):
    """kubelet merges its --config-dir drop-ins over its file in name order: the last one to set cgroupDriver wins."""
    main, dropins = str(tmp_path / 'config.yaml'), tmp_path / 'conf.d'
    write_text(main, 'kind: KubeletConfiguration\ncgroupDriver: systemd\n')
    write_text(str(dropins / '10-a.conf'), 'cgroupDriver: cgroupfs\n')
    write_text(str(dropins / '20-b.conf'), 'maxPods: 10\n')
    assert kubelet_driver([main], dropin_dir=str(dropins)) == {
        'value': 'cgroupfs', 'path': str(dropins / '10-a.conf'), 'source': 'config'}
    assert kubelet_driver([main])['value'] == 'systemd'
