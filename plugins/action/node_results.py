# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Keep each node's outcome of this run as a shard where the engine keeps it: files in a directory on the
controller (under the node's root in pull mode, where the controller is the node), and AWX artifacts; and write
the run's fleet report from the same entries."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import platform

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet
from ansible_collections.kubenode.cgroups.plugins.plugin_utils import _fleet_report

LOCAL_NAMES = ('localhost', '127.0.0.1', '::1')

display = Display()


def now():
    """UTC with microseconds: two runs in one second are still told apart (the newest shard wins)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def controller_run_id():
    """This ansible-playbook run, when no engine names it: the controller and the playbook process (the parent of
    every worker, so the same for every batch of the run), with its start time against a reused PID."""
    pid = os.getppid()
    started = ''
    try:
        with open('/proc/%d/stat' % pid) as handle:
            started = ' started %s' % handle.read().rsplit(')', 1)[1].split()[19]
    except (IOError, OSError, IndexError):
        pass
    return '%s pid %d%s' % (platform.node(), pid, started)


def batch_warnings(hosts, hostvars):
    """Each warning the node_allocatable role kept on the batch's hosts (role_node_cgroups' fact), once: "on h1,
    h2: text" for those that share its words, the host's own words for a host alone."""
    raw = getattr(hostvars, 'raw_get', hostvars.get)
    hosts_of, text_of = {}, {}
    for host in hosts:
        for warning in (raw(host) or {}).get(_fleet.WARNINGS_FACT) or []:
            if isinstance(warning, dict) and warning.get('generic'):
                hosts_of.setdefault(warning['generic'], []).append(host)
                text_of[warning['generic']] = warning.get('text') or warning['generic']
    return ['on %s: %s' % (', '.join(hosts), text_of[generic] if len(hosts) == 1 else generic)
            for generic, hosts in hosts_of.items()]


def result_hosts(documents):
    """The hosts this run wrote results for, as the shards name them."""
    return [document['host'] for document in documents]


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('fleet', 'dir', 'artifacts', 'run', 'name_local_node', 'report_dir'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self._task.args
        fleet = args.get('fleet')
        if fleet is None:
            # The play's own hosts, read here as they are stored (raw_get): what play_entry reads is results and
            # facts, data already, and templating each node's whole result again on access cost 10 ms a node
            # (a template rendering the list as one more fact cost that, and again when it was passed in).
            hostvars = task_vars['hostvars']
            fleet = _fleet.play_entries(task_vars['ansible_play_hosts_all'], getattr(hostvars, 'raw_get', hostvars.get),
                                        bool(task_vars.get('ansible_check_mode')))
        if not isinstance(fleet, list) or not all(isinstance(e, dict) and e.get('host') for e in fleet):
            raise AnsibleActionFail('fleet: must be a list of the fleet report\'s entries (each a mapping with a host), '
                                    'not %.200r' % (fleet,))
        run = args.get('run') or {}
        if not isinstance(run, dict):
            raise AnsibleActionFail('run: must be a mapping (id, playbook, check_mode), not %r' % (run,))
        if not run.get('id'):
            run = dict(run, id=controller_run_id())
        written = now()
        documents = []
        for entry in fleet:
            if entry.get('status') == _fleet.NOT_REACHED:
                continue  # this run has no result for it: a shard of another run may
            if args.get('name_local_node') and entry['host'] in LOCAL_NAMES:
                entry = dict(entry, host=platform.node())  # pull mode: the node is the controller
            documents.append(_fleet.shard(entry, run, written))
        paths = []
        directory = args.get('dir')
        if directory:
            if not isinstance(directory, str) or not os.path.isabs(directory):
                raise AnsibleActionFail('dir: must be an absolute path, not %r' % (directory,))
            try:
                paths = _fleet.write_shards(directory, documents)
            except (IOError, OSError) as error:
                raise AnsibleActionFail('dir: cannot write the node results under %s: %s'
                                        % (directory, error.strerror or error))
        if args.get('report_dir'):
            shown = list(fleet)
            if directory:
                # A run limited to some hosts (-l) updates them; the fleet's other nodes stay, as last seen.
                others, unreadable = _fleet.last_seen(directory, [e['host'] for e in fleet] + result_hosts(documents))
                shown += others
                if unreadable:
                    result['warnings'] = ['the fleet report leaves out what it cannot read in %s: %s'
                                          % (directory, '; '.join(unreadable))]
            paths += _fleet_report.write_report(args['report_dir'], shown, _fleet.run_kind(run))
        if args.get('artifacts'):
            # set_stats' way: AWX keeps these as the job's artifacts and hands them to the next workflow node.
            result['ansible_stats'] = {'data': dict((_fleet.artifact_key(d['host']), _fleet.trimmed(d)) for d in documents),
                                       'per_host': False, 'aggregate': True}
        result.update(changed=bool(paths), written=paths, hosts=[d['host'] for d in documents], time=written)
        for line in batch_warnings(task_vars.get('ansible_play_batch') or [], task_vars['hostvars']):
            display.warning(line)
        return result
