# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What node_cgroups must do: its plan for a node, and the cgroup operations that make the kernel match it.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure: plan_run() works from the options and a _node_snapshot.NodeSnapshot, plan_cgroupfs() from a
_node_snapshot.CgroupSnapshot (or EMPTY_STATE for the boot script) and returns an ordered list of
operations; the module's driver executor runs them (or, in check mode, only reports them).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.kubenode.cgroups.plugins.module_utils import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils._allocatable import plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils._drift import service_name
from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils._node_snapshot import CPU_MANAGER_CHECKPOINT
from ansible_collections.kubenode.cgroups.plugins.module_utils._runtime_config import detect_drivers, effective_driver
from ansible_collections.kubenode.cgroups.plugins.module_utils._versions import (
    AUTO, DEFAULT_KUBELET_VERSION, kubelet_rules, node_kubelet_release)

MANAGEABLE = ('kubepods', 'burstable', 'besteffort', 'system_reserved', 'kube_reserved')
# Slices systemd ships: we add a drop-in instead of replacing their unit.
SYSTEMD_SHIPPED_SLICES = ('-.slice', 'system.slice', 'user.slice', 'machine.slice')
DROPIN_NAME = '50-kubenode-cgroups.conf'
SERVICE_DROPIN_NAME = '50-kubenode-slice.conf'
_LIMIT_PREFIXES = ('memory.', 'pids.', 'hugetlb.', 'cpuset.')
_V1_HIERARCHY_BY_PREFIX = (('cpu.', 'cpu'), ('memory.', 'memory'), ('pids.', 'pids'), ('hugetlb.', 'hugetlb'),
                           ('cpuset.', 'cpuset'))


class Operation(object):
    """One cgroupfs step: mkdir, copy (a new v1 cpuset takes its parent's CPUs and memory nodes), enable
    (controllers in cgroup.subtree_control), write, rmdir. Units, starts and removals are the executors'."""

    __slots__ = ('kind', 'path', 'value', 'before', 'cgroup', 'depth', 'shrink')

    def __init__(self, kind, path, value=None, before=None, cgroup=None, depth=0, shrink=False):
        self.kind, self.path, self.value, self.before = kind, path, value, before
        self.cgroup, self.depth, self.shrink = cgroup, depth, shrink

    def describe(self):
        if self.kind == 'write':
            return 'write %s: %s -> %s' % (self.path, self.before if self.before is not None else '(none)', self.value)
        if self.kind == 'enable':
            return 'enable %s in %s' % (self.value, self.path)
        return '%s %s' % (self.kind, self.path)


def _is_limit(file_name):
    return file_name.startswith(_LIMIT_PREFIXES)


def _limit_order(value):
    """A limit as a comparable number: unlimited above every other, None when it is no number."""
    parsed = fs.parse_value(value)
    if parsed == 'max':
        return float('inf')
    return parsed if isinstance(parsed, int) else None


def _write_operation(path, file_name, desired, cgroup, depth, read):
    """A write when the live value differs from the desired one after normalisation, else None."""
    current = read(path)
    if current is not None and fs.normalize(file_name, current) == fs.normalize(file_name, desired):
        return None
    before, after = _limit_order(fs.normalize(file_name, current)), _limit_order(fs.normalize(file_name, desired))
    shrink = _is_limit(file_name) and before is not None and after is not None and after < before
    return Operation('write', path, desired, current, cgroup, depth, shrink)


def ordered(operations):
    """Create and enable top-down, grow limits parents first, shrink them children first.

    A directory at depth d is made (and a v1 cpuset filled) before the controllers are enabled in
    its cgroup.subtree_control, and that happens before its children at depth d+1 are made.
    """
    rank = {'mkdir': 0, 'copy': 1, 'enable': 2}
    setup = sorted([o for o in operations if o.kind in rank], key=lambda o: (o.depth, rank[o.kind]))
    grow = sorted([o for o in operations if o.kind == 'write' and not o.shrink], key=lambda o: o.depth)
    shrink = sorted([o for o in operations if o.kind == 'write' and o.shrink], key=lambda o: -o.depth)
    return setup + grow + shrink


def _depth(relative):
    return len([p for p in relative.split('/') if p])


def offered_controllers(root, state):
    """The v2 controllers kubelet validates that the root offers, in kubelet's order."""
    offered = set((state.read(os.path.join(root, 'cgroup.controllers')) or '').split())
    return [c for c in fs.V2_CONTROLLERS if c in offered]


class _NothingYet(object):
    """The boot script is planned as if nothing existed yet: every step is written out."""

    def read(self, path):
        return None

    def isdir(self, path):
        return False

    def exists(self, path):
        return False


