# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What node_cgroups must do: its plan for a node, and the cgroup operations that make the kernel match it.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure: plan_run() works from a _node_options.NodeSpec and a _node_snapshot.NodeSnapshot and calls the node
planner (_allocatable.plan_node) once; plan_cgroupfs() works from a _node_snapshot.CgroupSnapshot (or
EMPTY_STATE for the boot script) and returns an ordered list of operations, steps that _steps.perform runs
against a live host, or in check mode and in the audit against a dry one (_node_steps).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections import namedtuple
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubeletConfigRefused, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import FileSource
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import NodeSnapshot
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import MANAGEABLE
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import file_diff
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import CPU_MANAGER_CHECKPOINT
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import detect_drivers, effective_driver
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import service_name
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import (
    AUTO, DEFAULT_KUBELET_VERSION, kubelet_rules, node_kubelet_release)

# The cgroups a run manages, in MANAGEABLE's order: (key, PlannedCgroup).
Entries = Sequence[tuple[str, PlannedCgroup]]
# check_missing_file(key, path): raises for a planned file the kernel does not show.
CheckMissingFile = Callable[[str, str], None]


class CgroupState(Protocol):
    """What the planner asks of the cgroups: a CgroupSnapshot, or EMPTY_STATE at boot."""

    def read(self, path: str) -> str | None:
        ...

    def isdir(self, path: str) -> bool:
        ...

    def exists(self, path: str) -> bool:
        ...


class Operation(object):
    """One cgroupfs step (a step as _steps.perform runs them): mkdir (a directory), copy (a v1 cpuset file from the parent's: a new cpuset starts
    empty and refuses tasks, and a narrowed one is not what kubelet expects), enable (controllers in
    cgroup.subtree_control), write (a control file), rmdir (state=absent)."""

    __slots__ = ('kind', 'path', 'value', 'before', 'cgroup', 'depth', 'shrink', 'source')

    def __init__(self, kind: str, path: str, value: str | None = None, before: str | None = None, cgroup: str | None = None,
                 depth: int = 0, shrink: bool = False, source: str | None = None) -> None:
        self.kind, self.path, self.value, self.before = kind, path, value, before
        self.cgroup, self.depth, self.shrink, self.source = cgroup, depth, shrink, source

    def describe(self) -> str:
        if self.kind in ('write', 'copy'):
            return '%s %s: %s -> %s' % (self.kind, self.path, '(none)' if self.before is None else self.before,
                                        self.value if self.value is not None else 'as %s' % self.source)
        if self.kind == 'enable':
            return 'enable %s in %s' % (self.value, self.path)
        return '%s %s' % (self.kind, self.path)

    def drift(self) -> tuple[str, Any, Any]:
        """(check, live, planned) of the difference this step mends, as the audit reports it."""
        if self.kind == 'mkdir':
            return 'exists', 'missing', self.path
        if self.kind == 'rmdir':
            return 'exists', self.path, 'absent'
        if self.kind == 'enable':
            return '%s of %s' % (os.path.basename(self.path), os.path.dirname(self.path)), self.before or '', self.value
        live = 'absent' if self.before is None else self.before
        return os.path.basename(self.path), live, self.value if self.value is not None else self.source

    @property
    def item(self) -> str:
        return self.cgroup or ''

    @property
    def skipped_when_gone(self) -> bool:
        """A directory systemd removed with its stopped slice, or a file this kernel lacks (hugetlb reservations
        before 5.7, swap.max without swap accounting): the step is skipped when its path is not there."""
        return self.kind == 'rmdir' or (self.kind == 'write' and cgfiles.skipped_when_missing(
            os.path.basename(self.path), self.value))

    def diff(self) -> dict[str, Any] | None:
        if self.kind not in ('write', 'enable', 'copy'):
            return None
        after = self.value if self.value is not None else '(the value of %s)' % self.source
        return file_diff(self.path, '%s\n' % (self.before or ''), '%s\n' % after)

    def apply(self, host: DryHost) -> Any:
        if self.kind == 'mkdir':
            return host.mkdir(self.path)
        if self.kind == 'copy':
            return host.copy_cgroup(cast(str, self.source), self.path)  # a copy always has its source
        if self.kind == 'rmdir':
            return host.rmdir(self.path)
        return host.write_cgroup(self.path, cast(str, self.value))  # a write always has its value

    def done(self) -> str:
        return self.describe()


