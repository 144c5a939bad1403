# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Node results as shards, and the one merge that turns any set of them into the fleet report's list.

PRIVATE plugin_utils: controller side, internal to kubenode.cgroups, may change without notice.

A shard is one node's outcome of one run (docs/shards.md): the entry of the fleet report that play_entries gave
that node (status, message, operations, summary, sizing, impact), with the schema, its
version, the node's name, when it was written and the run it came from. A run writes its shards where its engine
keeps them: files on the controller (one per node), AWX artifacts (set_stats, one key per node, the plan trimmed to
what the report shows), or a file under the node's root in pull mode. merge() takes shards from anywhere: a node
seen twice keeps its newest shard, and a node named in the inventory with no shard is "not reached".
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

SCHEMA = 'kubenode.cgroups/node-result'
VERSION = 1
# AWX merges the artifacts of a workflow's jobs (the slices of a sliced job) key by key: one key per node keeps
# every slice's nodes.
ARTIFACT_PREFIX = 'kubenode_cgroups_node__'
# What the fleet report reads of a node's plan; an artifact keeps only these (AWX stores artifacts in its database).
REPORT_PLAN_KEYS = ('kubelet_version', 'kubelet_version_source', 'cgroup_driver', 'enforce_node_allocatable',
                    'capacity', 'reserved', 'allocatable', 'internal_capacity', 'allocatable_absolute')
REPORT_KUBEPODS_KEYS = ('cgroupfs_path', 'systemd_unit', 'v1_files', 'v2_files', 'systemd_properties')
ENTRY_KEYS = ('status', 'message', 'operations', 'summary', 'sizing', 'impact', 'warnings')
NOT_REACHED = 'not reached'
ROLLED_BACK = 'rolled back'
# node/_generations' states of a generation the node undid (or failed to undo).
ROLLED_BACK_STATES = ('rolled-back', 'revert-failed')
# A node's entry in the fleet report, and a node result (a shard) as written and read.
Entry = dict[str, Any]
# The node_allocatable role's warnings on a host (role_node_cgroups' fact): said once for the batch by node_results,
# and kept in the host's entry.
WARNINGS_FACT = '__node_allocatable_warnings'
# The kinds of run a node result comes from (its run's "kind"): the audit (read-only: the audit playbook, the
# node_audit role), the node playbook in check mode, and the node playbook or the role applying.
RUN_KINDS = ('audit', 'check', 'apply')


class ShardError(Exception):
    """A shard that cannot be used: says which file or key, and why."""


def artifact_key(host: str) -> str:
    """The set_stats key of a node's shard: the prefix and the name, with what a variable name cannot hold as '_'.
    The shard itself names the node exactly."""
    return ARTIFACT_PREFIX + re.sub(r'[^A-Za-z0-9_]', '_', host)


def _mapping(value: object) -> Mapping[str, Any] | None:
    """value if it is a mapping (a registered result, a fact), else None: an absent or skipped result counts as none."""
    return value if isinstance(value, Mapping) else None


def play_entry(host: str, variables: Mapping[str, Any], check_mode: bool) -> Entry:
    """What happened to one host of the play, from what the roles left in its variables:
    - failed: node_allocatable_failed (set by the node playbook's rescue), with the task and its message;
    - applied, would apply or unchanged: node_cgroups ran (__node_allocatable_cgroups, a result with a plan), audited
      or not;
    - audited: node_audit_result alone;
    - not reached: the rollout stopped before the host's batch, or the host gave no result.
    The summary is the audit (node_audit_result), else the applied plan with no drift; the impact is what the change
    does to what runs there (node_cgroups' impact, else the audit's), also when the gate refused it."""
    failed = _mapping(variables.get('node_allocatable_failed'))
    registered = _mapping(variables.get('__node_allocatable_cgroups'))
    applied = registered if registered is not None and 'plan' in registered else None
    audit = variables.get('node_audit_result')
    if audit is None and applied is not None:
        audit = {'plan': applied['plan'], 'drift': [], 'cgroup_mode': applied.get('cgroup_mode'),
                 'check_mode': check_mode}
    if registered is not None and 'impact' in registered:
        impact = registered['impact']
    else:
        impact = audit.get('impact') if isinstance(audit, Mapping) else None
    generation = (registered or {}).get('generation') or (audit.get('generation') if isinstance(audit, Mapping) else None)
    rolled_back = isinstance(generation, Mapping) and generation.get('state') in ROLLED_BACK_STATES
    if rolled_back:
        # The node undid its last change (the way back): said until a run leaves a newer generation.
        status = ROLLED_BACK
    elif failed is not None:
        status = 'failed'
    elif applied is not None:
        status = ('would apply' if check_mode else 'applied') if applied.get('changed') else 'unchanged'
    elif audit is not None:
        status = 'audited'
    else:
        status = NOT_REACHED
    return {'host': host, 'status': status,
            'message': ('%s: %s' % (failed.get('task', ''), failed.get('msg', '')) if failed is not None
                        else (generation or {}).get('summary') or '' if rolled_back else ''),
            'operations': len(applied.get('changes') or ()) if applied is not None else None,
            'summary': audit, 'sizing': variables.get('node_audit_sizing'), 'impact': impact,
            # The node's own words of each warning the batch's line names it in (role_node_cgroups' fact).
            'warnings': [w['text'] for w in variables.get(WARNINGS_FACT) or []
                         if isinstance(w, Mapping) and w.get('text')]}