EMPTY_STATE = _NothingYet()


def plan_cgroupfs(entries, layout, root, controllers, check_missing_file, state, mkdir_hierarchies=None,
                  create_dirs=True, enable_for=None):
    """Operations that make the cgroups under root match entries: [(key, plan entry)] with 'cgroupfs_path'.

    controllers: the v2 controllers to enable in every ancestor (offered_controllers()).
    mkdir_hierarchies: on v1, the hierarchies whose directories are ours to create (None: all);
    files are written in every mounted hierarchy where the directory exists.
    create_dirs: on v2, whether the directories are ours to create (not when systemd makes them).
    enable_for: on v2, the keys whose ancestors get the controllers (None: all).
    state: a CgroupSnapshot of the cgroups entries name; EMPTY_STATE plans every step, as at boot.
    """
    operations, planned = [], set()
    if layout['mode'] == 'v2':
        enabled_in = set()
        for key, entry in entries:
            relative = entry['cgroupfs_path']
            directory = fs.cgroup_path(root, relative, '%s path' % key)
            if enable_for is None or key in enable_for:
                operations.extend(_v2_enable(root, relative, controllers, enabled_in, key, state))
            if create_dirs:
                operations.extend(_mkdirs(root, relative, key, planned, state))
            operations.extend(_file_writes(key, entry['v2_files'], lambda f, d=directory: d, relative,
                                           check_missing_file, state, controllers))
        return ordered(operations)
    hierarchies = layout['v1_hierarchies']
    missing = [h for h in fs.V1_REQUIRED if h not in hierarchies and mkdir_hierarchies is None]
    if missing:
        raise KubenodeError('cgroup v1 hierarchies kubelet needs are not mounted: %s' % ', '.join(missing),
                            field='cgroupfs_path', value=root)
    for key, entry in entries:
        relative = entry['cgroupfs_path']
        for hierarchy in fs.V1_REQUIRED + fs.V1_OPTIONAL:
            if hierarchy in hierarchies and (mkdir_hierarchies is None or hierarchy in mkdir_hierarchies):
                operations.extend(_mkdirs(hierarchies[hierarchy], relative, key, planned, state,
                                          hierarchy == 'cpuset'))
        operations.extend(_file_writes(key, entry['v1_files'], lambda f, r=relative: _v1_dir(hierarchies, f, r),
                                       relative, check_missing_file, state))
    return ordered(operations)


def _v1_dir(hierarchies, file_name, relative):
    for prefix, hierarchy in _V1_HIERARCHY_BY_PREFIX:
        if file_name.startswith(prefix):
            if hierarchy not in hierarchies:
                return None
            return fs.cgroup_path(hierarchies[hierarchy], relative, file_name)
    raise KubenodeError('no cgroup v1 hierarchy for this file', value=file_name)


def _mkdirs(mount, relative, key, planned, state, fill_cpuset=False):
    """mkdir every missing directory from the top of relative down, once each."""
    operations = []
    parts = [p for p in relative.split('/') if p]
    for depth in range(1, len(parts) + 1):
        directory = fs.cgroup_path(mount, '/'.join(parts[:depth]), '%s path' % key)
        if directory in planned or state.isdir(directory):
            continue
        planned.add(directory)
        operations.append(Operation('mkdir', directory, cgroup=key, depth=depth))
        if fill_cpuset:
            # A new v1 cpuset starts empty and refuses tasks: inherit the parent's CPUs and nodes.
            operations.append(Operation('copy', directory, value=os.path.dirname(directory), cgroup=key, depth=depth))
    return operations


def _v2_enable(root, relative, wanted, enabled_in, key, state):
    """Enable the wanted controllers in cgroup.subtree_control of root and every ancestor."""
    operations = []
    parts = [p for p in relative.split('/') if p]
    for depth in range(len(parts)):
        ancestor = fs.cgroup_path(root, '/'.join(parts[:depth]), '%s path' % key)
        if ancestor in enabled_in:
            continue
        enabled_in.add(ancestor)
        current = set((state.read(os.path.join(ancestor, 'cgroup.subtree_control')) or '').split())
        missing = [c for c in wanted if c not in current]
        if missing:
            operations.append(Operation('enable', os.path.join(ancestor, 'cgroup.subtree_control'),
                                        ' '.join('+' + c for c in missing), ' '.join(sorted(current)), key, depth))
    return operations


