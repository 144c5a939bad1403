# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: kubenode_count
type: aggregate
short_description: Count tasks and module round trips per host for the fleet benchmark
description:
  - Writes a JSON summary (tasks run and modules executed on each host, wall time per task) to
    E(KUBENODE_COUNT_FILE).
requirements:
  - enabled in ANSIBLE_CALLBACKS_ENABLED
"""

import json
import os
import time
from collections import defaultdict

from ansible.plugins.callback import CallbackBase

# Actions that run on the controller, not as a module on the host (role_variables: our action plugin).
CONTROLLER_ACTIONS = ('set_fact', 'debug', 'assert', 'meta', 'fail', 'include_role', 'include_tasks', 'validate_argument_spec',
                      'import_role', 'import_tasks', 'add_host', 'group_by', 'role_variables')


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'kubenode_count'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self.tasks = defaultdict(int)
        self.modules = defaultdict(int)
        self.seconds = defaultdict(float)
        self._current = None

    def _close_task(self):
        if self._current is not None:
            name, started = self._current
            self.seconds[name] += time.time() - started
            self._current = None

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._close_task()
        self._current = (task.get_name(), time.time())

    def v2_playbook_on_handler_task_start(self, task):
        self.v2_playbook_on_task_start(task, False)

    def _record(self, result):
        host = result._host.get_name()
        self.tasks[host] += 1
        action = result._task.action.split('.')[-1]
        delegated = result._task.delegate_to not in (None, host)
        if action not in CONTROLLER_ACTIONS and not delegated:
            self.modules[host] += 1

    def v2_runner_on_ok(self, result):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result)

    def v2_playbook_on_stats(self, stats):
        self._close_task()
        path = os.environ.get('KUBENODE_COUNT_FILE')
        if path:
            with open(path, 'w') as handle:
                json.dump({'tasks': self.tasks, 'modules': self.modules,
                           'seconds_per_task': dict((k, round(v, 2)) for k, v in self.seconds.items())}, handle)