def _write_operation(path: str, file_name: str, desired: str, cgroup: str, depth: int,
                     read: Callable[[str], str | None]) -> Operation | None:
    """A write when the live value differs from the desired one as the kernel shows values, else None."""
    current = read(path)
    if current is not None and cgfiles.comparable(file_name, current) == cgfiles.comparable(file_name, desired):
        return None
    if current is None and cgfiles.holds_only_default(file_name, desired):
        return None  # a cgroup made now starts at the kernel's default; a kernel without the file keeps it too
    before, after = cgfiles.limit_order(file_name, current), cgfiles.limit_order(file_name, desired)
    shrink = cgfiles.is_limit(file_name) and before is not None and after is not None and after < before
    return Operation('write', path, desired, current, cgroup, depth, shrink)


def ordered(operations: Iterable[Operation]) -> list[Operation]:
    """Create and enable top-down, grow limits parents first, shrink them children first.

    A directory at depth d is made (and a v1 cpuset filled) before the controllers are enabled in
    its cgroup.subtree_control, and that happens before its children at depth d+1 are made.
    """
    rank = {'mkdir': 0, 'copy': 1, 'enable': 2}
    setup = sorted([o for o in operations if o.kind in rank], key=lambda o: (o.depth, rank[o.kind]))
    grow = sorted([o for o in operations if o.kind == 'write' and not o.shrink], key=lambda o: o.depth)
    shrink = sorted([o for o in operations if o.kind == 'write' and o.shrink], key=lambda o: -o.depth)
    return setup + grow + shrink


def _depth(relative: str) -> int:
    return len([p for p in relative.split('/') if p])


def offered_controllers(root: str, state: CgroupState) -> list[str]:
    """The v2 controllers the root offers that a cgroup of the plan is given (_cgroupfs.V2_CONTROLLERS: kubelet's
    Validate's, in its order, then any other the registry's rows need)."""
    offered = set((state.read(os.path.join(root, cgfiles.V2_CONTROLLERS_FILE)) or '').split())
    return [c for c in fs.V2_CONTROLLERS if c in offered]


class _NothingYet(object):
    """The boot script is planned as if nothing existed yet: every step is written out."""

    def read(self, path: str) -> str | None:
        return None

    def isdir(self, path: str) -> bool:
        return False

    def exists(self, path: str) -> bool:
        return False


EMPTY_STATE = _NothingYet()


class CgroupfsTarget(object):
    """Where and how far plan_cgroupfs may act: the layout and root, the v2 controllers to enable
    (offered_controllers()), and what the driver leaves to systemd.

    mkdir_hierarchies: on v1, the hierarchies whose directories are ours to create (None: all); files are
    written in every mounted hierarchy where the directory exists.
    create_dirs: on v2, whether the directories are ours to create (not when systemd makes them).
    enable_for: on v2, the keys whose ancestors get the controllers (None: all).
    """

    __slots__ = ('layout', 'root', 'controllers', 'mkdir_hierarchies', 'create_dirs', 'enable_for')

    def __init__(self, layout: fs.CgroupLayout, root: str, controllers: Sequence[str],
                 mkdir_hierarchies: Collection[str] | None = None, create_dirs: bool = True,
                 enable_for: Collection[str] | None = None) -> None:
        self.layout, self.root, self.controllers = layout, root, controllers
        self.mkdir_hierarchies, self.create_dirs, self.enable_for = mkdir_hierarchies, create_dirs, enable_for


