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
  - Compares normalised live values with the plan and writes only what differs, so a second run
    reports no change; kernel rounding to page size is allowed for.
  - Raises limits parents first and lowers them children first, so the kernel never sees a child
    above its parent. When the kernel refuses a value, fails naming the file, the value and the
    kernel's error, and lists what was already applied.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.plan
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
      path:
        description: The kubelet configuration file (C(--config)).
        type: path
        default: /var/lib/kubelet/config.yaml
      dropin:
        description: Write only the keys to O(kubelet_config.dropin_dir)/O(kubelet_config.dropin_name), leaving
          O(kubelet_config.path) alone.
        type: bool
        default: false
      dropin_dir:
        description: kubelet's C(--config-dir).
        type: path
        default: /etc/kubernetes/kubelet.conf.d
      dropin_name:
        description: The drop-in file this module owns, in O(kubelet_config.dropin_dir).
        type: str
        default: 50-kubenode.conf
      settings:
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
    description: kubelet configuration files read by O(cgroup_driver=auto), first found wins.
    type: list
    elements: path
    default: [/var/lib/kubelet/config.yaml, /etc/kubernetes/kubelet-config.yaml]
requirements:
  - PyYAML on the target, for O(kubelet_config)
notes:
  - kubelet rewrites C(kubepods) and the QoS tiers when it starts and every minute; writing them
    here makes the node match the plan before kubelet runs and lets check mode show drift.
  - On a systemd host with cgroup v2, C(systemctl daemon-reload) takes controllers out of the root
    C(cgroup.subtree_control) that no unit needs, so raw cgroupfs cgroups can silently lose
    C(cpu.weight). The module warns when the C(cgroupfs) driver is used there; the C(systemd) driver
    is the supported choice.
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
    kubelet_config:
      path: /etc/kubernetes/kubelet-config.yaml
      dropin: true

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
applied:
  description: On failure, the changes that had been made before the kernel refused one.
  returned: failure
  type: list
  elements: str
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kubenode.cgroups.plugins.module_utils import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils._allocatable import plan_argument_spec, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils._detect import detect_capacity
from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils._runtime_config import (
    detect_drivers, effective_driver, pid1_is_systemd, runtime_files_argument_spec)


