#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: reservation_info
short_description: Measure what the reserved cgroups use, and say what to reserve
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Reads what the system-reserved and kube-reserved cgroups of a plan, and C(kubepods), use - memory in use
    (read every second over O(sample_seconds)) and its peak since the cgroup was made, the memory events (OOM
    kills), CPU and memory pressure, CPU used over O(sample_seconds), and the tasks - on cgroup v1 and v2, under
    either cgroup driver, named as the plan names them.
  - For each reserved cgroup and resource returns the reservation, the use, the headroom, a recommended
    reservation and the rule that produced it (memory - the higher of the window's and the lifetime peak plus
    25%, at least 128Mi; CPU - the use over the window plus 50%, at least 100m; each at most half the node), and
    a verdict - C(under) (OOM kills, sustained pressure, or a use within the window above the reservation),
    C(over) (reserved more than twice what the use calls for), C(ok), or C(unmeasured) for a cgroup with no
    processes of its own, whose use says nothing, and for CPU over a window shorter than 10 seconds (not enough
    data; the recommendation keeps the reservation).
  - A lifetime peak above the reservation, with the window's use below it, is a burst before the window (a
    start, a backup) - noted and sized for, not judged; C(peak_since) says how old it may be.
  - Where one side reserves nothing of a resource and the other some (the C(gke) profile reserves it all as
    kube-reserved), the empty side's use is judged with the other's against what both reserve together, and
    the reasons say so.
  - Beside them, what the sizing profiles (C(gke), C(eks), C(aks), C(aks-legacy), C(openshift)) and the plan
    itself (C(static)) reserve on this node.
  - A plan that names no system-reserved cgroup is measured at C(/system.slice), where systemd runs the
    system's services, and says so. The C(recommendation) is what O(kubenode.cgroups.node_cgroups#module:profile)
    C(measured) takes.
  - Never changes anything.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.host_paths
  - kubenode.cgroups.node_root
  - kubenode.cgroups.attributes.info_module
options:
  plan:
    description:
      - A result of M(kubenode.cgroups.allocatable_info), or the C(plan) that M(kubenode.cgroups.node_cgroups)
        returns.
    type: dict
    required: true
  sample_seconds:
    description: The window CPU use is measured over, in seconds (1 to 600).
    type: int
    default: 10
notes:
  - C(memory.peak) needs kernel 5.19 (cgroup v2); without it the peak is the current use, and the result says so.
    Memory pressure and CPU pressure need PSI (cgroup v2, C(psi=1) or a kernel built with it on).
  - The lifetime memory peak is the highest use since the cgroup was made (v1 - or since it was last reset); the
    verdict judges the window's, and CPU is the average over the window, so measure while the node does its usual
    work.
seealso:
  - module: kubenode.cgroups.allocatable_info
  - module: kubenode.cgroups.node_drift_info
"""

EXAMPLES = r"""
- name: Plan the node
  kubenode.cgroups.allocatable_info:
    capacity: {cpu: "4", memory: 16Gi}
    profile: gke
    cgroup_driver: systemd
    system_reserved_cgroup: /system.slice
    kube_reserved_cgroup: /kube.slice
  register: plan

- name: Measure its reserved cgroups for a minute
  kubenode.cgroups.reservation_info:
    plan: "{{ plan }}"
    sample_seconds: 60
  register: sizing

- name: Say where the reservation is too small
  ansible.builtin.debug:
    msg: "{{ item.key }}: {{ item.value.memory.reasons + item.value.cpu.reasons }}"
  loop: "{{ sizing.reserved | dict2items | selectattr('value.verdict', 'equalto', 'under') }}"
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
cgroup_version:
  description: The node's cgroup version (C(v1) for a hybrid host).
  returned: success
  type: str
  sample: v2
sample_seconds:
  description: The window CPU use was measured over.
  returned: success
  type: int
  sample: 10
verdict:
  description: The worst verdict of the reserved cgroups - C(under), C(over), C(ok) or C(unmeasured).
  returned: success
  type: str
  sample: over
