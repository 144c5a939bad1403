# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Warn about variables with a role's prefix that its argument spec does not know: a misspelled role
variable is otherwise ignored without a word, and the run applies the defaults instead."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.kubenode.cgroups.plugins.plugin_utils._role_spec import entry_point_options

display = Display()


def unknown_variables(names, known, prefix):
    """[{name, closest}] of names with prefix that are not known; closest is the likeliest intended name or None."""
    # Compared without the shared prefix, which would make every name look close.
    suffixes = [k[len(prefix):] for k in known if k.startswith(prefix)]
    found = []
    for name in sorted(n for n in names if n.startswith(prefix) and n not in known):
        closest = difflib.get_close_matches(name[len(prefix):], suffixes, n=1, cutoff=0.6)
        found.append({'name': name, 'closest': prefix + closest[0] if closest else None})
    return found


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('prefix', 'entry_point', 'unknown'))
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        prefix = self._task.args.get('prefix')
        if not prefix or not isinstance(prefix, str):
            raise AnsibleActionFail('prefix: a variable name prefix such as node_allocatable_ is required')
        role_path = task_vars.get('role_path')
        if not role_path:
            raise AnsibleActionFail('role_variables runs only inside a role (role_path is not set)')
        known = sorted(entry_point_options(role_path, self._task.args.get('entry_point', 'main')))
        # Run once per batch (run_once in the role): every host of the batch is checked here, through
        # hostvars, so a fleet pays for one task instead of one per host.
        this_host = task_vars.get('inventory_hostname')
        hostvars = task_vars.get('hostvars') or {}
        unknown = {}
        for host in task_vars.get('ansible_play_batch') or [this_host]:
            names = task_vars if host == this_host or host not in hostvars else hostvars[host]
            for entry in unknown_variables(list(names.keys()), known, prefix):
                unknown.setdefault((entry['name'], entry['closest']), []).append(host)
        mode = self._task.args.get('unknown', 'warn')
        if mode not in ('warn', 'fail'):
            raise AnsibleActionFail('unknown: must be "warn" or "fail", not %r' % (mode,))
        found, lines = [], []
        for (name, closest), hosts in sorted(unknown.items()):
            hint = 'did you mean %s?' % closest if closest else 'no such variable'
            lines.append('%s (on %s): the role %s does not know this variable and would ignore it (%s)'
                         % (name, ', '.join(hosts), os.path.basename(role_path), hint))
            found.append({'name': name, 'closest': closest, 'hosts': hosts})
        result.update(changed=False, unknown=found)
        if found and mode == 'fail':
            # Before anything is written: the run would otherwise apply the defaults the misspelling left in place.
            result.update(failed=True, msg='; '.join(lines) + '. Nothing was written. Correct the name, or set '
                          '%sunknown_variables: warn where the inventory carries unrelated %s* variables'
                          % (prefix, prefix))
            return result
        for line in lines:
            display.warning(line.replace('would ignore it', 'ignores it'))
        return result
