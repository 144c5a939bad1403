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
