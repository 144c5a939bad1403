# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Properties of the pod and container values on random pods, each stated as kubelet's source states it:
the allocation decides a resized pod's cgroups, every node page size gets a hugetlb limit, exclusive CPUs
lose their quota, memory.oom.group follows the cgroup version and singleProcessOOMKill."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from hypothesis import given, strategies as st

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import plan_pods

MI = 1024 * 1024
PAGE_SIZES = {'2Mi': ('2MB', 2 * MI), '1Gi': ('1GB', 1024 * MI)}

milli_cpus = st.sampled_from([0, 100, 250, 500, 1000, 1500, 2000, 3000])
memory_mi = st.sampled_from([0, 64, 128, 512, 1024])


@st.composite
def resources(draw):
    """(requests, limits) of a container: limits at or above requests, some left out."""
    cpu, memory = draw(milli_cpus), draw(memory_mi)
    requests, limits = {}, {}
    if cpu:
        requests['cpu'] = '%dm' % cpu
    if memory:
        requests['memory'] = '%dMi' % memory
    if draw(st.booleans()):
        limits['cpu'] = '%dm' % (cpu + draw(st.sampled_from([0, 0, 500])))
        limits['memory'] = '%dMi' % (memory + draw(st.sampled_from([0, 0, 256])))
        limits = dict((k, v) for k, v in limits.items() if not v.startswith('0'))
    return requests, limits


def _container(name, pair, **extra):
    requests, limits = pair
    return dict({'name': name, 'resources': {'requests': requests, 'limits': limits}}, **extra)


@st.composite
def pods(draw):
    count = draw(st.integers(min_value=1, max_value=3))
    return {'metadata': {'name': 'p', 'uid': 'u'},
            'spec': {'containers': [_container('c%d' % i, draw(resources())) for i in range(count)]}}


def _values(entry):
    """What kubelet writes for a pod: its cgroup files and resources, and each container's values."""
    return dict((key, entry[key]) for key in ('resources', 'v1_files', 'v2_files', 'systemd_properties',
                                              'containers', 'qos_class'))


def _scaled(values, factor):
    return dict((name, '%d%s' % (int(text.rstrip('miM')) * factor, text.lstrip('0123456789')))
                for name, text in values.items())


@given(pod=pods(), factors=st.lists(st.sampled_from([1, 2, 3]), min_size=3, max_size=3),
       mode=st.sampled_from(['v1', 'v2']), version=st.sampled_from(['1.33', '1.35', '1.36']))
def test_a_pending_resize_is_planned_as_the_pod_its_allocation_describes(pod, factors, mode, version):
    containers = pod['spec']['containers']
    # The allocation: each container's values scaled (a resize keeps which resources are set, and so the QoS class).
    allocated = [(_scaled(c['resources']['requests'], factors[i]), _scaled(c['resources']['limits'], factors[i]))
                 for i, c in enumerate(containers)]
    statuses = [{'name': c['name'], 'resources': {'requests': allocated[i][0], 'limits': allocated[i][1]}}
                for i, c in enumerate(containers)]
    common = {'memory_capacity': '8Gi', 'cgroup_mode': mode, 'kubelet_version': version}
    # A resize never changes the QoS class (the API server refuses one that would); status.qosClass keeps it.
    qos = plan_pods(dict(common, pods=[pod]))['pods'][0]['qos_class']
    resizing = dict(pod, status={'conditions': [{'type': 'PodResizePending', 'status': 'True', 'reason': 'Deferred'}],
                                 'containerStatuses': statuses, 'qosClass': qos})
    as_allocated = dict(pod, spec={'containers': [_container(c['name'], allocated[i])
                                                  for i, c in enumerate(containers)]}, status={'qosClass': qos})
    planned = plan_pods(dict(common, pods=[resizing]))
    assert _values(planned['pods'][0]) == _values(plan_pods(dict(common, pods=[as_allocated]))['pods'][0])
    assert planned['qos'] == plan_pods(dict(common, pods=[as_allocated]))['qos']
    # once done, the spec's values
    assert _values(dict(planned['pods'][0]['resize']['once_done'], qos_class=planned['pods'][0]['qos_class'])) \
        == _values(dict(plan_pods(dict(common, pods=[pod]))['pods'][0], qos_class=planned['pods'][0]['qos_class']))


@given(pod=pods(), node=st.sets(st.sampled_from(sorted(PAGE_SIZES))),
       named=st.dictionaries(st.sampled_from(sorted(PAGE_SIZES)), st.sampled_from([2, 4, 8])),
       version=st.sampled_from(['1.33', '1.34', '1.36']), pod_level=st.sampled_from([{}, {'2Mi': 16}]))
