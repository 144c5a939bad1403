# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Render the modules' own documentation (ansible-doc --json on stdin) as Markdown: docs/modules/."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import sys

MARKUP = [(re.compile(r'[OVCR]V?\(([^)]*)\)'), r'`\1`'), (re.compile(r'M\(([^)]*)\)'), r'`\1`'),
          (re.compile(r'I\(([^)]*)\)'), r'*\1*'), (re.compile(r'B\(([^)]*)\)'), r'**\1**')]


def text(value):
    lines = value if isinstance(value, list) else [value]
    out = []
    for line in lines:
        line = str(line)
        for pattern, replacement in MARKUP:
            line = pattern.sub(replacement, line)
        out.append(line)
    return ' '.join(out).replace('|', '\\|')


def flatten(specs, nested, prefix=''):
    """(dotted name, spec) of every entry, each followed by its suboptions or contained keys."""
    for name, spec in sorted(specs.items()):
        yield prefix + name, spec
        for item in flatten(spec.get(nested) or {}, nested, prefix + name + '.'):
            yield item


def render(name, data):
    doc, examples, returns = data['doc'], data.get('examples') or '', data.get('return') or {}
    lines = ['# %s' % name, '', text(doc['short_description']), '', text(doc['description']), '',
             '## Options', '', '| option | type | default | description |', '|---|---|---|---|']
    for option, spec in flatten(doc.get('options', {}), 'suboptions'):
        choices = ' Choices: %s.' % ', '.join('`%s`' % c for c in spec['choices']) if spec.get('choices') else ''
        default = '`%s`' % json.dumps(spec['default']) if 'default' in spec and spec['default'] is not None else ''
        kind = spec.get('type', 'str') + ('/%s' % spec['elements'] if spec.get('elements') else '')
        lines.append('| `%s`%s | %s | %s | %s%s |' % (option, ' (required)' if spec.get('required') else '', kind,
                                                      default, text(spec.get('description', '')), choices))
    if doc.get('notes'):
        lines += ['', '## Notes', ''] + ['- %s' % text(n) for n in doc['notes']]
    lines += ['', '## Examples', '', '```yaml', examples.strip(), '```', '', '## Return values', '',
              '| key | returned | type | description |', '|---|---|---|---|']
    for key, spec in flatten(returns, 'contains'):
        lines.append('| `%s` | %s | %s | %s |' % (key, spec.get('returned', ''), spec.get('type', ''),
                                                  text(spec.get('description', ''))))
    return '\n'.join(lines) + '\n'


def main():
    target = sys.argv[1]
    os.makedirs(target, exist_ok=True)
    for name, data in sorted(json.load(sys.stdin).items()):
        with open(os.path.join(target, name.split('.')[-1] + '.md'), 'w') as handle:
            handle.write(render(name, data))


if __name__ == '__main__':
    main()
