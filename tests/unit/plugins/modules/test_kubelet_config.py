# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import allocatable_info, kubelet_config

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import snapshot
from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail, refused_for_nul
from ansible_collections.kubenode.cgroups.tests.unit.node_files import digest, read_yaml

DATA = os.path.join(os.path.dirname(__file__), '..', '..', 'data')
RESERVE = {'systemReserved': {'cpu': '500m', 'memory': '1Gi'}, 'kubeReserved': {'cpu': '250m', 'memory': '512Mi'},
           'evictionHard': {'memory.available': '500Mi', 'nodefs.available': '10%'}}


@pytest.fixture
def node(tmp_path):
    """A node's kubelet files: kubeadm's config, an empty drop-in dir, a containerd config."""
    paths = {'path': str(tmp_path / 'var/lib/kubelet/config.yaml'), 'dropin_dir': str(tmp_path / 'kubelet.conf.d'),
             'containerd_config_path': str(tmp_path / 'containerd.toml'),
             'crio_config_paths': [str(tmp_path / 'crio.conf')], 'proc_path': str(tmp_path / 'proc')}
    os.makedirs(os.path.dirname(paths['path']))
    os.makedirs(paths['dropin_dir'])
    shutil.copy(os.path.join(DATA, 'kubeadm-kubelet-config.yaml'), paths['path'])
    return paths


def test_sets_keys_keeps_the_rest_and_reruns_clean(run_module, node):
    before = read_yaml(node['path'])
    result = run_module(kubelet_config, dict(node, settings=RESERVE))
    assert result['changed']
    after = read_yaml(node['path'])
    assert after['systemReserved'] == {'cpu': '500m', 'memory': '1Gi'}
    for key, value in before.items():
        assert after[key] == value  # every other key as it was
    assert result['config']['cgroupDriver'] == 'systemd'
    unchanged = digest(node['path'])
    again = run_module(kubelet_config, dict(node, settings=RESERVE))
    assert again['changed'] is False and digest(node['path']) == unchanged


def test_same_meaning_is_no_change(run_module, node):
    run_module(kubelet_config, dict(node, settings=RESERVE))
    unchanged = digest(node['path'])
    same = {'systemReserved': {'cpu': '0.5', 'memory': '1024Mi'}, 'kubeReserved': {'memory': '536870912', 'cpu': '250m'},
            'evictionHard': {'nodefs.available': '10.0%', 'memory.available': '0.48828125Gi'}}
    assert run_module(kubelet_config, dict(node, settings=same))['changed'] is False
    assert digest(node['path']) == unchanged


def test_kubespray_config(run_module, tmp_path, node):
    path = str(tmp_path / 'kubelet-config.yaml')
    shutil.copy(os.path.join(DATA, 'kubespray-kubelet-config.yaml'), path)
    args = dict(node, path=path, settings={'kubeReserved': {'cpu': '100m', 'memory': '268435456',
                                                            'ephemeral-storage': '500Mi', 'pid': '1k'}})
    assert run_module(kubelet_config, args)['changed'] is False
    result = run_module(kubelet_config, dict(args, settings={'enforceNodeAllocatable': ['pods', 'kube-reserved'],
                                                             'kubeReservedCgroup': '/kube.slice'}))
    assert result['changed'] and read_yaml(path)['kubeReservedCgroup'] == '/kube.slice'
    assert read_yaml(path)['kubeletCgroups'] == '/system.slice/kubelet.service'


def test_feature_gates_are_merged(run_module, node):
    run_module(kubelet_config, dict(node, settings={'featureGates': {'GracefulNodeShutdown': True}}))
    run_module(kubelet_config, dict(node, settings={'featureGates': {'MemoryQoS': True}}))
    assert read_yaml(node['path'])['featureGates'] == {'GracefulNodeShutdown': True, 'MemoryQoS': True}


