#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: role_node_cgroups
short_description: Run node_cgroups with its arguments taken from the node_allocatable role's variables
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - The node_allocatable role's apply step. Builds M(kubenode.cgroups.node_cgroups)' arguments on the controller
    from the host's C(node_allocatable_) variables (each templated once) and runs it on the node. A path variable
    left unset is its usual path under C(node_allocatable_root).
  - Errors from the module name the role variables the operator sets (C(node_allocatable_kubelet_version), not
    C(kubelet_version)).
  - With C(node_allocatable_variables=kubespray), the reservation, eviction, enforcement, reserved cgroups, maxPods
    and cgroup driver come from kubespray's own inventory variables, read as kubespray's kubelet template reads them;
    with C(role), kubespray variables found for the host are named in a warning.
  - Takes no options; used by the role only.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.role_action
attributes:
  diff_mode:
    support: full
options: {}
seealso:
  - module: kubenode.cgroups.node_cgroups
"""

EXAMPLES = r"""
- name: Apply the node_allocatable role's plan on this node
  kubenode.cgroups.role_node_cgroups:
  vars:
    node_allocatable_kube_reserved: {memory: 1Gi}
"""

RETURN = r"""
paths:
  description: The node's paths node_cgroups was given (its usual ones under C(node_allocatable_root)).
  returned: always
  type: dict
  sample: {cgroupfs_path: /sys/fs/cgroup, proc_path: /proc}
plan:
  description: What M(kubenode.cgroups.node_cgroups) returns, and the same for every other key.
  returned: success
  type: dict
"""
