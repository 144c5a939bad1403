# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_cgroups' receipt (run/_receipt, node/_io_trace): the next run answers from it only when the node reads
the same, and then answers what the planner would have."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import stat

import pytest
from ansible.module_utils import basic

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _cgroupfs, _io_trace
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._node_lock import NodeLock
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _receipt
from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups, node_generation
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args, snapshot
from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail, fresh_interpreter
from ansible_collections.kubenode.cgroups.tests.unit.node_files import write_text

CAPACITY = {'cpu': '4', 'memory': '16Gi'}
NO_RECEIPT = {'used': False, 'why': 'use_receipt is false', 'kept': False, 'why_not_kept': 'use_receipt is false'}
MU = 'ansible_collections.kubenode.cgroups.plugins.module_utils'
# The planner and what only it needs: a run the receipt answers must not import them. Every module a run imports is
# compiled from source on the node (AnsiballZ ships no bytecode), and these were two thirds of an answered run's
# own imports (docs/performance.md).
PLANNER = tuple(MU + name for name in (
    '.model._allocatable', '.model._impact', '.model._pod_settings', '.model._kubelet_config', '.model._eviction',
    '.run._node_cgroups', '.run._node_run', '.run._node_impact', '.run._steps', '.node._node_snapshot',
    '.node._kubelet_config_file')) + ('yaml',)
MEMINFO = 'MemTotal:       16384000 kB\nMemFree:         %d kB\nSwapTotal:             0 kB\n'


def without_receipt(result):
    return dict((key, value) for key, value in result.items() if key != 'receipt')


def receipt_file(tree):
    return os.path.join(tree.base, 'run/kubenode-cgroups/node_cgroups.receipt')


@pytest.fixture(params=['cgroupfs-v2', 'systemd-v2', 'cgroupfs-v1'])
def node(request, tmp_path, monkeypatch):
    """(tree, options) of a node the tests converge: cgroupfs or systemd driver, with a kubelet configuration."""
    return make_node(request.param, tmp_path, monkeypatch)


# cgroup v1 counts OOM kills in the kernel's log (journalctl), which node_generation's confirmation reads.
@pytest.fixture(params=['cgroupfs-v2', 'systemd-v2'])
def v2_node(request, tmp_path, monkeypatch):
    return make_node(request.param, tmp_path, monkeypatch)


def make_node(name, tmp_path, monkeypatch):
    driver, mode = name.split('-')
    tree = FakeCgroupfs(tmp_path, mode, monkeypatch, pid1='systemd' if driver == 'systemd' else 'init')
    kubelet_file = tree.node_paths()['kubelet_config_paths'][0]
    write_text(kubelet_file, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                             'cgroupDriver: %s\n' % driver)
    extra = dict(cgroup_driver=driver, kubelet_config={'kubelet_config_path': kubelet_file},
                 containerd_config_path=str(tmp_path / 'none.toml'), crio_config_paths=[])
    if driver == 'systemd':
        extra.update(system_reserved_cgroup='/system.slice', kube_reserved_cgroup='/kube.slice')
    return tree, node_cgroups_args(tree, CAPACITY, **extra)


def test_an_answered_run_imports_no_planner(run_module, node, tmp_path):
    """What the receipt's replay imports (the modules of its traced reads) and the module itself load none of the
    planner, in a fresh interpreter as on the node: a traced read that lives beside the planner (squeezed_memory
    was in run/_node_impact) made every answered run compile it."""
    tree, options = node
    assert run_module(node_cgroups, options)['receipt']['kept']
    with open(receipt_file(tree)) as handle:
        reads = json.load(handle)['reads']
    traced_modules = sorted(set(args[0] for kind, args, _kwargs, _answer in reads if kind == 'call'))
    assert 'squeezed_memory' in set(args[1] for kind, args, _kwargs, _answer in reads if kind == 'call')
    script = 'import importlib, sys\nimport ansible_collections.kubenode.cgroups.plugins.modules.node_cgroups\n' \
        'for name in %r:\n    importlib.import_module(name)\n' \
        'print(" ".join(name for name in %r if name in sys.modules))\n' % (traced_modules, PLANNER)
    assert fresh_interpreter(script, tmp_path).split() == []


