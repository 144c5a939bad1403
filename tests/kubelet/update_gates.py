# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bring the collection's feature gate table (plugins/module_utils/model/_feature_gates.py) to what the kubelet judges say.

    python update_gates.py JUDGE [JUDGE ...]

Each judge answers the feature gates its kubelet release registers. For each judged release, oldest first: a name
the release knows that the table does not is added (or its window widened) from the oldest judged release that
knows it; a name the table gives the release that the release does not know ends at the release before. Names of
releases no judge covers keep the windows their documentation gave. The table is rewritten in place; `make judge`
then finds no gate disagreement.
"""

from __future__ import absolute_import, division, print_function

import json
import os
import subprocess
import sys
import tempfile

TABLE = os.path.join(os.path.dirname(__file__), '..', '..', 'plugins', 'module_utils', 'model', '_feature_gates.py')
SECTION = '# from the kubelet judges (tests/kubelet/update_gates.py): kubelet\'s own registry of each judged release'


def judged(binary):
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run([binary, '-scratch', scratch], input='{"id":0,"op":"release"}\n', capture_output=True,
                             text=True, check=True).stdout
    answer = json.loads(out)
    return int(answer['release'].lstrip('v').split('.')[1]), answer['gates']


def registry_lines(minor, gates):
    """One line per gate that kubelet 1.<minor> locks or that needs others, and per gate needed:
    "minor name default locked stage needs,..."."""
    lines = []
    for name in sorted(gates):
        spec = gates[name]
        if spec['locked'] or spec['needs']:
            lines.append('%d %s %s %s %s %s' % (minor, name, 'on' if spec['default'] else 'off',
                                                'locked' if spec['locked'] else 'free', spec['stage'] or 'GA',
                                                ','.join(spec['needs']) or '-'))
    # The defaults of the gates others need, so that what a change turns off can be followed.
    needed = sorted(set(need for spec in gates.values() for need in spec['needs']))
    for name in needed:
        spec = gates.get(name)
        if spec and not (spec['locked'] or spec['needs']):
            lines.append('%d %s %s free %s -' % (minor, name, 'on' if spec['default'] else 'off', spec['stage'] or 'GA'))
    return sorted(lines, key=lambda line: line.split()[1])


def main(binaries):
    releases = sorted(judged(binary) for binary in binaries)
    text = open(TABLE).read()
    start = text.index('_WINDOWS = """\n') + len('_WINDOWS = """\n')
    end = text.index('"""', start)
    lines = text[start:end].splitlines()
    windows = {}
    for index, line in enumerate(lines):
        if line and not line.startswith('#'):
            name, first, last = line.split()
            windows[name] = [index, int(first), None if last == '-' else int(last)]
    judged_minors = [minor for minor, _names in releases]
    oldest, newest = judged_minors[0], judged_minors[-1]
    every = set(windows).union(*[set(names) for _minor, names in releases])
    added, dropped = [], []
    for name in sorted(every):
        present = [minor for minor, names in releases if name in names]
        window = windows.get(name)
        if window is None:
            window = windows[name] = [None, present[0], None]
            added.append(name)
        if present:
            absent_before = [minor for minor in judged_minors if minor < present[0]]
            # Known from the oldest release that has it, unless the table knows of an earlier, unjudged start.
            window[1] = present[0] if absent_before else min(window[1], present[0])
            window[2] = None if present[-1] == newest else present[-1]
        elif window[2] is None or window[2] >= oldest:
            # Known to no judged release: it ends before the oldest judged one, or never was.
            window[2] = oldest - 1
            if window[1] > window[2]:
                dropped.append(name)
    for name in dropped:
        index = windows.pop(name)[0]
        if index is not None:
            lines[index] = None

    def line_for(name):
        first, last = windows[name][1], windows[name][2]
        return '%s %d %s' % (name, first, '-' if last is None else last)

    for name, window in windows.items():
        if window[0] is not None:
            lines[window[0]] = line_for(name)
    lines = [line for line in lines if line is not None]
    if added:
        if SECTION not in lines:
            lines += [SECTION]
        lines += [line_for(name) for name in sorted(added)]
    text = text[:start] + '\n'.join(lines) + '\n' + text[end:]
    start = text.index('_REGISTRIES = """\n') + len('_REGISTRIES = """\n')
    end = text.index('"""', start)
    kept = [line for line in text[start:end].splitlines()
            if line.startswith('#') or line and int(line.split()[0]) not in judged_minors]
    fresh = [line for minor, gates in releases for line in registry_lines(minor, gates)]
    text = text[:start] + '\n'.join(kept + fresh) + '\n' + text[end:]
    with open(TABLE, 'w') as handle:
        handle.write(text)
    print('feature gates: %d added, %d dropped, table now %d names (judged: %s)' % (
        len(added), len(dropped), len(windows), ', '.join('1.%d' % minor for minor, _names in releases)))
    return 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
