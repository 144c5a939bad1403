# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Edges of the node layer no other test pinned: each found by `make mutation MUTATION_ARGS="--sample 120"`
(docs/testing.md). Most are what an operator reads when the node refuses: a message built wrong would turn the
kernel's honest refusal into a Python error."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import stat

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _boot_persistence as boot
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs as fs
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._files import check_mode_option, replace_file
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._hosts import LiveHost


class Obj(object):
    def __init__(self, **fields):
        self.__dict__.update(fields)


def test_a_write_the_kernel_refuses_names_the_file_the_value_and_why(tmp_path):
    path = str(tmp_path / 'gone' / 'memory.max')
    with pytest.raises(fs.CgroupWriteError) as error:
        fs.write_file(path, '1024')
    assert (error.value.path, error.value.value, error.value.operation) == (path, '1024', 'write')
    assert 'the kernel refused 1024 for %s: No such file or directory' % path in str(error.value)


def test_a_directory_the_host_cannot_remove_is_named_with_the_reason(tmp_path):
    path = str(tmp_path / 'kubepods')
    with pytest.raises(fs.CgroupWriteError) as error:
        LiveHost(Obj(run_command=None, get_bin_path=lambda *a, **k: None)).rmdir(path)
    assert 'rmdir %s failed: No such file or directory' % path in str(error.value) and error.value.path == path
    assert error.value.operation == 'rmdir' and isinstance(error.value, HostError)


def test_a_mount_table_line_without_super_options_is_no_mount(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._mounts import read_mountinfo
    (tmp_path / 'self').mkdir()
    (tmp_path / 'self' / 'mountinfo').write_text(
        '30 1 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2\n'  # nine fields: cut short
        '31 1 0:31 / /run rw,nosuid - tmpfs tmpfs rw,mode=755\n')
    assert read_mountinfo(str(tmp_path)) == [('/run', 'tmpfs', 'rw,mode=755')]


def test_a_boot_step_of_an_unknown_kind_is_a_programming_error_that_says_so(tmp_path):
    with pytest.raises(ValueError, match='no boot step for chmod'):
        boot._shell_line(Obj(kind='chmod', path=str(tmp_path / 'kubepods')))


def test_a_file_mode_is_any_octal_mode_from_0_and_no_negative_one():
    assert check_mode_option(0) is None and check_mode_option(0o644) is None and check_mode_option(0o7777) is None
    for bad in (-1, 0o10000):
        with pytest.raises(KubenodeError) as error:
            check_mode_option(bad)
        assert error.value.field == 'mode'


def test_a_directory_made_for_a_file_is_readable_by_all(tmp_path):
    module = Obj(tmpdir=str(tmp_path), atomic_move=lambda source, target, unsafe_writes=False: os.rename(source, target))
    old = os.umask(0o022)
    try:
        replace_file(module, str(tmp_path / 'units' / 'kube.slice'), '[Slice]\n')
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(str(tmp_path / 'units')).st_mode) == 0o755
    assert (tmp_path / 'units' / 'kube.slice').read_text() == '[Slice]\n'


def test_a_flag_at_the_end_of_kubelets_arguments_has_no_value():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_discovery import kubelet_flags
    assert kubelet_flags(['kubelet', '--v=2', '--config']) == {'config': None, 'config_dir': None}
    assert kubelet_flags(['kubelet', '--config', '/a.yaml', '--config-dir=/d']) == {'config': '/a.yaml', 'config_dir': '/d'}


