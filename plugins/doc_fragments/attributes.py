# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Standard documentation fragment
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in C(check_mode) and return changed status prediction without modifying target.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in C(check_mode)), when in diff mode.
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
"""

    # Should be used together with the standard fragment
    INFO_MODULE = r"""
options: {}
attributes:
  check_mode:
    support: full
    details:
      - This action does not modify state.
  diff_mode:
    support: N/A
    details:
      - This action does not modify state.
  platform:
    support: full
    platforms: posix
"""

    # The roles' controller-side actions (role_variables, role_node_cgroups): each adds its diff_mode.
    ROLE_ACTION = r"""
options: {}
attributes:
  check_mode:
    support: full
  platform:
    support: full
    platforms: posix
"""

    # A module that changes the node and shows no diff (node_generation, node_restart): each adds its check_mode.
    NODE_CHANGE = r"""
options: {}
attributes:
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
"""
