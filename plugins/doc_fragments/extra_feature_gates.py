# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Every module that checks feature gate names against kubelet's takes the way past the table.
    DOCUMENTATION = r"""
options:
  extra_feature_gates:
    description:
      - Feature gate names the node's kubelet knows that the collection's table of gates does not (a vendor
        build, a gate newer than the table), accepted as they are in the feature gates.
    type: list
    elements: str
    default: []
"""
