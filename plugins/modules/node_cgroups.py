#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: node_cgroups
short_description: Create and write the kubepods, QoS, system-reserved and kube-reserved cgroups kubelet needs
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Makes a node ready before kubelet starts. kubelet never creates C(systemReservedCgroup) or
    C(kubeReservedCgroup) and refuses to start without them.
  - With the C(cgroupfs) driver on cgroup v2, creates the directories, enables the controllers
    the root offers among cpu, cpuset, memory, hugetlb and pids in every ancestor's
    C(cgroup.subtree_control), and writes the planned v2 files.
  - With the C(cgroupfs) driver on cgroup v1 or hybrid hosts, creates the directory in every
    hierarchy kubelet validates (cpu, cpuacct, cpuset, memory, pids, name=systemd, and hugetlb when
    mounted), gives new cpusets their parent's CPUs and memory nodes, and writes the planned v1 files.
  - With the C(systemd) driver, writes a slice unit per cgroup (a drop-in for slices systemd
    ships, such as C(system.slice)) with the properties for the host's cgroup version, runs
    C(daemon-reload) only when a unit changed, starts the slices, and creates the cpuset and
    hugetlb directories systemd does not make on v1 (kubernetes issue 125763) or enables those
    controllers on v2.
  - The kernel is the source of truth for both drivers. Every planned value is compared with the
    kernel's own file (after the unit file and C(systemctl show) with the systemd driver), and only
    what differs is written, so a second run reports no change; kernel rounding to page size is allowed
    for. With the systemd driver a value changed behind systemd's back is written back to the kernel,
    and property overrides (C(systemctl set-property), see O(systemd_control_dirs)) that disagree with
    the plan are removed; the module never leaves overrides of its own.
  - With the systemd driver the hugetlb limits of the reserved slices are written too (systemd has no
    property for them; kubelet writes those of C(kubepods) and the QoS tiers itself).
  - With O(persist) (the default) the node stays right without Ansible. A generated POSIX sh script
    (O(persist_script)), run at every boot by C(kubenode-cgroups.service) (ordered before kubelet) and
    before every kubelet start by an C(ExecStartPre=) drop-in, recreates what kubelet checks at start and
    what cgroupfs forgets at a reboot or systemd drops at a C(daemon-reload) - directories in every v1
    hierarchy, filled cpusets, controllers in C(cgroup.subtree_control), and the values of cgroups
    systemd does not own (all of them with the C(cgroupfs) driver; hugetlb, and on v1 cpuset, with the
    C(systemd) driver, whose slices systemd restores itself). The script is run once when it changes,
    so a script the kernel refuses fails the task, not the next boot.
  - Raises limits parents first and lowers them children first, so the kernel never sees a child
    above its parent. When the kernel refuses a value, fails naming the file, the value and the
    kernel's error, and lists what was already applied.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.node_root
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.plan
  - kubenode.cgroups.extra_feature_gates
  - kubenode.cgroups.systemd_overrides
  - kubenode.cgroups.pod_impact
attributes:
  check_mode:
    support: full
    details:
      - Nothing is created, written, reloaded or started; the result lists what would change.
  diff_mode:
    support: full
    details:
      - Before and after of every cgroup file and unit file.
  platform:
    support: full
    platforms: posix
