# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a module's exit_json and fail_json raise under test (conftest's run_module patches them in):
imported by its collection path, so that conftest and the tests share one ModuleFail class under
pytest and under ansible-test units alike; and a fresh interpreter, for what a module's run imports."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _errors


class ModuleExit(Exception):
    def __init__(self, result):
        super(ModuleExit, self).__init__(result)
        self.result = result


class ModuleFail(Exception):
    def __init__(self, result):
        super(ModuleFail, self).__init__(result.get('msg'))
        self.result = result


def exit_json(self, **kwargs):
    kwargs.setdefault('changed', False)
    raise ModuleExit(kwargs)


def fail_json(self, msg, **kwargs):
    kwargs['failed'] = True
    kwargs['msg'] = msg
    raise ModuleFail(kwargs)


# ansible-core logs a module's arguments to syslog when the host has no journal, and syslog refuses a NUL byte:
# AnsibleModule then fails before the module's own code runs (nothing is written either).
ANSIBLE_NUL_REFUSAL = 'Failed to log to syslog (embedded null character)'


def refused_for_nul(message, field):
    """Whether a module's failure message refuses a NUL byte in the option named field: ours, naming it, or
    AnsibleModule's own refusal that comes first where syslog is the log."""
    return message.startswith('%s: must not contain a NUL byte' % field) or message.startswith(ANSIBLE_NUL_REFUSAL)


# The directory that holds ansible_collections, where this run found the collection (model/_errors.py is seven
# levels under it).
COLLECTIONS = _errors.__file__
for _level in range(7):
    COLLECTIONS = os.path.dirname(COLLECTIONS)


def fresh_interpreter(script, cwd):
    """What script prints, run in a fresh interpreter (nothing imported before it) with the collection where this run
    found it and what this interpreter imports ansible-core from: what a module's run on the node imports."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([COLLECTIONS] + [path for path in sys.path if path]))
    return subprocess.run([sys.executable, '-c', script], cwd=str(cwd), env=env, check=True,
                          stdout=subprocess.PIPE, universal_newlines=True).stdout
