# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ordered steps that make a node match its plan (or take the plan away), and their performance.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Reading, planning and performing are apart:
- read: the kernel's cgroups (_node_snapshot.read_cgroups) and the units side (_unit_snapshot.read_units), once;
- plan: pure functions of a NodeRun and those snapshots return the steps (_steps records, _node_cgroups'
  operations), the driver's part asked of its strategy (_drivers);
- perform: _steps.perform() runs them against a host (node/_hosts): LiveHost writes, DryHost lets check mode and
  the audit record the same steps without writing. The boot script is rendered from the same kernel planner.

A run that writes goes in two phases, because systemd re-realizes the slices when it reloads: the unit steps
(slice units, overrides, service drop-ins, boot persistence, daemon-reload, starts), then the kernel steps planned
from the kernel read again when the host acted, then the boot unit's restart and the kubelet configuration.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _boot_persistence as boot
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _node_paths as node_paths
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _preflight as preflight
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_config_file import summary as kc_summary
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import CgroupSnapshot, NodeSnapshot, read_cgroups
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._unit_snapshot import UnitSnapshot, read_units
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _restarts as restarts
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._drivers import (
    DRIVERS, Driver, remove_when_present, write_when_differs)
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import (
    Change, ConfirmProperties, DriverOrigin, MakeLink, Record, RemoveFile, Systemctl, WriteFile, WriteKubeletConfig, perform)


class NodeRun(object):
    """One run on one node, as its steps are planned: the NodeSpec, what the NodeSnapshot showed (layout, PID 1),
    the RunPlan (driver, managed entries, kubelet configuration change) and the driver's strategy."""

    __slots__ = ('spec', 'layout', 'systemd_running', 'root', 'unit_dir', 'plan', 'entries', 'kubelet_change',
                 'driver', 'origin')

    def __init__(self, spec: NodeSpec, node: NodeSnapshot, run: ops.RunPlan) -> None:
        self.spec, self.layout, self.systemd_running = spec, node.layout, node.systemd_running
        self.root, self.unit_dir = spec.cgroupfs_path, spec.systemd_unit_dir
        self.plan, self.entries, self.kubelet_change = run.plan, run.entries, run.kubelet_change
        self.driver: Driver = DRIVERS[run.driver]
        self.origin = DriverOrigin(run.driver, run.driver_source)

    @property
    def units_offline(self) -> bool:
        """True for a node under a root (an image, a fake node) whose PID 1 is not systemd: the unit files (the systemd
        driver's slices, the boot persistence) are written there for the node's systemd to read when it boots, and
        no systemd is asked, as this machine's is not the node's."""
        return not self.systemd_running and not node_paths.is_host_root(self.spec.node_root)

    @property
    def slices_made_at_boot(self) -> bool:
        """The systemd driver's slices written for a systemd that is not running (units_offline): their cgroups
        appear when the node boots, so a missing one is not what kubelet's Validate will meet."""
        return self.units_offline and self.driver.writes_units

    def persistence_paths(self) -> dict[str, str]:
        return boot.paths(self.unit_dir, self.spec.persist_script, self.spec.kubelet_unit())

    def managed(self) -> dict[str, str]:
        """{key: the cgroup's path as the driver names it}."""
        return dict((key, self.driver.path_for(entry)) for key, entry in self.entries)


class UnitPlan(object):
    """The unit steps of a run and what they mean for its result."""

    __slots__ = ('steps', 'warnings', 'services_changed', 'skipped_services', 'persistence')

    def __init__(self, steps: list[Any], warnings: list[str], services_changed: list[str], skipped_services: list[str],
                 persistence: dict[str, Any] | None) -> None:
        self.steps, self.warnings = steps, warnings
        self.services_changed, self.skipped_services, self.persistence = services_changed, skipped_services, persistence