options:
  plan:
    description:
      - The result of M(kubenode.cgroups.allocatable_info), to apply instead of computing the plan
        from the other options. It must have been computed for the same O(cgroup_driver).
    type: dict
  cgroups:
    description:
      - Which cgroups to manage. Defaults to C(kubepods), C(burstable) and C(besteffort), plus
        C(system_reserved) and C(kube_reserved) when their cgroup is named.
    type: list
    elements: str
    choices: [kubepods, burstable, besteffort, system_reserved, kube_reserved]
  state:
    description:
      - V(present) creates and writes the cgroups; V(absent) removes them (and their units),
        refusing while processes are inside.
    type: str
    choices: [present, absent]
    default: present
  cgroupfs_path:
    description:
      - Where the cgroup filesystem is mounted. Tests point this at a fake tree.
    type: path
    default: /sys/fs/cgroup
  systemd_unit_dir:
    description:
      - Where slice units and drop-ins are written for the C(systemd) driver.
    type: path
    default: /etc/systemd/system
  persist:
    description:
      - Put the cgroups back at every boot and before every kubelet start, through O(persist_script),
        C(kubenode-cgroups.service) (enabled for C(multi-user.target)) and a drop-in
        C(45-kubenode-cgroups.conf) for O(kubelet_service). V(false) removes them.
      - Needs systemd as PID 1; without it the module warns that nothing survives a reboot.
      - O(state=absent) removes them too, since the script would bring the removed cgroups back.
    type: bool
    default: true
  persist_script:
    description: Where the generated boot script is written.
    type: path
    default: /usr/local/libexec/kubenode-cgroups-restore
  generations_dir:
    description:
      - Where the node keeps its generations (the way back). Before its first write a run keeps there what each write
        replaces - files byte for byte with their mode, a link's target, a file's absence, cgroup values as the
        kernel held them - with a script that puts them back. The node keeps the last three; nothing else is
        written. M(kubenode.cgroups.node_generation) confirms or rolls back the newest.
      - The boot script checks it first, and a change still unconfirmed when the node booted is reverted before
        kubelet starts.
      - Unset, C(/var/lib/kubenode-cgroups/generations) on the node O(cgroupfs_path) belongs to (under the same root
        for a fake node's C(ROOT/sys/fs/cgroup), beside O(cgroupfs_path) for another tree), as O(lock_path).
    type: path
  confirm_timeout:
    description:
      - Seconds the change has to be confirmed (M(kubenode.cgroups.node_generation) V(confirmed)) before the node
        reverts it by itself, with a transient systemd timer (C(systemd-run --on-active)) armed before the first write.
        A reboot inside the window boots into the last known good state.
      - V(0) arms no revert; the generation is kept, confirmed, for a rollback on demand. The node_allocatable
        role sets it (V(120) by default) and confirms once its gate passed.
      - Without systemd as PID 1 no timer is armed and the generation waits for its confirmation.
    type: int
    default: 0
  kubelet_service:
    description: kubelet's systemd unit, which gets the C(ExecStartPre=) drop-in and is ordered after the boot unit.
    type: str
    default: kubelet.service
  lock_path:
    description:
      - The node lock. A run that writes holds it from the first read to the last write, so two runs on one
        node (two operators, two controllers) do not interleave; the kernel releases it when its holder dies.
        Check mode takes no lock.
      - Unset, C(/run/lock/kubenode-cgroups.lock) on the node O(cgroupfs_path) belongs to - under the same root
        when O(cgroupfs_path) is a fake node's C(ROOT/sys/fs/cgroup), beside O(cgroupfs_path) when it is another
        tree - so that a run against a fake node never takes this machine's lock.
    type: path
  lock_timeout:
    description: Seconds to wait for the node lock before failing with the holder's pid.
    type: int
    default: 300
  accept_impact:
    description:
      - Apply a plan whose RV(impact) is not empty - pods kubelet would no longer admit when it restarts with the
        new Allocatable (or that a critical pod would preempt), or a memory limit lowered under its cgroup's working
        set. Without it such a plan is refused before the first write, the impact its message, in check mode
        too.
    type: bool
    default: false
  verify:
    description:
      - After a run that changed something, read the node back (the kernel's cgroup files, systemd's slices and
        overrides, the kubelet and runtime configuration) and return the comparison with the plan as
        RV(verification), the same as M(kubenode.cgroups.node_drift_info) reports, in the same round trip.
      - The services in RV(restart_pending) are left out of it - their restart, after this module, moves them.
      - Not in check mode, where nothing was written.
    type: bool
    default: false
  use_receipt:
    description:
      - Answer from the receipt of the last run when the node still reads the same, without planning again.
      - A run that leaves nothing to change keeps its result on the node with every read that decided it (files,
        directories, commands, in the order read), under C(/run/kubenode-cgroups/) below O(node_root) (beside the
        lock when O(lock_path) is given). The next run with the same options and the same collection asks every
        read again in the same order; when each answers the same it returns the kept result (RV(receipt.used)),
        else it plans as usual. A check run uses a receipt but never keeps one. A boot clears it.
      - What moves all the time while the plan does not (the free memory beside C(MemTotal), the PIDs in C(/proc),
        a filesystem's free blocks, the clock) is compared by what the run takes from it (the total, the kubelet
        processes, the capacity, the services to restart).
      - V(false) plans every run and keeps no receipt.
    type: bool
    default: true
  cgroup_driver:
    description:
      - The cgroup driver to apply with (and to plan for). V(auto) uses kubelet's configured
        C(cgroupDriver), else the container runtime's, else V(systemd) when systemd is PID 1.
    type: str
    choices: [auto, cgroupfs, systemd]
    default: auto
  services:
    description:
      - systemd services to run in the kube-reserved slice (for example C(kubelet) and C(containerd)),
        through a C(Slice=) drop-in, leaving every other service in C(system.slice). Services that are
        not installed are skipped. With the C(systemd) driver this needs O(kube_reserved_cgroup).
      - The module reloads systemd but restarts nothing; RV(services_changed) says which services need a
        restart to move. With the C(cgroupfs) driver there is no slice to place them in, so the services are
        only looked up, for RV(services_not_installed).
    type: list
    elements: str
    default: []
  kubelet_config:
    description:
      - Also write the plan into the kubelet configuration, as M(kubenode.cgroups.kubelet_config)
        does with its C(plan) option, in the same round trip. The merged
        configuration is validated before any cgroup, unit or file is touched, so a configuration kubelet
        would refuse leaves the node as it was.
      - Only with O(state=present).
    type: dict
    suboptions:
      kubelet_config_path:
        aliases: [path]
        description:
          - The kubelet configuration file (C(--config)).
          - When unset, the C(--config) of kubelet's unit as systemd starts it (C(ExecStart) with its
            C(Environment=) and C(EnvironmentFile=), so kubeadm's C(kubeadm-flags.env) and kubespray's
            C(kubelet.env) count), else of the running kubelet, else C(/var/lib/kubelet/config.yaml) or
            C(/etc/kubernetes/kubelet-config.yaml), whichever exists (kubeadm's first). RV(kubelet_config.choice)
            says which and why.
          - A path kubelet is not started with is refused.
        type: path
      kubelet_config_dropin:
        aliases: [dropin]
        description:
          - Write only the keys to O(kubelet_config.kubelet_dropin_dir)/O(kubelet_config.kubelet_dropin_name), leaving
            O(kubelet_config.kubelet_config_path) byte for byte alone.
          - When unset, a drop-in is written exactly when kubelet runs with a C(--config-dir) (it survives
            C(kubeadm upgrade), which rewrites the main file).
          - True on a kubeadm node whose kubelet has no C(--config-dir) adds one to C(KUBELET_EXTRA_ARGS) in
            C(/etc/default/kubelet) (or C(/etc/sysconfig/kubelet)), the file kubeadm's unit reads and kubeadm never
            writes, and restarts kubelet.
        type: bool
      kubelet_dropin_dir:
        aliases: [dropin_dir]
        description:
          - kubelet's C(--config-dir). When unset, the one kubelet is started with, else
            C(/etc/kubernetes/kubelet.conf.d). A directory kubelet is not started with is refused.
        type: path
      kubelet_dropin_name:
        aliases: [dropin_name]
        description: The drop-in file this module owns, in O(kubelet_config.kubelet_dropin_dir).
        type: str
        default: 50-kubenode.conf
      kubelet_settings:
        aliases: [settings]
        description: Further KubeletConfiguration keys, as the C(settings) option of
          M(kubenode.cgroups.kubelet_config) takes them; they override the plan's.
        type: dict
        default: {}
      allow_driver_mismatch:
        description: Write even when C(cgroupDriver) disagrees with the container runtime's configured driver.
        type: bool
        default: false
      backup:
        description: Keep a timestamped copy of the file before changing it.
        type: bool
        default: false
  kubelet_config_paths:
    description:
      - kubelet configuration files read by O(cgroup_driver=auto), first found wins, when neither kubelet's
        unit nor a running kubelet says which file kubelet reads.
      - The same file gives kubelet's C(maxPods) when O(max_pods) is not set.
    type: list
    elements: path
    default: [/var/lib/kubelet/config.yaml, /etc/kubernetes/kubelet-config.yaml]
  kubelet_version:
    description:
      - The kubelet release whose rules the plan follows. V(auto) (the default) asks the node - the binary
        kubelet's unit starts (or the running kubelet's), with C(--version) - and plans for that release.
      - A release named here that differs from the node's is refused with both named, unless
        O(allow_kubelet_version_mismatch) (a plan made ahead of an upgrade). A node whose kubelet is newer or
        older than the supported range is refused, never planned with another release's rules.
      - When no kubelet can be asked, the newest GA release (1.37), with a warning that says so.
      - The result's RV(plan.kubelet_version_source) says where the release came from.
    type: str
    default: auto
  allow_kubelet_version_mismatch:
    description:
      - Plan for the O(kubelet_version) given although the node's kubelet reports another release, as before
        an upgrade to it.
    type: bool
    default: false
  kubelet_binary:
    description:
      - The kubelet binary asked for its release when O(kubelet_version=auto). Unset, the one kubelet's unit
        (or the running kubelet) starts; an empty string asks none (a fake node under a root directory).
    type: path
