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
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.plan
  - kubenode.cgroups.extra_feature_gates
  - kubenode.cgroups.systemd_overrides
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
  verify:
    description:
      - After a run that changed something, read the node back (the kernel's cgroup files, systemd's slices and
        overrides, the kubelet and runtime configuration) and return the comparison with the plan as
        RV(verification), the same as M(kubenode.cgroups.node_drift_info) reports, in the same round trip.
      - The services in RV(restart_pending) are left out of it - their restart, after this module, moves them.
      - Not in check mode, where nothing was written.
    type: bool
    default: false
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
      - When no kubelet can be asked, the newest supported release, with a warning that says so.
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
  - kubelet rewrites C(kubepods) and the QoS tiers when it starts and every minute; writing them
    here makes the node match the plan before kubelet runs and lets check mode show drift.
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
      description: Where that release came from (the node's kubelet binary, the operator, or the newest supported
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
applied:
  description: On failure, the changes that had been made before the kernel refused one.
  returned: failure
  type: list
  elements: str
"""

import contextlib
import errno
import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kubenode.cgroups.plugins.module_utils import _boot_persistence as boot
from ansible_collections.kubenode.cgroups.plugins.module_utils import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils import _drift
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils import _preflight as preflight
from ansible_collections.kubenode.cgroups.plugins.module_utils import _restarts as restarts
from ansible_collections.kubenode.cgroups.plugins.module_utils import _systemd_overrides as overrides
from ansible_collections.kubenode.cgroups.plugins.module_utils._allocatable import plan_argument_spec
from ansible_collections.kubenode.cgroups.plugins.module_utils._audit import audit_node
from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils._files import replace_file
from ansible_collections.kubenode.cgroups.plugins.module_utils._node_lock import NodeLock
from ansible_collections.kubenode.cgroups.plugins.module_utils._node_snapshot import read_cgroups, read_node
from ansible_collections.kubenode.cgroups.plugins.module_utils._runtime_config import runtime_files_argument_spec


class NodeCgroups(object):
    """What both drivers share: resolving the plan, running operations, files, systemctl, persistence.

    Each driver is an executor of its own (CgroupfsDriver, SystemdDriver); present() runs the same steps for
    both. (kubelet has one cgroup manager per cgroup version, with the driver as a parameter: this split
    follows what differs here, how the cgroups come to exist - mkdir, or a slice systemd starts.)
    """

    def __init__(self, module, node, run):
        self.module = module
        self.params = module.params
        self.root = self.params['cgroupfs_path']
        self.unit_dir = self.params['systemd_unit_dir']
        self.layout, self.systemd_running = node.layout, node.systemd_running
        self.driver, self.plan, self.entries = run.driver, run.plan, run.entries
        self.kubelet_change = run.kubelet_change
        self.kernel = None  # the CgroupSnapshot the kernel operations are planned from
        self.applied, self.changes, self.diffs, self.warnings = [], [], [], list(run.warnings)
        self.services_changed, self.skipped_services = [], []
        self.persistence = None
        self.boot_operations = None

    # Driver specifics -----------------------------------------------------------
    def path_for(self, entry):
        raise NotImplementedError

    def prepare_units(self):
        """Units, drop-ins and overrides to write before the reload; True when systemd must reload."""
        raise NotImplementedError

    def start_units(self):
        """After the reload: what systemd must start or still shows differently. True when one was started."""
        return False

    def kernel_entries(self, boot):
        """[(key, entry)] for the cgroupfs planner: live (boot=False) or for the boot script (boot=True)."""
        raise NotImplementedError

    def kernel_options(self):
        return {}

    # Shared -----------------------------------------------------------------------
    def missing_file(self, key, path):
        raise KubenodeError('%s has no %s: the controller is not enabled for it' % (key, os.path.basename(path)),
                            field=key, value=path)

    def cgroupfs_entries(self, boot=False):
        return [(k, dict(e, cgroupfs_path=self.path_for(e))) for k, e in self.kernel_entries(boot)]

    def read_kernel(self):
        self.kernel = read_cgroups(self.layout, self.root, self.cgroupfs_entries())

    def kernel_operations(self, boot=False):
        controllers = ops.offered_controllers(self.root, self.kernel) if self.layout['mode'] == 'v2' else []
        return ops.plan_cgroupfs(self.cgroupfs_entries(boot), self.layout, self.root, controllers, self.missing_file,
                                 ops.EMPTY_STATE if boot else self.kernel, **self.kernel_options())

    def write_targets(self):
        """[(option, path)] of the directories this run may write into, for the pre-flight."""
        # On v1 /sys/fs/cgroup itself is a read-only tmpfs: the hierarchies mounted in it are written.
        mounts = [self.root] if self.layout['mode'] == 'v2' else sorted(self.layout['v1_hierarchies'].values())
        targets = [('cgroupfs_path', mount) for mount in mounts]
        persisting = self.params['persist'] and self.systemd_running
        if self.driver == 'systemd' or persisting:
            targets.append(('systemd_unit_dir', self.unit_dir))
        if persisting:
            targets.append(('persist_script', os.path.dirname(self.params['persist_script'])))
        if self.kubelet_change and self.kubelet_change['changed']:
            targets.append(('kubelet_config', os.path.dirname(self.kubelet_change['path'])))
        return targets

    def preflight(self):
        """Refuse up front, before the first write, what would fail half-way: read-only or full targets,
        and a kernel plan that cannot be made (a controller the root does not offer)."""
        for option, directory in self.write_targets():
            problem = preflight.writable_directory_problem(directory, room=option != 'cgroupfs_path')
            if problem:
                raise KubenodeError('%s: nothing was written' % problem, field=option, value=directory)
        self.read_kernel()
        self.kernel_operations()
        self.boot_operations = self.kernel_operations(boot=True)

    def present(self):
        self.preflight()
        reload_needed = self.prepare_units()
        reload_needed = self.persist() or reload_needed
        if reload_needed and self.systemd_running:
            self.changes.append('systemctl daemon-reload')
            if not self.module.check_mode:
                self.checked_systemctl('daemon-reload')
        if self.start_units() or (reload_needed and not self.module.check_mode):
            self.read_kernel()  # systemd has re-realized the slices: their cgroups are not what was read
        for operation in self.kernel_operations():
            self.run(operation)
        if self.persistence and self.persistence['changed'] and self.systemd_running:
            # Runs the new script once now, so a script this kernel refuses fails here, not at the next boot.
            self.changes.append('systemctl restart %s' % boot.UNIT_NAME)
            if not self.module.check_mode:
                self.checked_systemctl('restart', boot.UNIT_NAME)

    def run(self, operation):
        if operation.kind == 'write' and '.rsvd.' in operation.path and not self.module.check_mode \
                and not os.path.exists(operation.path):
            return  # kernels before 5.7 have no hugetlb reservation files; libcontainer skips them too
        self.changes.append(operation.describe())
        if operation.kind in ('write', 'enable'):
            self.diffs.append({'before_header': operation.path, 'after_header': operation.path,
                               'before': '%s\n' % (operation.before or ''), 'after': '%s\n' % operation.value})
        if self.module.check_mode:
            return
        if operation.kind == 'mkdir':
            self._os(os.mkdir, operation.path)
        elif operation.kind == 'copy':
            for name in ('cpuset.cpus', 'cpuset.mems'):
                if not fs.read_file(os.path.join(operation.path, name)):
                    fs.write_file(os.path.join(operation.path, name),
                                  fs.read_file(os.path.join(operation.value, name)) or '')
        elif operation.kind in ('write', 'enable'):
            fs.write_file(operation.path, operation.value)
        elif operation.kind == 'rmdir':
            self._os(os.rmdir, operation.path)
        self.applied.append(operation.describe())

    def persist(self):
        """Write (or, with persist=false, remove) the boot script, its unit and kubelet's drop-in."""
        files = boot.paths(self.unit_dir, self.params['persist_script'], self.kubelet_unit())
        if not self.params['persist']:
            return self.remove_persistence(files)
        if not self.systemd_running:
            self.warnings.append('systemd is not PID 1 here, so nothing will put these cgroups back after a '
                                 'reboot: kubelet will refuse to start until node_cgroups runs again (persist)')
            return False
        slices = [e['systemd_unit'] for _k, e in self.entries] if self.driver == 'systemd' else []
        wanted = {
            files['script']: (boot.script(self.boot_operations, self.driver, self.layout['mode']), 0o755),
            files['unit']: (boot.unit(files['script'], self.kubelet_unit(), slices), 0o644),
            files['kubelet_dropin']: (boot.kubelet_dropin(files['script']), 0o644),
        }
        changed = False
        for path in (files['script'], files['unit'], files['kubelet_dropin']):
            changed = self.ensure_file(path, *wanted[path]) or changed
        link = files['wants_link']
        if not (os.path.islink(link) and os.readlink(link) == files['unit']):
            self.changes.append('enable %s (link %s)' % (boot.UNIT_NAME, link))
            if not self.module.check_mode:
                self.link(files['unit'], link)
            changed = True
        self.persistence = dict(files, changed=changed)
        return changed

    def remove_persistence(self, files):
        removed = False
        for path in (files['wants_link'], files['kubelet_dropin'], files['unit'], files['script']):
            if os.path.lexists(path):
                self.changes.append('remove %s' % path)
                if not os.path.islink(path):
                    self.diffs.append({'before_header': path, 'after_header': path,
                                       'before': (fs.read_file(path) or '') + '\n', 'after': ''})
                if not self.module.check_mode:
                    self._os(os.remove, path)
                    self.applied.append('removed %s' % path)
                removed = True
        return removed

    def ensure_file(self, path, content, mode):
        """Write a whole file atomically when it differs; True when it did (or would)."""
        current = fs.read_file(path)
        if current is not None and current.strip() == content.strip():
            return False
        self.changes.append(('update %s' if current is not None else 'create %s') % path)
        self.diffs.append({'before_header': path, 'after_header': path,
                           'before': (current + '\n') if current else '', 'after': content})
        if not self.module.check_mode:
            self.write_unit(path, content, mode)
            self.applied.append('wrote %s' % path)
        return True

    def link(self, target, path):
        directory = os.path.dirname(path)
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)
        self.applied.append('linked %s' % path)

    def kubelet_unit(self):
        return _drift.service_name(self.params['kubelet_service'])

    def find_restarts(self):
        """Services that run with an older configuration or slice than the one on disk (after this run's
        writes, so an interrupted run's restart is found again by the next run)."""
        if not self.systemd_running:
            return []
        kubelet = self.kubelet_unit()
        watched = {}
        if self.kubelet_change:
            watched[kubelet] = {'files': [self.kubelet_change['path']], 'slice_path': None}
        kube_reserved = dict(self.entries).get('kube_reserved')
        if self.driver == 'systemd' and kube_reserved:
            for service in [_drift.service_name(s) for s in self.params['services']]:
                dropin = os.path.join(self.unit_dir, service + '.d', ops.SERVICE_DROPIN_NAME)
                if os.path.exists(dropin) and service not in self.skipped_services:
                    entry = watched.setdefault(service, {'files': [], 'slice_path': None})
                    entry['files'].append(dropin)
                    entry['slice_path'] = kube_reserved['systemd_path']
        if not watched:
            return []
        shown = restarts.read_units(self.systemctl, sorted(watched))
        files = [path for entry in watched.values() for path in entry['files']]
        return restarts.pending(watched, shown, restarts.file_mtimes(files))

    def write_kubelet_config(self):
        """Returns kubelet_config's result."""
        change = self.kubelet_change
        result = kc_file.summary(change)
        if change['changed']:
            self.changes.append('write %s' % change['path'])
            self.diffs.append(kc_file.diff(change))
            if not self.module.check_mode:
                with kc_file.failures_raise(self.module):
                    backup_file = kc_file.write(self.module, change, self.params['kubelet_config']['backup'])
                self.applied.append('wrote %s' % change['path'])
                if backup_file:
                    result['backup_file'] = backup_file
        return result

    def _os(self, function, path):
        try:
            function(path)
        except OSError as error:
            raise fs.CgroupWriteError('%s %s failed: %s' % (function.__name__, path, os.strerror(error.errno or errno.EIO)),
                                      field=path)

    def systemctl(self, *args):
        systemctl = self.module.get_bin_path('systemctl', required=True)
        rc, out, err = self.module.run_command([systemctl] + list(args))
        return rc, out.strip(), err.strip()

    def checked_systemctl(self, *args):
        rc, out, err = self.systemctl(*args)
        if rc != 0:
            raise KubenodeError('systemctl %s failed: %s' % (' '.join(args), err or out), field='cgroup_driver',
                                value=self.driver)
        self.applied.append('systemctl %s' % ' '.join(args))

    def write_unit(self, path, content, mode=0o644):
        with kc_file.failures_raise(self.module):
            replace_file(self.module, path, content, mode)

    def installed_services(self):
        """The given services systemd knows; the rest go to services_not_installed."""
        names = [_drift.service_name(s) for s in self.params['services']]
        if not names or not self.systemd_running:
            self.skipped_services.extend(names)
            return []
        rc, out, _err = self.systemctl('show', '--property=Id,LoadState', *names)
        states = dict((unit, fields.get('LoadState')) for unit, fields in _drift.parse_systemctl_show(out).items())
        self.skipped_services.extend(n for n in names if states.get(n) != 'loaded')
        return [n for n in names if states.get(n) == 'loaded']

    def absent(self):
        reload_needed = self.remove_service_dropins()
        for key, entry in reversed(self.entries):
            relative = self.path_for(entry)
            shipped = self.driver == 'systemd' and entry['systemd_unit'] in ops.SYSTEMD_SHIPPED_SLICES
            if not shipped:
                self.refuse_if_busy(key, relative)
            reload_needed = self.remove_unit(entry) or reload_needed
            for directory in [] if shipped else self.directories(relative):
                if os.path.isdir(directory) and relative.strip('/'):
                    self.run(ops.Operation('rmdir', directory, cgroup=key))
        # The boot script would bring the removed cgroups back: it goes too (a later present run rewrites it).
        reload_needed = self.remove_persistence(
            boot.paths(self.unit_dir, self.params['persist_script'], self.kubelet_unit())) or reload_needed
        if reload_needed and self.systemd_running:
            self.changes.append('systemctl daemon-reload')
            if not self.module.check_mode:
                self.checked_systemctl('daemon-reload')

    def remove_service_dropins(self):
        """state=absent: the services' Slice= drop-ins (systemd driver). True when systemd must reload."""
        return False

    def remove_unit(self, entry):
        """state=absent: the slice's unit and overrides (systemd driver). True when systemd must reload."""
        return False

    def directories(self, relative):
        if self.layout['mode'] == 'v2':
            return [fs.cgroup_path(self.root, relative, 'path')]
        return [fs.cgroup_path(mount, relative, 'path') for mount in self.layout['v1_hierarchies'].values()]

    def refuse_if_busy(self, key, relative):
        for directory in self.directories(relative):
            for current, _dirs, files in os.walk(directory):
                if 'cgroup.procs' in files and (fs.read_file(os.path.join(current, 'cgroup.procs')) or '').strip():
                    raise KubenodeError('refusing to remove %s: processes are still inside %s' % (key, current),
                                        field='state', value='absent')