def plan_cgroupfs(entries: Entries, target: CgroupfsTarget, check_missing_file: CheckMissingFile,
                  state: CgroupState) -> list[Operation]:
    """Operations that make the cgroups under target.root match entries: [(key, PlannedCgroup)]. state: a
    CgroupSnapshot of the cgroups entries name; EMPTY_STATE plans every step, as at boot.
    check_missing_file(key, path) raises for a planned file the kernel does not show."""
    operations: list[Operation] = []
    planned: set[str] = set()
    root = target.root
    if target.layout.is_v2:
        enabled_in: set[str] = set()
        for key, entry in entries:
            relative = entry.cgroupfs_path
            directory = fs.cgroup_path(root, relative, '%s path' % key)
            if target.enable_for is None or key in target.enable_for:
                operations.extend(_v2_enable(root, relative, target.controllers, enabled_in, key, state))
            if target.create_dirs:
                operations.extend(_mkdirs(root, relative, key, planned, state))
            operations.extend(_file_writes(key, entry.v2_files, lambda _file_name: directory, relative,
                                           check_missing_file, state, target.controllers))
        return ordered(operations)
    hierarchies = target.layout.v1_hierarchies
    ours = target.mkdir_hierarchies
    missing = [h for h in fs.V1_REQUIRED if h not in hierarchies and ours is None]
    if missing:
        raise KubenodeError('cgroup v1 hierarchies kubelet needs are not mounted: %s' % ', '.join(missing),
                            field='cgroupfs_path', value=root)
    for key, entry in entries:
        relative = entry.cgroupfs_path
        for hierarchy in fs.V1_REQUIRED + fs.V1_OPTIONAL:
            if hierarchy in hierarchies and (ours is None or hierarchy in ours):
                operations.extend(_mkdirs(hierarchies[hierarchy], relative, key, planned, state))
        if 'cpuset' in hierarchies and (ours is None or 'cpuset' in ours):
            operations.extend(_cpuset_copies(hierarchies['cpuset'], relative, key, entry.v1_files, planned, state))
        operations.extend(_file_writes(key, entry.v1_files, lambda file_name: _v1_dir(hierarchies, file_name, relative),
                                       relative, check_missing_file, state))
    return ordered(operations)


def _v1_dir(hierarchies: Mapping[str, str], file_name: str, relative: str) -> str | None:
    hierarchy = cgfiles.v1_hierarchy(file_name)
    if hierarchy is None:
        raise KubenodeError('no cgroup v1 hierarchy for this file', value=file_name)
    if hierarchy not in hierarchies:
        return None
    return fs.cgroup_path(hierarchies[hierarchy], relative, file_name)


def _mkdirs(mount: str, relative: str, key: str, planned: set[str], state: CgroupState) -> list[Operation]:
    """mkdir every missing directory from the top of relative down, once each."""
    operations: list[Operation] = []
    parts = [p for p in relative.split('/') if p]
    for depth in range(1, len(parts) + 1):
        directory = fs.cgroup_path(mount, '/'.join(parts[:depth]), '%s path' % key)
        if directory in planned or state.isdir(directory):
            continue
        planned.add(directory)
        operations.append(Operation('mkdir', directory, cgroup=key, depth=depth))
    return operations


V1_CPUSET_FILES = (cgfiles.CPUSET_CPUS.file_in('v1'), cgfiles.CPUSET_MEMS.file_in('v1'))


def _cpuset_copies(mount: str, relative: str, key: str, files: Mapping[str, str], planned: set[str],
                   state: CgroupState) -> list[Operation]:
    """On v1, every cpuset directory down to relative holds its parent's CPUs and memory nodes: a new one
    starts empty and refuses tasks, and one narrowed by hand is not what kubelet expects. A value the plan
    names itself (reserved CPUs) is a write instead."""
    operations: list[Operation] = []
    parts = [p for p in relative.split('/') if p]
    for depth in range(1, len(parts) + 1):
        directory = fs.cgroup_path(mount, '/'.join(parts[:depth]), '%s path' % key)
        parent = os.path.dirname(directory)
        for name in V1_CPUSET_FILES:
            path = os.path.join(directory, name)
            if path in planned or (depth == len(parts) and name in files):
                continue
            source = os.path.join(parent, name)
            current, wanted = state.read(path), state.read(source)
            if state.isdir(directory) and current is not None and wanted is not None and \
                    cgfiles.comparable(name, current) == cgfiles.comparable(name, wanted):
                continue
            planned.add(path)
            operations.append(Operation('copy', path, wanted, current, key, depth, source=source))
    return operations


