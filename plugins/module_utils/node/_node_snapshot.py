# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What node_cgroups and node_drift_info know of a node, read once before anything is planned: the cgroup
layout, kubelet's unit and release, its files and the capacity, then the cgroups the plan names.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

read_node() takes a NodeSnapshot (cgroup layout, PID 1, where kubelet reads its configuration, the
kubelet, runtime and checkpoint files, the capacity) before anything is planned; read_cgroups() takes
a CgroupSnapshot of the cgroups a plan names. The planners (_node_cgroups) are functions of these and
a NodeSpec. The units side (unit files, overrides, whether the slices are active) is read once by
_unit_snapshot.read_units; the cgroups are read again after systemd has acted on them (_node_steps.present).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._detect import detect_capacity
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import FileSnapshot, snapshot_entry
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_config_file import dropin_pattern
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _node_paths as node_paths
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import pid1_is_systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import RunCommand, Systemctl

# Where a container runtime shows itself besides its configuration: its CRI socket.
RUNTIME_SOCKETS = ('/run/containerd/containerd.sock', '/run/crio/crio.sock', '/var/run/crio/crio.sock')
CPU_MANAGER_CHECKPOINT = 'cpu_manager_state'


class NodeView(Protocol):
    """What reading a node takes from the run's NodeSpec (run/_node_options): where the node's files are, and
    whether the plan or the capacity is given."""

    proc_path: str
    sys_path: str
    cgroupfs_path: str
    node_root: str
    kubelet_service: str
    kubelet_root_dir: str
    kubelet_binary: str | None
    kubelet_config_paths: Sequence[str]
    containerd_config_path: str
    crio_config_paths: Sequence[str]
    plan: Any
    capacity: Any

    def kubelet_config_option(self, name: str, fallback: Any = None) -> Any:
        ...


class NodeSnapshot(object):
    """The host as node_cgroups' planning sees it."""

    __slots__ = ('layout', 'systemd_running', 'kubelet', 'files', 'runtime_sockets', 'capacity', 'online_cpus',
                 'kubelet_release')

    def __init__(self, layout: fs.CgroupLayout, systemd_running: bool, kubelet: dict[str, Any], files: FileSnapshot,
                 runtime_sockets: Iterable[str] = (), capacity: dict[str, str] | None = None,
                 online_cpus: list[int] | None = None, kubelet_release: dict[str, Any] | None = None) -> None:
        self.layout, self.systemd_running, self.kubelet, self.files = layout, systemd_running, kubelet, files
        self.runtime_sockets = list(runtime_sockets)  # the CRI sockets that exist
        self.capacity, self.online_cpus = capacity, online_cpus
        # What the kubelet binary answered to --version (_kubelet_discovery.ask_kubelet_version), or None.
        self.kubelet_release = kubelet_release


def kubelet_dropin_dirs(spec: NodeView, kubelet: dict[str, Any]) -> list[str]:
    """The --config-dir directories a run may read or write: kubelet's, the operator's, the default."""
    return sorted(set(d for d in (kubelet['config_dir'], spec.kubelet_config_option('kubelet_dropin_dir'),
                                  node_paths.under_root(spec.node_root, node_paths.DEFAULT_DROPIN_DIR)) if d))


def read_kubelet_release(spec: NodeView, kubelet: dict[str, Any], run: RunCommand) -> dict[str, Any] | None:
    """What the kubelet binary says of its release: the kubelet_binary option's, else the one kubelet's unit or
    process starts. None when there is none to ask (kubelet_binary "" on a fake node)."""
    binary = spec.kubelet_binary
    started_by: str | None = 'kubelet_binary'
    if binary is None:
        binary, started_by = kubelet.get('binary'), kubelet.get('source')
    if not binary:
        if spec.kubelet_binary == '' and kubelet.get('source'):
            # Found, not asked: say so, rather than that no kubelet was found (node_kubelet_release's warning).
            return {'version': None, 'binary': None, 'started_by': kubelet.get('source'), 'output': '',
                    'not_asked': 'kubelet_binary is empty, as under a node root, where no binary of this machine is '
                                 'run (kubelet found: %s)' % kubelet.get('source')}
        return None
    if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
        return {'version': None, 'binary': binary, 'started_by': started_by, 'output': 'no executable file there'}
    return dict(discovery.ask_kubelet_version(binary, run), started_by=started_by)


