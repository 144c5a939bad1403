# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The modules' argument specifications in one place, each beside its doc fragment (as in kubernetes.core), and
the node's paths with their defaults.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Kept apart from NodeSpec (_node_options) and light to import: node_cgroups builds its AnsibleModule from it before
it knows whether the planner is needed at all (its receipt, node/_receipt).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections.abc import Iterable, Mapping
from typing import Any

# An argument specification as AnsibleModule takes it: an option's name to its spec.
ArgumentSpec = dict[str, dict[str, Any]]

from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import (
    CONTAINERD_CONFIG_PATH, CRIO_CONFIG_PATHS, DEFAULT_DROPIN_NAME, HOST_ROOT, KNOWN_CONFIGS, refuse_outside_root,
    under_root)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_values import (
    AUTO, DEFAULT_KUBELET_VERSION, PROFILE_CHOICES)

CGROUPFS = '/sys/fs/cgroup'
NODE_LOCK = '/run/lock/kubenode-cgroups.lock'
RECEIPT = '/run/kubenode-cgroups/node_cgroups.receipt'
GENERATIONS = '/var/lib/kubenode-cgroups/generations'
KUBELET_SERVICE = 'kubelet.service'
MANAGEABLE = ('kubepods', 'burstable', 'besteffort', 'system_reserved', 'kube_reserved')

# Every path on the node an option names, with its usual place: the modules' defaults, and what the roles put
# under node_allocatable_root / node_audit_root. lock_path and generations_dir have no module default (they follow
# cgroupfs_path).
NODE_PATHS = (
    ('proc_path', '/proc'),
    ('sys_path', '/sys'),
    ('cgroupfs_path', CGROUPFS),
    ('systemd_unit_dir', '/etc/systemd/system'),
    ('systemd_control_dirs', ['/etc/systemd/system.control', '/run/systemd/system.control']),
    ('persist_script', '/usr/local/libexec/kubenode-cgroups-restore'),
    ('lock_path', NODE_LOCK),
    ('generations_dir', GENERATIONS),
    ('kubelet_root_dir', '/var/lib/kubelet'),
    ('containerd_config_path', CONTAINERD_CONFIG_PATH),
    ('crio_config_paths', list(CRIO_CONFIG_PATHS)),
    ('kubelet_config_paths', [path for path, _layout in KNOWN_CONFIGS]),
)
_PATH_DEFAULTS = dict(NODE_PATHS)


def default(option: str) -> Any:
    """An option's usual path (a copy: the argument specifications' defaults are not shared)."""
    value = _PATH_DEFAULTS[option]
    return list(value) if isinstance(value, list) else value


def _path_option(option: str, **extra: Any) -> dict[str, Any]:
    value = default(option)
    if isinstance(value, list):
        return dict(type='list', elements='path', default=value, **extra)
    return dict(type='path', default=value, **extra)


def lock_path_for(cgroupfs_path: str) -> str:
    """The node lock of the node whose cgroupfs this is: /run/lock under its root."""
    path = os.path.normpath(cgroupfs_path)
    if path == CGROUPFS or path.endswith(CGROUPFS):
        return path[:-len(CGROUPFS)] + NODE_LOCK
    return os.path.join(os.path.dirname(path), os.path.basename(NODE_LOCK))


def generations_dir_for(cgroupfs_path: str) -> str:
    """Where the node whose cgroupfs this is keeps its generations: /var/lib/kubenode-cgroups/generations under its
    root, else beside cgroupfs_path (a tree of a test), so that a run against a fake node never writes this
    machine's."""
    path = os.path.normpath(cgroupfs_path)
    if path == CGROUPFS or path.endswith(CGROUPFS):
        return path[:-len(CGROUPFS)] + GENERATIONS
    return os.path.join(os.path.dirname(path), 'kubenode-cgroups-generations')


def receipt_path_for(lock_path: str) -> str:
    """Where node_cgroups keeps the receipt of its last run (run/_receipt) on the node of this lock: a directory of
    its own under /run (root's alone: /run/lock is writable by all), gone at the next boot."""
    path = os.path.normpath(lock_path)
    if path.endswith(NODE_LOCK):
        return path[:-len(NODE_LOCK)] + RECEIPT
    return os.path.join(os.path.dirname(path), 'kubenode-cgroups', os.path.basename(RECEIPT))


# Doc fragment kubenode.cgroups.host_paths.
def host_paths_argument_spec() -> ArgumentSpec:
    return dict(cgroupfs_path=_path_option('cgroupfs_path'), proc_path=_path_option('proc_path'))


# Doc fragment kubenode.cgroups.node_root.
def node_root_argument_spec() -> ArgumentSpec:
    return dict(node_root=dict(type='path', default=HOST_ROOT))


