# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet benchmark: the node_allocatable role's cost per host against the `ansible -m ping` floor.

Builds N hosts, each with its own fake /proc, /sys, cgroupfs (a cgroup v2 tree in the state the
kernel shows), unit directory and kubelet/containerd files, then times, for each forks value:
ping, the first converge, an idempotent re-run and --check, with the controller's CPU time and
peak memory. Hosts are reached with ansible_connection=local, or with --ssh over SSH: one sshd
per host on 127.0.0.1 (bench/fleet/ssh_fleet.py), pipelining and ControlPersist on, and every
run started without a control master. Writes bench/results/fleet[-ssh].json and prints a
Markdown table. Nothing outside the work dir is touched, except /run/sshd in SSH mode (made if
missing, removed at the end).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssh_fleet import SshFleet  # noqa: E402  pylint: disable=wrong-import-position

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
        # Every path of the node under its fake root (docs/testing.md).
        'node_allocatable_root': base,
        'node_allocatable_report_dir': os.path.join(os.path.dirname(base), 'report'),
    }


def make_fleet(work, hosts, ssh=None):
    if os.path.exists(os.path.join(work, 'nodes')):
        shutil.rmtree(os.path.join(work, 'nodes'))
    inventory = {'all': {'vars': {'ansible_python_interpreter': sys.executable}, 'hosts': {}}}
    for index in range(hosts):
        name = 'node-%03d' % index
        inventory['all']['hosts'][name] = make_node(os.path.join(work, 'nodes', name), index)
        if ssh is not None:
            inventory['all']['hosts'][name].update(ssh.host_vars(index))
    path = os.path.join(work, 'inventory.json')
    with open(path, 'w') as handle:
        json.dump(inventory, handle)
    return path


def _tree_pss_kib(root_pid):
    """Proportional memory (Pss, shared pages split among their users) of a process and its descendants,
    in KiB: the forked workers share most of their pages, which a sum of RSS would count again for each."""
    # One pass over /proc into a map of children: a search of every process for each parent cost the sampler
    # (on the controller's cores) a time that grew with the fleet's sshd and session processes times the tree.
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as handle:
                children.setdefault(int(handle.read().rsplit(')', 1)[1].split()[1]), []).append(int(entry))
        except (IOError, OSError, IndexError, ValueError):
            continue
    tree, frontier = {root_pid}, [root_pid]
    while frontier:
        for pid in children.get(frontier.pop(), ()):
            if pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    total = 0
    for pid in tree:
        try:
            with open('/proc/%d/smaps_rollup' % pid) as handle:
                total += sum(int(line.split()[1]) for line in handle if line.startswith('Pss:'))
        except (IOError, OSError, ValueError):
            continue
    return total


def _own_cpu_s(pid):
    """CPU seconds of the process itself, its children's not counted (/proc/PID/stat's utime and stime)."""
    try:
        with open('/proc/%d/stat' % pid) as handle:
            fields = handle.read().rsplit(')', 1)[1].split()
    except (IOError, OSError):
        return None
    return (int(fields[11]) + int(fields[12])) / float(os.sysconf('SC_CLK_TCK'))


def timed(command, env):
    """(wall seconds, controller CPU seconds, controller peak memory in MiB, CPU seconds of ansible's main process
    alone) of one command. The main process runs the strategy and the callbacks (and polls the workers, every 0.1 ms in
    ansible-core's _queue_task, while it waits for a free one); the workers run the hosts' tasks. It is sampled
    with the memory: the last 0.2 s before its exit are missed."""
    with tempfile.TemporaryFile(mode='w+') as output:
        start = time.time()
        process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        peak = [0]
        own = [0.0]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], _tree_pss_kib(process.pid))
                own[0] = _own_cpu_s(process.pid) or own[0]
                done.wait(0.2)
        sampler = threading.Thread(target=sample)
        sampler.start()
        _pid, status, usage = os.wait4(process.pid, 0)
        elapsed = time.time() - start
        done.set()
        sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            output.seek(0)
            sys.stderr.write(output.read()[-6000:])
            raise SystemExit('benchmark step failed: %s' % ' '.join(command))
    return elapsed, usage.ru_utime + usage.ru_stime, peak[0] / 1024.0, own[0]


