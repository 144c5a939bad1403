# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the node_allocatable role shows of a run that changed a node ("Show the plan"): node_cgroups' result in
ten lines for people, written on the controller by role_node_cgroups.

PRIVATE plugin_utils: internal to kubenode.cgroups, may change without notice.

Python rather than a Jinja template in the role's debug task: the template cost every host a compile and a render
of a dozen filters (docs/performance.md, "Where the time goes").
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import human_quantity, human_row

# The columns of the report's resource table (report.md.j2), in its order.
COLUMNS = ('capacity', 'system', 'kube', 'eviction', 'hugepages', 'allocatable')


def human_quantities(quantities: Mapping[str, Any] | None) -> str:
    """A plan's {resource: {quantity, value}} as "cpu 2 cores, memory 23.5 GiB" ('' for none), each alone."""
    return ', '.join('%s %s' % (name, human_quantity(_quantity(entry), name)) for name, entry in (quantities or {}).items())


def _quantity(entry: Any) -> Any:
    return entry.get('quantity') if isinstance(entry, dict) else entry


def report_row(plan: Mapping[str, Any], name: str) -> list[Any]:
    """One row of the fleet report's resource table for resource name, its cells in COLUMNS' order: the plan's
    entries ({quantity, value}), the hugepages' bytes as text on the memory row, None where a cell is empty."""
    capacity = plan.get('capacity') or {}
    reserved = plan.get('reserved') or {}
    hugepages = sum(entry.get('value') or 0 for key, entry in capacity.items()
                    if key.startswith('hugepages-') and isinstance(entry, dict))
    # pid is no resource of the Node's status: its capacity is the node's tasks, and what pods keep is kubepods'
    # pids.max (the absolute allocatable).
    return [capacity.get(name) or (plan.get('internal_capacity') or {}).get(name),
            (reserved.get('system') or {}).get(name), (reserved.get('kube') or {}).get(name),
            ((plan.get('eviction') or {}).get('reservation') or {}).get(name),
            str(hugepages) if name == 'memory' and hugepages else None,
            (plan.get('allocatable') or {}).get(name) or (plan.get('allocatable_absolute') or {}).get(name)]


def report_resources(plan: Mapping[str, Any]) -> list[str]:
    """The fleet report's table rows: the Node's resources, then pid where the plan reserves any (1000 PIDs by the
    role's default, make protection): a reservation the table left out was one an operator could not see."""
    names = list(plan.get('capacity') or {})
    reserved = plan.get('reserved') or {}
    if 'pid' not in names and 'pid' in (plan.get('internal_capacity') or {}) and any(
            'pid' in (reserved.get(scope) or {}) for scope in ('system', 'kube')):
        names.append('pid')
    return names


def table_figures(plan: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """{resource: {column: figure}}: each resource's row as the fleet report's table shows it (human_row rounds a
    row's parts so that they add up to its capacity), so that these lines and the report never disagree."""
    figures: dict[str, dict[str, str]] = {}
    for name in plan.get('capacity') or {}:
        row = report_row(plan, name)
        shown = human_row([None if q in (None, '') else _quantity(q) for q in row], name)
        figures[name] = dict((column, text) for column, text, q in zip(COLUMNS, shown, row) if q not in (None, ''))
    return figures


def human(figures: Mapping[str, Mapping[str, str]], column: str) -> str:
    """One column of table_figures as "cpu 2 cores, memory 23.5 GiB" ('' for none)."""
    return ', '.join('%s %s' % (name, row[column]) for name, row in figures.items() if column in row)


def reserved_text(figures: Mapping[str, Mapping[str, str]], reserved: Mapping[str, Any], scope: str) -> str:
    """One side's reservation for the summary: the table's figures, then what the node's capacity does not list
    (pid: kubelet never publishes it) as planned ("pid 1k"); 'none' for nothing."""
    shown = [human(figures, scope)] if human(figures, scope) else []
    shown += ['%s %s' % (name, _quantity(entry)) for name, entry in (reserved.get(scope) or {}).items()
              if name not in figures]
    return ', '.join(shown) or 'none'


def exposures(plan: Mapping[str, Any]) -> list[str]:
    """What a plan leaves the node open to when pods take everything (make protection measured each, issue 76:
    docs/protection.md), as sentences naming the role variable that closes it; [] for none. The system's share of a
    resource is what kubelet keeps out of kubepods: systemReserved plus kubeReserved, with pods enforced."""
    reserved = plan.get('reserved') or {}
    enforced = plan.get('enforce_node_allocatable') or []
    if 'pods' not in enforced:
        return ['pods is not in enforceNodeAllocatable: kubepods has no limit, and pods can take every byte and PID '
                'of the node (node_allocatable_enforce_node_allocatable)']
    found = []

    def kept(resource: str) -> bool:
        return any(((reserved.get(scope) or {}).get(resource) or {}).get('value') for scope in ('system', 'kube'))

    if not kept('pid'):
        found.append('no PID reservation: pods can take every PID of the node, and sshd, journald and kubelet then '
                     'cannot fork (node_allocatable_pid_reserved)')
    if not kept('memory'):
        found.append('no memory reservation: kubepods may take the whole memory, and the kernel then reclaims and '
                     'kills outside it (node_allocatable_profile, node_allocatable_kube_reserved)')
    return found


def plan_summary(host: str, result: Mapping[str, Any], check_mode: bool) -> list[str]:
    """The lines "Show the plan" prints for one node: node_cgroups' result (its plan, kubelet_config, changes and
    impact) as the role's operator reads it."""
    plan = result.get('plan') or {}
    reserved = plan.get('reserved') or {}
    eviction = plan.get('eviction') or {}
    config = result.get('kubelet_config') or {}
    changes = result.get('changes') or []
    impact = result.get('impact') or {}
    kept = eviction.get('defaults_kept') or []
    figures = table_figures(plan)
    if impact.get('effects'):
        pods = '; '.join(impact['effects'])
    elif impact.get('pods'):
        pods = 'none hurt, of %s from %s' % (impact['pods']['count'], impact['pods']['source'])
    else:
        pods = impact.get('pods_unknown') or 'not judged'
    return [
        '%s: cgroup %s, %s driver, kubelet %s%s' % (host, result.get('cgroup_mode'), result.get('driver'),
                                                    plan.get('kubelet_version'),
                                                    ' (check mode: nothing written)' if check_mode else ''),
        'kubelet release: %s (%s)' % (plan.get('kubelet_version'),
                                      plan.get('kubelet_version_source') or 'set by the operator'),
        'capacity:      %s' % human(figures, 'capacity'),
        'reserved:      system %s; kube %s; eviction %s' % (
            reserved_text(figures, reserved, 'system'), reserved_text(figures, reserved, 'kube'),
            ', '.join('%s<%s' % item for item in (eviction.get('hard') or {}).items()) or 'none'),
        'allocatable:   %s' % human(figures, 'allocatable'),
        'eviction:      %s%s' % (eviction.get('source') or '',
                                 '; kubelet defaults kept for ' + ', '.join(kept) if kept else ''),
        'kubelet config: %s%s' % (config.get('path') or 'not managed',
                                  ' (%s)' % config['choice']['reason'] if config.get('choice') else ''),
        'replaces:      %s' % ('; '.join(config.get('replaced') or []) or 'nothing the file held'),
        'operations:    %d (%s%s)' % (len(changes), changes[0] if changes else 'none', ', ...' if len(changes) > 1 else ''),
        'running pods:  %s' % pods,
    ] + ['exposed:       %s' % exposure for exposure in exposures(plan)]
