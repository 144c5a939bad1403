#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pods from the API feed the impact preview (issue 52): against the control plane control_plane.py started, with a
fake node (tests/integration/targets/setup_fake_node/files/fake_node.py) whose Node object the API holds, the node
playbook given node_allocatable_kubeconfig reads the pods the API server has bound to the node and judges them:

- pods that fit: the plan is shown with "none hurt, of 2 from ... the API server";
- a pod more that does not fit the planned Allocatable: the dry run stops at the node, naming that pod, and
  nothing is written;
- a kubeconfig that cannot reach the API: the node fails naming node_allocatable_kubeconfig, nothing written.

    python3 tests/cluster/api_pods.py --bin .cache/cluster/bin --state STATE --playbook .venv/bin/ansible-playbook
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_NODE = os.path.join(HERE, '..', 'integration', 'targets', 'setup_fake_node', 'files', 'fake_node.py')
NODE = 'api-node1'


def pod(name, memory):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name, 'namespace': 'default'},
            'spec': {'nodeName': NODE, 'containers': [
                {'name': 'c', 'image': 'registry.k8s.io/pause:3.10',
                 'resources': {'requests': {'memory': memory, 'cpu': '100m'}}}]}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--bin', required=True)
    parser.add_argument('--state', required=True)
    parser.add_argument('--playbook', required=True, help='the ansible-playbook to run')
    args = parser.parse_args(argv)
    with open(os.path.join(args.state, 'control-plane.json')) as handle:
        record = json.load(handle)

    def kubectl(*words, **kwargs):
        answer = subprocess.run([os.path.join(args.bin, 'kubectl'), '--kubeconfig', record['kubeconfig']] + list(words),
                                input=kwargs.get('stdin'), capture_output=True, text=True, check=False)
        if answer.returncode != 0:
            raise SystemExit('kubectl %s: %s' % (' '.join(words), answer.stderr.strip()))
        return answer.stdout

    def running(name):
        """The status kubelet would report for a pod it runs: the preview is about what runs now."""
        kubectl('patch', 'pod', name, '-n', 'default', '--subresource=status', '--type=merge', '-p',
                json.dumps({'status': {'phase': 'Running', 'conditions': [{'type': 'Ready', 'status': 'True'}]}}))

    work = tempfile.mkdtemp(prefix='api-pods.', dir=args.state)
    root = os.path.join(work, NODE)
    subprocess.run([sys.executable, FAKE_NODE, root, '--layout', 'kubeadm', '--driver', 'systemd', '--memory', '16Gi',
                    '--cpus', '4'], check=True, capture_output=True)
    kubectl('create', '-f', '-', stdin=json.dumps({'apiVersion': 'v1', 'kind': 'Node', 'metadata': {'name': NODE}}))
    # Bound by name, as a scheduler binds them, and running as kubelet would report them (there is no kubelet); the
    # service account controller makes the namespace's default account first.
    for name, memory in (('web', '4Gi'), ('cache', '6Gi')):
        for _try in range(60):
            created = subprocess.run([os.path.join(args.bin, 'kubectl'), '--kubeconfig', record['kubeconfig'], 'create',
                                      '-f', '-'], input=json.dumps(pod(name, memory)), capture_output=True, text=True,
                                     check=False)
            if created.returncode == 0:
                break
            time.sleep(1)
        else:
            raise SystemExit('pod %s not created: %s' % (name, created.stderr.strip()))
        running(name)
    inventory = os.path.join(work, 'nodes.ini')
    with open(inventory, 'w') as handle:
        handle.write('[nodes]\n%s node_allocatable_root=%s\n[nodes:vars]\nansible_connection=local\n'
                     'ansible_python_interpreter="{{ ansible_playbook_python }}"\nnode_allocatable_health_url=\n'
                     'node_allocatable_report=false\n' % (NODE, root))

    def playbook(*extra):
        answer = subprocess.run([args.playbook, '-i', inventory, '--check'] + list(extra) + ['kubenode.cgroups.node'],
                                capture_output=True, text=True, cwd=work, check=False)
        return answer.returncode, answer.stdout + answer.stderr

    kubeconfig = '-e', 'node_allocatable_kubeconfig=%s' % record['kubeconfig']
    failures = []
    code, out = playbook(*kubeconfig)
    if code != 0 or 'none hurt, of 2 from static pods (/etc/kubernetes/manifests) and the API server' not in out:
        failures.append('pods that fit: rc %d, no "none hurt, of 2 from ... the API server":\n%s' % (code, out[-3000:]))
    kubectl('create', '-f', '-', stdin=json.dumps(pod('batch', '4Gi')))
    running('batch')
    code, out = playbook(*kubeconfig)
    if code == 0 or 'default/batch' not in out or 'node_allocatable_accept_impact' not in out:
        failures.append('a pod too many: rc %d, default/batch not named in a refusal:\n%s' % (code, out[-3000:]))
    unreachable = os.path.join(work, 'unreachable.conf')
    with open(record['kubeconfig']) as handle, open(unreachable, 'w') as out_file:
        out_file.write(handle.read().replace(record['server'], 'https://127.0.0.1:1'))
    code, out = playbook('-e', 'node_allocatable_kubeconfig=%s' % unreachable)
    if code == 0 or 'node_allocatable_kubeconfig: cannot read the pods the API server has bound to node' not in out:
        failures.append('an unreachable API: rc %d, not refused naming node_allocatable_kubeconfig:\n%s'
                        % (code, out[-3000:]))
    written = [os.path.join(d, f) for d, _dirs, files in os.walk(os.path.join(root, 'etc', 'systemd')) for f in files]
    if written:
        failures.append('check mode wrote %s' % written)
    if failures:
        raise SystemExit('\n\n'.join(failures))
    print('api pods: the plan judged 2 pods from the API server; a third was named in the refusal; an unreachable '
          'API refused naming node_allocatable_kubeconfig; nothing written')
    return 0


if __name__ == '__main__':
    sys.exit(main())