def _v2_enable(root: str, relative: str, wanted: Sequence[str], enabled_in: set[str], key: str,
               state: CgroupState) -> list[Operation]:
    """Enable the wanted controllers in cgroup.subtree_control of root and every ancestor."""
    operations: list[Operation] = []
    parts = [p for p in relative.split('/') if p]
    for depth in range(len(parts)):
        ancestor = fs.cgroup_path(root, '/'.join(parts[:depth]), '%s path' % key)
        if ancestor in enabled_in:
            continue
        enabled_in.add(ancestor)
        control = os.path.join(ancestor, cgfiles.V2_SUBTREE_CONTROL)
        current = set((state.read(control) or '').split())
        missing = [c for c in wanted if c not in current]
        if missing:
            operations.append(Operation('enable', control, ' '.join('+' + c for c in missing),
                                        ' '.join(sorted(current)), key, depth))
    return operations


def _file_writes(key: str, files: Mapping[str, str], directory_for: Callable[[str], str | None], relative: str,
                 check_missing_file: CheckMissingFile, state: CgroupState,
                 controllers: Sequence[str] | None = None) -> list[Operation]:
    """Writes for the files whose live value differs. controllers (v2): those enabled above by the plan,
    whose files appear once the enable runs, so their absence now is no error."""
    operations: list[Operation] = []
    for file_name in sorted(files):
        directory = directory_for(file_name)
        if directory is None:
            continue  # the hierarchy (hugetlb) is not mounted on this host
        path = os.path.join(directory, file_name)
        enabled_by_plan = controllers is not None and file_name.split('.')[0] in controllers
        if state.isdir(directory) and not state.exists(path) and not enabled_by_plan:
            if cgfiles.skipped_when_missing(file_name, files[file_name]):
                continue
            check_missing_file(key, path)
        operation = _write_operation(path, file_name, files[file_name], key, _depth(relative), state.read)
        if operation is not None:
            operations.append(operation)
    return operations


# The cgroups whose values kubelet writes itself: kubepods at every start, from the capacity it reads then
# (cm.createNodeAllocatableCgroups, enforceNodeAllocatableCgroups), and the QoS tiers at every start, every
# minute and at every pod change (qosContainerManager.UpdateCgroups: burstable's CPU is the sum of its pods'
# requests). The collection makes them exist (directories, cpusets, controllers) and leaves their values, and
# their systemd property overrides, to kubelet: a value planned before the pods, or from a capacity read
# before a reboot, would fight it.
KUBELET_WRITES_VALUES = ('kubepods', 'burstable', 'besteffort')


def managed_view(planned: PlannedCgroup) -> PlannedCgroup:
    """A plan's cgroup as a run manages it: a cgroup whose values kubelet writes keeps its names and paths only.
    The plan is plan_node's, or one NodePlan.from_dict has checked."""
    return planned.names_only() if planned.key in KUBELET_WRITES_VALUES else planned


# kubelet's maxPods when its configuration sets none.
DEFAULT_MAX_PODS = 110
# Large enough that no valid reservation exceeds it: options are checked before the host is read.
_NOMINAL_CAPACITY = {'cpu': '1024', 'memory': '64Ti', 'ephemeral-storage': '1Pi', 'pid': '4194304'}


def validate_options(spec: NodeSpec) -> None:
    """Plan without the host, so that a bad option fails with its own message, not with the host read error
    that stopped the run first. Called only when reading the node failed: a run plans once (plan_run).
    With the node's kubelet release not read, what depends on it (feature gates) is judged leniently."""
    if spec.plan is not None:
        return
    release_known = spec.kubelet_version not in (None, '', AUTO)
    nominal = spec.plan_options(
        capacity=spec.capacity or _NOMINAL_CAPACITY,
        kubelet_version=spec.kubelet_version if release_known else DEFAULT_KUBELET_VERSION,
        # Gate names are judged against the node's release in the real plan.
        extra_feature_gates=list(spec.extra_feature_gates or []) + (
            [] if release_known else list(spec.feature_gates or {})),
        max_pods=DEFAULT_MAX_PODS if spec.max_pods is None else spec.max_pods,
        cgroup_driver='cgroupfs' if spec.cgroup_driver == 'auto' else spec.cgroup_driver)
    try:
        plan_node(nominal)
    except KubenodeError as error:
        if spec.capacity is not None or not str(error.field or '').startswith('capacity'):
            raise


