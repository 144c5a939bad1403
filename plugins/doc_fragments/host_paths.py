# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Where a reading module finds the cgroup filesystem and /proc (fake trees in tests).
    DOCUMENTATION = r"""
options:
  cgroupfs_path:
    description: Where the cgroup filesystem is mounted.
    type: path
    default: /sys/fs/cgroup
  proc_path:
    description: Where C(/proc) is.
    type: path
    default: /proc
"""
