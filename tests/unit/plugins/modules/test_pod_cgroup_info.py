# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import pod_cgroup_info

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail

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


def test_sidecars_run_for_the_pods_life_so_they_dominate_its_peak(run_module):
    # AggregateContainerRequests: every sidecar joins the app containers' sum, and an init container runs beside the
    # sidecars started before it. max(200m + 100m + 300m, 100m, 250m + 100m, 100m + 300m) = 600m.
    pod = {'initContainers': [container('proxy', {'cpu': '100m'}, restartPolicy='Always'),
                              container('setup', {'cpu': '250m'}),
                              container('agent', {'cpu': '300m'}, restartPolicy='Always')],
           'containers': [container('app', {'cpu': '200m'})]}
    assert run(run_module, [pod])['pods'][0]['resources']['cpu_shares'] == 614  # 600m


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


def _memory_qos_pods():
    return [{'containers': [container('bounded', {'memory': '256Mi'}, {'memory': '1Gi'})]},
            {'containers': [container('besteffort')]},
            {'containers': [container('guaranteed', {'cpu': '1', 'memory': '1Gi'}, {'cpu': '1', 'memory': '1Gi'})]}]


def _memory_values(result):
    return [dict((key, pod['containers'][0][key]) for key in ('memory_high', 'memory_min', 'memory_low'))
            for pod in result['pods']]


def test_memory_qos_1_37_is_on_and_protects_nothing_until_configured(run_module):
    """KEP-2570 "Beta v1.37": the gate is on, memoryThrottlingFactor is null and memoryReservationPolicy None by
    default, so no memory.high, and every container gets memory.min and memory.low 0 (kuberuntime sends both for
    each container unless TieredReservation protects its request; the kubelet judge showed it); the pod cgroups get
    neither; kubepods' memory.min and burstable's memory.low are 0."""
    result = run(run_module, _memory_qos_pods(), allocatable_memory='16Gi', kubelet_version='1.37')
    zero = {'memory_high': None, 'memory_min': 0, 'memory_low': 0}
    assert _memory_values(result) == [zero] * 3
    assert all('memory_min' not in pod['resources'] and 'memory_low' not in pod['resources'] for pod in result['pods'])
    assert result['qos']['kubepods']['v2_files']['memory.min'] == '0'
    assert result['qos']['burstable']['v2_files']['memory.low'] == '0'


def test_memory_qos_1_37_throttles_besteffort_containers_once_a_factor_is_set(run_module):
    """#138139: a BestEffort container gets memory.high = floor(factor x allocatable / page) x page from 1.37."""
    newer = run(run_module, _memory_qos_pods(), allocatable_memory='16Gi', kubelet_version='1.37',
                memory_throttling_factor=0.9)
    assert [values['memory_high'] for values in _memory_values(newer)] == [993210368, 15461879808, None]
    older = run(run_module, _memory_qos_pods(), allocatable_memory='16Gi', kubelet_version='1.36',
                feature_gates={'MemoryQoS': True})
    assert [values['memory_high'] for values in _memory_values(older)] == [993210368, None, None]


@pytest.mark.parametrize('version, mode, high, kubepods_min, burstable_low', [
    # #139377 and #138903: 1.37 with the gate off clears what an earlier run of the feature left
    ('1.37', 'v2', 'max', '0', '0'),
    ('1.37', 'v1', None, None, None),  # MemoryQoS is a cgroup v2 feature: nothing on v1
    ('1.36', 'v2', None, None, None),  # before 1.37 nothing is written with the gate off
])
def test_memory_qos_off_in_1_37_clears_the_values_an_earlier_run_left(run_module, version, mode, high, kubepods_min,
                                                                      burstable_low):
    result = run(run_module, _memory_qos_pods(), allocatable_memory='16Gi', kubelet_version=version, cgroup_mode=mode,
                 feature_gates={'MemoryQoS': False})
    assert [values['memory_high'] for values in _memory_values(result)] == [high] * 3
    assert result['qos']['kubepods'].get('v2_files', {}).get('memory.min') == kubepods_min
    assert result['qos']['burstable'].get('v2_files', {}).get('memory.low') == burstable_low


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


def test_oom_score_of_a_sidecar_before_1_32_is_its_own(run_module):
    """Kubelet 1.31's GetContainerOOMScoreAdjust scores a sidecar by its own request (the cap came in 1.32)."""
    pod = {'initContainers': [container('proxy', restartPolicy='Always')],
           'containers': [container('app', {'memory': '1Gi'})]}
    proxy, app = run(run_module, [pod], kubelet_version='1.31')['pods'][0]['containers']
    assert app['oom_score_adj'] == 875 and proxy['oom_score_adj'] == 999


def test_paths_weights_and_kubectl_list(run_module):
    pods = {'kind': 'List', 'items': [
        {'metadata': {'name': 'web', 'namespace': 'prod', 'uid': '6c1a4e95-6bb6-11e6-bc26-28d2444e470d'},
         'spec': {'containers': [container('c', {'cpu': '1'})]}, 'status': {'qosClass': 'Burstable'}}]}
    result = run(run_module, pods, cgroup_driver='systemd')
    pod = result['pods'][0]
    assert pod['cgroup']['path'] == ('/kubepods.slice/kubepods-burstable.slice/'
                                     'kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice')
    assert pod['cgroup']['cgroupfs_path'] == '/kubepods/burstable/pod6c1a4e95-6bb6-11e6-bc26-28d2444e470d'
    assert pod['containers'][0]['cpu_weight'] == {'linear': 39, 'quadratic': 100}
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