requirements:
  - PyYAML on the target, for O(kubelet_config)
notes:
  - C(kubepods) and the QoS tiers are created (directories, cpusets, controllers, slice units) but their values
    are kubelet's - it writes C(kubepods) at every start from the capacity it reads then, and the QoS tiers at
    every start, every minute and at every pod change (burstable's CPU is its pods' requests), over D-Bus with
    the systemd driver. The plan shows those values; the module neither writes nor compares them, nor removes
    kubelet's property overrides on those slices, so it never fights kubelet, and a reboot that moves
    C(MemTotal) is no drift. That kubelet enforces the plan is what the kubelet configuration and
    RV(restart_pending) say.
  - On a systemd host with cgroup v2, C(systemctl daemon-reload) takes controllers out of the root
    C(cgroup.subtree_control) that no unit needs, so raw cgroupfs cgroups can silently lose
    C(cpu.weight) until kubelet restarts (when the boot script puts it back). The module warns when the
    C(cgroupfs) driver is used there; the C(systemd) driver is the supported choice.
  - With the C(cgroupfs) driver, a reserved cgroup systemd owns (C(/system.slice)) is reset by systemd
    at every C(daemon-reload); the module warns and names what to use instead.
  - The systemd driver fails up front, before writing anything, when systemd is not PID 1.
