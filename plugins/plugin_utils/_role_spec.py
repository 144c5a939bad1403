# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A role's argument specification, read once per worker, and its variables checked against it by the rules of
ansible-core's validate_argument_spec, inside a task the role runs anyway.

PRIVATE plugin_utils: internal to kubenode.cgroups, may change without notice.

Why: ansible-core prepends its own validation task to a role's entry point, and that task costs every host one
more task (about 30 ms of controller CPU, as much as a debug task: docs/performance.md, "One task per host").
A role imported or included with rolespec_validate: false gets no such task; role_node_cgroups then checks the
same variables with the same validator, in the task each host runs anyway.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

_SPECS = {}


def entry_point_options(role_path, entry_point='main'):
    """{variable: its spec} of a role entry point (meta/argument_specs.yml), read once per worker."""
    path = os.path.join(role_path, 'meta', 'argument_specs.yml')
    if (path, entry_point) not in _SPECS:
        import yaml
        # libyaml's safe loader where PyYAML has it: this runs in every host's worker (a fork that keeps nothing),
        # and the pure-Python loader takes about 13 ms over this file, libyaml 1 ms.
        with open(path) as handle:
            specs = (yaml.load(handle, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader)) or {}).get('argument_specs') or {}
        if entry_point not in specs:
            raise AnsibleActionFail('entry_point: %s has no entry point %s' % (path, entry_point))
        _SPECS[(path, entry_point)] = specs[entry_point].get('options') or {}
    return _SPECS[(path, entry_point)]


def validated_by_ansible_core(task):
    """True when ansible-core prepended its validation task to the entry point of the role running this task:
    the role was listed in a play's roles, or imported or included without rolespec_validate: false.
    Read from the role the task was loaded with; where a release of ansible-core keeps no such flag, False,
    so the variables are checked here rather than not at all."""
    role = getattr(task, '_role', None)
    return getattr(role, '_should_validate', False) is True


def variable_errors(options, values):
    """ansible-core's messages for the role variables in values that break the entry point's options: what
    validate_argument_spec says of them (role mode: no unsupported-parameter errors for the play's other
    variables, which values does not carry anyway)."""
    validator = ArgumentSpecValidator(options)
    return list(validator.validate(values, validate_role_argument_spec=True).error_messages)
