# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading and writing cgroupfs: the host's cgroup mode, hierarchies and cgroup files.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Thin I/O over a configurable mount point, so tests run on a fake tree. cgroup files are
written in place (a rename would not reach the kernel) and only after comparing.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import errno
from collections import namedtuple
from collections.abc import Callable, Mapping
from types import MappingProxyType
import os
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as files
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._mounts import cgroup_mounts

# Controllers kubelet validates (cgroup_v1_manager_linux.go / cgroup_v2_manager_linux.go).
V1_REQUIRED = ('cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'systemd')
# A planned hierarchy kubelet does not require (hugetlb): used where it is mounted.
V1_OPTIONAL = tuple(h for h in files.PLANNED_HIERARCHIES if h not in V1_REQUIRED)
# kubelet's getSupportedUnifiedControllers (cgroup_manager_linux.go): the v2 controllers its Validate needs of a
# cgroup it is told to use, where the root offers them, in its order.
KUBELET_V2_CONTROLLERS = ('cpu', 'cpuset', 'memory', 'hugetlb', 'pids')
# The v2 controllers a cgroup the collection makes is given: kubelet's, then any other a registry row writes a file of.
V2_CONTROLLERS = KUBELET_V2_CONTROLLERS + tuple(c for c in files.PLANNED_V2_CONTROLLERS if c not in KUBELET_V2_CONTROLLERS)
_V1_KNOWN = V1_REQUIRED + V1_OPTIONAL + ('net_cls', 'net_prio', 'blkio', 'devices', 'freezer', 'perf_event',
                                         'rdma', 'misc')


class CgroupWriteError(HostError):
    """The kernel refused a write or a directory change; says which file, which value and why."""

    def __init__(self, message: str, path: str | None = None, value: str | None = None, operation: str = 'write') -> None:
        super(CgroupWriteError, self).__init__(message, operation=operation, path=path)
        self.value = value


def detect_layout(proc_path: str, cgroupfs_path: str) -> CgroupLayout:
    """The cgroup mode under cgroupfs_path: v2, hybrid or v1, and where each hierarchy is."""
    root = cgroupfs_path.rstrip('/') or '/'
    v1: dict[str, str] = {}
    unified = None
    for mount_point, fs_type, options in cgroup_mounts(proc_path, root):
        if fs_type == 'cgroup2':
            unified = mount_point
        elif fs_type == 'cgroup':
            for option in options.split(','):
                name = option[len('name='):] if option.startswith('name=') else option
                if name in _V1_KNOWN:
                    v1[name] = mount_point
    if unified == root:
        mode = 'v2'
    elif v1:
        mode = 'hybrid' if unified else 'v1'
    else:
        raise KubenodeError('no cgroup filesystem is mounted there', field='cgroupfs_path', value=cgroupfs_path)
    return CgroupLayout(mode, v1, unified)


class CgroupLayout(namedtuple('CgroupLayout', 'mode v1_hierarchies unified')):
    """A node's cgroup mode ('v2', 'hybrid' or 'v1'), where each v1 hierarchy it uses is mounted ({name: mount
    point}, read only) and the cgroup2 mount (None on v1). Immutable: read once, passed everywhere."""

    __slots__ = ()

    def __new__(cls, mode: str, v1_hierarchies: Mapping[str, str] | None = None, unified: str | None = None) -> CgroupLayout:
        return super(CgroupLayout, cls).__new__(cls, mode, MappingProxyType(dict(v1_hierarchies or {})), unified)

    @property
    def is_v2(self) -> bool:
        return self.mode == 'v2'

    @property
    def file_version(self) -> str:
        """'v2' or 'v1': the control files this mode uses (_cgroup_files.file_version)."""
        return files.file_version(self.mode)


def read_file(path: str) -> str | None:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError) as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise


@traced
def holds_other_processes(procs_path: str, main_pid: str) -> bool:
    """Whether a cgroup's cgroup.procs lists a process other than main_pid (a unit's main process): a receipt
    compares this answer, not the PIDs, which move whenever a container's shim comes or goes."""
    return any(pid != main_pid for pid in (read_file(procs_path) or '').split())


