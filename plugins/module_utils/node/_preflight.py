# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks made before the first write, so a run that would fail half-way writes nothing.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os

from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced

# Room a run needs on a filesystem it writes files to: the largest file it writes is a few KiB,
# and atomic_move writes a copy before the rename.
MIN_FREE_BYTES = 1 << 20


def nearest_existing(directory: str) -> str:
    """The directory itself, or the closest ancestor that exists (makedirs creates the rest)."""
    path = os.path.abspath(directory)
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


@traced
def writable_directory_problem(directory: str, room: bool = True) -> str | None:
    """Why directory cannot be written (read-only, no permission, full), or None."""
    existing = nearest_existing(directory)
    stats = os.statvfs(existing)
    if stats.f_flag & os.ST_RDONLY:
        return '%s is on a read-only filesystem' % existing
    if not os.access(existing, os.W_OK):
        return '%s is not writable' % existing
    if room and stats.f_bavail * stats.f_frsize < MIN_FREE_BYTES:
        return '%s has only %d bytes free' % (existing, stats.f_bavail * stats.f_frsize)
    return None


def leads_outside(path: str, root: str) -> str | None:
    """The real path that path resolves to when a symlink on its way leads out of root, else None."""
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return real