class Done(object):
    """What performing a run's steps leaves: the record (changes, drift, diffs, applied, warnings), the unit plan,
    the kernel as last read, the restarts it leaves pending, the services a restart would not move (held in their
    old slice: find_restarts) and the kubelet configuration's result."""

    __slots__ = ('record', 'units', 'kernel', 'kubelet_result', 'held_services')

    def __init__(self, record: Record) -> None:
        self.record = record
        self.units: UnitPlan | None = None
        self.kernel: CgroupSnapshot | None = None
        self.kubelet_result: dict[str, Any] | None = None
        self.held_services: list[dict[str, Any]] = []

    @property
    def services_changed(self) -> list[str]:
        return self.units.services_changed if self.units else []

    @property
    def skipped_services(self) -> list[str]:
        return self.units.skipped_services if self.units else []

    @property
    def persistence(self) -> dict[str, Any] | None:
        return self.units.persistence if self.units else None

    @property
    def held_warnings(self) -> list[str]:
        """The warning of each service held in its old slice, last among a run's warnings (where
        run/_receipt.follow_restarts puts them after the restarts)."""
        return [restarts.held_warning(entry) for entry in self.held_services]


# Reading ------------------------------------------------------------------------------------------------------

def cgroupfs_entries(run: NodeRun, boot_script: bool = False) -> list[tuple[str, PlannedCgroup]]:
    """[(key, PlannedCgroup)] for the cgroupfs planner, cgroupfs_path the driver's name of the cgroup."""
    return [(k, e.at(run.driver.path_for(e)))
            for k, e in run.driver.kernel_entries(run.entries, run.layout.mode, boot_script)]


def read_kernel(run: NodeRun) -> CgroupSnapshot:
    return read_cgroups(run.layout, run.root, cgroupfs_entries(run))


def read_unit_side(run: NodeRun, systemctl: systemd.Systemctl, removing: bool = False) -> UnitSnapshot:
    """The UnitSnapshot of every file, override and slice the run's unit steps may touch. kubelet writes slices over
    D-Bus at every start (kubepods' and the QoS tiers' values, and the reserved slices it enforces, with the plan's),
    which leaves override files: a run that keeps the slices reads only the overrides it removes (those of the slices
    whose values it plans that disagree with the plan: _drivers.SystemdDriver.unit_steps), so that a receipt kept
    before kubelet's restart answers the run after it (run/_receipt); a run removing them reads them all."""
    files = run.persistence_paths()
    paths = list(files.values()) + run.driver.unit_paths(run)
    services = [systemd.service_name(s) for s in run.spec.services]
    slices = run.driver.slices(run.entries)
    kept = None if removing else dict((entry.slice_unit, run.driver.properties(run, entry))
                                      for key, entry in run.entries
                                      if entry.slice_unit in slices and key not in ops.KUBELET_WRITES_VALUES)
    return read_units(systemctl if run.systemd_running else None, paths, slices, services,
                      run.spec.systemd_control_dirs, kept)


def busy_cgroup(run: NodeRun, key: str) -> None:
    """state=absent refuses to remove a cgroup that still holds processes (its own or a child's)."""
    for directory in directories(run, run.driver.path_for(dict(run.entries)[key])):
        for current, _dirs, files in os.walk(directory):
            if cgfiles.PROCS_FILE in files and (fs.read_file(os.path.join(current, cgfiles.PROCS_FILE)) or '').strip():
                raise KubenodeError('refusing to remove %s: processes are still inside %s' % (key, current),
                                    field='state', value='absent')


# Planning -----------------------------------------------------------------------------------------------------

def missing_file(key: str, path: str) -> None:
    raise KubenodeError('%s has no %s: the controller is not enabled for it' % (key, os.path.basename(path)),
                        field=key, value=path)


