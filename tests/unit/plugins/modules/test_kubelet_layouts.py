# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Real node layouts: the kubelet configuration kubelet really reads (kubeadm, kubeadm with --config-dir,
kubespray), and what would keep kubelet from starting, refused before anything is written."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil

import pytest
from ansible.module_utils import basic

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _node_snapshot
from ansible_collections.kubenode.cgroups.plugins.modules import kubelet_config, node_cgroups, node_drift_info

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args, snapshot
from ansible_collections.kubenode.cgroups.tests.unit.node_files import digest, read_yaml, write_text

DATA = os.path.join(os.path.dirname(__file__), '..', '..', 'data')
CAPACITY = {'cpu': '4', 'memory': '16Gi', 'pid': '100000', 'hugepages-2Mi': '0'}
KUBEADM_EXEC = ('{ path=/usr/bin/kubelet ; argv[]=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS '
                '$KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; '
                'pid=0 ; code=(null) ; status=0/0 }')
KUBESPRAY_EXEC = ('{ path=/usr/local/bin/kubelet ; argv[]=/usr/local/bin/kubelet $KUBE_LOGTOSTDERR $KUBE_LOG_LEVEL '
                  '$KUBELET_ARGS $KUBELET_CLOUDPROVIDER ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; '
                  'pid=0 ; code=(null) ; status=0/0 }')
KUBESPRAY_CONFIG = """\
# Ansible managed: kubespray's roles/kubernetes/node/templates/kubelet-config.v1beta1.yaml.j2
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
nodeStatusUpdateFrequency: "10s"
failSwapOn: True
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: True
  x509:
    clientCAFile: /etc/kubernetes/ssl/ca.crt
# the cluster's DNS
clusterDNS:
- 169.254.25.10
cgroupDriver: systemd
maxPods: 58
"""


