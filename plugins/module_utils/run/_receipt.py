# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups' receipt: the result of its last run kept on the node with every read that decided it, so that
the next run with the same options answers from it, without importing or running the planner, when the node
still reads the same.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Why: an idempotent run cost the node 0.25 s of CPU against ping's 0.13 s, most of it compiling the planner's
source (AnsiballZ ships no bytecode; docs/performance.md, "Where the time goes"). A receipt is checked with this
module, node/_io_trace and the argument specification alone.

What makes an answer from a receipt the answer the planner would give:
- it is kept from a run that wrote nothing (its result unchanged), or from a dry pass made right after a run that
  wrote (what the next run will read), and only when that run's every read was traced (node/_io_trace);
- it is used only by a run with the same options (check mode and diff apart: with nothing to change a check run
  answers as a live one), the same code (the collection's files as shipped, ansible-core's release, Python's), and
  only when every read, asked again in the same order, answers the same: one differs and the planner runs;
- it lives under /run, so a boot clears it, in a directory of root's alone, and is not used unless owned by the
  user the module runs as and writable by no other.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import stat
import sys
import zipfile
from collections.abc import Callable, Mapping
from typing import Any

from ansible.module_utils.ansible_release import __version__ as ANSIBLE_VERSION

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _io_trace
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_lock import NodeLock, NoLock
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_module import NodeModule
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import runner
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import (
    CGROUPFS, lock_path_for, paths_under_root, receipt_path_for)

FORMAT = 1
_COLLECTION = 'ansible_collections/kubenode/cgroups/'
# Where this file lies in the collection: plugins/module_utils/run/_receipt.py.
_PLUGINS_DEPTH = 3


def code_identity() -> str | None:
    """A digest of the code that would plan: the collection's files as this run has them (the AnsiballZ payload's
    entries, else the plugins directory's Python files), ansible-core's release and Python's; None when this code
    cannot be named (then no receipt is kept or used: one kept by another release would answer for this one)."""
    archive = getattr(globals().get('__loader__'), 'archive', None)
    files: list[list[Any]] = []
    if archive:
        with zipfile.ZipFile(archive) as payload:
            files = sorted([info.filename, info.CRC, info.file_size] for info in payload.infolist()
                           if info.filename.startswith(_COLLECTION))
    else:
        plugins = os.path.abspath(__file__)
        for _level in range(_PLUGINS_DEPTH):
            plugins = os.path.dirname(plugins)
        for directory, _dirs, names in sorted(os.walk(plugins)):
            for name in sorted(n for n in names if n.endswith('.py')):
                with open(os.path.join(directory, name), 'rb') as handle:
                    files.append([os.path.relpath(os.path.join(directory, name), plugins),
                                  hashlib.sha1(handle.read()).hexdigest()])
    if not files:
        return None  # loaded some other way (not AnsiballZ's payload, not a collection directory): unknown code
    return _io_trace.digest([files, ANSIBLE_VERSION, list(sys.version_info[:3])])


def options_key(params: Mapping[str, Any]) -> dict[str, str]:
    """What the options of a run are, for a receipt: {option: digest of its value} of all of them, as validated
    (defaults filled in), so that a receipt not used for its options names them."""
    return dict((name, _io_trace.digest(value)) for name, value in params.items() if name != 'use_receipt')


def node_lock_path(params: Mapping[str, Any]) -> str:
    """The node lock these options name, as NodeSpec places it (the option, else beside the node's cgroupfs)."""
    lock = params.get('lock_path')
    if lock is None:
        cgroupfs = paths_under_root(params['node_root'], {'cgroupfs_path': params.get('cgroupfs_path') or CGROUPFS},
                                    ['cgroupfs_path'])['cgroupfs_path']
        lock = lock_path_for(cgroupfs)
    return lock


def receipt_path(params: Mapping[str, Any]) -> str:
    """The receipt of the node these options name (beside its lock: run/_node_argspec.receipt_path_for)."""
    return receipt_path_for(node_lock_path(params))


def _private(path: str, kind: Callable[[int], bool]) -> bool:
    """Whether path is a kind (stat.S_ISDIR, S_ISREG) owned by this user and writable by no other (not a link)."""
    try:
        found = os.lstat(path)
    except OSError:
        return False
    return kind(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def read_receipt(path: str) -> tuple[dict[str, Any] | None, str | None]:
    """(receipt dict, None), or (None, why none is usable)."""
    if not os.path.lexists(path):
        return None, 'no receipt'
    if not (_private(os.path.dirname(path), stat.S_ISDIR) and _private(path, stat.S_ISREG)):
        return None, 'the receipt or its directory is not private to this user'
    try:
        with open(path) as handle:
            receipt = json.load(handle)
    except (IOError, OSError, ValueError) as error:
        return None, 'the receipt is unreadable: %s' % error
    if not isinstance(receipt, dict) or receipt.get('format') != FORMAT:
        return None, 'the receipt is of another format'
    return receipt, None


def answer(module: NodeModule) -> tuple[dict[str, Any] | None, str | None]:
    """(result, None) when the receipt answers this run, else (None, why not). The result is the kept run's, as
    node_run.apply returned it, with what the receipt says of itself under 'receipt'."""
    params = module.params
    if not params.get('use_receipt'):
        return None, 'use_receipt is false'
    try:
        path = receipt_path(params)
    except KubenodeError as error:
        return None, str(error)  # the run names the bad option
    receipt, why = read_receipt(path)
    if receipt is None:
        return None, why
    kept_options, options = receipt.get('options') or {}, options_key(params)
    if kept_options != options:
        differing = sorted(name for name in set(kept_options) | set(options) if kept_options.get(name) != options.get(name))
        return None, 'the options differ from the receipt\'s: %s' % ', '.join(differing)
    code = code_identity()
    if code is None:
        return None, 'the code of this run cannot be named'
    if receipt.get('code') != code:
        return None, 'the code differs from the receipt\'s'
    # A live run answers under the node lock, as one that plans does: never between another run's writes.
    lock = NoLock() if module.check_mode else NodeLock(node_lock_path(params), params['lock_timeout'])
    with lock:
        same, first_difference = _io_trace.replay(receipt.get('reads') or [], module.run_command, runner(module))
    if not same:
        return None, 'the node reads differently: %s' % first_difference
    result = dict(receipt['result'])
    result['receipt'] = {'used': True, 'path': path, 'reads': len(receipt['reads'])}
    return result, None


def keep(module: NodeModule, trace: _io_trace.Trace, result: dict[str, Any]) -> str | None:
    """Keep result and the trace of the reads that decided it as the node's receipt. None when kept, else why not
    (a receipt not kept costs the next run its speed, never its answer: nothing here fails the run)."""
    if not trace.replayable:
        return 'not every read was traced: %s' % trace.why_not
    code = code_identity()
    if code is None:
        return 'the code of this run cannot be named'
    path = receipt_path(module.params)
    directory = os.path.dirname(path)
    receipt = {'format': FORMAT, 'options': options_key(module.params), 'code': code,
               'reads': trace.reads, 'result': result}
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o700)
        if not _private(directory, stat.S_ISDIR):
            return '%s is not private to this user' % directory
        _write(module, path, receipt)
    except (IOError, OSError, TypeError, ValueError, KubenodeError, HostError) as error:
        return 'the receipt was not kept: %s' % error
    return None


def _write(module: NodeModule, path: str, receipt: Mapping[str, Any]) -> None:
    """The receipt written whole beside path, then moved over it (a reader sees the old one or the new one)."""
    import tempfile  # only a run that keeps a receipt needs it (an answered one does not pay its import)
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.receipt.')
    with os.fdopen(descriptor, 'w') as handle:
        json.dump(receipt, handle, sort_keys=True, separators=(',', ':'))
    with module.raising_failures():
        module.atomic_move(temporary, path)


def follow_confirmation(module: NodeModule, lock_path: str, lock_timeout: float,
                        generation: Mapping[str, Any]) -> str | None:
    """After node_generation confirmed generation (its state line rewritten, nothing else): the receipt kept by the
    dry pass of the run that opened it, when the generation was pending, answers the next run still. Without this the
    first re-run after every change read the new state line, ran the planner and kept the receipt again (the fleet's
    idempotent re-run after a converge: docs/performance.md). A run with nothing to change reads a generation's
    directory only to report the node's newest generation (run/_node_run.generation_result); so the receipt's reads
    there are asked again and its result's generation is the confirmed one (generation, with its summary line).
    The restarts the change asked for came before its confirmation (the role's gate): the receipt follows them too
    (follow_restarts). None when the receipt follows, else why not (it is left as it is: the next run plans, as
    before)."""
    path = receipt_path_for(lock_path)
    receipt, why = read_receipt(path)
    if receipt is None:
        return why
    result = receipt.get('result') or {}
    kept = result.get('generation') or {}
    # 'pending' is node/_generations.PENDING, not imported: an answered run does not pay for that module.
    if (kept.get('id'), kept.get('path'), kept.get('state')) != (generation.get('id'), generation.get('path'), 'pending'):
        return 'the receipt is not of this generation while it was pending'
    try:
        with NodeLock(lock_path, lock_timeout):
            reads = _io_trace.asked_again(receipt.get('reads') or [], generation['path'], module.run_command)
            result = dict(result, generation=dict(generation))
            why = follow_restarts(module, reads, result)
            if why is not None:
                return why
            receipt['reads'], receipt['result'] = reads, result
            _write(module, path, receipt)
    except (IOError, OSError, TypeError, ValueError, KubenodeError, HostError) as error:
        return 'the receipt was not updated: %s' % error
    return None


def follow_restarts(module: NodeModule, reads: list[list[Any]], result: dict[str, Any]) -> str | None:
    """The receipt's decision of which services to restart (run/_restarts.services_to_restart, one traced read)
    asked again, after the restarts it named: a restart moves what systemd shows of the unit (its main PID, its start
    time), so the next run's read of it differed and it planned again on every node a change restarted kubelet on.
    A run with nothing to change takes two things from the decision: restart_pending, and a warning for each service
    a restart left held in its old slice (the last of its warnings: run/_node_steps.Done.held_warnings). So the new
    decision is followed when the kept one held no service (the dry pass after a change's writes finds them changed
    on disk, not held): reads and result are updated in place. None when followed (or nothing moved), else why not."""
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _restarts
    decision = [_restarts.__name__, _restarts.services_to_restart.__name__]
    with _io_trace.answering(module.run_command, runner(module)):
        for entry in reads:
            name, args, kwargs, answer = entry
            if name != 'call' or list(args[:2]) != decision:
                continue
            now = _io_trace.ask(name, args, kwargs)
            if _io_trace.digest(now) == answer:
                continue
            if answer != _io_trace.digest(result.get('restart_pending') or []):
                return 'the receipt\'s services to restart held one in its old slice: the next run plans'
            if not isinstance(now, list) or not all(isinstance(found, dict) for found in now):
                return 'the services to restart could not be asked again: %s' % (now,)
            entry[3] = _io_trace.digest(now)
            result['restart_pending'] = [found for found in now if not found.get('held')]
            result['warnings'] = list(result.get('warnings') or []) + [
                _restarts.held_warning(found) for found in now if found.get('held')]
    return None
