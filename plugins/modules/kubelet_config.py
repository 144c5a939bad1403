#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: kubelet_config
short_description: Merge reservation and cgroup settings into KubeletConfiguration, validated as kubelet would
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Sets the Node Allocatable and cgroup keys of the KubeletConfiguration file kubelet really reads, or
    writes them alone to a drop-in in kubelet's C(--config-dir) when kubelet has one.
  - Finds that file as systemd will start kubelet - the C(--config) and C(--config-dir) of the kubelet
    unit's C(ExecStart), with its C(Environment=) and C(EnvironmentFile=) expanded (kubeadm's
    C(10-kubeadm.conf) and C(kubeadm-flags.env), kubespray's C(kubelet.env)) - else from a running
    kubelet's command line, else kubeadm's C(/var/lib/kubelet/config.yaml) or kubespray's
    C(/etc/kubernetes/kubelet-config.yaml), whichever exists. RV(choice) says which and why.
  - Validates the merged result - the base file and every drop-in in lexical order, merged as
    kubelet merges them - before writing, and refuses what kubelet would refuse at start-up, with
    kubelet's messages; the file is left byte for byte untouched when anything is wrong.
  - Compares meanings, not text - C(1Gi) equals C(1024Mi) - and writes only when the meaning
    changes, atomically, keeping the file's mode and owner.
  - Every other key of the file is kept as it was, line for line with its comments; changed keys are
    rewritten in place and new keys appended.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.node_root
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.extra_feature_gates
  - ansible.builtin.files
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details:
      - A unified diff of the YAML file.
  platform:
    support: full
    platforms: posix
options:
  kubelet_settings:
    aliases: [settings]
    description:
      - KubeletConfiguration keys to set, in kubelet's own camelCase, for example C(systemReserved),
        C(kubeReserved), C(evictionHard), C(evictionSoft), C(evictionSoftGracePeriod),
        C(mergeDefaultEvictionSettings), C(enforceNodeAllocatable), C(systemReservedCgroup),
        C(kubeReservedCgroup), C(cgroupDriver), C(cgroupsPerQOS), C(cgroupRoot), C(reservedSystemCPUs),
        C(qosReserved), C(featureGates), C(memoryThrottlingFactor), C(memoryReservationPolicy),
        C(podPidsLimit), C(cpuCFSQuota), C(cpuCFSQuotaPeriod), C(failCgroupV1), C(maxPods), C(failSwapOn) and
        C(memorySwap) (its C(swapBehavior) validated as kubelet validates it).
      - A null value removes the key. C(featureGates) are merged into the file's, never replacing
        the other gates.
      - Keys here override those taken from O(plan).
    type: dict
    default: {}
  plan:
    description:
      - A result of M(kubenode.cgroups.allocatable_info) whose reservations, eviction thresholds,
        enforcement keys, cgroup driver and reserved cgroup names to write.
    type: dict
  kubelet_config_path:
    aliases: [path]
    description:
      - The kubelet configuration file (C(--config)). When unset, the one kubelet is started with (see
        the description). A file kubelet is not started with is refused, as writing it would change nothing.
    type: path
  kubelet_config_dropin:
    aliases: [dropin]
    description:
      - Write only the keys to O(kubelet_dropin_dir)/O(kubelet_dropin_name) and leave O(kubelet_config_path) byte for byte alone, instead
        of editing O(kubelet_config_path).
      - When unset, a drop-in is written exactly when kubelet runs with a C(--config-dir) (a drop-in
        survives C(kubeadm upgrade), which rewrites C(/var/lib/kubelet/config.yaml)).
      - True on a kubeadm node whose kubelet has no C(--config-dir) adds one to C(KUBELET_EXTRA_ARGS) in
        C(/etc/default/kubelet) (or C(/etc/sysconfig/kubelet)), the file kubeadm's unit reads and kubeadm never
        writes; kubelet reads it at its next restart.
    type: bool
  kubelet_dropin_dir:
    aliases: [dropin_dir]
    description:
      - kubelet's C(--config-dir). Its C(*.conf) files are merged over O(kubelet_config_path) in lexical order.
      - When unset, the one kubelet is started with, else C(/etc/kubernetes/kubelet.conf.d). A directory
        kubelet is not started with is refused.
    type: path
  proc_path:
    description:
      - Where C(/proc) is, to find PID 1 and a running kubelet.
    type: path
    default: /proc
  kubelet_service:
    description:
      - kubelet's systemd unit, whose command line says which configuration kubelet reads.
    type: str
    default: kubelet.service
  kubelet_dropin_name:
    aliases: [dropin_name]
    description:
      - The drop-in file this module owns, in O(kubelet_dropin_dir).
    type: str
    default: 50-kubenode.conf
  kubelet_version:
    description:
      - The kubelet release whose rules and messages apply (1.22 to 1.38; 1.38 from its beta).
      - A C(featureGates) name this release does not know is refused (C(unrecognized feature gate)), unless
        it is already in the node's kubelet configuration or listed in O(extra_feature_gates).
    type: str
    default: '1.37'
  capacity:
    description:
      - The node capacity, to refuse a reservation above it. Without it every other rule still runs.
    type: dict
  allow_driver_mismatch:
    description:
      - Write even when C(cgroupDriver) disagrees with the container runtime's configured driver.
    type: bool
    default: false
  backup:
    description:
      - Keep a timestamped copy of the file before changing it.
    type: bool
    default: false
