# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node against its plan: what node_drift_info reports, and what node_cgroups reads back with verify.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

There is one comparer. The drift is the record of the steps a check-mode node_cgroups run would take
(_node_executor, dry), plus what no step can mend: a reserved cgroup kubelet's Validate would refuse,
kubelet and the runtime on different cgroup drivers, a service that must restart to run what is on disk,
systemd showing values its units do not hold, and a kubelet configuration kubelet would refuse.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.kubenode.cgroups.plugins.module_utils import _cgroup_files as cgfiles
from ansible_collections.kubenode.cgroups.plugins.module_utils import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils import _node_cgroups as ops
from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubeletConfigRefused, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils._node_executor import drift, executor_for
from ansible_collections.kubenode.cgroups.plugins.module_utils._runtime_config import detect_drivers
from ansible_collections.kubenode.cgroups.plugins.module_utils._versions import kubelet_rules, node_kubelet_release


def kubelet_validate_drift(executor):
    """Reserved cgroups kubelet's Validate would refuse at start: missing in a v1 hierarchy, or on v2 without
    a controller the root offers (cgroup_manager_linux.go). A step of the run creates or enables what is
    missing; this names why it matters."""
    found = []
    kernel, layout = executor.kernel, executor.layout
    for key, entry in executor.cgroupfs_entries():
        if not key.endswith('_reserved'):
            continue
        relative = entry['cgroupfs_path']
        if layout['mode'] == 'v2':
            directory = fs.cgroup_path(executor.root, relative)
            have = (kernel.read(os.path.join(directory, cgfiles.V2_CONTROLLERS_FILE)) or '').split()
            missing = [c for c in ops.offered_controllers(executor.root, kernel) if c not in have] \
                if kernel.isdir(directory) else [directory]
        else:
            missing = [fs.cgroup_path(mount, relative) for hierarchy, mount in sorted(layout['v1_hierarchies'].items())
                       if hierarchy in fs.V1_REQUIRED + fs.V1_OPTIONAL
                       and not kernel.isdir(fs.cgroup_path(mount, relative))]
        if missing:
            found.append(drift(key, 'kubelet Validate', 'missing ' + ', '.join(missing), 'every hierarchy and controller'))
    return found


def driver_drift(plan, drivers):
    if not drivers.get('mismatch'):
        return []
    seen = ', '.join('%s=%s' % (s, drivers[s]['value']) for s in ('kubelet', 'containerd', 'crio') if drivers.get(s))
    return [drift('cgroup driver', 'kubelet and runtime agree', seen, plan['cgroup_driver'])]


def kubelet_config_paths(spec, node, run):
    """Where kubelet's configuration is: the file the run chose, else the one named, kubelet's, the usual."""
    if run.kubelet_change:
        return [run.kubelet_change['path'] if not run.kubelet_change['choice']['dropin']
                else run.kubelet_change['choice']['path']]
    named = spec.kubelet_config_option('kubelet_config_path') or node.kubelet['config']
    return [named] if named else spec.kubelet_config_paths


def compare(host, spec, node, run, allow_driver_mismatch=False, ignore_restarts=()):
    """{drift, cgroup_mode, systemd, drivers, plan, kubelet_config}: the node a NodeSnapshot shows against a
    RunPlan, by a dry run of its driver's executor. ignore_restarts: services about to be restarted."""
    executor = executor_for(run.driver)(host, spec, node, run, True)
    executor.comparing = True
    found = []
    if run.driver == 'systemd' and not node.systemd_running:
        found.append(drift('systemd', 'PID 1', 'not systemd', 'systemd'))
    else:
        try:
            executor.present()
        except KubenodeError as error:
            # What the run could not get past, and what it recorded up to there.
            found.append(drift(error.field or 'node', 'can be made to match the plan', str(error), 'the plan'))
    found = executor.found + found
    if executor.kernel is not None:
        found += kubelet_validate_drift(executor)
    found += [drift(p['service'], 'restart pending', p['reason'], 'runs what is on disk')
              for p in executor.find_restarts() if p['service'] not in ignore_restarts]
    drivers = detect_drivers(kubelet_config_paths(spec, node, run), spec.containerd_config_path,
                             spec.crio_config_paths, node.files)
    if not allow_driver_mismatch:
        found += driver_drift(run.plan, drivers)
    change = run.kubelet_change
    return {'drift': found, 'cgroup_mode': node.layout['mode'], 'systemd': {'pid1': node.systemd_running},
            'drivers': drivers, 'plan': run.plan, 'warnings': executor.warnings,
            'kubelet_config': dict(change['choice']) if change else None}


def release_drift(spec, node):
    """A plan given for another kubelet release than the node runs: named, and the rest compared with the plan's
    release (node_cgroups would refuse to apply it without allow_kubelet_version_mismatch)."""
    if spec.plan is None or spec.allow_kubelet_version_mismatch:
        return []
    try:
        node_kubelet_release(spec.kubelet_version, node.kubelet_release)
    except KubenodeError as error:
        found = node.kubelet_release or {}
        if not found.get('version') or kubelet_rules(spec.kubelet_version).minor == _minor(found['version']):
            raise  # not a mismatch: a release outside the supported range
        spec.allow_kubelet_version_mismatch = True
        return [drift('kubelet release', 'the plan is for it', found['version'], spec.kubelet_version)]
    return []


def _minor(version):
    return int(str(version).split('.')[1])


def audit(host, spec, node, allow_driver_mismatch=False):
    """compare() for a NodeSpec: the run planned once from the snapshot. A kubelet configuration kubelet would
    refuse (or that cannot be found) is drift, and the rest is compared without it."""
    problems = release_drift(spec, node)
    try:
        run = ops.plan_run(spec, node)
    except KubeletConfigRefused as error:
        problems.append(drift('kubelet config', 'kubelet would accept it', str(error), 'valid'))
        run = ops.plan_run(spec, node, with_kubelet_config=False)
    result = compare(host, spec, node, run, allow_driver_mismatch)
    result['drift'] = problems + result['drift']
    return result
