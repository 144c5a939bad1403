# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The cgroup drivers as strategies: what differs between kubelet's cgroupfs and systemd managers in making a
node's cgroups exist and in taking them away.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

kubelet has one cgroup manager per cgroup version with the driver as a parameter. Here the cgroup version is the
cgroupfs planner's parameter (_node_cgroups.plan_cgroupfs) and the driver is one of these two objects, which
_node_steps asks for its part of the steps. The planner (_node_cgroups, which this module imports) reads the
driver's name twice, where the name is the input it checks: services are placed only in a systemd kube-reserved
slice (plan_run and service_placement). Each method plans from the snapshots it is given and writes nothing.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import (
    Change, ConfirmProperties, RemoveFile, Systemctl, WriteFile)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._unit_snapshot import UnitSnapshot

if TYPE_CHECKING:  # _node_steps imports the drivers: the run's type is only named here
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_steps import NodeRun

# unit_steps' answer: (steps, warnings, services placed, slices whose unit changed).
UnitSteps = tuple[list[Change], list[str], list[str], set[str]]


def write_when_differs(units: UnitSnapshot, path: str, item: str, content: str, mode: int | None) -> list[Change]:
    """[the WriteFile step] when the file at path does not hold content, else []."""
    current = units.file(path).text
    if current is not None and current.strip() == content.strip():
        return []
    return [WriteFile(path, content, mode, item, current)]


def remove_when_present(units: UnitSnapshot, path: str, item: str) -> list[Change]:
    """[the RemoveFile step] when something is at path, else []."""
    found = units.file(path)
    if not found.exists:
        return []
    return [RemoveFile(path, item, None if found.link is not None else found.text, is_link=found.link is not None)]


class CgroupfsDriver(object):
    """kubelet's cgroupfs manager: every directory, controller and value is ours to write; there is no unit."""

    name = 'cgroupfs'
    writes_units = False  # only the boot persistence needs the unit directory
    needs_systemd = False

    def path_for(self, entry: PlannedCgroup) -> str:
        return entry.cgroupfs_path

    def slices(self, entries: ops.Entries) -> list[str]:
        return []

    def unit_paths(self, run: NodeRun) -> list[str]:
        return []

    def properties(self, run: NodeRun, entry: PlannedCgroup) -> Mapping[str, str]:
        return {}  # no unit holds a cgroup's values

    def unit_steps(self, run: NodeRun, units: UnitSnapshot, services: Sequence[str]) -> UnitSteps:
        """(steps, warnings, services placed, slices whose unit changed) before systemd reloads."""
        owned = [k for k, e in run.entries if run.systemd_running and names.systemd_owned(e.cgroupfs_path)]
        warnings: list[str] = []
        if owned:
            paths = ', '.join(dict(run.entries)[k].cgroupfs_path for k in owned)
            warnings.append(
                '%s: systemd owns %s and resets its cpu, memory and pids values at every daemon-reload (and drops '
                'controllers no unit asks for), so the reservation is lost until kubelet restarts (the boot script '
                'puts it back then). Use the systemd cgroup driver, or a cgroup systemd does not own, such as '
                '/system-reserved.' % (', '.join(owned), paths))
        if run.layout.is_v2 and run.systemd_running and not owned:
            warnings.append('systemd is PID 1 on this cgroup v2 host: "systemctl daemon-reload" removes '
                            'controllers no unit needs from cgroup.subtree_control, so cgroupfs-driver cgroups '
                            'can lose cpu.weight until kubelet restarts (the boot script puts it back then). '
                            'The systemd cgroup driver is the supported choice here.')
        return [], warnings, [], set()

    def start_steps(self, run: NodeRun, units: UnitSnapshot, pending: set[str]) -> list[Change | ConfirmProperties]:
        return []

    def kernel_entries(self, entries: ops.Entries, mode: str, boot_script: bool) -> ops.Entries:
        return entries

    def kernel_options(self, mode: str) -> dict[str, Any]:
        return {}

    def boot_slices(self, entries: ops.Entries) -> list[str]:
        return []

    def keeps_directories(self, entry: PlannedCgroup) -> bool:
        return False

    def service_removal_steps(self, run: NodeRun, units: UnitSnapshot) -> tuple[list[Change], list[str]]:
        return [], []

    def unit_removal_steps(self, run: NodeRun, units: UnitSnapshot, entry: PlannedCgroup) -> list[Change]:
        return []

    def placed_services(self, run: NodeRun) -> list[tuple[str, str, str | None]]:
        """[(service, its Slice= drop-in, the slice's path)] of the services this driver places."""
        return []


