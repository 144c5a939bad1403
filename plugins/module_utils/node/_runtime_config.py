# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which cgroup driver kubelet and the container runtime are configured with.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Reads only the few keys it needs, without a YAML or TOML library, so that it runs on any
target Python (tomllib is 3.11+, PyYAML is not always installed).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import NODE_FILES, FileSource, read_text
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import CONTAINERD_CONFIG_PATH, CRIO_CONFIG_PATHS

KUBELET_CONFIG_PATHS = ('/var/lib/kubelet/config.yaml', '/etc/kubernetes/kubelet-config.yaml')

_KUBELET_DRIVER_RE = re.compile(r'^cgroupDriver:\s*["\']?([A-Za-z]+)["\']?\s*(?:#.*)?$', re.M)
_SECTION_RE = re.compile(r'^\s*\[(.*)\]\s*$')
_SYSTEMD_CGROUP_RE = re.compile(r'^\s*SystemdCgroup\s*=\s*(true|false)\s*(?:#.*)?$', re.I)
_CRIO_MANAGER_RE = re.compile(r'^\s*cgroup_manager\s*=\s*"([a-z]+)"', re.M)


def kubelet_driver(paths: Iterable[str], files: FileSource = NODE_FILES, dropin_dir: str | None = None) -> dict[str, str] | None:
    """{'value', 'path', 'source'} from the first kubelet config that exists, overridden by the last drop-in of its
    --config-dir (dropin_dir) that sets cgroupDriver, as kubelet merges them; kubelet's default is cgroupfs.
    files: where to read (the node, or a _files.FileSnapshot), here and below."""
    for path in paths:
        text = files.read(path)
        if text is None:
            continue
        match = _KUBELET_DRIVER_RE.search(text)
        found = {'value': match.group(1) if match else 'cgroupfs', 'path': path,
                 'source': 'config' if match else 'default'}
        for dropin in sorted(files.matches(os.path.join(dropin_dir, '*.conf'))) if dropin_dir else []:
            match = _KUBELET_DRIVER_RE.search(files.read(dropin) or '')
            if match:
                found = {'value': match.group(1), 'path': dropin, 'source': 'config'}
        return found
    return None


def containerd_driver(path: str, files: FileSource = NODE_FILES) -> dict[str, str] | None:
    """SystemdCgroup of the runc runtime, config version 2 or 3; containerd's default is cgroupfs."""
    text = files.read(path)
    if text is None:
        return None
    for section, line in _toml_lines(text):
        match = _SYSTEMD_CGROUP_RE.match(line)
        if match and section.endswith('runtimes.runc.options'):
            return {'value': 'systemd' if match.group(1).lower() == 'true' else 'cgroupfs', 'path': path,
                    'source': 'config'}
    return {'value': 'cgroupfs', 'path': path, 'source': 'default'}


def crio_driver(patterns: Iterable[str], files: FileSource = NODE_FILES) -> dict[str, str] | None:
    """cgroup_manager from crio.conf and its drop-ins (later files win); CRI-O's default is systemd."""
    result: dict[str, str] | None = None
    for pattern in patterns:
        for path in files.matches(pattern):
            text = files.read(path)
            if text is None:
                continue
            match = _CRIO_MANAGER_RE.search(text)
            if match:
                result = {'value': match.group(1), 'path': path, 'source': 'config'}
            elif result is None:
                result = {'value': 'systemd', 'path': path, 'source': 'default'}
    return result


_TOML_STRING_RE = re.compile(r'^\s*([A-Za-z_]+)\s*=\s*["\']([^"\']*)["\']\s*(?:#.*)?$')
_RUNTIME_SECTION_RE = re.compile(r'(?:^|\.)runtimes\."?([A-Za-z0-9_.-]+?)"?(\.options)?$')
_CRIO_RUNTIME_SECTION_RE = re.compile(r'^crio\.runtime\.runtimes\."?([A-Za-z0-9_.-]+?)"?$')
_RUNC_SHIMS = ('io.containerd.runc.v2', 'io.containerd.runc.v1', 'io.containerd.runtime.v1.linux')


def _toml_lines(text: str) -> Iterator[tuple[str, str]]:
    """(section, line) of every line outside a section header; quotes in section names made double."""
    section = ''
    for line in text.splitlines():
        header = _SECTION_RE.match(line)
        if header:
            section = header.group(1).replace("'", '"').strip()
        else:
            yield section, line


def _toml_strings(text: str) -> Iterator[tuple[str, str, str]]:
    """(section, key, string value) of every string assignment: enough for the keys read here."""
    for section, line in _toml_lines(text):
        match = _TOML_STRING_RE.match(line)
        if match:
            yield section, match.group(1), match.group(2)