def play_entries(hosts: Iterable[str], variables_of: Callable[[str], Mapping[str, Any]], check_mode: bool) -> list[Entry]:
    """The fleet report's list for this run: every host of the play (ansible_play_hosts_all), in its order, with
    play_entry. variables_of(host): the host's variables."""
    return [play_entry(host, variables_of(host), check_mode) for host in hosts]


def shard(entry: Mapping[str, Any], run: Mapping[str, Any], written: str) -> Entry:
    """The shard of one fleet entry (play_entry's) for a run ({id, playbook, check_mode, ...})."""
    document = {'schema': SCHEMA, 'version': VERSION, 'host': entry['host'], 'written': written, 'run': run}
    document.update((key, entry.get(key)) for key in ENTRY_KEYS)
    return document


def trimmed(document: Entry) -> Entry:
    """A shard with its plan cut to what the report shows: small enough for an AWX artifact, and rendered alike."""
    summary = document.get('summary')
    if not isinstance(summary, dict) or not isinstance(summary.get('plan'), dict):
        return document
    plan = summary['plan']
    small = dict((key, plan[key]) for key in REPORT_PLAN_KEYS if key in plan)
    eviction = plan.get('eviction')
    if isinstance(eviction, dict) and 'reservation' in eviction:
        # hard: the thresholds, which the report shows beside the bytes when given as a share (nodefs.available<10%)
        small['eviction'] = dict((key, eviction[key]) for key in ('reservation', 'hard') if key in eviction)
    kubepods = (plan.get('cgroups') or {}).get('kubepods')
    if isinstance(kubepods, dict):
        small['cgroups'] = {'kubepods': dict((key, kubepods[key]) for key in REPORT_KUBEPODS_KEYS if key in kubepods)}
    return dict(document, summary=dict(summary, plan=small))


def checked(document: object, origin: str) -> Entry:
    """The document if it is a shard this collection can read, else ShardError naming where it came from."""
    if not isinstance(document, dict) or document.get('schema') != SCHEMA:
        raise ShardError('%s: not a node result (no "schema": "%s")' % (origin, SCHEMA))
    if document.get('version') != VERSION:
        raise ShardError('%s: node result version %r; this collection reads version %d'
                         % (origin, document.get('version'), VERSION))
    for key in ('host', 'written', 'status'):
        if not isinstance(document.get(key), str) or not document[key]:
            raise ShardError('%s: the node result has no %s' % (origin, key))
    return document


def _load(path: str) -> Any:
    try:
        with open(path) as handle:
            return json.load(handle)
    except ValueError as error:
        raise ShardError('%s: not JSON (%s)' % (path, error))
    except (IOError, OSError) as error:
        raise ShardError('%s: %s' % (path, error.strerror or error))


def job_events(value: object) -> list[Any] | None:
    """The job events a JSON document holds, or None: one event as ansible-runner writes it
    (artifacts/IDENT/job_events/N-UUID.json), a list of them, or a page of AWX's API (/api/v2/jobs/N/job_events/).
    An event is known by its name and its counter: ansible-runner writes the lines ansible prints outside a callback
    (a Python warning on stderr, for one) as "verbose" events, which have no event_data."""
    if isinstance(value, dict) and isinstance(value.get('results'), list):
        return value['results']
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and isinstance(value.get('event'), str) and ('event_data' in value or 'counter' in value):
        return [value]
    return None


