# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubenode.cgroups' filters over the calculation core (quantities, CPU conversions, cgroup names), each wrapped to
raise AnsibleFilterError: the filter plugin (plugins/filter/cgroups.py) and the fleet report's templates
(_fleet_report) take them from here.

PRIVATE plugin_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Callable
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import parse_quantity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import human_quantity, human_row
from ansible_collections.kubenode.cgroups.plugins.plugin_utils._plan_summary import exposures, human_quantities


def _wrap(function: Callable[..., Any]) -> Callable[..., Any]:
    def filter_function(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except KubenodeError as error:
            raise AnsibleFilterError('%s: %s' % (function.__name__, error))
    filter_function.__name__ = function.__name__
    filter_function.__doc__ = function.__doc__
    return filter_function


def _milli_cpu(value: Any, field: str) -> int:
    """An int is millicores already; a string is a CPU quantity ("250m", "2")."""
    if isinstance(value, bool):
        raise KubenodeError('expected millicores or a CPU quantity', field=field, value=value)
    if isinstance(value, int):
        return value
    return parse_quantity(value, field).milli_value()


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool):
        raise KubenodeError('expected an integer', field=field, value=value)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise KubenodeError('expected an integer', field=field, value=value)


def quantity_to_int(quantity: Any) -> int:
    """Quantity.Value(): whole units, rounded up."""
    return parse_quantity(quantity, 'quantity').value()


def quantity_to_milli(quantity: Any) -> int:
    """Quantity.MilliValue(): thousandths, rounded up."""
    return parse_quantity(quantity, 'quantity').milli_value()


def milli_cpu_to_shares(milli_cpu: Any) -> int:
    return cgmath.milli_cpu_to_shares(_milli_cpu(milli_cpu, 'milli_cpu'))


def milli_cpu_to_quota(milli_cpu: Any, period: Any = cgmath.QUOTA_PERIOD_US) -> int:
    return cgmath.container_milli_cpu_to_quota(_milli_cpu(milli_cpu, 'milli_cpu'), _int(period, 'period'))


def cpu_shares_to_weight(shares: Any, formula: str = 'linear') -> int:
    shares = _int(shares, 'shares')
    if shares < 0:
        raise KubenodeError('cpu shares cannot be negative', field='shares', value=shares)
    return cgmath.shares_to_weight(shares, formula)


def cpu_weight_to_shares(weight: Any) -> int:
    weight = _int(weight, 'weight')
    if not 0 <= weight <= cgmath.MAX_WEIGHT:
        raise KubenodeError('cpu.weight must be between 1 and 10000 (0 for unset)', field='weight', value=weight)
    return cgmath.weight_to_shares(weight)


def cgroup_to_systemd(path: Any) -> str:
    if not isinstance(path, str) or not path.startswith('/'):
        raise KubenodeError('expected an absolute cgroupfs path such as /kubepods/burstable', field='path', value=path)
    parts = names.parse_cgroupfs(path.rstrip('/') or '/')
    for part in parts:
        if part == '' or '_' in part:
            raise KubenodeError('kubelet cgroup names have no empty components and no "_"', field='path', value=path)
    return names.to_systemd(parts)


def systemd_to_cgroup(path: Any) -> str:
    if not isinstance(path, str) or not path:
        raise KubenodeError('expected a systemd slice path such as /kubepods.slice', field='path', value=path)
    return names.to_cgroupfs(names.parse_systemd(path))


def quantity_to_human(quantity: Any, resource: str | None = None) -> str:
    """One quantity of resource, or a map of resources to quantities (or to the plan's {quantity: ...})
    as "cpu 2 cores, memory 23.5 GiB"."""
    if isinstance(quantity, dict):
        return human_quantities(quantity)
    if resource is None:
        raise KubenodeError('the resource name is needed for a single quantity', field='resource')
    return human_quantity(quantity, resource)


def quantities_to_human_row(quantities: Any, resource: str) -> Any:
    """A report row: the whole (capacity) then its parts, each a quantity, the plan's {quantity: ...} or None,
    for people in the whole's unit, rounded so that parts which add up to the whole are shown adding up."""
    if not isinstance(quantities, (list, tuple)) or not quantities:
        raise KubenodeError('expected a list: the whole, then its parts', field='quantities', value=quantities)
    return human_row([(q.get('quantity') if isinstance(q, dict) else q) if q not in (None, '') else None
                      for q in quantities], resource)


def hugepage_size_name(size_bytes: Any) -> str:
    return cgmath.hugepage_unit(_int(size_bytes, 'size_bytes'), 'size_bytes')


def plan_exposures(plan: Any) -> list[str]:
    """What a plan leaves the node open to when pods take everything (_plan_summary.exposures)."""
    if not isinstance(plan, dict):
        raise KubenodeError('expected a plan (allocatable_info, or a node result\'s plan)', field='plan', value=plan)
    return exposures(plan)


def filters() -> dict[str, Callable[..., Any]]:
    """{name: filter}: every filter of the collection, as Ansible and the fleet report's Jinja2 take them."""
    return dict((f.__name__, _wrap(f)) for f in (
        quantity_to_int, quantity_to_milli, milli_cpu_to_shares, milli_cpu_to_quota, cpu_shares_to_weight,
        cpu_weight_to_shares, cgroup_to_systemd, systemd_to_cgroup, hugepage_size_name, quantity_to_human,
        quantities_to_human_row, plan_exposures))