def test_a_gate_already_on_the_node_is_left_to_its_kubelet(run_module, node):
    # A vendor build's gate the collection does not know: the node's kubelet runs with it, so it is kept;
    # the same name brought by this run is refused, and nothing is written.
    with open(node['path'], 'a') as handle:
        handle.write('featureGates:\n  VendorTunedSwap: true\n')
    result = run_module(kubelet_config, dict(node, settings={'featureGates': {'MemoryQoS': True}}))
    assert result['changed']
    assert read_yaml(node['path'])['featureGates'] == {'VendorTunedSwap': True, 'MemoryQoS': True}
    before = digest(node['path'])
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings={'featureGates': {'VendorTunedSwapp': True}}))
    assert 'unrecognized feature gate: VendorTunedSwapp' in failure.value.result['msg']
    assert digest(node['path']) == before
    run_module(kubelet_config, dict(node, settings={'featureGates': {'VendorTunedSwapp': True}},
                                    extra_feature_gates=['VendorTunedSwapp']))
    assert read_yaml(node['path'])['featureGates']['VendorTunedSwapp'] is True


def test_null_removes_a_key(run_module, node):
    run_module(kubelet_config, dict(node, settings=RESERVE))
    run_module(kubelet_config, dict(node, settings={'kubeReserved': None}))
    assert 'kubeReserved' not in read_yaml(node['path']) and 'systemReserved' in read_yaml(node['path'])


def test_check_mode_and_diff(run_module, node):
    unchanged = digest(node['path'])
    result = run_module(kubelet_config, dict(node, settings=RESERVE, _ansible_diff=True), check_mode=True)
    assert result['changed'] and digest(node['path']) == unchanged
    assert 'systemReserved' in result['diff']['after'] and 'systemReserved' not in result['diff']['before']


def test_mode_owner_and_backup(run_module, node):
    os.chmod(node['path'], 0o600)
    result = run_module(kubelet_config, dict(node, settings=RESERVE, backup=True))
    assert oct(os.stat(node['path']).st_mode & 0o777) == '0o600'
    assert os.path.exists(result['backup_file']) and 'systemReserved' not in read_yaml(result['backup_file'])


def test_dropin_writes_only_our_keys_and_validates_the_merge(run_module, node):
    base = digest(node['path'])
    result = run_module(kubelet_config, dict(node, settings=RESERVE, dropin=True))
    dropin = os.path.join(node['dropin_dir'], '50-kubenode.conf')
    assert result['path'] == dropin and digest(node['path']) == base
    written = read_yaml(dropin)
    assert written['kind'] == 'KubeletConfiguration' and set(written) == {'apiVersion', 'kind'} | set(RESERVE)
    assert result['config']['cgroupDriver'] == 'systemd'  # from the base file
    assert run_module(kubelet_config, dict(node, settings=RESERVE, dropin=True))['changed'] is False
    # A later drop-in wins in kubelet's lexical merge: its bad enforcement is refused before we write.
    with open(os.path.join(node['dropin_dir'], '90-other.conf'), 'w') as handle:
        handle.write('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                     'enforceNodeAllocatable: [pods, system-reserved]\n')
    ours = digest(dropin)
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=dict(RESERVE, maxPods=200), dropin=True))
    assert 'systemReservedCgroup (--system-reserved-cgroup) must be specified' in failure.value.result['msg']
    assert digest(dropin) == ours


def test_plan_is_written(run_module, node):
    plan = run_module(allocatable_info, {'capacity': {'cpu': '8', 'memory': '32Gi'}, 'profile': 'eks', 'max_pods': 58,
                                         'cgroup_driver': 'systemd', 'kube_reserved_cgroup': '/runtime.slice'})
    run_module(kubelet_config, dict(node, plan=plan, capacity={'cpu': '8', 'memory': '32Gi'}))
    written = read_yaml(node['path'])
    assert written['kubeReserved']['memory'] == '893Mi' and written['kubeReservedCgroup'] == '/runtime.slice'
    assert written['evictionHard']['nodefs.inodesFree'] == '5%' and 'systemReserved' not in written


