#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: cgroup_info
short_description: Read the node's cgroup mode, cgroup drivers and the live values of kubelet's cgroups
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Reports the cgroup mode (C(v2), C(hybrid) or C(v1)) from C(/proc/self/mountinfo), the mounted v1
    hierarchies, the v2 root controllers, and whether PID 1 is systemd (and which version).
  - Reports the cgroup driver kubelet (C(cgroupDriver)), containerd (C(SystemdCgroup), config
    versions 2 and 3) and CRI-O (C(cgroup_manager)) are configured with, and whether they disagree.
  - Reads the live values of C(kubepods), the QoS tiers and the named reserved cgroups, normalised to
    the units of M(kubenode.cgroups.allocatable_info)'s plan, with the raw file contents, and whether
    kubelet would accept each cgroup (every v1 hierarchy present; the v2 controllers enabled).
  - Never changes anything.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.host_paths
  - kubenode.cgroups.attributes.info_module
options:
  cgroup_driver:
    description:
      - The driver whose cgroup names to read. V(auto) picks as M(kubenode.cgroups.node_cgroups) does.
    type: str
    choices: [auto, cgroupfs, systemd]
    default: auto
  cgroup_root:
    description: KubeletConfiguration C(cgroupRoot).
    type: str
    default: /
  system_reserved_cgroup:
    description: KubeletConfiguration C(systemReservedCgroup), read too when set.
    type: str
  kube_reserved_cgroup:
    description: KubeletConfiguration C(kubeReservedCgroup), read too when set.
    type: str
  kubelet_config_paths:
    description: kubelet configuration files to look in, first found wins.
    type: list
    elements: path
    default: [/var/lib/kubelet/config.yaml, /etc/kubernetes/kubelet-config.yaml]
seealso:
  - module: kubenode.cgroups.node_cgroups
"""

EXAMPLES = r"""
- name: Read the node's cgroups
  kubenode.cgroups.cgroup_info:
    system_reserved_cgroup: /system.slice
    kube_reserved_cgroup: /kube.slice
  register: live

- name: Stop when kubelet and containerd disagree on the cgroup driver
  ansible.builtin.assert:
    that: not live.drivers.mismatch
    fail_msg: "kubelet uses {{ live.drivers.kubelet.value }}, containerd {{ live.drivers.containerd.value }}"
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
cgroup_mode:
  description: C(v2) (unified), C(hybrid) (v1 controllers plus an empty cgroup2) or C(v1) (legacy).
  returned: always
  type: str
  sample: v2
v1_hierarchies:
  description: Mounted v1 hierarchies, controller to mount point.
  returned: always
  type: dict
  sample: {cpu: /sys/fs/cgroup/cpu,cpuacct, memory: /sys/fs/cgroup/memory}
v2_controllers:
  description: C(cgroup.controllers) and C(cgroup.subtree_control) of the v2 root (v2 hosts).
  returned: always
  type: dict
  sample: {available: [cpuset, cpu, memory, hugetlb, pids], enabled: [cpu, memory, pids]}
systemd:
  description: Whether PID 1 is systemd, and its version.
  returned: always
  type: dict
  sample: {pid1: true, version: 252}
drivers:
  description: The driver each of kubelet, containerd and CRI-O is configured with (C(value), C(path),
    C(source) C(config) or C(default)), C(mismatch) when they disagree, and C(effective).
  returned: always
  type: dict
  sample: {kubelet: {value: systemd, path: /var/lib/kubelet/config.yaml, source: config}, mismatch: false}
cgroups:
  description:
    - Per kubelet cgroup - C(path), C(exists), C(resources) (C(cpu_shares), C(cpu_weight), C(memory),
      C(memory_min), C(memory_low), C(pids), C(cpu_quota), C(cpu_period), C(cpuset_cpus), C(hugetlb) -
      memory and pids as integers or C(max)), C(raw) file contents, C(missing) (hierarchies or
      controllers kubelet would miss) and C(kubelet_accepts).
  returned: always
  type: dict
  sample: {kubepods: {path: /kubepods.slice, exists: true, resources: {cpu_weight: 385, memory: max}}}