def read_node(spec: NodeView, systemctl: Systemctl, run: RunCommand | None = None) -> NodeSnapshot:
    """A NodeSnapshot for a NodeSpec. systemctl(*args) -> (rc, out, err); used when systemd is PID 1.
    run(argv) -> (rc, out, err) asks the kubelet binary its release (not asked when run is None)."""
    layout = fs.detect_layout(spec.proc_path, spec.cgroupfs_path)
    systemd_running = pid1_is_systemd(spec.proc_path)
    kubelet = discovery.discover(spec.proc_path, systemctl if systemd_running else None, spec.kubelet_service,
                                 spec.node_root)
    dropin_dirs = kubelet_dropin_dirs(spec, kubelet)
    dropin_name = spec.kubelet_config_option('kubelet_dropin_name', node_paths.DEFAULT_DROPIN_NAME)
    paths = (list(spec.kubelet_config_paths) + [known for known, _layout in discovery.known_layouts(None, spec.node_root)]
             + [kubelet['config'], kubelet.get('extra_args_file'), spec.kubelet_config_option('kubelet_config_path'),
                spec.containerd_config_path,
                os.path.join(spec.kubelet_root_dir, CPU_MANAGER_CHECKPOINT)]
             + [os.path.join(d, dropin_name) for d in dropin_dirs])
    files = FileSnapshot.capture([p for p in paths if p], list(spec.crio_config_paths)
                                 + [dropin_pattern(d) for d in dropin_dirs])
    sockets = [path for path in (node_paths.under_root(spec.node_root, p) for p in RUNTIME_SOCKETS)
               if os.path.exists(path)]
    capacity: dict[str, str] | None = None
    online_cpus: list[int] | None = None
    if spec.plan is None and spec.capacity is None:
        capacity, online_cpus = detect_capacity(spec.proc_path, spec.sys_path, spec.kubelet_root_dir)
    release = read_kubelet_release(spec, kubelet, run) if run is not None else None
    return NodeSnapshot(layout, systemd_running, kubelet, files, sockets, capacity, online_cpus, release)


class CgroupSnapshot(object):
    """Directories and cgroup files read once, answering as the planner asks (isdir, exists, read). A
    question about something not read is a bug in read_cgroups and says so."""

    def __init__(self, directories: dict[str, bool], contents: dict[str, str | None]) -> None:
        self._directories, self._contents = directories, contents

    def isdir(self, path: str) -> bool:
        return snapshot_entry(self._directories, path, 'cgroup')

    def read(self, path: str) -> str | None:
        return snapshot_entry(self._contents, path, 'cgroup')

    def exists(self, path: str) -> bool:
        return self.read(path) is not None


def read_cgroups(layout: fs.CgroupLayout, root: str, entries: Iterable[tuple[str, PlannedCgroup]]) -> CgroupSnapshot:
    """A CgroupSnapshot of every directory from each mount down to each entry's cgroupfs_path, with the
    files the planner compares: cgroup.controllers and cgroup.subtree_control on the way (on v1, the
    cpuset files of every cpuset directory on the way), the entry's files in its own directory.
    entries: [(key, PlannedCgroup)] as the planner gets them."""
    v2 = layout.is_v2
    mounts = [root] if v2 else sorted(set(layout.v1_hierarchies.values()))
    cpuset_mount = None if v2 else layout.v1_hierarchies.get('cpuset')
    directories: dict[str, bool] = {}
    contents: dict[str, str | None] = {}
    for key, entry in entries:
        parts = [p for p in entry.cgroupfs_path.split('/') if p]
        names = list(entry.files(layout.mode))
        for mount in mounts:
            on_the_way = [cgfiles.V2_CONTROLLERS_FILE, cgfiles.V2_SUBTREE_CONTROL] + (
                [cgfiles.CPUSET_CPUS.file_in('v1'), cgfiles.CPUSET_MEMS.file_in('v1')] if mount == cpuset_mount else [])
            for depth in range(len(parts) + 1):
                directory = fs.cgroup_path(mount, '/'.join(parts[:depth]), '%s path' % key)
                wanted = on_the_way + (names if depth == len(parts) else [])
                directories[directory] = os.path.isdir(directory)
                for name in wanted:
                    path = os.path.join(directory, name)
                    contents[path] = fs.read_file(path) if directories[directory] else None
    return CgroupSnapshot(directories, contents)