def paths_under_root(root: str | None, params: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """{name: value} of the path options named, as the node under root has them: an option left at its default
    (a path of this machine's) is that path under the root; any other must lie in the root (nothing outside it
    is read as the node's or written), and KubenodeError names the first that does not."""
    placed = {}
    for name in names:
        value = params.get(name)
        if value is not None and value == _PATH_DEFAULTS.get(name):
            value = [under_root(root, v) for v in value] if isinstance(value, list) else under_root(root, value)
        for index, path in enumerate(value if isinstance(value, list) else [value]):
            refuse_outside_root(root, path, '%s[%d]' % (name, index) if isinstance(value, list) else name)
        placed[name] = value
    return placed


# Doc fragment kubenode.cgroups.runtime_files.
def runtime_files_argument_spec() -> ArgumentSpec:
    return dict(containerd_config_path=_path_option('containerd_config_path'),
                crio_config_paths=_path_option('crio_config_paths'))


# Doc fragment kubenode.cgroups.systemd_overrides.
def systemd_overrides_argument_spec() -> ArgumentSpec:
    return dict(systemd_control_dirs=_path_option('systemd_control_dirs'))


# Doc fragment kubenode.cgroups.plan: what the plan is computed from, and where capacity is read.
# The plan options that are the node's paths: node_drift_info takes them as options of its own, beside settings.
PLAN_NODE_PATHS = ('proc_path', 'sys_path', 'kubelet_root_dir')


def plan_argument_spec() -> ArgumentSpec:
    return dict(
        capacity=dict(type='dict'),
        system_reserved=dict(type='dict', default={}),
        kube_reserved=dict(type='dict', default={}),
        eviction_hard=dict(type='raw'),
        merge_default_eviction_settings=dict(type='bool', default=False),
        keep_default_eviction_signals=dict(type='bool', default=True),
        reserved_system_cpus=dict(type='str'),
        enforce_node_allocatable=dict(type='list', elements='str', default=['pods']),
        cgroups_per_qos=dict(type='bool', default=True),
        cgroup_root=dict(type='str', default='/'),
        cgroup_driver=dict(type='str', choices=['cgroupfs', 'systemd'], default='cgroupfs'),
        system_reserved_cgroup=dict(type='str'),
        kube_reserved_cgroup=dict(type='str'),
        keep_reserved_out_of_swap=dict(type='bool', default=False),
        cpu_manager_policy=dict(type='str', choices=['none', 'static'], default='none'),
        qos_reserved=dict(type='dict'),
        feature_gates=dict(type='dict', default={}),
        extra_feature_gates=dict(type='list', elements='str', default=[]),
        memory_reservation_policy=dict(type='str', choices=['None', 'TieredReservation']),
        kubelet_version=dict(type='str', default=DEFAULT_KUBELET_VERSION),
        profile=dict(type='str', choices=list(PROFILE_CHOICES), default='static'),
        measured_reservation=dict(type='dict'),
        min_memory_reserved=dict(type='str'),
        max_pods=dict(type='int'),
        proc_path=_path_option('proc_path'),
        sys_path=_path_option('sys_path'),
        kubelet_root_dir=_path_option('kubelet_root_dir'),
    )


# kubelet_config's options (module kubelet_config, and node_cgroups' kubelet_config suboptions).
def kubelet_file_argument_spec() -> ArgumentSpec:
    """path, dropin and dropin_dir left unset are found on the node (_kubelet_discovery)."""
    return dict(
        kubelet_settings=dict(type='dict', default={}, aliases=['settings']),
        kubelet_config_path=dict(type='path', aliases=['path']),
        kubelet_config_dropin=dict(type='bool', aliases=['dropin']),
        kubelet_dropin_dir=dict(type='path', aliases=['dropin_dir']),
        kubelet_dropin_name=dict(type='str', default=DEFAULT_DROPIN_NAME, aliases=['dropin_name']),
        allow_driver_mismatch=dict(type='bool', default=False),
        backup=dict(type='bool', default=False),
    )


def node_argument_spec() -> ArgumentSpec:
    """What a node's cgroups are planned and compared from: node_cgroups' options but its write-only ones
    (state, lock, verify), which node_drift_info shares so that both read the node the same way."""
    spec = plan_argument_spec()
    spec.update(runtime_files_argument_spec())
    spec.update(systemd_overrides_argument_spec())
    spec.update(node_root_argument_spec())
    spec.update(
        plan=dict(type='dict'),
        cgroups=dict(type='list', elements='str', choices=list(MANAGEABLE)),
        cgroupfs_path=_path_option('cgroupfs_path'),
        systemd_unit_dir=_path_option('systemd_unit_dir'),
        cgroup_driver=dict(type='str', choices=['auto', 'cgroupfs', 'systemd'], default='auto'),
        services=dict(type='list', elements='str', default=[]),
        persist=dict(type='bool', default=True),
        persist_script=_path_option('persist_script'),
        generations_dir=dict(type='path'),
        kubelet_service=dict(type='str', default=KUBELET_SERVICE),
        kubelet_config=dict(type='dict', options=kubelet_file_argument_spec()),
        kubelet_config_paths=_path_option('kubelet_config_paths'),
        # The node's own release unless the operator names one (the plan's default is a fixed release).
        kubelet_version=dict(type='str', default=AUTO),
        allow_kubelet_version_mismatch=dict(type='bool', default=False),
        kubelet_binary=dict(type='path'),
        # What runs on the node, for the plan's impact (_node_impact): the API server's pods bound to it, and
        # the static pods' directory when not kubelet's staticPodPath.
        pods=dict(type='list', elements='dict', default=[]),
        static_pod_path=dict(type='path'),
    )
    return spec


def node_cgroups_argument_spec() -> ArgumentSpec:
    spec = node_argument_spec()
    spec.update(
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        lock_path=dict(type='path'),
        lock_timeout=dict(type='int', default=300),
        verify=dict(type='bool', default=False),
        accept_impact=dict(type='bool', default=False),
        use_receipt=dict(type='bool', default=True),
        confirm_timeout=dict(type='int', default=0),
    )
    return spec