def test_a_custom_cfs_period_needs_no_gate_from_1_36(run_module):
    """CustomCPUCFSQuotaPeriod is GA and on from kubelet 1.36: 50ms is taken as it is."""
    pod = {'containers': [container('app', {'cpu': '500m'}, {'cpu': '1'})]}
    result = run_module(pod_cgroup_info, {'pods': [pod], 'cpu_cfs_quota_period': '50ms', 'kubelet_version': '1.36'})
    assert result['pods'][0]['containers'][0]['cpu_period'] == 50000
    assert result['pods'][0]['containers'][0]['cpu_quota'] == 50000


@pytest.mark.parametrize('args, fragments', [
    ({'pods': 'web'}, ['pods', '"web"']),
    ({'pods': [{'containers': [container('c', {'cpu': 'x'})]}]}, ['pods[0].containers[0].resources.requests.cpu', '"x"']),
    ({'pods': [], 'memory_throttling_factor': 0}, ['memory_throttling_factor', 'greater than 0']),
    ({'pods': [], 'cpu_cfs_quota_period': '50ms', 'kubelet_version': '1.35'},
     ['cpu_cfs_quota_period', 'CustomCPUCFSQuotaPeriod']),
    ({'pods': [], 'cpu_cfs_quota_period': '2s'}, ['between 1ms and 1sec']),
    ({'pods': [], 'cpu_cfs_quota_period': 'soon'}, ['cpu_cfs_quota_period', '"soon"']),
    ({'pods': [], 'memory_capacity': '-1Gi'}, ['memory_capacity', 'positive']),
    ({'pods': [], 'memory_reservation_policy': 'None', 'kubelet_version': '1.35'}, ['only from kubelet 1.36']),
])
def test_bad_input(run_module, args, fragments):
    with pytest.raises(ModuleFail) as failure:
        run_module(pod_cgroup_info, args)
    for fragment in fragments:
        assert fragment in failure.value.result['msg']


def swap_of(result):
    return [(c['name'], c['swap_behavior'], c['memory_swap_max'], c['memory_memsw_limit'])
            for pod in result['pods'] for c in pod['containers']]


