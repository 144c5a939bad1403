# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""make bench-report: merge N node results (default 10,000) into the fleet report, as an operator runs it
(ansible-playbook kubenode.cgroups.report -i INVENTORY -e shards=DIR), and time it. Each result holds a real plan
(plan_node for a 64-core, 256 GiB node) and a few drift entries; a tenth of the nodes are failed, one in a hundred
has no result (not reached), and one in fifty has two (the older left out). Target: under 60 s (issue 39).

Usage: python3 bench/report/run.py [--nodes N] [--keep]"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COLLECTIONS = os.path.join(ROOT, '.cache', 'collections')
sys.path.insert(0, COLLECTIONS)

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node  # noqa: E402
from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet  # noqa: E402


def results(count):
    plan = plan_node(PlanOptions(capacity={'cpu': '64', 'memory': '256Gi', 'ephemeral-storage': '500Gi', 'pid': '4194304'},
                                 cgroup_driver='systemd', kube_reserved_cgroup='/kube.slice',
                                 system_reserved_cgroup='/system.slice')).as_dict()
    run = {'id': 'bench', 'playbook': 'Reserve node resources and enforce Node Allocatable', 'check_mode': False}
    for index in range(count):
        host = 'node%05d' % index
        if index % 100 == 99:
            continue  # not reached
        failed = index % 10 == 3
        entry = {'host': host, 'status': 'failed' if failed else 'applied',
                 'message': 'Plan the reservation: node_allocatable_kube_reserved.memory: did you mean 1G?' if failed else '',
                 'operations': None if failed else 3, 'sizing': None,
                 'summary': None if failed else {'plan': plan, 'cgroup_mode': 'v2', 'check_mode': False, 'drift': [
                     {'item': 'kube_reserved', 'check': 'memory.max', 'live': '1073741824', 'planned': '2147483648'},
                     {'item': 'kubelet config', 'check': '/var/lib/kubelet/config.yaml', 'live': 'differs',
                      'planned': 'the planned keys'}]},
                 'impact': {'effects': [], 'memory': [], 'pods': {'refused': [], 'at_risk': [], 'preempting': [], 'not_running': []}}}
        yield _fleet.shard(entry, run, '2026-11-26T10:00:00.%06dZ' % (index % 1000000))
        if index % 50 == 7:
            yield _fleet.shard(dict(entry, status='failed', message='older'), run, '2026-11-25T10:00:00.000000Z')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--nodes', type=int, default=10000)
    parser.add_argument('--keep', action='store_true', help='keep the temporary directory')
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix='kubenode-bench-report.')
    try:
        shards = os.path.join(work, 'shards')
        documents = list(results(args.nodes))
        # Several directories, as several slices leave them.
        for slice_number in range(4):
            _fleet.write_shards(os.path.join(shards, 'slice%d' % slice_number), documents[slice_number::4])
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _s, files in os.walk(shards) for f in files)
        inventory = os.path.join(work, 'inventory.json')
        with open(inventory, 'w') as handle:
            json.dump({'all': {'hosts': dict(('node%05d' % i, None) for i in range(args.nodes))}}, handle)
        command = [os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), '-i', inventory,
                   '-e', 'shards=' + ','.join(os.path.join(shards, 'slice%d' % i) for i in range(4)),
                   '-e', 'report_dir=' + os.path.join(work, 'report'), 'kubenode.cgroups.report']
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_NOCOLOR='1')
        started = time.time()
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                              check=False)
        elapsed = time.time() - started
        if done.returncode != 0:
            print(done.stdout[-4000:])
            return done.returncode
        with open(os.path.join(work, 'report', 'report.json')) as handle:
            counted = json.load(handle)['counted']
        report = dict((name, os.path.getsize(os.path.join(work, 'report', name)))
                      for name in ('index.html', 'report.md', 'report.json'))
        print('merged %d node results (%.1f MB in %d files) for %d nodes into the fleet report in %.1f s '
              '(target: under 60 s); counted %s; report sizes %s'
              % (len(documents), size / 1e6, len(documents) - counted['duplicates'] + counted['duplicates'],
                 args.nodes, elapsed, counted, report))
        return 0 if elapsed < 60 else 1
    finally:
        if args.keep:
            print('kept', work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
