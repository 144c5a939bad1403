# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The steps a node needs, as records, and the one loop that performs them against a host.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

A step is a record of one change: what it says it does (describe), the drift it mends (item, check, live, planned,
as node_drift_info reports it), its diff, how it is applied to a host (apply: the host's answer, None when it
wrote nothing) and what it says once applied (done). Steps are planned without
writing anything (_node_steps); perform() runs them in order against a node/_hosts host: LiveHost writes,
DryHost only lets them be recorded. The cgroupfs operations of _node_cgroups are steps of the same shape.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_config_file import diff as kubelet_config_diff
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import show


class Change(Protocol):
    """A step that changes the node: what it is called, how it shows as drift and as a diff, and applying it to a
    host, which answers what it did (None: nothing, as a dry host answers)."""

    @property
    def item(self) -> str:
        ...

    def describe(self) -> str:
        ...

    def drift(self) -> tuple[str, Any, Any]:
        ...

    def diff(self) -> dict[str, Any] | None:
        ...

    def apply(self, host: DryHost) -> Any:
        ...

    def done(self) -> str:
        ...


def drift(item: str, check: str, live: Any, planned: Any) -> dict[str, Any]:
    """One way the node differs from its plan, as node_drift_info reports it."""
    return {'item': item, 'check': check, 'live': live, 'planned': planned}


def file_diff(path: str, before: str, after: str) -> dict[str, Any]:
    return {'before_header': path, 'after_header': path, 'before': before, 'after': after}


class WriteFile(object):
    """Replace a whole file (a unit, a drop-in, the boot script) atomically with what the plan wants."""

    __slots__ = ('path', 'content', 'mode', 'item', 'before')

    def __init__(self, path: str, content: str, mode: int | None, item: str, before: str | None) -> None:
        self.path, self.content, self.mode, self.item, self.before = path, content, mode, item, before

    def describe(self) -> str:
        return ('update %s' if self.before is not None else 'create %s') % self.path

    def drift(self) -> tuple[str, Any, Any]:
        return self.path, 'differs' if self.before is not None else 'missing', 'as planned'

    def diff(self) -> dict[str, Any] | None:
        return file_diff(self.path, (self.before + '\n') if self.before else '', self.content)

    def apply(self, host: DryHost) -> Any:
        return host.replace_file(self.path, self.content, self.mode)

    def done(self) -> str:
        return 'wrote %s' % self.path


class RemoveFile(object):
    """Remove a file (or link) the plan does not want; a file's content is its diff."""

    __slots__ = ('path', 'item', 'before', 'is_link', 'reason', 'check')

    def __init__(self, path: str, item: str, before: str | None, is_link: bool = False, reason: str | None = None,
                 check: str | None = None) -> None:
        self.path, self.item, self.before, self.is_link = path, item, before, is_link
        self.reason, self.check = reason, check

    def describe(self) -> str:
        return 'remove %s%s' % (self.path, ' (%s)' % self.reason if self.reason else '')

    def drift(self) -> tuple[str, Any, Any]:
        return self.check or self.path, self.before or 'present', 'absent'

    def diff(self) -> dict[str, Any] | None:
        return None if self.is_link else file_diff(self.path, (self.before or '') + '\n', '')

    def apply(self, host: DryHost) -> Any:
        return host.remove(self.path)

    def done(self) -> str:
        return 'removed %s' % self.path


class MakeLink(object):
    """Enable a unit: the symlink systemd's [Install] would make."""

    __slots__ = ('target', 'path', 'item', 'unit', 'before')

    def __init__(self, target: str, path: str, item: str, unit: str, before: str | None) -> None:
        self.target, self.path, self.item, self.unit, self.before = target, path, item, unit, before

    def describe(self) -> str:
        return 'enable %s (link %s)' % (self.unit, self.path)

    def drift(self) -> tuple[str, Any, Any]:
        return self.path, self.before or 'missing', self.target

    def diff(self) -> dict[str, Any] | None:
        return None

    def apply(self, host: DryHost) -> Any:
        return host.link(self.target, self.path)

    def done(self) -> str:
        return 'linked %s' % self.path


class DriverOrigin(object):
    """Where the cgroup driver came from, to blame a failed driver step on the right field: cgroup_driver when the
    operator named the driver (source None), else the node, saying where the driver was detected."""

    __slots__ = ('driver', 'source')

    def __init__(self, driver: str, source: str | None) -> None:
        self.driver, self.source = driver, source

    def error(self, message: str) -> KubenodeError:
        if self.source is None:
            return KubenodeError(message, field='cgroup_driver', value=self.driver)
        return KubenodeError('%s (the %s cgroup driver was detected from %s, as cgroup_driver is not set; set it to '
                             'plan for another driver)' % (message, self.driver, self.source), field='node',
                             value=self.driver)

    def blame(self, refusal: HostError) -> HostError:
        """A HostError of a driver step (systemctl) said with the driver's origin, as error() says it: the host
        refused, and the driver it was asked for may be why."""
        return HostError(str(self.error(str(refusal))), operation=refusal.operation, path=refusal.path)


