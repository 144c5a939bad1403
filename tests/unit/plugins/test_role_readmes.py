# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every role variable is in its role's README, with the default its argument spec gives."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import pytest
import yaml

ROLES = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'roles')


def spec_and_readme(role):
    with open(os.path.join(ROLES, role, 'meta', 'argument_specs.yml')) as handle:
        options = yaml.safe_load(handle)['argument_specs']['main']['options']
    with open(os.path.join(ROLES, role, 'README.md')) as handle:
        return options, handle.read()


def table_rows(readme):
    """{variable: default column} of the README's variable table (a row may name several, `_suffix` for the rest)."""
    rows = {}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 3 or not cells[0].startswith('`node_'):
            continue
        names = re.findall(r'`([a-z_]+)`', cells[0])
        prefix = names[0].rsplit('_', 2)[0] if names else ''
        for name in names:
            full = name if name.startswith('node_') else re.sub(r'_[a-z]+_path$', '', prefix) + name
            rows[full] = cells[1]
    return rows


@pytest.mark.parametrize('role, prefix', [('node_allocatable', 'node_allocatable'), ('node_audit', 'node_audit')])
def test_every_variable_is_in_the_readme_with_its_default(role, prefix):
    options, readme = spec_and_readme(role)
    rows = table_rows(readme)
    missing = [name for name in options if name not in rows and name[len(prefix):] not in readme]
    assert not missing, 'not in roles/%s/README.md: %s' % (role, missing)
    for name, option in options.items():
        default = option.get('default')
        if name not in rows or default in (None, [], {}, ''):
            continue  # "unset" and empty defaults are described in words
        shown = rows[name]
        assert shown_as(default) in shown.replace('"', ''), (name, default, shown)


def shown_as(default):
    """A default as the README writes it: `true`, `120`, `/kube.slice`, `[kubelet, containerd]`."""
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, list):
        return '[%s]' % ', '.join(str(item) for item in default)
    return str(default)


def test_the_audit_roles_paths_default_to_the_one_table():
    """node_audit's path variables default to the modules' defaults (_node_argspec.NODE_PATHS), which
    node_allocatable derives its own from under node_allocatable_root."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import NODE_PATHS
    with open(os.path.join(ROLES, 'node_audit', 'defaults', 'main.yml')) as handle:
        defaults = yaml.safe_load(handle)
    compared = [(option, usual) for option, usual in NODE_PATHS if 'node_audit_' + option in defaults]
    assert len(compared) >= 7
    assert [(option, defaults['node_audit_' + option]) for option, _usual in compared] == compared
