# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write the KubeletConfiguration keys each judged kubelet release knows
(plugins/module_utils/model/_config_fields.py) from that release's own k8s.io/kubelet module.

    python update_config_fields.py

For every go.mod of this directory (go.mod, go.1.XY.mod: the judges' releases), the k8s.io/kubelet version its
replace line names is fetched through the go command (the module proxy, or the module cache) and the json names of
the fields of config/v1beta1's KubeletConfiguration are read from its types.go: what kubelet's strict decoder knows
(DecodeKubeletConfiguration; a key it does not know fails strict decoding, and kubelet then decodes the file leniently
and ignores the key). The table is rewritten in place, one line per key: name, first and last judged release.
"""

from __future__ import absolute_import, division, print_function

import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, '..', '..', 'plugins', 'module_utils', 'model', '_config_fields.py')
_REPLACE = re.compile(r'^\s*k8s\.io/kubelet => k8s\.io/kubelet (v0\.(\d+)\.\S+)\s*$', re.M)
_TAG = re.compile(r'`json:"([^",]*)[^"]*"`')


def kubelet_modules():
    """[(minor, k8s.io/kubelet version)] of the judges' go.mod files."""
    found = {}
    for path in glob.glob(os.path.join(HERE, 'go*.mod')):
        match = _REPLACE.search(open(path).read())
        if match:
            found[int(match.group(2))] = match.group(1)
    return sorted(found.items())


def module_dir(version):
    """The module's directory; a release whose go line is newer than the machine's Go (1.38: go 1.27.0) is
    downloaded with the toolchain its judge is built with (the Makefile's JUDGE_TOOLCHAIN_1.38)."""
    for toolchain in ('local', 'go1.27.3'):
        out = subprocess.run(['go', 'mod', 'download', '-json', 'k8s.io/kubelet@' + version], cwd='/',
                             capture_output=True, text=True, check=False,
                             env=dict(os.environ, GOTOOLCHAIN=toolchain)).stdout
        answer = json.loads(out)
        if answer.get('Dir'):
            return answer['Dir']
    sys.exit('k8s.io/kubelet@%s: %s' % (version, answer.get('Error')))


def config_keys(types_go):
    """The json names of KubeletConfiguration's fields (TypeMeta inline: apiVersion and kind)."""
    text = open(types_go).read()
    start = text.index('type KubeletConfiguration struct {')
    end = text.index('\n}\n', start)
    keys = {'apiVersion', 'kind'}
    for line in text[start:end].splitlines():
        code = line.split('//', 1)[0]
        match = _TAG.search(code)
        if match and match.group(1):
            keys.add(match.group(1))
    return keys


def main():
    releases = [(minor, config_keys(os.path.join(module_dir(version), 'config', 'v1beta1', 'types.go')))
                for minor, version in kubelet_modules()]
    minors = [minor for minor, _keys in releases]
    lines = []
    for name in sorted(set().union(*[keys for _minor, keys in releases])):
        present = [minor for minor, keys in releases if name in keys]
        if present != list(range(present[0], present[-1] + 1)):
            sys.exit('%s comes and goes: %s' % (name, present))
        lines.append('%s %d %s' % (name, present[0], '-' if present[-1] == minors[-1] else present[-1]))
    text = open(TABLE).read()
    start = text.index('_WINDOWS = """\n') + len('_WINDOWS = """\n')
    end = text.index('"""', start)
    text = text[:start] + '\n'.join(lines) + '\n' + text[end:]
    text = re.sub(r'JUDGED = \(\d+, \d+\)', 'JUDGED = (%d, %d)' % (minors[0], minors[-1]), text)
    with open(TABLE, 'w') as handle:
        handle.write(text)
    print('kubelet configuration keys: %d names over 1.%d to 1.%d' % (len(lines), minors[0], minors[-1]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