def test_a_converged_node_is_answered_by_the_receipt_as_the_planner_answers(run_module, node):
    """The run that writes keeps a receipt (from a dry pass after its writes); the next live run and a check run
    are answered by it, with what a run without it (use_receipt false) returns, and nothing is written."""
    tree, options = node
    first = run_module(node_cgroups, options)
    assert first['changed'] and first['receipt'] == {'used': False, 'why': 'no receipt', 'kept': True}
    planned = run_module(node_cgroups, dict(options, use_receipt=False))
    planned_check = run_module(node_cgroups, dict(options, use_receipt=False), check_mode=True)
    assert not planned['changed'] and planned['receipt'] == NO_RECEIPT
    before = snapshot(tree.base)
    again = run_module(node_cgroups, options)
    assert again['receipt']['used'] and again['receipt']['reads'] > 20
    assert without_receipt(again) == without_receipt(planned)
    checked = run_module(node_cgroups, options, check_mode=True)
    assert checked['receipt']['used'] and without_receipt(checked) == without_receipt(planned_check)
    assert snapshot(tree.base) == before


def test_use_receipt_false_keeps_none(run_module, node):
    tree, options = node
    result = run_module(node_cgroups, dict(options, use_receipt=False))
    assert result['changed'] and result['receipt'] == NO_RECEIPT
    assert not os.path.exists(receipt_file(tree))


def test_a_check_run_keeps_no_receipt(run_module, node):
    tree, options = node
    result = run_module(node_cgroups, options, check_mode=True)
    assert result['receipt'] == {'used': False, 'why': 'no receipt', 'kept': False,
                                 'why_not_kept': 'not kept by a check run'}
    assert not os.path.exists(receipt_file(tree))


def cgroup_file(tree, name):
    v2 = os.path.join(tree.root, 'system', name)
    return v2 if os.path.exists(v2) else os.path.join(tree.root, 'memory', 'system', 'memory.limit_in_bytes')