def test_kubelets_own_defaults_are_not_added_where_the_file_leaves_them_out(run_module, node):
    """A plan that keeps kubelet's eviction and enforcement adds neither key to a file without them (kubespray's
    next render would remove them again); a file that names them gets the plan's values."""
    plan = run_module(allocatable_info, {'capacity': {'cpu': '8', 'memory': '32Gi'}, 'profile': 'static',
                                         'cgroup_driver': 'systemd', 'kube_reserved': {'memory': '1Gi'}})
    assert plan['eviction']['source'] == 'kubelet defaults' and plan['enforce_node_allocatable'] == ['pods']
    before = read_yaml(node['path'])
    assert 'evictionHard' not in before and 'enforceNodeAllocatable' not in before
    run_module(kubelet_config, dict(node, plan=plan, capacity={'cpu': '8', 'memory': '32Gi'}))
    written = read_yaml(node['path'])
    assert written['kubeReserved'] == {'memory': '1Gi'}
    assert 'evictionHard' not in written and 'enforceNodeAllocatable' not in written


@pytest.mark.parametrize('content, fragments', [
    ('apiVersion: [unclosed\n', ['not valid YAML']),
    ('- a\n- b\n', ['not a YAML mapping']),
    ('apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n', ['apiVersion must be']),
    ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n',
     ['kind must be', 'KubeProxyConfiguration']),
])
def test_bad_files_are_left_untouched(run_module, node, content, fragments):
    with open(node['path'], 'w') as handle:
        handle.write(content)
    before = digest(node['path'])
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=RESERVE))
    for fragment in fragments + [node['path']]:
        assert fragment in failure.value.result['msg']
    assert '<unicode string>' not in failure.value.result['msg']  # the file is named where PyYAML would not
    assert digest(node['path']) == before


@pytest.mark.parametrize('settings, extra, fragments', [
    ({'systemReservd': {'cpu': '1'}}, {}, ['kubelet does not know', 'systemReservd']),
    ({'clusterDNS': ['10.0.0.10']}, {}, ['does not manage', 'clusterDNS']),
    ({'maxPods': '110'}, {}, ['settings.maxPods', 'wrong type']),
    ({'enforceNodeAllocatable': ['pods', 'everything']}, {}, ['option "everything" specified']),
    ({'enforceNodeAllocatable': ['pods', 'system-reserved']}, {}, ['systemReservedCgroup (--system-reserved-cgroup)']),
    ({'reservedSystemCPUs': '0-1', 'kubeReservedCgroup': '/kube.slice'}, {}, ["can't use reservedSystemCPUs"]),
    ({'systemReserved': {'memory': '40Gi'}}, {'capacity': {'memory': '32Gi'}}, ['has a reservation of']),
    ({'systemReserved': {'gpu': '1'}}, {}, ['cannot reserve "gpu" resource']),
    ({'evictionHard': {'memory.available': '200%'}}, {}, ['must be <= 100%']),
    ({'evictionSoft': {'memory.available': '1Gi'}}, {}, ['grace period must be specified']),
    ({'memoryThrottlingFactor': 1.5}, {}, ['memoryThrottlingFactor 1.5 must be greater than 0']),
    # the gate is off by default before 1.36 (GA and on from 1.36: the kubelet judge)
    ({'cpuCFSQuotaPeriod': '50ms'}, {'kubelet_version': '1.35'}, ['CustomCPUCFSQuotaPeriod']),
    ({'mergeDefaultEvictionSettings': True}, {'kubelet_version': '1.32'}, ['mergeDefaultEvictionSettings']),
    ({'cgroupDriver': 'systemd', 'kubeReservedCgroup': '/system.slice/kubelet.service',
      'enforceNodeAllocatable': ['pods', 'kube-reserved']}, {}, ['kubelet.service.slice']),
    ({'maxPods': -1}, {}, ['must not be a negative number']),
    ({'featureGates': {'NotAGate': True}}, {}, ['featureGates: unrecognized feature gate: NotAGate']),
    ({'featureGates': {'SidecarContainers': True}}, {'kubelet_version': '1.27'},
     ['unrecognized feature gate: SidecarContainers', 'exists from kubelet 1.28']),
])
def test_invalid_settings_are_refused_before_writing(run_module, node, settings, extra, fragments):
    before = digest(node['path'])
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=settings, **extra))
    for fragment in fragments:
        assert fragment in failure.value.result['msg']
    assert digest(node['path']) == before


