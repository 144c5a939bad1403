# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node plan as an immutable record: what kubelet computes for a node (its NodeConfig's Node Allocatable part:
capacity, reserved, eviction, Allocatable, the node-level cgroups and their values).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Pure. plan_node() returns a NodePlan; every reader inside module_utils (the kubelet configuration, the run, the
audit, the impact, the measurement) takes one. The plan is a dict only at the module boundary: as_dict() is what the
modules return (allocatable_info's documented `plan`), and from_dict() reads one an operator gives back (the `plan`
option of node_cgroups, node_drift_info, reservation_info and kubelet_config), naming the field of a malformed one.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections import namedtuple
from collections.abc import Iterator, Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_names import DRIVERS
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup, check_entry


# (field, required in a plan given back, the type its value must have). The order is as_dict()'s.
_SCHEMA = (
    ('kubelet_version', False, str),
    ('cgroup_driver', True, str),
    ('max_pods', False, int),  # written as maxPods; None when kubelet keeps its own
    ('reserved_system_cpus', False, str),  # written as reservedSystemCPUs; its size is systemReserved.cpu
    ('enforce_node_allocatable', False, (list, tuple)),
    ('capacity', False, Mapping),
    ('internal_capacity', False, Mapping),
    ('reserved', False, Mapping),  # {system: {resource: entry}, kube: {...}}
    ('eviction', False, Mapping),  # {hard, source, defaults_kept, reservation}
    ('reservation', False, Mapping),
    ('allocatable', False, Mapping),
    ('allocatable_absolute', False, Mapping),
    ('cgroups', True, Mapping),  # {key: PlannedCgroup} (as_entry in a dict): kubepods, the QoS tiers, the reserved ones
    ('node_allocatable_root', False, Mapping),  # where kubelet puts pods (names.describe)
    ('fail_cgroup_v1_default', False, bool),
    ('kubelet_version_source', False, str),  # where a run took the release from (node_cgroups)
)
_FIELDS = tuple(name for name, _required, _kind in _SCHEMA)


class ReadOnly(Mapping):
    """A read-only view of a mapping whose nested mappings and lists are read-only too (views and tuples, made as they
    are read): a plan is built once and read many times, so the view costs nothing until a value is read."""

    __slots__ = ('_data',)

    def __init__(self, data: Mapping) -> None:
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        return freeze(self._data[key])

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return 'ReadOnly(%r)' % (self._data,)


def freeze(value: Any) -> Any:
    """value, read-only: a mapping as a ReadOnly view (not copied: the record owns what it is given), a list as a
    tuple."""
    if isinstance(value, (ReadOnly, PlannedCgroup)):
        return value  # a PlannedCgroup is immutable already (and a tuple that must stay a record)
    if isinstance(value, Mapping):
        return ReadOnly(value)
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """freeze() undone: plain dicts and lists, as a module returns them (JSON)."""
    if isinstance(value, PlannedCgroup):
        return value.as_entry()
    if isinstance(value, ReadOnly):
        # The data behind a view of this module's own: copied once, not view by view.
        value = value._data  # pylint: disable=protected-access
    if isinstance(value, Mapping):
        return dict((key, thaw(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


class NodePlan(namedtuple('NodePlan', _FIELDS)):  # type: ignore[misc]  # the fields come from _SCHEMA
    """What kubelet computes for one node, read-only: its mappings are ReadOnly views of the ones it was built from
    (which nobody else keeps). A changed view is a new record (replace)."""

    __slots__ = ()
    # The fields, declared for the type checker (it cannot see the fields _SCHEMA names): _SCHEMA's order and types.
    kubelet_version: str | None
    cgroup_driver: str
    max_pods: int | None
    reserved_system_cpus: str | None
    enforce_node_allocatable: tuple | None
    capacity: Mapping | None
    internal_capacity: Mapping | None
    reserved: Mapping | None
    eviction: Mapping | None
    reservation: Mapping | None
    allocatable: Mapping | None
    allocatable_absolute: Mapping | None
    cgroups: Mapping[str, PlannedCgroup]
    node_allocatable_root: Mapping | None
    fail_cgroup_v1_default: bool | None
    kubelet_version_source: str | None

    def __new__(cls, **fields: Any) -> NodePlan:
        unknown = sorted(set(fields) - set(_FIELDS))
        if unknown:
            raise TypeError('NodePlan has no field %s' % ', '.join(unknown))
        return super(NodePlan, cls).__new__(cls, *(freeze(fields.get(name)) for name in _FIELDS))

    def replace(self, **changes: Any) -> NodePlan:
        """A new record with changes (namedtuple's _replace, whose fields the type checker cannot see)."""
        return self._replace(**changes)

    @classmethod
    def from_dict(cls, plan: Any, field: str = 'plan') -> NodePlan:
        """The record of a plan given as allocatable_info returns it; a malformed one is refused, naming the field.
        Keys it does not know are left out (a newer collection's plan keeps working)."""
        if isinstance(plan, NodePlan):
            return plan
        if not isinstance(plan, Mapping):
            raise KubenodeError('must be a mapping: a result of kubenode.cgroups.allocatable_info', field=field, value=plan)
        for name, required, kind in _SCHEMA:
            value = plan.get(name)
            if value is None:
                if required:
                    raise KubenodeError('is missing: not a result of kubenode.cgroups.allocatable_info',
                                        field='%s.%s' % (field, name))
                continue
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise KubenodeError('must be a %s, as allocatable_info returns it'
                                    % ('mapping' if kind is Mapping else 'list' if kind == (list, tuple)
                                       else 'boolean' if kind is bool else 'number' if kind is int else 'string'),
                                    field='%s.%s' % (field, name), value=value)
        if plan['cgroup_driver'] not in DRIVERS:
            raise KubenodeError('must be "cgroupfs" or "systemd"', field=field + '.cgroup_driver',
                                value=plan['cgroup_driver'])
        cgroups = {}
        for key, entry in plan['cgroups'].items():
            # Checked here, where the plan enters: the run reads its records unchecked.
            check_entry(key, entry, field)
            cgroups[key] = PlannedCgroup.from_entry(key, entry)
        return cls(**dict((name, cgroups if name == 'cgroups' else plan.get(name)) for name in _FIELDS))

    def as_dict(self) -> dict[str, Any]:
        """The plan as the modules return it (allocatable_info's `plan`): plain dicts and lists; the release's
        source only where a run set it."""
        result = dict((name, thaw(getattr(self, name))) for name in _FIELDS)
        if result['kubelet_version_source'] is None:
            del result['kubelet_version_source']
        return result

    def cgroup(self, key: str) -> PlannedCgroup | None:
        """The plan's record of one cgroup (kubepods, burstable, besteffort, system_reserved, kube_reserved), or
        None when the plan has none (its cgroup name not set)."""
        return self.cgroups.get(key)

    def value(self, section: str, resource: str) -> Any:
        """The integer value of one resource of a quantity section (capacity, allocatable, allocatable_absolute,
        reservation), or None when the section leaves it out."""
        entry = (getattr(self, section) or {}).get(resource)
        return entry['value'] if entry else None

    def reserved_of(self, scope: str) -> Mapping:
        """{resource: entry} reserved for one scope ('system' or 'kube')."""
        return (self.reserved or {}).get(scope) or {}

    def eviction_part(self, name: str) -> Any:
        """One part of the eviction plan: hard (the map), source, defaults_kept, reservation."""
        return (self.eviction or {}).get(name)