class NodeCgroups(object):
    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.root = self.params['cgroupfs_path']
        self.unit_dir = self.params['systemd_unit_dir']
        self.applied, self.changes, self.diffs, self.warnings = [], [], [], []
        self.services_changed, self.skipped_services = [], []
        self.kubelet_change = None

    # Planning ---------------------------------------------------------------
    def resolve(self):
        self.layout = fs.detect_layout(self.params['proc_path'], self.root)
        driver = self.params['cgroup_driver']
        if driver == 'auto':
            drivers = detect_drivers(self.params['kubelet_config_paths'], self.params['containerd_config_path'],
                                     self.params['crio_config_paths'])
            driver = effective_driver(drivers, self.params['proc_path'])
        self.driver = driver
        plan = self.params['plan']
        if plan is None:
            params = dict(self.params, cgroup_driver=driver)
            if params['capacity'] is None:
                params['capacity'], params['online_cpus'] = detect_capacity(
                    params['proc_path'], params['sys_path'], params['kubelet_root_dir'])
            plan = plan_node(params)
        elif plan.get('cgroup_driver') != driver:
            raise KubenodeError('the plan was computed for the %s cgroup driver, not %s'
                                % (plan.get('cgroup_driver'), driver), field='plan', value=plan.get('cgroup_driver'))
        cgroups = plan.get('cgroups') or {}
        wanted = self.params['cgroups'] or [k for k in ops.MANAGEABLE if k in cgroups]
        missing = [k for k in wanted if k not in cgroups]
        if missing:
            raise KubenodeError('the plan has no such cgroup (is its cgroup name set?)', field='cgroups',
                                value=missing)
        self.plan = plan
        self.entries = [(k, cgroups[k]) for k in ops.MANAGEABLE if k in wanted]
        if self.params['services'] and driver == 'systemd' and 'kube_reserved' not in dict(self.entries):
            raise KubenodeError('services can be placed only in a managed kube_reserved slice (set kube_reserved_cgroup)',
                                field='services', value=self.params['services'])
        if self.params['kubelet_config']:
            # Validated now, before anything is written, so a refused configuration changes nothing.
            self.kubelet_change = kc_file.prepare(dict(
                self.params['kubelet_config'], plan=plan, kubelet_version=self.params['kubelet_version'],
                containerd_config_path=self.params['containerd_config_path'],
                crio_config_paths=self.params['crio_config_paths']), option_prefix='kubelet_config.')
        if driver == 'cgroupfs' and self.layout['mode'] == 'v2' and pid1_is_systemd(self.params['proc_path']):
            self.warnings.append('systemd is PID 1 on this cgroup v2 host: "systemctl daemon-reload" removes '
                                 'controllers no unit needs from cgroup.subtree_control, so cgroupfs-driver cgroups '
                                 'can lose cpu.weight. The systemd cgroup driver is the supported choice here.')

    def path_for(self, entry):
        return entry['systemd_path'] if self.driver == 'systemd' else entry['cgroupfs_path']

    def missing_file(self, key, path):
        raise KubenodeError('%s has no %s: the controller is not enabled for it' % (key, os.path.basename(path)),
                            field=key, value=path)

    # Execution ----------------------------------------------------------------
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

    def write_kubelet_config(self):
        """Returns kubelet_config's result."""
        change = self.kubelet_change
        result = kc_file.summary(change)
        if change['changed']:
            self.changes.append('write %s' % change['path'])
            self.diffs.append(kc_file.diff(change))
            if not self.module.check_mode:
                backup_file = kc_file.write(self.module, change, self.params['kubelet_config']['backup'])
                self.applied.append('wrote %s' % change['path'])
                if backup_file:
                    result['backup_file'] = backup_file
        return result

    def _os(self, function, path):
        try:
            function(path)
        except OSError as error:
            raise fs.CgroupWriteError('%s %s failed: %s' % (function.__name__, path, os.strerror(error.errno)),
                                      field=path)

    def systemctl(self, *args):
        systemctl = self.module.get_bin_path('systemctl', required=True)
        rc, out, err = self.module.run_command([systemctl] + list(args))
        return rc, out.strip(), err.strip()

    def present(self):
        if self.driver == 'systemd':
            self.present_systemd()
        else:
            self.installed_services()  # only looked up: the cgroupfs driver has no slice to place them in
        entries = [(k, dict(e, cgroupfs_path=self.path_for(e))) for k, e in self.entries]
        options = {}
        if self.driver == 'systemd':
            # systemd writes the unit properties and makes the directories; what it does not do is
            # create v1 cpuset and hugetlb directories, or enable cpuset and hugetlb on v2. On v2 only
            # the reserved slices need that (kubelet validates them but creates kubepods itself, and
            # systemd drops cpuset again from any slice it re-realizes).
            entries = [(k, dict(e, v1_files={}, v2_files={})) for k, e in entries]
            if self.layout['mode'] == 'v2':
                entries = [(k, e) for k, e in entries if k in ('system_reserved', 'kube_reserved')]
            options = {'only_hierarchies': ('cpuset', 'hugetlb'), 'create_dirs': False}
        for operation in ops.plan_cgroupfs(entries, self.layout, self.root, self.missing_file, **options):
            self.run(operation)

    def present_systemd(self):
        reload_needed = self.place_services()
        for key, entry in self.entries:
            path = ops.unit_path(self.unit_dir, entry['systemd_unit'])
            content = ops.render_unit(key, entry, ops.systemd_properties_for(entry, self.layout))
            current = fs.read_file(path)
            if current is None or current.strip() != content.strip():
                self.changes.append(('update %s' if current is not None else 'create %s') % path)
                self.diffs.append({'before_header': path, 'after_header': path,
                                   'before': (current + '\n') if current else '', 'after': content})
                if not self.module.check_mode:
                    self.write_unit(path, content)
                    self.applied.append('wrote %s' % path)
                reload_needed = True
        if reload_needed:
            self.changes.append('systemctl daemon-reload')
            if not self.module.check_mode:
                self.checked_systemctl('daemon-reload')
        for key, entry in self.entries:
            unit = entry['systemd_unit']
            rc, state, _err = self.systemctl('is-active', unit)
            if state != 'active':
                self.changes.append('systemctl start %s' % unit)
                if not self.module.check_mode:
                    self.checked_systemctl('start', unit)
                    state = 'active'
            if state == 'active':
                self.correct_live_properties(unit, ops.systemd_properties_for(entry, self.layout))

    def installed_services(self):
        """The given services systemd knows; the rest go to services_not_installed."""
        names = [s if '.' in s else s + '.service' for s in self.params['services']]
        if not names or not pid1_is_systemd(self.params['proc_path']):
            self.skipped_services.extend(names)
            return []
        rc, out, _err = self.systemctl('show', '--property=Id,LoadState', *names)
        states = dict((unit.get('Id'), unit.get('LoadState')) for unit in (
            dict(line.split('=', 1) for line in block.splitlines() if '=' in line) for block in out.split('\n\n')))
        self.skipped_services.extend(n for n in names if states.get(n) != 'loaded')
        return [n for n in names if states.get(n) == 'loaded']

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
            current = fs.read_file(path)
            if current is not None and current.strip() == content.strip():
                continue
            self.changes.append(('update %s' if current is not None else 'create %s') % path)
            self.diffs.append({'before_header': path, 'after_header': path,
                               'before': (current + '\n') if current else '', 'after': content})
            self.services_changed.append(name)
            if not self.module.check_mode:
                self.write_unit(path, content)
                self.applied.append('wrote %s' % path)
            changed = True
        return changed

    def correct_live_properties(self, unit, planned):
        """A runtime override (systemctl set-property --runtime) beats the unit file: fix the live values."""
        if not planned:
            return
        rc, out, err = self.systemctl('show', '--property=' + ','.join(sorted(planned)), unit)
        if rc != 0:
            raise KubenodeError('systemctl show %s failed: %s' % (unit, err or out), field='cgroup_driver',
                                value='systemd')
        live = dict(line.split('=', 1) for line in out.splitlines() if '=' in line)
        drift = ['%s=%s' % (name, planned[name]) for name in sorted(planned) if live.get(name) != planned[name]]
        if drift:
            self.changes.append('systemctl set-property --runtime %s %s' % (unit, ' '.join(drift)))
            self.diffs.append({'before_header': '%s (live)' % unit, 'after_header': '%s (live)' % unit,
                               'before': ''.join('%s=%s\n' % (n, live.get(n, '')) for n in sorted(planned)),
                               'after': ''.join('%s=%s\n' % (n, planned[n]) for n in sorted(planned))})
            if not self.module.check_mode:
                self.checked_systemctl('set-property', '--runtime', unit, *drift)

    def checked_systemctl(self, *args):
        rc, out, err = self.systemctl(*args)
        if rc != 0:
            raise KubenodeError('systemctl %s failed: %s' % (' '.join(args), err or out), field='cgroup_driver',
                                value='systemd')
        self.applied.append('systemctl %s' % ' '.join(args))

    def write_unit(self, path, content):
        directory = os.path.dirname(path)
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o755)
        fd, temp = tempfile.mkstemp(dir=self.module.tmpdir)
        with os.fdopen(fd, 'w') as handle:
            handle.write(content)
        os.chmod(temp, 0o644)
        self.module.atomic_move(temp, path)

    def absent(self):
        units_removed = False
        for service in self.params['services'] or []:
            name = service if '.' in service else service + '.service'
            path = os.path.join(self.unit_dir, name + '.d', ops.SERVICE_DROPIN_NAME)
            if os.path.exists(path):
                self.changes.append('remove %s' % path)
                self.services_changed.append(name)
                if not self.module.check_mode:
                    os.remove(path)
                    self.applied.append('removed %s' % path)
                units_removed = True
        for key, entry in reversed(self.entries):
            relative = self.path_for(entry)
            shipped = self.driver == 'systemd' and entry['systemd_unit'] in ops.SYSTEMD_SHIPPED_SLICES
            if not shipped:
                self.refuse_if_busy(key, relative)
            if self.driver == 'systemd':
                path = ops.unit_path(self.unit_dir, entry['systemd_unit'])
                if os.path.exists(path):
                    if entry['systemd_unit'] not in ops.SYSTEMD_SHIPPED_SLICES:
                        self.changes.append('systemctl stop %s' % entry['systemd_unit'])
                        if not self.module.check_mode:
                            self.checked_systemctl('stop', entry['systemd_unit'])
                    self.changes.append('remove %s' % path)
                    self.diffs.append({'before_header': path, 'after_header': path,
                                       'before': fs.read_file(path) + '\n', 'after': ''})
                    if not self.module.check_mode:
                        os.remove(path)
                        self.applied.append('removed %s' % path)
                    units_removed = True
            for directory in [] if shipped else self.directories(relative):
                if os.path.isdir(directory) and relative.strip('/'):
                    self.run(ops.Operation('rmdir', directory, cgroup=key))
        if units_removed:
            self.changes.append('systemctl daemon-reload')
            if not self.module.check_mode:
                self.checked_systemctl('daemon-reload')

    def directories(self, relative):
        if self.layout['mode'] == 'v2':
            return [ops.safe_join(self.root, relative, 'path')]
        return [ops.safe_join(mount, relative, 'path') for mount in self.layout['v1_hierarchies'].values()]

    def refuse_if_busy(self, key, relative):
        for directory in self.directories(relative):
            for current, _dirs, files in os.walk(directory):
                if 'cgroup.procs' in files and (fs.read_file(os.path.join(current, 'cgroup.procs')) or '').strip():
                    raise KubenodeError('refusing to remove %s: processes are still inside %s' % (key, current),
                                        field='state', value='absent')