def test_limited_swap_goes_to_burstable_containers_in_proportion_to_their_request(run_module):
    burstable = {'containers': [container('half', {'memory': '4Gi'}, {'memory': '6Gi'}),
                                container('request-only', {'memory': '1Gi'}),
                                container('no-memory', {'cpu': '100m'}),
                                container('equal', {'memory': '1Gi'}, {'memory': '1Gi'})]}
    guaranteed = {'containers': [container('g', {'cpu': '1', 'memory': '1Gi'}, {'cpu': '1', 'memory': '1Gi'})]}
    besteffort = {'containers': [container('be')]}
    result = run(run_module, [burstable, guaranteed, besteffort], swap_behavior='LimitedSwap', swap_capacity='3Gi')
    # calcSwapForBurstablePods: int64(request / capacity * swap): 4Gi/8Gi * 3Gi, 1Gi/8Gi * 3Gi.
    assert swap_of(result) == [
        ('half', 'LimitedSwap', 3 * GI // 2, None),
        ('request-only', 'LimitedSwap', 3 * GI // 8, None),
        ('no-memory', 'NoSwap', 0, None),
        ('equal', 'NoSwap', 0, None),
        ('g', 'NoSwap', 0, None),
        ('be', 'NoSwap', 0, None)]


def test_limited_swap_truncates_like_go(run_module):
    pod = {'containers': [container('odd', {'memory': '1000'}, {'memory': '2Gi'})]}
    result = run(run_module, [pod], memory_capacity='3', swap_behavior='LimitedSwap', swap_capacity='7',
                 api_defaults=False)
    # A request above the node's memory: kubelet refuses the formula and gives no swap.
    assert swap_of(result) == [('odd', 'NoSwap', 0, None)]
    result = run(run_module, [pod], memory_capacity='3000', swap_behavior='LimitedSwap', swap_capacity='8')
    assert swap_of(result)[0][2] == 2  # int64(1000 / 3000 * 8) = int64(2.666...), not rounded


@pytest.mark.parametrize('version, swaps', [('1.30', True), ('1.31', False), ('1.36', False)])
def test_critical_pods_never_swap_from_1_31(run_module, version, swaps):
    pod = {'priorityClassName': 'system-cluster-critical',
           'containers': [container('app', {'memory': '1Gi'}, {'memory': '2Gi'})]}
    result = run(run_module, [pod], swap_behavior='LimitedSwap', swap_capacity='8Gi', kubelet_version=version)
    assert swap_of(result) == [('app', 'LimitedSwap', GI, None) if swaps else ('app', 'NoSwap', 0, None)]


def test_no_swap_by_default_and_memsw_on_v1(run_module):
    pod = {'containers': [container('limited', {'memory': '1Gi'}, {'memory': '2Gi'}), container('unlimited')]}
    assert swap_of(run(run_module, [pod])) == [('limited', 'NoSwap', 0, None), ('unlimited', 'NoSwap', 0, None)]
    # cgroup v1: memsw equals the memory limit (no swap above it), ignored without a limit; LimitedSwap is v2 only.
    v1 = run(run_module, [pod], cgroup_mode='v1', swap_behavior='LimitedSwap', swap_capacity='1Gi')
    assert swap_of(v1) == [('limited', 'NoSwap', None, 2 * GI), ('unlimited', 'NoSwap', None, None)]
    # A hybrid host, as cgroup_info names it, is v1 to kubelet; cgroup_version is the older name.
    assert swap_of(run(run_module, [pod], cgroup_mode='hybrid', swap_behavior='LimitedSwap', swap_capacity='1Gi')) \
        == swap_of(run(run_module, [pod], cgroup_version='v1', swap_behavior='LimitedSwap', swap_capacity='1Gi')) \
        == swap_of(v1)


def test_no_swap_limit_without_the_swap_controller_or_before_1_30(run_module):
    pod = {'containers': [container('app', {'memory': '1Gi'}, {'memory': '2Gi'})]}
    assert swap_of(run(run_module, [pod], swap_controller=False)) == [('app', None, None, None)]
    assert swap_of(run(run_module, [pod], kubelet_version='1.29')) == [('app', None, None, None)]


def test_a_node_without_swap_gives_no_container_swap(run_module):
    pod = {'containers': [container('app', {'memory': '1Gi'}, {'memory': '2Gi'})]}
    # cgroup_info reports swap.capacity 0 on such a node: calcSwapForBurstablePods gives 0.
    assert swap_of(run(run_module, [pod], swap_behavior='LimitedSwap', swap_capacity='0')) == [
        ('app', 'LimitedSwap', 0, None)]


@pytest.mark.parametrize('request_, limit, behavior', [
    ('1000500m', '1001', 'LimitedSwap'),  # Value() rounds both to 1001 bytes; Quantity.Cmp tells them apart
    ('1001', '1001', 'NoSwap'),
    ('1Ki', '1024', 'NoSwap'),  # the same amount in other units is equal for Cmp
])
def test_swap_compares_request_and_limit_exactly_as_quantity_cmp(run_module, request_, limit, behavior):
    pod = {'containers': [container('app', {'memory': request_}, {'memory': limit})]}
    result = run(run_module, [pod], swap_behavior='LimitedSwap', swap_capacity='1Gi', api_defaults=False)
    assert swap_of(result)[0][1] == behavior


@pytest.mark.parametrize('args, message', [
    ({'swap_capacity': '9223372036854775808'},
     'swap_capacity: must be at most 9223372036854775807 bytes: kubelet converts it with int64() (got '
     '"9223372036854775808")'),
    ({'memory_capacity': '10E'}, 'memory_capacity: must be at most 9223372036854775807 bytes'),
    ({'swap_capacity': '-1'}, 'swap_capacity: must be a non-negative quantity (got "-1")'),
])
def test_node_byte_counts_beyond_int64_or_negative_are_refused(run_module, args, message):
    pod = {'containers': [container('app', {'memory': '1Gi'}, {'memory': '2Gi'})]}
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [pod], swap_behavior='LimitedSwap', **dict({'swap_capacity': '1Gi'}, **args))
    assert message in failure.value.result['msg']


@pytest.mark.parametrize('args, message', [
    ({'swap_behavior': 'UnlimitedSwap'},
     'memorySwap.swapBehavior "UnlimitedSwap" must be one of: "", "LimitedSwap" or "NoSwap"'),
    ({'swap_behavior': 'LimitedSwap', 'kubelet_version': '1.33', 'feature_gates': {'NodeSwap': False}},
     'memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled'),
    ({'feature_gates': {'NodeSwap': False}}, 'cannot set feature gate NodeSwap to false, feature is locked to true'),
    ({'swap_behavior': 'LimitedSwap'}, 'swap_capacity'),
    ({'swap_behavior': 'LimitedSwap', 'kubelet_version': '1.29', 'feature_gates': {'NodeSwap': True}},
     'NodeSwap is modelled from kubelet 1.30'),
])
def test_swap_settings_kubelet_refuses_are_refused(run_module, args, message):
    pod = {'containers': [container('app', {'memory': '1Gi'})]}
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [pod], **args)
    assert message in failure.value.result['msg']