def write_file(path: str, value: str) -> None:
    """Write a cgroup file in place; a refusal becomes a CgroupWriteError naming file and value."""
    try:
        with open(path, 'w') as handle:
            handle.write(value)
    except (IOError, OSError) as error:
        raise CgroupWriteError('the kernel refused %s for %s: %s' % (value, path, os.strerror(error.errno or errno.EIO)),
                               path=path, value=value)


def cgroup_path(root: str, relative: str, field: str = 'path') -> str:
    """root + an absolute cgroup path, refusing anything that would leave root."""
    parts = relative.strip('/').split('/') if relative.strip('/') else []
    if any(part in ('', '.', '..') for part in parts):
        raise KubenodeError('cgroup paths must not contain empty, "." or ".." components', field=field,
                            value=relative)
    # Components split on "/", none empty, "." or "..": joined to root, they cannot lead above it (a symlink
    # can, which the steps' pre-flight refuses: _node_steps.refuse_escaping).
    return os.path.normpath(os.path.join(root, *parts)) if parts else os.path.normpath(root)


def validate_missing(layout: CgroupLayout, root: str, relative: str, isdir: Callable[[str], bool],
                     read: Callable[[str], str | None]) -> list[str]:
    """What kubelet's Validate (cgroup_manager_linux.go) finds missing of a cgroup it is told to use: on v2 the
    controllers the root offers that the cgroup lacks (the directory itself when it is absent), on v1 the cgroup's
    directory in each hierarchy kubelet needs. isdir(path) and read(path) answer from the kernel or a snapshot."""
    if layout.is_v2:
        directory = cgroup_path(root, relative)
        if not isdir(directory):
            return [directory]
        offered = (read(os.path.join(root, files.V2_CONTROLLERS_FILE)) or '').split()
        have = (read(os.path.join(directory, files.V2_CONTROLLERS_FILE)) or '').split()
        return [c for c in KUBELET_V2_CONTROLLERS if c in offered and c not in have]
    return [cgroup_path(mount, relative) for hierarchy, mount in sorted(layout.v1_hierarchies.items())
            if hierarchy in V1_REQUIRED + V1_OPTIONAL and not isdir(cgroup_path(mount, relative))]


def read_cgroup(layout: CgroupLayout, root: str, relative: str) -> dict[str, Any]:
    """Live values of one cgroup by the plan's resource keys, plus raw contents and kubelet's Validate verdict."""
    raw: dict[str, str | None] = {}
    missing: list[str] = []
    version = layout.file_version
    if version == 'v2':
        directory = cgroup_path(root, relative)
        exists = os.path.isdir(directory)
        if exists:
            for name in sorted(os.listdir(directory)):
                if files.known_file(name, 'v2') or name in (files.V2_CONTROLLERS_FILE, files.V2_SUBTREE_CONTROL):
                    raw[name] = read_file(os.path.join(directory, name))
            missing = validate_missing(layout, root, relative, os.path.isdir, read_file)
    else:
        exists = False
        missing = validate_missing(layout, root, relative, os.path.isdir, read_file)
        for hierarchy, mount in sorted(layout.v1_hierarchies.items()):
            if hierarchy not in V1_REQUIRED + V1_OPTIONAL:
                # devices, freezer, blkio...: kubelet makes its cgroups there too, on its own time after a restart;
                # nothing is planned or checked there, and a read of them would make a receipt (run/_receipt) stale.
                continue
            directory = cgroup_path(mount, relative)
            if not os.path.isdir(directory):
                continue
            exists = True
            for name in sorted(os.listdir(directory)):
                if files.known_file(name, 'v1'):
                    raw[name] = read_file(os.path.join(directory, name))
    return {'path': relative, 'exists': exists, 'resources': resources_of(raw, version), 'raw': raw,
            'missing': missing, 'kubelet_accepts': exists and not missing}


def resources_of(raw: Mapping[str, str | None], version: str) -> dict[str, Any]:
    """{resource key: value} of the control files read ({file: text}), keyed as the plan's resources are."""
    values: dict[str, Any] = {}
    for name, text in sorted(raw.items()):
        row = files.row_of(name)
        if row is not None:
            row.read(row, values, name, text, version)
    return values
