# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Merge node results (shard files, directories of them, AWX artifact dumps, artifacts passed as variables) into
the list the fleet report is rendered from."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet
from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet_report


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('shards', 'artifacts', 'hosts', 'report_dir'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self._task.args
        paths = args.get('shards') or []
        if isinstance(paths, str):
            paths = [p for p in paths.split(',') if p]
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise AnsibleActionFail('shards: must be a list of paths (directories, shard files, AWX artifact dumps), '
                                    'not %r' % (paths,))
        artifacts = args.get('artifacts') or {}
        if not isinstance(artifacts, dict):
            raise AnsibleActionFail('artifacts: must be a mapping of %s* variables, not %r'
                                    % (_fleet.ARTIFACT_PREFIX, artifacts))
        hosts = args.get('hosts') or []
        if not isinstance(hosts, list):
            raise AnsibleActionFail('hosts: must be a list of inventory names, not %r' % (hosts,))
        try:
            documents = _fleet.read_shards(paths)
            documents += _fleet.documents_in(artifacts, 'artifacts') if artifacts else []
        except _fleet.ShardError as error:
            raise AnsibleActionFail('shards: %s' % error)
        if not documents:
            raise AnsibleActionFail('shards: no node result in %s%s' % (
                ', '.join(paths) or 'no path', ' nor in the artifacts' if artifacts else ''))
        fleet, runs, counted = _fleet.merge(documents, [str(h) for h in hosts])
        result.update(changed=False, runs=runs, counted=counted)
        report_dir = args.get('report_dir')
        if not report_dir:
            result['fleet'] = fleet
            return result
        # The report says check mode from the runs it merged (templates/runs.j2).
        result['written'] = _fleet_report.write_report(report_dir, fleet, runs=runs, counted=counted)
        result['changed'] = bool(result['written'])
        return result
