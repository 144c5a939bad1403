# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node against its plan: what node_drift_info reports, and what node_cgroups reads back with verify.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

There is one comparer. The drift is the record of the steps a check-mode node_cgroups run would take
(_node_steps, performed on a DryHost), plus what no step can mend: a reserved cgroup kubelet's Validate would refuse,
kubelet and the runtime on different cgroup drivers, a service that must restart to run what is on disk,
systemd showing values its units do not hold, and a kubelet configuration kubelet would refuse.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubeletConfigRefused, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _node_steps as steps
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._steps import Record, drift
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import detect_drivers
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._config_fields import keys_ignored_by
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pod_settings import PodSettings, pod_model
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules, node_kubelet_release

if TYPE_CHECKING:  # the types the hints name, imported for the checker only
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import DryHost
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import NodeSnapshot
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_cgroups import RunPlan
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_impact import NodePods
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec


def kubelet_validate_drift(node_run: steps.NodeRun, kernel: Any) -> list[dict[str, Any]]:
    """Reserved cgroups kubelet's Validate would refuse at start (_cgroupfs.validate_missing, which cgroup_info's
    kubelet_accepts answers with too), read from the run's snapshot of the kernel. A step of the run creates or
    enables what is missing; this names why it matters."""
    found = []
    for key, entry in steps.cgroupfs_entries(node_run):
        if not key.endswith('_reserved'):
            continue
        missing = fs.validate_missing(node_run.layout, node_run.root, entry.cgroupfs_path, kernel.isdir, kernel.read)
        if missing:
            found.append(drift(key, 'kubelet Validate', 'missing ' + ', '.join(missing), 'every hierarchy and controller'))
    return found


def driver_drift(plan: NodePlan, drivers: Mapping[str, Any]) -> list[dict[str, Any]]:
    if not drivers.get('mismatch'):
        return []
    seen = ', '.join('%s=%s' % (s, drivers[s]['value']) for s in ('kubelet', 'containerd', 'crio') if drivers.get(s))
    return [drift('cgroup driver', 'kubelet and runtime agree', seen, plan.cgroup_driver)]


def kubelet_config_paths(spec: NodeSpec, node: NodeSnapshot, run: RunPlan) -> tuple[list[str], str | None]:
    """(kubelet's configuration files, its --config-dir): the main file the run chose (its drop-in, if it writes one,
    lies in that directory), else the one named, kubelet's, the usual."""
    if run.kubelet_change:
        return [run.kubelet_change['choice']['path']], run.kubelet_change['choice']['dropin_dir']
    named = spec.kubelet_config_option('kubelet_config_path') or node.kubelet['config']
    return ([named] if named else spec.kubelet_config_paths), node.kubelet['config_dir']


def compare(host: DryHost, spec: NodeSpec, node: NodeSnapshot, run: RunPlan, allow_driver_mismatch: bool,
            ignore_restarts: Iterable[str] = ()) -> dict[str, Any]:
    """{drift, cgroup_mode, systemd, drivers, plan (the NodePlan), kubelet_config}: the node a NodeSnapshot shows
    against a RunPlan: its steps performed on host, a DryHost. ignore_restarts: services about to be restarted."""
    node_run = steps.NodeRun(spec, node, run)
    done = steps.Done(Record(run.warnings))
    found: list[dict[str, Any]] = []
    if node_run.driver.needs_systemd and not node.systemd_running and not node_run.units_offline:
        found.append(drift('systemd', 'PID 1', 'not systemd', 'systemd'))
    else:
        try:
            # Nothing is written, so no target is checked for writing.
            steps.present(node_run, host, done, check_writes=False)
        except (KubenodeError, HostError) as error:
            # What the run could not get past (a bad value, or the host refusing a read), and what it recorded up to
            # there.
            found.append(drift(getattr(error, 'field', None) or 'node', 'can be made to match the plan', str(error),
                               'the plan'))
    found = done.record.found + found
    if done.kernel is not None and not node_run.slices_made_at_boot:
        found += kubelet_validate_drift(node_run, done.kernel)
    found += [drift(p['service'], 'restart pending', p['reason'], 'runs what is on disk')
              for p in steps.find_restarts(node_run, host, done) if p['service'] not in ignore_restarts]
    paths, dropin_dir = kubelet_config_paths(spec, node, run)
    drivers = detect_drivers(paths, spec.containerd_config_path, spec.crio_config_paths, node.files, dropin_dir)
    if not allow_driver_mismatch:
        found += driver_drift(run.plan, drivers)
    change = run.kubelet_change
    return {'drift': found, 'cgroup_mode': node.layout.mode, 'systemd': {'pid1': node.systemd_running},
            'drivers': drivers, 'plan': run.plan, 'warnings': done.record.warnings + done.held_warnings,
            'kubelet_config': dict(change['choice']) if change else None}