class CgroupfsDriver(NodeCgroups):
    """kubelet's cgroupfs manager: every directory, controller and value is ours to write."""

    def path_for(self, entry):
        return entry['cgroupfs_path']

    def prepare_units(self):
        self.installed_services()  # only looked up: the cgroupfs driver has no slice to place them in
        owned = [k for k, e in self.entries if self.systemd_running and _systemd_owned(e['cgroupfs_path'])]
        if owned:
            paths = ', '.join(dict(self.entries)[k]['cgroupfs_path'] for k in owned)
            self.warnings.append(
                '%s: systemd owns %s and resets its cpu, memory and pids values at every daemon-reload (and drops '
                'controllers no unit asks for), so the reservation is lost until kubelet restarts (the boot script '
                'puts it back then). Use the systemd cgroup driver, or a cgroup systemd does not own, such as '
                '/system-reserved.' % (', '.join(owned), paths))
        if self.layout['mode'] == 'v2' and self.systemd_running and not owned:
            self.warnings.append('systemd is PID 1 on this cgroup v2 host: "systemctl daemon-reload" removes '
                                 'controllers no unit needs from cgroup.subtree_control, so cgroupfs-driver cgroups '
                                 'can lose cpu.weight until kubelet restarts (the boot script puts it back then). '
                                 'The systemd cgroup driver is the supported choice here.')
        return False

    def kernel_entries(self, boot):
        return self.entries


