# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writing a KubeletConfiguration file: shared by kubelet_config and node_cgroups.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

prepare() reads and validates (nothing is written when it raises); write() replaces the file
atomically through the module, keeping mode and owner of an existing file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import os
import tempfile

from ansible_collections.kubenode.cgroups.plugins.module_utils import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils._errors import KubenodeError


def file_argument_spec():
    """The options that say which file to write and how: kubelet_config's, and node_cgroups' kubelet_config.
    path, dropin and dropin_dir left unset are found on the node (_kubelet_discovery)."""
    return dict(
        kubelet_settings=dict(type='dict', default={}, aliases=['settings']),
        kubelet_config_path=dict(type='path', aliases=['path']),
        kubelet_config_dropin=dict(type='bool', aliases=['dropin']),
        kubelet_dropin_dir=dict(type='path', aliases=['dropin_dir']),
        kubelet_dropin_name=dict(type='str', default='50-kubenode.conf', aliases=['dropin_name']),
        allow_driver_mismatch=dict(type='bool', default=False),
        backup=dict(type='bool', default=False),
    )


def prepare(params, option_prefix=''):
    """The validated change for kubelet_config's options: a dict of path, before, after, changed, config,
    choice (which file and why) and warnings."""
    found = kc.compute_change(params, option_prefix)
    current, desired = found['current'], found['desired']
    changed = found['current_text'] is None or kc.normalize(current) != kc.normalize(desired)
    choice = found['choice']
    return dict(path=found['target'], before=found['current_text'],
                after=kc.edit_text(found['current_text'], current, desired) if changed else found['current_text'],
                changed=changed, config=dict((k, found['merged'][k]) for k in kc.MANAGED_KEYS if k in found['merged']),
                choice=dict((k, choice[k]) for k in ('path', 'dropin', 'dropin_dir', 'reason')),
                warnings=choice['warnings'])


def summary(change):
    """What a module returns about the change: changed, path, config, and which file was chosen and why."""
    return dict((key, change[key]) for key in ('changed', 'path', 'config', 'choice'))


def diff(change):
    return {'before_header': change['path'], 'after_header': change['path'],
            'before': change['before'] or '', 'after': change['after']}


@contextlib.contextmanager
def failures_raise(module):
    """AnsibleModule.atomic_move and backup_local end the module with fail_json on an OSError; inside this
    block they raise KubenodeError instead, so the caller can report what it had already applied."""
    def raise_instead(msg, **kwargs):
        raise KubenodeError(msg)
    module.fail_json = raise_instead
    try:
        yield
    finally:
        del module.fail_json  # the class's own fail_json again


def write(module, change, backup=False, unsafe_writes=False):
    """Write a prepared change; returns the backup file's path, or None."""
    target = change['path']
    backup_file = module.backup_local(target) if backup and change['before'] is not None else None
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    fd, temp = tempfile.mkstemp(dir=module.tmpdir)
    with os.fdopen(fd, 'w') as handle:
        handle.write(change['after'])
    if change['before'] is None:
        os.chmod(temp, 0o644)
    module.atomic_move(temp, target, unsafe_writes=unsafe_writes)
    return backup_file