class Systemctl(object):
    """A systemctl call that changes the node (daemon-reload, start, stop, restart)."""

    __slots__ = ('args', 'origin')

    def __init__(self, origin: DriverOrigin, *args: str) -> None:
        self.args, self.origin = args, origin

    @property
    def item(self) -> str:
        return self.args[-1] if len(self.args) > 1 else 'systemd'

    def describe(self) -> str:
        return 'systemctl %s' % ' '.join(self.args)

    def drift(self) -> tuple[str, Any, Any]:
        return 'systemctl %s' % self.args[0], 'needed', 'done'

    def diff(self) -> dict[str, Any] | None:
        return None

    def apply(self, host: DryHost) -> Any:
        try:
            return host.systemctl_change(*self.args)
        except HostError as refusal:
            raise self.origin.blame(refusal)

    def done(self) -> str:
        return self.describe()


class WriteKubeletConfig(object):
    """Write the planned kubelet configuration (a prepared _kubelet_config_file change), with a backup if asked."""

    __slots__ = ('change', 'backup')

    item = 'kubelet config'

    def __init__(self, change: dict[str, Any], backup: bool) -> None:
        self.change, self.backup = change, backup

    def describe(self) -> str:
        return 'write %s' % self.change['path']

    def drift(self) -> tuple[str, Any, Any]:
        """(the file, its values now, the values planned): each key the write changes on both sides."""
        change = self.change
        values = change.get('values') or []
        if change['before'] is None:
            return change['path'], 'missing', '; '.join('%s: %s' % (key, after) for key, _before, after in values) or 'written'
        if not values:
            return change['path'], 'differs', 'the planned keys'
        return (change['path'], '; '.join('%s: %s' % (key, before) for key, before, _after in values),
                '; '.join('%s: %s' % (key, after) for key, _before, after in values))

    def diff(self) -> dict[str, Any] | None:
        return kubelet_config_diff(self.change)

    def apply(self, host: DryHost) -> Any:
        return host.write_kubelet_config(self.change, self.backup)

    def done(self) -> str:
        return 'wrote %s' % self.change['path']


class ConfirmProperties(object):
    """Not a change but a check among the steps: systemd must show the planned values once a slice's unit and
    overrides hold them. When it does not, something beyond them overrides the plan (another drop-in): named,
    not papered over. A slice this run rewrote is checked only after systemd has reloaded it."""

    __slots__ = ('unit', 'planned', 'after_reload', 'origin')

    def __init__(self, unit: str, planned: Mapping[str, str], after_reload: bool, origin: DriverOrigin) -> None:
        self.unit, self.planned, self.after_reload, self.origin = unit, planned, after_reload, origin

    def confirm(self, host: DryHost, record: Record) -> None:
        if self.after_reload and not host.reloaded:
            return
        live = show(host.systemctl, [self.unit], ['Id'] + sorted(self.planned)).get(self.unit)
        if live is None:
            raise self.origin.error('systemctl show %s failed' % self.unit)
        differing = [name for name in sorted(self.planned) if live.get(name) != self.planned[name]]
        if not differing:
            return
        message = ('%s: systemd shows %s although the unit file and overrides hold the plan; another drop-in '
                   'overrides them (see "systemctl cat %s")'
                   % (self.unit, ', '.join('%s=%s (plan: %s)' % (n, live.get(n), self.planned[n]) for n in differing),
                      self.unit))
        # No step mends it: the audit names it as what cannot be an operation.
        host.unexpected(self.origin.error(message), record,
                        [drift(self.unit, name, live.get(name, 'absent'), self.planned[name]) for name in differing])


class Record(object):
    """What a run did (or, dry, would do): the change lines node_cgroups returns, a drift entry per change and what
    no change can mend (found), the diffs, what was applied (the honest partial result), the warnings, and what a
    step's host answered (outcomes)."""

    def __init__(self, warnings: Iterable[str] = ()) -> None:
        self.changes: list[str] = []
        self.found: list[dict[str, Any]] = []
        self.diffs: list[dict[str, Any]] = []
        self.applied: list[str] = []
        self.warnings = list(warnings)
        self.outcomes: dict[Change, Any] = {}

    def step(self, step: Change) -> None:
        self.changes.append(step.describe())
        self.found.append(drift(step.item, *step.drift()))
        diff = step.diff()
        if diff is not None:
            self.diffs.append(diff)


def perform(steps: Iterable[Change | ConfirmProperties], host: DryHost, record: Record) -> bool:
    """Run the steps in order against host, recording each before it is applied (so that a failing step is the
    last change recorded, and what was applied before it is known). True when the host applied any."""
    acted = False
    for step in steps:
        if isinstance(step, ConfirmProperties):
            step.confirm(host, record)
            continue
        # An operation on a cgroup file the kernel may lack (Operation.skipped_when_gone) is skipped where it is gone.
        gone_path = getattr(step, 'path', None) if getattr(step, 'skipped_when_gone', False) else None
        if gone_path is not None and host.gone(gone_path):
            continue
        record.step(step)
        answer = step.apply(host)
        if answer:
            acted = True
            record.applied.append(step.done())
            record.outcomes[step] = answer
    return acted