def kubeadm_node(tree, tmp_path, config_dir=True):
    """kubeadm's kubelet.service: 10-kubeadm.conf's Environment=, kubeadm-flags.env, /etc/default/kubelet."""
    config = str(tmp_path / 'var/lib/kubelet/config.yaml')
    os.makedirs(os.path.dirname(config))
    shutil.copy(os.path.join(DATA, 'kubeadm-kubelet-config.yaml'), config)
    flags = str(tmp_path / 'var/lib/kubelet/kubeadm-flags.env')
    write_text(flags, 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n')
    default = str(tmp_path / 'etc/default/kubelet')
    dropin_dir = str(tmp_path / 'etc/kubernetes/kubelet.conf.d')
    write_text(default, 'KUBELET_EXTRA_ARGS=--config-dir=%s\n' % dropin_dir if config_dir else 'KUBELET_EXTRA_ARGS=\n')
    if config_dir:
        os.makedirs(dropin_dir)
    tree.systemd.shown['kubelet.service'] = {
        'LoadState': 'loaded', 'ExecStart': KUBEADM_EXEC,
        'Environment': '"KUBELET_KUBECONFIG_ARGS=--kubeconfig=/etc/kubernetes/kubelet.conf" '
                       'KUBELET_CONFIG_ARGS=--config=%s' % config,
        'EnvironmentFiles': ['%s (ignore_errors=yes)' % flags, '%s (ignore_errors=yes)' % default]}
    tree.systemd.start_service('kubelet.service', seconds_ago=600)
    return config, dropin_dir


def kubespray_node(tree, tmp_path):
    config = str(tmp_path / 'etc/kubernetes/kubelet-config.yaml')
    write_text(config, KUBESPRAY_CONFIG)
    env = str(tmp_path / 'etc/kubernetes/kubelet.env')
    write_text(env, 'KUBE_LOG_LEVEL="--v=2"\nKUBELET_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf '
               '--config=%s --kubeconfig=/etc/kubernetes/kubelet.conf"\n' % config)
    tree.systemd.shown['kubelet.service'] = {'LoadState': 'loaded', 'ExecStart': KUBESPRAY_EXEC, 'Environment': '',
                                             'EnvironmentFiles': '%s (ignore_errors=yes)' % env}
    tree.systemd.start_service('kubelet.service', seconds_ago=600)
    return config


def node_args(tree, tmp_path, kubelet=None, **extra):
    """The usual fake node, on the systemd driver with only pods enforced, writing kubelet's configuration."""
    base = dict(kube_reserved={}, system_reserved_cgroup=None, kube_reserved_cgroup=None,
                enforce_node_allocatable=['pods'], cgroup_driver='systemd', kubelet_config=dict(kubelet or {}),
                containerd_config_path=str(tmp_path / 'none.toml'), crio_config_paths=[],
                system_reserved={'cpu': '500m', 'memory': '1Gi'})
    base.update(extra)
    return node_cgroups_args(tree, CAPACITY, **base)


def test_kubeadm_node_with_config_dir_gets_a_dropin_and_keeps_its_main_file(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config, dropin_dir = kubeadm_node(tree, tmp_path)
    before = digest(config)
    result = run_module(node_cgroups, node_args(tree, tmp_path))
    dropin = os.path.join(dropin_dir, '50-kubenode.conf')
    assert result['kubelet_config']['path'] == dropin
    choice = result['kubelet_config']['choice']
    assert choice == {'path': config, 'dropin': True, 'dropin_dir': dropin_dir,
                      'reason': 'the --config of the kubelet.service unit; a drop-in in --config-dir %s' % dropin_dir}
    assert digest(config) == before
    assert read_yaml(dropin)['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    assert 'maxPods' not in read_yaml(dropin)  # max_pods unset: kubelet keeps its own
    assert result['restart_pending'] == [{'service': 'kubelet.service',
                                          'reason': '%s changed after it started' % dropin}]
    # the audit finds the same file, and nothing else to say once kubelet restarted
    tree.systemd.start_service('kubelet.service')
    audit = run_module(node_drift_info, {'plan': result['plan'], 'cgroupfs_path': tree.root, 'proc_path': tree.proc,
                                         'services': [], 'containerd_config_path': str(tmp_path / 'none.toml'),
                                         'crio_config_paths': [],
                                         'systemd_control_dirs': tree.node_paths()['systemd_control_dirs']})
    assert audit['kubelet_config']['dropin'] is True
    assert [d for d in audit['drift'] if d['item'] in ('kubelet config', 'kubelet.service')] == []


def test_kubeadm_node_without_config_dir_gets_its_file_edited(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config, _dropin_dir = kubeadm_node(tree, tmp_path, config_dir=False)
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    result = run_module(node_cgroups, node_args(tree, tmp_path))
    assert result['kubelet_config']['path'] == config and result['kubelet_config']['choice']['dropin'] is False
    assert read_yaml(config)['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    # Issue 52: kubeadm rewrites that file on join and upgrade; the run says so.
    assert any(warning.startswith('the reservation lives only in %s, which kubeadm join and kubeadm upgrade node '
                                  'rewrite' % config) for warning in warnings)


def test_kubeadm_node_asked_for_a_dropin_gets_its_config_dir_in_the_operators_flags(run_module, tmp_path, monkeypatch):
    """Issue 52: the reservation goes where kubeadm join and kubeadm upgrade node never write: a drop-in, and the
    --config-dir in KUBELET_EXTRA_ARGS of /etc/default/kubelet; kubeadm's config.yaml keeps its checksum."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config, dropin_dir = kubeadm_node(tree, tmp_path, config_dir=False)
    default = str(tmp_path / 'etc/default/kubelet')
    write_text(default, '# the operator\'s\nKUBELET_EXTRA_ARGS="--v=2"\n')
    before = digest(config)
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    wanted = node_args(tree, tmp_path, kubelet={'dropin': True, 'dropin_dir': dropin_dir})
    dry = run_module(node_cgroups, dict(wanted, _ansible_check_mode=True, _ansible_diff=True))
    assert dry['changed'] and not os.path.exists(dropin_dir)
    assert [d['after'] for d in dry['diff'] if d.get('after_header') == default] == [
        '# the operator\'s\nKUBELET_EXTRA_ARGS="--v=2 --config-dir=%s"\n' % dropin_dir]
    result = run_module(node_cgroups, wanted)
    dropin = os.path.join(dropin_dir, '50-kubenode.conf')
    assert result['kubelet_config']['path'] == dropin and digest(config) == before
    assert read_yaml(dropin)['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    with open(default) as handle:
        assert handle.read() == '# the operator\'s\nKUBELET_EXTRA_ARGS="--v=2 --config-dir=%s"\n' % dropin_dir
    assert 'which KUBELET_EXTRA_ARGS in %s gives kubelet' % default in result['kubelet_config']['choice']['reason']
    assert [entry['service'] for entry in result['restart_pending']] == ['kubelet.service']
    assert not any('lives only in' in warning for warning in warnings)
    # systemd starts kubelet with the flag now: the next run finds its --config-dir, and has nothing to do
    tree.systemd.shown['kubelet.service']['Environment'] += ' '
    tree.systemd.start_service('kubelet.service')
    again = run_module(node_cgroups, wanted)
    assert again['changed'] is False and again['kubelet_config']['choice']['reason'].endswith(
        'a drop-in in --config-dir %s' % dropin_dir)


def test_kubespray_node_gets_its_own_file_edited_with_comments_kept_and_a_backup(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = kubespray_node(tree, tmp_path)
    result = run_module(node_cgroups, node_args(tree, tmp_path, kubelet={'backup': True}, max_pods=58))
    assert result['kubelet_config']['path'] == config
    assert result['kubelet_config']['choice']['reason'] == 'the --config of the kubelet.service unit'
    assert not os.path.exists(str(tmp_path / 'var/lib/kubelet/config.yaml'))
    with open(config) as handle:
        text = handle.read()
    # every untouched line as it was, comments and quoting included; the new keys appended
    assert text.startswith(KUBESPRAY_CONFIG)
    assert read_yaml(config)['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    with open(result['kubelet_config']['backup_file']) as handle:
        assert handle.read() == KUBESPRAY_CONFIG


def test_a_path_kubelet_does_not_read_is_refused_and_nothing_is_written(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubespray_node(tree, tmp_path)
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, kubelet={'path': str(tmp_path / 'var/lib/kubelet/config.yaml')}))
    message = failure.value.result['msg']
    assert message.startswith('kubelet_config.kubelet_config_path: kubelet never reads this file')
    assert '--config=%s' % (tmp_path / 'etc/kubernetes/kubelet-config.yaml') in message
    assert snapshot(str(tmp_path)) == before


def test_max_pods_is_written_when_set_and_taken_from_kubelet_when_not(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = kubespray_node(tree, tmp_path)
    # eks sizes kube-reserved memory by kubelet's own maxPods (58 here): 11*58+255 = 893Mi, and writes no maxPods
    sized = run_module(node_cgroups, node_args(tree, tmp_path, profile='eks'), check_mode=True)
    assert sized['plan']['reserved']['kube']['memory']['quantity'] == '893Mi'
    assert sized['plan']['capacity']['pods']['quantity'] == '58' and sized['plan']['max_pods'] is None
    written = run_module(node_cgroups, node_args(tree, tmp_path, profile='eks', max_pods=30))
    assert read_yaml(config)['maxPods'] == 30 and written['plan']['reserved']['kube']['memory']['quantity'] == '585Mi'


def test_max_pods_is_read_from_the_file_the_operator_names_when_kubelet_does_not_run(run_module, tmp_path, monkeypatch):
    """No kubelet runs yet: the file kubelet_config's path names is the one kubelet will be started with, and its
    maxPods sizes eks's reservation (11*58+255 = 893Mi), not kubelet's default of 110 (1465Mi)."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = str(tmp_path / 'etc/kubelet/custom.yaml')
    write_text(config, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 58\n')
    sized = run_module(node_cgroups, node_args(tree, tmp_path, kubelet={'path': config}, profile='eks'), check_mode=True)
    assert sized['plan']['reserved']['kube']['memory']['quantity'] == '893Mi'
    assert sized['plan']['capacity']['pods']['quantity'] == '58'


def test_kubelet_config_module_finds_the_kubespray_file_too(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = kubespray_node(tree, tmp_path)
    result = run_module(kubelet_config, {'settings': {'maxPods': 40}, 'proc_path': tree.proc,
                                         'containerd_config_path': str(tmp_path / 'none.toml'),
                                         'crio_config_paths': []})
    assert result['path'] == config and read_yaml(config)['maxPods'] == 40
    with open(config) as handle:
        assert handle.read() == KUBESPRAY_CONFIG.replace('maxPods: 58', 'maxPods: 40')


def test_a_cgroup_v1_node_is_refused_for_kubelet_1_35_and_later_unless_failcgroupv1_is_false(run_module, tmp_path,
                                                                                             monkeypatch):
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch)
    config, _dropin_dir = kubeadm_node(tree, tmp_path, config_dir=False)
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='cgroupfs'))
    message = failure.value.result['msg']
    # kubelet's default refuses, not a setting of the operator's: the node is named, and what to set
    assert message.startswith('node: this node is cgroup v1: kubelet 1.37 refuses to start on this cgroup v1')
    assert 'failCgroupV1: false' in message and message.endswith('(got "v1"). Nothing was written.')
    assert snapshot(str(tmp_path)) == before
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='cgroupfs',
                                           kubelet={'settings': {'failCgroupV1': True}}))
    assert failure.value.result['msg'].startswith('kubelet_config.kubelet_settings.failCgroupV1: kubelet 1.37 refuses')
    older = run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='cgroupfs', kubelet_version='1.34'),
                       check_mode=True)
    assert older['changed']
    kept = run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='cgroupfs',
                                              kubelet={'settings': {'failCgroupV1': False}}))
    assert read_yaml(config)['failCgroupV1'] is False and kept['changed']
    # without a kubelet configuration to write, the same finding is a warning
    alone = dict(node_args(tree, tmp_path, cgroup_driver='cgroupfs'))
    del alone['kubelet_config']
    shutil.copy(os.path.join(DATA, 'kubeadm-kubelet-config.yaml'), config)
    assert not [warning for warning in warnings if 'cgroup v1' in warning]
    run_module(node_cgroups, alone, check_mode=True)
    assert any('refuses to start on this cgroup v1 node' in warning for warning in warnings)


