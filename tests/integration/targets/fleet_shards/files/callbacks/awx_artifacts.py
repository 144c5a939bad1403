# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A job's artifacts as AWX keeps them: what set_stats (or an action returning ansible_stats) left in the run's
custom stats, written as JSON to $KUBENODE_ARTIFACTS_FILE when the playbook ends (AWX's callback reads the same
stats.custom['_run'])."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: awx_artifacts
type: aggregate
short_description: Write the run's artifacts (custom stats) to a file, as AWX keeps them
description:
  - Test helper of the fleet_shards integration target.
requirements:
  - enabled in ANSIBLE_CALLBACKS_ENABLED
"""

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'awx_artifacts'
    CALLBACK_NEEDS_ENABLED = True

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get('KUBENODE_ARTIFACTS_FILE')
        if path:
            with open(path, 'w') as handle:
                json.dump(stats.custom.get('_run', {}), handle)
