# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One cgroup's part of a node plan, as a run manages it: an immutable record.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure. The plan is a NodePlan (_node_plan); a run turns each cgroup it manages into a PlannedCgroup once (from_entry)
and plans its steps from these records. A plan handed back through an option is checked once, where it enters
(NodePlan.from_dict calls check_entry, which names the field of a malformed one); a plan plan_node built is not
checked again.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections import namedtuple
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_files import file_version
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError


def _frozen(mapping: Mapping) -> MappingProxyType:
    return MappingProxyType(dict(mapping))


class PlannedCgroup(namedtuple('PlannedCgroup', ('key', 'cgroupfs_path', 'systemd_path', 'systemd_unit', 'v1_files',
                                                 'v2_files', 'v1_properties', 'v2_properties'))):
    """A cgroup's names (cgroupfs path, systemd path and slice) and the control files and systemd properties the
    plan gives it under each cgroup version. Immutable: a changed view is a new record (at, with_files)."""

    __slots__ = ()

    def __new__(cls, key: str, cgroupfs_path: str, systemd_path: str | None = None, systemd_unit: str | None = None,
                v1_files: Mapping | None = None, v2_files: Mapping | None = None, v1_properties: Mapping | None = None,
                v2_properties: Mapping | None = None) -> PlannedCgroup:
        return super(PlannedCgroup, cls).__new__(
            cls, key, cgroupfs_path, systemd_path, systemd_unit, _frozen(v1_files or {}), _frozen(v2_files or {}),
            _frozen(v1_properties or {}), _frozen(v2_properties or {}))

    @classmethod
    def from_entry(cls, key: str, entry: Mapping) -> PlannedCgroup:
        """The record of a plan's cgroups[key], an entry plan_node built or check_entry accepted."""
        properties = entry.get('systemd_properties') or {}
        return cls(key, entry['cgroupfs_path'], entry.get('systemd_path'), entry.get('systemd_unit'),
                   entry.get('v1_files'), entry.get('v2_files'), properties.get('v1'), properties.get('v2'))

    def files(self, mode: str | None) -> Mapping[str, str]:
        """The control files under a cgroup mode ('v2', or 'v1' on v1 and hybrid)."""
        return self.v2_files if file_version(mode) == 'v2' else self.v1_files

    def properties(self, mode: str | None) -> Mapping[str, str]:
        """The systemd properties under a cgroup mode, as `systemctl show` names them."""
        return self.v2_properties if file_version(mode) == 'v2' else self.v1_properties

    def at(self, cgroupfs_path: str) -> PlannedCgroup:
        """The same cgroup under another path (the systemd driver's name of it, for the cgroupfs planner)."""
        return self._replace(cgroupfs_path=cgroupfs_path)

    def with_files(self, files: Mapping[str, str]) -> PlannedCgroup:
        """The same cgroup holding only these control files, under either version."""
        return self._replace(v1_files=_frozen(files), v2_files=_frozen(files))

    def names_only(self) -> PlannedCgroup:
        """The cgroup without values: its names and paths (a cgroup whose values kubelet writes)."""
        return PlannedCgroup(self.key, self.cgroupfs_path, self.systemd_path, self.systemd_unit)


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
