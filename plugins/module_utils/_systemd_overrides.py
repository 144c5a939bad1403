# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property overrides that `systemctl set-property` (and kubelet, through D-Bus) leave on slices.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

read_overrides() lists them; the rest is pure and decides which disagree with the plan. systemd writes
one drop-in per property, 50-<Setting>.conf, under /run/systemd/system.control/<unit>.d (runtime)
or /etc/systemd/system.control/<unit>.d, and they beat the unit file. kubelet sets the same values as
the plan on kubepods and the QoS slices, so an override that agrees with the plan is left alone.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

# Unit-file setting (the drop-in's name) -> the property name the plan and `systemctl show` use.
RESOURCE_SETTINGS = {
    'CPUWeight': 'CPUWeight', 'CPUShares': 'CPUShares', 'CPUQuota': 'CPUQuotaPerSecUSec',
    'CPUQuotaPeriodSec': 'CPUQuotaPeriodUSec', 'MemoryMax': 'MemoryMax', 'MemoryLimit': 'MemoryLimit',
    'MemoryMin': 'MemoryMin', 'MemoryLow': 'MemoryLow', 'MemorySwapMax': 'MemorySwapMax', 'TasksMax': 'TasksMax',
    'AllowedCPUs': 'AllowedCPUs',
}
_FILE_RE = re.compile(r'^50-(%s)\.conf$' % '|'.join(RESOURCE_SETTINGS))
_TIME_UNITS = {'us': 1, 'ms': 1000, 's': 1000000}


def override_setting(file_name):
    """The resource setting a set-property drop-in holds, or None for any other file."""
    match = _FILE_RE.match(file_name)
    return match.group(1) if match else None


def read_overrides(control_dirs, unit):
    """[(path, setting, value)] of the resource overrides systemd holds for unit, in control_dirs."""
    found = []
    for control_dir in control_dirs:
        directory = os.path.join(control_dir, unit + '.d')
        if not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            setting = override_setting(name)
            if setting:
                path = os.path.join(directory, name)
                with open(path) as handle:
                    found.append((path, setting, parse_value(handle.read(), setting)))
    return found


def parse_value(text, setting):
    """The last assignment of setting in a drop-in (later lines win, as in systemd)."""
    value = None
    for line in text.splitlines():
        name, sep, rest = line.strip().partition('=')
        if sep and name == setting:
            value = rest.strip()
    return value


def _normalize(setting, value):
    if value is None:
        return None
    if value in ('infinity', ''):
        return value
    if setting == 'CPUQuota' and value.endswith('%'):
        return str(int(round(float(value[:-1]) * 10000)))  # percent of one CPU -> usec per second
    if setting == 'CPUQuotaPeriodSec':
        match = re.match(r'^([0-9]+)(us|ms|s)?$', value)
        return str(int(match.group(1)) * _TIME_UNITS[match.group(2) or 's']) if match else value
    if setting == 'AllowedCPUs':
        return ','.join(str(cpu) for cpu in _expand(value))
    return value


def _expand(cpus):
    result = []
    for part in [p for p in re.split(r'[,\s]+', cpus) if p]:
        bounds = part.split('-')
        result.extend(range(int(bounds[0]), int(bounds[-1]) + 1))
    return sorted(set(result))


def disagrees(setting, value, planned_properties):
    """True when an override of setting to value is not what the plan wants for the unit."""
    planned = planned_properties.get(RESOURCE_SETTINGS[setting])
    if planned is None:
        return True  # the plan leaves it at systemd's default; the override holds an old plan
    if setting == 'AllowedCPUs':
        planned = _normalize(setting, planned)
    return _normalize(setting, value) != planned  # the plan holds systemd's own units (usec, bytes)
