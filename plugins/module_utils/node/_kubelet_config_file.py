# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading and writing KubeletConfiguration files: shared by kubelet_config, node_cgroups and the audit.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Around the pure _kubelet_config: load() and current_config() read, compute_change() and prepare() read
and validate (nothing is written when they raise), each through a files view (_files: the node, or a
FileSnapshot taken once, which makes them pure); write() replaces the file atomically through the
module, keeping mode and owner of an existing file.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import os
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _kubelet_discovery as discovery
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import NODE_FILES, FileSource, replace_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_module import NodeModule
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_paths import DEFAULT_DROPIN_NAME, HOST_ROOT
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_set import OptionSet
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import (
    CONTAINERD_CONFIG_PATH, CRIO_CONFIG_PATHS, containerd_driver, crio_driver)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules


def dropin_pattern(dropin_dir: str) -> str:
    """The drop-ins kubelet reads from its --config-dir."""
    return os.path.join(dropin_dir, '*.conf')


def load(path: str, files: FileSource = NODE_FILES) -> tuple[str | None, kc.Document]:
    """(text or None, document) of a KubeletConfiguration file; a missing file is (None, {})."""
    text = files.read(path)
    if text is None:
        return None, {}
    return text, kc.parse(text, path)


def read_config(paths: Sequence[str], dropin_dir: str | None,
                files: FileSource = NODE_FILES) -> tuple[tuple[str, ...], kc.Document]:
    """(the files read, in kubelet's order; kubelet's configuration now): the first file of paths that exists, with
    the drop-ins of dropin_dir merged over it."""
    existing = [path for path in paths if files.exists(path)]
    if not existing:
        return (), {}
    sources = [existing[0]] + (list(files.matches(dropin_pattern(dropin_dir))) if dropin_dir else [])
    return tuple(sources), kc.merge([load(path, files)[1] for path in sources])


def current_config(paths: Sequence[str], dropin_dir: str | None, files: FileSource = NODE_FILES) -> kc.Document:
    """kubelet's configuration now: the first file of paths that exists, with the drop-ins merged over it."""
    return read_config(paths, dropin_dir, files)[1]


class KubeletConfigRequest(OptionSet):
    """What a change of kubelet's configuration is asked to do, and where: kubelet_config's options (the same
    names as node_cgroups' kubelet_config suboptions) and what the node shows."""

    DEFAULTS = (
        ('kubelet_version', None),  # the release whose rules validate the result; None: the newest GA release
        ('plan', None),  # a node plan whose settings are written (kc.settings_from_plan)
        ('kubelet_settings', None),  # KubeletConfiguration keys written over the plan's
        ('kubelet_config_path', None),  # None: the file kubelet is started with, else a known one
        ('kubelet_config_dropin', None),  # None: a drop-in when kubelet reads a --config-dir
        ('kubelet_dropin_dir', None),
        ('kubelet_dropin_name', DEFAULT_DROPIN_NAME),
        ('capacity', None),  # the node's capacity, for "capacity >= reservation"; None: not checked
        ('allow_driver_mismatch', False),
        ('extra_feature_gates', ()),
        ('containerd_config_path', CONTAINERD_CONFIG_PATH),
        ('crio_config_paths', CRIO_CONFIG_PATHS),
        ('discovered', None),  # what _kubelet_discovery.discover found on the node
        ('known_configs', None),  # where to look when kubelet is not running (None: kubeadm's and the others)
        ('planned', None),  # _node_cgroups.plan_inputs_of: a plan the validation may reuse
        ('node_root', HOST_ROOT),  # the node's root: nothing outside it is chosen or written
        ('service_slice', None),  # the slice the services are placed in (the kube-reserved slice), or None
        ('services', ()),  # the services placed there (kubelet, containerd, crio)
        ('read_now', None),  # read_config's (files, configuration) of this run, reused when it read the same files
    )
    __slots__ = tuple(name for name, _default in DEFAULTS)
    kubelet_version: str | None
    plan: NodePlan | None
    kubelet_settings: Mapping[str, Any] | None
    kubelet_config_path: str | None
    kubelet_config_dropin: bool | None
    kubelet_dropin_dir: str | None
    kubelet_dropin_name: str
    capacity: Mapping[str, Any] | None
    allow_driver_mismatch: bool
    extra_feature_gates: Collection[str]
    containerd_config_path: str
    crio_config_paths: Sequence[str]
    discovered: Mapping[str, Any] | None
    known_configs: Sequence[str] | None
    planned: kc.PlannedFrom | None
    node_root: str
    service_slice: str | None
    services: Collection[str]
    read_now: tuple[tuple[str, ...], kc.Document] | None

    def __init__(self, **options: Any) -> None:
        super(KubeletConfigRequest, self).__init__(**options)
        if self.plan is not None:
            self.plan = NodePlan.from_dict(self.plan)  # kubelet_config's plan option is allocatable_info's dict


