# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet report's files rendered from its entries, in the controller process: one renderer for the report of
a run and for a report merged from node results, so that the two cannot differ but by what they say of the runs.

PRIVATE plugin_utils: controller side, internal to kubenode.cgroups, may change without notice.

The templates are the node_audit role's (report.html.j2, report.md.j2, report.json.j2 and what they import). They
are rendered by Jinja2 as Ansible's template module renders them (trim_blocks, no autoescape: the HTML escapes with
|e), with ansible-core's own filters and tests and this collection's, but without passing thousands of nodes'
plans through Ansible's variable templating, which costs seconds per thousand nodes.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import datetime
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleActionFail
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ansible_collections.kubenode.cgroups.plugins.plugin_utils._fleet import write_files
from ansible_collections.kubenode.cgroups.plugins.plugin_utils._plan_summary import report_row

TEMPLATES = os.path.join(os.path.dirname(__file__), '..', '..', 'roles', 'node_audit', 'templates')
FILES = (('report.html.j2', 'index.html'), ('report.md.j2', 'report.md'), ('report.json.j2', 'report.json'))
_ENVIRONMENTS: dict[str, Environment] = {}


class _Undefined(StrictUndefined):
    """Ansible's undefined: a missing key of something missing is missing too (so that | default() applies to the
    whole chain), and rendering or comparing it is an error."""

    def __getattr__(self, name: str) -> Any:
        if name[:2] == '__':
            raise AttributeError(name)
        return self

    def __getitem__(self, name: str) -> Any:
        return self


def _now(utc: bool = False, fmt: str | None = None) -> datetime.datetime | str:
    """Ansible's now(): the time, UTC when asked."""
    moment = datetime.datetime.now(datetime.timezone.utc) if utc else datetime.datetime.now()
    return moment.strftime(fmt) if fmt else moment


def environment(templates: str = TEMPLATES) -> Environment:
    """A Jinja2 environment with ansible-core's filters and tests and kubenode.cgroups' filters, made once."""
    if templates not in _ENVIRONMENTS:
        from ansible.plugins.filter.core import FilterModule as CoreFilters
        from ansible.plugins.filter.mathstuff import FilterModule as MathFilters
        from ansible.plugins.test.core import TestModule as CoreTests
        from ansible_collections.kubenode.cgroups.plugins.plugin_utils._filters import filters as our_filters
        env = Environment(loader=FileSystemLoader(templates), trim_blocks=True, autoescape=False,
                          undefined=_Undefined, extensions=['jinja2.ext.do', 'jinja2.ext.loopcontrols'])
        # Jinja2's own filters and tests stay: ansible-core's versions of default, map, select and defined work on
        # its own templating's undefined, not on Jinja2's. The others (to_nice_json, dict2items, zip, match, ...)
        # are ansible-core's.
        for module in (CoreFilters(), MathFilters()):
            env.filters.update((n, f) for n, f in module.filters().items() if n not in env.filters)
        env.filters.update(('kubenode.cgroups.' + name, function) for name, function in our_filters().items())
        env.tests.update((n, t) for n, t in CoreTests().tests().items() if n not in env.tests)
        env.globals['now'] = _now
        # The resource table's row, as the plan lines take it too (_plan_summary): one derivation for both.
        env.globals['report_row'] = report_row
        _ENVIRONMENTS[templates] = env
    return _ENVIRONMENTS[templates]


def render(fleet: Sequence[Any], check_mode: bool, runs: Sequence[Any] | None = None, counted: Mapping[str, Any] | None = None,
           templates: str = TEMPLATES) -> dict[str, str]:
    """{file name: text} of the report for the fleet entries. runs and counted: what a merge read (None for the
    report of one run)."""
    context: dict[str, Any] = {'__node_audit_fleet': fleet, 'ansible_check_mode': check_mode}
    if runs is not None:
        context.update(__node_audit_runs=runs, __node_audit_counted=counted or {})
    env = environment(templates)
    return dict((name, env.get_template(source).render(context)) for source, name in FILES)


def write(directory: str, texts: Mapping[str, str], mode: int = 0o644) -> list[str]:
    """Write the report's files atomically into directory (made if missing); the paths of those that changed."""
    return write_files(directory, texts, mode)


def write_report(directory: object, fleet: Sequence[Any], check_mode: bool = False, runs: Sequence[Any] | None = None,
                 counted: Mapping[str, Any] | None = None) -> list[str]:
    """render() into directory (the actions' report_dir option); AnsibleActionFail naming the option and why.
    A merged report (runs given) says check mode from its runs, not from check_mode."""
    if not isinstance(directory, str) or not os.path.isabs(directory):
        raise AnsibleActionFail('report_dir: must be an absolute path, not %r' % (directory,))
    try:
        return write(directory, render(fleet, check_mode, runs, counted))
    except (IOError, OSError) as error:
        raise AnsibleActionFail('report_dir: cannot write the fleet report in %s: %s' % (directory, error.strerror or error))