class SystemdDriver(NodeCgroups):
    """kubelet's systemd manager: slice units hold the values systemd can express; the kernel is checked
    against the plan, and what systemd cannot express (v1 cpuset and hugetlb directories, v2 hugetlb and
    cpuset in cgroup.subtree_control, hugetlb limits) is written to cgroupfs."""

    def __init__(self, *args):
        super(SystemdDriver, self).__init__(*args)
        self.pending_units = set()

    def path_for(self, entry):
        return entry['systemd_path']

    def properties(self, entry):
        return ops.systemd_properties_for(entry, self.layout)

    def prepare_units(self):
        if not self.systemd_running:
            raise KubenodeError('the systemd cgroup driver needs systemd as PID 1, and it is not (%s/1/comm)'
                                % self.params['proc_path'], field='cgroup_driver', value='systemd')
        reload_needed = self.place_services()
        for key, entry in self.entries:
            path = ops.unit_path(self.unit_dir, entry['systemd_unit'])
            if self.ensure_file(path, ops.render_unit(key, entry, self.properties(entry)), 0o644):
                self.pending_units.add(entry['systemd_unit'])
            planned = self.properties(entry)
            if self.remove_overrides(entry['systemd_unit'],
                                     lambda setting, value, p=planned: overrides.disagrees(setting, value, p)):
                self.pending_units.add(entry['systemd_unit'])
        return bool(self.pending_units) or reload_needed

    def remove_overrides(self, unit, unwanted):
        """Remove the overrides for which unwanted(setting, value) is true. True when one went."""
        removed = False
        for path, setting, value in overrides.read_overrides(self.params['systemd_control_dirs'], unit):
            if unwanted(setting, value):
                self.changes.append('remove %s (%s=%s overrides the plan)' % (path, setting, value))
                self.diffs.append({'before_header': path, 'after_header': path,
                                   'before': '%s=%s\n' % (setting, value), 'after': ''})
                if not self.module.check_mode:
                    self._os(os.remove, path)
                    self.applied.append('removed %s' % path)
                removed = True
        return removed

    def start_units(self):
        started = False
        for key, entry in self.entries:
            unit = entry['systemd_unit']
            rc, state, _err = self.systemctl('is-active', unit)
            if state != 'active':
                self.changes.append('systemctl start %s' % unit)
                if self.module.check_mode:
                    continue
                self.checked_systemctl('start', unit)
                started = True
            if not (self.module.check_mode and unit in self.pending_units):
                self.confirm_live_properties(unit, self.properties(entry))
        return started

    def confirm_live_properties(self, unit, planned):
        """systemd must show the planned values once the unit and overrides are right; if it does not,
        something beyond them overrides the plan (another drop-in), which is named, not papered over."""
        if not planned:
            return
        rc, out, err = self.systemctl('show', '--property=' + ','.join(sorted(planned)), unit)
        if rc != 0:
            raise KubenodeError('systemctl show %s failed: %s' % (unit, err or out), field='cgroup_driver',
                                value='systemd')
        live = dict(line.split('=', 1) for line in out.splitlines() if '=' in line)
        drift = ['%s=%s (plan: %s)' % (name, live.get(name), planned[name]) for name in sorted(planned)
                 if live.get(name) != planned[name]]
        if not drift:
            return
        message = ('%s: systemd shows %s although the unit file and overrides hold the plan; another drop-in '
                   'overrides them (see "systemctl cat %s")' % (unit, ', '.join(drift), unit))
        if self.module.check_mode:
            self.warnings.append(message)
        else:
            raise KubenodeError(message, field='cgroup_driver', value='systemd')

    def kernel_entries(self, boot):
        """The values to compare with the kernel. kubelet writes hugetlb on kubepods and the QoS tiers
        itself; the reserved cgroups keep theirs. The boot script holds only what systemd cannot express."""
        entries = []
        v2 = self.layout['mode'] == 'v2'
        for key, entry in self.entries:
            files = dict(entry['v2_files' if v2 else 'v1_files'])
            if not key.endswith('_reserved'):
                files = dict((f, v) for f, v in files.items() if not f.startswith('hugetlb.'))
            if boot:
                outside_systemd = ('hugetlb.',) if v2 else ('hugetlb.', 'cpuset.')
                files = dict((f, v) for f, v in files.items() if f.startswith(outside_systemd))
            entries.append((key, dict(entry, v1_files=files, v2_files=files)))
        return entries

    def kernel_options(self):
        if self.layout['mode'] == 'v2':
            # kubelet validates the controllers of the reserved slices and enables kubepods' itself;
            # systemd drops cpuset again from any slice it re-realizes.
            return {'create_dirs': False, 'enable_for': ('system_reserved', 'kube_reserved')}
        return {'mkdir_hierarchies': ('cpuset', 'hugetlb')}

    def place_services(self):
        """Slice= drop-ins that run the given services in the kube-reserved slice. True when one changed."""
        services = self.installed_services()
        if not services:
            return False
        unit = dict(self.entries)['kube_reserved']['systemd_unit']
        changed = False
        for name in services:
            path = os.path.join(self.unit_dir, name + '.d', ops.SERVICE_DROPIN_NAME)
            content = '# Managed by kubenode.cgroups: run %s in the kube-reserved slice.\n[Service]\nSlice=%s\n' % (
                name, unit)
            if self.ensure_file(path, content, 0o644):
                self.services_changed.append(name)
                changed = True
        return changed

    def remove_service_dropins(self):
        removed = False
        for service in self.params['services'] or []:
            name = _drift.service_name(service)
            path = os.path.join(self.unit_dir, name + '.d', ops.SERVICE_DROPIN_NAME)
            if os.path.exists(path):
                self.changes.append('remove %s' % path)
                self.services_changed.append(name)
                if not self.module.check_mode:
                    self._os(os.remove, path)
                    self.applied.append('removed %s' % path)
                removed = True
        return removed

    def remove_unit(self, entry):
        unit = entry['systemd_unit']
        shipped = unit in ops.SYSTEMD_SHIPPED_SLICES
        path = ops.unit_path(self.unit_dir, unit)
        removed = False
        if os.path.exists(path):
            if not shipped:
                self.changes.append('systemctl stop %s' % unit)
                if not self.module.check_mode:
                    self.checked_systemctl('stop', unit)
            self.changes.append('remove %s' % path)
            self.diffs.append({'before_header': path, 'after_header': path,
                               'before': fs.read_file(path) + '\n', 'after': ''})
            if not self.module.check_mode:
                self._os(os.remove, path)
                self.applied.append('removed %s' % path)
            removed = True
        # Overrides would come back with the slice: all of them go, and on a shipped slice those the plan set.
        planned = self.properties(entry)
        return self.remove_overrides(
            unit, lambda setting, value: not shipped or overrides.RESOURCE_SETTINGS[setting] in planned) or removed