def test_a_host_without_kubelet_gets_its_configuration_at_kubeadms_path_and_is_told_so(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_discovery import choose
    root = str(tmp_path)
    chosen = choose({}, exists=lambda path: False, root=root)
    kubeadm = os.path.join(root, 'var/lib/kubelet/config.yaml')
    assert chosen['path'] == kubeadm
    told = 'the configuration is written to %s, where a kubeadm kubelet reads it' % kubeadm
    assert [w for w in chosen['warnings'] if w.endswith(told)]


def test_a_drop_in_asked_of_a_kubelet_without_config_dir_is_refused_naming_the_option(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._kubelet_discovery import choose
    found = {'source': 'kubelet.service', 'config': '/var/lib/kubelet/config.yaml', 'config_dir': None}
    with pytest.raises(KubenodeError) as error:
        choose(found, dropin=True, option_prefix='kubelet_config.')
    assert (error.value.field, error.value.value) == ('kubelet_config.kubelet_config_dropin', True)


def test_the_lock_holder_is_read_from_the_kernels_lock_table_by_inode(tmp_path, monkeypatch):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_lock import NodeLock
    lock = NodeLock(str(tmp_path / 'kubenode.lock'), 1)
    lock.fd = os.open(lock.path, os.O_RDWR | os.O_CREAT, 0o644)
    inode = os.fstat(lock.fd).st_ino
    table = ('1: FLOCK  ADVISORY  WRITE 1111 fd:01:%d 0 EOF\n2: POSIX  ADVISORY  WRITE 2222 fd:01:%d 0 EOF\n'
             '3: FLOCK  ADVISORY  WRITE 4242 fd:01:%d 0 EOF\n' % (inode + 1, inode, inode))
    real_open = open

    def fake_open(path, *args, **kwargs):
        if path == '/proc/locks':
            return io.StringIO(table)
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr('builtins.open', fake_open)
    try:
        assert lock.holder() == '4242'  # the FLOCK on this file, not another file's nor a POSIX lock
    finally:
        os.close(lock.fd)


def test_a_static_pod_manifest_that_is_no_yaml_is_named(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_pods import static_pods
    manifests = tmp_path / 'etc' / 'kubernetes' / 'manifests'
    manifests.mkdir(parents=True)
    (manifests / 'broken.yaml').write_text('kind: Pod\nmetadata: {name: [\n')
    with pytest.raises(KubenodeError) as error:
        static_pods('/etc/kubernetes/manifests', str(tmp_path), str(tmp_path / 'proc'))
    assert error.value.value == str(manifests / 'broken.yaml') and 'is not valid YAML: ' in str(error.value)


def test_a_planned_cgroup_path_that_climbs_is_refused_naming_the_cgroup(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._planned_cgroup import PlannedCgroup
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_snapshot import read_cgroups
    root = str(tmp_path)
    with pytest.raises(KubenodeError) as error:
        read_cgroups(fs.CgroupLayout('v2', {}, root), root, [('kube_reserved', PlannedCgroup('kube_reserved', '/kube/../x'))])
    assert (error.value.field, error.value.value) == ('kube_reserved path', 'kube/..')


def test_a_directory_that_cannot_be_written_says_why(tmp_path, monkeypatch):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _preflight as preflight
    directory = str(tmp_path)
    monkeypatch.setattr(preflight.os, 'statvfs', lambda path: Obj(f_flag=0, f_bavail=2, f_frsize=4096))
    assert preflight.writable_directory_problem(directory) == '%s has only 8192 bytes free' % directory
    assert preflight.writable_directory_problem(directory, room=False) is None
    monkeypatch.setattr(preflight.os, 'access', lambda path, mode: False)
    assert preflight.writable_directory_problem(directory) == '%s is not writable' % directory


def test_cri_o_runs_the_runtime_path_of_its_default_runtime(tmp_path):
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._runtime_config import crio_oci_runtime
    config = tmp_path / 'crio.conf'
    config.write_text('[crio.runtime]\ndefault_runtime = "crun"\n\n[crio.runtime.runtimes.crun]\n'
                      'monitor_path = "/usr/libexec/crio/conmon"\nruntime_path = "/usr/local/bin/crun"\n')
    assert crio_oci_runtime([str(config)])['binary'] == '/usr/local/bin/crun'


def test_a_drop_in_setting_is_its_last_assignment():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import last_assignment
    text = '[Slice]\nMemoryMax=1G\nCPUWeight=100\nMemoryMax = 2G\n'
    assert last_assignment(text, 'MemoryMax') == '2G' and last_assignment(text, 'CPUWeight') == '100'
    assert last_assignment(text, 'AllowedCPUs') is None


def test_an_override_holding_the_planned_value_in_unit_file_units_agrees_with_the_plan():
    """systemctl show gives CPUQuotaPerSecUSec in microseconds a second and AllowedCPUs as a list; the unit files say
    CPUQuota=50% and 0,1,2,3: only the override's side is converted (the plan is in systemctl show's units already)."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import disagrees
    assert disagrees('CPUQuota', '50%', {'CPUQuotaPerSecUSec': '500000'}) is False
    assert disagrees('CPUQuota', '60%', {'CPUQuotaPerSecUSec': '500000'}) is True
    assert disagrees('AllowedCPUs', '0,1,2,3', {'AllowedCPUs': '0-3'}) is False
    assert disagrees('CPUWeight', '100', {}) is True  # the plan leaves it to systemd: an old plan's override
