# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a module's main() in-process, the way community.general's unit tests do."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import settings

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args


# CI draws the same examples every run, so a red build always points at a change;
# `make fuzz` draws fresh random ones, many more, to look for new counterexamples.
settings.register_profile('ci', derandomize=True, database=None)
settings.register_profile('fuzz', max_examples=20000, database=None, deadline=None)
settings.load_profile('ci')


class ModuleExit(Exception):
    def __init__(self, result):
        super(ModuleExit, self).__init__(result)
        self.result = result


class ModuleFail(Exception):
    def __init__(self, result):
        super(ModuleFail, self).__init__(result.get('msg'))
        self.result = result


def _exit_json(self, **kwargs):
    kwargs.setdefault('changed', False)
    raise ModuleExit(kwargs)


def _fail_json(self, msg, **kwargs):
    kwargs['failed'] = True
    kwargs['msg'] = msg
    raise ModuleFail(kwargs)


@pytest.fixture
def run_module(monkeypatch):
    """run_module(module, args) -> result dict; raises ModuleFail when the module fails."""
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', _exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', _fail_json)

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
