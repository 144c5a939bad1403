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
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleActionFail
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ansible_collections.kubenode.cgroups.plugins.plugin_utils._fleet import NOT_REACHED, ROLLED_BACK, RUN_KINDS, Entry, write_files
from ansible_collections.kubenode.cgroups.plugins.plugin_utils._plan_summary import report_resources, report_row

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


def release_source(source: object) -> str:
    """Where the plan's kubelet release came from, in the few words the report's release line has room for (the
    plan's kubelet_version_source holds the whole, and the run's warning says what to set)."""
    text = str(source or '')
    if text.startswith('the newest GA release'):
        return 'not read from the node, the newest GA release assumed'
    return re.split(r' \(|: |; ', text, 1)[0]


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
        env.globals['release_source'] = release_source
        env.globals['report_resources'] = report_resources
        _ENVIRONMENTS[templates] = env
    return _ENVIRONMENTS[templates]


# The headline's counts, in its order: (status shown, singular, plural). An audited node is counted as matching its
# plan or drifting from it; failed, rolled back and unreached nodes apart from both.
HEADLINE = (('applied', 'applied', 'applied'), ('would apply', 'would apply', 'would apply'),
            ('unchanged', 'unchanged', 'unchanged'), ('match', 'matches', 'match'), ('drift', 'drifts', 'drift'),
            (ROLLED_BACK, ROLLED_BACK, ROLLED_BACK), ('failed', 'failed', 'failed'),
            (NOT_REACHED, NOT_REACHED, NOT_REACHED))
# Counted even at 0: an audit's match and drift, another run's applied and unchanged, and always failed and
# not reached.
AUDIT_COUNTS, APPLY_COUNTS, ALWAYS_COUNTED = ('match', 'drift'), ('applied', 'unchanged'), ('failed', NOT_REACHED)


def drift_count(entry: Mapping[str, Any]) -> int:
    """How many places the node's audit found it differing from its plan (0 without an audit)."""
    summary = entry.get('summary')
    drift = summary.get('drift') if isinstance(summary, Mapping) else None
    return len(drift) if isinstance(drift, (list, tuple)) else 0


def shown_status(entry: Mapping[str, Any]) -> str:
    """The status as the report shows it: an audited node "match" or "drift (N)", the others as they are."""
    if entry.get('status') == 'audited':
        count = drift_count(entry)
        return 'drift (%d)' % count if count else 'match'
    return str(entry.get('status'))


def _counted_as(entry: Mapping[str, Any]) -> str:
    shown = shown_status(entry)
    return 'drift' if shown.startswith('drift') else shown


def headline(fleet: Sequence[Mapping[str, Any]]) -> str:
    """"4 node(s): 3 match, 1 drifts, 0 failed, 0 not reached": every status some node has, and those always
    counted; an audit alone (every reached node audited) is counted as match and drift, not applied and unchanged."""
    counts: dict[str, int] = {}
    for entry in fleet:
        counts[_counted_as(entry)] = counts.get(_counted_as(entry), 0) + 1
    audit_only = any(e.get('status') == 'audited' for e in fleet) and not any(
        counts.get(status) for status in ('applied', 'would apply', 'unchanged'))
    shown = []
    always = ALWAYS_COUNTED + (AUDIT_COUNTS if audit_only else APPLY_COUNTS)
    for status, one, many in HEADLINE:
        n = counts.get(status, 0)
        if n or status in always:
            shown.append('%d %s' % (n, one if n == 1 else many))
    last = len([e for e in fleet if e.get('last_seen')])
    return '%d node(s): %s%s' % (len(fleet), ', '.join(shown),
                                 '; %d of them as last seen by an earlier run' % last if last else '')


def prepared(fleet: Sequence[Mapping[str, Any]], kind: str | None) -> list[Entry]:
    """The entries as the templates read them: each with the kind of run it comes from (kind, for this run's) and
    its shown status; the drifting nodes first, the others in their order."""
    entries = [dict(entry, kind=entry.get('kind') or (kind if entry.get('summary') is not None else None),
                    shown=shown_status(entry)) for entry in fleet]
    return sorted(entries, key=lambda e: 0 if _counted_as(e) == 'drift' else 1)


def render(fleet: Sequence[Any], kind: str | None, runs: Sequence[Any] | None = None,
           counted: Mapping[str, Any] | None = None, templates: str = TEMPLATES) -> dict[str, str]:
    """{file name: text} of the report for the fleet entries. kind: what this run is (_fleet.RUN_KINDS), None for a
    merge, whose entries each name theirs. runs and counted: what a merge read (None for the report of one run)."""
    entries = prepared(fleet, kind)
    # The kinds of the runs the nodes' results come from (a node with no result has none).
    kinds = [k for k in RUN_KINDS if any(e['kind'] == k for e in entries)] or [kind or 'apply']
    context: dict[str, Any] = {'__node_audit_fleet': entries, '__node_audit_kinds': kinds,
                               '__node_audit_headline': headline(fleet)}
    if runs is not None:
        context.update(__node_audit_runs=runs, __node_audit_counted=counted or {})
    env = environment(templates)
    return dict((name, env.get_template(source).render(context)) for source, name in FILES)


def write(directory: str, texts: Mapping[str, str], mode: int = 0o644) -> list[str]:
    """Write the report's files atomically into directory (made if missing); the paths of those that changed."""
    return write_files(directory, texts, mode)


def write_report(directory: object, fleet: Sequence[Any], kind: str | None = None, runs: Sequence[Any] | None = None,
                 counted: Mapping[str, Any] | None = None) -> list[str]:
    """render() into directory (the actions' report_dir option); AnsibleActionFail naming the option and why.
    A merged report (kind None) says the kinds of run from its entries."""
    if not isinstance(directory, str) or not os.path.isabs(directory):
        raise AnsibleActionFail('report_dir: must be an absolute path, not %r' % (directory,))
    try:
        return write(directory, render(fleet, kind, runs, counted))
    except (IOError, OSError) as error:
        raise AnsibleActionFail('report_dir: cannot write the fleet report in %s: %s' % (directory, error.strerror or error))
