# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # The node plan's inputs: KubeletConfiguration settings and the node capacity.
    DOCUMENTATION = r"""
options:
  capacity:
    description:
      - The node capacity, a mapping of resource name to quantity (for example C(memory) to C(32Gi)).
      - Recognised names are C(cpu), C(memory), C(ephemeral-storage), C(pid), C(pods) and
        C(hugepages-<size>). A plain number for C(cpu) means cores.
      - Detected on the target when omitted.
    type: dict
  system_reserved:
    description:
      - KubeletConfiguration C(systemReserved). Only C(cpu), C(memory), C(ephemeral-storage) and
        C(pid) can be reserved.
    type: dict
    default: {}
  kube_reserved:
    description:
      - KubeletConfiguration C(kubeReserved). With O(profile) these values override the
        profile's.
    type: dict
    default: {}
  eviction_hard:
    description:
      - KubeletConfiguration C(evictionHard), a mapping of signal to threshold (for example
        C(memory.available) to C(100Mi) and C(nodefs.available) to C(10%)), or the flag form
        C(memory.available<100Mi,nodefs.available<10%).
      - Omitted means kubelet's defaults (with O(profile), the profile's thresholds). kubelet resets every
        signal a given map leaves out; O(keep_default_eviction_signals) (the default) adds them back.
      - Only C(memory.available) and C(nodefs.available) reduce Node Allocatable.
    type: raw
  merge_default_eviction_settings:
    description:
      - KubeletConfiguration C(mergeDefaultEvictionSettings) (kubelet 1.33 and later).
    type: bool
    default: false
  keep_default_eviction_signals:
    description:
      - Write kubelet's own hard-eviction defaults of the release (C(memory.available<100Mi),
        C(nodefs.available<10%), C(nodefs.inodesFree<5%), C(imagefs.available<15%), and
        C(imagefs.inodesFree<5%) from kubelet 1.30) beside the signals O(eviction_hard) or the profile set,
        for every signal they leave out. Without it kubelet resets those signals to nothing (kubernetes
        issue 112057) and a node whose disk fills is never relieved. Works on every release, unlike
        O(merge_default_eviction_settings).
      - To switch one signal off on purpose, give it as C(0%).
      - false describes a configuration as kubelet reads it, with only the signals given.
    type: bool
    default: true
  reserved_system_cpus:
    description:
      - KubeletConfiguration C(reservedSystemCPUs), a cpuset such as C(0-1).
      - Replaces C(systemReserved.cpu) with the number of CPUs in the set and drops
        C(kubeReserved.cpu), as kubelet does.
    type: str
  enforce_node_allocatable:
    description:
      - KubeletConfiguration C(enforceNodeAllocatable).
    type: list
    elements: str
    default: [pods]
  cgroups_per_qos:
    description:
      - KubeletConfiguration C(cgroupsPerQOS).
    type: bool
    default: true
  cgroup_root:
    description:
      - KubeletConfiguration C(cgroupRoot), in cgroupfs form.
    type: str
    default: /
  cgroup_driver:
    description:
      - KubeletConfiguration C(cgroupDriver). kubelet's own default is C(cgroupfs); kubeadm
        writes C(systemd).
    type: str
    choices: [cgroupfs, systemd]
    default: cgroupfs
  system_reserved_cgroup:
    description:
      - KubeletConfiguration C(systemReservedCgroup). Under the systemd driver it must name a
        slice whose basename encodes its parents, for example C(/system.slice).
    type: str
  kube_reserved_cgroup:
    description:
      - KubeletConfiguration C(kubeReservedCgroup), for example C(/kube.slice) or
        C(/kube.slice/kube-reserved.slice).
    type: str
  keep_reserved_out_of_swap:
    description:
      - Keep the system and kube reserved cgroups (when named) out of swap on cgroup v2 - C(memory.swap.max) 0, the
        systemd property C(MemorySwapMax=0) - as the Kubernetes swap documentation advises for a node with
        C(LimitedSwap). Not a kubelet setting - kubelet never writes it. Needs the kernel's swap accounting.
    type: bool
    default: false
  cpu_manager_policy:
    description:
      - KubeletConfiguration C(cpuManagerPolicy). With C(none), kubelet from 1.32 gives C(kubepods) and every enforced
        reserved cgroup all the node's CPUs as their cpuset (C(cpuset.cpus), the systemd property C(AllowedCPUs)),
        and so does the plan; with C(static) the CPU manager keeps the cpusets itself.
    type: str
    choices: [none, static]
    default: none
  qos_reserved:
    description:
      - KubeletConfiguration C(qosReserved), for example C(memory) to C(50%). Needs the
        C(QOSReserved) feature gate.
    type: dict
  feature_gates:
    description:
      - KubeletConfiguration C(featureGates), gate name to C(true) or C(false). C(MemoryQoS) and
        C(QOSReserved) change the plan.
      - A name the kubelet release of O(kubelet_version) does not know is refused, as kubelet refuses
        to start with it (C(unrecognized feature gate)); the message says whether the gate came later,
        was removed, or is unknown to every release (with the closest known name).
    type: dict
    default: {}
  memory_reservation_policy:
    description:
      - KubeletConfiguration C(memoryReservationPolicy) (kubelet 1.36 and later).
    type: str
    choices: [None, TieredReservation]
  kubelet_version:
    description:
      - The kubelet release whose rules apply (1.22 to 1.38; 1.38 from its beta), such as C(1.34) or C(v1.34.2).
    type: str
    default: '1.37'
  profile:
    description:
      - Size C(kubeReserved) (and, when O(eviction_hard) is unset, C(evictionHard)) like a managed
        service does. C(static) uses only the explicit values.
      - C(gke) - GKE's memory and CPU tiers, C(memory.available<100Mi).
      - C(eks) - C(11*maxPods+255Mi), the CPU tiers, C(1Gi) of ephemeral storage. Needs O(max_pods).
      - C(aks) - AKS 1.29 and later, 20Mi per pod plus 50Mi, at most 25% of memory. Needs O(max_pods).
      - C(aks-legacy) - AKS before 1.29, the GKE memory tiers and C(memory.available<750Mi).
      - C(openshift) - OpenShift's C(autoSizingReserved) (machine-config-operator's sizing script, version 2) -
        1Gi up to 8Gi of memory then 6% and 2% tiers on whole GiB, C(60m + 12m) per further CPU with a
        C(500m) floor, C(1Gi) of ephemeral storage. OpenShift writes it as C(systemReserved); here it is
        C(kubeReserved) like the other profiles.
      - C(measured) - what the node was seen to use - O(measured_reservation), the C(recommendation) of
        M(kubenode.cgroups.reservation_info) for this node, each value held between a floor (128Mi, 100m) and
        half the node; C(systemReserved) and C(kubeReserved) given explicitly win over it.
      - Fractions are floored - CPU per tier in millicores, memory to whole MiB.
    type: str
    choices: [static, gke, eks, aks, aks-legacy, openshift, measured]
    default: static
  measured_reservation:
    description:
      - For O(profile=measured) - C(system_reserved) and C(kube_reserved), each a mapping of C(cpu) and
        C(memory) quantities, as the C(recommendation) of M(kubenode.cgroups.reservation_info) gives them.
    type: dict
  min_memory_reserved:
    description:
      - A floor under a profile's memory - C(systemReserved) and C(kubeReserved) together keep at least this much
        from pods; the profile's C(kubeReserved.memory) is raised to meet it. Applies when a profile other than
        C(measured) sizes C(kubeReserved) and O(kube_reserved) names no C(memory). The collection's own rule, not a
        managed service's.
      - On a small node a profile's formula leaves C(kubepods) a limit above what the machine can give beside its
        daemons, and the node thrashes instead of OOM-killing inside C(kubepods) - C(make protection) measured a
        1 GiB kubeadm node NotReady for 27 s under GKE's 255Mi (docs/protection.md). The C(node_allocatable) role
        sets C(512Mi).
    type: str
  max_pods:
    description:
      - KubeletConfiguration C(maxPods). Adds C(pods) to the capacity, and sizes the C(eks) and
        C(aks) profiles. The plan carries it as C(max_pods), which M(kubenode.cgroups.kubelet_config) writes.
      - M(kubenode.cgroups.node_cgroups) without it plans with kubelet's own C(maxPods) (from its
        configuration, else kubelet's default 110) and writes none.
    type: int
  proc_path:
    description:
      - Where C(/proc) is, for capacity detection.
    type: path
    default: /proc
  sys_path:
    description:
      - Where C(/sys) is, for capacity detection.
    type: path
    default: /sys
  kubelet_root_dir:
    description:
      - kubelet's root directory, whose filesystem gives C(ephemeral-storage) when detected.
    type: path
    default: /var/lib/kubelet
"""