requirements:
  - PyYAML on the target
seealso:
  - module: kubenode.cgroups.allocatable_info
"""

EXAMPLES = r"""
- name: Reserve for system daemons and kubelet, on a kubeadm node
  kubenode.cgroups.kubelet_config:
    kubelet_settings:
      systemReserved: {cpu: 500m, memory: 1Gi}
      kubeReserved: {cpu: 250m, memory: 512Mi}
      evictionHard: {memory.available: 500Mi, nodefs.available: 10%}
      cgroupDriver: systemd

- name: Write a computed plan into the file kubelet reads (a drop-in when it has a --config-dir)
  kubenode.cgroups.kubelet_config:
    plan: "{{ node_plan }}"
    backup: true
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
path:
  description: The file written (or that would be).
  returned: always
  type: str
  sample: /var/lib/kubelet/config.yaml
config:
  description: The merged configuration kubelet will read, for the managed keys.
  returned: always
  type: dict
  sample: {cgroupDriver: systemd, systemReserved: {cpu: 500m, memory: 1Gi}}
choice:
  description: The configuration file and drop-in directory kubelet reads, whether a drop-in is written,
    and why (which unit, process or known layout said so).
  returned: always
  type: dict
  sample: {path: /etc/kubernetes/kubelet-config.yaml, dropin: false, dropin_dir: /etc/kubernetes/kubelet.conf.d,
           reason: the --config of the kubelet.service unit}
backup_file:
  description: The backup copy, when one was made.
  returned: changed and backup
  type: str
  sample: /var/lib/kubelet/config.yaml.12345.2026-11-22@01:02:03~
"""

import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _systemd as systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, HostError, KubenodeError, failure_of, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import check_mode_option
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import (
    KUBELET_SERVICE, default, kubelet_file_argument_spec, node_root_argument_spec, paths_under_root,
    runtime_files_argument_spec)
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import pid1_is_systemd
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import DEFAULT_KUBELET_VERSION


def main():
    argument_spec = runtime_files_argument_spec()
    argument_spec.update(node_root_argument_spec())
    module = AnsibleModule(
        argument_spec=dict(
            argument_spec,
            plan=dict(type='dict'),
            kubelet_version=dict(type='str', default=DEFAULT_KUBELET_VERSION),
            extra_feature_gates=dict(type='list', elements='str', default=[]),
            capacity=dict(type='dict'),
            proc_path=dict(type='path', default=default('proc_path')),
            kubelet_service=dict(type='str', default=KUBELET_SERVICE),
            **kubelet_file_argument_spec()
        ),
        add_file_common_args=True,
        supports_check_mode=True,
    )
    if not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib('PyYAML'), exception=kc.YAML_IMPORT_ERROR, failure=HOST)
    params = module.params
    try:
        check_mode_option(params['mode'])
        params.update(paths_under_root(params['node_root'], params, ('proc_path', 'containerd_config_path',
                                                                     'crio_config_paths')))
        systemctl = systemd.runner(module) if pid1_is_systemd(params['proc_path']) else None
        found = discovery.discover(params['proc_path'], systemctl, params['kubelet_service'], params['node_root'])
        change = kc_file.prepare(kc_file.KubeletConfigRequest.from_options(params, discovered=found))
    except (KubenodeError, HostError) as error:
        module.fail_json(msg=str(error), failure=failure_of(error))
    except (IOError, OSError) as error:
        module.fail_json(msg=str(host_error('read the kubelet configuration at', error)), failure=HOST)

    target = change['path']
    result = kc_file.summary(change)
    if module._diff:
        result['diff'] = kc_file.diff(change)
        if change.get('flags_file'):
            flags = change['flags_file']
            result['diff'] = [result['diff'], {'before_header': flags['path'], 'after_header': flags['path'],
                                               'before': flags['before'] or '', 'after': flags['after']}]
    file_args = module.load_file_common_arguments(params, path=target)
    if change['changed'] and not module.check_mode:
        try:
            backup_file = kc_file.write(module, change, params['backup'], params['unsafe_writes'])
            kc_file.write_flags_file(module, change, params['unsafe_writes'])
        except (IOError, OSError) as error:
            module.fail_json(msg=str(host_error('write', error, target)), changed=False, failure=HOST)
        if backup_file:
            result['backup_file'] = backup_file
    if os.path.exists(target) or not module.check_mode:
        result['changed'] = module.set_fs_attributes_if_different(file_args, result['changed'])
    for warning in change['warnings']:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