class SystemdDriver(object):
    """kubelet's systemd manager: slice units hold the values systemd can express; the kernel is checked against
    the plan, and what systemd cannot express (v1 cpuset and hugetlb directories, v2 hugetlb and cpuset in
    cgroup.subtree_control, hugetlb limits) is written to cgroupfs."""

    name = 'systemd'
    writes_units = True
    needs_systemd = True  # as PID 1: the slices are its units

    def path_for(self, entry: PlannedCgroup) -> str:
        return entry.slice_path

    def slices(self, entries: ops.Entries) -> list[str]:
        return [entry.slice_unit for _key, entry in entries]

    def unit_paths(self, run: NodeRun) -> list[str]:
        paths = [systemd.slice_unit_path(run.unit_dir, e.slice_unit) for _k, e in run.entries]
        return paths + [systemd.service_dropin_path(run.unit_dir, systemd.service_name(s)) for s in run.spec.services]

    def properties(self, run: NodeRun, entry: PlannedCgroup) -> Mapping[str, str]:
        return entry.properties(run.layout.mode)

    def unit_steps(self, run: NodeRun, units: UnitSnapshot, services: Sequence[str]) -> UnitSteps:
        warnings: list[str] = []
        if run.units_offline:
            # Said alike by a run that writes and by the audit and --check, which write nothing.
            warnings.append('systemd is not PID 1 under node_root %s (%s/1/comm): a run that writes puts the slice '
                            'units there and asks no systemd; the node\'s systemd makes the slices from them, with '
                            'their values, when it boots' % (run.spec.node_root, run.spec.proc_path))
        elif not run.systemd_running:
            raise run.origin.error('the systemd cgroup driver needs systemd as PID 1, and it is not (%s/1/comm)'
                                   % run.spec.proc_path)
        steps: list[Change] = []
        placed: list[str] = []
        pending: set[str] = set()
        if services:
            unit = dict(run.entries)['kube_reserved'].slice_unit
            for name in services:
                written = write_when_differs(units, systemd.service_dropin_path(run.unit_dir, name), name,
                                             systemd.render_service_dropin(name, unit), 0o644)
                if written:
                    placed.append(name)
                    steps += written
        for key, entry in run.entries:
            unit = entry.slice_unit
            planned = self.properties(run, entry)
            written = write_when_differs(units, systemd.slice_unit_path(run.unit_dir, unit), unit,
                                         systemd.render_slice(key, entry, planned), 0o644)
            if key not in ops.KUBELET_WRITES_VALUES:  # kubelet sets these slices' values over D-Bus: its overrides
                written += self.override_removals(units, unit, lambda setting, value:
                                                  systemd.disagrees(setting, value, planned))
            if written:
                pending.add(unit)
                steps += written
        return steps, warnings, placed, pending

    def override_removals(self, units: UnitSnapshot, unit: str, unwanted: Callable[[str, str | None], bool]) -> list[Change]:
        """RemoveFile steps for the overrides of unit for which unwanted(setting, value) is true."""
        return [RemoveFile(path, unit, '%s=%s' % (setting, value), reason='%s=%s overrides the plan' % (setting, value),
                           check='override ' + path)
                for path, setting, value in units.overrides(unit) if unwanted(setting, value)]

    def start_steps(self, run: NodeRun, units: UnitSnapshot, pending: set[str]) -> list[Change | ConfirmProperties]:
        """After the reload: start what is not active, then confirm systemd shows the plan (nothing to ask when
        the units are written for a systemd that is not running)."""
        steps: list[Change | ConfirmProperties] = []
        if run.units_offline:
            return steps
        for _key, entry in run.entries:
            unit = entry.slice_unit
            if not units.is_active(unit):
                steps.append(Systemctl(run.origin, 'start', unit))
            planned = self.properties(run, entry)
            if planned:
                steps.append(ConfirmProperties(unit, planned, unit in pending, run.origin))
        return steps

    def kernel_entries(self, entries: ops.Entries, mode: str, boot_script: bool) -> ops.Entries:
        """The values to compare with the kernel. kubelet writes hugetlb on kubepods and the QoS tiers itself;
        the reserved cgroups keep theirs. The boot script holds only what systemd cannot express."""
        found = []
        for key, entry in entries:
            files = dict(entry.files(mode))
            if not key.endswith('_reserved'):
                files = dict((f, v) for f, v in files.items() if cgfiles.v1_hierarchy(f) != 'hugetlb')
            if boot_script:
                outside_systemd = ('hugetlb',) if cgfiles.file_version(mode) == 'v2' else ('hugetlb', 'cpuset')
                files = dict((f, v) for f, v in files.items() if cgfiles.v1_hierarchy(f) in outside_systemd)
            found.append((key, entry.with_files(files)))
        return found

    def kernel_options(self, mode: str) -> dict[str, Any]:
        if mode == 'v2':
            # kubelet validates the controllers of the reserved slices and enables kubepods' itself;
            # systemd drops cpuset again from any slice it re-realizes.
            return {'create_dirs': False, 'enable_for': ('system_reserved', 'kube_reserved')}
        return {'mkdir_hierarchies': ('cpuset', 'hugetlb')}

    def boot_slices(self, entries: ops.Entries) -> list[str]:
        return self.slices(entries)

    def keeps_directories(self, entry: PlannedCgroup) -> bool:
        """A slice systemd ships is never stopped nor its directories removed."""
        return systemd.is_shipped(entry.slice_unit)

    def service_removal_steps(self, run: NodeRun, units: UnitSnapshot) -> tuple[list[Change], list[str]]:
        """(steps, services) removing the services' Slice= drop-ins."""
        steps: list[Change] = []
        services: list[str] = []
        for service in run.spec.services or []:
            name = systemd.service_name(service)
            removed = remove_when_present(units, systemd.service_dropin_path(run.unit_dir, name), name)
            if removed:
                services.append(name)
                steps += removed
        return steps, services

    def unit_removal_steps(self, run: NodeRun, units: UnitSnapshot, entry: PlannedCgroup) -> list[Change]:
        """The slice stopped (unless systemd ships it), its unit removed, and its overrides: all of them, and on a
        shipped slice those the plan set (they would come back with the slice)."""
        unit = entry.slice_unit
        shipped = systemd.is_shipped(unit)
        steps: list[Change] = []
        unit_file = remove_when_present(units, systemd.slice_unit_path(run.unit_dir, unit), unit)
        if unit_file and not shipped:
            steps.append(Systemctl(run.origin, 'stop', unit))
        planned = self.properties(run, entry)
        return steps + unit_file + self.override_removals(
            units, unit, lambda setting, value: not shipped or cgfiles.PROPERTY_BY_SETTING[setting] in planned)

    def placed_services(self, run: NodeRun) -> list[tuple[str, str, str | None]]:
        kube_reserved = dict(run.entries).get('kube_reserved')
        if not kube_reserved:
            return []
        return [(name, systemd.service_dropin_path(run.unit_dir, name), kube_reserved.systemd_path)
                for name in (systemd.service_name(s) for s in run.spec.services)]


# A run's driver: kubelet's cgroupfs or systemd manager.
Driver = Union[CgroupfsDriver, SystemdDriver]
DRIVERS: dict[str, Driver] = {'cgroupfs': CgroupfsDriver(), 'systemd': SystemdDriver()}