def test_a_cgroup_v1_host_that_is_no_node_yet_gets_its_plan_with_a_warning(run_module, tmp_path, monkeypatch):
    """A build host without kubelet or a runtime (cgroup v1, as many are): check mode shows the plan and warns that
    kubelet would refuse this host, instead of failing on a setting nobody made."""
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch, pid1='init')
    result = run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='cgroupfs'), check_mode=True)
    assert result['changed'] and result['kubelet_config']['changed']
    assert any('refuses to start on this cgroup v1 node' in warning for warning in warnings)
    assert any(warning.startswith('this host is not a Kubernetes node yet') for warning in warnings)


def test_reserved_cpus_with_reserved_cgroups_names_the_way_out(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, reserved_system_cpus='0-1',
                                           system_reserved_cgroup='/system.slice'))
    message = failure.value.result['msg']
    assert message.startswith("reserved_system_cpus: invalid configuration: can't use reservedSystemCPUs")
    assert 'leave system_reserved_cgroup and kube_reserved_cgroup empty' in message and 'AllowedCPUs=' in message


@pytest.mark.parametrize('settings, extra, message', [
    ({'cpuManagerPolicy': 'Static'}, {}, 'cpuManagerPolicy: unknown policy: "Static"'),
    ({'cpuManagerPolicy': 'static'}, {'system_reserved': {'memory': '1Gi'}},
     '[cpumanager] unable to determine reserved CPU resources for static policy'),
    ({'cpuManagerPolicy': 'none', 'cpuManagerPolicyOptions': {'full-pcpus-only': 'true'}}, {},
     'None policy: received unsupported options=map[full-pcpus-only:true]'),
    ({'cpuManagerPolicy': 'static', 'cpuManagerPolicyOptions': {'full-pcpus-only': 'yes'}}, {},
     'bad value for option "full-pcpus-only"'),
    ({'topologyManagerPolicy': 'numa'}, {},
     'topologyManagerPolicy (--topology-manager-policy) "numa" must be one of: '
     '["none" "best-effort" "restricted" "single-numa-node"]'),
])
def test_cpu_and_topology_manager_settings_are_validated_as_kubelet_does(run_module, tmp_path, monkeypatch,
                                                                         settings, extra, message):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path, config_dir=False)
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, kubelet={'settings': settings}, **extra))
    assert message in failure.value.result['msg']
    assert snapshot(str(tmp_path)) == before


