# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A role's argument specification, read once per worker, and its variables checked against it and converted to
its types by the rules of ansible-core's validate_argument_spec, inside a task the role runs anyway.

PRIVATE plugin_utils: internal to kubenode.cgroups, may change without notice.

Why: ansible-core prepends its own validation task to a role's entry point, and that task costs every host one
more task (about 30 ms of controller CPU, as much as a debug task: docs/performance.md, "One task per host"), and
it checks the variables without converting them: "false" given with -e stays a string. role_node_cgroups checks
and converts them with the same validator, in the task each host runs anyway.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import json
import os
from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

_SPECS: dict[tuple[str, str], dict[str, Any]] = {}


def entry_point_options(role_path: str, entry_point: str = 'main') -> dict[str, Any]:
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


def typed_values(options: Mapping[str, Any], values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(values converted to the types of the entry point's options, ansible-core's messages for those that break
    them). -e key=value and INI inventories pass every value as a string ("false", "3", "a,b"):
    validate_argument_spec accepts those it can convert but leaves the variables as they came, so the role reads
    the values converted here, by the same validator (role mode: no unsupported-parameter errors for the play's
    other variables, which values does not carry anyway). A list given as JSON text ('["a", "b"]') is read as
    JSON first; the validator would split it at its commas."""
    values = dict((name, _json_list(options.get(name) or {}, value)) for name, value in values.items())
    result = ArgumentSpecValidator(options).validate(values, validate_role_argument_spec=True)
    converted = result.validated_parameters
    return dict((name, converted.get(name, value)) for name, value in values.items()), list(result.error_messages)


def _json_list(spec: Mapping[str, Any], value: Any) -> Any:
    """value, or the list its JSON text holds where the option is a list and the text is a JSON list."""
    if spec.get('type') != 'list' or not isinstance(value, str) or not value.lstrip().startswith('['):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if isinstance(parsed, list) else value
