# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node's mount table, and the cgroup filesystems in it (_cgroupfs.detect_layout reads where they are).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Light to import: a receipt's replay (run/_receipt) calls cgroup_mounts again.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._io_trace import traced


def read_mountinfo(proc_path: str) -> list[tuple[str, str, str]]:
    """[(mount point, fs type, super options)] from <proc>/self/mountinfo."""
    mounts = []
    path = os.path.join(proc_path, 'self/mountinfo')
    try:
        with open(path) as handle:
            lines = handle.readlines()
    except (IOError, OSError) as error:
        raise host_error('read the mount table', error, path)
    for line in lines:
        fields = line.split()
        if ' - ' not in line or len(fields) < 10:
            continue
        separator = fields.index('-')
        mount_point = fields[4].replace('\\040', ' ')
        mounts.append((mount_point, fields[separator + 1], fields[separator + 3]))
    return mounts


@traced
def cgroup_mounts(proc_path: str, root: str) -> list[list[str]]:
    """[[mount point, fs type, super options]] of the cgroup filesystems mounted at or under root. Traced as this
    answer (node/_io_trace): the rest of the mount table moves with every container started or stopped."""
    return [[mount_point, fs_type, options] for mount_point, fs_type, options in read_mountinfo(proc_path)
            if fs_type in ('cgroup', 'cgroup2') and (mount_point == root or mount_point.startswith(root + '/'))]