class RunPlan(namedtuple('RunPlan', ('driver', 'plan', 'entries', 'kubelet_change', 'warnings', 'planned', 'rules',
                                     'driver_source', 'kubelet_config_now'))):
    """What one node_cgroups run is to do, read-only: the driver, the NodePlan, the managed entries
    ((key, PlannedCgroup), ...), the kubelet configuration change (or None), the warnings, what the plan was
    computed from (a kc.PlannedFrom, for the kubelet validation; None for a plan given), the KubeletRules of the
    node's release (parsed once), where the driver came from when cgroup_driver is auto (None: the operator
    named it) and kubelet's configuration as it reads it now (its file and drop-ins, read and merged once a run)."""

    __slots__ = ()


def kubelet_config_read_paths(spec: NodeSpec, node: NodeSnapshot) -> list[str]:
    """Where kubelet's configuration is read from: the file kubelet is started with, when it is known; else the one
    the operator names (kubelet_config's path: the file kubelet will be started with); else the usual places."""
    if node.kubelet.get('config'):
        return [node.kubelet['config']]
    named = spec.kubelet_config_option('kubelet_config_path')
    return [named] if named else list(spec.kubelet_config_paths)


def plan_run(spec: NodeSpec, node: NodeSnapshot, with_kubelet_config: bool = True) -> RunPlan:
    """The RunPlan for a NodeSpec on the node a NodeSnapshot shows: the planner runs once, and validating the
    kubelet configuration reuses its plan. Raises KubenodeError for what must not be written (the options
    are checked, the kubelet configuration validated). with_kubelet_config=False leaves the kubelet
    configuration out (the audit, when that configuration is what fails)."""
    files = node.files
    version, version_source, version_warnings = node_kubelet_release(
        spec.kubelet_version, node.kubelet_release, spec.allow_kubelet_version_mismatch)
    rules = kubelet_rules(version)
    kubelet_paths = kubelet_config_read_paths(spec, node)
    driver, driver_source = spec.cgroup_driver, None
    if driver == 'auto':
        drivers = detect_drivers(kubelet_paths, spec.containerd_config_path, spec.crio_config_paths, files)
        driver = effective_driver(drivers, node.systemd_running)
        driver_source = next(('%s (%s)' % (drivers[s]['path'], s) for s in ('kubelet', 'containerd', 'crio')
                              if drivers.get(s) and drivers[s]['source'] == 'config' and drivers[s].get('path')),
                             'systemd as PID 1' if node.systemd_running else 'no systemd as PID 1')
    read_now = kc_file.read_config(kubelet_paths, node.kubelet['config_dir'], files) if kc.HAS_YAML else ((), {})
    kubelet_config_now = read_now[1]
    plan: NodePlan | None = spec.plan
    options: PlanOptions | None = None
    if plan is None:
        from_node: dict[str, Any] = {}
        if spec.max_pods is None:
            from_node['max_pods'] = kubelet_max_pods(kubelet_config_now)
        if spec.capacity is None:
            from_node.update(capacity=node.capacity, online_cpus=node.online_cpus)
        options = spec.plan_options(kubelet_version=rules, cgroup_driver=driver, **from_node)
        plan = plan_node(options)
        plan = plan.replace(kubelet_version_source=version_source,
                            # kubelet's own maxPods when the operator sets none: sized with, never written
                            max_pods=None if spec.max_pods is None else plan.max_pods)
    elif plan.cgroup_driver != driver:
        raise KubenodeError('the plan was computed for the %s cgroup driver, not %s'
                            % (plan.cgroup_driver, driver), field='plan.cgroup_driver', value=plan.cgroup_driver)
    cgroups = plan.cgroups
    wanted = spec.cgroups or [k for k in MANAGEABLE if k in cgroups]
    missing = [k for k in wanted if k not in cgroups]
    if missing:
        raise KubenodeError('the plan has no such cgroup (is its cgroup name set?)', field='cgroups', value=missing)
    entries = [(k, managed_view(cgroups[k])) for k in MANAGEABLE if k in wanted]
    if spec.services and driver == 'systemd' and 'kube_reserved' not in dict(entries):
        raise KubenodeError('services can be placed only in a managed kube_reserved slice (set kube_reserved_cgroup)',
                            field='services', value=spec.services)
    planned = plan_inputs_of(spec, plan, options)
    kubelet_change = kubelet_change_for(spec, node, plan, rules, planned, read_now) if with_kubelet_config else None
    kubelet_now = kubelet_change['config'] if kubelet_change else kubelet_config_now
    warnings = kubelet_start_checks(spec, rules, node, kubelet_change, kubelet_now)
    not_a_node = not_a_node_warning(spec, node, kubelet_change)
    if not_a_node and kubelet_change:
        kubelet_change['warnings'] = []  # "no kubelet yet, written to kubeadm's path" is in not_a_node
    return RunPlan(driver, plan, tuple(entries), kubelet_change, version_warnings + warnings + not_a_node, planned,
                   rules, driver_source, kubelet_config_now)


