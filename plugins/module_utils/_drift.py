# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How a live node differs from its plan. Pure: takes what was read, returns a list of drifts.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubenode.cgroups.plugins.module_utils import _systemd_overrides as overrides
from ansible_collections.kubenode.cgroups.plugins.module_utils._cgroupfs import PAGE_SIZE

SHOWN_PROPERTIES = ('CPUWeight', 'CPUShares', 'MemoryMax', 'MemoryLimit', 'MemoryMin', 'MemorySwapMax', 'TasksMax')


def drift(item, check, live, planned):
    return {'item': item, 'check': check, 'live': live, 'planned': planned}


def cgroup_drift(plan, live_cgroups, v2):
    """kernel values against the plan; kubelet validates (and so we require) only the reserved cgroups."""
    found = []
    systemd_driver = plan['cgroup_driver'] == 'systemd'
    for key, planned in plan['cgroups'].items():
        live = live_cgroups.get(key) or {'exists': False}
        if not live['exists']:
            found.append(drift(key, 'exists', 'missing', planned['path']))
            continue
        if key.endswith('_reserved') and not live['kubelet_accepts']:
            found.append(drift(key, 'kubelet Validate', 'missing ' + ', '.join(live['missing']),
                               'every hierarchy and controller'))
        want, have = planned['resources'], live['resources']
        checks = [('cpu_weight', 'cpu.weight')] if v2 else [('cpu_shares', 'cpu.shares')]
        checks.append(('pids', 'pids.max'))
        for field, label in checks:
            if field in want and have.get(field, 'absent') != want[field]:
                found.append(drift(key, label, have.get(field, 'absent'), want[field]))
        if want.get('memory', 0) > 0 and have.get('memory', 'absent') != want['memory'] // PAGE_SIZE * PAGE_SIZE:
            found.append(drift(key, 'memory limit', have.get('memory', 'absent'), want['memory']))
        # Under systemd, kubelet writes hugetlb on kubepods and the QoS tiers itself when it starts;
        # nothing but node_cgroups writes it on the reserved slices (systemd has no hugetlb property).
        if not systemd_driver or key.endswith('_reserved'):
            for unit, limit in sorted((want.get('hugetlb') or {}).items()):
                value = (have.get('hugetlb') or {}).get(unit, 'absent')
                if value != limit:
                    found.append(drift(key, 'hugetlb ' + unit, value, limit))
    return found


def parse_systemctl_show(text):
    """systemctl show of several units: {Id: {property: value}}."""
    units = {}
    for block in text.split('\n\n'):
        fields = dict(line.split('=', 1) for line in block.strip().splitlines() if '=' in line)
        if 'Id' in fields:
            units[fields['Id']] = fields
    return units


def service_name(service):
    return service if '.' in service else service + '.service'


def systemd_drift(plan, units, v2, services):
    """Slices active with the planned properties; the services running in the kube-reserved slice."""
    found = []
    for key, planned in plan['cgroups'].items():
        unit = units.get(planned['systemd_unit'], {})
        if unit.get('ActiveState') != 'active':
            found.append(drift(planned['systemd_unit'], 'slice state', unit.get('ActiveState', 'unknown'), 'active'))
        for name, value in sorted(planned['systemd_properties']['v2' if v2 else 'v1'].items()):
            if unit.get(name, 'absent') != value:
                found.append(drift(planned['systemd_unit'], name, unit.get(name, 'absent'), value))
    reserved = plan['cgroups'].get('kube_reserved')
    if reserved:
        for service in (service_name(s) for s in services):
            unit = units.get(service, {})
            if unit.get('LoadState') == 'loaded' and not unit.get('ControlGroup', '').startswith(
                    reserved['systemd_path'] + '/'):
                found.append(drift(service, 'runs in', unit.get('ControlGroup') or 'not running',
                                   reserved['systemd_path']))
    return found


def override_drift(plan, found_overrides, v2):
    """Property overrides (systemctl set-property, kubelet's D-Bus calls) that the plan does not hold.

    found_overrides: {unit: [(path, setting, value)]} as _systemd_overrides.read_overrides returns them.
    """
    found = []
    for key, planned in sorted(plan['cgroups'].items()):
        properties = planned['systemd_properties']['v2' if v2 else 'v1']
        for path, setting, value in found_overrides.get(planned['systemd_unit'], []):
            if overrides.disagrees(setting, value, properties):
                found.append(drift(planned['systemd_unit'], 'override ' + path, '%s=%s' % (setting, value),
                                   properties.get(overrides.RESOURCE_SETTINGS[setting], 'not set')))
    return found


def driver_drift(plan, drivers):
    if not drivers.get('mismatch'):
        return []
    seen = ', '.join('%s=%s' % (s, drivers[s]['value']) for s in ('kubelet', 'containerd', 'crio') if drivers.get(s))
    return [drift('cgroup driver', 'kubelet and runtime agree', seen, plan['cgroup_driver'])]
