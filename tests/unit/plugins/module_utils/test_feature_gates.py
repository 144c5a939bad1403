# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import parse_feature_gates
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._feature_gates import (
    KNOWN_FEATURE_GATES, check_gate_names, known_to)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import (
    NEWEST_MINOR, OLDEST_MINOR, kubelet_rules)


def test_every_window_is_a_gate_name_with_an_ordered_range():
    for name, (first, last) in KNOWN_FEATURE_GATES.items():
        assert re.match(r'^[A-Z][A-Za-z0-9]+$', name), name
        assert last is None or first <= last, name


@pytest.mark.parametrize('name, first, last', [
    # NodeSwap, GA and locked from 1.34, left kubelet 1.38's registry
    ('NodeSwap', 22, 37), ('MemoryQoS', 22, NEWEST_MINOR), ('QOSReserved', OLDEST_MINOR, NEWEST_MINOR),
    ('CustomCPUCFSQuotaPeriod', OLDEST_MINOR, NEWEST_MINOR), ('PodLevelResources', 32, NEWEST_MINOR),
    ('KubeletPSI', 33, NEWEST_MINOR), ('AllAlpha', OLDEST_MINOR, NEWEST_MINOR), ('AllBeta', OLDEST_MINOR, NEWEST_MINOR)])
def test_the_gates_the_core_reads_are_known_from_their_first_release_on(name, first, last):
    assert [minor for minor in range(OLDEST_MINOR, NEWEST_MINOR + 1) if known_to(name, minor)] == list(
        range(first, last + 1))


@pytest.mark.parametrize('name, known, unknown', [
    ('DynamicKubeletConfig', [22, 25], [26, 36]),  # removed with 1.26
    ('SeccompDefault', [22, 28], [29]),
    ('CPUManager', [22, 32], [33, 36]),  # gone from the 1.33 tree
    ('CPUCFSQuotaPeriod', [], [22, 36]),  # the Go constant; the gate's name is CustomCPUCFSQuotaPeriod
    ('Accelerators', [], [22, 36]),  # removed in 1.12, before any supported kubelet
    ('SidecarContainers', [28, 36], [27, 37]),  # removed in 1.37, locked on since 1.33
    ('PreventStaticPodAPIReferences', [34, 36], [33, 37]),
    ('KubeProxyIPVS', [37], [36]),  # added in 1.37
])
def test_windows_follow_the_releases(name, known, unknown):
    assert all(known_to(name, minor) for minor in known)
    assert not any(known_to(name, minor) for minor in unknown)


def test_an_accepted_name_is_taken_as_it_is_and_only_that_one():
    check_gate_names({'VendorGate': True}, kubelet_rules('1.36'), 'featureGates', accepted={'VendorGate'})
    with pytest.raises(KubenodeError) as error:
        check_gate_names({'VendorGate': True, 'Other': True}, kubelet_rules('1.36'), 'featureGates',
                         accepted={'VendorGate'})
    assert str(error.value).startswith('featureGates: unrecognized feature gate: Other (')
    assert 'extra_feature_gates' in str(error.value)


@pytest.mark.parametrize('version, gates, refused', [
    ('1.37', {'DisableCPUQuotaWithExclusiveCPUs': False}, 'cannot set feature gate DisableCPUQuotaWithExclusiveCPUs to '
                                                          'false, feature is locked to true'),
    ('1.36', {'DisableCPUQuotaWithExclusiveCPUs': False}, None),
    ('1.37', {'DisableCPUQuotaWithExclusiveCPUs': True}, None),
    ('1.34', {'NodeSwap': False}, 'cannot set feature gate NodeSwap to false, feature is locked to true'),
    ('1.33', {'NodeSwap': False}, None),
])
def test_a_locked_gate_takes_only_its_locked_value(version, gates, refused):
    if refused is None:
        assert parse_feature_gates(gates, rules=kubelet_rules(version)) == gates
        return
    with pytest.raises(KubenodeError) as error:
        parse_feature_gates(gates, rules=kubelet_rules(version))
    assert error.value.field == 'feature_gates.%s' % list(gates)[0] and refused in error.value.message