def test_cpu_isolation_recipe_is_accepted_and_a_stale_checkpoint_refused(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config, _dropin_dir = kubeadm_node(tree, tmp_path, config_dir=False)
    write_text(str(tmp_path / 'var/lib/kubelet/cpu_manager_state'), '{"policyName":"none","defaultCpuSet":"","checksum":1}')
    isolation = {'settings': {'cpuManagerPolicy': 'static', 'cpuManagerPolicyOptions': {'full-pcpus-only': 'true'},
                              'topologyManagerPolicy': 'single-numa-node'}}
    args = node_args(tree, tmp_path, kubelet=isolation, reserved_system_cpus='0-1')
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, args)
    assert 'differs from state checkpoint policy "none"' in failure.value.result['msg']
    assert 'cpuManagerPolicy' not in read_yaml(config)
    os.remove(str(tmp_path / 'var/lib/kubelet/cpu_manager_state'))
    result = run_module(node_cgroups, args)
    written = read_yaml(config)
    assert written['reservedSystemCPUs'] == '0-1' and written['cpuManagerPolicy'] == 'static'
    assert written['systemReserved'] == {'cpu': '2', 'memory': '1Gi'} and result['changed']


def test_driver_mismatch_can_be_allowed_through_node_cgroups(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path, config_dir=False)
    containerd = str(tmp_path / 'containerd.toml')
    write_text(containerd, 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
               '  SystemdCgroup = false\n')
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, containerd_config_path=containerd))
    assert 'set allow_driver_mismatch' in failure.value.result['msg']
    allowed = run_module(node_cgroups, node_args(tree, tmp_path, containerd_config_path=containerd,
                                                 kubelet={'allow_driver_mismatch': True}))
    assert allowed['kubelet_config']['changed']


