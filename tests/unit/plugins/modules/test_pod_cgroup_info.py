# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import pod_cgroup_info

from conftest import ModuleFail

GI = 1024 ** 3
MI = 1024 ** 2


def container(name, requests=None, limits=None, **extra):
    data = {'name': name, 'resources': {}}
    if requests:
        data['resources']['requests'] = requests
    if limits:
        data['resources']['limits'] = limits
    data.update(extra)
    return data


def run(run_module, pods, **args):
    args.setdefault('memory_capacity', '8Gi')
    args['pods'] = pods
    return run_module(pod_cgroup_info, args)


def test_sidecars_and_init_containers_follow_kubelet(run_module):
    pod = {'initContainers': [container('sidecar', {'cpu': '100m'}, restartPolicy='Always'),
                              container('setup', {'cpu': '500m'})],
           'containers': [container('app', {'cpu': '200m'})]}
    result = run(run_module, [pod])['pods'][0]
    # max(200m + 100m, 500m + 100m sidecar started before it) = 600m
    assert result['resources']['cpu_shares'] == 614
    sidecar = result['containers'][0]
    assert sidecar['init'] and sidecar['sidecar'] and not result['containers'][1]['sidecar']


def test_overhead_is_added_to_requests_and_set_limits(run_module):
    pod = {'overhead': {'cpu': '100m', 'memory': '10Mi'},
           'containers': [container('app', {'cpu': '100m', 'memory': '100Mi'}, {'cpu': '200m', 'memory': '200Mi'})]}
    values = run(run_module, [pod])['pods'][0]['resources']
    assert values['cpu_shares'] == 204 and values['cpu_quota'] == 30000 and values['memory'] == 210 * MI


def test_memory_high_both_formulas(run_module):
    pod = {'containers': [container('bounded', {'memory': '256Mi'}, {'memory': '1Gi'}),
                          container('unbounded', {'memory': '256Mi'}),
                          container('guaranteed', {'memory': '1Gi', 'cpu': '1'}, {'memory': '1Gi', 'cpu': '1'})]}
    gates = {'MemoryQoS': True}
    new = run(run_module, [pod], feature_gates=gates, allocatable_memory='16Gi', kubelet_version='1.35')
    bounded, unbounded, guaranteed = new['pods'][0]['containers']
    assert bounded['memory_high'] == 993210368
    assert unbounded['memory_high'] == 15488724992
    assert guaranteed['memory_high'] is None
    assert bounded['memory_min'] == 256 * MI
    old = run(run_module, [pod], feature_gates=gates, allocatable_memory='16Gi', kubelet_version='1.26')
    assert old['pods'][0]['containers'][0]['memory_high'] == 858993459
    assert run(run_module, [pod])['pods'][0]['containers'][0]['memory_high'] is None


def test_memory_reservation_policy_1_36(run_module):
    pods = [{'containers': [container('g', {'cpu': '1', 'memory': '1Gi'}, {'cpu': '1', 'memory': '1Gi'})]},
            {'containers': [container('b', {'memory': '512Mi'})]}]
    result = run(run_module, pods, feature_gates={'MemoryQoS': True}, memory_reservation_policy='TieredReservation')
    assert result['pods'][0]['resources']['memory_min'] == GI
    assert result['pods'][1]['resources']['memory_low'] == 512 * MI and 'memory_min' not in result['pods'][1]['resources']
    assert result['qos']['kubepods']['v2_files']['memory.min'] == str(GI + 512 * MI)
    none = run(run_module, pods, feature_gates={'MemoryQoS': True})
    assert 'memory_min' not in none['pods'][0]['resources']


