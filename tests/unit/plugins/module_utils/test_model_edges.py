# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Edges of kubelet's arithmetic in the pure model that no other test pinned: each found by `make mutation
MUTATION_ARGS="--sample 120"` (docs/testing.md), a mutant of the named rule that every other test let through."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from fractions import Fraction

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _admission as adm
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import (
    PlanOptions, parse_qos_reserved, plan_node)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._eviction import _round_to_float32, parse_threshold
from ansible_collections.kubenode.cgroups.tests.unit.plugins.module_utils.test_admission import (
    ALLOCATABLE, ON, by_pod, container, memory_pod, pod)


def test_the_last_millicore_is_refused_when_the_node_is_full():
    """predicate.go: a request above what is left is refused, whatever its size: one millicore too."""
    results = by_pod(adm.admit([pod('full', [container(requests={'cpu': '2'})], created='1'),
                                pod('one', [container(requests={'cpu': '1m'})], created='2')], ALLOCATABLE, ON))
    assert results['default/full']['admitted'] and not results['default/one']['admitted']
    assert results['default/one']['reason'] == 'OutOfcpu'


def test_static_pods_that_fill_the_node_exactly_fit_it_and_leave_no_room():
    """Two static pods that take the whole memory between them are admitted together in some order, and the third,
    small one is then refused: kubelet's random order may refuse it."""
    results = by_pod(adm.admit([memory_pod('a', 512, static=True), memory_pod('b', 512, static=True),
                                memory_pod('small', 10, static=True)], ALLOCATABLE, ON))
    assert results['default/small']['static_order'] == 'maybe'


def test_every_set_of_other_static_pods_is_tried_not_only_the_first_ones():
    """The candidate fits beside the first other pod, and the two others do not fit together: only the second one
    alone leaves it no room, and that order exists."""
    results = by_pod(adm.admit([memory_pod('candidate', 300, static=True), memory_pod('first', 700, static=True),
                                memory_pod('second', 800, static=True)], ALLOCATABLE, ON))
    assert results['default/candidate']['static_order'] == 'maybe'


def test_reserved_cpus_are_judged_against_the_online_cpus_read_not_a_count():
    """A CPU id below the capacity's count may still be offline: the online list read from the node decides."""
    options = dict(capacity={'cpu': '4', 'memory': '16Gi'}, reserved_system_cpus='2')
    with pytest.raises(KubenodeError) as error:
        plan_node(PlanOptions(online_cpus=[0, 1, 4, 5], **options))
    assert 'reserved CPUs 2 are not online CPUs of this node (online: 0-1,4-5)' in str(error.value)
    assert plan_node(PlanOptions(**options)).reserved_system_cpus == '2'  # no list read: 0..cpu-1


def test_qos_reserved_names_the_resource_it_cannot_reserve():
    with pytest.raises(KubenodeError) as error:
        parse_qos_reserved({'cpu': '50%'}, {'QOSReserved': True})
    assert (error.value.field, error.value.value) == ('qos_reserved', 'cpu')
    assert 'cannot reserve "cpu" resource' in str(error.value)


def test_cpu_shares_are_capped_at_kubelets_max_shares():
    """MilliCPUToShares: 262144 (MaxShares) however many CPUs are asked."""
    assert cgmath.milli_cpu_to_shares(256000) == 262144
    assert cgmath.milli_cpu_to_shares(10 ** 9) == 262144
    assert cgmath.milli_cpu_to_shares(1) == 2


def test_systemd_rounds_the_quota_per_second_up_to_ten_milliseconds_and_writes_the_quota_from_it():
    """opencontainers/cgroups' systemd driver: 1234 us per 100 ms is 12340 us per second, rounded up to 20000, and
    the quota written is 2000 us per 100 ms."""
    assert cgmath.systemd_cpu_quota(1234, 100000) == (20000, 2000)
    assert cgmath.systemd_cpu_quota(1234, 50000) == (30000, 1500)
    assert cgmath.systemd_cpu_quota(50000, 100000) == (500000, 50000)  # already a multiple: unchanged


def test_the_root_cgroup_name_is_the_root_slice():
    assert names.systemd_unit(['']) == '-.slice' and names.to_systemd(['']) == '/'
    assert names.systemd_unit([]) == '-.slice' and names.to_systemd([]) == '/'


def test_a_threshold_that_is_no_quantity_names_its_signal():
    with pytest.raises(KubenodeError) as error:
        parse_threshold('memory.available', True, 'eviction_hard')
    assert error.value.field == 'eviction_hard.memory.available'


@pytest.mark.parametrize('value, expected', [
    (16777217, 16777216.0),  # halfway, the lower neighbour even: kept
    (16777219, 16777220.0),  # halfway, the lower neighbour odd: up to the even one
    (16777218, 16777218.0),
])
def test_float32_ties_round_to_even_as_go_parses_them(value, expected):
    """strconv.ParseFloat(s, 32): a value halfway between two float32s takes the one with an even mantissa."""
    assert _round_to_float32(Fraction(value)) == expected


def test_float32_rounding_keeps_the_sign_of_a_fraction_below_one():
    assert _round_to_float32(Fraction(-1, 2)) == -0.5 and _round_to_float32(Fraction(-1, 10)) == -0.10000000149011612


def test_an_unknown_topology_manager_option_is_refused_in_kubelets_words():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
    with pytest.raises(KubenodeError) as error:
        kc.validate({'topologyManagerPolicyOptions': {'prefer-closest-numa-nodes': 'true', 'bogus': 'true'}}, '1.36')
    assert (error.value.field, error.value.value) == ('topologyManagerPolicyOptions', 'bogus')
    assert 'unsupported topologymanager option: "bogus"' in str(error.value)


def test_pod_level_limits_equal_to_its_requests_make_a_guaranteed_pod():
    """ComputePodQOS with PodLevelResources: the pod's own requests and limits decide, cpu and memory both limited."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import qos_class
    both = {'cpu': '1', 'memory': '1Gi'}
    guaranteed = pod('g', [container()], resources={'requests': both, 'limits': both})
    cpu_only = pod('b', [container()], resources={'requests': both, 'limits': {'cpu': '1'}})
    requests_only = pod('r', [container()], resources={'requests': both})
    assert qos_class(guaranteed.pod, True) == 'Guaranteed'
    assert qos_class(cpu_only.pod, True) == 'Burstable' and qos_class(requests_only.pod, True) == 'Burstable'
    assert qos_class(guaranteed.pod, False) == 'BestEffort'  # the gate off: the containers, which set nothing


def test_a_pressure_file_is_read_whole():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._reservation import parse_pressure
    text = 'some avg10=1.50 avg60=0.25 avg300=0.00 total=120\nfull avg10=0.75 avg60=0.00 avg300=0.00 total=60\n'
    assert parse_pressure(text) == {'some': {'avg10': 1.5, 'avg60': 0.25, 'avg300': 0.0, 'total': 120},
                                    'full': {'avg10': 0.75, 'avg60': 0.0, 'avg300': 0.0, 'total': 60}}
    assert parse_pressure(None) is None and parse_pressure('') == {}


def test_cpu_used_over_a_window_is_never_negative():
    """Issue 77: cpu_used_milli's clamp at zero was guarded by no test. A cgroup made anew between the two reads (a
    slice stopped and started, kubelet recreating kubepods) starts its usage counter over: the second read is below
    the first, and what the window used is unknown but not negative."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._reservation import Usage, cpu_used_milli
    first = Usage({'cpu_usage': 'usage_usec 9000000\n'}, 'v2', 3)
    restarted = Usage({'cpu_usage': 'usage_usec 1000000\n'}, 'v2', 3)
    later = Usage({'cpu_usage': 'usage_usec 14000000\n'}, 'v2', 3)
    assert cpu_used_milli(first, restarted, 10.0) == 0
    assert cpu_used_milli(first, later, 10.0) == 500  # 5 s of CPU over 10 s
    assert cpu_used_milli(first, later, 0) is None


@pytest.mark.parametrize('release, quota', [('1.36', True), ('1.37', False)])
def test_a_cpu_limit_is_declared_by_every_container_from_1_37_and_through_the_sidecars_before(release, quota):
    """ResourceConfigForPod: before 1.37 the limits aggregation calls back with a regular init container's limits
    plus the sidecars' before it, so the sidecar's CPU limit declares one for it; from 1.37 (podutil.ContainerIter)
    each container must set its own, and the pod gets no CPU quota."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import PodSettings
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import resource_config_for_pod
    limits = {'cpu': '500m', 'memory': '256Mi'}
    burstable = pod('p', [container('app', requests={'cpu': '100m', 'memory': '64Mi'}, limits=limits)],
                    initContainers=[container('sidecar', requests={'cpu': '100m'}, limits=limits, restartPolicy='Always'),
                                    container('setup', requests={'cpu': '100m'})])
    qos, _requests, config = resource_config_for_pod(burstable.pod, PodSettings({'kubelet_version': release,
                                                                                 'cgroup_driver': 'cgroupfs'}))
    assert qos == 'Burstable' and ('cpu_quota' in config) is quota
    assert ('memory' in config) is quota


def test_parts_shown_for_people_add_up_to_their_whole_with_an_empty_part_among_them():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import human_row
    assert human_row(['1', '333m', '333m', '334m', '0'], 'cpu') == ['1 core', '0.33 cores', '0.33 cores', '0.34 cores', '0']


def test_a_cpu_range_of_one_cpu_is_that_cpu():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import parse_cpuset
    assert parse_cpuset('3-3', 'reserved_system_cpus') == [3]
    with pytest.raises(KubenodeError, match=r'invalid range "4-3" \(4 > 3\)'):
        parse_cpuset('4-3', 'reserved_system_cpus')


def test_a_part_of_a_row_under_one_of_the_wholes_unit_is_shown_in_its_own():
    """Issue 77: 256Mi showed as "0.2 GiB" beside a 16 GiB capacity."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import human_row
    assert human_row(['16Gi', '256Mi', '2662Mi', '100Mi', None, '13498Mi'], 'memory') == [
        '16 GiB', '256 MiB', '2.6 GiB', '100 MiB', '-', '13.2 GiB']
    assert human_row(['4', '80m', None], 'cpu') == ['4 cores', '0.08 cores', '-']


def test_each_changed_value_of_the_kubelet_configuration_is_told_live_and_planned():
    """Issue 77: the drift row put "kubeReserved.memory: 3Gi -> 2662Mi" under live and "the planned keys" under
    planned."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
    current = {'kubeReserved': {'memory': '3Gi', 'cpu': '80m'}, 'evictionHard': {'memory.available': '100Mi'},
               'maxPods': 110}
    desired = {'kubeReserved': {'memory': '2662Mi', 'cpu': '80m'}, 'systemReserved': {'pid': '1k'}, 'maxPods': 110}
    assert kc.changed_values(current, desired) == [
        ('systemReserved', '(unset)', '{"pid": "1k"}'), ('kubeReserved.memory', '3Gi', '2662Mi'),
        ('evictionHard', '{"memory.available": "100Mi"}', '(unset)')]
    # replaced_values keeps its words: what the file held and the change replaces or removes
    assert kc.replaced_values(current, desired) == [
        'kubeReserved.memory: 3Gi -> 2662Mi', 'evictionHard: {"memory.available": "100Mi"} -> (removed)']


def test_a_v1_cgroup_is_read_in_the_hierarchies_kubelet_needs_and_no_other(tmp_path, monkeypatch):
    """A fresh clone's role_cgroupfs_v1 (2026-12-08): the re-run after the converge was not answered by its receipt,
    "the node reads differently: isdir /sys/fs/cgroup/devices/kubepods/burstable". kubelet makes its cgroups in
    devices, freezer and blkio too, on its own time after its restart; nothing is planned or checked there, so the
    read of a cgroup leaves those hierarchies alone."""
    import os
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
    mounts = dict((name, str(tmp_path / name)) for name in ('cpu', 'memory', 'devices'))
    for name in mounts:
        os.makedirs(os.path.join(mounts[name], 'kubepods'))
    os.makedirs(os.path.join(mounts['devices'], 'kubepods', 'burstable'))
    asked = []
    real_isdir = os.path.isdir
    monkeypatch.setattr(os.path, 'isdir', lambda path: asked.append(path) or real_isdir(path))
    layout = fs.CgroupLayout('v1', mounts)
    burstable = fs.read_cgroup(layout, '', '/kubepods/burstable')
    assert burstable['exists'] is False  # only where kubelet alone makes it
    assert not any(path.startswith(mounts['devices']) for path in asked)
    assert fs.read_cgroup(layout, '', '/kubepods')['exists'] is True
