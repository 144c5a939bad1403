# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Test-only: SIGKILL ansible-playbook the moment a node_cgroups task reports a change.

The fault steps (extensions/molecule/shared/tasks/faults.yml) enable it, with the role's restarts off, to
kill the controller with the module's writes made and no restart, which no timed `kill` can hit reliably.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: kill_after_node_cgroups
type: aggregate
short_description: Kill ansible-playbook with SIGKILL after node_cgroups changed the node (tests only)
description:
  - When a C(kubenode.cgroups.node_cgroups) task returns C(changed), the controller process kills itself
    with SIGKILL, as an operator's C(kill -9) or a lost controller would, before any later task runs.
requirements:
  - enable in the callbacks_enabled setting
"""

import os
import signal
import sys

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'kill_after_node_cgroups'
    CALLBACK_NEEDS_ENABLED = True

    def v2_runner_on_ok(self, result):
        if result._task.action.endswith('node_cgroups') and result._result.get('changed'):
            sys.stdout.write('kill_after_node_cgroups: node_cgroups changed %s; SIGKILL to pid %d\n'
                             % (result._host.get_name(), os.getpid()))
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