seealso:
  - module: kubenode.cgroups.allocatable_info
  - module: kubenode.cgroups.cgroup_info
"""

EXAMPLES = r"""
- name: Create the reserved slices and kubepods before kubelet starts
  kubenode.cgroups.node_cgroups:
    cgroup_driver: systemd
    system_reserved: {cpu: 500m, memory: 1Gi}
    kube_reserved: {cpu: 250m, memory: 512Mi}
    system_reserved_cgroup: /system.slice
    kube_reserved_cgroup: /kube.slice
    enforce_node_allocatable: [pods, kube-reserved]

- name: Apply a plan computed earlier
  kubenode.cgroups.node_cgroups:
    plan: "{{ node_plan }}"
    cgroup_driver: "{{ node_plan.cgroup_driver }}"

- name: Create the cgroups and write the kubelet configuration in one round trip
  kubenode.cgroups.node_cgroups:
    cgroup_driver: systemd
    system_reserved: {cpu: 500m, memory: 1Gi}
    kube_reserved: {cpu: 250m, memory: 512Mi}
    kube_reserved_cgroup: /kube.slice
    enforce_node_allocatable: [pods, kube-reserved]
    # The file and drop-in directory kubelet is started with are found on the node.
    kubelet_config:
      backup: true

- name: Remove the cgroups again
  kubenode.cgroups.node_cgroups:
    state: absent
    cgroup_driver: cgroupfs
    cgroups: [besteffort, burstable, kubepods]
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
impact:
  description:
    - What the plan does to what runs on the node, computed before anything is written (docs/guide.md, "What a
      change does to running pods").
    - C(pods) is kubelet's admission of the pods found (static manifests and O(pods)) against the plan's
      Allocatable, in kubelet's order - C(refused) those that run now (or whose state is unknown) and would not be
      admitted, each with kubelet's reason (C(OutOfmemory), C(OutOfcpu), ...) and message; C(at_risk) the static
      pods that fit alone but not all together, which kubelet's random order of static pods decides; C(preempting) the
      critical pods that would preempt others; C(source) where the pods came from. None when no pods are known
      (C(pods_unknown) says why).
    - C(memory) lists the cgroups whose new memory limit is below their working set now (use less reclaimable page
      cache) - kubepods, the enforced reserved cgroups, and with C(qosReserved) the QoS tiers.
    - C(effects) is one line per effect; a non-empty list is what O(accept_impact) must accept.
  returned: when state is present
  type: dict
  sample:
    pods: {source: static pods (/etc/kubernetes/manifests), count: 2, refused: [], preempting: []}
    memory: []
    pods_unknown: null
    effects: []
changes:
  description: What was changed (or would be, in check mode), in order.
  returned: always
  type: list
  elements: str
  sample: ["mkdir /sys/fs/cgroup/kubepods", "write /sys/fs/cgroup/kubepods/cpu.weight: 100 -> 385"]
cgroup_mode:
  description: The host's cgroup mode.
  returned: always
  type: str
  sample: v2
driver:
  description: The cgroup driver used.
  returned: always
  type: str
  sample: systemd
managed:
  description: For each managed cgroup, the path written for the driver used.
  returned: always
  type: dict
  sample: {kubepods: /kubepods.slice}
services_changed:
  description: Services whose slice drop-in was written or removed; they need a restart to move.
  returned: always
  type: list
  elements: str
  sample: [containerd.service]
services_not_installed:
  description: Services asked for in O(services) that systemd does not know.
  returned: always
  type: list
  elements: str
  sample: [crio.service]
kubelet_config:
  description: What was done with the kubelet configuration, when O(kubelet_config) was given.
  returned: when kubelet_config is given and state is present
  type: dict
  contains:
    changed:
      description: Whether the file changed (or would, in check mode).
      type: bool
    path:
      description: The file written (or that would be).
      type: str
    config:
      description: The merged configuration kubelet will read, for the managed keys.
      type: dict
    choice:
      description: The configuration file and drop-in directory kubelet reads, whether a drop-in is written,
        and why (which unit, process or known layout said so).
      type: dict
      sample: {path: /var/lib/kubelet/config.yaml, dropin: true, dropin_dir: /etc/kubernetes/kubelet.conf.d,
               reason: the --config of the kubelet.service unit; a drop-in in --config-dir /etc/kubernetes/kubelet.conf.d}
    backup_file:
      description: The backup copy, when one was made.
      type: str
  sample: {changed: true, path: /var/lib/kubelet/config.yaml, config: {cgroupDriver: systemd}}
plan:
  description: The plan applied, as M(kubenode.cgroups.allocatable_info) returns it, so that later tasks
    (M(kubenode.cgroups.kubelet_config), M(kubenode.cgroups.node_drift_info)) need no second round trip
    to compute it.
  returned: success
  type: dict
  sample: {cgroup_driver: systemd, allocatable: {cpu: {quantity: 3250m, value: 3250}}}
  contains:
    kubelet_version:
      description: The kubelet release whose rules the plan follows.
      type: str
      sample: '1.33'
    kubelet_version_source:
      description: Where that release came from (the node's kubelet binary, the operator, or the newest GA
        release when no kubelet could be asked).
      type: str
      sample: /usr/bin/kubelet --version of the kubelet.service unit (Kubernetes v1.33.4)
verification:
  description:
    - With O(verify) and a change, the node read back after the writes - C(drift) (a list of C(item), C(check),
      C(live), C(planned); empty when the node matches its plan), C(cgroup_mode), C(systemd), C(drivers) and
      C(plan) - the shape M(kubenode.cgroups.node_drift_info) returns.
  returned: when O(verify) is true, the run changed the node and was not in check mode
  type: dict
  sample: {drift: [], cgroup_mode: v2, systemd: {pid1: true}, drivers: {mismatch: false}}
restart_pending:
  description:
    - Services whose main process started before a file they read was last written (kubelet and its
      configuration), or that run outside the slice their C(Slice=) drop-in names, after this run's
      writes. Derived from the node, not remembered, so a run interrupted before its restart is completed
      by the next one. Empty without systemd as PID 1. The module restarts nothing itself.
  returned: success
  type: list
  elements: dict
  contains:
    service:
      description: The systemd unit.
      type: str
    reason:
      description: Why it needs a restart.
      type: str
  sample: [{service: kubelet.service, reason: /var/lib/kubelet/config.yaml changed after it started}]
persistence:
  description: The files that put the cgroups back at boot and before kubelet starts, and whether any
    changed (or would, in check mode). Null when O(persist=false) or systemd is not PID 1.
  returned: success
  type: dict
  sample: {script: /usr/local/libexec/kubenode-cgroups-restore, unit: /etc/systemd/system/kubenode-cgroups.service,
           wants_link: /etc/systemd/system/multi-user.target.wants/kubenode-cgroups.service,
           kubelet_dropin: /etc/systemd/system/kubelet.service.d/45-kubenode-cgroups.conf, changed: false}
generation:
  description:
    - The node's newest generation (the way back), or null when it has none - C(state) V(pending) (inside its
      confirmation window), V(confirmed), V(rolled-back) with C(mode) and C(reason), V(superseded) or
      V(revert-failed); C(restores) what a rollback would put back, C(restarts) the services it would restart, and
      C(summary) a line that says it.
  returned: success
  type: dict
  sample: {id: "000002", state: confirmed, since: 1796000000, restores: [{kind: file, path: /var/lib/kubelet/config.yaml}],
           restarts: [kubelet.service], summary: generation 000002 confirmed}
