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
  - After a run that changed the node (or left a restart, or with C(node_allocatable_verify=always)), the same task
    restarts what runs with an older configuration or slice than the one on disk (C(restart_pending), the runtime
    before kubelet, as C(node_allocatable_restart_kubelet) and C(node_allocatable_restart_runtime) allow) and waits for
    the restarted kubelet's C(node_allocatable_health_url) (asked on the node every second, up to
    C(node_allocatable_health_timeout); not in check mode) in one M(kubenode.cgroups.node_restart) call, audits the node (node_cgroups' own read-back, or
    M(kubenode.cgroups.node_drift_info) where a restart was left), and with C(node_allocatable_measure) runs
    M(kubenode.cgroups.reservation_info), one module call each on the node. A failed step fails the host with the
    step's name first; what was written stays, and the next run completes it.
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
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
paths:
  description: The node's paths node_cgroups was given (its usual ones under C(node_allocatable_root)).
  returned: always
  type: dict
  sample: {cgroupfs_path: /sys/fs/cgroup, proc_path: /proc}
plan:
  description: What M(kubenode.cgroups.node_cgroups) returns, and the same for every other key not listed here.
  returned: success
  type: dict
needs_follow_up:
  description: Whether the role goes on after this task for this node (changed, a restart pending, or
    C(node_allocatable_verify=always)); the role's C(end_role) meta task reads it.
  returned: success
  type: bool
drain_first:
  description: With C(node_allocatable_drain), on a live run of a node not yet drained for it - the run planned in
    check mode would change the node, so nothing was written; the role's C(tasks/drain.yml) cordons and drains the
    node, then runs this task again to make the change.
  returned: when the node is to be drained first
  type: bool
summary:
  description: The lines the role's "Show the plan" prints for this node, with a C(restarted:) line where a restart
    was pending.
  returned: when needs_follow_up
  type: list
  elements: str
restarted:
  description: The services this task restarted (or in check mode would), in order, each with the reason
    node_cgroups gave and whether it changed.
  returned: when needs_follow_up
  type: list
  elements: dict
  sample: [{service: kubelet.service, reason: /var/lib/kubelet/config.yaml changed after it started, changed: true}]
restarts_left:
  description: The pending restarts left to the operator (C(node_allocatable_restart_kubelet) or
    C(node_allocatable_restart_runtime) false), as node_cgroups listed them.
  returned: when needs_follow_up
  type: list
  elements: dict
audit:
  description: The comparison of the node with its plan (as M(kubenode.cgroups.node_drift_info) returns it) and
    C(check_mode); the role keeps it as C(node_audit_result).
  returned: when the node was audited
  type: dict
sizing:
  description: What M(kubenode.cgroups.reservation_info) measured, with C(node_allocatable_measure); else null.
    The role keeps it as C(node_audit_sizing).
  returned: when the node was audited
  type: dict
fails_on_drift:
  description: The audit found drift and the run was not in check mode; the role's last task fails the node then,
    after the report.
  returned: when the node was audited
  type: bool
"""
