# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One cgroup's part of a node plan, as a run manages it: an immutable record.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure. plan_node builds each cgroup of its NodePlan (_node_plan) as a PlannedCgroup, and a run plans its steps from
these records. A plan is a dict only at the module boundary: as_entry is a cgroup as the modules return it, and a plan
handed back through an option is checked once, where it enters (NodePlan.from_dict calls check_entry, which names the
field of a malformed one, then from_entry); a plan plan_node built is not checked again.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections import namedtuple
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, cast

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_files import file_version
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError


def _frozen(mapping: Mapping) -> MappingProxyType:
    """mapping, read-only, its nested mappings too (a resources' hugetlb limits)."""
    return MappingProxyType(dict((key, _frozen(value) if isinstance(value, Mapping) else value)
                                 for key, value in mapping.items()))


def _thawed(mapping: Mapping) -> dict[str, Any]:
    return dict((key, _thawed(value) if isinstance(value, Mapping) else value) for key, value in mapping.items())


# The record's fields: the names (names.describe), the values (the resources kubelet's ResourceConfig holds, and the
# files and properties they render to), and what the plan says of the cgroup (enforced, and for kubepods where its
# values come from; for a reserved cgroup the enforcement key, the name as configured, and the files it owns at the
# kernel's defaults).
_FIELDS = ('key', 'cgroupfs_path', 'systemd_path', 'systemd_unit', 'v1_files', 'v2_files', 'v1_properties',
           'v2_properties', 'name', 'path', 'resources', 'enforced', 'source', 'enforcement', 'configured_name',
           'owned_defaults')


