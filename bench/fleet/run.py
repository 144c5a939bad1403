# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet benchmark: the node_allocatable role's cost per host against the `ansible -m ping` floor.

Builds N hosts (ansible_connection=local), each with its own fake /proc, /sys, cgroupfs (a
cgroup v2 tree in the state the kernel shows), unit directory and kubelet/containerd files,
then times, for each forks value: ping, the first converge, an idempotent re-run and --check.
Writes bench/results/fleet.json and prints a Markdown table. Nothing outside the work dir is
touched.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
V2_FILES = {'cpu.weight': '100', 'cpu.max': 'max 100000', 'memory.max': 'max', 'memory.min': '0',
            'memory.low': '0', 'pids.max': 'max', 'cpuset.cpus': '', 'cpuset.mems': '',
            'hugetlb.2MB.max': 'max', 'hugetlb.2MB.rsvd.max': 'max'}
CGROUPS = ('kubepods', 'kubepods/burstable', 'kubepods/besteffort', 'system-reserved', 'kube-reserved')
KUBEADM_CONFIG = os.path.join(ROOT, 'tests', 'unit', 'data', 'kubeadm-kubelet-config.yaml')


def write(path, text):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'w') as handle:
        handle.write(text)


def make_node(base, index):
    """A node's fake roots, with the kernel's cgroup files as kubelet-less cgroup v2 shows them."""
    proc, sys_root, cgroupfs = (os.path.join(base, p) for p in ('proc', 'sys', 'sys/fs/cgroup'))
    write(os.path.join(proc, 'self/mountinfo'), '30 1 0:30 / %s rw - cgroup2 cgroup2 rw\n' % cgroupfs)
    write(os.path.join(proc, '1/comm'), 'init\n')
    write(os.path.join(proc, 'meminfo'), 'MemTotal:       %d kB\n' % (16 * 1024 * 1024 + index * 4))
    write(os.path.join(proc, 'sys/kernel/pid_max'), '4194304\n')
    write(os.path.join(proc, 'sys/kernel/threads-max'), '127000\n')
    write(os.path.join(sys_root, 'devices/system/cpu/online'), '0-7\n')
    write(os.path.join(sys_root, 'kernel/mm/hugepages/hugepages-2048kB/nr_hugepages'), '0\n')
    write(os.path.join(cgroupfs, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids\n')
    write(os.path.join(cgroupfs, 'cgroup.subtree_control'), 'cpuset cpu memory hugetlb pids\n')
    for cgroup in CGROUPS:
        directory = os.path.join(cgroupfs, cgroup)
        write(os.path.join(directory, 'cgroup.controllers'), 'cpuset cpu memory hugetlb pids\n')
        write(os.path.join(directory, 'cgroup.subtree_control'),
              'cpuset cpu memory hugetlb pids\n' if cgroup == 'kubepods' else '\n')
        write(os.path.join(directory, 'cgroup.procs'), '')
        for name, value in V2_FILES.items():
            write(os.path.join(directory, name), value + '\n')
    os.makedirs(os.path.join(base, 'var/lib/kubelet'))
    shutil.copy(KUBEADM_CONFIG, os.path.join(base, 'var/lib/kubelet/config.yaml'))
    write(os.path.join(base, 'etc/containerd/config.toml'),
          'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
          '  SystemdCgroup = false\n')
    os.makedirs(os.path.join(base, 'etc/kubernetes/kubelet.conf.d'))
    os.makedirs(os.path.join(base, 'etc/systemd/system'))
    return {
        'ansible_connection': 'local',
        'node_allocatable_cgroup_driver': 'cgroupfs',
        'node_allocatable_system_reserved_cgroup': '/system-reserved',
        'node_allocatable_kube_reserved_cgroup': '/kube-reserved',
        'node_allocatable_system_reserved': {'cpu': '500m', 'memory': '1Gi'},
        'node_allocatable_enforce_node_allocatable': ['pods', 'system-reserved'],
        'node_allocatable_proc_path': proc,
        'node_allocatable_sys_path': sys_root,
        'node_allocatable_cgroupfs_path': cgroupfs,
        'node_allocatable_systemd_unit_dir': os.path.join(base, 'etc/systemd/system'),
        'node_allocatable_lock_path': os.path.join(base, 'run/lock/kubenode-cgroups.lock'),
        'node_allocatable_kubelet_root_dir': os.path.join(base, 'var/lib/kubelet'),
        'node_allocatable_kubelet_config_path': os.path.join(base, 'var/lib/kubelet/config.yaml'),
        'node_allocatable_kubelet_dropin_dir': os.path.join(base, 'etc/kubernetes/kubelet.conf.d'),
        'node_allocatable_containerd_config_path': os.path.join(base, 'etc/containerd/config.toml'),
        'node_allocatable_crio_config_paths': [os.path.join(base, 'etc/crio/crio.conf')],
        'node_allocatable_report_dir': os.path.join(os.path.dirname(base), 'report'),
    }


def make_fleet(work, hosts):
    if os.path.exists(work):
        shutil.rmtree(work)
    inventory = {'all': {'vars': {'ansible_python_interpreter': sys.executable}, 'hosts': {}}}
    for index in range(hosts):
        name = 'node-%03d' % index
        inventory['all']['hosts'][name] = make_node(os.path.join(work, 'nodes', name), index)
    path = os.path.join(work, 'inventory.json')
    with open(path, 'w') as handle:
        json.dump(inventory, handle)
    return path


def timed(command, env):
    start = time.time()
    process = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
                             universal_newlines=True)
    elapsed = time.time() - start
    if process.returncode != 0:
        sys.stderr.write(process.stdout[-6000:])
        raise SystemExit('benchmark step failed: %s' % ' '.join(command))
    return elapsed


def run(hosts, forks_values, work, bin_dir):
    env = dict(os.environ)
    env.update({'ANSIBLE_CALLBACKS_ENABLED': 'kubenode_count',
                'ANSIBLE_CALLBACK_PLUGINS': os.path.join(HERE, 'callback_plugins'),
                'ANSIBLE_HOST_KEY_CHECKING': 'False', 'ANSIBLE_STDOUT_CALLBACK': 'default'})
    count_file = os.path.join(work, 'count.json')
    env['KUBENODE_COUNT_FILE'] = count_file
    results = []
    for forks in forks_values:
        inventory = make_fleet(os.path.join(work, 'fleet'), hosts)
        ping = timed([os.path.join(bin_dir, 'ansible'), 'all', '-i', inventory, '-m', 'ansible.builtin.ping',
                      '-f', str(forks)], env)
        row = {'hosts': hosts, 'forks': forks, 'ping_s': round(ping, 2)}
        for step, extra in (('converge', []), ('rerun', []), ('check', ['--check'])):
            elapsed = timed([os.path.join(bin_dir, 'ansible-playbook'), '-i', inventory, '-f', str(forks)] + extra
                            + [os.path.join(HERE, 'site.yml')], env)
            with open(count_file) as handle:
                counts = json.load(handle)
            row[step] = {'seconds': round(elapsed, 2), 'ratio': round(elapsed / ping, 2),
                         'tasks_per_host': max(counts['tasks'].values()),
                         'modules_per_host': max(counts['modules'].values()),
                         'seconds_per_task': counts['seconds_per_task']}
        results.append(row)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--hosts', type=int, default=50)
    parser.add_argument('--forks', type=int, nargs='+', default=[5, 25])
    parser.add_argument('--work', default=os.path.join(ROOT, '.cache', 'bench-fleet'))
    parser.add_argument('--bin', default=os.path.dirname(sys.executable))
    args = parser.parse_args()
    results = run(args.hosts, args.forks, args.work, args.bin)
    out = os.path.join(ROOT, 'bench', 'results')
    if not os.path.isdir(out):
        os.makedirs(out)
    with open(os.path.join(out, 'fleet.json'), 'w') as handle:
        json.dump(results, handle, indent=1)
    print('| hosts | forks | ping | first converge | idempotent re-run | --check | tasks / modules per host '
          '(converge, re-run, check) |')
    print('|---:|---:|---:|---:|---:|---:|---|')
    for row in results:
        cells = ['%.1f s (%.1fx)' % (row[s]['seconds'], row[s]['ratio']) for s in ('converge', 'rerun', 'check')]
        counts = ', '.join('%d/%d' % (row[s]['tasks_per_host'], row[s]['modules_per_host'])
                           for s in ('converge', 'rerun', 'check'))
        print('| %d | %d | %.1f s | %s | %s |' % (row['hosts'], row['forks'], row['ping_s'], ' | '.join(cells), counts))


if __name__ == '__main__':
    main()