def kernel_steps(run: NodeRun, kernel: CgroupSnapshot, boot_script: bool = False) -> list[ops.Operation]:
    """The cgroupfs operations from a CgroupSnapshot (EMPTY_STATE for the boot script: every step written out)."""
    state = ops.EMPTY_STATE if boot_script else kernel
    controllers = ops.offered_controllers(run.root, kernel) if run.layout.is_v2 else []
    return ops.plan_cgroupfs(cgroupfs_entries(run, boot_script), ops.CgroupfsTarget(
        run.layout, run.root, controllers, **run.driver.kernel_options(run.layout.mode)), missing_file, state)


def installed_services(run: NodeRun, units: UnitSnapshot) -> tuple[list[str], list[str]]:
    """(the given services systemd knows, the rest): the rest go to services_not_installed."""
    wanted = [systemd.service_name(s) for s in run.spec.services]
    if not wanted or not run.systemd_running:
        return [], wanted
    return ([n for n in wanted if units.load_state(n) == 'loaded'],
            [n for n in wanted if units.load_state(n) != 'loaded'])


def persistence_steps(run: NodeRun, units: UnitSnapshot,
                      boot_operations: Sequence[ops.Operation]) -> tuple[list[Any], dict[str, Any] | None, list[str]]:
    """(steps, persistence, warnings): the boot script, its unit, the link that enables it and kubelet's drop-in
    written (or, with persist=false, removed)."""
    files = run.persistence_paths()
    if not run.spec.persist:
        order = ('wants_link', 'kubelet_dropin', 'unit', 'script')
        return [step for name in order for step in remove_when_present(units, files[name], 'boot persistence')], None, []
    if not run.systemd_running and not run.units_offline:
        return [], None, ['systemd is not PID 1 here, so nothing will put these cgroups back after a reboot: kubelet '
                          'will refuse to start until a run of this collection writes them again (the boot script '
                          'that does it at boot needs systemd)']
    wanted = (
        (files['script'], boot.script(boot_operations, run.driver.name, run.layout.mode, run.spec.generations_dir), 0o755),
        (files['unit'], boot.unit(files['script'], run.spec.kubelet_unit(), run.driver.boot_slices(run.entries)), 0o644),
        (files['kubelet_dropin'], boot.kubelet_dropin(files['script']), 0o644))
    steps: list[Any] = [step for path, content, mode in wanted
                        for step in write_when_differs(units, path, 'boot persistence', content, mode)]
    link = units.file(files['wants_link']).link
    if link != files['unit']:
        steps.append(MakeLink(files['unit'], files['wants_link'], 'boot persistence', boot.UNIT_NAME, link))
    return steps, dict(files, changed=bool(steps)), []


def reload_if_needed(run: NodeRun, steps: Iterable[object]) -> list[Change | ConfirmProperties]:
    """systemd reads unit files only when it reloads: a daemon-reload after any file step."""
    if run.systemd_running and any(isinstance(s, (WriteFile, RemoveFile, MakeLink)) for s in steps):
        return [Systemctl(run.origin, 'daemon-reload')]
    return []


def unit_steps(run: NodeRun, units: UnitSnapshot, boot_operations: Sequence[ops.Operation]) -> UnitPlan:
    """The UnitPlan before the kernel steps: the driver's units, the boot persistence, the reload, the starts."""
    installed, skipped = installed_services(run, units)
    changes, warnings, placed, pending = run.driver.unit_steps(run, units, installed)
    persisting, persistence, persist_warnings = persistence_steps(run, units, boot_operations)
    steps: list[Change | ConfirmProperties] = changes + persisting
    steps += reload_if_needed(run, steps) + run.driver.start_steps(run, units, pending)
    return UnitPlan(steps, warnings + persist_warnings, placed, skipped, persistence)


