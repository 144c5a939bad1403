# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A node seen under a root (node_root): every path the node names - kubelet's --config and --config-dir,
its binary, its unit's EnvironmentFile= files, a running kubelet's command line - is read under the root, and
nothing outside the root is planned or written."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import kubelet_config, node_cgroups, node_drift_info

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args, snapshot
from ansible_collections.kubenode.cgroups.tests.unit.node_files import read_yaml, write_text

DATA = os.path.join(os.path.dirname(__file__), '..', '..', 'data')
CAPACITY = {'cpu': '4', 'memory': '16Gi', 'pid': '100000', 'hugepages-2Mi': '0'}
# The node's own paths, as its unit files, environment files and command lines name them.
KUBESPRAY_CONFIG = '/etc/kubernetes/kubelet-config.yaml'
KUBEADM_CONFIG = '/var/lib/kubelet/config.yaml'
KUBEADM_EXEC = ('{ path=/usr/bin/kubelet ; argv[]=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS '
                '$KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; '
                'pid=0 ; code=(null) ; status=0/0 }')
KUBESPRAY_EXEC = ('{ path=/usr/local/bin/kubelet ; argv[]=/usr/local/bin/kubelet $KUBE_LOG_LEVEL $KUBELET_ARGS ; '
                  'ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }')
KUBESPRAY_TEXT = ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n'
                  'maxPods: 58\n')


def under(tmp_path, node_path):
    return str(tmp_path / node_path.lstrip('/'))


def args(tree, tmp_path, **extra):
    base = dict(kube_reserved={}, system_reserved_cgroup=None, kube_reserved_cgroup=None,
                enforce_node_allocatable=['pods'], cgroup_driver='systemd', kubelet_config={},
                containerd_config_path=str(tmp_path / 'etc/containerd/config.toml'), crio_config_paths=[],
                system_reserved={'cpu': '500m', 'memory': '1Gi'}, node_root=str(tmp_path), kubelet_binary=None)
    base.update(extra)
    result = node_cgroups_args(tree, CAPACITY, **base)
    if result.get('kubelet_binary') is None:
        result.pop('kubelet_binary')
    return result


def running_kubelet(tmp_path, *flags):
    """A kubelet process as /proc shows it: its command line names the node's own paths."""
    write_text(str(tmp_path / 'proc/4242/comm'), 'kubelet\n')
    write_text(str(tmp_path / 'proc/4242/cmdline'), '\0'.join(('/usr/bin/kubelet',) + flags) + '\0')


