# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Where systemd keeps the overrides `systemctl set-property` (and kubelet, over D-Bus) write.
    DOCUMENTATION = r"""
options:
  systemd_control_dirs:
    description:
      - Where systemd keeps property overrides of units (C(systemctl set-property), with and without
        C(--runtime)); they beat the unit files. An override of a resource property (C(CPUWeight),
        C(MemoryMax), C(TasksMax) and the like) on a managed slice that disagrees with the plan, or that
        the plan does not set, is drift.
    type: list
    elements: path
    default: [/etc/systemd/system.control, /run/systemd/system.control]
"""