def documents_in(value: object, origin: str) -> list[Entry]:
    """The shards one JSON document holds: a shard; a mapping of artifacts (an AWX job's artifacts, a workflow's
    extra variables) whose keys start with ARTIFACT_PREFIX, other keys left alone; an AWX job as its API shows it
    (its artifacts); or job events, whose playbook_on_stats event carries the artifacts as artifact_data (what
    ansible-runner, and so AWX, records of set_stats)."""
    if isinstance(value, dict) and 'schema' in value:
        return [checked(value, origin)]
    events = job_events(value)
    if events is not None:
        found: list[Entry] = []
        for index, event in enumerate(events):
            if isinstance(event, dict) and event.get('event') == 'playbook_on_stats':
                data = (event.get('event_data') or {}).get('artifact_data') or {}
                found.extend(documents_in(data, '%s[%d].event_data.artifact_data' % (origin, index)))
        return found
    if isinstance(value, dict) and isinstance(value.get('artifacts'), dict) and 'id' in value:
        return documents_in(value['artifacts'], '%s.artifacts' % origin)
    if isinstance(value, dict):
        found = [checked(item, '%s[%s]' % (origin, key)) for key, item in sorted(value.items())
                 if key.startswith(ARTIFACT_PREFIX)]
        if found or not value:
            return found
    raise ShardError('%s: neither a node result nor artifacts holding node results (keys %s...)'
                     % (origin, ARTIFACT_PREFIX))


def _json_files(directory: str) -> list[str]:
    return sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith('.json'))


def _runner_events(path: str) -> list[str] | None:
    """The job event files of ansible-runner's artifacts under path: artifacts/IDENT (its job_events), or artifacts
    itself (every IDENT in it); None where path is neither."""
    if os.path.isdir(os.path.join(path, 'job_events')):
        return _json_files(os.path.join(path, 'job_events'))
    idents = sorted(os.path.join(path, name) for name in os.listdir(path)
                    if os.path.isdir(os.path.join(path, name, 'job_events')))
    if not idents:
        return None
    return [name for ident in idents for name in _json_files(os.path.join(ident, 'job_events'))]


def read_shards(paths: Iterable[str]) -> list[Entry]:
    """Every shard under paths: a directory (its *.json files, not recursive; or ansible-runner's artifacts, the
    artifacts directory or one run's, read from their job events), a file (a shard, an artifact dump, job events)."""
    found: list[Entry] = []
    for path in paths:
        if os.path.isdir(path):
            files = _runner_events(path)
            if files is None:
                files = _json_files(path)
        elif os.path.exists(path):
            files = [path]
        else:
            raise ShardError('%s: no such file or directory' % path)
        for name in files:
            found.extend(documents_in(_load(name), name))
    return found


def run_kind(run: Mapping[str, Any] | None) -> str:
    """The kind of run (RUN_KINDS) a node result comes from: its run's kind; for a result written before runs named
    it, check mode says "check", and a playbook named for the audit "audit"."""
    run = run or {}
    kind = run.get('kind')
    if kind in RUN_KINDS:
        return str(kind)
    if run.get('check_mode'):
        return 'check'
    return 'audit' if 'audit' in str(run.get('playbook') or '').lower() else 'apply'


def run_label(run: Mapping[str, Any] | None) -> str:
    """How the report names a run: its id, the playbook, and check mode."""
    run = run or {}
    return '%s (%s%s)' % (run.get('id') or 'unknown run', run.get('playbook') or 'a playbook',
                          ', --check' if run.get('check_mode') else '')