def main():
    spec = plan_argument_spec()
    spec.update(
        plan=dict(type='dict'),
        cgroups=dict(type='list', elements='str', choices=list(ops.MANAGEABLE)),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        cgroupfs_path=dict(type='path', default='/sys/fs/cgroup'),
        systemd_unit_dir=dict(type='path', default='/etc/systemd/system'),
        cgroup_driver=dict(type='str', choices=['auto', 'cgroupfs', 'systemd'], default='auto'),
        services=dict(type='list', elements='str', default=[]),
        kubelet_config=dict(type='dict', options=kc_file.file_argument_spec()),
        kubelet_config_paths=dict(type='list', elements='path',
                                  default=['/var/lib/kubelet/config.yaml', '/etc/kubernetes/kubelet-config.yaml']),
    )
    spec.update(runtime_files_argument_spec())
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    if module.params['kubelet_config'] and module.params['state'] == 'absent':
        module.fail_json(msg='kubelet_config is written only with state=present, not with state=absent')
    if module.params['kubelet_config'] and not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib('PyYAML'), exception=kc.YAML_IMPORT_ERROR)
    node = NodeCgroups(module)
    kubelet_config = None
    try:
        node.resolve()
        if module.params['state'] == 'present':
            node.present()
            if node.kubelet_change:
                kubelet_config = node.write_kubelet_config()
        else:
            node.absent()
    except KubenodeError as error:
        module.fail_json(msg=str(error), applied=node.applied, changes=node.changes)
    except (IOError, OSError) as error:
        module.fail_json(msg='cgroup operation failed: %s' % error, applied=node.applied, changes=node.changes)
    result = dict(changed=bool(node.changes), changes=node.changes, cgroup_mode=node.layout['mode'],
                  driver=node.driver, managed=dict((k, node.path_for(e)) for k, e in node.entries),
                  services_changed=node.services_changed, services_not_installed=node.skipped_services,
                  plan=node.plan)
    if kubelet_config:
        result['kubelet_config'] = kubelet_config
    if module._diff:
        result['diff'] = node.diffs
    for warning in node.warnings:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