def _read_now(request: KubeletConfigRequest, path: str, base: kc.Document,
              dropins: Sequence[tuple[str, kc.Document]]) -> kc.Document:
    """What kubelet reads now (the file and the other drop-ins), merged once a run: the run's own reading
    (request.read_now) when it read the same files."""
    sources = (path,) + tuple(name for name, _document in dropins)
    if request.read_now is not None and request.read_now[0] == sources:
        return request.read_now[1]
    return kc.merge([base] + [document for _name, document in dropins])


def compute_change(request: KubeletConfigRequest, option_prefix: str = '', files: FileSource = NODE_FILES) -> dict[str, Any]:
    """What kubelet_config would write for a KubeletConfigRequest, validated: a dict of target (the file),
    current_text, current, desired, merged and choice (_kubelet_discovery.choose's: why this file, and the
    warnings). option_prefix: how the calling module spells the options (node_cgroups nests them under
    kubelet_config), for the errors."""
    rules = kubelet_rules(request.kubelet_version)
    if request.planned is not None and request.planned.plan is request.plan:
        settings = dict(request.planned.settings)  # derived once, when the run planned
    else:
        settings = kc.settings_from_plan(request.plan) if request.plan else {}
    kc.check_settings(request.kubelet_settings or {}, field=option_prefix + 'kubelet_settings')
    dropin_name = request.kubelet_dropin_name
    if os.path.basename(dropin_name) != dropin_name or not dropin_name.endswith('.conf'):
        raise KubenodeError('must be a file name ending in .conf (kubelet reads only those)',
                            field=option_prefix + 'kubelet_dropin_name', value=dropin_name)
    choice = discovery.choose(request.discovered or {}, request.kubelet_config_path, request.kubelet_config_dropin,
                              request.kubelet_dropin_dir, exists=files.exists, option_prefix=option_prefix,
                              known=request.known_configs, root=request.node_root)
    base_text, base = load(choice['path'], files)
    dropin_path = os.path.join(choice['dropin_dir'], dropin_name)
    dropins = [(name, load(name, files)[1]) for name in files.matches(dropin_pattern(choice['dropin_dir']))
               if name != dropin_path]
    read_now = _read_now(request, choice['path'], base, dropins)
    # The services' cgroups as the node's own configuration names them, moved to where this run places them; the
    # operator's settings win over both.
    placement = kc.service_cgroup_settings(read_now, request.service_slice, request.services)
    settings.update(placement)
    settings.update(request.kubelet_settings or {})
    if placement and discovery.known_layouts([choice['path']])[0][1] == 'kubespray':
        variables = ', '.join('%s: %s' % (kc.KUBESPRAY_SERVICE_CGROUP_VARIABLES[key], value)
                              for key, value in sorted(placement.items()))
        choice['warnings'].append('kubespray writes %s from its own variables: set %s in its inventory so that its '
                                  'next run agrees' % (', '.join(sorted(placement)), variables))
    # What kubelet does anyway is not added where its configuration leaves it out.
    defaults: kc.Document = kc.kubelet_default_settings(request.plan) if request.plan else {}
    defaults = dict((key, value) for key, value in defaults.items() if key not in (request.kubelet_settings or {}))
    if not choice['dropin']:
        target, current_text, current = choice['path'], base_text, base
        desired = kc.apply_settings(current, settings, defaults, read=read_now)
        merged = kc.merge([desired] + [d for _n, d in dropins])
    else:
        target = dropin_path
        current_text, current = load(dropin_path, files)
        desired = kc.apply_settings({}, dict((k, v) for k, v in settings.items() if v is not None), defaults,
                                    read=read_now)
        if current.get('featureGates') and 'featureGates' in desired:
            desired['featureGates'] = dict(current['featureGates'], **desired['featureGates'])
        merged = kc.merge([base] + [d for n, d in dropins if n < dropin_path] + [desired]
                          + [d for n, d in dropins if n > dropin_path])
    runtime = (containerd_driver(request.containerd_config_path, files)
               or crio_driver(request.crio_config_paths, files))
    if runtime and runtime['source'] != 'config':
        runtime = None  # a runtime without an explicit setting is no evidence of a mismatch
    on_node = [name for document in [base, current] + [d for _n, d in dropins]
               for name in (document.get('featureGates') or {})]
    kc.validate(merged, rules, request.capacity, runtime, request.allow_driver_mismatch,
                extra_feature_gates=request.extra_feature_gates, gates_on_node=on_node, planned=request.planned)
    return {'target': target, 'current_text': current_text, 'current': current, 'desired': desired,
            'merged': merged, 'choice': choice}