def test_every_node_page_size_and_every_named_size_get_a_container_hugetlb_limit(pod, node, named, version,
                                                                                 pod_level):
    first = pod['spec']['containers'][0]['resources']
    for size, pages in named.items():
        first['limits']['hugepages-' + size] = first['requests']['hugepages-' + size] = '%dMi' % (
            pages * PAGE_SIZES[size][1] // MI)
    if pod_level:
        pod['spec']['resources'] = {'requests': {'hugepages-2Mi': '32Mi'}, 'limits': {'hugepages-2Mi': '32Mi'}}
    planned = plan_pods({'pods': [pod], 'memory_capacity': '8Gi', 'kubelet_version': version,
                         'hugepage_sizes': sorted(node)})['pods'][0]
    for index, values in enumerate(planned['containers']):
        own = named if index == 0 else {}
        # GetHugepageLimitsFromResources: from 1.34 (PR #131089, PodLevelResources on) the pod-level limits first,
        # the container's own over them size by size; only the node's sizes are kept.
        required = {'2MB': 32 * MI} if pod_level and version != '1.33' else {}
        required.update((PAGE_SIZES[size][0], pages * PAGE_SIZES[size][1]) for size, pages in own.items())
        expected = dict((PAGE_SIZES[size][0], required.get(PAGE_SIZES[size][0], 0)) for size in node)
        assert values['hugetlb'] == expected
    # the pod cgroup has a limit for every node size too
    assert set(PAGE_SIZES[size][0] for size in node) <= set(
        name.split('.')[1] for name in planned['v2_files'] if name.startswith('hugetlb.'))


@given(pod=pods(), policy=st.sampled_from(['none', 'static']), gate=st.sampled_from([None, True, False]),
       version=st.sampled_from(['1.33', '1.36']))
def test_exclusive_cpus_lose_their_cfs_quota(pod, policy, gate, version):
    gates = {} if gate is None else {'DisableCPUQuotaWithExclusiveCPUs': gate}
    planned = plan_pods({'pods': [pod], 'memory_capacity': '8Gi', 'cpu_manager_policy': policy,
                         'feature_gates': gates, 'kubelet_version': version})['pods'][0]
    quota_off = gate is not False
    any_exclusive = False
    for spec, values in zip(pod['spec']['containers'], planned['containers']):
        cpu = spec['resources']['requests'].get('cpu')
        milli = int(cpu[:-1]) if cpu else 0
        exclusive = policy == 'static' and planned['qos_class'] == 'Guaranteed' and milli and milli % 1000 == 0
        assert values['exclusive_cpus'] == (milli // 1000 if exclusive else 0)
        any_exclusive = any_exclusive or bool(exclusive)
        if exclusive and quota_off:
            assert values['cpu_quota'] == -1
        else:
            assert values['cpu_quota'] != -1 or not spec['resources']['limits'].get('cpu')
    if any_exclusive and quota_off:
        assert planned['resources']['cpu_quota'] == -1


@given(pod=pods(), mode=st.sampled_from(['v1', 'v2', 'hybrid']),
       version=st.sampled_from(['1.27', '1.28', '1.31', '1.32', '1.36']), single=st.sampled_from([None, True, False]))
def test_memory_oom_group_follows_the_cgroup_version_and_single_process_oom_kill(pod, mode, version, single):
    minor = int(version.split('.')[1])
    if single is not None and (minor < 32 or single is False and mode != 'v2'):
        return  # refused as kubelet refuses it (tested in test_pod_cgroup_info)
    planned = plan_pods({'pods': [pod], 'memory_capacity': '8Gi', 'cgroup_mode': mode, 'kubelet_version': version,
                         'single_process_oom_kill': single})['pods'][0]
    expected = 1 if mode == 'v2' and minor >= 28 and not single else None
    assert [c['memory_oom_group'] for c in planned['containers']] == [expected] * len(planned['containers'])


def _memory_high_as_the_kep_states_it(request, limit, qos, allocatable, factor, minor):
    """KEP-2570's table: none for Guaranteed (and before 1.37 for BestEffort too); else
    floor((request + factor x (limit or allocatable - request)) / page) x page, kept only above the request."""
    if qos == 'Guaranteed' or (qos == 'BestEffort' and minor < 37) or request == limit and qos != 'BestEffort':
        return None
    ceiling = limit or allocatable
    high = int((request + (ceiling - request) * factor) // 4096) * 4096
    return high if high > request else None


@given(pod=pods(), mode=st.sampled_from(['v1', 'v2']), version=st.sampled_from(['1.27', '1.36', '1.37']),
       gate=st.sampled_from([None, True, False]), factor=st.sampled_from([None, 0.5, 0.9, 1.0]))
def test_memory_high_follows_the_gate_the_release_and_the_factor(pod, mode, version, gate, factor):
    minor = int(version.split('.')[1])
    gates = {} if gate is None else {'MemoryQoS': gate}
    planned = plan_pods({'pods': [pod], 'allocatable_memory': '8Gi', 'cgroup_mode': mode, 'kubelet_version': version,
                         'feature_gates': gates, 'memory_throttling_factor': factor})['pods'][0]
    enabled = gate if gate is not None else minor >= 37
    effective = factor if factor is not None else (0.9 if minor < 37 else None)
    for spec, values in zip(pod['spec']['containers'], planned['containers']):
        if mode == 'v1':
            expected = None
        elif not enabled:
            expected = 'max' if minor >= 37 else None
        elif effective is None:
            expected = None
        else:
            request = int(spec['resources']['requests'].get('memory', '0Mi')[:-2]) * MI
            limit = int(spec['resources']['limits'].get('memory', '0Mi')[:-2]) * MI
            expected = _memory_high_as_the_kep_states_it(request, limit, planned['qos_class'], 8 * 1024 * MI,
                                                         effective, minor)
        assert values['memory_high'] == expected, (spec, values)