def test_a_host_without_kubelet_or_runtime_gets_one_warning_naming_where_the_configuration_goes(
        run_module, tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    socket = str(tmp_path / 'run/containerd/containerd.sock')
    monkeypatch.setattr(_node_snapshot, 'RUNTIME_SOCKETS', (socket,))
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    args = node_args(tree, tmp_path)
    run_module(node_cgroups, args, check_mode=True)
    not_a_node = [w for w in warnings if 'not a Kubernetes node yet' in w]
    # kubeadm's path under the node's root, never this machine's.
    assert len(not_a_node) == 1 and 'the kubelet configuration goes to %s/var/lib/kubelet/config.yaml' % tmp_path \
        in not_a_node[0]
    assert not [w for w in warnings if 'has no kubelet yet' in w]
    # A container runtime is there (its socket): a node being built, no warning of the kind.
    write_text(socket, '')
    del warnings[:]
    run_module(node_cgroups, args, check_mode=True)
    assert not [w for w in warnings if 'not a Kubernetes node yet' in w]
    assert [w for w in warnings if 'has no kubelet yet' in w]


def standin_kubelet(tree, answer):
    """The fake root's kubelet binary (an executable file) and what it answers to --version."""
    binary = tree.node_paths()['kubelet_binary']
    write_text(binary, '#!/bin/sh\n')
    os.chmod(binary, 0o755)
    tree.systemd.kubelet_binaries[binary] = answer
    return binary


def test_the_kubelet_release_comes_from_the_node(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path)
    binary = standin_kubelet(tree, 'Kubernetes v1.29.4')
    result = run_module(node_cgroups, node_args(tree, tmp_path), check_mode=True)
    assert result['plan']['kubelet_version'] == '1.29'
    assert result['plan']['kubelet_version_source'] == '%s --version of kubelet_binary (Kubernetes v1.29.4)' % binary
    # 1.29 has no imagefs.inodesFree among its eviction defaults; 1.36 has.
    assert 'imagefs.inodesFree' not in result['plan']['eviction']['hard']
    assert '%s --version' % binary in tree.systemd.calls


def test_a_release_the_node_does_not_run_is_refused_unless_planned_for_an_upgrade(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config, _dropin_dir = kubeadm_node(tree, tmp_path)
    standin_kubelet(tree, 'Kubernetes v1.29.4')
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, kubelet_version='1.33'))
    message = failure.value.result['msg']
    assert message.startswith('kubelet_version: the node runs kubelet 1.29.4')
    assert 'not 1.33' in message and 'allow_kubelet_version_mismatch' in message
    assert snapshot(str(tmp_path)) == before
    # KubeletPSI exists from 1.33: refused for the node's 1.29 when the release is read from the node.
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, feature_gates={'KubeletPSI': True}), check_mode=True)
    assert 'unrecognized feature gate: KubeletPSI' in failure.value.result['msg']
    upgrade = run_module(node_cgroups, node_args(tree, tmp_path, kubelet_version='1.33',
                                                 allow_kubelet_version_mismatch=True), check_mode=True)
    assert upgrade['plan']['kubelet_version'] == '1.33'
    assert upgrade['plan']['kubelet_version_source'].startswith('set by the operator for an upgrade (the node runs 1.29.4')


