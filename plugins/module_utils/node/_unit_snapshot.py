# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a run's steps replace outside cgroupfs, read once before they are planned: the unit files, drop-ins and
boot-persistence files the run may write or remove, the resource overrides systemd holds for the slices, whether
the slices are active and whether the services to place are installed.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import snapshot_entry
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced


class UnitFile(object):
    """One path as it was read: whether something is there, the link it is (its target), and a file's text."""

    __slots__ = ('exists', 'link', 'text')

    def __init__(self, exists: bool, link: str | None, text: str | None) -> None:
        self.exists, self.link, self.text = exists, link, text


class UnitSnapshot(object):
    """The units side of a node, read once (read_units). A question about something not read is a bug in the
    reader and says so."""

    def __init__(self, files: Mapping[str, UnitFile], overrides: Mapping[str, list[tuple[str, str, str | None]]],
                 active: Mapping[str, bool], load_states: Mapping[str, str | None]) -> None:
        self._files, self._overrides, self._active, self._load_states = files, overrides, active, load_states

    def file(self, path: str) -> UnitFile:
        return snapshot_entry(self._files, path, 'unit')

    def overrides(self, unit: str) -> list[tuple[str, str, str | None]]:
        """[(path, setting, value)] of the resource overrides systemd holds for unit."""
        return snapshot_entry(self._overrides, unit, 'unit')

    def is_active(self, unit: str) -> bool:
        return snapshot_entry(self._active, unit, 'unit')

    def load_state(self, service: str) -> str | None:
        return self._load_states.get(service)


def read_file(path: str) -> UnitFile:
    link = os.readlink(path) if os.path.islink(path) else None
    return UnitFile(os.path.lexists(path), link, None if link is not None else fs.read_file(path))


@traced
def overrides_against(control_dirs: Sequence[str], unit: str, planned: Mapping[str, str]) -> list[list[Any]]:
    """[[path, setting, value]] of unit's overrides (systemd.read_overrides) that disagree with planned, the unit's
    properties as the plan sets them (systemd.disagrees): all a run that keeps the slice takes from them. Traced as
    that: kubelet writes the reserved slices it enforces over D-Bus at every start, with the plan's values, which
    leaves override files a receipt kept before its restart did not read (run/_receipt)."""
    return [[path, setting, value] for path, setting, value in systemd.read_overrides(control_dirs, unit)
            if systemd.disagrees(setting, value, planned)]


def read_units(systemctl: systemd.Systemctl | None, paths: Iterable[str], slices: Iterable[str], services: Iterable[str],
               control_dirs: Iterable[str], kept: Mapping[str, Mapping[str, str]] | None = None) -> UnitSnapshot:
    """A UnitSnapshot: the files at paths, systemctl is-active of each slice when systemctl is given (systemd is
    PID 1), the load state of the services (systemctl show), and the overrides of the slices: every override of each
    slice, or with kept ({slice: its planned properties}, for a run that keeps them) those of kept's slices that
    disagree with the plan (overrides_against)."""
    slices, control_dirs = list(slices), list(control_dirs)
    files = dict((path, read_file(path)) for path in paths)
    overrides: dict[str, list[Any]] = dict(
        (unit, systemd.read_overrides(control_dirs, unit)) for unit in slices) if kept is None else dict(
        (unit, overrides_against(control_dirs, unit, dict(planned))) for unit, planned in kept.items())
    active: dict[str, bool] = {}
    load_states: dict[str, str | None] = {}
    if systemctl is not None:
        for unit in slices:
            _rc, state, _err = systemctl('is-active', unit)
            active[unit] = state.strip() == 'active'
        if services:
            load_states = dict((unit, fields.get('LoadState'))
                               for unit, fields in systemd.show(systemctl, services, ['Id', 'LoadState']).items())
    return UnitSnapshot(files, overrides, active, load_states)