def _file_writes(key, files, directory_for, relative, check_missing_file, state, controllers=None):
    """Writes for the files whose live value differs. controllers (v2): those enabled above by the plan,
    whose files appear once the enable runs, so their absence now is no error."""
    operations = []
    for file_name in sorted(files):
        directory = directory_for(file_name)
        if directory is None:
            continue  # the hierarchy (hugetlb) is not mounted on this host
        path = os.path.join(directory, file_name)
        enabled_by_plan = controllers is not None and file_name.split('.')[0] in controllers
        if state.isdir(directory) and not state.exists(path) and not enabled_by_plan:
            if '.rsvd.' in file_name:
                continue  # libcontainer skips the rsvd files on kernels without them
            check_missing_file(key, path)
        operation = _write_operation(path, file_name, files[file_name], key, _depth(relative), state.read)
        if operation is not None:
            operations.append(operation)
    return operations


def render_unit(key, entry, properties):
    """The slice unit (or drop-in) for a planned cgroup."""
    lines = ['# Managed by kubenode.cgroups (%s). Local changes are overwritten.' % key]
    if entry['systemd_unit'] not in SYSTEMD_SHIPPED_SLICES:
        lines += ['[Unit]', 'Description=kubenode %s cgroup (%s)' % (key.replace('_', '-'), entry['systemd_path']),
                  'Before=slices.target', '']
    lines.append('[Slice]')
    lines += ['%s=%s' % (name, properties[name]) for name in sorted(properties)]
    return '\n'.join(lines) + '\n'


def unit_path(unit_dir, unit):
    if unit in SYSTEMD_SHIPPED_SLICES:
        return os.path.join(unit_dir, unit + '.d', DROPIN_NAME)
    return os.path.join(unit_dir, unit)


def systemd_properties_for(entry, layout):
    """The unit properties for this host: v2 names on a unified host, v1 names otherwise."""
    return entry['systemd_properties']['v2' if layout['mode'] == 'v2' else 'v1']


# kubelet's maxPods when its configuration sets none.
DEFAULT_MAX_PODS = 110
# Large enough that no valid reservation exceeds it: options are checked before the host is read.
_NOMINAL_CAPACITY = {'cpu': '1024', 'memory': '64Ti', 'ephemeral-storage': '1Pi', 'pid': '4194304'}


def validate_options(params):
    """Plan once without the host, so that a bad option fails with its own message, not a host read error.
    With the node's kubelet release not read yet, what depends on it (feature gates) waits for the real plan."""
    if params['plan'] is not None:
        return
    release_known = params['kubelet_version'] not in (None, '', AUTO)
    nominal = dict(params, capacity=params['capacity'] or _NOMINAL_CAPACITY,
                   kubelet_version=params['kubelet_version'] if release_known else DEFAULT_KUBELET_VERSION,
                   # Gate names are judged against the node's release in the real plan.
                   extra_feature_gates=list(params['extra_feature_gates'] or []) + (
                       [] if release_known else list(params['feature_gates'] or {})),
                   max_pods=DEFAULT_MAX_PODS if params['max_pods'] is None else params['max_pods'],
                   cgroup_driver='cgroupfs' if params['cgroup_driver'] == 'auto' else params['cgroup_driver'])
    try:
        plan_node(nominal)
    except KubenodeError as error:
        if params['capacity'] is not None or not str(error.field or '').startswith('capacity'):
            raise


class RunPlan(object):
    """What one node_cgroups run is to do: the driver, the node plan, the managed entries
    [(key, plan entry)], the kubelet configuration change (or None) and the warnings."""

    __slots__ = ('driver', 'plan', 'entries', 'kubelet_change', 'warnings')

    def __init__(self, driver, plan, entries, kubelet_change, warnings):
        self.driver, self.plan, self.entries = driver, plan, entries
        self.kubelet_change, self.warnings = kubelet_change, warnings