def test_a_running_kubelets_config_is_read_and_written_under_the_root(run_module, tmp_path, monkeypatch):
    """The layout docs/testing.md describes: PID 1 is not systemd, kubelet's --config is found in its cmdline."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    running_kubelet(tmp_path, '--config=%s' % KUBESPRAY_CONFIG)
    config = under(tmp_path, KUBESPRAY_CONFIG)
    write_text(config, KUBESPRAY_TEXT.replace('systemd', 'cgroupfs'))
    planned = run_module(node_cgroups, dict(args(tree, tmp_path, cgroup_driver='cgroupfs'), _ansible_diff=True),
                         check_mode=True)
    assert planned['kubelet_config']['path'] == config
    assert planned['kubelet_config']['choice']['reason'] == 'the --config of the running kubelet (pid 4242)'
    assert planned['diff'][-1]['before_header'] == config
    done = run_module(node_cgroups, args(tree, tmp_path, cgroup_driver='cgroupfs'))
    assert done['kubelet_config']['path'] == config
    assert read_yaml(config)['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    # the root's own file may be named: it is the one kubelet reads
    again = run_module(node_cgroups, args(tree, tmp_path, cgroup_driver='cgroupfs', kubelet_config={'path': config}),
                       check_mode=True)
    assert again['kubelet_config']['path'] == config and not again['kubelet_config']['changed']


def test_the_nodes_own_path_outside_the_root_is_refused_and_nothing_is_written(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    running_kubelet(tmp_path, '--config', KUBESPRAY_CONFIG)
    write_text(under(tmp_path, KUBESPRAY_CONFIG), KUBESPRAY_TEXT)
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, tmp_path, kubelet_config={'path': KUBESPRAY_CONFIG}))
    assert failure.value.result['msg'] == (
        'kubelet_config.kubelet_config_path: lies outside node_root %s: with a node root, nothing outside it is '
        "read as the node's or written (got \"%s\"). Nothing was written." % (tmp_path, KUBESPRAY_CONFIG))
    assert snapshot(str(tmp_path)) == before


@pytest.mark.parametrize('option, value', [
    ('persist_script', '/usr/local/sbin/kubenode-restore'),
    ('systemd_unit_dir', '/usr/lib/systemd/system'),
    ('lock_path', '/run/lock/other.lock'),
    ('kubelet_root_dir', '/srv/kubelet'),
])
def test_a_path_option_outside_the_root_is_refused(run_module, tmp_path, monkeypatch, option, value):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, tmp_path, **{option: value}))
    assert failure.value.result['msg'].startswith('%s: lies outside node_root %s' % (option, tmp_path))
    assert snapshot(str(tmp_path)) == before
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args(tree, tmp_path, systemd_control_dirs=['/etc/systemd/system.control']))
    assert failure.value.result['msg'].startswith('systemd_control_dirs[0]: lies outside node_root')
    assert snapshot(str(tmp_path)) == before


def test_path_options_left_at_their_defaults_are_the_nodes_under_the_root(run_module, tmp_path, monkeypatch):
    """node_root alone is enough: every path option at its default (this machine's path) is taken under it."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    given = args(tree, tmp_path, capacity=None)
    for name in ('systemd_unit_dir', 'systemd_control_dirs', 'persist_script', 'lock_path', 'kubelet_root_dir',
                 'kubelet_config_paths', 'containerd_config_path', 'cgroupfs_path', 'proc_path'):
        given.pop(name)
    write_text(str(tmp_path / 'proc/meminfo'), 'MemTotal:       16384000 kB\n')
    write_text(str(tmp_path / 'proc/sys/kernel/pid_max'), '4194304\n')
    write_text(str(tmp_path / 'proc/sys/kernel/threads-max'), '4194304\n')
    write_text(str(tmp_path / 'sys/devices/system/cpu/online'), '0-3\n')
    result = run_module(node_cgroups, given)
    assert result['kubelet_config']['path'] == under(tmp_path, KUBEADM_CONFIG)
    assert os.path.isfile(under(tmp_path, '/usr/local/libexec/kubenode-cgroups-restore'))
    assert os.path.isfile(under(tmp_path, '/etc/systemd/system/kubenode-cgroups.service'))


def test_kubeadms_unit_and_environment_files_are_read_under_the_root(run_module, tmp_path, monkeypatch):
    """kubeadm: 10-kubeadm.conf's Environment= names --config, kubeadm-flags.env and /etc/default/kubelet
    are EnvironmentFile=s, the latter with --config-dir: all node paths, all found under the root."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = under(tmp_path, KUBEADM_CONFIG)
    os.makedirs(os.path.dirname(config))
    shutil.copy(os.path.join(DATA, 'kubeadm-kubelet-config.yaml'), config)
    write_text(under(tmp_path, '/var/lib/kubelet/kubeadm-flags.env'),
               'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n')
    write_text(under(tmp_path, '/etc/default/kubelet'), 'KUBELET_EXTRA_ARGS=--config-dir=/etc/kubernetes/kubelet.conf.d\n')
    os.makedirs(under(tmp_path, '/etc/kubernetes/kubelet.conf.d'))
    tree.systemd.shown['kubelet.service'] = {
        'LoadState': 'loaded', 'ExecStart': KUBEADM_EXEC,
        'Environment': 'KUBELET_CONFIG_ARGS=--config=%s' % KUBEADM_CONFIG,
        'EnvironmentFiles': ['/var/lib/kubelet/kubeadm-flags.env (ignore_errors=yes)',
                             '/etc/default/kubelet (ignore_errors=yes)']}
    tree.systemd.start_service('kubelet.service', seconds_ago=600)
    binary = under(tmp_path, '/usr/bin/kubelet')
    write_text(binary, '#!/bin/sh\n')
    os.chmod(binary, 0o755)
    tree.systemd.kubelet_binaries[binary] = 'Kubernetes v1.36.2'
    result = run_module(node_cgroups, args(tree, tmp_path))
    dropin_dir = under(tmp_path, '/etc/kubernetes/kubelet.conf.d')
    assert result['kubelet_config']['choice'] == {
        'path': config, 'dropin': True, 'dropin_dir': dropin_dir,
        'reason': 'the --config of the kubelet.service unit; a drop-in in --config-dir %s' % dropin_dir}
    assert read_yaml(os.path.join(dropin_dir, '50-kubenode.conf'))['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    # the release is the answer of the root's kubelet binary, the one the unit starts
    assert result['plan']['kubelet_version'] == '1.36'
    assert binary + ' --version' in tree.systemd.calls
    audit = run_module(node_drift_info, {
        'plan': result['plan'], 'cgroupfs_path': tree.root, 'proc_path': tree.proc, 'services': [],
        'node_root': str(tmp_path), 'containerd_config_path': str(tmp_path / 'etc/containerd/config.toml'),
        'crio_config_paths': [], 'systemd_control_dirs': tree.node_paths()['systemd_control_dirs'],
        'systemd_unit_dir': tree.node_paths()['systemd_unit_dir'],
        'persist_script': tree.node_paths()['persist_script'], 'kubelet_root_dir': tree.node_paths()['kubelet_root_dir'],
        'kubelet_config_paths': tree.node_paths()['kubelet_config_paths']})
    assert audit['kubelet_config']['dropin'] is True


def test_kubesprays_kubelet_env_is_read_under_the_root(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = under(tmp_path, KUBESPRAY_CONFIG)
    write_text(config, KUBESPRAY_TEXT)
    write_text(under(tmp_path, '/etc/kubernetes/kubelet.env'),
               'KUBE_LOG_LEVEL="--v=2"\nKUBELET_ARGS="--config=%s \\\n --kubeconfig=/etc/kubernetes/kubelet.conf"\n'
               % KUBESPRAY_CONFIG)
    tree.systemd.shown['kubelet.service'] = {'LoadState': 'loaded', 'ExecStart': KUBESPRAY_EXEC, 'Environment': '',
                                             'EnvironmentFiles': '/etc/kubernetes/kubelet.env (ignore_errors=yes)'}
    result = run_module(node_cgroups, args(tree, tmp_path), check_mode=True)
    assert result['kubelet_config']['path'] == config
    assert result['kubelet_config']['choice']['reason'] == 'the --config of the kubelet.service unit'
    # kubelet_config, the module, finds the same file
    alone = run_module(kubelet_config, {
        'proc_path': tree.proc, 'node_root': str(tmp_path), 'kubelet_settings': {'maxPods': 58},
        'containerd_config_path': str(tmp_path / 'etc/containerd/config.toml'), 'crio_config_paths': []},
        check_mode=True)
    assert alone['path'] == config and not alone['changed']
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, {'proc_path': '/host/proc', 'node_root': str(tmp_path), 'crio_config_paths': [],
                                    'containerd_config_path': str(tmp_path / 'etc/containerd/config.toml')})
    assert failure.value.result['msg'].startswith('proc_path: lies outside node_root')


def test_the_systemd_drivers_slices_under_a_root_without_systemd_are_written_and_audited_as_files(
        run_module, tmp_path, monkeypatch):
    """Issue 51: a fake node or an image (PID 1 not systemd) with the systemd driver: the slice units are written under
    the root and no systemd is asked; the audit finds no drift, although the kube-reserved slice's cgroup appears only
    when the node's systemd boots (kubelet's Validate meets it then, not now)."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    for cgroup in ('kubepods.slice', 'kubepods.slice/kubepods-burstable.slice',
                   'kubepods.slice/kubepods-besteffort.slice'):
        os.makedirs(os.path.join(tree.root, cgroup))
    options = args(tree, tmp_path, kube_reserved={'memory': '1Gi'}, kube_reserved_cgroup='/kube.slice',
                   cgroups=['kubepods', 'burstable', 'besteffort', 'kube_reserved'], kubelet_binary='')
    done = run_module(node_cgroups, options)
    assert os.path.isfile(under(tmp_path, '/etc/systemd/system/kube.slice'))
    assert not os.path.isdir(os.path.join(tree.root, 'kube.slice'))
    assert tree.systemd is None and not [c for c in done['changes'] if 'systemctl' in c or 'daemon-reload' in c]
    keys = ('cgroupfs_path', 'proc_path', 'node_root', 'containerd_config_path', 'crio_config_paths',
            'systemd_control_dirs', 'systemd_unit_dir', 'persist_script', 'kubelet_root_dir')
    audit = run_module(node_drift_info, dict(
        dict((key, options[key]) for key in keys if key in options),
        plan=done['plan'], services=[], kubelet_config_paths=tree.node_paths()['kubelet_config_paths']))
    assert audit['drift'] == []