def kubelet_change_for(spec: NodeSpec, node: NodeSnapshot, plan: NodePlan, rules: KubeletRules, planned: kc.PlannedFrom | None,
                       read_now: tuple[tuple[str, ...], kc.Document] | None = None) -> dict[str, Any] | None:
    """The validated kubelet configuration change for the plan (None without kubelet_config). read_now: the run's
    reading of kubelet's configuration (_kubelet_config_file.read_config), reused where the change reads the same."""
    if not spec.kubelet_config:
        return None
    try:
        return kc_file.prepare(kc_file.KubeletConfigRequest.from_options(
            spec.kubelet_config, plan=plan, kubelet_version=rules,
            extra_feature_gates=spec.extra_feature_gates, known_configs=spec.kubelet_config_paths,
            containerd_config_path=spec.containerd_config_path, discovered=node.kubelet,
            crio_config_paths=spec.crio_config_paths, planned=planned, node_root=spec.node_root, read_now=read_now,
            **service_placement(spec, plan)), option_prefix='kubelet_config.',
            files=node.files)
    except KubenodeError as error:
        raise KubeletConfigRefused.from_error(error)


def service_placement(spec: NodeSpec, plan: NodePlan) -> dict[str, Any]:
    """{service_slice, services}: where this run places the services (the kube-reserved slice, on the systemd
    driver), for the kubelet configuration's kubeletCgroups to follow."""
    kube_reserved = plan.cgroup('kube_reserved')
    if plan.cgroup_driver != 'systemd' or not spec.services or not kube_reserved:
        return {}
    return {'service_slice': kube_reserved.systemd_path, 'services': tuple(spec.services)}


def settled_change(change: dict[str, Any], files: FileSource) -> dict[str, Any] | None:
    """The kubelet configuration change as a node holding what it wrote shows it (changed false), or None when a
    file it writes holds something else (files: a newer snapshot's)."""
    flags = change.get('flags_file')
    try:
        if files.read(change['path']) != change['after'] or flags and files.read(flags['path']) != flags['after']:
            return None
    except LookupError:
        return None  # a file the newer snapshot did not read: the change is computed from it instead
    return dict(change, before=change['after'], changed=False, replaced=[], values=[], flags_file=None)


def replan_kubelet_change(spec: NodeSpec, node: NodeSnapshot, run: RunPlan) -> RunPlan:
    """The RunPlan of a run as a newer snapshot of the node shows it (the read-back after the writes): the plan
    stands, the planner does not run again; the kubelet configuration change is the run's, settled, when each file
    it writes holds what it wrote, and is computed from the node only when one does not."""
    change = run.kubelet_change and settled_change(run.kubelet_change, node.files)
    if run.kubelet_change and change is None:
        change = kubelet_change_for(spec, node, run.plan, run.rules, run.planned)
    return run._replace(kubelet_change=change, warnings=[])