def plan_run(params, node):
    """The RunPlan for node_cgroups' options on the node a NodeSnapshot shows. Raises KubenodeError for
    what must not be written (the options are checked, the kubelet configuration validated)."""
    files = node.files
    version, version_source, version_warnings = node_kubelet_release(
        params['kubelet_version'], node.kubelet_release, params.get('allow_kubelet_version_mismatch'))
    params = dict(params, kubelet_version=version)
    # The file kubelet is started with, when it is known; else the usual places.
    kubelet_paths = [node.kubelet['config']] if node.kubelet['config'] else params['kubelet_config_paths']
    driver = params['cgroup_driver']
    if driver == 'auto':
        drivers = detect_drivers(kubelet_paths, params['containerd_config_path'], params['crio_config_paths'], files)
        driver = effective_driver(drivers, node.systemd_running)
    plan = params['plan']
    if plan is None:
        plan_params = dict(params, cgroup_driver=driver)
        if plan_params['max_pods'] is None:
            plan_params['max_pods'] = kubelet_max_pods(kubelet_paths, node.kubelet['config_dir'], files)
        if plan_params['capacity'] is None:
            plan_params['capacity'], plan_params['online_cpus'] = node.capacity, node.online_cpus
        plan = plan_node(plan_params)
        plan['kubelet_version_source'] = version_source
        if params['max_pods'] is None:
            plan['max_pods'] = None  # kubelet's own: sized with, never written
    elif plan.get('cgroup_driver') != driver:
        raise KubenodeError('the plan was computed for the %s cgroup driver, not %s'
                            % (plan.get('cgroup_driver'), driver), field='plan', value=plan.get('cgroup_driver'))
    cgroups = plan.get('cgroups') or {}
    wanted = params['cgroups'] or [k for k in MANAGEABLE if k in cgroups]
    missing = [k for k in wanted if k not in cgroups]
    if missing:
        raise KubenodeError('the plan has no such cgroup (is its cgroup name set?)', field='cgroups', value=missing)
    entries = [(k, cgroups[k]) for k in MANAGEABLE if k in wanted]
    if params['services'] and driver == 'systemd' and 'kube_reserved' not in dict(entries):
        raise KubenodeError('services can be placed only in a managed kube_reserved slice (set kube_reserved_cgroup)',
                            field='services', value=params['services'])
    kubelet_change = None
    if params['kubelet_config']:
        kubelet_change = kc_file.prepare(dict(
            params['kubelet_config'], plan=plan, kubelet_version=params['kubelet_version'],
            extra_feature_gates=params['extra_feature_gates'], known_configs=params['kubelet_config_paths'],
            containerd_config_path=params['containerd_config_path'], discovered=node.kubelet,
            crio_config_paths=params['crio_config_paths']), option_prefix='kubelet_config.', files=files)
    kubelet_now = kubelet_change['config'] if kubelet_change else (
        kc_file.current_config(kubelet_paths, node.kubelet['config_dir'], files) if kc.HAS_YAML else {})
    warnings = kubelet_start_checks(params, node, kubelet_change, kubelet_now)
    not_a_node = not_a_node_warning(params, node, kubelet_change)
    if not_a_node and kubelet_change:
        kubelet_change['warnings'] = []  # "no kubelet yet, written to kubeadm's path" is in not_a_node
    return RunPlan(driver, plan, entries, kubelet_change, version_warnings + warnings + not_a_node)


def kubelet_start_checks(params, node, kubelet_change, kubelet_now):
    """What would keep kubelet from starting on this node: refused when this run writes kubelet's
    configuration (nothing is written then), a warning otherwise."""
    problems = []
    refusal = kc.cgroup_v1_refusal(node.layout['mode'], kubelet_rules(params['kubelet_version']), kubelet_now)
    if refusal:
        problems.append(('failCgroupV1', refusal))
    if kubelet_change and kubelet_change['changed']:
        checkpoint = os.path.join(params['kubelet_root_dir'], CPU_MANAGER_CHECKPOINT)
        text = node.files.read(checkpoint)
        conflict = kc.cpu_manager_checkpoint_conflict(kubelet_now, text, checkpoint) if text is not None else None
        if conflict:
            problems.append(('cpuManagerPolicy', conflict))
    if problems and kubelet_change:
        field, message = problems[0]
        shown = {'value': kubelet_now[field]} if field in kubelet_now else {}
        raise KubenodeError(message, field='kubelet_config.kubelet_settings.' + field, **shown)
    return [message for _field, message in problems]


def not_a_node_warning(params, node, kubelet_change=None):
    """A warning when the host has neither kubelet nor a container runtime: the plan is then what a node
    like it would get, not what a node has (and the kubelet configuration goes where kubelet will read it)."""
    if node.kubelet['source'] is not None:
        return []
    files = node.files
    if node.runtime_sockets or files.exists(params['containerd_config_path']) or any(
            files.matches(pattern) for pattern in params['crio_config_paths']):
        return []
    written = ('; the kubelet configuration goes to %s (%s)' % (kubelet_change['path'], kubelet_change['choice']['reason'])
               if kubelet_change else '')
    return ['this host is not a Kubernetes node yet: no kubelet (no %s unit, no kubelet process) and no container '
            'runtime (no %s, no containerd or CRI-O socket); the plan is what kubelet would do here once installed%s'
            % (service_name(params['kubelet_service']), params['containerd_config_path'], written)]


def kubelet_max_pods(paths, dropin_dir, files):
    """kubelet's maxPods: from its configuration, else kubelet's default."""
    max_pods = (kc_file.current_config(paths, dropin_dir, files) if kc.HAS_YAML else {}).get('maxPods')
    return max_pods if isinstance(max_pods, int) and not isinstance(max_pods, bool) else DEFAULT_MAX_PODS
