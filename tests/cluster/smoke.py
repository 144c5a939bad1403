#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The control plane control_plane.py started answers as a cluster does (make cluster-smoke, issue 52): the API
server is ready; a Node registered with a capacity and an Allocatable reports them back; the scheduler places pods
by that Allocatable (the ones that fit are bound to the node, the one too many stays Pending with the scheduler's
"Insufficient memory"). No kubelet: the Node object stands for one, its status written through the API.
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import subprocess
import sys
import time

NODE = 'smoke-node'
CAPACITY = {'cpu': '4', 'memory': '8Gi', 'pods': '110'}
ALLOCATABLE = {'cpu': '3500m', 'memory': '6Gi', 'pods': '110'}


def kubectl(binaries, kubeconfig, *args, **kwargs):
    argv = [os.path.join(binaries, 'kubectl'), '--kubeconfig', kubeconfig] + list(args)
    answer = subprocess.run(argv, input=kwargs.get('stdin'), capture_output=True, text=True, check=False)
    if answer.returncode != 0 and not kwargs.get('may_fail'):
        raise SystemExit('%s: %s' % (' '.join(args), answer.stderr.strip()))
    return answer.stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--bin', required=True)
    parser.add_argument('--state', required=True)
    args = parser.parse_args(argv)
    with open(os.path.join(args.state, 'control-plane.json')) as handle:
        record = json.load(handle)

    def k(*words, **kwargs):
        return kubectl(args.bin, record['kubeconfig'], *words, **kwargs)

    assert k('get', '--raw', '/readyz').strip() == 'ok'
    k('create', '-f', '-', stdin=json.dumps({'apiVersion': 'v1', 'kind': 'Node', 'metadata': {'name': NODE}}))
    now = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    status = {'status': {'capacity': CAPACITY, 'allocatable': ALLOCATABLE, 'conditions': [
        {'type': 'Ready', 'status': 'True', 'reason': 'KubeletReady', 'message': 'smoke',
         'lastHeartbeatTime': now, 'lastTransitionTime': now}]}}
    k('patch', 'node', NODE, '--subresource=status', '--type=merge', '-p', json.dumps(status))
    node = json.loads(k('get', 'node', NODE, '-o', 'json'))
    assert node['status']['allocatable'] == ALLOCATABLE, node['status']
    # The controller manager's service account controller makes the namespace's default account pods need.
    deadline = time.time() + 60
    while not k('get', 'serviceaccount', 'default', '-n', 'default', '-o', 'name', may_fail=True).strip():
        if time.time() > deadline:
            raise SystemExit('no default service account within 60 s: is the controller manager running?')
        time.sleep(1)
    # 6Gi allocatable: two pods of 2500Mi fit, a third does not.
    for index in range(3):
        pod = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'fill-%d' % index, 'namespace': 'default'},
               'spec': {'tolerations': [{'operator': 'Exists'}], 'containers': [
                   {'name': 'c', 'image': 'registry.k8s.io/pause:3.10',
                    'resources': {'requests': {'memory': '2500Mi', 'cpu': '100m'}}}]}}
        k('create', '-f', '-', stdin=json.dumps(pod))
    deadline = time.time() + 60
    while time.time() < deadline:
        pods = json.loads(k('get', 'pods', '-n', 'default', '-o', 'json'))['items']
        bound = sorted(p['metadata']['name'] for p in pods if p['spec'].get('nodeName') == NODE)
        events = k('get', 'events', '-n', 'default', '--field-selector', 'reason=FailedScheduling', '-o', 'json')
        pending = [e for e in json.loads(events)['items'] if 'Insufficient memory' in e.get('message', '')]
        if len(bound) == 2 and pending:
            print('smoke: API ready in %s s; Node %s Allocatable %s reported; pods bound: %s; %s Pending: %s'
                  % (record['seconds_to_ready'], NODE, ALLOCATABLE, ', '.join(bound),
                     pending[0]['involvedObject']['name'], pending[0]['message']))
            return 0
        time.sleep(1)
    raise SystemExit('the scheduler did not place the pods by Allocatable within 60 s: bound %s' % bound)


if __name__ == '__main__':
    sys.exit(main())
