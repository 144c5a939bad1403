# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The two kinds of error: bad input (KubenodeError: the option and the value, the core's one error) and the host's
refusals (HostError: a read or write that failed, the node lock not had, systemd or the kernel refusing; the
operation and the path). An operator mends the first in the inventory and the second on the host; a caller catches
the kind it can act on.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import errno
import os
from typing import Any

_UNSET = object()


class KubenodeError(ValueError):
    """Bad input. The message names the option and the offending value."""

    def __init__(self, message: str, field: str | None = None, value: Any = _UNSET) -> None:
        self.message = message
        self.field = field
        self.value = value
        super(KubenodeError, self).__init__(self.__str__())

    def __str__(self) -> str:
        text = self.message
        if self.value is not _UNSET:
            text = '%s (got %s)' % (text, _show(self.value))
        if self.field:
            text = '%s: %s' % (self.field, text)
        return text


class KubeletConfigRefused(KubenodeError):
    """The kubelet configuration a run would write is one kubelet would refuse (or cannot be found): the
    audit reports it as drift and compares the rest; node_cgroups refuses the run."""

    @classmethod
    def from_error(cls, error: KubenodeError) -> KubeletConfigRefused:
        return cls(error.message, field=error.field, value=error.value)


class HostError(Exception):
    """The host refused: a read or write failed, the node lock was not had in time, systemd or the kernel refused a
    change. Not bad input: the same options succeed on a host that lets them. operation: what was done ("write",
    "systemctl restart", "lock"); path: where (a file, a directory, a unit), or None. The message says both."""

    def __init__(self, message: str, operation: str | None = None, path: str | None = None) -> None:
        self.message, self.operation, self.path = message, operation, path
        super(HostError, self).__init__(message)

    def __str__(self) -> str:
        return self.message


# What failed a run, as its result's failure says: the operator's input (KubenodeError, mended in the inventory: a
# retry fails alike) or the host (HostError or an OSError: a read or write, the node lock, systemd or the kernel
# refused; a retry may pass). A playbook or AWX retries a host failure, never an input one.
INPUT, HOST = 'input', 'host'


def failure_of(error: BaseException) -> str:
    """The failure kind of an error: INPUT for a KubenodeError, HOST for anything the host raised."""
    return INPUT if isinstance(error, KubenodeError) else HOST


def nothing_written(message: str) -> str:
    """A refusal's message with the ending every refusal has: "Nothing was written." (after its own full stop or
    question mark)."""
    text = message.rstrip()
    if text.endswith('Nothing was written.'):
        return text
    return '%s%s Nothing was written.' % (text, '' if text.endswith(('.', '?', '!')) else '.')


def _show(value: object) -> str:
    if isinstance(value, str):
        if not value.isprintable():  # a NUL or a newline is shown, not printed
            value = value.encode('unicode_escape').decode('ascii')
        return '"%s"' % value
    return repr(value)


def host_error(action: str, error: BaseException, path: str | None = None) -> HostError:
    """The HostError for an OSError of a read or write on the host: the path and the reason, no traceback."""
    where = getattr(error, 'filename', None) or path
    code = getattr(error, 'errno', None)
    reason = os.strerror(code) if code else str(error) or os.strerror(errno.EIO)
    return HostError('cannot %s %s: %s' % (action, where or 'the host', reason), operation=action, path=where)
