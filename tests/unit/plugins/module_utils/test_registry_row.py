# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Adding a control file is one row of the registry: a copy of _cgroup_files with one row more (io.weight, which
no rule of the collection writes), and everything that names, renders, checks, reads, compares and makes cgroups
for control files takes it from there."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys
import types

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils import model
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs

ROW = ("IO_WEIGHT = ControlFile('io_weight', v2='io.weight', setting='IOWeight', property_v2='IOWeight', "
       "source='unified', render='number', accepts='int')\n")


def module_from(source, name):
    module = types.ModuleType(name)
    module.__file__ = name
    exec(compile(source, name, 'exec'), module.__dict__)
    return module


def registry_with_one_row_more():
    with open(cgfiles.__file__) as handle:
        source = handle.read()
    resources = source.index('RESOURCES = (')
    end = source.index(')', resources)
    # The row, and its name in RESOURCES: the whole change.
    changed = source[:resources] + ROW + source[resources:end] + ', IO_WEIGHT' + source[end:]
    return module_from(changed, cgfiles.__name__)


def test_one_row_more_is_named_rendered_checked_read_and_compared():
    registry = registry_with_one_row_more()
    row = registry.IO_WEIGHT
    # Named: the file belongs to the row, the systemd setting to its property, the controller is planned.
    assert registry.row_of('io.weight') is row and registry.known_file('io.weight', 'v2')
    assert not registry.known_file('io.weight', 'v1')
    assert registry.PROPERTY_BY_SETTING['IOWeight'] == 'IOWeight' and registry.ROW_BY_SETTING['IOWeight'] is row
    assert registry.PLANNED_V2_CONTROLLERS == tuple(sorted(cgfiles.PLANNED_V2_CONTROLLERS + ('io',)))
    # Rendered from a ResourceConfig with the others, in its file and unit property; nothing on v1.
    rendered = cgmath.resource_files({'cpu_shares': 1024, 'io_weight': 300}, [], rows=registry.RESOURCES)
    assert rendered['v2_files'] == {'cpu.weight': '39', 'io.weight': '300'}
    assert rendered['systemd_properties']['v2'] == {'CPUWeight': '39', 'IOWeight': '300'}
    assert rendered['v1_files'] == {'cpu.shares': '1024'}
    # Checked by the row's own validator, with the field and the value.
    with pytest.raises(KubenodeError) as error:
        cgmath.ResourceConfig.of({'io_weight': 'heavy'}, rows=registry.RESOURCES)
    assert (error.value.field, error.value.value) == ('io_weight', 'heavy')
    # Read back into the plan's resources, and compared as the kernel shows it.
    values = {}
    row.read(row, values, 'io.weight', '300', 'v2')
    assert values == {'io_weight': 300}
    assert registry.comparable('io.weight', ' 300\n') == '300'


def test_the_registry_without_the_row_refuses_its_value():
    """The value has no home in the registry as it is: refused, not dropped."""
    with pytest.raises(KubenodeError) as error:
        cgmath.resource_files({'io_weight': 300}, [])
    assert 'no control file holds it' in str(error.value)


def test_one_row_more_gives_new_cgroups_its_controller(monkeypatch):
    """The v2 controllers a made cgroup is given derive from the rows: kubelet's Validate's, then the new one's."""
    registry = registry_with_one_row_more()
    monkeypatch.setitem(sys.modules, cgfiles.__name__, registry)
    monkeypatch.setattr(model, '_cgroup_files', registry)
    with open(_cgroupfs.__file__) as handle:
        cgroupfs = module_from(handle.read(), _cgroupfs.__name__)
    assert cgroupfs.V2_CONTROLLERS == _cgroupfs.KUBELET_V2_CONTROLLERS + ('io',)
    assert cgroupfs.KUBELET_V2_CONTROLLERS == _cgroupfs.KUBELET_V2_CONTROLLERS
    assert _cgroupfs.V2_CONTROLLERS == _cgroupfs.KUBELET_V2_CONTROLLERS  # the registry as it is needs no other


@pytest.mark.parametrize('key, good, bad, reason', [
    ('cpu_shares', 1024, '1024', 'must be an integer'),
    ('memory', -1, True, 'must be an integer'),
    ('memory_min', 'max', -1, 'must be a number of bytes or "max"'),
    ('memory_swap_max', 0, 'unlimited', 'must be a number of bytes or "max"'),
    ('cpuset', '0-3,6', '0-3;6', 'must be a CPU list'),
    ('cpuset', '', 3, 'must be a CPU list'),
    ('hugetlb', {2097152: 0}, {'2MB': 1}, 'must map hugepage sizes in bytes to limits in bytes'),
    ('hugetlb', {}, [2097152], 'must map hugepage sizes in bytes to limits in bytes'),
])
def test_each_row_checks_the_value_it_holds(key, good, bad, reason):
    """A ResourceConfig takes each value through the validator of the row that holds it, naming the key and value."""
    assert cgmath.ResourceConfig.of({key: good}).value_of(
        next(row for row in cgfiles.RESOURCES if row.settable and key in (row.key, row.source))) == good
    with pytest.raises(KubenodeError) as error:
        cgmath.ResourceConfig.of({key: bad})
    assert (error.value.field, error.value.value) == (key, bad) and reason in str(error.value)


def test_each_row_writes_its_value_as_libcontainer_and_systemd_spell_it():
    """The rows' renderers: the period before the quota, v2's cpu.max holding both, systemd's quota per second;
    a memory limit of -1 and a pids limit below 0 unlimited ("max", systemd's infinity); a pids limit of 0 is 1."""
    limited = cgmath.resource_files({'cpu_quota': 50000, 'cpu_period': 100000, 'memory': 1 << 30, 'pids': 0}, [])
    assert limited['v1_files'] == {'cpu.cfs_period_us': '100000', 'cpu.cfs_quota_us': '50000',
                                   'memory.limit_in_bytes': '1073741824', 'pids.max': '1'}
    assert limited['v2_files'] == {'cpu.max': '50000 100000', 'memory.max': '1073741824', 'pids.max': '1'}
    assert limited['systemd_properties']['v2'] == {'CPUQuotaPeriodUSec': '100000', 'CPUQuotaPerSecUSec': '500000',
                                                   'MemoryMax': '1073741824', 'TasksMax': '1'}
    assert list(limited['v1_files'])[:2] == ['cpu.cfs_period_us', 'cpu.cfs_quota_us']
    unlimited = cgmath.resource_files({'cpu_quota': -1, 'cpu_period': 100000, 'memory': -1, 'pids': -1}, [])
    assert unlimited['v1_files'] == {'cpu.cfs_period_us': '100000', 'cpu.cfs_quota_us': '-1',
                                     'memory.limit_in_bytes': '-1', 'pids.max': 'max'}
    assert unlimited['v2_files'] == {'cpu.max': 'max 100000', 'memory.max': 'max', 'pids.max': 'max'}
    assert unlimited['systemd_properties']['v1'] == {'CPUQuotaPeriodUSec': '100000', 'CPUQuotaPerSecUSec': 'infinity',
                                                     'MemoryLimit': 'infinity', 'TasksMax': 'infinity'}