def plan_inputs_of(spec: NodeSpec, plan: NodePlan, options: PlanOptions | None) -> kc.PlannedFrom | None:
    """What the plan was computed from, as KubeletConfiguration keys (kc.plan_inputs): when the configuration
    kubelet will read says the same, validating it reuses this plan instead of planning again."""
    if options is None:
        return None  # a plan given: what it was computed from is not known here
    plan_settings = kc.settings_from_plan(plan)
    settings = dict(plan_settings)
    settings.update({
        'maxPods': options.max_pods,
        'cgroupsPerQOS': spec.cgroups_per_qos, 'cgroupRoot': spec.cgroup_root, 'qosReserved': spec.qos_reserved,
        'featureGates': spec.feature_gates, 'memoryReservationPolicy': spec.memory_reservation_policy,
        'mergeDefaultEvictionSettings': spec.merge_default_eviction_settings})
    return kc.PlannedFrom(kc.plan_inputs(settings), plan, plan_settings)


def kubelet_start_checks(spec: NodeSpec, rules: KubeletRules, node: NodeSnapshot, kubelet_change: dict[str, Any] | None,
                         kubelet_now: Mapping[str, Any]) -> list[str]:
    """What would keep kubelet from starting on this node: refused when this run writes kubelet's
    configuration (nothing is written then), a warning otherwise."""
    problems: list[tuple[str, str]] = []
    refusal = kc.cgroup_v1_refusal(node.layout.mode, rules, kubelet_now)
    if refusal:
        problems.append(('failCgroupV1', refusal))
    if kubelet_change and kubelet_change['changed']:
        checkpoint = os.path.join(spec.kubelet_root_dir, CPU_MANAGER_CHECKPOINT)
        text = node.files.read(checkpoint)
        conflict = kc.cpu_manager_checkpoint_conflict(kubelet_now, text, checkpoint) if text is not None else None
        if conflict:
            problems.append(('cpuManagerPolicy', conflict))
    if problems and kubelet_change:
        field, message = problems[0]
        if field not in kubelet_now:
            # kubelet's default refuses, not a value the operator set: the node is what is named. On a host that is
            # no node yet (no kubelet, no runtime) the plan is shown, with the refusal as a warning.
            if field == 'failCgroupV1' and not_a_node_warning(spec, node):
                return [message for _field, message in problems]
            raise KubeletConfigRefused('this node is cgroup %s: %s' % (node.layout.mode, message),
                                       field='node', value=node.layout.mode)
        raise KubeletConfigRefused(message, field='kubelet_config.kubelet_settings.' + field, value=kubelet_now[field])
    return [message for _field, message in problems]


def not_a_node_warning(spec: NodeSpec, node: NodeSnapshot, kubelet_change: dict[str, Any] | None = None) -> list[str]:
    """A warning when the host has neither kubelet nor a container runtime: the plan is then what a node
    like it would get, not what a node has (and the kubelet configuration goes where kubelet will read it)."""
    if node.kubelet['source'] is not None:
        return []
    files = node.files
    if node.runtime_sockets or files.exists(spec.containerd_config_path) or any(
            files.matches(pattern) for pattern in spec.crio_config_paths):
        return []
    written = ('; the kubelet configuration goes to %s (%s)' % (kubelet_change['path'], kubelet_change['choice']['reason'])
               if kubelet_change else '')
    return ['this host is not a Kubernetes node yet: no kubelet (no %s unit, no kubelet process) and no container '
            'runtime (no %s, no containerd or CRI-O socket); the plan is what kubelet would do here once installed%s'
            % (service_name(spec.kubelet_service), spec.containerd_config_path, written)]


def kubelet_max_pods(config: Mapping[str, Any]) -> int:
    """kubelet's maxPods: from its configuration (as it reads it now), else kubelet's default."""
    max_pods = config.get('maxPods')
    return max_pods if isinstance(max_pods, int) and not isinstance(max_pods, bool) else DEFAULT_MAX_PODS
