# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The three layers of plugins/module_utils (README, "Layout"): model (kubelet's pure arithmetic and rules), node
(reading and writing a node) and run (one module run: options, plan, steps, audit, measurement). A layer imports
its own and the layers below it, never one above: the pure model never reads a node, the node never runs a plan."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os

import pytest

MODULE_UTILS = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'plugins', 'module_utils')
PREFIX = 'ansible_collections.kubenode.cgroups.plugins.module_utils.'
LAYERS = ('model', 'node', 'run')  # lowest first


def layer_files():
    for layer in LAYERS:
        directory = os.path.join(MODULE_UTILS, layer)
        for name in sorted(os.listdir(directory)):
            if name.endswith('.py') and name != '__init__.py':
                yield layer, os.path.join(directory, name)


def imported_layers(path):
    """{(layer, module)} of the collection's module_utils a file imports."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + ['%s.%s' % (node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            if name.startswith(PREFIX):
                parts = name[len(PREFIX):].split('.')
                if len(parts) >= 2:
                    found.add((parts[0], parts[1]))
    return found


def test_every_module_util_lives_in_a_layer():
    flat = [name for name in os.listdir(MODULE_UTILS) if name.endswith('.py') and name != '__init__.py']
    assert flat == []
    assert sorted(d for d in os.listdir(MODULE_UTILS) if os.path.isdir(os.path.join(MODULE_UTILS, d))
                  and d != '__pycache__') == sorted(LAYERS)


@pytest.mark.parametrize('layer, path', list(layer_files()), ids=lambda value: os.path.basename(str(value)))
def test_no_layer_imports_one_above_it(layer, path):
    above = LAYERS[LAYERS.index(layer) + 1:]
    wrong = sorted('%s.%s' % found for found in imported_layers(path) if found[0] in above)
    assert wrong == [], '%s (%s) imports %s, a layer above it' % (os.path.basename(path), layer, ', '.join(wrong))


def test_the_check_sees_an_import_that_goes_up(tmp_path):
    """The check itself can fail: a model file that imports the node is caught."""
    bad = tmp_path / '_bad.py'
    bad.write_text('from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs\n'
                   'from ansible_collections.kubenode.cgroups.plugins.module_utils.run._audit import compare\n')
    assert imported_layers(str(bad)) == {('node', '_cgroupfs'), ('run', '_audit')}


PLUGIN_UTILS = os.path.join(MODULE_UTILS, '..', 'plugin_utils')
PLUGINS = 'ansible_collections.kubenode.cgroups.plugins.'


def plugin_kinds(path):
    """The kinds of the collection's plugins a file imports (module_utils, plugin_utils, filter, action, ...)."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return set(name[len(PLUGINS):].split('.')[0] for name in names if name.startswith(PLUGINS))


@pytest.mark.parametrize('name', sorted(n for n in os.listdir(PLUGIN_UTILS) if n.endswith('.py')))
def test_plugin_utils_import_only_the_utils(name):
    """plugin_utils serve the plugins (filter, action, callback): they import module_utils and each other, never a
    plugin, whose shell they are under."""
    assert plugin_kinds(os.path.join(PLUGIN_UTILS, name)) <= {'module_utils', 'plugin_utils'}


def test_the_plugin_check_sees_a_plugin_imported(tmp_path):
    bad = tmp_path / '_bad.py'
    bad.write_text('def f():\n    from ansible_collections.kubenode.cgroups.plugins.filter.cgroups import FilterModule\n')
    assert plugin_kinds(str(bad)) == {'filter'}