def closing_steps(run: NodeRun, persistence: Mapping[str, Any] | None) -> list[Change]:
    """After the kernel steps: the boot unit restarted when its script changed (it runs once now, so a script this
    kernel refuses fails here, not at the next boot), then kubelet's configuration written."""
    steps: list[Change] = []
    if persistence and persistence['changed'] and run.systemd_running:
        steps.append(Systemctl(run.origin, 'restart', boot.UNIT_NAME))
    change = run.kubelet_change
    if change and change['changed']:
        steps.append(WriteKubeletConfig(change, run.spec.kubelet_config_option('backup', False)))
        flags = change.get('flags_file')
        if flags and flags['before'] != flags['after']:
            # After the drop-in: kubelet, restarted after both, finds its --config-dir holding it.
            before = flags['before'].rstrip('\n') if flags['before'] is not None else None  # as WriteFile shows it
            steps.append(WriteFile(flags['path'], flags['after'], 0o644, 'kubelet --config-dir', before))
    return steps


def directories(run: NodeRun, relative: str) -> list[str]:
    if run.layout.is_v2:
        return [fs.cgroup_path(run.root, relative, 'path')]
    return [fs.cgroup_path(mount, relative, 'path') for mount in run.layout.v1_hierarchies.values()]


def absent_steps(run: NodeRun, units: UnitSnapshot, kernel: CgroupSnapshot) -> tuple[list[Any], list[str]]:
    """(steps, services whose drop-in goes) that take the managed cgroups away, children first: the services'
    drop-ins, each slice stopped and its unit removed (systemd driver), the directories, the boot persistence (it
    would bring them back; a later present run writes it again), the reload."""
    steps, services = run.driver.service_removal_steps(run, units)
    for key, entry in reversed(run.entries):
        relative = run.driver.path_for(entry)
        steps += run.driver.unit_removal_steps(run, units, entry)
        if run.driver.keeps_directories(entry) or not relative.strip('/'):
            continue
        steps += [ops.Operation('rmdir', directory, cgroup=key) for directory in directories(run, relative)
                  if kernel.isdir(directory)]
    files = run.persistence_paths()
    for name in ('wants_link', 'kubelet_dropin', 'unit', 'script'):
        steps += remove_when_present(units, files[name], 'boot persistence')
    return steps + reload_if_needed(run, steps), services


# Checking before the first write --------------------------------------------------------------------------------

def write_targets(run: NodeRun) -> list[tuple[str, str]]:
    """[(option, path)] of the directories this run may write into, for the pre-flight."""
    # On v1 /sys/fs/cgroup itself is a read-only tmpfs: the hierarchies mounted in it are written.
    mounts = [run.root] if run.layout.is_v2 else sorted(run.layout.v1_hierarchies.values())
    targets = [('cgroupfs_path', mount) for mount in mounts]
    targets.append(('generations_dir', run.spec.generations_dir))  # the way back keeps what each write replaces
    persisting = run.spec.persist and (run.systemd_running or run.units_offline)
    if run.driver.writes_units or persisting:
        targets.append(('systemd_unit_dir', run.unit_dir))
    if persisting:
        targets.append(('persist_script', os.path.dirname(run.spec.persist_script)))
    if run.kubelet_change and run.kubelet_change['changed']:
        targets.append(('kubelet_config', os.path.dirname(run.kubelet_change['path'])))
        if run.kubelet_change.get('flags_file'):
            targets.append(('kubelet_config', os.path.dirname(run.kubelet_change['flags_file']['path'])))
    return targets


def refuse_unwritable(run: NodeRun) -> None:
    """Refuse up front, before the first write, targets that would fail half-way: read-only or full. A run that
    writes checks this; the audit, which writes nothing, does not."""
    for option, directory in write_targets(run):
        problem = preflight.writable_directory_problem(directory, room=option != 'cgroupfs_path')
        if problem:
            raise KubenodeError(problem, field=option, value=directory)


def refuse_escaping(run: NodeRun, operations: Iterable[ops.Operation]) -> None:
    """Refuse a cgroup path that a symlink leads out of cgroupfs_path: the mount table names that tree, and
    nothing outside is ours."""
    for operation in operations:
        real = preflight.leads_outside(operation.path, run.root)
        if real:
            raise KubenodeError('%s leads out of the cgroup tree through a symlink (to %s)' % (operation.path, real),
                                field='cgroupfs_path', value=run.root)


