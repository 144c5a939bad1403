# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One run at a time per node: an flock on a file under /run/lock, holding the owner's pid.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Two operators (or two controllers) applying different plans at once would interleave unit files,
overrides, cgroup writes and the kubelet configuration. The kernel drops an flock when its holder
dies, so a killed run never leaves the node locked.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import errno
import fcntl
import os
import time
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError


class NodeLock(object):
    def __init__(self, path: str, timeout: float, poll: float = 0.5) -> None:
        self.path, self.timeout, self.poll = path, timeout, poll
        self.fd: int | None = None

    def __enter__(self) -> NodeLock:
        directory = os.path.dirname(self.path)
        try:
            if not os.path.isdir(directory):
                os.makedirs(directory, 0o755)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise HostError('lock_path: cannot open the node lock %s: %s' % (self.path, os.strerror(error.errno or errno.EIO)),
                            operation='open the node lock', path=self.path)
        fd = self.fd
        deadline = time.time() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except (IOError, OSError) as error:
                if error.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
            if time.time() >= deadline:
                holder = self.holder()
                os.close(fd)
                self.fd = None
                raise HostError('lock_path: another run holds the node lock (pid %s) and did not finish within %s s; '
                                'runs on one node must not interleave (got "%s")' % (holder, self.timeout, self.path),
                                operation='lock', path=self.path)
            time.sleep(self.poll)
        os.ftruncate(fd, 0)
        os.pwrite(fd, ('%d\n' % os.getpid()).encode('ascii'), 0)
        return self

    def holder(self) -> str:
        """The holder's pid: from the kernel's lock table (any flock holder), else what our runs write."""
        if self.fd is None:
            return 'unknown'
        inode = os.fstat(self.fd).st_ino
        try:
            with open('/proc/locks') as handle:
                for line in handle:
                    fields = line.split()
                    # 1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF
                    if len(fields) >= 6 and fields[1] == 'FLOCK' and fields[5].split(':')[-1] == str(inode):
                        return fields[4]
        except (IOError, OSError):
            pass
        return os.pread(self.fd, 64, 0).decode('ascii', 'replace').strip() or 'unknown'

    def __exit__(self, *exc_info: Any) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


class NoLock(object):
    """What a run that writes nothing holds instead of the node lock (check mode: it never waits for, or blocks, a
    run that writes)."""

    def __enter__(self) -> NoLock:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        return None