@pytest.mark.parametrize('pods, args, message', [
    ([{'containers': [container('app', {'cpu': '-100m'})]}], {},
     'containers[0].resources.requests[cpu]: Invalid value: "-100m": must be greater than or equal to 0'),
    ([{'containers': [container('app', {'memory': '2Gi'}, {'memory': '1Gi'})]}], {},
     'containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi'),
    ([{'initContainers': [container('init', None, {'cpu': '-1'})], 'containers': [container('app')]}], {},
     'initContainers[0].resources.limits[cpu]: Invalid value: "-1"'),
    ([{'metadata': {'name': 'empty'}, 'spec': {'containers': []}}], {}, 'pods[0].spec.containers: Required value'),
    ([{'containers': [container('app')]}], {'page_size': 3000}, 'power of two'),
    ([{'containers': [container('app')]}], {'cgroup_root': '/../x'}, 'must be an absolute cgroupfs path'),
    ([{'containers': [container('app')]}], {'feature_gates': {'memoryqos': True}},
     'feature_gates: unrecognized feature gate: memoryqos (no kubelet release knows this name; kubelet 1.37 refuses'
     ' to start with it; did you mean MemoryQoS?; a gate this table misses goes in extra_feature_gates'
     ' (role: node_allocatable_extra_feature_gates))'),
    ([{'containers': [container('app')]}], {'feature_gates': {'DynamicKubeletConfig': False}, 'kubelet_version': '1.26'},
     'unrecognized feature gate: DynamicKubeletConfig (kubelet 1.26 refuses to start with it: the gate was removed'
     ' after kubelet 1.25)'),
])
def test_input_the_api_server_or_kubelet_refuses_gets_no_plan(run_module, pods, args, message):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, pods, **args)
    assert message in failure.value.result['msg']


def test_extra_feature_gates_are_taken_as_they_are(run_module):
    pod = {'containers': [container('app', {'cpu': '100m'})]}
    plain = run(run_module, [pod])
    assert run(run_module, [pod], feature_gates={'VendorGate': True}, extra_feature_gates=['VendorGate']) == plain


@pytest.mark.parametrize('version, hinted', [('1.3', True), (1.3, True), ('1.2', False), ('1.4', False)])
def test_an_unquoted_kubelet_version_gets_a_hint(run_module, version, hinted):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [{'containers': [container('app')]}], kubelet_version=version)
    message = failure.value.result['msg']
    assert 'is not supported' in message
    assert ('quote it, "1.30"' in message) == hinted


@pytest.mark.parametrize('version', [1.3, 1, True])
def test_a_runtime_version_that_is_not_a_string_is_refused(run_module, version):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [{'containers': [container('app')]}], oci_runtime={'name': 'crun', 'version': version})
    assert failure.value.result['msg'].startswith('oci_runtime.version: must be a string such as "1.3.0"')


@pytest.mark.parametrize('name, version, formula', [
    ('runc', '1.1.5', 'linear'), ('runc', '1.3.1', 'linear'), ('runc', '1.3.2', 'quadratic'),
    ('runc', 'v1.4.0', 'quadratic'), ('crun', '1.22', 'linear'), ('crun', '1.23', 'quadratic'),
    ('crun', '1.23.1', 'quadratic')])
def test_the_runtime_release_decides_the_weight_formula(run_module, name, version, formula):
    pod = {'containers': [container('min'), container('tenth', {'cpu': '100m'}), container('one', {'cpu': '1'}),
                          container('max', {'cpu': '256'})]}
    result = run(run_module, [pod], oci_runtime={'name': name, 'version': version})
    assert result['oci_runtime'] == {'name': name, 'version': version, 'formula': formula}
    weights = [c['cpu_weight']['runtime'] for c in result['pods'][0]['containers']]
    # Shares 2, 102, 1024, 262144: linear 1 + (shares - 2) * 9999 // 262142; quadratic as runc >= 1.3.2.
    assert weights == ([1, 4, 39, 10000] if formula == 'linear' else [1, 17, 100, 10000])


@pytest.mark.parametrize('runtime, message', [
    ({'name': 'youki', 'version': '0.4'}, 'oci_runtime.name: no known cpu.weight formula'),
    ({'name': 'runc', 'version': 'latest'}, 'oci_runtime.version: not a release number'),
    ('runc', 'must be a mapping'),
])
def test_an_unknown_runtime_or_release_is_refused(run_module, runtime, message):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [{'containers': [container('app')]}], oci_runtime=runtime)
    assert message in failure.value.result['msg']


