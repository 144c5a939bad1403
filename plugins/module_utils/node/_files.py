# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a node's small text files, live or from a snapshot taken once, and replacing a configuration
file (unit, drop-in, kubelet configuration) atomically.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import errno
import glob
import os
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeVar

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError, host_error


def replace_file(module: AnsibleModule, path: str, content: str, mode: int | None = None,
                 unsafe_writes: bool = False) -> None:
    """Write content to path through a temp file and AnsibleModule.atomic_move, making the directory when
    missing. atomic_move keeps an existing file's mode and owner; mode, when given, is set afterwards
    (a new file otherwise gets the umask's)."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    fd, temp = tempfile.mkstemp(dir=module.tmpdir)
    with os.fdopen(fd, 'w') as handle:
        handle.write(content)
    module.atomic_move(temp, path, unsafe_writes=unsafe_writes)
    if mode is not None:
        os.chmod(path, mode)


def check_mode_option(mode: Any, field: str = 'mode') -> None:
    """The file mode option as AnsibleModule.set_mode_if_different would take it (octal, or symbolic as
    chmod's), checked before anything is written: that method refuses a bad one only after the write."""
    if mode is None or isinstance(mode, int) and 0 <= mode <= 0o7777:
        return
    if isinstance(mode, str):
        try:
            if 0 <= int(mode, 8) <= 0o7777:
                return
        except ValueError:
            try:
                AnsibleModule._symbolic_mode_to_octal(os.stat_result((0o100644,) + (0,) * 9), mode)
                return
            except (ValueError, KeyError, IndexError):
                pass
    raise KubenodeError('must be in octal or symbolic form (such as 0644 or u=rw,g=r,o=r)', field=field, value=mode)


def read_text(path: str) -> str | None:
    """A small file's text, or None when it cannot be read (missing, a directory, no permission)."""
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


class FileSource(Protocol):
    """What planning reads files through: the node itself (NodeFiles) or a snapshot of it (FileSnapshot)."""

    def read(self, path: str) -> str | None:
        """The file's text, None when there is none."""

    def exists(self, path: str) -> bool:
        """Whether there is a file or directory at path."""

    def matches(self, pattern: str) -> list[str]:
        """The paths a glob pattern matches, sorted."""


class NodeFiles(object):
    """The node's configuration files as they are now, read when asked."""

    def read(self, path: str) -> str | None:
        """The text, None when there is no such file; a file that is there but cannot be read raises,
        naming the path and the reason (taken for missing, it could be overwritten)."""
        try:
            with open(path) as handle:
                return handle.read()
        except (IOError, OSError) as error:
            if error.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            raise host_error('read', error, path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def matches(self, pattern: str) -> list[str]:
        return sorted(glob.glob(pattern))


NODE_FILES = NodeFiles()


class FileSnapshot(object):
    """Configuration files read once, up front, answering as NodeFiles does, so that planning from it
    touches no file. A question about a file that was not read is a bug in the reader and says so."""

    def __init__(self, texts: Mapping[str, str | None], present: Mapping[str, bool],
                 listings: Mapping[str, list[str]]) -> None:
        self._texts, self._present, self._listings = texts, present, listings

    @classmethod
    def capture(cls, paths: Iterable[str], patterns: Iterable[str], source: FileSource = NODE_FILES) -> FileSnapshot:
        """Read the given paths and every file the glob patterns match."""
        listings = dict((pattern, source.matches(pattern)) for pattern in patterns)
        every = set(paths).union(*listings.values())
        texts = dict((path, source.read(path)) for path in every)
        present = dict((path, texts[path] is not None or source.exists(path)) for path in every)
        return cls(texts, present, listings)

    def read(self, path: str) -> str | None:
        return snapshot_entry(self._texts, path, 'node')

    def exists(self, path: str) -> bool:
        return snapshot_entry(self._present, path, 'node')

    def matches(self, pattern: str) -> list[str]:
        return list(snapshot_entry(self._listings, pattern, 'node'))


_Entry = TypeVar('_Entry')


def snapshot_entry(table: Mapping[str, _Entry], key: str, snapshot: str) -> _Entry:
    """What a snapshot read for key; a key it never read is a bug in its reader, and a LookupError says which."""
    if key not in table:
        raise LookupError('%s was not read into the %s snapshot' % (key, snapshot))
    return table[key]