reserved:
  description:
    - C(system) and C(kube) - the cgroup measured (C(cgroup)) and why that one (C(cgroup_source)), its verdict,
      and for C(memory) and C(cpu) the reservation (C(reserved), bytes or millicores), C(used) (the memory peak,
      the CPU over the window), C(headroom), C(recommended), the C(rule), the C(verdict), its C(reasons) and
      C(causes) (C(oom_kill), C(pressure), C(use)); memory adds C(current), C(window_peak) (the highest use read in
      the window, which is C(used)), C(peak) (since the cgroup was made) and C(peak_source); C(judged_together)
      where the side was judged with the other. Besides, the memory C(events) and the C(pressure)
      files as read, and the C(processes) the cgroup holds.
    - An C(unmeasured) cgroup has only C(verdict) and C(reasons).
  returned: success
  type: dict
  sample:
    system:
      cgroup: /system.slice
      cgroup_source: the plan's system_reserved_cgroup
      verdict: over
      memory: {reserved: 1073741824, used: 209715200, headroom: 864026624, recommended: 262144000,
               rule: "the higher of the window's and the lifetime peak + 25%, at least 128Mi, at most 1/2 of the node's memory, rounded up to whole MiB",
               verdict: over, reasons: ["1024Mi reserved, more than 2 times the 250Mi the use calls for"],
               causes: []}
kubepods:
  description: What the pods use - C(memory) (C(current), C(peak)), C(cpu) (C(used)), C(allocatable), C(events).
  returned: success
  type: dict
recommendation:
  description: The recommended C(system_reserved) and C(kube_reserved) as quantities - what the C(measured)
    profile takes.
  returned: success
  type: dict
  sample: {system_reserved: {cpu: 100m, memory: 250Mi}, kube_reserved: {cpu: 150m, memory: 384Mi}}
profiles:
  description:
    - What each sizing profile reserves on this node (C(cpu) in millicores, C(memory) in bytes), the plan's own
      system and kube reservations as C(static), and the recommendation as C(measured); a profile this node
      cannot be sized by has C(error).
  returned: success
  type: dict
use:
  description: The reserved cgroups' use together - C(memory_peak) (bytes, the highest in the window) and
    C(cpu_used) (millicores); each null when no reserved cgroup was measured.
  returned: success
  type: dict
uptime_seconds:
  description: Seconds since the node booted; null where C(/proc/uptime) cannot be read.
  returned: success
  type: int
peak_since:
  description: How old the lifetime peaks may be, in words.
  returned: success
  type: str
  sample: since the cgroup was made, at most 3h04m ago (the node booted then)
cpu_window_minimum:
  description: The shortest O(sample_seconds) whose CPU use is judged.
  returned: success
  type: int
  sample: 10
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import detect_layout
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, INPUT, HostError, KubenodeError, failure_of, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._measurement import measure
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import host_paths_argument_spec, node_root_argument_spec, paths_under_root


def main():
    spec = dict(plan=dict(type='dict', required=True), sample_seconds=dict(type='int', default=10))
    spec.update(host_paths_argument_spec())
    spec.update(node_root_argument_spec())
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    params = dict(module.params)
    try:
        plan = NodePlan.from_dict(params['plan'])
        if plan.capacity is None:
            raise KubenodeError('is missing: not a result of kubenode.cgroups.allocatable_info', field='plan.capacity')
    except KubenodeError as error:
        module.fail_json(msg=str(error), failure=INPUT)
    if not 1 <= params['sample_seconds'] <= 600:
        module.fail_json(msg='sample_seconds: must be between 1 and 600 (got %s)' % params['sample_seconds'], failure=INPUT)
    try:
        params.update(paths_under_root(params['node_root'], params, ('cgroupfs_path', 'proc_path')))
        layout = detect_layout(params['proc_path'], params['cgroupfs_path'])
        result = measure(plan, layout, params['cgroupfs_path'], params['sample_seconds'], params['proc_path'])
    except (KubenodeError, HostError) as error:
        module.fail_json(msg=str(error), failure=failure_of(error))
    except (IOError, OSError) as error:
        module.fail_json(msg=str(host_error('read', error)), failure=HOST)
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