def fake_runtime(monkeypatch, tmp_path, printed):
    binary = tmp_path / 'bin' / 'crun'
    binary.parent.mkdir()
    binary.write_text('')
    calls = []

    def run_command(self, argv, **kwargs):
        calls.append(argv)
        return 0, printed, ''
    monkeypatch.setattr(pod_cgroup_info.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(pod_cgroup_info.AnsibleModule, 'get_bin_path',
                        lambda self, name, required=False: str(tmp_path / 'bin' / name))
    return calls


def test_auto_reads_containerds_default_runtime_and_asks_its_binary(run_module, monkeypatch, tmp_path):
    (tmp_path / 'config.toml').write_text('''version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "crun"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.crun.options]
  BinaryName = "%s"
  SystemdCgroup = true
''' % (tmp_path / 'bin' / 'crun'))
    calls = fake_runtime(monkeypatch, tmp_path, 'crun version 1.21\ncommit: 0\nspec: 1.0.0\n+SYSTEMD +SELINUX\n')
    result = run(run_module, [{'containers': [container('app', {'cpu': '100m'})]}], oci_runtime='auto',
                 containerd_config_path=str(tmp_path / 'config.toml'), crio_config_paths=[])
    assert calls == [[str(tmp_path / 'bin' / 'crun'), '--version']]
    assert result['oci_runtime']['engine'] == 'containerd' and result['oci_runtime']['runtime'] == 'crun'
    assert (result['oci_runtime']['version'], result['oci_runtime']['formula']) == ('1.21', 'linear')
    assert result['pods'][0]['containers'][0]['cpu_weight']['runtime'] == 4


def test_auto_reads_crios_default_runtime(run_module, monkeypatch, tmp_path):
    (tmp_path / 'crio.conf').write_text('[crio.runtime]\ndefault_runtime = "crun"\n\n'
                                        '[crio.runtime.runtimes.crun]\nruntime_path = ""\n')
    fake_runtime(monkeypatch, tmp_path, 'crun version 1.24\n')
    result = run(run_module, [{'containers': [container('app', {'cpu': '100m'})]}], oci_runtime='auto',
                 containerd_config_path=str(tmp_path / 'none.toml'), crio_config_paths=[str(tmp_path / 'crio.conf')])
    assert result['oci_runtime']['engine'] == 'crio' and result['oci_runtime']['formula'] == 'quadratic'
    assert result['pods'][0]['containers'][0]['cpu_weight']['runtime'] == 17


def test_auto_without_a_runtime_fails_and_says_what_to_give(run_module, tmp_path):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [{'containers': [container('app')]}], oci_runtime='auto',
            containerd_config_path=str(tmp_path / 'none.toml'), crio_config_paths=[])
    assert 'give oci_runtime as {name, version}' in failure.value.result['msg']


@pytest.mark.parametrize('version, mode, single, group', [
    ('1.27', 'v2', None, None),  # before PR #117793
    ('1.28', 'v2', None, 1),
    ('1.31', 'v1', None, None),
    ('1.36', 'v2', None, 1),  # singleProcessOOMKill unset: false on cgroup v2
    ('1.36', 'v2', False, 1),
    ('1.36', 'v2', True, None),
    ('1.36', 'hybrid', True, None),
])
def test_containers_get_memory_oom_group_on_cgroup_v2_unless_single_process_oom_kill(
        run_module, version, mode, single, group):
    pod = {'initContainers': [container('init', {'cpu': '100m'})], 'containers': [container('app', {'cpu': '100m'})]}
    result = run(run_module, [pod], kubelet_version=version, cgroup_mode=mode, single_process_oom_kill=single)
    assert [c['memory_oom_group'] for c in result['pods'][0]['containers']] == [group, group]


@pytest.mark.parametrize('args, message', [
    ({'kubelet_version': '1.31', 'single_process_oom_kill': True},
     'single_process_oom_kill: singleProcessOOMKill exists only from kubelet 1.32 (got True)'),
    ({'cgroup_mode': 'v1', 'single_process_oom_kill': False},
     'single_process_oom_kill: invalid configuration: singleProcessOOMKill must not be explicitly set to false when '
     'using cgroup v1 (got False)'),
])
def test_single_process_oom_kill_kubelet_refuses_is_refused(run_module, args, message):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [{'containers': [container('app')]}], **args)
    assert failure.value.result['msg'] == message


def _guaranteed(name, cpu, **extra):
    return container(name, {'cpu': cpu, 'memory': '1Gi'}, {'cpu': cpu, 'memory': '1Gi'}, **extra)


@pytest.mark.parametrize('args, exclusive, quotas, pod_quota', [
    # static policy, 1.33+: the gate is on by default, quota -1 for the container and its pod.
    ({'cpu_manager_policy': 'static'}, [2, 0], [-1, 50000], -1),
    # the default policy gives nobody CPUs of their own
    ({}, [0, 0], [200000, 50000], 250000),
    # before 1.33 the gate does not exist: the quota stays
    ({'cpu_manager_policy': 'static', 'kubelet_version': '1.32'}, [2, 0], [200000, 50000], 250000),
    # turned off (1.33-1.36; locked on from 1.37)
    ({'cpu_manager_policy': 'static', 'kubelet_version': '1.36',
      'feature_gates': {'DisableCPUQuotaWithExclusiveCPUs': False}}, [2, 0], [200000, 50000], 250000),
    # cpuCFSQuota false: no quota anywhere, exclusive or not
    ({'cpu_manager_policy': 'static', 'cpu_cfs_quota': False}, [2, 0], [None, None], -1),
])
def test_exclusive_cpus_of_the_static_policy_have_no_cfs_quota(run_module, args, exclusive, quotas, pod_quota):
    pod = {'containers': [_guaranteed('whole', '2'), _guaranteed('part', '500m')]}
    result = run(run_module, [pod], **args)['pods'][0]
    assert [c['exclusive_cpus'] for c in result['containers']] == exclusive
    assert [c['cpu_quota'] for c in result['containers']] == quotas
    assert result['resources']['cpu_quota'] == pod_quota


