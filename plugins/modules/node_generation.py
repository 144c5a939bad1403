#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: node_generation
short_description: Confirm a node's change after its gate, or roll it back to the last known good state
version_added: 0.9.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Before its first write, M(kubenode.cgroups.node_cgroups) keeps what the change replaces (files byte for byte,
    cgroup values) as a generation under O(generations_dir) and, with
    O(kubenode.cgroups.node_cgroups#module:confirm_timeout), arms a transient systemd timer on the node that reverts
    it unless it is confirmed in time. A reboot inside the window boots into the last known good state.
  - V(confirmed) compares the OOM kill counts of kubepods, the reserved cgroups and the units of kubelet and the
    container runtime with those M(kubenode.cgroups.node_cgroups) read before the change's first write, then
    confirms the newest generation and stops its timer. A kill since the change reverts it at once and fails,
    naming the cgroups and their counts. The watch window is the caller's to wait (the role waits
    C(node_allocatable_oom_watch_seconds) after kubelet's restart); nothing waits on the node, where a wait would
    outlive a lost controller and confirm for it.
  - V(rolled_back) reverts the newest generation now (after a failed gate, or on demand for a confirmed one) - the
    files restored, systemd reloaded, the kept cgroup values written back, the services whose files were restored
    restarted (the runtime before kubelet) - and records the reason for the audit and the report.
  - The node_allocatable role confirms or rolls back by itself; the C(kubenode.cgroups.rollback) playbook rolls chosen
    nodes back on demand.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.node_change
  - kubenode.cgroups.node_root
attributes:
  check_mode:
    support: full
    details:
      - Says whether the generation would be confirmed, or what a rollback would restore and restart.
options:
  state:
    description: V(confirmed) ends the newest generation's window; V(rolled_back) reverts it.
    type: str
    choices: [confirmed, rolled_back]
    required: true
  generations_dir:
    description: Where the node keeps its generations (under O(node_root)).
    type: path
    default: /var/lib/kubenode-cgroups/generations
  reason:
    description: Why the change is rolled back, as the audit and the report will say it.
    type: str
    default: on demand
  trigger:
    description: What asks for the rollback, recorded with it; V(gate) applies to a generation inside its window only.
    type: str
    choices: [gate, demand]
    default: demand
  cgroupfs_path:
    description: Where the cgroup filesystem is mounted (under O(node_root)).
    type: path
    default: /sys/fs/cgroup
  proc_path:
    description: Where proc is mounted (under O(node_root)).
    type: path
    default: /proc
  lock_path:
    description: The node lock M(kubenode.cgroups.node_cgroups) takes (under O(node_root)).
    type: path
    default: /run/lock/kubenode-cgroups.lock
  lock_timeout:
    description: Seconds to wait for the node lock.
    type: int
    default: 300
"""

EXAMPLES = r"""
- name: Watch the node for 30 s after kubelet's restart
  ansible.builtin.pause:
    seconds: 30

- name: Confirm the change, unless something was OOM-killed since it was written
  kubenode.cgroups.node_generation:
    state: confirmed

- name: Put the node back as it was before its last change
  kubenode.cgroups.node_generation:
    state: rolled_back
    reason: the new reservation starves the logging agent
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
generation:
  description: The newest generation after the call (its id, state, what it restores and restarts).
  returned: always
  type: dict
  sample: {id: "000004", state: rolled-back, mode: gate, reason: "OOM kills within 30 s of the change: /system.slice 0 -> 1",
           restores: [{kind: file, path: /var/lib/kubelet/config.yaml}], restarts: [kubelet.service]}
gate:
  description: With V(confirmed), the figures the node was judged by - the seconds since the change was armed, each
    watched cgroup's OOM kill count before the change and now, and those that rose.
  returned: when state is confirmed and a generation was pending
  type: dict
would:
  description: With V(rolled_back), the items the rollback restores and the services it restarts.
  returned: when state is rolled_back and a generation can be rolled back
  type: dict
receipt:
  description:
    - With V(confirmed), whether the receipt M(kubenode.cgroups.node_cgroups) kept after the change still answers its
      next run with nothing to change (C(followed)), its reads of the generation and its decision of which services
      to restart asked again after the confirmation (the role confirms after the restarts), and if not, why not
      (C(why)); then that run plans, and keeps a new one.
  returned: when a generation was confirmed
  type: dict
  sample: {followed: true}
rolled_back:
  description: Whether this call rolled the change back.
  returned: when it did
  type: bool
"""

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, HostError, KubenodeError, failure_of, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _generations as generations
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import detect_layout
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_module import NodeModule
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import is_host_root
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import runner
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _receipt
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _way_back as way_back
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import paths_under_root


def follow_receipt(module, params, result):
    """A confirmation changes only the generation's state line, after the restarts the change asked for: node_cgroups'
    receipt is made to follow both, so that the first run after a confirmed change is answered as every later one is
    (run/_receipt.follow_confirmation)."""
    generation = dict(result['generation'], summary=generations.describe(result['generation']))
    why = _receipt.follow_confirmation(module, params['lock_path'], params['lock_timeout'], generation)
    result['receipt'] = {'followed': True} if why is None else {'followed': False, 'why': why}


def main():
    module = NodeModule(argument_spec=dict(
        state=dict(type='str', choices=['confirmed', 'rolled_back'], required=True),
        node_root=dict(type='path', default='/'),
        generations_dir=dict(type='path', default='/var/lib/kubenode-cgroups/generations'),
        reason=dict(type='str', default='on demand'),
        trigger=dict(type='str', choices=['gate', 'demand'], default='demand'),
        cgroupfs_path=dict(type='path', default='/sys/fs/cgroup'),
        proc_path=dict(type='path', default='/proc'),
        lock_path=dict(type='path', default='/run/lock/kubenode-cgroups.lock'),
        lock_timeout=dict(type='int', default=300),
    ), supports_check_mode=True)
    params = dict(module.params)
    try:
        params.update(paths_under_root(params['node_root'], params,
                                       ['generations_dir', 'cgroupfs_path', 'proc_path', 'lock_path']))
        systemctl = runner(module) if is_host_root(params['node_root']) else None
        if params['state'] == 'confirmed':
            layout = detect_layout(params['proc_path'], params['cgroupfs_path'])
            result = way_back.confirm(params, layout, systemctl, module.run_command, module.check_mode)
            if result.get('changed') and not result.get('failed') and not module.check_mode:
                follow_receipt(module, params, result)
        else:
            result = way_back.roll_back(params, module.run_command, module.check_mode)
    except (KubenodeError, HostError) as error:
        module.fail_json(msg=str(error), failure=failure_of(error))
    except (IOError, OSError) as error:
        module.fail_json(msg=str(host_error('change', error)), failure=HOST)
    if result.pop('failed', False):
        # the gate found OOM kills, or the node's revert failed: the host's outcome, not the input
        result.setdefault('failure', HOST)
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