# Performing -------------------------------------------------------------------------------------------------------

def present(run: NodeRun, host: DryHost, done: Done, check_writes: bool = True) -> Done:
    """Make the node match the plan on host (or, on a DryHost, record what would be done), into done (a Done)."""
    if check_writes:
        refuse_unwritable(run)
    done.kernel = read_kernel(run)
    operations = kernel_steps(run, done.kernel)  # also refuses a kernel plan that cannot be made, before any write
    boot_operations = kernel_steps(run, done.kernel, boot_script=True)
    if check_writes:
        refuse_escaping(run, operations)
    host.originals.update((o.path, o.before) for o in operations if o.kind == 'write')
    done.units = unit_steps(run, read_unit_side(run, host.systemctl), boot_operations)
    done.record.warnings.extend(done.units.warnings)
    if perform(done.units.steps, host, done.record):
        done.kernel = read_kernel(run)  # systemd has re-realized the slices: their cgroups are not what was read
        operations = kernel_steps(run, done.kernel)
    closing = closing_steps(run, done.units.persistence)
    perform([*operations, *closing], host, done.record)
    change = run.kubelet_change
    if change:
        done.kubelet_result = kubelet_config_result(change, done.record, closing)
    return done


def kubelet_config_result(change: dict[str, Any], record: Record, closing: Iterable[Change]) -> dict[str, Any]:
    """kubelet_config's result: the change's summary, with the backup file when one was made."""
    result = kc_summary(change)
    for step in closing:
        answer = record.outcomes.get(step)
        if isinstance(step, WriteKubeletConfig) and answer and answer.get('backup_file'):
            result['backup_file'] = answer['backup_file']
    return result


def absent(run: NodeRun, host: DryHost, done: Done) -> Done:
    """Take the managed cgroups, their units and the boot persistence away; a busy cgroup is refused first."""
    for key, entry in run.entries:
        if not run.driver.keeps_directories(entry):
            busy_cgroup(run, key)
    done.kernel = read_kernel(run)
    steps, services = absent_steps(run, read_unit_side(run, host.systemctl, removing=True), done.kernel)
    done.units = UnitPlan(steps, [], services, [], None)
    perform(steps, host, done.record)
    return done


def find_restarts(run: NodeRun, host: DryHost, done: Done) -> list[dict[str, Any]]:
    """Services that run with an older configuration or slice than the one on disk (read after this run's writes,
    so an interrupted run's restart is found again by the next run)."""
    if not run.systemd_running:
        return []
    watched: dict[str, dict[str, Any]] = {}
    if run.kubelet_change:
        flags = run.kubelet_change.get('flags_file')
        watched[run.spec.kubelet_unit()] = {'files': [run.kubelet_change['path']] + (
            [flags['path']] if flags and os.path.exists(flags['path']) else []), 'slice_path': None}
    for service, dropin, slice_path in run.driver.placed_services(run):
        if os.path.exists(dropin) and service not in done.skipped_services:
            entry = watched.setdefault(service, {'files': [], 'slice_path': None})
            entry['files'].append(dropin)
            entry['slice_path'] = slice_path
    if not watched:
        return []
    found = restarts.services_to_restart(host.systemctl, watched, systemd_hierarchy(run))
    done.held_services = [entry for entry in found if entry.get('held')]
    return [entry for entry in found if not entry.get('held')]


def systemd_hierarchy(run: NodeRun) -> str | None:
    """Where systemd's own hierarchy lies on the node (the unified one on v2, name=systemd on v1), None without one:
    the base of the cgroups systemd shows as a unit's ControlGroup."""
    return run.root if run.layout.is_v2 else run.layout.v1_hierarchies.get('systemd')