def test_any_guaranteed_container_with_exclusive_cpus_takes_the_pod_quota_off(run_module):
    """podHasExclusiveCPUs: a regular init container's exclusive CPUs count too - every container of the pod is
    admitted, and holds its CPUs, before the pod cgroup is made (the kubelet judge showed it)."""
    burstable = {'containers': [container('app', {'cpu': '2'}, {'cpu': '2'})]}  # no memory limit: Burstable
    setup_only = {'initContainers': [_guaranteed('setup', '1')], 'containers': [_guaranteed('app', '500m')]}
    sidecar = {'initContainers': [_guaranteed('proxy', '1', restartPolicy='Always')],
               'containers': [_guaranteed('app', '500m')]}
    result = run(run_module, [burstable, setup_only, sidecar], cpu_manager_policy='static')['pods']
    assert [[c['exclusive_cpus'] for c in pod['containers']] for pod in result] == [[0], [1, 0], [1, 0]]
    assert [c['cpu_quota'] for c in result[1]['containers']] == [-1, 50000]
    assert [pod['resources'].get('cpu_quota') for pod in result] == [200000, -1, -1]


@pytest.mark.parametrize('version, pod_hugetlb', [
    ('1.32', {}),  # hugepages are not a pod-level resource yet, and the containers name none
    ('1.33', {'2MB': 64 * MI}),  # PR #130577: ResourceConfigForPod takes the pod-level request
])
def test_pod_level_hugepages_give_the_pod_cgroup_its_hugetlb_limit(run_module, version, pod_hugetlb):
    pod = {'spec': {'resources': {'requests': {'cpu': '1', 'hugepages-2Mi': '64Mi'}},
                    'containers': [container('app', {'cpu': '500m'})]}}
    result = run(run_module, [pod], kubelet_version=version, hugepage_sizes=['2Mi', 'hugepages-1Gi'],
                 feature_gates={'PodLevelResources': True})['pods'][0]
    assert result['resources']['hugetlb'] == pod_hugetlb
    # every page size of the node gets a limit on the pod cgroup, 0 where the pod requests none
    assert result['v2_files']['hugetlb.2MB.max'] == str(pod_hugetlb.get('2MB', 0))
    assert result['v2_files']['hugetlb.1GB.max'] == result['v1_files']['hugetlb.1GB.limit_in_bytes'] == '0'


@pytest.mark.parametrize('version, passed_down', [('1.33', 0), ('1.34', 64 * MI)])
def test_containers_get_every_node_page_size_and_from_1_34_the_pod_level_hugepages(run_module, version, passed_down):
    pod = {'spec': {'resources': {'requests': {'hugepages-2Mi': '64Mi'}, 'limits': {'hugepages-2Mi': '64Mi'}},
                    'containers': [container('plain', {'cpu': '500m'}),
                                   container('own', {'cpu': '500m', 'hugepages-1Gi': '1Gi'},
                                             {'hugepages-1Gi': '1Gi'})]}}
    result = run(run_module, [pod], kubelet_version=version, hugepage_sizes=['2Mi', '1Gi'])['pods'][0]
    # GetHugepageLimitsFromResources: 0 for each node size; from 1.34 (PR #131089) the pod-level limits over them,
    # then the container's own, size by size - a container naming 1Gi keeps the pod's 2Mi (the kubelet judge).
    assert [c['hugetlb'] for c in result['containers']] == [
        {'2MB': passed_down, '1GB': 0}, {'2MB': passed_down, '1GB': 1024 * MI}]


def test_the_kernels_page_size_names_are_taken_as_ls_prints_them(run_module):
    """hugepage_sizes as `ls /sys/kernel/mm/hugepages` prints them, which the documentation says to copy."""
    pod = {'containers': [container('app', {'cpu': '1', 'hugepages-2Mi': '4Mi'}, {'hugepages-2Mi': '4Mi'})]}
    kernel = run(run_module, [pod], hugepage_sizes=['hugepages-2048kB', '1048576kB'])['pods'][0]
    quantities = run(run_module, [pod], hugepage_sizes=['2Mi', '1Gi'])['pods'][0]
    assert kernel['containers'][0]['hugetlb'] == quantities['containers'][0]['hugetlb'] == {'2MB': 4 * MI, '1GB': 0}
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [pod], hugepage_sizes=['hugepages-0kB'])
    assert failure.value.result['msg'].startswith('hugepage_sizes[0]: must be a positive page size')


@pytest.mark.parametrize('sizes, fragment', [
    (['3000'], 'hugepage_sizes[0]'),
    (['-2Mi'], 'hugepage_sizes[0]: must be a positive page size'),
])
def test_bad_hugepage_sizes_are_refused(run_module, sizes, fragment):
    with pytest.raises(ModuleFail) as failure:
        run(run_module, [{'containers': [container('app')]}], hugepage_sizes=sizes)
    assert fragment in failure.value.result['msg']


def _resizing(condition=None, legacy=None, status_resources=None, allocated=None):
    status = {'conditions': [condition] if condition else [],
              'containerStatuses': [dict({'name': 'app'}, **(
                  {'resources': status_resources} if status_resources else {}), **(
                  {'allocatedResources': allocated} if allocated else {}))]}
    if legacy:
        status['resize'] = legacy
    return {'metadata': {'name': 'web', 'uid': 'u-1'},
            'spec': {'containers': [container('app', {'cpu': '2', 'memory': '1Gi'}, {'cpu': '2', 'memory': '2Gi'})]},
            'status': status}


