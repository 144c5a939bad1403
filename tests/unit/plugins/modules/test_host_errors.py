# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every module turns a host error into a clean failure that names the path and the reason."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import (
    allocatable_info, cgroup_info, kubelet_config, node_cgroups, node_drift_info)

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail

CAPACITY = {'cpu': '4', 'memory': '8Gi'}


def cases(tmp_path, not_a_directory):
    path = str(not_a_directory)
    plan = {'cgroups': {}, 'cgroup_driver': 'cgroupfs'}
    return {
        'node_drift_info': (node_drift_info, {'plan': plan, 'proc_path': path, 'cgroupfs_path': path},
                            path + '/self/mountinfo'),
        'cgroup_info': (cgroup_info, {'proc_path': path, 'cgroupfs_path': path}, path + '/self/mountinfo'),
        'allocatable_info': (allocatable_info, {'proc_path': path, 'sys_path': path, 'kubelet_root_dir': path},
                             path + '/'),
        'node_cgroups': (node_cgroups, {'capacity': CAPACITY, 'proc_path': path, 'cgroupfs_path': path,
                                        'systemd_unit_dir': str(tmp_path / 'units'),
                                        'lock_path': str(tmp_path / 'lock')}, path + '/self/mountinfo'),
        'kubelet_config read': (kubelet_config, {'path': str(tmp_path), 'settings': {'maxPods': 10}},
                                str(tmp_path)),
        'kubelet_config write': (kubelet_config, {'path': path + '/kubelet/config.yaml',
                                                  'settings': {'maxPods': 10}}, path),
    }


@pytest.mark.parametrize('name', ['node_drift_info', 'cgroup_info', 'allocatable_info', 'node_cgroups',
                                  'kubelet_config read', 'kubelet_config write'])
def test_a_path_that_is_not_a_directory_fails_cleanly(run_module, tmp_path, name):
    not_a_directory = tmp_path / 'a-file'
    not_a_directory.write_text('')
    module, args, named = cases(tmp_path, not_a_directory)[name]
    with pytest.raises(ModuleFail) as failure:
        run_module(module, args)
    message = failure.value.result['msg']
    assert named in message, message
    assert any(reason in message for reason in ('Not a directory', 'File exists', 'Is a directory')), message
    assert 'Errno' not in message and 'Traceback' not in message