class PlannedCgroup(namedtuple('PlannedCgroup', _FIELDS)):  # type: ignore[misc]  # the fields come from _FIELDS
    """One cgroup of a node plan: its names (cgroupfs path, systemd path and slice, kubelet's CgroupName), its
    resources and the control files and systemd properties they render to under each cgroup version, and whether the
    plan enforces it. plan_node builds these; a plan is a dict only at the module boundary (as_entry, from_entry).
    Immutable: a changed view is a new record (at, with_files, names_only)."""

    __slots__ = ()
    key: str
    cgroupfs_path: str
    systemd_path: str | None
    systemd_unit: str | None
    v1_files: Mapping[str, str]
    v2_files: Mapping[str, str]
    v1_properties: Mapping[str, str]
    v2_properties: Mapping[str, str]
    name: tuple[str, ...] | None
    path: str | None
    resources: Mapping[str, Any]
    enforced: bool
    source: str | None
    enforcement: str | None
    configured_name: str | None
    owned_defaults: tuple[str, ...] | None

    def __new__(cls, key: str, cgroupfs_path: str, systemd_path: str | None = None, systemd_unit: str | None = None,
                v1_files: Mapping | None = None, v2_files: Mapping | None = None, v1_properties: Mapping | None = None,
                v2_properties: Mapping | None = None, name: Iterable[str] | None = None, path: str | None = None,
                resources: Mapping | None = None, enforced: bool | None = None, source: str | None = None,
                enforcement: str | None = None, configured_name: str | None = None,
                owned_defaults: Iterable[str] | None = None) -> PlannedCgroup:
        return super(PlannedCgroup, cls).__new__(  # type: ignore[call-arg]  # the fields come from _FIELDS
            cls, key, cgroupfs_path, systemd_path, systemd_unit, _frozen(v1_files or {}), _frozen(v2_files or {}),
            _frozen(v1_properties or {}), _frozen(v2_properties or {}), None if name is None else tuple(name), path,
            _frozen(resources or {}),
            # A plan given back without it: kubepods is always enforced, the others only where the plan says so.
            key == 'kubepods' if enforced is None else bool(enforced), source, enforcement, configured_name,
            None if owned_defaults is None else tuple(owned_defaults))

    @classmethod
    def planned(cls, key: str, described: Mapping[str, Any], resources: Mapping[str, Any], rendered: Mapping[str, Any],
                **plan: Any) -> PlannedCgroup:
        """The record plan_node builds: names.describe's names, the resources, resource_files' rendering of them
        (v1_files, v2_files, systemd_properties) and what the plan says of the cgroup (enforced, source...)."""
        properties = rendered.get('systemd_properties') or {}
        return cls(key, described['cgroupfs_path'], described['systemd_path'], described['systemd_unit'],
                   rendered.get('v1_files'), rendered.get('v2_files'), properties.get('v1'), properties.get('v2'),
                   described['name'], described['path'], resources, **plan)

    @classmethod
    def from_entry(cls, key: str, entry: Mapping) -> PlannedCgroup:
        """The record of a plan's cgroups[key] as the modules return it (as_entry), once check_entry accepted it."""
        properties = entry.get('systemd_properties') or {}
        return cls(key, entry['cgroupfs_path'], entry.get('systemd_path'), entry.get('systemd_unit'),
                   entry.get('v1_files'), entry.get('v2_files'), properties.get('v1'), properties.get('v2'),
                   entry.get('name'), entry.get('path'), entry.get('resources'), entry.get('enforced'),
                   entry.get('source'), entry.get('enforcement'), entry.get('configured_name'),
                   entry.get('owned_defaults'))

    def as_entry(self) -> dict[str, Any]:
        """The cgroup as allocatable_info's `plan.cgroups` documents it: plain dicts and lists. source is kubepods'
        only, enforcement and configured_name a reserved cgroup's, owned_defaults only where the plan owns some."""
        entry: dict[str, Any] = {
            'name': None if self.name is None else list(self.name), 'cgroupfs_path': self.cgroupfs_path,
            'systemd_path': self.systemd_path, 'systemd_unit': self.systemd_unit, 'path': self.path,
            'resources': _thawed(self.resources), 'v1_files': dict(self.v1_files), 'v2_files': dict(self.v2_files),
            'systemd_properties': {'v1': dict(self.v1_properties), 'v2': dict(self.v2_properties)},
            'enforced': self.enforced}
        if self.source is not None:
            entry['source'] = self.source
        if self.configured_name is not None:
            entry.update(enforcement=self.enforcement, configured_name=self.configured_name)
        if self.owned_defaults is not None:
            entry['owned_defaults'] = list(self.owned_defaults)
        return entry

    def replace(self, **changes: Any) -> PlannedCgroup:
        """A new record with changes (namedtuple's _replace, whose fields the type checker cannot see)."""
        return self._replace(**changes)

    @property
    def slice_unit(self) -> str:
        """The slice unit under the systemd driver, whose plans name one for every cgroup (describe leaves it None
        only for a name with an empty component, which check_reserved_cgroup refuses on that driver)."""
        return cast(str, self.systemd_unit)

    @property
    def slice_path(self) -> str:
        """The slice path under the systemd driver (as slice_unit)."""
        return cast(str, self.systemd_path)

    def files(self, mode: str | None) -> Mapping[str, str]:
        """The control files under a cgroup mode ('v2', or 'v1' on v1 and hybrid)."""
        return self.v2_files if file_version(mode) == 'v2' else self.v1_files

    def properties(self, mode: str | None) -> Mapping[str, str]:
        """The systemd properties under a cgroup mode, as `systemctl show` names them."""
        return self.v2_properties if file_version(mode) == 'v2' else self.v1_properties

    def at(self, cgroupfs_path: str) -> PlannedCgroup:
        """The same cgroup under another path (the systemd driver's name of it, for the cgroupfs planner)."""
        return self.replace(cgroupfs_path=cgroupfs_path)

    def with_files(self, files: Mapping[str, str]) -> PlannedCgroup:
        """The same cgroup holding only these control files, under either version."""
        return self.replace(v1_files=_frozen(files), v2_files=_frozen(files))

    def owning(self, v2_files: Mapping[str, str], v2_properties: Mapping[str, str]) -> PlannedCgroup:
        """The same cgroup also holding files and properties the plan owns at the kernel's defaults (cgroup v2)."""
        return self.replace(v2_files=_frozen(dict(self.v2_files, **v2_files)),
                            v2_properties=_frozen(dict(self.v2_properties, **v2_properties)),
                            owned_defaults=tuple(sorted(v2_files)))

    def names_only(self) -> PlannedCgroup:
        """The cgroup without values: its names and paths (a cgroup whose values kubelet writes)."""
        return PlannedCgroup(self.key, self.cgroupfs_path, self.systemd_path, self.systemd_unit, name=self.name,
                             path=self.path, configured_name=self.configured_name)


def check_entry(key: str, entry: Any, field: str = 'plan') -> None:
    """Refuse cgroups[key] of a plan given back (field: the option's name) unless it is one of allocatable_info's,
    naming the field of what is wrong."""
    field = '%s.cgroups.%s' % (field, key)
    if not isinstance(entry, Mapping):
        raise KubenodeError('must be a mapping, as allocatable_info returns it', field=field, value=entry)
    path = entry.get('cgroupfs_path')
    if not isinstance(path, str) or not path.startswith('/'):
        raise KubenodeError('must be an absolute cgroup path', field=field + '.cgroupfs_path', value=path)
    for name in ('v1_files', 'v2_files', 'systemd_properties'):
        value = entry.get(name) or {}
        if not isinstance(value, Mapping):
            raise KubenodeError('must be a mapping', field='%s.%s' % (field, name), value=value)
    properties = entry.get('systemd_properties') or {}
    for version in ('v1', 'v2'):
        if not isinstance(properties.get(version) or {}, Mapping):
            raise KubenodeError('must be a mapping', field='%s.systemd_properties.%s' % (field, version),
                                value=properties.get(version))