PENDING = {'type': 'PodResizePending', 'status': 'True', 'reason': 'Deferred', 'message': 'Node didn\'t have enough '
           'capacity: cpu, requested: 2000, capacity: 1500'}
WAS = {'requests': {'cpu': '1', 'memory': '1Gi'}, 'limits': {'cpu': '1', 'memory': '2Gi'}}


def test_a_pending_resize_keeps_the_allocation_and_says_what_the_cgroups_become(run_module):
    result = run(run_module, [_resizing(PENDING, status_resources=WAS)], kubelet_version='1.35')
    pod = result['pods'][0]
    # UpdatePodFromAllocation: the cgroups follow the allocation (1 CPU), not the spec's 2 CPUs.
    assert (pod['resources']['cpu_shares'], pod['resources']['cpu_quota']) == (1024, 100000)
    assert pod['containers'][0]['cpu_shares'] == 1024
    assert result['qos']['burstable']['resources']['cpu_shares'] == 1024  # the QoS tier sums the allocation
    assert pod['resize']['state'] == 'pending' and pod['resize']['reason'] == 'Deferred'
    assert 'capacity: 1500' in pod['resize']['message']
    done = pod['resize']['once_done']
    assert (done['resources']['cpu_shares'], done['resources']['cpu_quota']) == (2048, 200000)
    assert done['containers'][0]['cpu_quota'] == 200000 and done['v2_files']['cpu.max'] == '200000 100000'


def test_a_resize_in_progress_is_carried_out_to_the_spec(run_module):
    in_progress = {'type': 'PodResizeInProgress', 'status': 'True'}
    pod = run(run_module, [_resizing(in_progress, status_resources=WAS)], kubelet_version='1.35')['pods'][0]
    assert pod['resources']['cpu_shares'] == 2048 and pod['resize'] == {'state': 'in_progress', 'reason': '',
                                                                        'message': ''}


@pytest.mark.parametrize('version, gates, shares, resize', [
    ('1.32', {'InPlacePodVerticalScaling': True}, 1024, 'pending'),  # status.resize and allocatedResources
    ('1.32', {}, 2048, None),  # the gate is off by default before 1.33: spec resources are immutable
])
def test_a_resize_before_1_33_reads_status_resize_and_allocated_resources(run_module, version, gates, shares, resize):
    pod = _resizing(legacy='Infeasible', allocated={'cpu': '1', 'memory': '1Gi'})
    result = run(run_module, [pod], kubelet_version=version, feature_gates=gates)['pods'][0]
    assert result['containers'][0]['cpu_shares'] == shares
    assert (result.get('resize') or {}).get('state') == resize
    # allocatedResources holds requests only: the limits stay the spec's
    assert result['containers'][0]['cpu_quota'] == 200000


# kuberuntime_container_linux_test.go, TestGetHugepageLimitsFromResources, on a node with 2MB and 1GB pages.
@pytest.mark.parametrize('name, limits, expected', [
    ('Success2MB', {'hugepages-2Mi': '2Mi'}, {'2MB': 2097152, '1GB': 0}),
    ('Success1GB', {'hugepages-1Gi': '2Gi'}, {'2MB': 0, '1GB': 2147483648}),
    ('Skip2MB', {'hugepages-2MB': '2Mi'}, {'2MB': 0, '1GB': 0}),
    ('Skip1GB', {'hugepages-1GB': '2Gi'}, {'2MB': 0, '1GB': 0}),
    ('Success2MBand1GB', {'cpu': '0', 'hugepages-2Mi': '2Mi', 'hugepages-1Gi': '2Gi'},
     {'2MB': 2097152, '1GB': 2147483648}),
    ('Skip2MBand1GB', {'cpu': '0', 'hugepages-2MB': '2Mi', 'hugepages-1GB': '2Gi'}, {'2MB': 0, '1GB': 0}),
])
def test_kubelet_vectors_get_hugepage_limits_from_resources(run_module, name, limits, expected):
    pod = {'containers': [container('c', None, limits)]}
    result = run(run_module, [pod], hugepage_sizes=['2Mi', '1Gi'], kubelet_version='1.33')
    assert result['pods'][0]['containers'][0]['hugetlb'] == expected, name


