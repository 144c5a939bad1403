# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node plan as a typed, immutable record (model/_node_plan): what plan_node returns, what every reader inside
module_utils takes, a dict only at the module boundary."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan, freeze, thaw
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup

OPTIONS = dict(capacity={'cpu': '8', 'memory': '32Gi', 'pods': '110'}, cgroup_driver='systemd',
               system_reserved={'cpu': '500m', 'memory': '1Gi'}, kube_reserved={'memory': '512Mi'},
               kube_reserved_cgroup='/kube.slice', enforce_node_allocatable=['pods', 'kube-reserved'],
               reserved_system_cpus='', max_pods=110)


def a_plan(**changes):
    return plan_node(PlanOptions(**dict(OPTIONS, **changes)))


def test_plan_node_returns_a_read_only_record():
    plan = a_plan()
    assert isinstance(plan, NodePlan)
    with pytest.raises(AttributeError):
        plan.cgroup_driver = 'cgroupfs'
    with pytest.raises(TypeError):
        plan.cgroups['kubepods'] = {}
    kube_reserved = plan.cgroup('kube_reserved')
    assert isinstance(kube_reserved, PlannedCgroup) and kube_reserved.key == 'kube_reserved'
    with pytest.raises(TypeError):
        kube_reserved.resources['memory'] = 0
    with pytest.raises(AttributeError):
        kube_reserved.enforced = False
    assert isinstance(plan.enforce_node_allocatable, tuple)


def test_its_readers_name_what_they_read():
    plan = a_plan()
    assert plan.cgroup_driver == 'systemd' and plan.kubelet_version and plan.max_pods == 110
    assert plan.value('capacity', 'memory') == 32 * 1024 ** 3
    assert plan.value('allocatable', 'cpu') == 7500
    assert plan.value('allocatable', 'hugepages-2Mi') is None
    assert plan.reserved_of('kube') == {'memory': {'quantity': '512Mi', 'value': 512 * 1024 ** 2}}
    assert plan.reserved_of('nobody') == {}
    assert plan.eviction_part('source') == 'kubelet defaults'
    assert plan.cgroup('kube_reserved').systemd_unit == 'kube.slice'
    assert plan.cgroup('system_reserved') is None  # no system_reserved_cgroup


def test_the_module_boundary_gets_plain_json_and_reads_it_back_unchanged():
    plan = a_plan()
    returned = plan.as_dict()
    as_json = json.loads(json.dumps(returned))
    assert as_json == returned
    # Plain dict and list, as exit_json and JSON take them: no read-only mapping or tuple is left.
    assert returned['cgroups'].__class__ is dict and returned['enforce_node_allocatable'].__class__ is list
    assert 'kubelet_version_source' not in returned  # only a run sets it
    assert NodePlan.from_dict(as_json) == plan
    sourced = plan._replace(kubelet_version_source='the node')
    assert sourced.as_dict()['kubelet_version_source'] == 'the node'
    assert NodePlan.from_dict(plan) is plan


PLAN_CHANGES = [
    {},
    {'cgroup_driver': 'cgroupfs', 'kube_reserved_cgroup': '/kube-reserved', 'system_reserved_cgroup': '/system-reserved'},
    {'enforce_node_allocatable': ['pods'], 'capacity': {'cpu': '4', 'memory': '8Gi', 'hugepages-2Mi': '1Gi'}},
]


@pytest.mark.parametrize('changes', PLAN_CHANGES)
def test_each_cgroup_of_the_plan_is_a_record_and_a_documented_entry_at_the_boundary(changes):
    plan = a_plan(**changes)
    returned = plan.as_dict()['cgroups']
    for key, planned in plan.cgroups.items():
        assert isinstance(planned, PlannedCgroup) and planned.key == key
        entry = returned[key]
        assert entry['path'] == planned.path and entry['name'] == list(planned.name)
        assert entry['v2_files'] == dict(planned.files('v2')) and entry['resources'] == json.loads(json.dumps(entry['resources']))
        # Read back as the plan option gives it, each record is the one plan_node built.
        assert PlannedCgroup.from_entry(key, json.loads(json.dumps(entry))) == planned
    reserved = returned.get('kube_reserved')
    assert reserved['configured_name'] == dict(OPTIONS, **changes)['kube_reserved_cgroup']  # the name as configured
    assert 'source' in returned['kubepods'] and 'source' not in reserved and 'configured_name' not in returned['burstable']


def test_freeze_and_thaw_are_each_others_inverse():
    value = {'a': [1, {'b': (2, 3)}], 'c': 'd'}
    frozen = freeze(value)
    assert frozen['a'][1]['b'] == (2, 3) and isinstance(frozen['a'], tuple)
    assert thaw(frozen) == {'a': [1, {'b': [2, 3]}], 'c': 'd'}


def test_keys_a_newer_plan_carries_are_left_out_and_a_field_that_is_none_is_absent():
    plan = NodePlan.from_dict(dict(a_plan().as_dict(), something_new={'x': 1}))
    assert 'something_new' not in plan.as_dict()
    assert NodePlan.from_dict({'cgroup_driver': 'cgroupfs', 'cgroups': {}}).as_dict()['capacity'] is None


@pytest.mark.parametrize('change, field, words', [
    (None, 'plan', 'must be a mapping'),
    ({'cgroup_driver': None}, 'plan.cgroup_driver', 'is missing'),
    ({'cgroups': None}, 'plan.cgroups', 'is missing'),
    ({'cgroup_driver': 'cgroupfs2'}, 'plan.cgroup_driver', 'must be "cgroupfs" or "systemd"'),
    ({'cgroups': ['kubepods']}, 'plan.cgroups', 'must be a mapping'),
    ({'cgroups': {'kubepods': 'yes'}}, 'plan.cgroups.kubepods', 'must be a mapping'),
    ({'capacity': ['cpu']}, 'plan.capacity', 'must be a mapping'),
    ({'max_pods': '110'}, 'plan.max_pods', 'must be a number'),
    ({'max_pods': True}, 'plan.max_pods', 'must be a number'),
    ({'kubelet_version': 1.36}, 'plan.kubelet_version', 'must be a string'),
    ({'enforce_node_allocatable': 'pods'}, 'plan.enforce_node_allocatable', 'must be a list'),
    ({'fail_cgroup_v1_default': 'yes'}, 'plan.fail_cgroup_v1_default', 'must be a boolean'),
])
def test_a_malformed_plan_given_back_is_refused_naming_the_field(change, field, words):
    given = None if change is None else dict(a_plan().as_dict(), **change)
    with pytest.raises(KubenodeError) as error:
        NodePlan.from_dict(given)
    assert error.value.field == field and words in str(error.value)


def test_a_record_is_built_from_its_fields_only():
    with pytest.raises(TypeError, match='NodePlan has no field colour'):
        NodePlan(colour='blue')
