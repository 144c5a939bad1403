# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Test-only: each task's wall time, one tab-separated line a task, appended to the file KUBENODE_TASK_TIMES names.

tests/vm/run-scenarios.sh enables it for every scenario and prints where each scenario's time went: molecule
prints a playbook's output only when the playbook ends, so the output itself carries no time.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: task_times
type: aggregate
short_description: Write each task's wall time to a file (tests only)
description:
  - Appends C(seconds, playbook, task path, task name) as a tab-separated line per task to the file the
    environment variable C(KUBENODE_TASK_TIMES) names; does nothing when it is unset.
requirements:
  - enable in the callbacks_enabled setting
"""

import os
import time

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'task_times'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self._path = os.environ.get('KUBENODE_TASK_TIMES')
        self._playbook = ''
        self._task = None
        self._started = 0.0

    def _close_task(self):
        if self._task is None or not self._path:
            return
        seconds = time.time() - self._started
        name = self._task.get_name().replace('\t', ' ').replace('\n', ' ')
        with open(self._path, 'a') as times:
            times.write('%.1f\t%s\t%s\t%s\n' % (seconds, self._playbook, self._task.get_path() or '', name))
        self._task = None

    def _open_task(self, task):
        self._close_task()
        self._task = task
        self._started = time.time()

    def v2_playbook_on_start(self, playbook):
        self._playbook = os.path.basename(playbook._file_name)

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._open_task(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._open_task(task)

    def v2_playbook_on_stats(self, stats):
        self._close_task()