def test_driver_must_agree_with_containerd(run_module, node):
    with open(node['containerd_config_path'], 'w') as handle:
        handle.write('version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
                     '  SystemdCgroup = false\n')
    before = digest(node['path'])
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=RESERVE))
    assert 'containerd.toml) uses cgroupfs' in failure.value.result['msg'] and digest(node['path']) == before
    assert run_module(kubelet_config, dict(node, settings=RESERVE, allow_driver_mismatch=True))['changed']


def test_a_swap_enabled_node_is_written_as_the_kubernetes_docs_describe(run_module, node):
    swap = {'failSwapOn': False, 'memorySwap': {'swapBehavior': 'LimitedSwap'}}
    run_module(kubelet_config, dict(node, settings=swap))
    written = read_yaml(node['path'])
    assert written['failSwapOn'] is False and written['memorySwap'] == {'swapBehavior': 'LimitedSwap'}


@pytest.mark.parametrize('settings, message', [
    ({'memorySwap': {'swapBehavior': 'UnlimitedSwap'}},
     'memorySwap.swapBehavior: invalid configuration: memorySwap.swapBehavior "UnlimitedSwap" must be one of'),
    ({'memorySwap': {'swapBehavior': 'LimitedSwap'}, 'featureGates': {'NodeSwap': False}},
     'featureGates.NodeSwap: cannot set feature gate NodeSwap to false, feature is locked to true'),
    ({'memorySwap': 'LimitedSwap'}, 'settings.memorySwap: has the wrong type'),
])
def test_swap_settings_kubelet_refuses_are_refused_and_nothing_written(run_module, node, settings, message):
    unchanged = digest(node['path'])
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=settings))
    assert message in failure.value.result['msg']
    assert digest(node['path']) == unchanged


def test_a_path_with_a_nul_byte_is_refused_and_nothing_written(run_module, node):
    unchanged = digest(node['path'])
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=RESERVE, dropin_name='a\x00.conf'))
    assert refused_for_nul(failure.value.result['msg'], 'kubelet_dropin_name')
    assert digest(node['path']) == unchanged


# Paths under {tmp}: were a check to be lost, the test still writes only in its own directory.
@pytest.mark.parametrize('change, field, value', [
    ({'mode': 'merge'}, 'mode', '"merge"'),
    ({'mode': '99999'}, 'mode', '"99999"'),
    ({'path': 'var/lib/kubelet/config.yaml'}, 'kubelet_config_path', '"var/lib/kubelet/config.yaml"'),
    ({'path': '{tmp}/var/lib/kubelet/../../escaped.yaml'}, 'kubelet_config_path',
     '"{tmp}/var/lib/kubelet/../../escaped.yaml"'),
    ({'dropin': True, 'dropin_dir': '{tmp}/kubelet.conf.d/..'}, 'kubelet_dropin_dir', '"{tmp}/kubelet.conf.d/.."'),
])
@pytest.mark.parametrize('check_mode', [True, False])
def test_a_bad_mode_or_path_is_refused_before_anything_is_written(run_module, tmp_path, node, change, field, value,
                                                                  check_mode):
    change = dict((key, text.replace('{tmp}', str(tmp_path)) if isinstance(text, str) else text)
                  for key, text in change.items())
    before = snapshot(str(tmp_path))
    with pytest.raises(ModuleFail) as failure:
        run_module(kubelet_config, dict(node, settings=RESERVE, **change), check_mode=check_mode)
    message = failure.value.result['msg']
    assert message.startswith(field + ': must ') and message.endswith('(got %s)' % value.replace('{tmp}', str(tmp_path)))
    assert snapshot(str(tmp_path)) == before