swap:
  description:
    - The node's swap space in bytes (C(capacity), C(SwapTotal) of C(meminfo), as cAdvisor reports it to kubelet)
      and whether the kernel accounts swap per cgroup (C(controller), kubelet's own test - C(memory.swap.max) in
      this process's v2 cgroup, C(memory.memsw.limit_in_bytes) at the v1 memory root). Both are what
      C(kubenode.cgroups.pod_cgroup_info) needs for swap limits. Null when C(proc_path) has no C(meminfo) or
      C(self/cgroup).
  returned: success
  type: dict
  sample: {capacity: "2147483648", controller: true}
oci_runtime:
  description:
    - The OCI runtime of containerd's default runtime (else CRI-O's) - C(engine), C(runtime) (its name in the
      engine's configuration), C(runtime_type), C(binary), C(name), the C(version) the binary prints (null when it
      is not installed) and the C(formula) it turns CPU shares into C(cpu.weight) with (C(quadratic) from runc
      1.3.2 and crun 1.23, C(linear) before; null for other runtimes). Null without a runtime configuration.
  returned: success
  type: dict
  sample: {engine: containerd, runtime: runc, binary: runc, name: runc, version: 1.1.5, formula: linear}
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _detect as detect
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_totals import swap_total
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, HostError, KubenodeError, failure_of, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._cgroup_math import oci_weight_formula
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import default, host_paths_argument_spec, runtime_files_argument_spec
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import (
    detect_drivers, detect_oci_runtime, effective_driver, pid1_is_systemd)
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import runner


def main():
    spec = host_paths_argument_spec()
    spec.update(runtime_files_argument_spec())
    module = AnsibleModule(
        argument_spec=dict(
            spec,
            cgroup_driver=dict(type='str', choices=['auto', 'cgroupfs', 'systemd'], default='auto'),
            cgroup_root=dict(type='str', default='/'),
            system_reserved_cgroup=dict(type='str'),
            kube_reserved_cgroup=dict(type='str'),
            kubelet_config_paths=dict(type='list', elements='path', default=default('kubelet_config_paths')),
        ),
        supports_check_mode=True,
    )
    params = module.params
    root = params['cgroupfs_path']
    try:
        layout = fs.detect_layout(params['proc_path'], root)
        drivers = detect_drivers(params['kubelet_config_paths'], params['containerd_config_path'],
                                 params['crio_config_paths'])
        drivers['effective'] = effective_driver(drivers, pid1_is_systemd(params['proc_path']))
        driver = drivers['effective'] if params['cgroup_driver'] == 'auto' else params['cgroup_driver']
        kubepods = names.node_allocatable_root(params['cgroup_root'], True)
        wanted = {'kubepods': kubepods, 'burstable': kubepods + ['burstable'],
                  'besteffort': kubepods + ['besteffort']}
        for scope in ('system', 'kube'):
            name = params['%s_reserved_cgroup' % scope]
            if name:
                wanted['%s_reserved' % scope] = names.check_reserved_cgroup(name, driver,
                                                                            '%s_reserved_cgroup' % scope)
        cgroups = dict((key, fs.read_cgroup(layout, root, names.to_driver_path(parts, driver)))
                       for key, parts in wanted.items())
    except (KubenodeError, HostError) as error:
        module.fail_json(msg=str(error), failure=failure_of(error))
    except (IOError, OSError) as error:
        module.fail_json(msg=str(host_error('read', error)), failure=HOST)
    systemd = {'pid1': pid1_is_systemd(params['proc_path']), 'version': None}
    if systemd['pid1']:
        if module.get_bin_path('systemctl'):
            rc, out, _err = runner(module)('--version')
            match = re.match(r'systemd ([0-9]+)', out or '')
            systemd['version'] = int(match.group(1)) if rc == 0 and match else None
    swap = {'capacity': None, 'controller': None}
    try:
        swap['capacity'] = str(swap_total(params['proc_path']))
        swap['controller'] = detect.swap_controller(layout, root, params['proc_path'])
    except (IOError, OSError):
        pass  # a partial /proc (a fake root): reported as unknown
    oci_runtime = detect_oci_runtime(params['containerd_config_path'], params['crio_config_paths'],
                                     module.get_bin_path, module.run_command)
    if oci_runtime and oci_runtime.get('version'):
        try:
            oci_runtime['formula'] = oci_weight_formula(oci_runtime['name'], oci_runtime['version'])
        except KubenodeError:
            oci_runtime['formula'] = None  # a runtime without a known formula (kata, gVisor, youki)
    v2 = {}
    if layout.is_v2:
        v2 = {'available': (fs.read_file(os.path.join(root, 'cgroup.controllers')) or '').split(),
              'enabled': (fs.read_file(os.path.join(root, 'cgroup.subtree_control')) or '').split()}
    module.exit_json(changed=False, cgroup_mode=layout.mode, v1_hierarchies=dict(layout.v1_hierarchies),
                     v2_controllers=v2, systemd=systemd, drivers=drivers, cgroup_driver=driver, cgroups=cgroups,
                     swap=swap, oci_runtime=oci_runtime)


if __name__ == '__main__':
    main()
