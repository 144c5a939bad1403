# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which cgroup driver kubelet and the container runtime are configured with.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Reads only the few keys it needs, without a YAML or TOML library, so that it runs on any
target Python (tomllib is 3.11+, PyYAML is not always installed).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import re

KUBELET_CONFIG_PATHS = ('/var/lib/kubelet/config.yaml', '/etc/kubernetes/kubelet-config.yaml')
CONTAINERD_CONFIG_PATH = '/etc/containerd/config.toml'
CRIO_CONFIG_PATHS = ('/etc/crio/crio.conf', '/etc/crio/crio.conf.d/*.conf')

_KUBELET_DRIVER_RE = re.compile(r'^cgroupDriver:\s*["\']?([A-Za-z]+)["\']?\s*(?:#.*)?$', re.M)
_SECTION_RE = re.compile(r'^\s*\[(.*)\]\s*$')
_SYSTEMD_CGROUP_RE = re.compile(r'^\s*SystemdCgroup\s*=\s*(true|false)\s*(?:#.*)?$', re.I)
_CRIO_MANAGER_RE = re.compile(r'^\s*cgroup_manager\s*=\s*"([a-z]+)"', re.M)


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def kubelet_driver(paths):
    """{'value', 'path'} from the first kubelet config that exists; kubelet's default is cgroupfs."""
    for path in paths:
        text = _read(path)
        if text is None:
            continue
        match = _KUBELET_DRIVER_RE.search(text)
        return {'value': match.group(1) if match else 'cgroupfs', 'path': path,
                'source': 'config' if match else 'default'}
    return None


def containerd_driver(path):
    """SystemdCgroup of the runc runtime, config version 2 or 3; containerd's default is cgroupfs."""
    text = _read(path)
    if text is None:
        return None
    section = ''
    for line in text.splitlines():
        header = _SECTION_RE.match(line)
        if header:
            section = header.group(1).replace("'", '"')
            continue
        match = _SYSTEMD_CGROUP_RE.match(line)
        if match and section.endswith('runtimes.runc.options'):
            return {'value': 'systemd' if match.group(1).lower() == 'true' else 'cgroupfs', 'path': path,
                    'source': 'config'}
    return {'value': 'cgroupfs', 'path': path, 'source': 'default'}


def crio_driver(patterns):
    """cgroup_manager from crio.conf and its drop-ins (later files win); CRI-O's default is systemd."""
    result = None
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            text = _read(path)
            if text is None:
                continue
            match = _CRIO_MANAGER_RE.search(text)
            if match:
                result = {'value': match.group(1), 'path': path, 'source': 'config'}
            elif result is None:
                result = {'value': 'systemd', 'path': path, 'source': 'default'}
    return result


def pid1_is_systemd(proc_path):
    comm = _read(os.path.join(proc_path, '1/comm'))
    return comm is not None and comm.strip() == 'systemd'


def detect_drivers(kubelet_paths=KUBELET_CONFIG_PATHS, containerd_path=CONTAINERD_CONFIG_PATH,
                   crio_patterns=CRIO_CONFIG_PATHS):
    found = {'kubelet': kubelet_driver(kubelet_paths), 'containerd': containerd_driver(containerd_path),
             'crio': crio_driver(crio_patterns)}
    values = set(v['value'] for v in found.values() if v is not None)
    found['mismatch'] = len(values) > 1
    return found


def effective_driver(drivers, proc_path):
    """What "auto" means: kubelet's setting, else the runtime's, else systemd when it is PID 1."""
    for source in ('kubelet', 'containerd', 'crio'):
        if drivers.get(source) and drivers[source]['source'] == 'config':
            return drivers[source]['value']
    return 'systemd' if pid1_is_systemd(proc_path) else 'cgroupfs'


def runtime_files_argument_spec():
    """Options of the doc fragment kubenode.cgroups.runtime_files."""
    return dict(
        containerd_config_path=dict(type='path', default=CONTAINERD_CONFIG_PATH),
        crio_config_paths=dict(type='list', elements='path', default=list(CRIO_CONFIG_PATHS)),
    )