def merge(documents: Sequence[Entry], expected: Sequence[str] = ()) -> tuple[list[Entry], list[dict[str, Any]], dict[str, int]]:
    """(fleet, runs, counted): the fleet report's list, one entry per node - the inventory's nodes (expected) in their
    order, then nodes only the shards name, sorted - each from its newest shard, or "not reached"; the runs merged,
    oldest first; and {'shards', 'duplicates', 'not_reached'}."""
    newest: dict[str, Entry] = {}
    for document in documents:
        kept = newest.get(document['host'])
        if kept is None or document['written'] >= kept['written']:
            newest[document['host']] = document
    order = list(expected) + sorted(h for h in newest if h not in set(expected))
    fleet: list[Entry] = []
    seen: set[str] = set()
    for host in order:
        if host in seen:
            continue
        seen.add(host)
        latest = newest.get(host)
        if latest is None:
            fleet.append({'host': host, 'status': NOT_REACHED, 'message': '', 'operations': None, 'summary': None,
                          'sizing': None, 'impact': None, 'warnings': None})
        else:
            entry = dict([('host', host)] + [(key, latest.get(key)) for key in ENTRY_KEYS])
            # Which kind of run the entry came from: a merge may mix check-mode and apply runs, and the report says
            # per node whether its drift is what an apply would change or what is left on the node.
            entry['check_mode'] = bool((latest.get('run') or {}).get('check_mode'))
            entry['kind'] = run_kind(latest.get('run'))
            entry['written'] = latest['written']
            fleet.append(entry)
    runs: dict[str, dict[str, Any]] = {}
    for document in newest.values():
        run = document.get('run') or {}
        key = json.dumps(run, sort_keys=True)
        entry = runs.setdefault(key, {'run': run, 'label': run_label(run), 'nodes': 0, 'written': document['written']})
        entry['nodes'] += 1
        entry['written'] = min(entry['written'], document['written'])
    counted = {'shards': len(documents), 'duplicates': len(documents) - len(newest),
               'not_reached': len([e for e in fleet if e['status'] == NOT_REACHED and e['host'] not in newest])}
    return fleet, sorted(runs.values(), key=lambda r: (r['written'], r['label'])), counted


def last_seen(directory: str, hosts: Iterable[str]) -> tuple[list[Entry], list[str]]:
    """(entries, errors): the newest result of each node kept in directory (a run's shard directory) but hosts (this
    run's), each marked last_seen; and what could not be read there. A run limited to some hosts (-l) updates them in
    the fleet report and shows the others as last seen, with their date, instead of a smaller report in silence."""
    if not os.path.isdir(directory):
        return [], []
    skipped = set(shard_name(host) for host in hosts)
    documents: list[Entry] = []
    errors: list[str] = []
    for path in _json_files(directory):
        if os.path.basename(path) in skipped:
            continue
        try:
            documents.extend(documents_in(_load(path), path))
        except ShardError as error:
            errors.append(str(error))
    fleet, _runs, _counted = merge(documents)
    return [dict(entry, last_seen=True) for entry in fleet], errors


def write_files(directory: str, texts: Mapping[str, str], mode: int = 0o644) -> list[str]:
    """Write each {name: text} into directory (made if missing) atomically: a reader never sees half a file. A file
    that already holds its text is left alone. The paths written."""
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    written = []
    for name, text in sorted(texts.items()):
        path = os.path.join(directory, name)
        try:
            with open(path) as handle:
                if handle.read() == text:
                    continue
        except (IOError, OSError):
            pass
        descriptor, temporary = tempfile.mkstemp(prefix='.%s.' % name, dir=directory)
        try:
            with os.fdopen(descriptor, 'w') as out:
                out.write(text)
            os.chmod(temporary, mode)
            os.rename(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.remove(temporary)
            raise
        written.append(path)
    return written


def shard_name(host: str) -> str:
    """The file a host's shard is kept in: its name with what a file name cannot hold replaced."""
    return re.sub(r'[^A-Za-z0-9_.@-]', '_', host) + '.json'


def _same_result(path: str, document: Entry) -> bool:
    """Whether the shard at path holds document's result, whenever it was written: the node playbook writes the
    shards after every batch, and a host of an earlier batch has nothing new (a rewrite of every shard of the play
    each batch made a rollout in B batches write B times its hosts)."""
    try:
        kept = _load(path)
    except ShardError:
        return False  # missing or unreadable: written anew
    return isinstance(kept, dict) and dict(kept, written=document['written']) == document


def write_shards(directory: str, documents: Iterable[Entry], mode: int = 0o644) -> list[str]:
    """Each shard as directory/HOST.json (write_files), but for a host whose shard already holds the same result
    (_same_result). The paths written."""
    # The plan's order is the report's order: the keys are not sorted.
    texts = {}
    for document in documents:
        name = shard_name(document['host'])
        if not _same_result(os.path.join(directory, name), document):
            texts[name] = json.dumps(document, indent=1) + '\n'
    return write_files(directory, texts, mode)