CGROUPFS = '/sys/fs/cgroup'
NODE_LOCK = '/run/lock/kubenode-cgroups.lock'


def _systemd_owned(cgroup_path):
    """A cgroup systemd manages as a unit of its own (system.slice, user.slice, machine.slice)."""
    return any(part in ops.SYSTEMD_SHIPPED_SLICES for part in cgroup_path.strip('/').split('/'))


def lock_path_for(cgroupfs_path):
    """The node lock of the node whose cgroupfs this is: /run/lock under its root."""
    path = os.path.normpath(cgroupfs_path)
    if path == CGROUPFS or path.endswith(CGROUPFS):
        return path[:-len(CGROUPFS)] + NODE_LOCK
    return os.path.join(os.path.dirname(path), os.path.basename(NODE_LOCK))


def resolve(module):
    """The driver executor for this node: the node read once, the run planned from that reading."""
    params = module.params
    ops.validate_options(params)
    node = read_node(params, systemctl_runner(module), module.run_command)
    run = ops.plan_run(params, node)
    executor = SystemdDriver if run.driver == 'systemd' else CgroupfsDriver
    return executor(module, node, run)


def systemctl_runner(module):
    """systemctl(*args) -> (rc, stdout, stderr)."""
    def systemctl(*args):
        return module.run_command([module.get_bin_path('systemctl', required=True)] + list(args))
    return systemctl