def test_oom_score_sidecar_and_pod_level(run_module):
    pod = {'initContainers': [container('proxy', restartPolicy='Always')],
           'containers': [container('app', {'memory': '1Gi'})]}
    proxy, app = run(run_module, [pod])['pods'][0]['containers']
    assert app['oom_score_adj'] == 875 and proxy['oom_score_adj'] == 875
    pod_level = {'resources': {'requests': {'memory': '2Gi'}},
                 'containers': [container('a', {'memory': '512Mi'}), container('b')]}
    first, second = run(run_module, [pod_level])['pods'][0]['containers']
    assert second['oom_score_adj'] == 1000 - (1000 * 768 * MI) // (8 * GI)
    assert first['oom_score_adj'] == 1000 - (1000 * 1280 * MI) // (8 * GI)


def test_paths_weights_and_kubectl_list(run_module):
    pods = {'kind': 'List', 'items': [
        {'metadata': {'name': 'web', 'namespace': 'prod', 'uid': '6c1a4e95-6bb6-11e6-bc26-28d2444e470d'},
         'spec': {'containers': [container('c', {'cpu': '1'})]}, 'status': {'qosClass': 'Burstable'}}]}
    result = run(run_module, pods, cgroup_driver='systemd')
    pod = result['pods'][0]
    assert pod['cgroup']['path'] == ('/kubepods.slice/kubepods-burstable.slice/'
                                     'kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice')
    assert pod['cgroup']['cgroupfs_path'] == '/kubepods/burstable/pod6c1a4e95-6bb6-11e6-bc26-28d2444e470d'
    assert pod['containers'][0]['cpu_weight'] == {'kubelet': 39, 'oci': 100}
    assert result['qos']['burstable']['resources']['cpu_shares'] == 1024


def test_api_defaults_make_limits_only_pods_guaranteed(run_module):
    pod = {'containers': [container('c', limits={'cpu': '1', 'memory': '1Gi'})]}
    assert run(run_module, [pod])['pods'][0]['qos_class'] == 'Burstable'
    defaulted = run(run_module, [pod], api_defaults=True)['pods'][0]
    assert defaulted['qos_class'] == 'Guaranteed' and defaulted['containers'][0]['oom_score_adj'] == -997


def test_cfs_quota_disabled_and_pids(run_module):
    pod = {'containers': [container('c', {'cpu': '1', 'memory': '1Gi'}, {'cpu': '1', 'memory': '1Gi'})]}
    result = run(run_module, [pod], cpu_cfs_quota=False, pod_pids_limit=4096)['pods'][0]
    assert result['resources']['cpu_quota'] == -1 and result['v2_files']['cpu.max'] == 'max 100000'
    assert result['v1_files']['pids.max'] == '4096'
    assert result['containers'][0]['cpu_quota'] is None


@pytest.mark.parametrize('args, fragments', [
    ({'pods': 'web'}, ['pods', '"web"']),
    ({'pods': [{'containers': [container('c', {'cpu': 'x'})]}]}, ['pods[0].containers[0].resources.requests.cpu', '"x"']),
    ({'pods': [], 'memory_throttling_factor': 0}, ['memory_throttling_factor', 'greater than 0']),
    ({'pods': [], 'cpu_cfs_quota_period': '50ms'}, ['cpu_cfs_quota_period', 'CustomCPUCFSQuotaPeriod']),
    ({'pods': [], 'cpu_cfs_quota_period': '2s', 'feature_gates': {'CustomCPUCFSQuotaPeriod': True}},
     ['between 1ms and 1sec']),
    ({'pods': [], 'cpu_cfs_quota_period': 'soon'}, ['cpu_cfs_quota_period', '"soon"']),
    ({'pods': [], 'memory_capacity': '-1Gi'}, ['memory_capacity', 'positive']),
    ({'pods': [], 'memory_reservation_policy': 'None', 'kubelet_version': '1.35'}, ['only from kubelet 1.36']),
])
def test_bad_input(run_module, args, fragments):
    with pytest.raises(ModuleFail) as failure:
        run_module(pod_cgroup_info, args)
    for fragment in fragments:
        assert fragment in failure.value.result['msg']
