# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a module's main() in-process, the way community.general's unit tests do."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import os
import shutil

import pytest
from hypothesis import settings

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleExit, exit_json, fail_json


# CI draws the same examples every run, so a red build always points at a change;
# `make fuzz` draws fresh random ones, many more, to look for new counterexamples.
# No deadline: an example's time is no assertion (speed is bench/'s), and units run beside the VMs, whose load
# made examples of 0.02 ms take 359 ms (hypothesis' FlakyFailure, 2026-11-29).
settings.register_profile('ci', derandomize=True, database=None, deadline=None)
settings.register_profile('fuzz', max_examples=20000, database=None, deadline=None)
settings.load_profile('ci')


# This machine is shared: no test may write where a real node keeps its cgroups, units or configs.
HOST_PATHS = ('/sys/fs/cgroup', '/etc/systemd', '/run/systemd', '/run/lock', '/etc/kubernetes', '/var/lib/kubelet',
              '/etc/containerd', '/etc/crio', '/usr/local/libexec', '/usr/local/sbin')


def _refuse_host_path(path):
    if isinstance(path, int):
        return  # an open file descriptor
    path = os.path.abspath(os.fsdecode(path))
    for host in HOST_PATHS:
        if path == host or path.startswith(host + '/'):
            raise AssertionError('a test tried to write %s on this machine: give the module a temp path' % path)


@pytest.fixture(autouse=True)
def no_host_writes(monkeypatch):
    """Every way the modules write (open and os.open for writing, mkdir, links, removal, atomic_move) refuses host
    paths."""
    def guarded(function, *checked):
        @functools.wraps(function)  # the code under test names what failed by the function's name
        def wrapper(*args, **kwargs):
            for index in checked:
                if len(args) > index:
                    _refuse_host_path(args[index])
            return function(*args, **kwargs)
        return wrapper

    real_open = open

    def guarded_open(file, mode='r', *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and any(flag in mode for flag in 'wax+'):
            _refuse_host_path(file)
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr('builtins.open', guarded_open)
    real_os_open = os.open
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    @functools.wraps(real_os_open)
    def guarded_os_open(path, flags, *args, **kwargs):
        # os.open too: the node lock is opened with it (O_CREAT), and a mutant of lock_path_for once sent a unit
        # test's lock to this machine's /run/lock.
        if flags & writing:
            _refuse_host_path(path)
        return real_os_open(path, flags, *args, **kwargs)
    monkeypatch.setattr(os, 'open', guarded_os_open)
    for name in ('mkdir', 'makedirs', 'remove', 'unlink', 'rmdir', 'chmod'):
        monkeypatch.setattr(os, name, guarded(getattr(os, name), 0))
    for name in ('symlink', 'rename', 'replace'):
        monkeypatch.setattr(os, name, guarded(getattr(os, name), 0, 1))
    monkeypatch.setattr(shutil, 'move', guarded(shutil.move, 0, 1))
    monkeypatch.setattr(basic.AnsibleModule, 'atomic_move',
                        guarded(basic.AnsibleModule.atomic_move, 2))

    def no_host_commands(self, args, **kwargs):
        raise AssertionError('a test ran %s on this machine: fake it (fake_cgroupfs.FakeSystemd)' % (args,))
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', no_host_commands)


@pytest.fixture
def run_module(monkeypatch):
    """run_module(module, args) -> result dict; raises ModuleFail when the module fails."""
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', fail_json)

    def run(module, args, check_mode=False):
        args = dict(args)
        if check_mode:
            args['_ansible_check_mode'] = True
        with patch_module_args(args):
            try:
                module.main()
            except ModuleExit as done:
                return done.result
        raise AssertionError('module neither exited nor failed')
    return run
