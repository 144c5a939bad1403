# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hosts a run's steps are performed against: the live node, or a dry one that writes nothing.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Both hosts read the real node (systemctl queries, files); only LiveHost writes. run/_steps.perform() is the one
loop over the steps, and what differs between a run that writes and one that only says what it would do (check
mode, the audit) is which host it is given: there is no dry-run flag in the steps.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import errno
import os
from collections.abc import Callable
from typing import Any, Protocol

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import replace_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._generations import Generation
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_module import NodeModule


class StepRecord(Protocol):
    """What a step's record gives a dry host to note what the live node would refuse (run/_steps' record)."""

    warnings: list[str]
    found: list[Any]


def _os(function: Callable[[str], object], path: str) -> None:
    try:
        function(path)
    except OSError as error:
        raise fs.CgroupWriteError('%s %s failed: %s' % (function.__name__, path, os.strerror(error.errno or errno.EIO)),
                                  path=path, operation=function.__name__)


class DryHost(object):
    """A host that is read, never written: every write answers None (nothing was applied; a live write answers what it did), and what the live node
    would refuse is reported instead (unexpected). check mode and the audit run their steps against it."""

    def __init__(self, systemctl: systemd.Systemctl) -> None:
        self.systemctl = systemctl
        self.reloaded = False  # systemd never reloads what a dry run wrote, for it wrote nothing
        # The kernel's values before the run's first write, {path: value}: what the way back restores (KeepingHost).
        self.originals: dict[str, str | None] = {}

    def gone(self, path: str) -> bool:
        """Whether a path a step acts on has gone since it was planned (never, on a host nothing changes)."""
        return False

    def unexpected(self, error: Exception, record: StepRecord, drift: list[Any]) -> None:
        """What the live node would refuse, recorded as a warning and drift: a dry run goes on to say the rest."""
        record.warnings.append(str(error))
        record.found.extend(drift)

    def mkdir(self, path: str) -> bool | None:
        return None

    def rmdir(self, path: str) -> bool | None:
        return None

    def write_cgroup(self, path: str, value: str) -> bool | None:
        return None

    def copy_cgroup(self, source: str, path: str) -> bool | None:
        return None

    def replace_file(self, path: str, content: str, mode: int | None) -> bool | None:
        return None

    def remove(self, path: str) -> bool | None:
        return None

    def link(self, target: str, path: str) -> bool | None:
        return None

    def systemctl_change(self, *args: str) -> bool | None:
        return None

    def write_kubelet_config(self, change: dict[str, Any], backup: bool) -> dict[str, Any] | None:
        return None


class LiveHost(DryHost):
    """The node itself, written through the module (atomic file replacement, systemctl through run_command). Each
    write answers what it applied, for the run's honest account of what was done before a failure."""

    def __init__(self, module: NodeModule) -> None:
        super(LiveHost, self).__init__(systemd.runner(module))
        self.module = module

    def gone(self, path: str) -> bool:
        # systemd removes a stopped slice's cgroups, and a kernel may lack an optional file (hugetlb reservations
        # before 5.7, swap.max without swap accounting): a step for what is not there is skipped.
        return not os.path.lexists(path)

    def unexpected(self, error: Exception, record: StepRecord, drift: list[Any]) -> None:
        raise error

    def mkdir(self, path: str) -> bool | None:
        _os(os.mkdir, path)
        return True

    def rmdir(self, path: str) -> bool | None:
        _os(os.rmdir, path)
        return True

    def write_cgroup(self, path: str, value: str) -> bool | None:
        fs.write_file(path, value)
        return True

    def copy_cgroup(self, source: str, path: str) -> bool | None:
        # The parent's value as it is now: a parent made by this run was filled just before.
        fs.write_file(path, fs.read_file(source) or '')
        return True

    def replace_file(self, path: str, content: str, mode: int | None) -> bool | None:
        with self.module.raising_failures():
            replace_file(self.module, path, content, mode)
        return True

    def remove(self, path: str) -> bool | None:
        _os(os.remove, path)
        return True

    def link(self, target: str, path: str) -> bool | None:
        directory = os.path.dirname(path)
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)
        return True

    def systemctl_change(self, *args: str) -> bool | None:
        systemd.checked(self.systemctl, *args)
        if args[0] == 'daemon-reload':
            self.reloaded = True
        return True

    def write_kubelet_config(self, change: dict[str, Any], backup: bool) -> dict[str, Any] | None:
        with self.module.raising_failures():
            return {'backup_file': kc_file.write(self.module, change, backup)}


def host_for(module: NodeModule) -> DryHost:
    """The host a module's run is performed against: the live node, or in check mode a dry one."""
    return DryHost(systemd.runner(module)) if module.check_mode else KeepingHost(module)


class KeepingHost(LiveHost):
    """The live node, with the way back: before each write, what it replaces is kept in the run's generation
    (node/_generations), which is opened (and its revert armed) before the first write. originals: the kernel's
    values as read before the first write, {path: value}, for a value that a reload has moved since."""

    def __init__(self, module: NodeModule, generation: Generation | None = None) -> None:
        super(KeepingHost, self).__init__(module)
        self.generation = generation  # set once the node is read (run/_node_run.keep_generation)

    def write_cgroup(self, path: str, value: str) -> bool | None:
        if self.generation:
            self.generation.keep_value(path, self.originals.get(path))
        return super(KeepingHost, self).write_cgroup(path, value)

    def replace_file(self, path: str, content: str, mode: int | None) -> bool | None:
        if self.generation:
            self.generation.keep_file(path)
        return super(KeepingHost, self).replace_file(path, content, mode)

    def remove(self, path: str) -> bool | None:
        if self.generation:
            self.generation.keep_file(path)
        return super(KeepingHost, self).remove(path)

    def link(self, target: str, path: str) -> bool | None:
        if self.generation:
            self.generation.keep_file(path)
        return super(KeepingHost, self).link(target, path)

    def write_kubelet_config(self, change: dict[str, Any], backup: bool) -> dict[str, Any] | None:
        if self.generation:
            self.generation.keep_file(change['path'])
        return super(KeepingHost, self).write_kubelet_config(change, backup)
