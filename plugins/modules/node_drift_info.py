#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: node_drift_info
short_description: List every way a node differs from its Node Allocatable plan
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Compares the live node with a plan from M(kubenode.cgroups.allocatable_info), in one round trip.
  - The drift is exactly what M(kubenode.cgroups.node_cgroups) in check mode, with the same options, would change
    - one comparer answers for both, for the role's verification and for the rollout gate. Each step it would
    take is an entry - the cgroups (C(kubepods), the QoS tiers, the reserved cgroups) in the kernel's own files
    (every value the plan holds, C(memory.min) and C(memory.swap.max) included, and on cgroup v1 the cpusets,
    which hold their parent's CPUs and memory nodes), the controllers, the slice units, property overrides
    that disagree with the plan (O(systemd_control_dirs)), the services' C(Slice=) drop-ins, the boot script
    and its units (O(persist)), and the kubelet configuration as M(kubenode.cgroups.kubelet_config) would
    write it.
  - Besides, what no step mends - a reserved cgroup kubelet's Validate would refuse, a kubelet configuration
    kubelet would refuse, systemd showing values its units do not hold, a service that must restart to run
    what is on disk, and kubelet and the container runtime on different cgroup drivers.
  - Never changes anything.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.node_root
  - kubenode.cgroups.runtime_files
  - kubenode.cgroups.host_paths
  - kubenode.cgroups.systemd_overrides
  - kubenode.cgroups.pod_impact
  - kubenode.cgroups.attributes.info_module
options:
  plan:
    description:
      - A result of M(kubenode.cgroups.allocatable_info), or the C(plan) that M(kubenode.cgroups.node_cgroups) returns.
      - One of O(plan) and O(settings) is required.
    type: dict
  settings:
    description:
      - The plan options of M(kubenode.cgroups.node_cgroups) (capacity detected on the node when not given,
        C(cgroup_driver) and C(kubelet_version) the node's unless given), validated as that module validates
        them. The plan is computed here, as node_cgroups computes it, in the same round trip.
    type: dict
  upgrade_to:
    description:
      - A kubelet release to preview an upgrade to, such as C(1.38). The node is planned for the release it runs
        and for this one from the same reading, and RV(upgrade) says what the target kubelet would write
        differently, what in the node's kubelet configuration it refuses, and what would keep it from starting.
      - The preview changes nothing, and reads nothing more than the audit but the node's swap (SwapTotal of
        C(/proc/meminfo) and whether the swap controller is there), which kubelet reads for the pods' values when its
        configuration names a C(memorySwap.swapBehavior). The drift is still against the node's own release.
      - Needs O(settings), since a O(plan) is computed for one release.
    type: str
  services:
    description:
      - Services that must run in the kube-reserved slice (systemd driver), as
        O(kubenode.cgroups.node_cgroups#module:services) places them; uninstalled ones are ignored.
    type: list
    elements: str
    default: []
  cgroups:
    description: The cgroups compared, as O(kubenode.cgroups.node_cgroups#module:cgroups) names them.
    type: list
    elements: str
    choices: [kubepods, burstable, besteffort, system_reserved, kube_reserved]
  systemd_unit_dir:
    description: Where the slice units and drop-ins are, as for M(kubenode.cgroups.node_cgroups).
    type: path
    default: /etc/systemd/system
  persist:
    description:
      - Whether the node has the boot script and its units (O(kubenode.cgroups.node_cgroups#module:persist)); with
        V(false), their presence is drift.
    type: bool
    default: true
  persist_script:
    description: Where the boot script is.
    type: path
    default: /usr/local/libexec/kubenode-cgroups-restore
  generations_dir:
    description: Where the node keeps its generations; RV(generation) says whether its newest is confirmed, inside
      its confirmation window, or rolled back. Unset, as for M(kubenode.cgroups.node_cgroups).
    type: path
  kubelet_config_paths:
    description: kubelet configuration files read when kubelet's unit does not say which, first found wins.
    type: list
    elements: path
    default: [/var/lib/kubelet/config.yaml, /etc/kubernetes/kubelet-config.yaml]
  kubelet_binary:
    description:
      - The kubelet binary asked for its release, for O(settings) without C(kubelet_version). Unset, the one
        kubelet's unit starts; an empty string asks none.
    type: path
  allow_kubelet_version_mismatch:
    description: Compare although the node's kubelet reports another release than the plan's.
    type: bool
    default: false
  sys_path:
    description: Where C(/sys) is (the hugepage sizes, for O(settings)).
    type: path
    default: /sys
  kubelet_root_dir:
    description: kubelet's root directory (its CPU manager checkpoint).
    type: path
    default: /var/lib/kubelet
  check_kubelet_config:
    description: Compare the kubelet configuration too (needs PyYAML on the target).
    type: bool
    default: true
  kubelet_config_path:
    description:
      - kubelet's configuration file. When unset, the one kubelet is started with, found as
        M(kubenode.cgroups.kubelet_config) finds it (RV(kubelet_config) says which and why).
    type: path
  kubelet_config_dropin:
    description:
      - The plan is kept in a drop-in of O(kubelet_dropin_dir) rather than in O(kubelet_config_path). When unset,
        exactly when kubelet runs with a C(--config-dir).
    type: bool
  kubelet_dropin_dir:
    aliases: [dropin_dir]
    description: kubelet's C(--config-dir). When unset, the one kubelet is started with.
    type: path
  kubelet_dropin_name:
    aliases: [dropin_name]
    description: The drop-in that carries the plan.
    type: str
    default: 50-kubenode.conf
  kubelet_settings:
    description: Further KubeletConfiguration keys the node should have.
    type: dict
    default: {}
  allow_driver_mismatch:
    description:
      - The operator accepts kubelet and the container runtime on different cgroup drivers, as
        O(kubenode.cgroups.node_cgroups#module:kubelet_config.allow_driver_mismatch) does for
        M(kubenode.cgroups.node_cgroups). The mismatch is then not drift; RV(drivers) still shows both.
    type: bool
    default: false
  kubelet_service:
    description:
      - kubelet's systemd unit. When systemd is PID 1, a kubelet whose main process started before its
        configuration was last written is drift (C(restart pending)), as after a run interrupted before
        its restart.
    type: str
    default: kubelet.service
seealso:
  - module: kubenode.cgroups.cgroup_info
  - module: kubenode.cgroups.allocatable_info
"""

EXAMPLES = r"""
- name: Plan the node
  kubenode.cgroups.allocatable_info:
    kube_reserved: {cpu: 250m, memory: 512Mi}
    kube_reserved_cgroup: /kube.slice
    cgroup_driver: systemd
  register: plan

- name: Find every difference
  kubenode.cgroups.node_drift_info:
    plan: "{{ plan }}"
  register: drift

- name: Show them
  ansible.builtin.debug:
    var: drift.drift
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
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
impact:
  description:
    - What the plan compared with does to what runs on the node, as M(kubenode.cgroups.node_cgroups) returns it
      (and refuses it unless accepted) - the pods kubelet would no longer admit at its restart, the memory limits
      below their cgroup's working set.
  returned: always
  type: dict
  sample:
    pods: {source: static pods (/etc/kubernetes/manifests), count: 2, refused: [], preempting: []}
    memory: []
    pods_unknown: null
    effects: []
upgrade:
  description:
    - With O(upgrade_to), what that kubelet release would do on this node (null without it) - C(release) the node's,
      C(target); C(cgroup_changes) every control file of kubepods, the QoS tiers and the reserved cgroups the target
      writes differently (C(now) and C(target), null where one writes none); C(allocatable) the node's
      Allocatable before and after when it changes; C(blockers) what would keep the target kubelet from starting
      (its refusals of the node's kubelet configuration, among them feature gates it no longer knows or has locked,
      and C(failCgroupV1) on a cgroup v1 node); C(ready) when there is none; C(ignored_keys) the keys of the node's
      kubelet configuration the target does not know and so ignores (it starts without them), null for a release
      whose keys the collection has not read (before 1.29); C(pods) the node's pods as the impact reads them (its
      static pods, the API server's from O(pods)) - C(source), C(count), and C(changes), every value the target gives
      a pod differently (C(pod), C(container) null for the pod's QoS class and its pod cgroup's control files, else
      the container's value kubelet sends over CRI, C(name), C(now), C(target)); the values hold for a pod kubelet
      creates (a running pod's container cgroups keep what its runtime wrote until it is recreated); C(unknown) why
      they cannot be said, else null.
  returned: always
  type: dict
  sample: {release: '1.34', target: '1.35', ready: false, cgroup_changes: [],
           blockers: ['kubelet 1.35 refuses to start on this cgroup v1 node: failCgroupV1 is true ...'], allocatable: null,
           ignored_keys: [], pods: {source: static pods (/etc/kubernetes/manifests), count: 2, unknown: null,
                                    changes: [{pod: kube-system/web-node1, container: web, name: memory_high,
                                               now: 429916160, target: null}]}}
drift:
  description:
    - Every difference, as C(item) (the cgroup, unit, service or file), C(check) (the control file, property or
      path), C(live) and C(planned). Empty when the node matches, exactly when node_cgroups in check mode with
      the same options would change nothing and nothing else is amiss.
  returned: always
  type: list
  elements: dict
  sample: [{item: kube_reserved, check: memory.swap.max, live: max, planned: '0'}]
cgroup_mode:
  description: C(v2), C(hybrid) or C(v1).
  returned: always
  type: str
  sample: v2
systemd:
  description: Whether PID 1 is systemd.
  returned: always
  type: dict
  sample: {pid1: true}
plan:
  description: The plan compared with (as given), so that reports need nothing else.
  returned: always
  type: dict
  sample: {cgroup_driver: systemd, kubelet_version: '1.37'}
drivers:
  description: The cgroup drivers kubelet and the runtimes are configured with, and C(mismatch).
  returned: always
  type: dict
  sample: {kubelet: {value: systemd, path: /var/lib/kubelet/config.yaml, source: config}, mismatch: false}
kubelet_config:
  description: The configuration kubelet reads (and the drop-in directory), and why; null when the given
    path or directory is not the one kubelet is started with (that is then drift).
  returned: always
  type: dict
  sample: {path: /etc/kubernetes/kubelet-config.yaml, dropin: false, dropin_dir: /etc/kubernetes/kubelet.conf.d,
           reason: the --config of the kubelet.service unit}
"""

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._audit import audit, upgrade_preview
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HOST, HostError, KubenodeError, failure_of, host_error
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _generations as generations
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import runner
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_impact import read_impact, read_pods
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import (
    PLAN_NODE_PATHS as NODE_PATH_OPTIONS, kubelet_file_argument_spec, node_argument_spec, plan_argument_spec)
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import read_node

# kubelet_config's options that node_drift_info takes at the top level (node_cgroups nests them).
KUBELET_FILE_OPTIONS = ('kubelet_settings', 'kubelet_config_path', 'kubelet_config_dropin', 'kubelet_dropin_dir',
                        'kubelet_dropin_name', 'allow_driver_mismatch')


def argument_spec():
    """node_cgroups' view of the node (node_argument_spec) but the plan options, which come as settings."""
    spec = dict((name, option) for name, option in node_argument_spec().items()
                if name not in plan_argument_spec() or name in NODE_PATH_OPTIONS)
    spec.pop('kubelet_config')
    files = kubelet_file_argument_spec()
    spec.update((name, files[name]) for name in KUBELET_FILE_OPTIONS)
    # This module's spellings (settings are its plan options; path and dropin are no aliases here).
    spec['kubelet_settings'] = dict(type='dict', default={})
    spec['kubelet_config_path'] = dict(type='path')
    spec['kubelet_config_dropin'] = dict(type='bool')
    spec.update(settings=dict(type='dict'), check_kubelet_config=dict(type='bool', default=True),
                upgrade_to=dict(type='str'))
    return spec


def node_spec(params):
    """The NodeSpec node_cgroups would work from: the plan given, or its options as settings (validated, with
    node_cgroups' defaults: the node's kubelet release and cgroup driver)."""
    values = dict((name, params[name]) for name in argument_spec()
                  if name not in KUBELET_FILE_OPTIONS and name != 'upgrade_to')
    if params['settings'] is not None:
        plan_options = dict((name, option) for name, option in node_argument_spec().items()
                            if name in plan_argument_spec())
        validated = ArgumentSpecValidator(plan_options).validate(params['settings'])
        if validated.error_messages:
            raise KubenodeError('; '.join(validated.error_messages), field='settings')
        # What settings leave out stays as the module's own options say (the node's paths).
        values.update((name, value) for name, value in validated.validated_parameters.items()
                      if name in params['settings'] or name not in values)
    else:
        # The plan's driver and release are the ones compared with; the runtime's driver, when it differs, is
        # drift of its own.
        plan = NodePlan.from_dict(params['plan'])
        values['cgroup_driver'] = plan.cgroup_driver
        values['kubelet_version'] = plan.kubelet_version or 'auto'
    if params['check_kubelet_config']:
        values['kubelet_config'] = dict((name, params[name]) for name in KUBELET_FILE_OPTIONS)
    return NodeSpec(values, check_mode=True)


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True,
                           required_one_of=[('plan', 'settings')], mutually_exclusive=[('plan', 'settings')])
    params = module.params
    if params['check_kubelet_config'] and not kc.HAS_YAML:
        module.fail_json(msg=missing_required_lib('PyYAML'), exception=kc.YAML_IMPORT_ERROR, failure=HOST)
    host = DryHost(runner(module))  # an audit writes nothing
    try:
        if params['upgrade_to'] and params['plan'] is not None:
            raise KubenodeError('previews an upgrade from settings (the plan options, planned for both releases), '
                                'not from a plan, which is for one release', field='upgrade_to',
                                value=params['upgrade_to'])
        spec = node_spec(params)
        node = read_node(spec, host.systemctl, module.run_command)
        result, run = audit(host, spec, node, params['allow_driver_mismatch'])
        config_now = run.kubelet_config_now
        # The preview's pod values read the node's swap too (read_swap); the impact needs only the pods.
        pods = read_pods(spec, config_now, node.layout if params['upgrade_to'] else None)
        result['impact'] = read_impact(spec, node, result['plan'], pods=pods, config=config_now)
        result['plan'] = result['plan'].as_dict()
        # The preview plans for the target from the same snapshot, never with the configuration change.
        result['upgrade'] = upgrade_preview(spec, node, run, params['upgrade_to'], pods) if params['upgrade_to'] else None
        result['generation'] = generations.read_latest(spec.generations_dir)
        if result['generation']:
            result['generation']['summary'] = generations.describe(result['generation'])
    except (KubenodeError, HostError) as error:
        module.fail_json(msg=str(error), failure=failure_of(error))
    except (IOError, OSError) as error:
        module.fail_json(msg=str(host_error('read', error)), failure=HOST)
    result.pop('warnings')  # check mode's warnings: the drift entries say the same
    module.exit_json(changed=False, **result)


if __name__ == '__main__':
    main()
