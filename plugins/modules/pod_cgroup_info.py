#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: pod_cgroup_info
short_description: Compute the pod and container cgroup values kubelet and the container runtime write
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - For each pod, computes its QoS class, its cgroup paths under both drivers and the values
    kubelet writes to the pod cgroup (C(ResourceConfigForPod) - shares, CFS quota and period,
    memory limit, hugetlb, pids, MemoryQoS C(memory.min)).
  - For each container, computes what kubelet sends to the runtime - C(cpu_shares), C(cpu_quota),
    C(cpu_period), C(memory_limit), MemoryQoS C(memory.min) and C(memory.high) - its
    C(oom_score_adj), and C(cpu.weight) by kubelet's linear conversion and by the OCI runtimes'
    (runc 1.3.2 and later).
  - Returns the QoS tier values the pods imply together - burstable C(cpu.shares), MemoryQoS
    C(memory.min) and C(memory.low), and C(qosReserved) memory limits.
  - Sidecars (init containers whose C(restartPolicy) is C(Always)), pod overhead and pod-level
    resources follow kubelet's rules. Never changes anything.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.info_module
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.extra_feature_gates
options:
  pods:
    description:
      - Pod objects as C(kubectl get pods -o json) returns them (the C(items) list, or the whole
        List), or bare pod specs with C(containers).
      - Pods are taken as the API server stores them. kubelet does not copy limits into missing
        requests; set O(api_defaults) to do that for bare specs first.
      - A pod's C(status) is read for an in-place resize (kubelet 1.33 and later, or with the
        C(InPlacePodVerticalScaling) gate). While a resize is pending (the C(PodResizePending) condition, or
        C(status.resize) before 1.33), kubelet keeps the cgroups at the allocation the containers' statuses report
        (C(resources), else C(allocatedResources)); the pod's C(resize) then says so and what its cgroups become
        once the resize is done.
    type: raw
    required: true
  api_defaults:
    description:
      - Apply the API server's defaulting to each pod first - a container or pod-level limit with
        no request gets the limit as its request. Output of C(kubectl get) already has it.
    type: bool
    default: false
  memory_capacity:
    description:
      - The node's memory capacity (C(MemTotal)), which the Burstable C(oom_score_adj) formula
        divides by.
    type: str
  allocatable_memory:
    description:
      - Node memory minus system and kube reserved (kubelet's C(GetNodeAllocatableAbsolute)),
        used for C(memory.high) without a limit and for C(qosReserved). Defaults to
        O(memory_capacity).
    type: str
  cgroup_driver:
    description: KubeletConfiguration C(cgroupDriver).
    type: str
    choices: [cgroupfs, systemd]
    default: cgroupfs
  cgroup_root:
    description: KubeletConfiguration C(cgroupRoot).
    type: str
    default: /
  cpu_cfs_quota:
    description: KubeletConfiguration C(cpuCFSQuota). When false no CFS quota is enforced.
    type: bool
    default: true
  cpu_cfs_quota_period:
    description:
      - KubeletConfiguration C(cpuCFSQuotaPeriod), a duration such as C(100ms). Other values than
        C(100ms) need the C(CustomCPUCFSQuotaPeriod) feature gate.
    type: str
    default: 100ms
  feature_gates:
    description:
      - KubeletConfiguration C(featureGates). C(MemoryQoS), C(PodLevelResources) (on by default
        from 1.34), C(CustomCPUCFSQuotaPeriod) and C(QOSReserved) change the values.
      - A name the kubelet release of O(kubelet_version) does not know is refused
        (C(unrecognized feature gate)), as kubelet refuses to start with it.
    type: dict
    default: {}
  memory_throttling_factor:
    description:
      - KubeletConfiguration C(memoryThrottlingFactor), above 0 and at most 1. Defaults to kubelet's
        default for O(kubelet_version) (0.9, or 0.8 before 1.27); from 1.37 kubelet's default is null, no
        C(memory.high) at all, until a factor is set.
    type: float
  memory_reservation_policy:
    description: KubeletConfiguration C(memoryReservationPolicy) (kubelet 1.36 and later).
    type: str
    choices: [None, TieredReservation]
  qos_reserved:
    description:
      - KubeletConfiguration C(qosReserved), for example C(memory) to C(50%).
    type: dict
  page_size:
    description: The node's memory page size in bytes, which C(memory.high) is rounded down to.
    type: int
    default: 4096
  pod_pids_limit:
    description: KubeletConfiguration C(podPidsLimit); positive values limit each pod cgroup.
    type: int
  kubelet_version:
    description: The kubelet release whose rules apply (1.22 to 1.38; 1.38 from its beta).
    type: str
    default: '1.37'
  cgroup_mode:
    aliases: [cgroup_version]
    description:
      - The node's cgroup mode, as M(kubenode.cgroups.cgroup_info) returns it (V(hybrid) uses the v1 files, as
        kubelet does). Swap limits differ - C(memory.swap.max) on v2, C(memory.memsw.limit_in_bytes) on v1, where
        LimitedSwap does not exist.
      - The alias O(cgroup_version) is the name of earlier releases.
    type: str
    choices: [v1, v2, hybrid]
    default: v2
  swap_behavior:
    description:
      - KubeletConfiguration C(memorySwap.swapBehavior) (NodeSwap). Empty means C(NoSwap).
      - With C(LimitedSwap), a Burstable container that is not in a critical pod and whose memory request differs
        from its limit gets C(request / memory_capacity * swap_capacity) bytes of swap; every other container 0.
      - Validated as kubelet validates it; NodeSwap is modelled from kubelet 1.30.
    type: str
    default: ''
  swap_capacity:
    description:
      - The node's swap space (C(SwapTotal) of C(/proc/meminfo), which C(kubenode.cgroups.cgroup_info) reports as
        C(swap.capacity)). Needed by C(LimitedSwap) on cgroup v2; C(0) on a node without swap (no container
        gets any). At most 2^63-1 bytes, as kubelet converts it with C(int64).
    type: str
  oci_runtime:
    description:
      - The OCI runtime that creates the containers, as C({name, version}) (C(runc) or C(crun)), or C(auto) to read
        it on this host - containerd's default runtime (else CRI-O's) and the version its binary prints.
      - The runtime, not kubelet, turns the CPU shares kubelet sends into a container's C(cpu.weight) on cgroup v2 -
        runc 1.3.2 and later and crun 1.23 and later with a quadratic formula, older releases (Debian bookworm's runc
        1.1) with the linear one. Each container's C(cpu_weight.runtime) is then what its C(cpu.weight) holds.
    type: raw
  swap_controller:
    description:
      - Whether the kernel accounts swap for cgroups (C(memory.swap.max) in kubelet's own cgroup on v2,
        C(memory.memsw.limit_in_bytes) on v1; C(kubenode.cgroups.cgroup_info) reports it as C(swap.controller)).
        Without it kubelet writes no swap limit at all.
    type: bool
    default: true
  hugepage_sizes:
    description:
      - The node's hugepage sizes - C(2Mi), C(1Gi), C(hugepages-2Mi), or the kernel's names that
        C(ls /sys/kernel/mm/hugepages) prints (C(hugepages-2048kB)). kubelet writes a limit for each on every pod
        (C(0) for a size the pod does not request) and every container (its own limit of that size, else from
        kubelet 1.34 its pod's pod-level limit, else C(0)).
    type: list
    elements: str
    default: []
  cpu_manager_policy:
    description:
      - KubeletConfiguration C(cpuManagerPolicy). With C(static), a container of a Guaranteed pod with an integer
        CPU request gets CPUs of its own (C(exclusive_cpus)), and with the C(DisableCPUQuotaWithExclusiveCPUs)
        gate (on by default from kubelet 1.33) no CFS quota, nor does its pod cgroup.
    type: str
    choices: [none, static]
    default: none
  single_process_oom_kill:
    description:
      - KubeletConfiguration C(singleProcessOOMKill) (kubelet 1.32 and later). Unset, kubelet takes false on cgroup v2
        (every container gets C(memory.oom.group=1), so its processes are OOM-killed together) and true on v1.
      - An explicit false on cgroup v1 is refused, as kubelet refuses it.
    type: bool
notes:
  - Pod cgroup paths are returned only for pods with C(metadata.uid).
  - C(cpu_quota) 0 means no quota; -1 means quota disabled (C(cpu_cfs_quota=false)).
seealso:
  - module: kubenode.cgroups.allocatable_info
"""

EXAMPLES = r"""
- name: Read the pods of this node
  ansible.builtin.command: kubectl get pods -A -o json --field-selector spec.nodeName={{ inventory_hostname }}
  register: node_pods
  changed_when: false

- name: Compute their cgroup values
  kubenode.cgroups.pod_cgroup_info:
    pods: "{{ (node_pods.stdout | from_json)['items'] }}"
    memory_capacity: 64Gi
    cgroup_driver: systemd
  register: pod_values

- name: Values for a bare pod spec with MemoryQoS
  kubenode.cgroups.pod_cgroup_info:
    pods:
      - containers:
          - name: app
            resources:
              requests: {cpu: 250m, memory: 256Mi}
              limits: {cpu: "1", memory: 1Gi}
    memory_capacity: 16Gi
    feature_gates: {MemoryQoS: true}
    kubelet_version: "1.35"

- name: Read the node's swap space
  kubenode.cgroups.cgroup_info:
  register: live

- name: Swap limits on a LimitedSwap node
  kubenode.cgroups.pod_cgroup_info:
    pods: "{{ (node_pods.stdout | from_json)['items'] }}"
    memory_capacity: 64Gi
    swap_behavior: LimitedSwap
    swap_capacity: "{{ live.swap.capacity }}"
    swap_controller: "{{ live.swap.controller }}"
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
pods:
  description:
    - One entry per pod - C(name), C(namespace), C(uid), C(qos_class), C(cgroup) (paths under both
      drivers, when the pod has a uid), C(resources) (the pod ResourceConfig), C(v1_files),
      C(v2_files), C(systemd_properties) and C(containers), all from the resources kubelet allocated.
    - A pod with an in-place resize under way has C(resize) - C(state) (C(pending) or C(in_progress)), C(reason),
      C(message) and, when pending, C(once_done) (C(resources), the files and C(containers) the spec gives, which
      the cgroups get once kubelet admits and carries out the resize).
    - Each container has C(name), C(init), C(sidecar), C(cpu_shares), C(cpu_weight) (C(linear), kubelet's formula, C(quadratic),
      that of runc 1.3.2 and crun 1.23 and later, and, with C(oci_runtime), C(runtime) - what that runtime writes), C(cpu_quota),
      C(cpu_period), C(memory_limit), C(memory_min), C(memory_low),
      C(memory_high), C(hugetlb) (bytes by page size such as C(2MB), a limit for each of C(hugepage_sizes) only),
      C(exclusive_cpus) (the CPUs the static CPU manager gives it alone, 0 for none),
      C(oom_score_adj), C(memory_oom_group) (C(1) where kubelet sets C(memory.oom.group), on cgroup v2
      from kubelet 1.28, unless C(single_process_oom_kill)), C(swap_behavior) (C(NoSwap) or C(LimitedSwap), as kubelet decides it for
      this container), C(memory_swap_max) (cgroup v2 C(memory.swap.max) in bytes, also the runtime's systemd
      C(MemorySwapMax)) and C(memory_memsw_limit) (cgroup v1 C(memory.memsw.limit_in_bytes) - the memory limit,
      so no swap above it). Swap values are null when kubelet writes none (no swap controller, kubelet
      before 1.30, or no memory limit on v1).
  returned: success
  type: list
  elements: dict
  sample:
    - qos_class: Burstable
      resources: {cpu_shares: 102, cpu_quota: 20000, cpu_period: 100000, memory: 209715200}
      containers:
        - {name: app, cpu_shares: 102, cpu_weight: {linear: 4, quadratic: 17}, oom_score_adj: 994,
           swap_behavior: LimitedSwap, memory_swap_max: 107374182, memory_memsw_limit: null}
qos:
  description: The C(kubepods), C(burstable) and C(besteffort) values that all the given pods imply.
  returned: success
  type: dict
  sample: {burstable: {resources: {cpu_shares: 102, cpu_weight: 4}}, besteffort: {resources: {cpu_shares: 2}}}
oci_runtime:
  description: With C(oci_runtime), the runtime's C(name), C(version) and the C(formula) it uses (C(quadratic) or
    C(linear)); with C(auto) also C(engine), C(runtime), C(binary) and the configuration C(path) it was read from.
  returned: success
  type: dict
  sample: {name: runc, version: 1.1.5, formula: linear, engine: containerd, binary: runc}