@pytest.mark.parametrize('version, memory_qos', [('1.36', False), ('1.37', True)])
def test_memory_qos_is_on_by_default_from_1_37(version, memory_qos):
    rules = kubelet_rules(version)
    assert rules.gate({}, 'MemoryQoS') is memory_qos
    assert rules.gate({'MemoryQoS': not memory_qos}, 'MemoryQoS') is (not memory_qos)


@pytest.mark.parametrize('gates, refused', [
    # kubelet 1.37's registry (the kubelet judge): three gates need PodLevelResources and are on by default
    ({'PodLevelResources': False}, 'PodLevelResourcesFixDefaulting is enabled, but depends on features that are '
                                   'disabled: [PodLevelResources]'),
    ({'PodLevelResources': False, 'PodLevelResourcesFixDefaulting': False, 'PodLevelResourcesFixKubeletQOSClass': False,
      'InPlacePodLevelResourcesVerticalScaling': False}, None),
    # a gate locked to its default in 1.37 that the older table did not list
    ({'InPlacePodVerticalScaling': False}, 'cannot set feature gate InPlacePodVerticalScaling to false, feature is '
                                           'locked to true'),
    # AllAlpha turns on every alpha gate, WorkloadWithJob among them, which needs the beta GenericWorkload (off)
    ({'AllAlpha': True}, 'WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]'),
    ({'AllAlpha': True, 'AllBeta': True}, None),
])
def test_kubelet_1_37_refuses_values_its_registry_refuses(gates, refused):
    assert_refused(kubelet_rules('1.37'), gates, refused)


def assert_refused(rules, gates, refused):
    """gates are refused with that message (None: accepted as they are)."""
    if refused is None:
        assert parse_feature_gates(gates, 'featureGates', rules) == gates
        return
    with pytest.raises(KubenodeError) as error:
        parse_feature_gates(gates, 'featureGates', rules)
    assert refused in str(error.value)


@pytest.mark.parametrize('gates, refused', [
    # GA gates 1.38 removed from its registry: kubelet 1.38 no longer starts with them
    ({'NodeSwap': True}, 'unrecognized feature gate: NodeSwap'),
    ({'InPlacePodVerticalScaling': True}, 'unrecognized feature gate: InPlacePodVerticalScaling'),
    # still registered in 1.38, locked since 1.37
    ({'DisableCPUQuotaWithExclusiveCPUs': False}, 'cannot set feature gate DisableCPUQuotaWithExclusiveCPUs to false'),
    # new in 1.38
    ({'DynamicNodeLocalEphemeralVolumes': True}, None),
])
def test_kubelet_1_38_beta_refuses_what_its_registry_refuses(gates, refused):
    rules = kubelet_rules('v1.38.0-beta.0')
    assert rules.minor == 38
    assert_refused(rules, gates, refused)


def test_kubelet_1_37_does_not_know_a_gate_1_38_added():
    with pytest.raises(KubenodeError) as error:
        parse_feature_gates({'DynamicNodeLocalEphemeralVolumes': True}, 'featureGates', kubelet_rules('1.37'))
    assert 'unrecognized feature gate: DynamicNodeLocalEphemeralVolumes' in str(error.value)


@pytest.mark.parametrize('version, gates, refused', [
    # Registered from 1.31 on (the 1.30.14 judge's registry has neither): kubelet 1.30 does not start with them.
    ('1.30', {'AllowDNSOnlyNodeCSR': True}, 'unrecognized feature gate: AllowDNSOnlyNodeCSR'),
    ('1.31', {'AllowDNSOnlyNodeCSR': True}, None),
    ('1.30', {'DRAControlPlaneController': True}, 'unrecognized feature gate: DRAControlPlaneController'),
    # Gone from 1.30's registry, still in 1.29's (the 1.29.6 judge).
    ('1.30', {'KubeletPodResources': True}, 'unrecognized feature gate: KubeletPodResources'),
    ('1.29', {'KubeletPodResources': True}, None),
    # Added in 1.30: kubelet 1.29 does not know it.
    ('1.29', {'WatchListClient': True}, 'unrecognized feature gate: WatchListClient'),
    ('1.30', {'WatchListClient': True}, None),
])
def test_kubelet_1_29_and_1_30_refuse_what_their_registries_refuse(version, gates, refused):
    assert_refused(kubelet_rules(version), gates, refused)