def play_command(playbook, work):
    """What ansible-playbook runs: the bench's own play, or the node playbook as an operator runs it (its default
    batches, its fleet report into the work directory)."""
    if playbook == 'node':
        return ['-e', 'node_allocatable_report_dir=%s' % os.path.join(work, 'report'), 'kubenode.cgroups.node']
    return [os.path.join(HERE, 'site.yml')]


def run(hosts, forks_values, work, bin_dir, ssh=None, repeat=1, playbook='site', answered_rounds=1):
    env = dict(os.environ)
    env.update({'ANSIBLE_CALLBACKS_ENABLED': 'kubenode_count',
                'ANSIBLE_CALLBACK_PLUGINS': os.path.join(HERE, 'callback_plugins'),
                'ANSIBLE_HOST_KEY_CHECKING': 'False', 'ANSIBLE_STDOUT_CALLBACK': 'default'})
    if ssh is not None:
        env.update(ssh.ansible_env())
    count_file = os.path.join(work, 'count.json')
    env['KUBENODE_COUNT_FILE'] = count_file
    results = []
    for forks in [f for f in forks_values for _time in range(repeat)]:
        inventory = make_fleet(os.path.join(work, 'fleet'), hosts, ssh)

        def ping_once():
            if ssh is not None:
                ssh.close_masters()
            return timed([os.path.join(bin_dir, 'ansible'), 'all', '-i', inventory, '-m', 'ansible.builtin.ping',
                          '-f', str(forks)], env)

        def play(extra, ping):
            if ssh is not None:
                ssh.close_masters()
            command = ([os.path.join(bin_dir, 'ansible-playbook'), '-i', inventory, '-f', str(forks)]
                       + extra + play_command(playbook, work))
            elapsed, cpu, mib, main_cpu = timed(command, env)
            with open(count_file) as handle:
                counts = json.load(handle)
            return {'seconds': round(elapsed, 2), 'ratio': round(elapsed / ping, 2),
                    'cpu_s': round(cpu, 2), 'main_cpu_s': round(main_cpu, 2), 'peak_mib': round(mib, 1),
                    'peak_mib_per_host': round(mib / hosts, 2),
                    'tasks_per_host': max(counts['tasks'].values()),
                    'modules_per_host': max(counts['modules'].values()),
                    'seconds_per_task': counts['seconds_per_task']}

        ping, ping_cpu, ping_mib, ping_main_cpu = ping_once()
        row = {'hosts': hosts, 'forks': forks, 'ping_s': round(ping, 2), 'ping_cpu_s': round(ping_cpu, 2),
               'ping_main_cpu_s': round(ping_main_cpu, 2), 'ping_peak_mib': round(ping_mib, 1)}
        for step, extra in (('converge', []), ('rerun', []), ('check', ['--check'])):
            row[step] = play(extra, ping)
        # More rounds on the same, converged fleet: ping, re-run and --check one after another, each answered run
        # against the ping of its round. An answered run's ratio moves from one run to the next by more than a 5%
        # target's margin (1.06x to 1.18x at 1,000 hosts); rounds on one fleet average that without paying a converge
        # (the costliest run) each time.
        row['answered_rounds'] = [{'ping_s': row['ping_s'], 'ping_cpu_s': row['ping_cpu_s'],
                                   'ping_main_cpu_s': row['ping_main_cpu_s'], 'rerun': row['rerun'],
                                   'check': row['check']}]
        for _round in range(1, answered_rounds):
            ping, ping_cpu, _mib, ping_main_cpu = ping_once()
            this = {'ping_s': round(ping, 2), 'ping_cpu_s': round(ping_cpu, 2),
                    'ping_main_cpu_s': round(ping_main_cpu, 2)}
            for step, extra in (('rerun', []), ('check', ['--check'])):
                this[step] = play(extra, ping)
            row['answered_rounds'].append(this)
        results.append(row)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--hosts', type=int)
    parser.add_argument('--forks', type=int, nargs='+')
    parser.add_argument('--ssh', action='store_true', help='reach the hosts over SSH, one sshd each on 127.0.0.1')
    parser.add_argument('--work', default=os.path.join(ROOT, '.cache', 'bench-fleet'))
    parser.add_argument('--bin', default=os.path.dirname(sys.executable))
    parser.add_argument('--repeat', type=int,
                        help='runs per forks value, each on a fresh fleet beside its own ping, and their mean '
                             '(3 over SSH, else 1)')
    parser.add_argument('--answered-rounds', type=int, default=1,
                        help='rounds of ping, re-run and --check on each converged fleet (1: the converge\'s own)')
    parser.add_argument('--playbook', choices=('site', 'node'), default='site',
                        help="site: the role imported in one play (site.yml); node: kubenode.cgroups.node, in its "
                             "batches and with its fleet report")
    args = parser.parse_args()
    hosts = args.hosts or (100 if args.ssh else 50)
    forks = args.forks or ([25, 50] if args.ssh else [5, 25])
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    ssh = None
    try:
        if args.ssh:
            ssh = SshFleet(os.path.join(args.work, 'ssh'), os.path.join(ROOT, '.cache', 'openssh-server'), hosts)
            os.makedirs(ssh.work)
            ssh.start()
        results = run(hosts, forks, args.work, args.bin, ssh, args.repeat or (3 if args.ssh else 1), args.playbook,
                      args.answered_rounds)
    finally:
        if ssh is not None:
            ssh.stop()
        shutil.rmtree(args.work, ignore_errors=True)
    out = os.path.join(ROOT, 'bench', 'results')
    if not os.path.isdir(out):
        os.makedirs(out)
    name = 'fleet' + ('-ssh' if args.ssh else '') + ('-node' if args.playbook == 'node' else '')
    with open(os.path.join(out, name + '.json'), 'w') as handle:
        json.dump(results, handle, indent=1)
    print('| hosts | forks | ping | first converge | idempotent re-run | --check | controller CPU (ping, converge, '
          're-run, check; main: ansible\'s own process) | controller peak memory per host | tasks / modules per host (converge, re-run, check) |')
    print('|---:|---:|---:|---:|---:|---:|---|---|---|')
    for row in results:
        steps = ('converge', 'rerun', 'check')
        cells = ['%.1f s (%.1fx)' % (row[s]['seconds'], row[s]['ratio']) for s in steps]
        cpu = ', '.join(['%.1f s (main %.1f)' % (row['ping_cpu_s'], row['ping_main_cpu_s'])]
                        + ['%.1f s (main %.1f)' % (row[s]['cpu_s'], row[s]['main_cpu_s']) for s in steps])
        memory = '%.1f MiB (ping %.1f)' % (max(row[s]['peak_mib_per_host'] for s in steps),
                                           row['ping_peak_mib'] / row['hosts'])
        counts = ', '.join('%d/%d' % (row[s]['tasks_per_host'], row[s]['modules_per_host']) for s in steps)
        print('| %d | %d | %.1f s | %s | %s | %s | %s |'
              % (row['hosts'], row['forks'], row['ping_s'], ' | '.join(cells), cpu, memory, counts))
    for forks in sorted(set(row['forks'] for row in results)):
        rows = [row for row in results if row['forks'] == forks]
        if len(rows) > 1:
            means = ['%.2fx' % (sum(row[s]['ratio'] for row in rows) / len(rows)) for s in ('converge', 'rerun', 'check')]
            cpu = ['%.2fx' % (sum(row[s]['cpu_s'] for row in rows) / sum(row['ping_cpu_s'] for row in rows))
                   for s in ('converge', 'rerun', 'check')]
            print('forks %d, mean of %d runs: converge %s, re-run %s, --check %s of ping; controller CPU %s, %s, %s of '
                  "ping's" % tuple([forks, len(rows)] + means + cpu))
    for row in results:
        rounds = row.get('answered_rounds', [])
        if len(rounds) > 1:
            cells = []
            for step in ('rerun', 'check'):
                ratios = [r[step]['seconds'] / r['ping_s'] for r in rounds]
                cells.append('%s %.2fx (%s; CPU %.2fx of ping\'s)' % (
                    're-run' if step == 'rerun' else '--check', sum(ratios) / len(ratios),
                    ', '.join('%.2fx' % ratio for ratio in ratios),
                    sum(r[step]['cpu_s'] for r in rounds) / sum(r['ping_cpu_s'] for r in rounds)))
            print('%d hosts, forks %d, %d answered rounds, ping %s s: %s'
                  % (row['hosts'], row['forks'], len(rounds), ', '.join('%.1f' % r['ping_s'] for r in rounds),
                     '; '.join(cells)))


if __name__ == '__main__':
    main()
