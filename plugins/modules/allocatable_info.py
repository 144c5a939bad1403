#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: allocatable_info
short_description: Compute Node Allocatable and kubelet's node-level cgroup values exactly as kubelet does
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Computes what kubelet computes for a node from its capacity and reservation settings
    (C(systemReserved), C(kubeReserved), C(evictionHard), C(reservedSystemCPUs) and so on) -
    the reservation, Node Allocatable for scheduling, and every value kubelet writes to the
    C(kubepods) cgroup, the C(burstable) and C(besteffort) QoS tiers and the system-reserved and
    kube-reserved cgroups, as cgroup v1 files, cgroup v2 files and systemd unit properties.
  - Reproduces kubelet's arithmetic to the byte - Go quantity rounding, float32 eviction
    percentages, integer share and weight conversions.
  - Validates the settings as kubelet does at start-up and fails with kubelet's own message
    when kubelet would refuse them.
  - When O(capacity) is omitted the capacity is read on the target as kubelet's cAdvisor reads it -
    online CPUs, C(MemTotal), hugepages from C(/sys/kernel/mm/hugepages), the filesystem of the
    kubelet root directory, and C(min(pid_max, threads-max)).
  - Never changes anything.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.info_module
  - kubenode.cgroups.plan
  - kubenode.cgroups.extra_feature_gates
notes:
  - Every quantity is returned as a C(quantity) and C(value) pair - the canonical Kubernetes string and an
    integer, in millicores for C(cpu) and in plain units (bytes, pids, pages, pods) otherwise.
  - The C(kubepods) hugetlb limits are those kubelet's QoS loop keeps (C(1<<62)); at start-up
    kubelet briefly writes allocatable hugepages there.
seealso:
  - module: kubenode.cgroups.pod_cgroup_info
"""

EXAMPLES = r"""
- name: Plan a 16-core node reserving for system daemons and the kubelet
  kubenode.cgroups.allocatable_info:
    capacity:
      cpu: "16"
      memory: 64Gi
      ephemeral-storage: 200Gi
    system_reserved:
      cpu: 500m
      memory: 1Gi
    kube_reserved:
      cpu: 200m
      memory: 2Gi
    eviction_hard:
      memory.available: 500Mi
      nodefs.available: 10%
    cgroup_driver: systemd
  register: plan

- name: Show allocatable memory
  ansible.builtin.debug:
    msg: "{{ plan.allocatable.memory.quantity }}"

- name: Size the reservation like EKS, from the capacity detected on the node
  kubenode.cgroups.allocatable_info:
    profile: eks
    max_pods: 58
    cgroup_driver: systemd
  register: eks_plan
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
kubelet_version:
  description: The kubelet release whose rules were applied.
  returned: success
  type: str
  sample: '1.37'
cgroup_driver:
  description: The cgroup driver the paths are given for.
  returned: success
  type: str
  sample: systemd
enforce_node_allocatable:
  description: The enforcement keys in effect.
  returned: success
  type: list
  elements: str
  sample: [pods]
capacity:
  description: Node.Status.Capacity as kubelet publishes it (no C(pid)).
  returned: success
  type: dict
  sample: {cpu: {quantity: "10", value: 10000}, memory: {quantity: 10Gi, value: 10737418240}}
internal_capacity:
  description: kubelet's internal capacity, including C(pid).
  returned: success
  type: dict
  sample: {cpu: {quantity: "10", value: 10000}, pid: {quantity: "4194304", value: 4194304}}
reserved:
  description: C(system) and C(kube) reservations after the profile and C(reservedSystemCPUs).
  returned: success
  type: dict
  sample: {system: {cpu: {quantity: 50m, value: 50}}, kube: {memory: {quantity: 100Mi, value: 104857600}}}
eviction:
  description: The resolved C(evictionHard) map (C(hard)) and what it takes from allocatable (C(reservation)).
  returned: success
  type: dict
  sample: {hard: {memory.available: 100Mi}, reservation: {memory: {quantity: 100Mi, value: 104857600}}}
reservation:
  description: GetNodeAllocatableReservation - system + kube + hard eviction, per resource.
  returned: success
  type: dict
  sample: {cpu: {quantity: 150m, value: 150}, memory: {quantity: 250Mi, value: 262144000}}
allocatable:
  description: Node.Status.Allocatable - what the scheduler sees.
  returned: success
  type: dict
  sample: {cpu: {quantity: 9850m, value: 9850}, memory: {quantity: 9990Mi, value: 10475274240}}
allocatable_absolute:
  description: Capacity minus system and kube reserved (no eviction), including C(pid) - what
    C(kubepods) gets when C(pods) is enforced.
  returned: success
  type: dict
  sample: {cpu: {quantity: 9850m, value: 9850}, memory: {quantity: 10090Mi, value: 10580131840}}
cgroups:
  description:
    - C(kubepods), C(burstable), C(besteffort), and C(system_reserved) and C(kube_reserved) when
      their cgroup is named. Each has the C(name) parts, C(cgroupfs_path), C(systemd_path),
      C(systemd_unit), C(path) (for the configured driver), C(resources) (the ResourceConfig),
      C(v1_files), C(v2_files), C(systemd_properties) (C(v1) and C(v2)) and C(enforced).
  returned: success
  type: dict
  sample:
    kubepods:
      name: [kubepods]
      path: /kubepods.slice
      resources: {cpu_shares: 10086, cpu_weight: 385, memory: 10580131840}
      v2_files: {cpu.weight: "385", memory.max: "10580131840"}
      systemd_properties: {v2: {CPUWeight: "385", MemoryMax: "10580131840"}}
      enforced: true
node_allocatable_root:
  description:
    - The cgroup kubelet puts pods under - C(kubepods) below C(cgroup_root) with C(cgroups_per_qos), or
      C(cgroup_root) itself (C(/) by default) without it, when C(cgroups) has no C(kubepods). Same keys as a
      C(cgroups) entry's names - C(name), C(cgroupfs_path), C(systemd_path), C(systemd_unit), C(path).
  returned: success
  type: dict
  sample: {name: [kubepods], cgroupfs_path: /kubepods, systemd_path: /kubepods.slice, systemd_unit: kubepods.slice,
           path: /kubepods.slice}
fail_cgroup_v1_default:
  description: Whether this kubelet release refuses cgroup v1 hosts by default (C(failCgroupV1)).
  returned: success
  type: bool
  sample: true
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import plan_argument_spec
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._detect import detect_capacity
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError, failure_of


def main():
    module = AnsibleModule(argument_spec=plan_argument_spec(), supports_check_mode=True)
    params = dict(module.params)
    try:
        if params['capacity'] is None:
            params['capacity'], params['online_cpus'] = detect_capacity(
                params['proc_path'], params['sys_path'], params['kubelet_root_dir'])
        result = plan_node(PlanOptions.from_options(params)).as_dict()
    except (KubenodeError, HostError) as error:
        module.fail_json(msg=str(error), failure=failure_of(error))
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