def release_drift(spec: NodeSpec, node: NodeSnapshot) -> list[dict[str, Any]]:
    """A plan given for another kubelet release than the node runs: [the drift that names both], else []
    (node_cgroups would refuse to apply it without allow_kubelet_version_mismatch; the audit compares the rest with
    the plan's release)."""
    if spec.plan is None or spec.allow_kubelet_version_mismatch:
        return []
    try:
        node_kubelet_release(spec.kubelet_version, node.kubelet_release)
    except KubenodeError:
        found = node.kubelet_release or {}
        if not found.get('version'):
            raise  # nothing the node runs to name: the error says what is wrong
        return [drift('kubelet release', 'the plan is for it', found['version'], spec.kubelet_version)]
    return []


def audit(host: DryHost, spec: NodeSpec, node: NodeSnapshot, allow_driver_mismatch: bool) -> tuple[dict[str, Any], RunPlan]:
    """(compare()'s result, the RunPlan) for a NodeSpec, the run planned from the one snapshot: once, or twice when kubelet would refuse its
    configuration (or it cannot be found) - that is drift, and the rest is planned again without it and compared.
    A plan for another release than the node's is drift too, and the rest is compared with the plan's release."""
    problems = release_drift(spec, node)
    if problems:
        spec = spec.with_changes(allow_kubelet_version_mismatch=True)
    try:
        run = ops.plan_run(spec, node)
    except KubeletConfigRefused as error:
        problems.append(drift('kubelet config', 'kubelet would accept it', str(error), 'valid'))
        run = ops.plan_run(spec, node, with_kubelet_config=False)
    result = compare(host, spec, node, run, allow_driver_mismatch)
    result['drift'] = problems + result['drift']
    return result, run