def read_back(module, plan, restart_pending, kubelet_change):
    """The node compared with its plan after the writes, as node_drift_info would report it."""
    params = module.params
    kubelet_config = params['kubelet_config'] or {}
    choice = kubelet_change['choice'] if kubelet_change else {}
    found = audit_node({
        'plan': plan, 'services': params['services'], 'check_kubelet_config': bool(params['kubelet_config']),
        'kubelet_config_path': choice.get('path') or params['kubelet_config_paths'][0],
        'kubelet_config_dropin': choice.get('dropin', False),
        'kubelet_dropin_dir': choice.get('dropin_dir') or discovery.DEFAULT_DROPIN_DIR,
        'kubelet_dropin_name': kubelet_config.get('kubelet_dropin_name') or discovery.DEFAULT_DROPIN_NAME,
        'kubelet_settings': kubelet_config.get('kubelet_settings') or {}, 'kubelet_service': params['kubelet_service'],
        'allow_driver_mismatch': kubelet_config.get('allow_driver_mismatch', False),
        'cgroupfs_path': params['cgroupfs_path'], 'proc_path': params['proc_path'],
        'systemd_control_dirs': params['systemd_control_dirs'],
        'containerd_config_path': params['containerd_config_path'], 'crio_config_paths': params['crio_config_paths'],
    }, systemctl_runner(module))
    # What the role's restart is about to move is not drift yet.
    restarting = set(pending['service'] for pending in restart_pending)
    found['drift'] = [entry for entry in found['drift'] if entry['item'] not in restarting]
    return found