def containerd_oci_runtime(path: str) -> dict[str, Any] | None:
    """The OCI runtime binary of containerd's default CRI runtime (runc unless BinaryName says otherwise)."""
    text = read_text(path)
    if text is None:
        return None
    default = 'runc'
    types: dict[str, str] = {}
    binaries: dict[str, str] = {}
    for section, key, value in _toml_strings(text):
        if key == 'default_runtime_name' and section.endswith('containerd'):
            default = value
        runtime = _RUNTIME_SECTION_RE.search(section)
        if runtime and key == 'runtime_type' and not runtime.group(2):
            types[runtime.group(1)] = value
        if runtime and key == 'BinaryName' and runtime.group(2):
            binaries[runtime.group(1)] = value
    shim = types.get(default, 'io.containerd.runc.v2')
    binary = binaries.get(default) or ('runc' if shim in _RUNC_SHIMS else None)
    return {'engine': 'containerd', 'runtime': default, 'runtime_type': shim, 'binary': binary, 'path': path}


def crio_oci_runtime(patterns: Iterable[str]) -> dict[str, Any] | None:
    """The OCI runtime binary of CRI-O's default runtime (default_runtime, then runtime_path)."""
    default: str | None = None
    paths: dict[str, str] = {}
    found: str | None = None
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            text = read_text(path)
            if text is None:
                continue
            found = found or path
            for section, key, value in _toml_strings(text):
                if section == 'crio.runtime' and key == 'default_runtime':
                    default = value
                runtime = _CRIO_RUNTIME_SECTION_RE.match(section)
                if runtime and key == 'runtime_path':
                    paths[runtime.group(1)] = value
    if found is None:
        return None
    # Unset, CRI-O uses crun from 1.31 and runc before: without its version, the binary decides.
    binary = (paths.get(default) if default is not None else None) or default
    return {'engine': 'crio', 'runtime': default, 'runtime_type': None, 'binary': binary, 'path': found}


_RUNTIME_VERSION_RE = re.compile(r'^(\S+) version (\S+)', re.M)


def detect_oci_runtime(containerd_path: str, crio_patterns: Iterable[str], get_bin_path: Callable[[str], str | None],
                       run_command: Callable[[list[str]], tuple[int, str, str]]) -> dict[str, Any] | None:
    """The OCI runtime of containerd's default runtime (else CRI-O's), with the version its binary prints.

    get_bin_path and run_command are AnsibleModule's, so that the caller stays the only one shelling out.
    """
    found = containerd_oci_runtime(containerd_path) or crio_oci_runtime(crio_patterns)
    if found is None or not found['binary']:
        return found
    found['name'] = os.path.basename(found['binary'])
    found['version'] = None
    path = found['binary'] if os.path.isabs(found['binary']) else get_bin_path(found['binary'])
    if path and os.path.exists(path):
        rc, out, _err = run_command([path, '--version'])
        match = _RUNTIME_VERSION_RE.search(out or '')
        if rc == 0 and match:
            found['version'] = match.group(2)
    return found


def pid1_is_systemd(proc_path: str) -> bool:
    comm = read_text(os.path.join(proc_path, '1/comm'))
    return comm is not None and comm.strip() == 'systemd'


def detect_drivers(kubelet_paths: Iterable[str] = KUBELET_CONFIG_PATHS, containerd_path: str = CONTAINERD_CONFIG_PATH,
                   crio_patterns: Sequence[str] = CRIO_CONFIG_PATHS, files: FileSource = NODE_FILES,
                   kubelet_dropin_dir: str | None = None) -> dict[str, Any]:
    """The cgroup driver kubelet, containerd and CRI-O are each configured with, and whether they differ."""
    found: dict[str, Any] = {'kubelet': kubelet_driver(kubelet_paths, files, kubelet_dropin_dir),
                             'containerd': containerd_driver(containerd_path, files),
                             'crio': crio_driver(crio_patterns, files)}
    values = set(v['value'] for v in found.values() if v is not None)
    found['mismatch'] = len(values) > 1
    return found


def effective_driver(drivers: Mapping[str, Any], systemd_running: bool) -> str:
    """What "auto" means: kubelet's setting, else the runtime's, else systemd when it is PID 1."""
    for source in ('kubelet', 'containerd', 'crio'):
        if drivers.get(source) and drivers[source]['source'] == 'config':
            return drivers[source]['value']
    return 'systemd' if systemd_running else 'cgroupfs'
