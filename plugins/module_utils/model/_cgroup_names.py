# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubelet's cgroup names (CgroupName) and their cgroupfs and systemd forms.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Source: kubernetes pkg/kubelet/cm/cgroup_manager_linux.go, helpers_linux.go and
opencontainers/cgroups systemd.ExpandSlice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import posixpath
from typing import Any, Sequence

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError

SLICE_SUFFIX = '.slice'
NODE_ALLOCATABLE_CGROUP = 'kubepods'
DRIVERS = ('cgroupfs', 'systemd')
# The slices systemd itself makes: a cgroup under one of them is systemd's, not a cgroup the collection creates.
SHIPPED_SLICES = ('-.slice', 'system.slice', 'user.slice', 'machine.slice')


def systemd_owned(cgroup_path: str) -> bool:
    """A cgroup systemd manages as a unit of its own (system.slice, user.slice, machine.slice)."""
    return any(part in SHIPPED_SLICES for part in cgroup_path.strip('/').split('/'))


def new_cgroup_name(base: Sequence[str], *components: str) -> list[str]:
    """NewCgroupName: kubelet refuses "/" and "_" inside a component."""
    for component in components:
        if '/' in component or '_' in component:
            raise KubenodeError('invalid character in component of CgroupName', value=component)
    return list(base) + list(components)


def parse_cgroupfs(name: str) -> list[str]:
    """ParseCgroupfsToCgroupName("/a/b") == ["a", "b"]; "/" is the root []."""
    components = name[1:].split('/') if name.startswith('/') else name.split('/')
    if components == ['']:
        return []
    return components


def parse_systemd(name: str) -> list[str]:
    """ParseSystemdToCgroupName: ONLY the basename counts; "-" nests, "_" stands for "-"."""
    base = posixpath.basename(name.rstrip('/')) if name.rstrip('/') else '/'
    if base.endswith(SLICE_SUFFIX):
        base = base[:-len(SLICE_SUFFIX)]
    return [part.replace('_', '-') for part in base.split('-')]


def to_cgroupfs(parts: Sequence[str]) -> str:
    """CgroupName.ToCgroupfs: "/" + path.Join(parts...)."""
    joined = posixpath.join(*[p for p in parts if p]) if any(parts) else ''
    return '/' + posixpath.normpath(joined).lstrip('/') if joined else '/'


def expand_slice(slice_name: str, field: str | None = None) -> str:
    """systemd.ExpandSlice("a-b-c.slice") == "/a.slice/a-b.slice/a-b-c.slice"."""
    if len(slice_name) < len(SLICE_SUFFIX) or not slice_name.endswith(SLICE_SUFFIX) or '/' in slice_name:
        raise KubenodeError('invalid slice name', field=field, value=slice_name)
    stem = slice_name[:-len(SLICE_SUFFIX)]
    if stem == '-':
        return '/'
    path, prefix = '', ''
    for component in stem.split('-'):
        if component == '':
            raise KubenodeError('invalid slice name', field=field, value=slice_name)
        path += '/' + prefix + component + SLICE_SUFFIX
        prefix += component + '-'
    return path


def systemd_unit(parts: Sequence[str]) -> str:
    """The slice unit name for a CgroupName, e.g. kubepods-burstable.slice ("-.slice" for the root)."""
    if not parts or parts == ['']:
        return '-.slice'
    return '-'.join(part.replace('-', '_') for part in parts) + SLICE_SUFFIX


def to_systemd(parts: Sequence[str]) -> str:
    """CgroupName.ToSystemd."""
    if not parts or parts == ['']:
        return '/'
    return expand_slice(systemd_unit(parts))


def to_driver_path(parts: Sequence[str], driver: str) -> str:
    return to_systemd(parts) if driver == 'systemd' else to_cgroupfs(parts)


def node_allocatable_root(cgroup_root: str, cgroups_per_qos: bool | None) -> list[str]:
    """The kubepods CgroupName: cgroupRoot (cgroupfs form) plus "kubepods" with cgroupsPerQOS."""
    root = parse_cgroupfs(cgroup_root)
    if cgroups_per_qos:
        root = new_cgroup_name(root, NODE_ALLOCATABLE_CGROUP)
    return root


def describe(parts: Sequence[str], driver: str) -> dict[str, Any]:
    """Every form of one cgroup name that users and writers need."""
    systemd_path: str | None
    unit: str | None
    try:
        systemd_path, unit = to_systemd(parts), systemd_unit(parts)
    except KubenodeError:
        systemd_path = unit = None  # an empty component has no slice name (kubelet would panic)
    result = {
        'name': list(parts),
        'cgroupfs_path': to_cgroupfs(parts),
        'systemd_path': systemd_path,
        'systemd_unit': unit,
    }
    result['path'] = result['systemd_path'] if driver == 'systemd' else result['cgroupfs_path']
    return result


def check_reserved_cgroup(name: object, driver: str, field: str) -> list[str]:
    """Refuse a systemReservedCgroup/kubeReservedCgroup that kubelet would misread.

    Returns the CgroupName kubelet uses. Under the systemd driver kubelet keeps only the
    basename, which must be a slice whose name spells out its whole hierarchy.
    """
    if not isinstance(name, str) or not name.startswith('/'):
        raise KubenodeError('must be an absolute cgroup path such as "/system.slice"', field=field, value=name)
    parts = name.strip('/').split('/')
    if '..' in parts or '.' in parts or '' in parts[:-1]:
        raise KubenodeError('must not contain ".", ".." or empty components', field=field, value=name)
    if driver != 'systemd':
        return parse_cgroupfs(name.rstrip('/') or '/')
    base = posixpath.basename(name.rstrip('/'))
    parsed = parse_systemd(name)
    try:
        used = to_systemd(parsed)
    except KubenodeError:
        raise KubenodeError('is not a valid slice name for the systemd cgroup driver', field=field, value=name)
    if not base.endswith(SLICE_SUFFIX):
        raise KubenodeError('names a %s, not a slice: under the systemd cgroup driver kubelet keeps only the '
                            'basename and would look for the unit %s at %s, which does not exist '
                            '("Unit %s is not loaded", kubernetes#110288)'
                            % ('service' if base.endswith('.service') else 'cgroup that is not a slice',
                               systemd_unit(parsed), used, systemd_unit(parsed)),
                            field=field, value=name)
    if used != name.rstrip('/'):
        raise KubenodeError('under the systemd cgroup driver kubelet keeps only the basename %s and would use %s; '
                            'name the slice so that its basename encodes the parents (e.g. %s)'
                            % (base, used, used), field=field, value=name)
    return parsed


def checked_driver(driver: object) -> str:
    """kubelet's cgroupDriver: "cgroupfs" or "systemd"."""
    if driver not in DRIVERS:
        raise KubenodeError('must be "cgroupfs" or "systemd"', field='cgroup_driver', value=driver)
    return driver


def checked_cgroup_root(cgroup_root: str) -> str:
    """kubelet's cgroupRoot: an absolute cgroupfs path, no ".." in it ("" passes: none)."""
    if cgroup_root and (not cgroup_root.startswith('/') or '..' in cgroup_root.split('/')):
        raise KubenodeError('must be an absolute cgroupfs path such as "/"', field='cgroup_root', value=cgroup_root)
    return cgroup_root
