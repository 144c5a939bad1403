# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""string_variables.py SPEC [SKIP...]: every bool, int, float and list variable of a role's main entry point
(meta/argument_specs.yml) that has a default, as the string -e key=value and an INI inventory give it: booleans as
"true"/"false", numbers as digits, lists as JSON text. Prints {"values": {variable: string}, "extra_vars":
["-e", "variable=string", ...]} as JSON. SKIP: variables left out (the test sets them itself)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import sys

import yaml


def as_string(kind, value):
    if kind == 'bool':
        return 'true' if value else 'false'
    if kind == 'list':
        return json.dumps(value, separators=(',', ':'))  # -e key=value splits at spaces
    return str(value)


def main(spec_path, skip):
    with open(spec_path) as handle:
        options = yaml.safe_load(handle)['argument_specs']['main']['options']
    return dict((name, as_string(spec['type'], spec['default'])) for name, spec in sorted(options.items())
                if spec.get('type') in ('bool', 'int', 'float', 'list') and spec.get('default') is not None
                and name not in skip)


if __name__ == '__main__':
    values = main(sys.argv[1], set(sys.argv[2:]))
    extra_vars = []
    for name, value in values.items():
        extra_vars += ['-e', '%s=%s' % (name, value)]
    print(json.dumps({'values': values, 'extra_vars': extra_vars}))
