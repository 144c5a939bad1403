# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pod_cgroups.py [CGROUP...]: what kubelet, containerd and runc made for the static pods on this node, as JSON -
{pod name: {uid, cgroup, files, containers: {name: {id, cgroup, files}}}}. The pods and their uids come from
kubelet's log directories (/var/log/pods/NAMESPACE_NAME_UID), each container from containerd (its labels) once its task
runs (runc makes a container's cgroup, then writes its values, then starts it: a container still being created shows
the kernel's defaults), the cgroups from the kernel: the pod's directory is found by its uid, whatever the QoS tier and the driver.
With CGROUP paths (/kubepods.slice, ...), their files instead: {path: files}, read in every hierarchy."""

import glob
import json
import os
import subprocess
import sys

FILES = ('cpu.weight', 'cpu.max', 'cpu.shares', 'cpu.cfs_quota_us', 'cpu.cfs_period_us', 'memory.max',
         'memory.limit_in_bytes', 'memory.min', 'memory.high', 'pids.max')


def read(directory):
    found = {}
    for name in FILES:
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path) as handle:
                found[name] = handle.read().strip()
    return found


def cgroup_dirs(pattern):
    """Every directory of the cgroup tree (v2, or each v1 hierarchy) whose path matches pattern."""
    roots = ['/sys/fs/cgroup'] if os.path.exists('/sys/fs/cgroup/cgroup.controllers') else \
        ['/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids']
    return [d for root in roots for d in glob.glob(os.path.join(root, '**', pattern), recursive=True)]


def container_name(container_id):
    """The Kubernetes container name containerd keeps for a container id; None for a pod sandbox."""
    out = subprocess.run(['ctr', '-n', 'k8s.io', 'containers', 'info', container_id], capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        return None
    labels = json.loads(out.stdout).get('Labels') or {}
    return labels.get('io.kubernetes.container.name')


def running_tasks():
    """The ids of the containers whose task containerd reports RUNNING."""
    out = subprocess.run(['ctr', '-n', 'k8s.io', 'tasks', 'ls'], capture_output=True, text=True, check=False)
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    return set(row[0] for row in rows if len(row) >= 3 and row[2] == 'RUNNING')


def node_cgroups(paths):
    """{path: files} of the named cgroups (kubepods and the QoS tiers), merged over the v1 hierarchies."""
    roots = ['/sys/fs/cgroup'] if os.path.exists('/sys/fs/cgroup/cgroup.controllers') else \
        ['/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids', '/sys/fs/cgroup/cpuset']
    found = {}
    for path in paths:
        files = {}
        for root in roots:
            directory = root + path
            if os.path.isdir(directory):
                files.update(read(directory))
                cpus = os.path.join(directory, 'cpuset.cpus')
                if os.path.exists(cpus):
                    with open(cpus) as handle:
                        files['cpuset.cpus'] = handle.read().strip()
        found[path] = files
    return found


def main():
    if len(sys.argv) > 1:
        print(json.dumps(node_cgroups(sys.argv[1:]), sort_keys=True))
        return
    pods = {}
    running = running_tasks()
    for log_dir in sorted(glob.glob('/var/log/pods/*_*_*')):
        _namespace, name, uid = os.path.basename(log_dir).split('_', 2)
        entry = {'uid': uid, 'cgroup': None, 'files': {}, 'containers': {}}
        names = ('*pod%s*' % uid.replace('-', '_'), '*pod%s' % uid)  # systemd slices, cgroupfs directories
        for directory in sorted(set(d for pattern in names for d in cgroup_dirs(pattern))):
            entry['cgroup'] = entry['cgroup'] or directory
            entry['files'].update(read(directory))
            for child in sorted(os.listdir(directory)):
                container_dir = os.path.join(directory, child)
                if not os.path.isdir(container_dir):
                    continue
                container_id = child.rsplit('-', 1)[-1].split('.')[0]
                container = container_name(container_id) if container_id in running else None
                if container:
                    record = entry['containers'].setdefault(container, {'id': container_id, 'cgroup': container_dir,
                                                                        'files': {}})
                    record['files'].update(read(container_dir))
        pods[name] = entry
    print(json.dumps(pods, sort_keys=True))


if __name__ == '__main__':
    main()
