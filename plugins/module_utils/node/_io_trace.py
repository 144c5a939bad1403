# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Everything a run read of the node, recorded as it was read, and read again to tell whether the node still
answers the same (run/_receipt).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

A run is a function of what it reads: the planner does no I/O of its own (the house's rule), the steps read only
what a state=absent run must check before it removes a cgroup (_node_steps.busy_cgroup walks its tree for
processes), and every read of the node goes through a few functions of os, os.path, glob, open() and the module's
run_command.
While a Trace is active those functions are wrapped: each read is recorded with a digest of its answer, in the
order it was made, the outermost only (glob's own os.scandir, or the reads inside a traced function, are part of
what the outer call answered). replay() asks every question again in the same order and stops at the first
answer that differs: when none differs, the same code on the same options would read the same and so decide the
same - the reasoning of build systems that trace a step's inputs (fabricate, tup).

A read whose raw answer moves all the time while what the run takes from it does not (the free memory beside
MemTotal in /proc/meminfo, the PIDs in /proc, the free blocks of a filesystem, the wall clock) is traced a level
higher: the function that takes what the run needs from it is decorated with traced(), and its arguments and its
answer are recorded instead; replay calls it again. Such a function must take JSON values and answer them.

A traced function that asks systemd (traced_systemctl()) takes the node's systemctl as its first argument, which is
not recorded: replay hands it the replaying module's.

A trace that cannot be replayed (a write while tracing, arguments that are not JSON) is marked so and never kept.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import contextlib
import functools
import glob
import hashlib
import importlib
import io
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, TypeVar, cast

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import RunCommand, Systemctl

import builtins

_ACTIVE: list[Trace] = []  # the Trace recording now, if any (one per process: the module's run)
_WRITE_MODES = frozenset('wax+')
# A traced function: its type is kept (traced answers what the function answers).
_Function = TypeVar('_Function', bound=Callable[..., Any])


def _stat_answer(result: os.stat_result) -> list[Any]:
    # Every field but the access time, which a read of the file itself moves.
    return [result.st_mode, result.st_ino, result.st_dev, result.st_nlink, result.st_uid, result.st_gid,
            result.st_size, result.st_mtime, result.st_ctime]


def _walk(top: str, *args: Any, **kwargs: Any) -> list[list[Any]]:
    return [list(step) for step in os.walk(top, *args, **kwargs)]


# Each read a run may make of the node: its name in a trace, where it lives, and how its answer is recorded.
# (owner, attribute, answer function or None for the answer itself)
READS: dict[str, tuple[Any, str, Callable[[Any], Any] | None]] = {
    'exists': (os.path, 'exists', None),
    'lexists': (os.path, 'lexists', None),
    'isdir': (os.path, 'isdir', None),
    'isfile': (os.path, 'isfile', None),
    'islink': (os.path, 'islink', None),
    'realpath': (os.path, 'realpath', None),
    'listdir': (os, 'listdir', None),
    'readlink': (os, 'readlink', None),
    'access': (os, 'access', None),
    'stat': (os, 'stat', _stat_answer),
    'lstat': (os, 'lstat', _stat_answer),
    'statvfs': (os, 'statvfs', list),
    'walk': (os, 'walk', None),
    'glob': (glob, 'glob', None),
}


def digest(value: object) -> str:
    """A short, stable digest of a JSON value."""
    text = json.dumps(value, sort_keys=True, separators=(',', ':'))
    return hashlib.sha1(text.encode('utf-8')).hexdigest()[:20]


def _error(error: BaseException) -> list[Any]:
    return ['error', type(error).__name__, getattr(error, 'errno', None)]


def _read_whole(opener: Callable[..., IO[Any]], path: str | bytes, mode: str, args: Sequence[Any],
                kwargs: Mapping[str, Any]) -> tuple[str | bytes, list[str]]:
    """What open(path, mode) would give to read, read whole: (content, the answer to record)."""
    with opener(path, mode, *args, **kwargs) as handle:
        content = handle.read()
    data = content if isinstance(content, bytes) else content.encode('utf-8', 'surrogateescape')
    return content, ['content', hashlib.sha1(data).hexdigest()]


def ask(name: str, args: Sequence[Any], kwargs: Mapping[str, Any] | None = None) -> Any:
    """One read done again, untraced: its answer as a trace records it."""
    kwargs = kwargs or {}
    try:
        if name == 'open':
            return _read_whole(builtins.open, args[0], args[1], args[2:], kwargs)[1]
        if name == 'run':
            return list(_RUNNERS[-1][0](list(args[0])))
        if name == 'call':
            function = getattr(importlib.import_module(args[0]), args[1])
            if getattr(function, TAKES_SYSTEMCTL, False):
                systemctl = _RUNNERS[-1][1] if _RUNNERS else None
                if systemctl is None:
                    return ['raised', 'no systemctl to ask']
                return _untraced(function)(systemctl, *args[2], **kwargs)
            return _untraced(function)(*args[2], **kwargs)
        owner, attribute, answer = READS[name]
        result = getattr(owner, attribute)(*args, **kwargs) if name != 'walk' else _walk(*args, **kwargs)
        return answer(result) if answer else result
    except (OSError, IOError) as error:
        return _error(error)
    except (ValueError, KubenodeError, HostError) as error:
        # A kept trace holds no read that raised this (that run failed, or refused its trace): the node changed,
        # and the planner, which runs instead, says how.
        return ['raised', type(error).__name__, str(error)]


# (run_command, systemctl) of the module replaying: what ask() runs commands through, and hands to the traced
# functions that take the node's systemctl (traced_systemctl).
_RUNNERS: list[tuple[RunCommand, Systemctl | None]] = []
# The attribute that marks a traced_systemctl() function.
TAKES_SYSTEMCTL = 'takes_systemctl'


@contextlib.contextmanager
def answering(run_command: RunCommand, systemctl: Systemctl | None = None) -> Iterator[None]:
    """While active, ask() runs commands through run_command and hands systemctl to a traced_systemctl() function
    (None: such a read answers that it could not be asked, and so differs)."""
    _RUNNERS.append((run_command, systemctl))
    try:
        yield
    finally:
        _RUNNERS.pop()


def _untraced(function: Callable[..., Any]) -> Callable[..., Any]:
    return getattr(function, '__wrapped__', function)


class Trace(object):
    """The reads of one run, while active: [[name, args, kwargs, answer digest], ...] in the order made."""

    def __init__(self, module: Any = None) -> None:
        self.module = module  # whose run_command is traced while active
        self.reads: list[list[Any]] = []
        self._asked: dict[str, str] = {}
        self.replayable = True
        self.why_not: str | None = None
        self._depth = 0
        self._originals: dict[str, Any] = {}
        self._own_runner: RunCommand | None = None

    def refuse(self, why: str) -> None:
        """This trace can no longer be replayed (a write, an argument that is not JSON)."""
        if self.replayable:
            self.replayable, self.why_not = False, why

    def record(self, name: str, args: Sequence[Any], kwargs: Mapping[str, Any], answer: object) -> None:
        try:
            question = json.dumps([name, list(args), kwargs], sort_keys=True)
            entry = [name, json.loads(question)[1], dict(kwargs), digest(answer)]
        except (TypeError, ValueError):
            self.refuse('%s%r: not a JSON value' % (name, tuple(args)))
            return
        # A question asked again with the same answer is asked once on replay (the run writes nothing between its
        # reads: a trace of a run that wrote is not kept). A different answer is kept too: that replay fails.
        if self._asked.get(question) != entry[3]:
            self._asked[question] = entry[3]
            self.reads.append(entry)

    def _wrap(self, name: str) -> Callable[..., Any]:
        original = self._originals[name]
        owner, attribute, answer = READS[name]

        @functools.wraps(original)
        def read(*args: Any, **kwargs: Any) -> Any:
            if self._depth:
                return original(*args, **kwargs)
            self._depth += 1
            try:
                result = [list(step) for step in original(*args, **kwargs)] if name == 'walk' else original(*args, **kwargs)
            except (OSError, IOError) as error:
                self.record(name, args, kwargs, _error(error))
                raise
            finally:
                self._depth -= 1
            self.record(name, args, kwargs, answer(result) if answer else result)
            return iter(result) if name == 'walk' else result
        return read

    def _open(self, file: Any, mode: str = 'r', *args: Any, **kwargs: Any) -> IO[Any]:
        opener = self._originals['open']
        if self._depth or not isinstance(file, (str, bytes)):
            return opener(file, mode, *args, **kwargs)
        if _WRITE_MODES.intersection(mode):
            self.refuse('open(%r, %r): a write' % (file, mode))
            return opener(file, mode, *args, **kwargs)
        self._depth += 1
        try:
            content, answer = _read_whole(opener, file, mode, args, kwargs)
        except (OSError, IOError) as error:
            self.record('open', (file, mode) + args, kwargs, _error(error))
            raise
        except ValueError as error:
            # Not text (a decoding error): read as the run would, where it would fail, and keep no trace.
            self.refuse('open(%r, %r): %s' % (file, mode, error))
            return opener(file, mode, *args, **kwargs)
        finally:
            self._depth -= 1
        self.record('open', (file, mode) + args, kwargs, answer)
        return io.BytesIO(content) if isinstance(content, bytes) else io.StringIO(content)

    def traced_runner(self, run_command: RunCommand) -> RunCommand:
        """run_command([argv]) -> (rc, out, err), each call recorded (a command's answer is a read too)."""
        def run(argv: Sequence[str], *args: Any, **kwargs: Any) -> Any:
            if args or kwargs:
                self.refuse('run_command(%r) with options' % (argv,))
                return run_command(argv, *args, **kwargs)
            self._depth += 1
            try:
                result = run_command(argv)
            finally:
                self._depth -= 1
            if not self._depth:
                self.record('run', [list(argv)], {}, list(result))
            return result
        return run

    def call(self, function: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
             leading: Sequence[Any] = ()) -> Any:
        """A traced() function's call: recorded with its arguments and answer, the reads inside it not (nor the
        leading arguments: a traced_systemctl() function's systemctl)."""
        if self._depth:
            return function(*leading, *args, **kwargs)
        self._depth += 1
        try:
            result = function(*leading, *args, **kwargs)
        finally:
            self._depth -= 1
        self.record('call', [function.__module__, function.__name__, list(args)], kwargs, result)
        return result

    def __enter__(self) -> Trace:
        if _ACTIVE:
            raise RuntimeError('a Trace is already active')
        _ACTIVE.append(self)
        # The functions as they are now (a test's stand-in for os.statvfs is read through, and put back after).
        self._originals = dict((name, getattr(owner, attribute)) for name, (owner, attribute, _a) in READS.items())
        self._originals['open'] = builtins.open
        for name, (owner, attribute, _answer) in READS.items():
            setattr(owner, attribute, self._wrap(name))
        setattr(builtins, 'open', self._open)  # a stand-in with open's arguments, which mypy cannot see as open
        if self.module is not None:
            self._own_runner = vars(self.module).get('run_command')
            self.module.run_command = self.traced_runner(self.module.run_command)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        for name, (owner, attribute, _answer) in READS.items():
            setattr(owner, attribute, self._originals[name])
        builtins.open = self._originals['open']
        if self.module is not None:
            if self._own_runner is None:
                del self.module.run_command
            else:
                self.module.run_command = self._own_runner
        _ACTIVE.remove(self)


def traced_systemctl(function: _Function) -> _Function:
    """traced() for a function whose first argument is the node's systemctl (node/_systemd.Systemctl): the trace
    records the other arguments and the answer, and replay calls it with the replaying module's systemctl. For a
    decision taken from what systemd shows that moves on its own (a restart moves a unit's main PID and start time)
    while the decision does not."""
    @functools.wraps(function)
    def call(systemctl: Systemctl, *args: Any, **kwargs: Any) -> Any:
        if not _ACTIVE:
            return function(systemctl, *args, **kwargs)
        return _ACTIVE[0].call(function, args, kwargs, leading=(systemctl,))
    setattr(call, TAKES_SYSTEMCTL, True)
    return cast(_Function, call)


def traced(function: _Function) -> _Function:
    """A function a Trace records by its arguments and answer rather than by the reads it makes (see the module's
    docstring); outside a Trace it is the function itself."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not _ACTIVE:
            return function(*args, **kwargs)
        return _ACTIVE[0].call(function, args, kwargs)
    return cast(_Function, call)


def _reads_under(name: str, args: Sequence[Any], directory: str) -> bool:
    """Whether a read asks about directory or a path in it (a traced function: one of its arguments does)."""
    paths = args[2] if name == 'call' else args[:1]
    return any(isinstance(path, str) and (path == directory or path.startswith(directory.rstrip('/') + '/'))
               for path in paths)


def asked_again(reads: Iterable[Sequence[Any]], directory: str, run_command: RunCommand) -> list[list[Any]]:
    """reads, each read of directory or of a path in it asked again and recorded with its answer now: for a writer
    that changed only that directory and knows what the change means for the result the reads decided
    (run/_receipt.follow_confirmation). The others are kept as they were recorded."""
    with answering(run_command):
        return [[name, args, kwargs, digest(ask(name, args, kwargs)) if _reads_under(name, args, directory) else answer]
                for name, args, kwargs, answer in reads]


def replay(reads: Iterable[Sequence[Any]], run_command: RunCommand,
           systemctl: Systemctl | None = None) -> tuple[bool, str | None]:
    """(True, None) when every read of a trace answers as recorded, else (False, the first read that differs)."""
    with answering(run_command, systemctl):
        for name, args, kwargs, answer in reads:
            if digest(ask(name, args, kwargs)) != answer:
                return False, '%s.%s' % (args[0], args[1]) if name == 'call' else '%s %s' % (name, args[0])
        return True, None
