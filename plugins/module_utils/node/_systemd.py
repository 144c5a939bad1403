# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""systemd as the collection talks to it: systemctl, `systemctl show`, slice units and drop-ins, and the
property overrides `systemctl set-property` (and kubelet, through D-Bus) leave on slices.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

runner() is how the modules call systemctl (community.general's systemd_runner is the model: the module's
run_command with a list); cgroup_info and _kubelet_discovery take the function it returns. parse_show() reads
several units' properties; _kubelet_discovery.parse_unit() reads the one kubelet unit whose ExecStart= argv and
repeated EnvironmentFiles= lines a {property: value} map cannot keep. Everything else but read_overrides() is pure. systemd writes one drop-in per
property, 50-<Setting>.conf, under /run/systemd/system.control/<unit>.d (runtime) or
/etc/systemd/system.control/<unit>.d, and they beat the unit file. kubelet sets the same values as the plan on
kubepods and the QoS slices, so an override that agrees with the plan is left alone.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_names import SHIPPED_SLICES
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError

# Slices systemd ships: a drop-in is added to them instead of a unit of our own, and they are never stopped.
SLICE_DROPIN_NAME = '50-kubenode-cgroups.conf'
SERVICE_DROPIN_NAME = '50-kubenode-slice.conf'
_OVERRIDE_RE = re.compile(r'^50-(%s)\.conf$' % '|'.join(sorted(cgfiles.PROPERTY_BY_SETTING)))

# systemctl(*args) -> (rc, stdout, stderr), through the module's run_command (runner).
Systemctl = Callable[..., Any]
# AnsibleModule.run_command(argv) -> (rc, stdout, stderr), handed in so that the module stays the only one shelling
# out (or a test's stand-in).
RunCommand = Callable[..., Any]


def runner(module: Any) -> Systemctl:
    """systemctl(*args) -> (rc, stdout, stderr) through the module's run_command."""
    def systemctl(*args: str) -> Any:
        return module.run_command([module.get_bin_path('systemctl', required=True)] + list(args))
    return systemctl


def checked(systemctl: Systemctl, *args: str) -> str:
    """systemctl that must succeed; its error names the command."""
    rc, out, err = systemctl(*args)
    if rc != 0:
        raise HostError('systemctl %s failed: %s' % (' '.join(args), (err or out).strip()),
                        operation='systemctl ' + args[0] if args else 'systemctl', path=args[-1] if len(args) > 1 else None)
    return out


def parse_show(text: str) -> dict[str, dict[str, str]]:
    """`systemctl show` of several units: {Id: {property: value}}."""
    units = {}
    for block in text.split('\n\n'):
        fields = dict(line.split('=', 1) for line in block.strip().splitlines() if '=' in line)
        if 'Id' in fields:
            units[fields['Id']] = fields
    return units


def show(systemctl: Systemctl, units: Iterable[str], properties: Iterable[str]) -> dict[str, dict[str, str]]:
    """{unit: {property: value}} of `systemctl show --property=...`; {} when systemctl fails."""
    rc, out, _err = systemctl('show', '--property=' + ','.join(properties), *units)
    return parse_show(out) if rc == 0 else {}


def service_name(service: str) -> str:
    """A unit name: "kubelet" is kubelet.service."""
    return service if '.' in service else service + '.service'


def is_shipped(unit: str | None) -> bool:
    return unit in SHIPPED_SLICES


def slice_unit_path(unit_dir: str, unit: str) -> str:
    """Where a planned slice's unit goes: a drop-in for a slice systemd ships, else a unit file of its own."""
    if is_shipped(unit):
        return os.path.join(unit_dir, unit + '.d', SLICE_DROPIN_NAME)
    return os.path.join(unit_dir, unit)


def service_dropin_path(unit_dir: str, service: str) -> str:
    return os.path.join(unit_dir, service + '.d', SERVICE_DROPIN_NAME)


def render_slice(key: str, entry: Any, properties: Mapping[str, str]) -> str:
    """The slice unit (or drop-in) for a PlannedCgroup."""
    lines = ['# Managed by kubenode.cgroups (%s). Local changes are overwritten.' % key]
    if not is_shipped(entry.systemd_unit):
        lines += ['[Unit]', 'Description=kubenode %s cgroup (%s)' % (key.replace('_', '-'), entry.systemd_path),
                  'Before=slices.target', '']
    lines.append('[Slice]')
    lines += ['%s=%s' % (name, properties[name]) for name in sorted(properties)]
    return '\n'.join(lines) + '\n'


def render_service_dropin(service: str, slice_unit: str) -> str:
    return '# Managed by kubenode.cgroups: run %s in the kube-reserved slice.\n[Service]\nSlice=%s\n' % (
        service, slice_unit)


# Overrides ------------------------------------------------------------------------------------------------

def override_setting(file_name: str) -> str | None:
    """The resource setting a set-property drop-in holds, or None for any other file."""
    match = _OVERRIDE_RE.match(file_name)
    return match.group(1) if match else None


def read_overrides(control_dirs: Iterable[str], unit: str) -> list[tuple[str, str, str | None]]:
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
                    found.append((path, setting, last_assignment(handle.read(), setting)))
    return found


def last_assignment(text: str, setting: str) -> str | None:
    """The value of the last assignment of setting in a drop-in (later lines win, as in systemd)."""
    value = None
    for line in text.splitlines():
        name, sep, rest = line.strip().partition('=')
        if sep and name.rstrip() == setting:  # systemd reads "Key = value" as "Key=value"
            value = rest.strip()
    return value


def setting_in_property_units(setting: str, value: str | None) -> str | None:
    """A unit-file setting's value in the units `systemctl show` (and the plan) use: usec, bytes, CPU lists."""
    if value is None or value in ('infinity', ''):
        return value
    row = cgfiles.ROW_BY_SETTING.get(setting)
    return row.setting_units(value) if row else value


def disagrees(setting: str, value: str | None, planned: Mapping[str, str]) -> bool:
    """True when an override of setting to value is not what the plan's properties want for the unit."""
    wanted = planned.get(cgfiles.PROPERTY_BY_SETTING[setting] or '')
    if wanted is None:
        return True  # the plan leaves it at systemd's default; the override holds an old plan
    if setting == cgfiles.CPUSET_CPUS.setting:
        wanted = setting_in_property_units(setting, wanted)
    return setting_in_property_units(setting, value) != wanted
