# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The registry of cgroup control files: its rows' rules, and that no other code spells a control file."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles

PLUGINS = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins')


def registry_names():
    names = set()
    for row in cgfiles.RESOURCES + (cgfiles.MEMORY_SWAP_V1,):
        for name in (row.v1, row.v2, row.setting, row.property_v1, row.property_v2):
            if name and '{unit}' not in name:
                names.add(name)
    return names


def code_strings(path):
    """String literals of a Python file, but its documentation (DOCUMENTATION, EXAMPLES, RETURN, docstrings)."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    documentation = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node, clean=False):
            documentation.add(id(node.body[0].value))
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', '') in ('DOCUMENTATION', 'EXAMPLES', 'RETURN')
                                                for t in node.targets):
            documentation.add(id(node.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation]


def test_no_code_but_the_registry_spells_a_control_file_or_its_systemd_names():
    names = registry_names()
    found = []
    for directory, _dirs, files in os.walk(PLUGINS):
        for name in files:
            path = os.path.join(directory, name)
            if not name.endswith('.py') or name == '_cgroup_files.py':
                continue
            found += ['%s:%d %s' % (os.path.relpath(path, PLUGINS), line, text) for line, text in code_strings(path)
                      if text in names]
    assert found == []


@pytest.mark.parametrize('name, value, shown', [
    ('memory.max', '1073741825', '1073741824'),  # page rounding
    ('memory.limit_in_bytes', str(cgfiles.V1_UNLIMITED_MEMORY), 'max'),
    ('memory.swap.max', '-1', 'max'),
    ('pids.max', 'max', 'max'),
    ('hugetlb.2MB.max', str((2 << 20) + 5), str(2 << 20)),
    ('cpuset.cpus', '0-2,4', '0,1,2,4'),
    ('cpu.max', 'max', 'max 100000'),
    ('cpu.weight', '39', '39'),
])
def test_values_compare_as_the_kernel_shows_them(name, value, shown):
    assert cgfiles.comparable(name, value) == shown


def test_each_file_knows_its_hierarchy_and_whether_it_is_a_limit_or_optional():
    assert [cgfiles.v1_hierarchy(n) for n in ('cpu.shares', 'memory.limit_in_bytes', 'pids.max', 'cpuset.mems',
                                              'hugetlb.1GB.limit_in_bytes')] == ['cpu', 'memory', 'pids', 'cpuset',
                                                                                 'hugetlb']
    assert cgfiles.is_limit('memory.max') and not cgfiles.is_limit('cpu.weight')
    assert cgfiles.may_be_missing('hugetlb.2MB.rsvd.max') and not cgfiles.may_be_missing('hugetlb.2MB.max')
    assert cgfiles.PROPERTY_BY_SETTING['CPUQuota'] == 'CPUQuotaPerSecUSec'
    assert cgfiles.PROPERTY_BY_SETTING['MemoryLimit'] == 'MemoryLimit'


def test_a_row_carries_its_behaviour_and_the_lists_follow_the_rows():
    """A new control file is one row: its comparison, reader and unit-file setting conversion are the row's, and
    the hierarchies made and the controllers enabled are derived from the rows within kubelet's lists."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
    for row in cgfiles.RESOURCES + cgfiles.USAGE:
        assert row.comparable is cgfiles.COMPARISONS[row.compare]
        assert callable(row.read) and callable(row.setting_units)
    assert set(cgfiles.PLANNED_HIERARCHIES) <= set(fs.V1_REQUIRED + fs.V1_OPTIONAL) and fs.V1_OPTIONAL == ('hugetlb',)
    assert set(cgfiles.PLANNED_V2_CONTROLLERS) == set(fs.V2_CONTROLLERS)
    assert sorted(cgfiles.ROW_BY_SETTING) == sorted(cgfiles.PROPERTY_BY_SETTING)
    assert cgfiles.ROW_BY_SETTING['MemoryLimit'] is cgfiles.MEMORY_LIMIT


@pytest.mark.parametrize('raw, version, resources', [
    ({'cpu.max': 'max 100000', 'hugetlb.2MB.max': '0', 'hugetlb.2MB.rsvd.max': '0', 'cpuset.cpus': '0-1'}, 'v2',
     {'cpu_quota': -1, 'cpu_period': 100000, 'hugetlb': {'2MB': 0}, 'cpuset_cpus': '0-1'}),
    ({'cpu.cfs_quota_us': '-1', 'cpuset.mems': '0', 'memory.limit_in_bytes': '9223372036854771712'}, 'v1',
     {'cpu_quota': -1, 'memory': 'max'}),
    ({'cpu.max': '50000', 'pids.max': 'max'}, 'v2', {'cpu_quota': 50000, 'cpu_period': 100000, 'pids': 'max'})])
def test_each_row_reads_its_file_into_the_plans_resources(raw, version, resources):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import resources_of
    assert resources_of(raw, version) == resources


@pytest.mark.parametrize('setting, value, shown', [
    ('CPUQuota', '150%', '1500000'), ('CPUQuotaPeriodSec', '100ms', '100000'), ('CPUQuotaPeriodSec', '1', '1000000'),
    ('AllowedCPUs', '0-2 4', '0,1,2,4'), ('MemoryMax', '1024', '1024'), ('CPUQuota', 'infinity', 'infinity')])
def test_a_unit_file_setting_reads_in_the_units_systemctl_shows(setting, value, shown):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import setting_in_property_units
    assert setting_in_property_units(setting, value) == shown
