# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node against its plan: what node_drift_info reports, and what node_cgroups reads back after a change.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Reads the host (the kernel's cgroup files, systemd through the caller's systemctl, the kubelet and
runtime configuration); the comparisons themselves are in _drift.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.kubenode.cgroups.plugins.module_utils import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils import _drift
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config_file as kc_file
from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils import _restarts as restarts
from ansible_collections.kubenode.cgroups.plugins.module_utils import _systemd_overrides as overrides
from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils._runtime_config import detect_drivers, pid1_is_systemd


def kubelet_config_drift(params, choice, discovered):
    """The kubelet configuration as kubelet_config would leave it: invalid, or not yet written."""
    if not kc.HAS_YAML:
        return [_drift.drift('kubelet config', 'readable', 'PyYAML is missing on the node', 'PyYAML')]
    try:
        change = kc_file.compute_change({
            'plan': params['plan'], 'kubelet_settings': params['kubelet_settings'],
            'kubelet_config_path': choice['path'], 'kubelet_config_dropin': choice['dropin'],
            'kubelet_dropin_dir': choice['dropin_dir'], 'discovered': discovered,
            'kubelet_dropin_name': params['kubelet_dropin_name'], 'kubelet_version': params['plan'].get('kubelet_version'),
            'capacity': None, 'allow_driver_mismatch': params.get('allow_driver_mismatch', False),
            'containerd_config_path': params['containerd_config_path'],
            'crio_config_paths': params['crio_config_paths']})
    except KubenodeError as error:
        return [_drift.drift('kubelet config', 'kubelet would accept it', str(error), 'valid')]
    target, current_text, current, desired = (change[key] for key in ('target', 'current_text', 'current', 'desired'))
    if current_text is None:
        return [_drift.drift('kubelet config', 'exists', target + ' is missing', 'the planned keys')]
    if kc.normalize(current) != kc.normalize(desired):
        changed = sorted(k for k in set(current) | set(desired) if kc.normalize({k: current.get(k)})
                         != kc.normalize({k: desired.get(k)}))
        return [_drift.drift('kubelet config', 'matches the plan', target + ' differs in ' + ', '.join(changed),
                             'the planned keys')]
    return []


def restart_drift(systemctl, params, choice):
    """kubelet still running with an older configuration than the one on disk (a lost restart)."""
    config = (os.path.join(choice['dropin_dir'], params['kubelet_dropin_name']) if choice['dropin']
              else choice['path'])
    kubelet = _drift.service_name(params['kubelet_service'])
    watched = {kubelet: {'files': [config], 'slice_path': None}}
    pending = restarts.pending(watched, restarts.read_units(systemctl, [kubelet]), restarts.file_mtimes([config]))
    return [_drift.drift(p['service'], 'restart pending', p['reason'], 'runs what is on disk') for p in pending]


def audit_node(params, systemctl):
    """{drift, cgroup_mode, systemd, drivers, plan}: the node read now, compared with params['plan'].

    systemctl(*args) -> (rc, stdout, stderr), called only when systemd is PID 1.
    """
    plan = params['plan']
    root = params['cgroupfs_path']
    layout = fs.detect_layout(params['proc_path'], root)
    v2 = layout['mode'] == 'v2'
    live = dict((key, fs.read_cgroup(layout, root, entry['path'])) for key, entry in plan['cgroups'].items())
    found = _drift.cgroup_drift(plan, live, v2)
    systemd = {'pid1': pid1_is_systemd(params['proc_path'])}
    if plan['cgroup_driver'] == 'systemd':
        if not systemd['pid1']:
            found.append(_drift.drift('systemd', 'PID 1', 'not systemd', 'systemd'))
        else:
            units = [entry['systemd_unit'] for entry in plan['cgroups'].values()]
            units += [_drift.service_name(s) for s in params['services']]
            rc, out, err = systemctl('show', '--property=Id,LoadState,ActiveState,ControlGroup,'
                                     + ','.join(_drift.SHOWN_PROPERTIES), *units)
            if rc != 0:
                raise KubenodeError('systemctl show failed: %s' % (err or out))
            found += _drift.systemd_drift(plan, _drift.parse_systemctl_show(out), v2, params['services'])
            found += _drift.override_drift(plan, dict(
                (entry['systemd_unit'], overrides.read_overrides(params['systemd_control_dirs'], entry['systemd_unit']))
                for entry in plan['cgroups'].values()), v2)
    discovered = discovery.discover(params['proc_path'], systemctl if systemd['pid1'] else None,
                                    _drift.service_name(params['kubelet_service']))
    choice = None
    try:
        choice = discovery.choose(discovered, params['kubelet_config_path'], params['kubelet_config_dropin'],
                                  params['kubelet_dropin_dir'])
    except KubenodeError as error:
        found.append(_drift.drift('kubelet config', 'the file kubelet reads', str(error), 'its --config'))
    if choice and systemd['pid1'] and params['check_kubelet_config']:
        found += restart_drift(systemctl, params, choice)
    drivers = detect_drivers([choice['path'] if choice else discovery.KUBEADM_CONFIG],
                             params['containerd_config_path'], params['crio_config_paths'])
    if not params.get('allow_driver_mismatch'):
        found += _drift.driver_drift(plan, drivers)
    if choice and params['check_kubelet_config']:
        found += kubelet_config_drift(params, choice, discovered)
    return {'drift': found, 'cgroup_mode': layout['mode'], 'systemd': systemd, 'drivers': drivers, 'plan': plan,
            'kubelet_config': dict((k, choice[k]) for k in ('path', 'dropin', 'dropin_dir', 'reason')) if choice else None}
