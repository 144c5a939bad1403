# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups keeps its generation through the live host (node/_hosts.KeepingHost): every file and value a real
run writes over is kept first, and the generation's script puts the fake node back as it was. The node's PID 1 is
not systemd, so the script asks no systemd (and nothing of this machine's)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args
from ansible_collections.kubenode.cgroups.tests.unit.node_files import write_text

CAPACITY = {'cpu': '4', 'memory': '16Gi'}


def read(path):
    with open(path) as handle:
        return handle.read()


def test_a_run_keeps_what_it_writes_over_and_the_generation_puts_the_node_back(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch, pid1='init')
    kubelet_file = tree.node_paths()['kubelet_config_paths'][0]
    write_text(kubelet_file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                             'cgroupDriver: cgroupfs\n')
    options = node_cgroups_args(tree, CAPACITY, kubelet_config={'kubelet_config_path': kubelet_file},
                                containerd_config_path=str(tmp_path / 'none.toml'), crio_config_paths=[])
    first = run_module(node_cgroups, options)
    assert first['generation']['state'] == 'confirmed'  # confirm_timeout 0: no window, kept for a rollback
    # Beside the fake node's tree, never this machine's /var/lib.
    assert first['generation']['path'].startswith(str(tmp_path))
    limit = os.path.join(tree.root, 'memory', 'system', 'memory.limit_in_bytes')
    config_before, limit_before = read(kubelet_file), read(limit)

    second = run_module(node_cgroups, dict(options, confirm_timeout=120,
                                           system_reserved={'cpu': '500m', 'memory': '2Gi', 'pid': '1000'}))
    kept = second['generation']
    assert second['changed'] and kept['id'] == '000002'
    # No systemd to arm a timer: the generation waits for its confirmation.
    assert kept['state'] == 'pending' and kept['timer'] is None and kept['timeout'] == 0
    assert {'kind': 'file', 'path': kubelet_file} in kept['restores']
    assert {'kind': 'value', 'path': limit} in kept['restores']
    assert read(limit) != limit_before and read(kubelet_file) != config_before

    done = subprocess.run(['/bin/sh', os.path.join(kept['path'], 'revert.sh'), 'demand', 'asked'],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
    assert done.returncode == 0, done.stderr
    assert read(kubelet_file) == config_before and read(limit) == limit_before
    # The next run sees the node as it was before the change, and its generation as rolled back.
    third = run_module(node_cgroups, dict(options, use_receipt=False), check_mode=True)
    assert third['generation']['state'] == 'rolled-back' and third['generation']['reason'] == 'asked'
    assert not third['changed']