# kuberuntime_container_linux_test.go, TestGenerateLinuxContainerResources: MemoryCapacity 17179860387, no CFS quota.
@pytest.mark.parametrize('mode, single, requests, limits, shares, memory, adjust', [
    ('v1', True, {'cpu': '250m', 'memory': '500Mi'}, {'cpu': '250m', 'memory': '500Mi'}, 256, 524288000, -997),
    ('v1', True, {'cpu': '250m', 'memory': '500Mi'}, {'cpu': '500m', 'memory': '750Mi'}, 256, 786432000, 970),
    ('v1', True, None, None, 2, None, 1000),
    ('v2', False, {'cpu': '250m', 'memory': '500Mi'}, {'cpu': '250m', 'memory': '500Mi'}, 256, 524288000, -997),
    ('v2', False, {'cpu': '250m', 'memory': '500Mi'}, {'cpu': '500m', 'memory': '750Mi'}, 256, 786432000, 970),
    ('v2', False, None, None, 2, None, 1000),
])
def test_kubelet_vectors_generate_linux_container_resources(
        run_module, mode, single, requests, limits, shares, memory, adjust):
    result = run(run_module, [{'containers': [container('c1', requests, limits)]}], cgroup_mode=mode,
                 single_process_oom_kill=single, memory_capacity='17179860387', cpu_cfs_quota=False,
                 swap_controller=False)
    values = result['pods'][0]['containers'][0]
    assert (values['cpu_shares'], values['memory_limit'], values['oom_score_adj']) == (shares, memory, adjust)
    assert values['memory_oom_group'] == (1 if mode == 'v2' else None)
    assert values['cpu_quota'] is None


def _swap_pod(qos, c2='requests', critical=False):
    """TestGenerateLinuxContainerResourcesWithSwap's pod: c1 and c2, by QoS class and c2's kind."""
    if qos == 'Guaranteed':
        both = [container('c1', {'memory': '1Gi', 'cpu': '1'}, {'memory': '1Gi', 'cpu': '1'}),
                container('c2', {'memory': '2Gi', 'cpu': '1'}, {'memory': '2Gi', 'cpu': '1'})]
    elif qos == 'BestEffort':
        both = [container('c1'), container('c2')]
    else:
        second = {'requests': container('c2', {'memory': '2Gi'}), 'none': container('c2'),
                  'guaranteed': container('c2', {'memory': '2Gi'}, {'memory': '2Gi'})}[c2]
        both = [container('c1', {'memory': '1Gi'}), second]
    spec = {'containers': both}
    if critical:
        spec['priority'] = 2000000000
    return {'metadata': {'name': 'foo', 'namespace': 'bar', 'uid': '12345678'}, 'spec': spec}


# kuberuntime_container_linux_test.go, TestGenerateLinuxContainerResourcesWithSwap: MemoryCapacity 40Gi, SwapCapacity
# 5Gi; a LimitedSwap container gets request / 40Gi * 5Gi (calcSwapForBurstablePods). The cases with the NodeSwap gate
# off are left out: kubelet refuses that configuration at start-up (tested above).
@pytest.mark.parametrize('name, mode, qos, c2, behavior, controller, critical, expected', [
    ('cgroups v1, LimitedSwap, Burstable QoS', 'v1', 'Burstable', 'requests', 'LimitedSwap', True, False,
     [(None, None), (None, None)]),
    ('cgroups v1, LimitedSwap, Best-effort QoS', 'v1', 'BestEffort', None, 'LimitedSwap', True, False,
     [(None, None), (None, None)]),
    ('With no swapBehavior - NoSwap should be the default', 'v2', 'BestEffort', None, '', True, False,
     [(0, None), (0, None)]),
    ('Best-effort QoS, cgroups v2, NoSwap', 'v2', 'BestEffort', None, 'NoSwap', True, False, [(0, None), (0, None)]),
    ('Guaranteed QoS, cgroups v2, LimitedSwap', 'v2', 'Guaranteed', None, 'LimitedSwap', True, False,
     [(0, None), (0, None)]),
    ('Burstable QoS, cgroups v2, LimitedSwap, with a guaranteed container', 'v2', 'Burstable', 'guaranteed',
     'LimitedSwap', True, False, [(GI // 8, None), (0, None)]),
    ('Burstable QoS, cgroups v2, LimitedSwap', 'v2', 'Burstable', 'requests', 'LimitedSwap', True, False,
     [(GI // 8, None), (GI // 4, None)]),
    ('Burstable QoS, cgroups v2, LimitedSwap, with a container with no requests', 'v2', 'Burstable', 'none',
     'LimitedSwap', True, False, [(GI // 8, None), (0, None)]),
    ('Swap disabled on node, cgroups v1, LimitedSwap, Burstable QoS', 'v1', 'Burstable', 'requests', 'LimitedSwap',
     False, False, [(None, None), (None, None)]),
    ('Swap disabled on node, Burstable QoS, cgroups v2, LimitedSwap', 'v2', 'Burstable', 'requests', 'LimitedSwap',
     False, False, [(None, None), (None, None)]),
    ('Best-effort QoS, cgroups v2, LimitedSwap, critical pod', 'v2', 'Burstable', 'requests', 'LimitedSwap', True,
     True, [(0, None), (0, None)]),
])
def test_kubelet_vectors_generate_linux_container_resources_with_swap(
        run_module, name, mode, qos, c2, behavior, controller, critical, expected):
    result = run(run_module, [_swap_pod(qos, c2, critical)], cgroup_mode=mode, swap_behavior=behavior,
                 swap_controller=controller, memory_capacity='40Gi', swap_capacity='5Gi')
    containers = result['pods'][0]['containers']
    # (memory.swap.max on v2, memory.memsw.limit_in_bytes on v1): None where kubelet writes none - on v1 the
    # memsw limit is the memory limit, which these containers do not have.
    assert [(c['memory_swap_max'], c['memory_memsw_limit']) for c in containers] == expected, name