@pytest.mark.parametrize('cgroupfs_node', ['cgroupfs-v2', 'cgroupfs-v1'])
def test_a_changed_cgroup_file_is_drift_the_planner_corrects(run_module, tmp_path, monkeypatch, cgroupfs_node):
    driver, mode = cgroupfs_node.split('-')
    tree = FakeCgroupfs(tmp_path, mode, monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    run_module(node_cgroups, options)
    limit = cgroup_file(tree, 'memory.max')
    with open(limit) as handle:
        kept = handle.read()
    write_text(limit, '123456789\n')
    result = run_module(node_cgroups, options)
    assert not result['receipt']['used'] and result['receipt']['why'].startswith('the node reads differently: ')
    assert result['changed'] and any(limit in change for change in result['changes'])
    with open(limit) as handle:
        assert handle.read() == kept
    assert run_module(node_cgroups, options)['receipt']['used']


def test_a_use_that_moves_under_a_limit_that_stays_is_answered(run_module, tmp_path, monkeypatch):
    """A cgroup's memory use moves all the time on a live node; the impact compares it only where the plan lowers
    the limit, so a converged node's receipt answers whatever the use, and a lowered limit is judged by the use."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    run_module(node_cgroups, options)
    for used in ('1000\n', '2000\n'):
        write_text(os.path.join(tree.root, 'system', 'memory.current'), used)
        assert run_module(node_cgroups, options)['receipt']['used']
    write_text(os.path.join(tree.root, 'system', 'memory.current'), str(2 << 30) + '\n')
    lowered = dict(options, system_reserved={'cpu': '500m', 'memory': '512Mi', 'pid': '1000'})
    with pytest.raises(ModuleFail, match=r'system_reserved \(/system\) memory limit 1024Mi -> 512Mi is below its '
                                         r'working set 2048Mi'):
        run_module(node_cgroups, lowered, check_mode=True)


def test_a_container_mount_is_answered_a_cgroup_mount_is_not(run_module, tmp_path, monkeypatch):
    """Every container started adds lines to the mount table; the receipt compares its cgroup mounts only."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    run_module(node_cgroups, options)
    mountinfo = os.path.join(tree.proc, 'self/mountinfo')
    with open(mountinfo) as handle:
        table = handle.read()
    write_text(mountinfo, table + '99 1 0:99 / /run/containerd/io.containerd.runtime.v2.task/k8s.io/abc/rootfs rw - '
                                  'overlay overlay rw\n')
    assert run_module(node_cgroups, options)['receipt']['used']
    write_text(mountinfo, table.replace('rw,nsdelegate', 'rw,nsdelegate,memory_recursiveprot'))
    assert run_module(node_cgroups, options)['receipt']['why'].endswith('node._mounts.cgroup_mounts')


def test_other_options_or_code_are_not_answered(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    run_module(node_cgroups, options)
    other = run_module(node_cgroups, other_options(options))
    assert other['receipt']['why'] == "the options differ from the receipt's: system_reserved" and other['changed']
    monkeypatch.setattr(_receipt, 'code_identity', lambda: 'another release')
    assert run_module(node_cgroups, other_options(options))['receipt']['why'] == "the code differs from the receipt's"


def test_code_that_cannot_be_named_keeps_and_uses_no_receipt(run_module, tmp_path, monkeypatch):
    """Loaded neither from AnsiballZ's payload nor from a collection directory (another module loader), the code is
    not named, and a receipt kept by another release could answer for it: none is kept or used."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    run_module(node_cgroups, options)
    monkeypatch.setattr(_receipt, 'code_identity', lambda: None)
    result = run_module(node_cgroups, options)
    assert result['receipt'] == {'used': False, 'why': 'the code of this run cannot be named', 'kept': False,
                                 'why_not_kept': 'the code of this run cannot be named'}


def other_options(options):
    return dict(options, system_reserved={'cpu': '600m', 'memory': '1Gi'})


@pytest.mark.parametrize('spoil', ['group-writable', 'world-writable directory', 'not json', 'other format', 'link'])
def test_a_receipt_that_is_not_private_or_not_readable_is_not_used(run_module, tmp_path, monkeypatch, spoil):
    """Whoever could write the receipt could make a run say the node is right: a receipt writable by another user
    (or in a directory that is), a symlink, or one that does not parse is not used, and the run plans."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    run_module(node_cgroups, options)
    path = receipt_file(tree)
    if spoil == 'group-writable':
        os.chmod(path, 0o664)
    elif spoil == 'world-writable directory':
        os.chmod(os.path.dirname(path), 0o777)
    elif spoil == 'not json':
        write_text(path, '{')
    elif spoil == 'other format':
        write_text(path, json.dumps({'format': 0}))
    else:
        os.rename(path, path + '.real')
        os.symlink(path + '.real', path)
    result = run_module(node_cgroups, options)
    assert not result['receipt']['used'] and not result['changed']
    assert result['receipt']['why'] in ('the receipt or its directory is not private to this user',
                                        'the receipt is of another format') or 'unreadable' in result['receipt']['why']


def detected_node(tmp_path, monkeypatch):
    """A node whose capacity is read (no capacity option): /proc/meminfo, the online CPUs, the pid limits."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    write_text(os.path.join(tree.proc, 'meminfo'), MEMINFO % 9000000)
    write_text(os.path.join(tree.proc, 'sys/kernel/pid_max'), '4194304\n')
    write_text(str(tmp_path / 'sys/devices/system/cpu/online'), '0-3\n')
    options = node_cgroups_args(tree, CAPACITY, sys_path=str(tmp_path / 'sys'))
    del options['capacity']
    return tree, options


def test_what_moves_while_the_plan_does_not_is_compared_by_what_the_run_takes(run_module, tmp_path, monkeypatch):
    """The free memory beside MemTotal changes at every read of a live node: the receipt compares MemTotal (the
    function that reads it is traced, not the file), so a new MemFree is answered and a new MemTotal is not."""
    tree, options = detected_node(tmp_path, monkeypatch)
    assert run_module(node_cgroups, options)['plan']['capacity']['memory']['value'] == 16384000 * 1024
    write_text(os.path.join(tree.proc, 'meminfo'), MEMINFO % 123)
    assert run_module(node_cgroups, options)['receipt']['used']
    write_text(os.path.join(tree.proc, 'meminfo'), (MEMINFO % 123).replace('16384000', '32768000'))
    result = run_module(node_cgroups, options)
    assert result['receipt']['why'] == ('the node reads differently: ansible_collections.kubenode.cgroups.plugins.'
                                        'module_utils.node._node_totals.memory_total')
    assert result['plan']['capacity']['memory']['value'] == 32768000 * 1024


def test_a_run_that_leaves_changes_keeps_no_receipt(run_module, tmp_path, monkeypatch):
    """A node whose dry pass after the writes still finds something to do (here a write the fake kernel takes but
    does not keep) gets no receipt: the next run plans."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY)
    real_write = tree.write_file

    def forgetful(path, value):
        real_write(path, value)
        if path.endswith('memory.max') and '/system' in path:
            write_text(path, 'max\n')
    monkeypatch.setattr(_cgroupfs, 'write_file', forgetful)
    result = run_module(node_cgroups, options)
    assert result['changed'] and result['receipt']['kept'] is False
    assert result['receipt']['why_not_kept'] == 'the node had changes left after this run'
    assert not os.path.exists(receipt_file(tree))


def test_a_live_run_answered_by_the_receipt_waits_for_the_node_lock(run_module, tmp_path, monkeypatch):
    """Answered or planned, a live run holds the node lock while it reads (never between another run's writes);
    a check run takes none."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    options = node_cgroups_args(tree, CAPACITY, lock_timeout=1)
    run_module(node_cgroups, options)
    with NodeLock(options['lock_path'], timeout=1):
        with pytest.raises(ModuleFail) as failure:
            run_module(node_cgroups, options)
        assert run_module(node_cgroups, options, check_mode=True)['receipt']['used']
    assert 'pid %d' % os.getpid() in failure.value.result['msg'] and 'within 1 s' in failure.value.result['msg']
    assert run_module(node_cgroups, options)['receipt']['used']


def test_the_receipt_is_written_under_the_root_only(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch, pid1='init')
    run_module(node_cgroups, node_cgroups_args(tree, CAPACITY))
    directory = os.path.dirname(receipt_file(tree))
    assert sorted(os.listdir(directory)) == ['node_cgroups.receipt']
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700


# The tracer itself.

def test_a_trace_records_each_read_once_and_replays_it(tmp_path):
    path = str(tmp_path / 'a')
    write_text(path, 'one\n')
    with _io_trace.Trace() as trace:
        with open(path) as handle:
            assert handle.read() == 'one\n'
        assert os.path.isdir(str(tmp_path)) and not os.path.exists(str(tmp_path / 'b'))
        assert sorted(os.listdir(str(tmp_path))) == ['a']
        with pytest.raises(IOError):
            open(str(tmp_path / 'b'))
        assert os.path.isdir(str(tmp_path))  # asked again, answered the same: replayed once
    assert [read[0] for read in trace.reads] == ['open', 'isdir', 'exists', 'listdir', 'open']
    assert trace.replayable and _io_trace.replay(trace.reads, None) == (True, None)
    write_text(path, 'two\n')
    assert _io_trace.replay(trace.reads, None) == (False, 'open %s' % path)
    write_text(path, 'one\n')
    write_text(str(tmp_path / 'b'), '')
    assert _io_trace.replay(trace.reads, None) == (False, 'exists %s' % (tmp_path / 'b'))


def test_a_write_or_an_argument_that_is_not_json_makes_a_trace_unusable(tmp_path):
    with _io_trace.Trace() as trace:
        with open(str(tmp_path / 'w'), 'w') as handle:
            handle.write('x')
    assert not trace.replayable and 'a write' in trace.why_not

    @_io_trace.traced
    def answer(values):
        return sorted(values)
    with _io_trace.Trace() as trace:
        assert answer({3, 1}) == [1, 3]
    assert not trace.replayable and 'not a JSON value' in trace.why_not


def test_a_file_that_is_not_text_is_read_where_the_run_reads_it_and_keeps_no_trace(tmp_path):
    path = str(tmp_path / 'binary')
    with open(path, 'wb') as handle:
        handle.write(b'\xff\xfe\x00')
    with _io_trace.Trace() as trace:
        handle = open(path, encoding='utf-8')
        with pytest.raises(UnicodeDecodeError):
            handle.read()
        handle.close()
    assert not trace.replayable and 'binary' in trace.why_not


@_io_trace.traced
def first_word(path):
    """A traced read for the tests: the first word of a file, refused when there is none."""
    with open(path) as handle:
        words = handle.read().split()
    if not words:
        raise KubenodeError('no word', field='path', value=path)
    return words[0]


@pytest.mark.parametrize('now', [b'', b'\xff\xfe'])
def test_a_traced_read_that_raises_on_replay_differs(tmp_path, now):
    """The node changed so that a traced function raises (KubenodeError, a decoding error): the replay says the node
    reads differently, and the planner, which runs instead, reports it; the replay itself does not fail."""
    path = str(tmp_path / 'word')
    write_text(path, 'one two\n')
    with _io_trace.Trace() as trace:
        assert first_word(path) == 'one'
    assert _io_trace.replay(trace.reads, None) == (True, None)
    with open(path, 'wb') as handle:
        handle.write(now)
    assert _io_trace.replay(trace.reads, None) == (False, '%s.first_word' % __name__)


def test_a_trace_puts_every_function_back(tmp_path):
    before = dict((name, getattr(owner, attribute)) for name, (owner, attribute, _a) in _io_trace.READS.items())
    opener = open
    with pytest.raises(ValueError):
        with _io_trace.Trace():
            assert os.path.isdir is not before['isdir']
            raise ValueError('out')
    assert dict((name, getattr(owner, attribute)) for name, (owner, attribute, _a) in _io_trace.READS.items()) == before
    assert open is opener


def test_commands_are_reads_too():
    class Module(object):
        answers = {'systemctl': (0, 'active\n', '')}

        def run_command(self, argv):
            return self.answers[argv[0]]
    module = Module()
    with _io_trace.Trace(module) as trace:
        assert module.run_command(['systemctl']) == (0, 'active\n', '')
    assert 'run_command' not in vars(module)
    assert trace.reads[0][:2] == ['run', [['systemctl']]]
    assert _io_trace.replay(trace.reads, module.run_command) == (True, None)
    module.answers['systemctl'] = (3, 'inactive\n', '')
    assert _io_trace.replay(trace.reads, module.run_command) == (False, "run ['systemctl']")


# Every read of the node is one the tracer sees.

MODULE_UTILS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), os.pardir,
                            os.pardir, 'plugins', 'module_utils')
# os and os.path functions that read nothing of the node: paths as strings, the writes (a run that writes keeps no
# receipt of its own reads), the node lock's descriptor, the process itself.
NOT_READS = frozenset([
    'path.join', 'path.dirname', 'path.basename', 'path.normpath', 'path.abspath', 'path.relpath', 'path.isabs',
    'path', 'sep', 'pardir', 'strerror', 'stat_result', 'ST_RDONLY', 'W_OK', 'X_OK', 'R_OK',
    'makedirs', 'mkdir', 'rmdir', 'remove', 'rename', 'symlink', 'chmod', 'fdopen',
    'open', 'close', 'pwrite', 'pread', 'ftruncate', 'fstat', 'O_RDWR', 'O_CREAT', 'O_RDONLY', 'getpid', 'geteuid', 'fsync'])


def module_utils_sources():
    for directory, _dirs, names in os.walk(MODULE_UTILS):
        for name in sorted(n for n in names if n.endswith('.py')):
            if name != '_io_trace.py':
                path = os.path.join(directory, name)
                with open(path) as handle:
                    yield os.path.relpath(path, MODULE_UTILS), handle.read()


def os_functions_used(source):
    import ast
    tree = ast.parse(source)
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ('os', 'glob'):
            used.add(('' if node.value.id == 'os' else 'glob.') + node.attr)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
              and isinstance(node.value.value, ast.Name) and node.value.value.id == 'os' and node.value.attr == 'path'):
            used.add('path.' + node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module in ('os', 'os.path', 'glob', 'io', 'codecs', 'subprocess'):
            used.add('from %s import' % node.module)
        elif isinstance(node, ast.Import) and any(alias.name in ('subprocess', 'codecs', 'io') for alias in node.names):
            used.add('import ' + ','.join(alias.name for alias in node.names))
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            # A default is bound once, at import: the function the trace wraps later is not the one called.
            used.update('default %s' % ast.dump(default) for default in node.args.defaults + node.args.kw_defaults
                        if isinstance(default, ast.Attribute))
    return used


def test_every_read_of_the_node_is_one_the_trace_sees():
    """A read module_utils made around the tracer would be a read a receipt does not compare: an answer from a
    receipt could then hide drift. Every os, os.path and glob function used is traced (_io_trace.READS) or reads
    nothing of the node; nothing is imported from them by name (a name bound at import is not the traced one)."""
    prefixes = {'posixpath': 'path.', 'glob': 'glob.', 'os': ''}
    traced = set(prefixes[owner.__name__] + attribute for owner, attribute, _answer in _io_trace.READS.values())
    untraced = {}
    sources = list(module_utils_sources())
    assert len(sources) > 40
    for name, source in sources:
        unknown = sorted(os_functions_used(source) - traced - NOT_READS)
        if unknown:
            untraced[name] = unknown
    assert untraced == {}


def test_the_guard_sees_an_untraced_read():
    assert os_functions_used('import os\nos.scandir("/x")\n') == {'scandir'}
    assert os_functions_used('from os.path import getsize\n') == {'from os.path import'}
    assert os_functions_used('import subprocess\n') == {'import subprocess'}
    assert os_functions_used('import os\nos.path.getmtime("/x")\n') == {'path', 'path.getmtime'}
    assert [use for use in os_functions_used('def f(exists=os.path.exists):\n    pass\n')
            if use.startswith('default ')] != []


def test_a_confirmed_change_is_answered_by_the_receipt_as_the_planner_answers(run_module, v2_node, tmp_path):
    """A change inside its confirmation window keeps its receipt while its generation is pending; node_generation's
    confirmation rewrites the generation's state line, and makes the receipt follow it: the first run after the
    confirmation is answered (it used to run the planner, its reads differing at the state line), with what the
    planner returns for the confirmed generation."""
    tree, options = v2_node
    options = dict(options, confirm_timeout=120)
    changed = run_module(node_cgroups, options)
    assert changed['changed'] and changed['generation']['state'] == 'pending' and changed['receipt']['kept']
    confirmed = run_module(node_generation, {'state': 'confirmed', 'node_root': str(tmp_path)})
    assert confirmed['changed'] and confirmed['generation']['state'] == 'confirmed'
    assert confirmed['receipt'] == {'followed': True}
    again = run_module(node_cgroups, options)
    assert again['receipt']['used'], again['receipt']
    planned = run_module(node_cgroups, dict(options, use_receipt=False))
    assert planned['generation']['state'] == 'confirmed'
    assert without_receipt(again) == without_receipt(planned)


def test_a_receipt_of_another_generation_does_not_follow_a_confirmation(run_module, v2_node, tmp_path):
    """The receipt follows only the generation it was kept with, pending: a receipt kept since (here by a run with
    other options, which confirms nothing) is left as it is."""
    tree, options = v2_node
    run_module(node_cgroups, dict(options, confirm_timeout=120))
    with open(receipt_file(tree)) as handle:
        receipt = json.load(handle)
    receipt['result']['generation'] = dict(receipt['result']['generation'], id='000009')
    write_text(receipt_file(tree), json.dumps(receipt))
    os.chmod(receipt_file(tree), 0o600)
    confirmed = run_module(node_generation, {'state': 'confirmed', 'node_root': str(tmp_path)})
    assert confirmed['receipt'] == {'followed': False,
                                    'why': 'the receipt is not of this generation while it was pending'}
    with open(receipt_file(tree)) as handle:
        assert json.load(handle) == receipt


def show_kubelet_unit(tree, options):
    """kubelet's unit as systemd shows it, starting kubelet with the node's configuration: ExecStart= carries the last
    start's time and PID (FakeSystemd.start_service)."""
    tree.systemd.shown['kubelet.service'] = {
        'LoadState': 'loaded', 'Environment': '', 'EnvironmentFiles': [],
        'ExecStart': '{ path=/usr/bin/kubelet ; argv[]=/usr/bin/kubelet --config=%s ; ignore_errors=no ; '
                     'start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }'
                     % options['kubelet_config']['kubelet_config_path']}


def confirmed_after_restart(run_module, tmp_path, monkeypatch, restart):
    """(the node, the change's result, the confirmation's, the next run's, the options) on a systemd node whose kubelet was running before
    a change of its configuration, with restart(systemd) done between the change and its confirmation."""
    tree, options = make_node('systemd-v2', tmp_path, monkeypatch)
    show_kubelet_unit(tree, options)
    tree.systemd.start_service('kubelet.service', seconds_ago=100)
    kubelet_writes_kubepods(tree, 'max')  # kubepods as kubelet left it before the change: no reservation
    options = dict(options, confirm_timeout=120)
    changed = run_module(node_cgroups, options)
    restart(tree.systemd)
    confirmed = run_module(node_generation, {'state': 'confirmed', 'node_root': str(tmp_path)})
    return tree, changed, confirmed, run_module(node_cgroups, options), options


def kubelet_writes_kubepods(tree, memory_max, enforced=()):
    """What kubelet does at its start with the systemd driver, over D-Bus (runtime override files, and the kernel's
    values): kubepods.slice's limit, and the values of each reserved slice it enforces (enforced), which are the
    plan's (the slice unit the run wrote)."""
    write_text(tree.path('kubepods.slice', 'memory.max'), '%s\n' % memory_max)
    write_text(os.path.join(tree.systemd.runtime_control, 'kubepods.slice.d', '50-MemoryMax.conf'),
               '# created via D-Bus\n[Slice]\nMemoryMax=%s\n' % memory_max)
    for unit in enforced:
        with open(os.path.join(tree.node_paths()['systemd_unit_dir'], unit)) as handle:
            planned = [line.strip() for line in handle.read().split('[Slice]', 1)[1].splitlines() if '=' in line]
        assert planned, unit
        for assignment in planned:
            write_text(os.path.join(tree.systemd.runtime_control, unit + '.d', '50-%s.conf' % assignment.split('=')[0]),
                       '# created via D-Bus\n[Slice]\n%s\n' % assignment)


def test_the_receipt_follows_the_restarts_a_change_asked_for(run_module, tmp_path, monkeypatch):
    """A change of kubelet's configuration leaves kubelet to restart (restart_pending, in the receipt its dry pass
    kept); the role restarts it before the confirmation. A restart moves kubelet's main PID and start time, and
    kubelet writes kubepods' new limit: the next run read both, and ran the planner on every node whose kubelet a
    change restarted. The confirmation asks the receipt's decision again, the impact reads kubepods' limit by what
    it takes from it, and the first run after the confirmation is answered with what the planner returns: nothing
    to restart."""
    def restart(systemd):
        systemd.running['kubelet.service']['MainPID'] = '4242'
        systemd.run_command(['/bin/systemctl', 'restart', 'kubelet.service'])
        kubelet_writes_kubepods(systemd.tree, 15 * 1024 ** 3, enforced=['kube.slice'])
    tree, changed, confirmed, again, options = confirmed_after_restart(run_module, tmp_path, monkeypatch, restart)
    assert [entry['service'] for entry in changed['restart_pending']] == ['kubelet.service']
    assert changed['receipt']['kept'] and confirmed['receipt'] == {'followed': True}
    assert again['receipt']['used'], again['receipt']
    assert again['restart_pending'] == [] and not again['changed']
    planned = run_module(node_cgroups, dict(options, use_receipt=False))
    assert without_receipt(again) == without_receipt(planned)


def test_a_restart_left_to_the_operator_stays_pending_in_the_receipt(run_module, tmp_path, monkeypatch):
    """Without the restart (node_allocatable_restart_kubelet false) the decision is the one kept: the next run is
    answered, and says kubelet still waits for its restart, as the planner does."""
    _tree, changed, confirmed, again, options = confirmed_after_restart(
        run_module, tmp_path, monkeypatch, lambda systemd: None)
    assert confirmed['receipt'] == {'followed': True} and again['receipt']['used']
    assert again['restart_pending'] == changed['restart_pending'] != []
    assert without_receipt(again) == without_receipt(run_module(node_cgroups, dict(options, use_receipt=False)))


def test_a_kept_decision_that_holds_a_service_is_not_followed(run_module, tmp_path, monkeypatch):
    """A kept decision that names a service held in its old slice by the processes it left (a warning of the kept
    result, at a place the receipt does not know) is not followed: the receipt is left as it was, and the next run
    plans."""
    def restart(systemd):
        systemd.run_command(['/bin/systemctl', 'restart', 'kubelet.service'])
    tree, options = make_node('systemd-v2', tmp_path, monkeypatch)
    tree.systemd.start_service('kubelet.service', seconds_ago=100)
    options = dict(options, confirm_timeout=120)
    run_module(node_cgroups, options)
    with open(receipt_file(tree)) as handle:
        receipt = json.load(handle)
    decisions = [read for read in receipt['reads'] if read[0] == 'call' and read[1][1] == 'services_to_restart']
    assert len(decisions) == 1
    held = receipt['result']['restart_pending'] + [{'service': 'containerd.service', 'reason': 'runs in x, not in y',
                                                    'held': True}]
    decisions[0][3] = _io_trace.digest(held)
    write_text(receipt_file(tree), json.dumps(receipt))
    os.chmod(receipt_file(tree), 0o600)
    restart(tree.systemd)
    confirmed = run_module(node_generation, {'state': 'confirmed', 'node_root': str(tmp_path)})
    assert not confirmed['receipt']['followed'] and 'in its old slice' in confirmed['receipt']['why']
    with open(receipt_file(tree)) as handle:
        assert json.load(handle) == receipt


def test_a_runtime_a_restart_leaves_held_in_its_old_slice_is_followed_with_its_warning(
        run_module, tmp_path, monkeypatch):
    """containerd is placed in the kube-reserved slice while its shims run: its restart leaves it in its old cgroup
    (systemd keeps a unit's cgroup while processes remain), which every run then warns of instead of asking for a
    restart. The first run after the confirmation is answered with what the planner returns: that warning, and
    nothing to restart."""
    tree, options = make_node('systemd-v2', tmp_path, monkeypatch)
    old_group = '/system.slice/containerd.service'
    write_text(tree.path('system.slice', 'containerd.service', 'cgroup.procs'), '500\n900\n')
    tree.systemd.start_service('containerd.service', cgroup=old_group, seconds_ago=100)
    tree.systemd.running['containerd.service']['MainPID'] = '500'
    tree.systemd.start_service('kubelet.service', seconds_ago=100)
    options = dict(options, confirm_timeout=120, services=['containerd'])
    changed = run_module(node_cgroups, options)
    assert [entry['service'] for entry in changed['restart_pending']] == ['containerd.service', 'kubelet.service']
    for unit in ('containerd.service', 'kubelet.service'):
        tree.systemd.start_service(unit, cgroup=old_group if unit == 'containerd.service' else None)
    tree.systemd.running['containerd.service']['MainPID'] = '501'
    confirmed = run_module(node_generation, {'state': 'confirmed', 'node_root': str(tmp_path)})
    assert confirmed['receipt'] == {'followed': True}
    warned = []
    monkeypatch.setattr(basic.AnsibleModule, 'warn', lambda self, text: warned.append(text))
    again = run_module(node_cgroups, options)
    assert again['receipt']['used'], again['receipt']
    assert again['restart_pending'] == [] and 'containerd.service runs in %s, not in /kube.slice, held there by the ' \
        'processes it left running' % old_group in warned[-1]
    answered_warnings, warned[:] = list(warned), []
    planned = run_module(node_cgroups, dict(options, use_receipt=False))
    assert without_receipt(again) == without_receipt(planned) and answered_warnings == warned