@pytest.mark.parametrize('answer, fragment', [
    ('Kubernetes v1.39.0', 'newer than the newest release this collection supports (1.22 to 1.38)'),
    ('Kubernetes v1.21.14', 'older than the oldest release this collection supports'),
])
def test_a_node_outside_the_supported_range_is_refused(run_module, tmp_path, monkeypatch, answer, fragment):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path)
    standin_kubelet(tree, answer)
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path), check_mode=True)
    assert fragment in failure.value.result['msg'] and failure.value.result['msg'].startswith('kubelet_version: ')


def test_no_kubelet_to_ask_plans_the_newest_release_and_says_so(run_module, tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path)
    result = run_module(node_cgroups, node_args(tree, tmp_path), check_mode=True)
    assert result['plan']['kubelet_version'] == '1.37'
    assert result['plan']['kubelet_version_source'].startswith('the newest GA release, as ')
    assert any(w.startswith('the kubelet release could not be read from this node') for w in warnings)
    named = run_module(node_cgroups, node_args(tree, tmp_path, kubelet_version='1.34'), check_mode=True)
    assert named['plan']['kubelet_version'] == '1.34'
    assert named['plan']['kubelet_version_source'].startswith('set by the operator')


def test_a_kubelet_found_but_not_asked_is_not_called_missing(run_module, tmp_path, monkeypatch):
    """Issue 51: under a root (kubelet_binary "") the warning said "no kubelet unit, process or binary found" beside a
    kubelet configuration chosen as "the --config of" the kubelet it had found."""
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path)
    result = run_module(node_cgroups, node_args(tree, tmp_path, kubelet_binary=''), check_mode=True)
    source = result['kubelet_config']['choice']['reason']
    assert source.startswith('the --config of ')
    said = [w for w in warnings if w.startswith('the kubelet release could not be read from this node')]
    assert len(said) == 1 and 'no kubelet unit, process or binary found' not in said[0]
    assert 'its binary was not asked: kubelet_binary is empty' in said[0]
    assert '(kubelet found: the kubelet.service unit)' in said[0] and 'kubelet.service unit' in source


def test_under_a_root_kubesprays_file_is_found_as_on_a_real_node(run_module, tmp_path, monkeypatch):
    """No kubelet unit or process to ask: the usual places are looked up under the root, kubespray's included."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = str(tmp_path / 'etc/kubernetes/kubelet-config.yaml')
    write_text(config, KUBESPRAY_CONFIG)
    result = run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='auto'), check_mode=True)
    assert result['kubelet_config']['path'] == config
    assert result['kubelet_config']['choice']['reason'] == (
        'no kubelet unit or process found; %s exists (kubespray layout)' % config)
    assert not os.path.exists(str(tmp_path / 'var/lib/kubelet/config.yaml'))


def test_the_read_back_asks_about_the_kubelet_service_named(run_module, tmp_path, monkeypatch):
    """verify reads the node back through the unit kubelet_service names, as the planning did."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    kubeadm_node(tree, tmp_path, config_dir=False)
    tree.systemd.shown['k8s-kubelet.service'] = tree.systemd.shown.pop('kubelet.service')
    tree.systemd.installed.add('k8s-kubelet.service')
    result = run_module(node_cgroups, node_args(tree, tmp_path, kubelet_service='k8s-kubelet.service', verify=True))
    assert result['kubelet_config']['choice']['reason'] == 'the --config of the k8s-kubelet.service unit'
    assert result['verification']['kubelet_config']['reason'] == 'the --config of the k8s-kubelet.service unit'


