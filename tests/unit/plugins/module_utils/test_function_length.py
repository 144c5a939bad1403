# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubelet's verbs: no function of module_utils or plugin_utils is longer than a page (60 lines, docstring
included). A longer one does several of kubelet's steps; split it into the steps it does (plan_node into NodeConfig,
node_capacity, reserved_resources, hard_eviction, node_allocatable and node_cgroups)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

PLUGINS = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins')
LONGEST = 60


def long_functions(path, longest=LONGEST):
    """[(name, lines)] of the functions and methods of a file longer than longest lines."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= longest]


def test_no_function_is_longer_than_a_page():
    found = []
    for package in ('module_utils', 'plugin_utils'):
        for directory, _dirs, names in os.walk(os.path.join(PLUGINS, package)):
            for name in sorted(names):
                if name.endswith('.py'):
                    path = os.path.join(directory, name)
                    found += ['%s %s: %d lines' % (os.path.relpath(path, PLUGINS), function, lines)
                              for function, lines in long_functions(path)]
    assert found == []


def test_the_check_sees_a_long_function(tmp_path):
    long_one = tmp_path / '_long.py'
    long_one.write_text('def short():\n    return 1\n\n\ndef long():\n' + '    x = 1\n' * 60)
    assert long_functions(str(long_one)) == [('long', 61)]