def cgroup_file_changes(now: NodePlan, target: NodePlan, mode: str | None) -> list[dict[str, Any]]:
    """[{cgroup, file, now, target}]: every control file value two plans give differently under a cgroup mode
    (None: not written)."""
    changes: list[dict[str, Any]] = []
    for key in sorted(set(now.cgroups) | set(target.cgroups)):
        before_cgroup, after_cgroup = now.cgroup(key), target.cgroup(key)
        before: Mapping[str, str] = before_cgroup.files(mode) if before_cgroup else {}
        after: Mapping[str, str] = after_cgroup.files(mode) if after_cgroup else {}
        changes += [{'cgroup': key, 'file': name, 'now': before.get(name), 'target': after.get(name)}
                    for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
    return changes


# What a container's entry names, not a value kubelet sends for it.
_CONTAINER_NAMES = ('name', 'init', 'sidecar')


def pod_settings(config: Mapping[str, Any], plan: NodePlan, mode: str, release: str,
                 swap: Mapping[str, Any] | None = None) -> PodSettings:
    """The PodSettings (pod_cgroup_info's) of kubelet `release` started with the node's kubelet configuration on this
    node (its plan's driver, capacity, Allocatable and hugepage sizes; mode: the node's cgroup mode; swap: the node's
    swap_capacity and swap_controller, _node_impact.read_swap)."""
    settings = kc.pod_settings_options(config)
    settings.update(swap or {})
    settings.update({
        'kubelet_version': release, 'cgroup_driver': plan.cgroup_driver, 'cgroup_mode': mode,
        'memory_capacity': plan.value('capacity', 'memory'),
        'allocatable_memory': plan.value('allocatable', 'memory'),
        'hugepage_sizes': sorted(name for name in plan.capacity or {} if name.startswith('hugepages-')),
        'api_defaults': True,
    })
    return PodSettings(settings)


def pod_value_changes(candidates: Sequence[Any], now: PodSettings, target: PodSettings, files_key: str) -> list[dict[str, Any]]:
    """[{pod, container, name, now, target}]: every value two releases' PodSettings give a pod differently - its QoS
    class and pod cgroup's control files (container null), each container's values kubelet sends over CRI. The
    allocation is each release's own (a pending in-place resize counts only where the release resizes)."""
    model = pod_model()
    changes: list[dict[str, Any]] = []
    for candidate in candidates:
        values = []
        for settings in (now, target):
            qos, _requests, entry = model.pods.pod_values(model.pods.allocated_pod(candidate.pod, settings), settings)
            values.append((qos, entry))
        (qos_now, before), (qos_target, after) = values
        found = [(None, 'qos_class', qos_now, qos_target)]
        files_before, files_after = before.get(files_key) or {}, after.get(files_key) or {}
        found += [(None, name, files_before.get(name), files_after.get(name))
                  for name in sorted(set(files_before) | set(files_after))]
        for container_now, container_target in zip(before['containers'], after['containers']):
            names = sorted((set(container_now) | set(container_target)) - set(_CONTAINER_NAMES))
            found += [(container_now['name'], name, container_now.get(name), container_target.get(name))
                      for name in names]
        changes += [{'pod': candidate.key, 'container': container, 'name': name, 'now': value_now,
                     'target': value_target}
                    for container, name, value_now, value_target in found if value_now != value_target]
    return changes


def pods_preview(pods: NodePods | None, config: Mapping[str, Any], plans: Sequence[tuple[str, NodePlan]], mode: str,
                 files_key: str) -> dict[str, Any]:
    """The upgrade preview's pods: {source, count, changes} (changes: pod_value_changes), or {unknown: why} when
    nothing says which pods the node runs or the pods' settings cannot be had for both releases. plans: the node's
    (release, NodePlan) now and the target's."""
    if pods is None or not pods.sources:
        return {'source': None, 'count': 0, 'changes': None,
                'unknown': 'pods unknown: kubelet reads no staticPodPath and no pods were given from the API server '
                           '(the pods option)'}
    if not pods.candidates:
        return {'source': pods.describe(), 'count': 0, 'changes': [], 'unknown': None}
    try:
        settings = [pod_settings(config, plan, mode, release, pods.swap) for release, plan in plans]
    except KubenodeError as error:
        return {'source': pods.describe(), 'count': len(pods.candidates), 'changes': None,
                'unknown': "the pods' values are not known: %s" % error}
    return {'source': pods.describe(), 'count': len(pods.candidates),
            'changes': pod_value_changes(pods.candidates, settings[0], settings[1], files_key), 'unknown': None}


def upgrade_preview(spec: NodeSpec, node: NodeSnapshot, run: RunPlan, target: str,
                    pods: NodePods | None = None) -> dict[str, Any]:
    """What kubelet `target` would do on this node, from the snapshot the audit read (nothing more is read, nothing
    written): the node's own release and the target planned alike and compared control file by control file
    (kubepods, the QoS tiers, the reserved cgroups) and in Allocatable; the node's kubelet configuration validated
    as the target validates it at start (ValidateKubeletConfiguration, its feature gate registry); and what would
    keep the target from starting (those refusals, failCgroupV1 on a cgroup v1 node). ready: nothing would.
    ignored_keys: the configuration's keys the target does not know, which it ignores (it starts without them: its
    strict decoding fails and it decodes leniently); None for a release whose keys are not known here. pods: the
    NodePods the audit read (_node_impact.read_pods), whose values each release gives are compared (pods_preview).
    run: the audit's RunPlan, the node's own release planned (the plan does not depend on the kubelet
    configuration change)."""
    rules = kubelet_rules(target, field='upgrade_to')
    now = run
    blockers: list[str] = []
    try:
        ahead = ops.plan_run(spec.with_changes(kubelet_version=rules.version, allow_kubelet_version_mismatch=True),
                             node, with_kubelet_config=False)
    except KubenodeError as error:
        # The plan's own options (its feature gates) are what the target refuses.
        ahead = None
        blockers.append('the plan: %s' % error)
    # The file the operator names comes before the usual places here (kubelet_config_paths), as in the audit's
    # driver detection; the run's kubelet_config_now reads the usual places when kubelet is not running.
    paths, dropin_dir = kubelet_config_paths(spec, node, now)
    config = kc_file.current_config(paths, dropin_dir, node.files) if kc.HAS_YAML else {}
    if config:
        try:
            kc.validate(config, rules, capacity=spec.capacity or node.capacity, allow_driver_mismatch=True)
        except KubenodeError as error:
            blockers.append('the kubelet configuration: %s' % error)
    refusal = kc.cgroup_v1_refusal(node.layout.mode, rules, config)
    if refusal:
        blockers.append(refusal)
    files_key = 'v2_files' if node.layout.mode == 'v2' else 'v1_files'
    changes = cgroup_file_changes(now.plan, ahead.plan, node.layout.mode) if ahead else []
    allocatable: dict[str, Any] | None = None
    if ahead and dict(ahead.plan.allocatable or {}) != dict(now.plan.allocatable or {}):
        allocatable = {'now': dict(now.plan.allocatable), 'target': dict(ahead.plan.allocatable)}
    if ahead:
        pods_ahead = pods_preview(pods, config, [(now.rules.version, now.plan), (rules.version, ahead.plan)],
                                  node.layout.mode, files_key)
    else:
        pods_ahead = {'source': pods.describe() if pods else None, 'count': len(pods.candidates) if pods else 0,
                      'changes': None, 'unknown': 'the target refuses the plan'}
    return {'release': now.rules.version, 'target': rules.version, 'ready': not blockers, 'blockers': blockers,
            'cgroup_changes': changes, 'allocatable': allocatable, 'pods': pods_ahead,
            'ignored_keys': keys_ignored_by(config, rules.minor) if config else []}