def test_the_audit_names_a_plan_for_another_release_and_compares_the_rest(run_module, tmp_path, monkeypatch):
    """A plan made ahead of (or behind) the node's kubelet: the audit says so as drift instead of failing."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    standin_kubelet(tree, 'Kubernetes v1.33.4')
    args = dict(node_args(tree, tmp_path), kubelet_version='1.36', allow_kubelet_version_mismatch=True)
    plan = run_module(node_cgroups, args)['plan']
    audit = dict(tree.audit_paths(), plan=plan, cgroupfs_path=tree.root, proc_path=tree.proc,
                 check_kubelet_config=False, containerd_config_path=args['containerd_config_path'],
                 crio_config_paths=args['crio_config_paths'])
    drift = run_module(node_drift_info, audit)['drift']
    assert drift == [{'item': 'kubelet release', 'check': 'the plan is for it', 'live': '1.33.4', 'planned': '1.36'}]
    assert run_module(node_drift_info, dict(audit, allow_kubelet_version_mismatch=True))['drift'] == []


def test_a_detected_driver_is_not_blamed_on_the_cgroup_driver_option(run_module, tmp_path, monkeypatch):
    """cgroup_driver auto, containerd configured for systemd, no systemd as PID 1: the node is named, with where the
    driver came from, not an option the operator never set."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    containerd = str(tmp_path / 'etc/containerd/config.toml')
    write_text(containerd, 'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
                           '  SystemdCgroup = true\n')
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='auto', containerd_config_path=containerd),
                   check_mode=True)
    message = failure.value.result['msg']
    assert message.startswith('node: the systemd cgroup driver needs systemd as PID 1')
    assert 'the systemd cgroup driver was detected from %s (containerd)' % containerd in message
    # Issue 51: it said "cgroup_driver names another" though the operator set none.
    assert 'as cgroup_driver is not set; set it to plan for another driver' in message
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, node_args(tree, tmp_path, cgroup_driver='systemd'), check_mode=True)
    assert failure.value.result['msg'].startswith('cgroup_driver: the systemd cgroup driver needs systemd as PID 1')


def test_kubelet_cgroups_follow_kubelet_into_the_kube_slice(run_module, tmp_path, monkeypatch):
    """kubespray writes kubeletCgroups under system.slice; kubelet moves itself there, out of the kube-reserved slice
    the role places it in. The collection moves the key with the service, says which kubespray variable keeps the
    next kubespray run from undoing it, and is idempotent. A runtimeCgroups key is no KubeletConfiguration field
    (kubespray's kubelet_runtime_cgroups is the --runtime-cgroups flag): kubelet ignores it, and so does the
    collection."""
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warnings.append(text))
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    config = kubespray_node(tree, tmp_path)
    with open(config, 'a') as handle:
        handle.write('kubeletCgroups: /system.slice/kubelet.service\nruntimeCgroups: /system.slice/containerd.service\n')
    args = node_args(tree, tmp_path, kube_reserved_cgroup='/kube.slice', services=['kubelet', 'containerd'],
                     max_pods=58)
    result = run_module(node_cgroups, args)
    written = read_yaml(config)
    assert written['kubeletCgroups'] == '/kube.slice/kubelet.service'
    assert written['runtimeCgroups'] == '/system.slice/containerd.service'
    assert any('kubelet_kubelet_cgroups: /kube.slice/kubelet.service' in w for w in warnings)
    assert not [w for w in warnings if 'runtime' in w.lower()]
    assert result['kubelet_config']['changed']
    again = run_module(node_cgroups, args, check_mode=True)
    assert not again['kubelet_config']['changed']
    # the operator's own value wins
    mine = run_module(node_cgroups, dict(args, kubelet_config={'settings': {'kubeletCgroups': '/kubelet.slice'}}),
                      check_mode=True)
    assert mine['kubelet_config']['config']['kubeletCgroups'] == '/kubelet.slice'
    # ... and one that names runtimeCgroups is refused before anything is written: kubelet would ignore it.
    with pytest.raises(ModuleFail) as failure:
        run_module(node_cgroups, dict(args, kubelet_config={'settings': {'runtimeCgroups': '/kube.slice/x.service'}}))
    assert 'kubelet does not know this KubeletConfiguration field' in str(failure.value)
    assert 'runtimeCgroups' in str(failure.value)