kubelet_version:
  description: The kubelet release whose rules were applied.
  returned: success
  type: str
  sample: '1.37'
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, INPUT, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import plan_pods
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import runtime_files_argument_spec
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import detect_oci_runtime
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import DEFAULT_KUBELET_VERSION


def detected_runtime(module):
    """oci_runtime: auto, read on this host."""
    params = module.params
    found = detect_oci_runtime(params['containerd_config_path'], params['crio_config_paths'], module.get_bin_path,
                               module.run_command)
    if not found or not found.get('version'):
        module.fail_json(msg='oci_runtime: auto found no OCI runtime with a version on this host (read %s and %s): '
                             'give oci_runtime as {name, version}'
                             % (params['containerd_config_path'], ', '.join(params['crio_config_paths'])),
                         detected=found, failure=HOST)
    return found


def main():
    module = AnsibleModule(
        argument_spec=dict(
            runtime_files_argument_spec(),
            pods=dict(type='raw', required=True),
            oci_runtime=dict(type='raw'),
            api_defaults=dict(type='bool', default=False),
            memory_capacity=dict(type='str'),
            allocatable_memory=dict(type='str'),
            cgroup_driver=dict(type='str', choices=['cgroupfs', 'systemd'], default='cgroupfs'),
            cgroup_root=dict(type='str', default='/'),
            cpu_cfs_quota=dict(type='bool', default=True),
            cpu_cfs_quota_period=dict(type='str', default='100ms'),
            feature_gates=dict(type='dict', default={}),
            extra_feature_gates=dict(type='list', elements='str', default=[]),
            memory_throttling_factor=dict(type='float'),
            memory_reservation_policy=dict(type='str', choices=['None', 'TieredReservation']),
            qos_reserved=dict(type='dict'),
            page_size=dict(type='int', default=4096),
            pod_pids_limit=dict(type='int'),
            kubelet_version=dict(type='str', default=DEFAULT_KUBELET_VERSION),
            cgroup_mode=dict(type='str', choices=['v1', 'v2', 'hybrid'], default='v2', aliases=['cgroup_version']),
            swap_behavior=dict(type='str', default=''),
            swap_capacity=dict(type='str'),
            swap_controller=dict(type='bool', default=True),
            single_process_oom_kill=dict(type='bool'),
            cpu_manager_policy=dict(type='str', choices=['none', 'static'], default='none'),
            hugepage_sizes=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    params = dict(module.params)
    detected = None
    if params['oci_runtime'] == 'auto':
        detected = detected_runtime(module)
        params['oci_runtime'] = {'name': detected['name'], 'version': detected['version']}
    try:
        result = plan_pods(params)
    except KubenodeError as error:
        module.fail_json(msg=str(error), failure=INPUT)
    if detected:
        result['oci_runtime'].update(detected)
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