def argument_spec():
    spec = plan_argument_spec()
    spec.update(
        plan=dict(type='dict'),
        cgroups=dict(type='list', elements='str', choices=list(ops.MANAGEABLE)),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        cgroupfs_path=dict(type='path', default='/sys/fs/cgroup'),
        systemd_unit_dir=dict(type='path', default='/etc/systemd/system'),
        systemd_control_dirs=dict(type='list', elements='path',
                                  default=['/etc/systemd/system.control', '/run/systemd/system.control']),
        cgroup_driver=dict(type='str', choices=['auto', 'cgroupfs', 'systemd'], default='auto'),
        services=dict(type='list', elements='str', default=[]),
        persist=dict(type='bool', default=True),
        persist_script=dict(type='path', default='/usr/local/libexec/kubenode-cgroups-restore'),
        kubelet_service=dict(type='str', default='kubelet.service'),
        lock_path=dict(type='path'),
        lock_timeout=dict(type='int', default=300),
        verify=dict(type='bool', default=False),
        kubelet_config=dict(type='dict', options=kc_file.file_argument_spec()),
        kubelet_config_paths=dict(type='list', elements='path',
                                  default=['/var/lib/kubelet/config.yaml', '/etc/kubernetes/kubelet-config.yaml']),
        # The node's own release unless the operator names one (plan_argument_spec's default is a fixed release).
        kubelet_version=dict(type='str', default='auto'),
        allow_kubelet_version_mismatch=dict(type='bool', default=False),
        kubelet_binary=dict(type='path'),
    )
    spec.update(runtime_files_argument_spec())
    return spec


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    if module.params['kubelet_config'] and module.params['state'] == 'absent':
        module.fail_json(msg='kubelet_config is written only with state=present, not with state=absent')
    if module.params['kubelet_config'] and not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib('PyYAML'), exception=kc.YAML_IMPORT_ERROR)
    node = None
    kubelet_config = None
    verification = None
    # Check mode writes nothing, so it needs no lock (and no write access to /run/lock).
    lock = contextlib.nullcontext() if module.check_mode else NodeLock(
        module.params['lock_path'] or lock_path_for(module.params['cgroupfs_path']), module.params['lock_timeout'])
    try:
        with lock:
            node = resolve(module)
            if module.params['state'] == 'present':
                node.present()
                if node.kubelet_change:
                    kubelet_config = node.write_kubelet_config()
            else:
                node.absent()
            restart_pending = node.find_restarts() if module.params['state'] == 'present' else []
            if module.params['verify'] and node.changes and module.params['state'] == 'present' \
                    and not module.check_mode:
                verification = read_back(module, node.plan, restart_pending, node.kubelet_change)
    except (KubenodeError, IOError, OSError) as error:
        message = str(error) if isinstance(error, KubenodeError) else str(host_error('change', error))
        applied = node.applied if node else []
        if applied:
            message += (' %d change(s) were applied before this failure (see applied) and the rest were not; '
                        'fix the cause and run again to complete the change.' % len(applied))
        module.fail_json(msg=message, changed=bool(applied), applied=applied,
                         changes=node.changes if node else [],
                         failed_step=node.changes[-1] if node and node.changes else None)
    result = dict(changed=bool(node.changes), changes=node.changes, cgroup_mode=node.layout['mode'],
                  driver=node.driver, managed=dict((k, node.path_for(e)) for k, e in node.entries),
                  services_changed=node.services_changed, services_not_installed=node.skipped_services,
                  plan=node.plan, persistence=node.persistence, restart_pending=restart_pending)
    if kubelet_config:
        result['kubelet_config'] = kubelet_config
    if verification is not None:
        result['verification'] = verification
    if module._diff:
        result['diff'] = node.diffs
    for warning in node.warnings + (node.kubelet_change['warnings'] if node.kubelet_change else []):
        module.warn(warning)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