receipt:
  description:
    - Whether the receipt of the last run answered (O(use_receipt)); if not, why not, and whether this run kept one.
  returned: success
  type: dict
  sample: {used: false, why: 'the node reads differently: open /sys/fs/cgroup/kubepods/memory.max', kept: true}
  contains:
    used:
      description: The result is the receipt's, every read of the node answering as when it was kept.
      type: bool
    path:
      description: The receipt, when used.
      type: str
    reads:
      description: The reads asked again, when used.
      type: int
    why:
      description: Why no receipt answered, when not used.
      type: str
    kept:
      description: This run kept its receipt, when not used.
      type: bool
    why_not_kept:
      description: Why this run kept none (a check run, changes left, a read not traced).
      type: str
applied:
  description: On failure, the changes that had been made before the kernel refused one.
  returned: failure
  type: list
  elements: str
"""

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, INPUT, HostError, KubenodeError, failure_of, nothing_written
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_module import NodeModule
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _receipt
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import node_cgroups_argument_spec


def run_planner(module, not_answered):
    """The run past the receipt: the planner imported (most of what this module costs the node) and run."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_run import run_and_keep

    if module.params['kubelet_config'] and not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib('PyYAML'), exception=kc.YAML_IMPORT_ERROR, failure=HOST)
    try:
        spec = NodeSpec(module.params, module.check_mode)
    except KubenodeError as error:
        module.fail_json(msg=nothing_written(str(error)), failure=INPUT)
    result, not_kept = run_and_keep(module, spec)
    result['receipt'] = {'used': False, 'why': not_answered, 'kept': not_kept is None}
    if not_kept:
        result['receipt']['why_not_kept'] = not_kept
    return result


def main():
    module = NodeModule(argument_spec=node_cgroups_argument_spec(), supports_check_mode=True)
    if module.params['kubelet_config'] and module.params['state'] == 'absent':
        module.fail_json(msg='the kubelet configuration is written only with state=present, not with state=absent. '
                             'Nothing was written.', failure=INPUT)
    try:
        result, not_answered = _receipt.answer(module)
    except HostError as error:  # the node lock, held past lock_timeout
        module.fail_json(msg=nothing_written(str(error)), failure=failure_of(error))
    if result is None:
        result = run_planner(module, not_answered)
    for warning in result.pop('warnings'):
        module.warn(warning)
    diff = result.pop('diff', [])
    if result.pop('failed', False):
        module.fail_json(**result)
    if module._diff:
        result['diff'] = diff
    module.exit_json(**result)


if __name__ == '__main__':
    main()
