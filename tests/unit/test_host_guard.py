# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The unit tests' guard (conftest.no_host_writes) refuses a write to this machine's node paths, whichever call
makes it. The paths below lie in directories that do not exist: without the guard each call fails otherwise, and
nothing is written."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

MISSING = '/run/lock/kubenode-no-such-dir/kubenode-cgroups.lock'


def test_os_open_for_writing_a_host_path_is_refused():
    with pytest.raises(AssertionError, match='a test tried to write %s' % MISSING):
        os.open(MISSING, os.O_RDWR | os.O_CREAT, 0o644)


def test_open_for_writing_and_mkdir_of_a_host_path_are_refused():
    with pytest.raises(AssertionError, match='a test tried to write'):
        open(MISSING, 'w')
    with pytest.raises(AssertionError, match='a test tried to write'):
        os.mkdir(os.path.dirname(MISSING) + '/sub')


def test_reading_is_left_alone(tmp_path):
    with pytest.raises(OSError):
        os.open(MISSING, os.O_RDONLY)
    fd = os.open(str(tmp_path / 'lock'), os.O_RDWR | os.O_CREAT, 0o644)
    os.close(fd)