def prepare(request: KubeletConfigRequest, option_prefix: str = '', files: FileSource = NODE_FILES) -> dict[str, Any]:
    """The validated change for a KubeletConfigRequest: a dict of path, before, after, changed, replaced
    (the values the file held that the change replaces), values (kc.changed_values: each value, live and planned),
    config, choice (which file and why), warnings, and
    flags_file: on a kubeadm node asked for a drop-in whose kubelet has no --config-dir, the change of the file
    kubelet's extra flags come from that gives it one ({path, before, after}), else None."""
    found = compute_change(request, option_prefix, files)
    current, desired = found['current'], found['desired']
    changed = found['current_text'] is None or kc.comparable(current) != kc.comparable(desired)
    choice = found['choice']
    flags_file = None
    if choice.get('add_config_dir'):
        adding = choice['add_config_dir']
        before = files.read(adding['file'])
        flags_file = {'path': adding['file'], 'before': before,
                      'after': discovery.with_config_dir(before, adding['flag_dir'])}
    return dict(path=found['target'], before=found['current_text'],
                after=kc.edit_text(found['current_text'], current, desired) if changed else found['current_text'],
                changed=changed or flags_file is not None,
                replaced=kc.replaced_values(current, desired) if changed else [],
                values=kc.changed_values(current, desired) if changed else [],
                config=dict((k, found['merged'][k]) for k in kc.MANAGED_KEYS if k in found['merged']),
                choice=dict((k, choice[k]) for k in ('path', 'dropin', 'dropin_dir', 'reason')),
                warnings=choice['warnings'], flags_file=flags_file)


def summary(change: dict[str, Any]) -> dict[str, Any]:
    """What a module returns about the change: changed, path, config, and which file was chosen and why."""
    return dict((key, change[key]) for key in ('changed', 'path', 'replaced', 'config', 'choice'))


def diff(change: dict[str, Any]) -> dict[str, Any]:
    return {'before_header': change['path'], 'after_header': change['path'],
            'before': change['before'] or '', 'after': change['after']}


def write(module: NodeModule, change: dict[str, Any], backup: bool = False, unsafe_writes: bool = False) -> str | None:
    """Write a prepared change; returns the backup file's path, or None."""
    target = change['path']
    backup_file = module.backup_local(target) if backup and change['before'] is not None else None
    # An existing file keeps its mode and owner; a new one is world-readable, as kubeadm's is.
    replace_file(module, target, change['after'], 0o644 if change['before'] is None else None, unsafe_writes)
    return backup_file


def write_flags_file(module: NodeModule, change: dict[str, Any], unsafe_writes: bool = False) -> bool:
    """Write the change of kubelet's extra-flags file that gives it its --config-dir, when there is one; whether it
    wrote."""
    flags = change.get('flags_file')
    if not flags or flags['before'] == flags['after']:
        return False
    replace_file(module, flags['path'], flags['after'], 0o644 if flags['before'] is None else None, unsafe_writes)
    return True
