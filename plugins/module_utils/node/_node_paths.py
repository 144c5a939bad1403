# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where a node keeps what the collection reads and writes (kubelet's configuration as kubeadm and kubespray lay it
out, the container runtimes'), and the node's root: every path the node names is a path under it.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Light to import (os and the error type): the argument specifications (run/_node_argspec) take their defaults from it.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from typing import overload

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError

KUBEADM_CONFIG = '/var/lib/kubelet/config.yaml'
KUBESPRAY_CONFIG = '/etc/kubernetes/kubelet-config.yaml'
KNOWN_CONFIGS = ((KUBEADM_CONFIG, 'kubeadm'), (KUBESPRAY_CONFIG, 'kubespray'))
DEFAULT_DROPIN_DIR = '/etc/kubernetes/kubelet.conf.d'
# The drop-in the plan is written to, in the --config-dir.
DEFAULT_DROPIN_NAME = '50-kubenode.conf'
# The node's own filesystem root when it is seen from elsewhere (a fake node in tests, an image mounted to be
# prepared): every path the node names is a path under it.
HOST_ROOT = '/'
CONTAINERD_CONFIG_PATH = '/etc/containerd/config.toml'
CRIO_CONFIG_PATHS = ('/etc/crio/crio.conf', '/etc/crio/crio.conf.d/*.conf')


def is_host_root(root: str | None) -> bool:
    """Whether node_root is this machine's own root (the default), not a node seen from elsewhere."""
    return not root or os.path.normpath(root) == HOST_ROOT


@overload
def under_root(root: str | None, path: str) -> str:
    ...


@overload
def under_root(root: str | None, path: None) -> None:
    ...


@overload
def under_root(root: str | None, path: str | None) -> str | None:
    ...


def under_root(root: str | None, path: str | None) -> str | None:
    """A path as the node names it (its unit's --config, an EnvironmentFile=, a process's binary), as this
    machine reaches it: under the node's root. None stays None."""
    if not path or is_host_root(root):
        return path
    return os.path.join(root or HOST_ROOT, path.lstrip('/'))


def as_node_names(root: str | None, path: str | None) -> str | None:
    """under_root's inverse: a path this machine reaches under the node's root, as the node itself names it (what a
    flag written into the node's files must say)."""
    if not path or is_host_root(root) or not is_under(root, path):
        return path
    relative = os.path.relpath(os.path.normpath(path), os.path.normpath(root or HOST_ROOT))
    return '/' if relative == '.' else '/' + relative


def is_under(root: str | None, path: str) -> bool:
    """Whether path lies in the node's root (always, when the root is the host's own)."""
    if is_host_root(root):
        return True
    top, path = os.path.normpath(root or HOST_ROOT), os.path.normpath(path)
    return path == top or path.startswith(top.rstrip('/') + '/')


def refuse_outside_root(root: str | None, path: str | None, field: str) -> None:
    """A path a module would write must lie in the node's root: nothing outside it is written."""
    if path and not is_under(root, path):
        raise KubenodeError('lies outside node_root %s: with a node root, nothing outside it is read as the '
                            "node's or written" % root, field=field, value=path)
