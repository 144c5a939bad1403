# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The way back (issue 53): generations kept before each write, the revert script run by the timer, the gate and
on demand, the boot check, and the confirmation with its OOM watch. The scripts run here for real (sh, flock)
against files in a temporary directory; no systemd is asked (systemd_running False)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError, KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _boot_persistence as boot
from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _generations as gens
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._cgroupfs import CgroupLayout
from ansible_collections.kubenode.cgroups.plugins.module_utils.run import _way_back as way_back


def sh(argv):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
    return done.returncode, done.stdout, done.stderr


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), 'w') as handle:
        handle.write(text)
    os.chmod(str(path), mode)


def read(path):
    with open(str(path)) as handle:
        return handle.read()


class Node(object):
    """A node's files in tmp_path: a kubelet drop-in, kubelet's configuration, a cgroup value file."""

    def __init__(self, tmp_path):
        self.root = tmp_path
        self.units = tmp_path / 'etc/systemd/system'
        self.dropin = self.units / 'kubelet.service.d/20-slice.conf'
        self.runtime_dropin = self.units / 'containerd.service.d/50-kubenode-slice.conf'
        self.config = tmp_path / 'var/lib/kubelet/config.yaml'
        self.memory_max = tmp_path / 'sys/fs/cgroup/kube.slice/memory.max'
        self.generations = str(tmp_path / 'var/lib/kubenode-cgroups/generations')
        self.lock = str(tmp_path / 'run/lock/kubenode-cgroups.lock')
        write(self.dropin, '[Service]\nSlice=system.slice\n')
        write(self.config, 'kubeReserved: {memory: 256Mi}\n', 0o600)
        write(self.memory_max, 'max\n')

    def generation(self, timeout=120, systemd=False, run_command=sh, boot_id='boot-a', clock=None):
        return gens.Generation(self.generations, self.lock, timeout, systemd, run_command,
                               lambda path: gens.restart_for(path, str(self.units), 'kubelet.service', [str(self.config)]),
                               'kubelet.service', boot_id=boot_id, clock=clock)


def change(node, generation):
    """What a run writes, each write kept first as KeepingHost keeps it."""
    generation.keep_file(str(node.dropin))
    write(node.dropin, '[Service]\nSlice=kube.slice\n')
    generation.keep_file(str(node.runtime_dropin))
    write(node.runtime_dropin, '[Service]\nSlice=kube.slice\n')
    generation.keep_file(str(node.config))
    write(node.config, 'kubeReserved: {memory: 512Mi}\n')
    generation.keep_value(str(node.memory_max), 'max')
    write(node.memory_max, '536870912\n')


def test_a_generation_keeps_what_each_write_replaces_and_its_script_puts_it_back(tmp_path):
    node = Node(tmp_path)
    generation = node.generation()
    change(node, generation)
    kept = generation.result()
    assert kept['state'] == gens.PENDING and kept['id'] == '000001'
    assert [(item['kind'], item['path']) for item in kept['restores']] == [
        ('file', str(node.dropin)), ('absent', str(node.runtime_dropin)), ('dir', str(node.runtime_dropin.parent)),
        ('file', str(node.config)), ('value', str(node.memory_max))]
    # The runtime before kubelet, whose drop-in and configuration were written.
    assert kept['restarts'] == ['containerd.service', 'kubelet.service']
    rc, out, err = sh(['/bin/sh', os.path.join(kept['path'], 'revert.sh'), 'timeout', 'not confirmed within 120 s'])
    assert rc == 0, err
    assert read(node.dropin) == '[Service]\nSlice=system.slice\n'
    assert not os.path.exists(str(node.runtime_dropin.parent))  # the drop-in directory the change made, too
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    assert os.stat(str(node.config)).st_mode & 0o777 == 0o600
    assert read(node.memory_max) == 'max\n'
    back = gens.read_latest(node.generations)
    assert (back['state'], back['mode'], back['reason']) == (gens.ROLLED_BACK, 'timeout', 'not confirmed within 120 s')
    assert gens.describe(back) == 'rolled back: not confirmed within 120 s (timeout, generation 000001)'
    # A second revert finds nothing pending and changes nothing.
    write(node.config, 'edited by hand\n')
    rc, out, _err = sh(['/bin/sh', os.path.join(kept['path'], 'revert.sh'), 'timeout', 'again'])
    assert rc == 0 and 'nothing to revert' in out and read(node.config) == 'edited by hand\n'


def test_a_write_is_kept_once_the_first_time_so_the_oldest_content_comes_back(tmp_path):
    node = Node(tmp_path)
    generation = node.generation()
    change(node, generation)
    generation.keep_file(str(node.config))  # a second write of the same file in the same run
    write(node.config, 'third\n')
    sh(['/bin/sh', os.path.join(generation.path, 'revert.sh'), 'gate', 'healthz'])
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'


def test_a_rollback_removes_the_directories_the_change_made_and_leaves_the_others(tmp_path):
    """Issue 77: a rollback left the drop-in directories its change had made, empty. Those the change made are
    removed once empty, deepest first; one that existed before, or holds another file, stays."""
    node = Node(tmp_path)
    made = node.units / 'kubenode-new.service.d/nested/45-kubenode-cgroups.conf'
    kept_dir = node.units / 'crio.service.d'
    os.makedirs(str(kept_dir))
    generation = node.generation()
    for path in (made, kept_dir / '50-kubenode-slice.conf'):
        generation.keep_file(str(path))
        write(path, '[Service]\n')
    generation.keep_file(str(made.parent / 'other.conf'))  # its directory is the change's: not kept twice
    write(made.parent / 'other.conf', '[Service]\n')
    assert [(item['kind'], item['path']) for item in generation.result()['restores']][:3] == [
        ('absent', str(made)), ('dir', str(made.parent)), ('dir', str(made.parent.parent))]
    rc, _out, err = sh(['/bin/sh', os.path.join(generation.path, 'revert.sh'), 'demand', 'asked'])
    assert rc == 0, err
    assert not os.path.lexists(str(made.parent.parent)) and os.listdir(str(kept_dir)) == []


def test_a_link_is_restored_to_its_target(tmp_path):
    node = Node(tmp_path)
    link = node.units / 'multi-user.target.wants/kubenode-cgroups.service'
    os.makedirs(str(link.parent))
    os.symlink('/old/target', str(link))
    generation = node.generation()
    generation.keep_file(str(link))
    os.remove(str(link))
    os.symlink('/new/target', str(link))
    sh(['/bin/sh', os.path.join(generation.path, 'revert.sh'), 'demand', 'asked'])
    assert os.readlink(str(link)) == '/old/target'


def test_a_run_that_finds_a_pending_generation_starts_from_its_last_known_good_state(tmp_path):
    node = Node(tmp_path)
    first = node.generation()
    change(node, first)
    second = node.generation()
    second.keep_file(str(node.config))  # already changed by the lost run: its original is the one to keep
    write(node.config, 'second run\n')
    assert second.result()['took_over'] == '000001'
    assert gens.read_generation(node.generations, '000001')['state'] == gens.SUPERSEDED
    sh(['/bin/sh', os.path.join(second.path, 'revert.sh'), 'timeout', 'lost'])
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    assert not os.path.exists(str(node.runtime_dropin))
    assert read(node.memory_max) == 'max\n'


def test_the_revert_is_armed_with_a_transient_timer_before_the_first_write(tmp_path):
    node = Node(tmp_path)
    calls = []

    def run_command(argv):
        calls.append(argv)
        return 0, '', ''
    generation = node.generation(systemd=True, run_command=run_command, clock=lambda: 1000)
    change(node, generation)
    assert len(calls) == 1
    argv = calls[0]
    assert argv[:6] == ['systemd-run', '--unit', 'kubenode-cgroups-revert-000001', '--on-active', '120s',
                        '--timer-property']
    assert argv[-3:] == [os.path.join(generation.path, 'revert.sh'), 'timeout', 'not confirmed within 120 s']
    assert read(os.path.join(generation.path, 'state')) == 'pending boot-a 1000 120\n'
    assert generation.result()['armed'] == 1000
    assert generation.result()['timer'] == 'kubenode-cgroups-revert-000001.timer'


def test_a_revert_that_cannot_be_armed_refuses_the_run_before_its_first_write(tmp_path):
    node = Node(tmp_path)
    generation = node.generation(systemd=True, run_command=lambda argv: (1, '', 'Failed to start transient timer'))
    with pytest.raises(HostError) as error:
        generation.keep_file(str(node.config))
    assert str(error.value).startswith('confirm_timeout: ') and 'Failed to start transient timer' in str(error.value)
    assert (error.value.operation, error.value.path) == ('systemd-run', gens.TIMER_PREFIX + '000001')


def test_confirm_timeout_0_keeps_the_generation_confirmed_with_no_timer(tmp_path):
    node = Node(tmp_path)
    calls = []
    generation = node.generation(timeout=0, systemd=True, run_command=lambda argv: calls.append(argv) or (0, '', ''))
    change(node, generation)
    assert calls == [] and generation.result()['state'] == gens.CONFIRMED


def test_a_confirmed_generation_is_rolled_back_on_demand_only(tmp_path):
    node = Node(tmp_path)
    generation = node.generation(timeout=0)
    change(node, generation)
    rc, _out, err = sh(['/bin/sh', os.path.join(generation.path, 'revert.sh'), 'demand', 'asked'])
    assert rc == 0, err
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    # A confirmed generation is not reverted by its timer or at boot.
    gens.mark(node.generations, '000001', 'confirmed 1\n')
    write(node.config, 'new\n')
    sh(['/bin/sh', os.path.join(generation.path, 'revert.sh'), 'timeout', 'late'])
    assert read(node.config) == 'new\n'


def test_a_node_keeps_three_generations_and_never_removes_a_pending_one(tmp_path):
    node = Node(tmp_path)
    for _number in range(5):
        generation = node.generation(timeout=0)
        generation.keep_file(str(node.config))
    assert gens.generation_ids(node.generations) == ['000003', '000004', '000005']
    gens.mark(node.generations, '000003', 'pending boot-a 1 120\n')
    gens.mark(node.generations, '000005', 'pending boot-a 1 120\n')
    node.generation(timeout=0).keep_file(str(node.config))
    # 000005 was taken over (superseded) and stays with 000004, the newest two before 000006; 000003, older, stays
    # as it was still pending when the run pruned.
    assert gens.generation_ids(node.generations) == ['000003', '000004', '000005', '000006']
    gens.mark(node.generations, '000003', 'confirmed 1\n')
    node.generation(timeout=0).keep_file(str(node.config))
    assert gens.generation_ids(node.generations) == ['000005', '000006', '000007']


def test_the_boot_script_reverts_a_change_pending_since_another_boot_and_runs_the_script_it_restored(tmp_path):
    node = Node(tmp_path)
    script = tmp_path / 'usr/local/libexec/kubenode-cgroups-restore'
    marker = tmp_path / 'old-script-ran'
    write(script, '#!/bin/sh\necho old > %s\n' % marker, 0o755)
    generation = node.generation(boot_id='a-boot-before-this-one')
    generation.keep_file(str(script))
    write(script, boot.script([], 'systemd', 'v2', node.generations), 0o755)
    change(node, generation)
    rc, _out, err = sh([str(script)])
    assert rc == 0, err
    assert read(marker) == 'old\n'
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    # At boot the values are the restored boot script's to write (cgroupfs is empty after a reboot).
    assert read(node.memory_max) == '536870912\n'
    assert gens.read_latest(node.generations)['mode'] == 'reboot'


def test_the_boot_script_leaves_a_change_pending_in_this_boot_to_its_timer(tmp_path):
    node = Node(tmp_path)
    with open(gens.BOOT_ID) as handle:
        this_boot = handle.read().strip()
    script = tmp_path / 'usr/local/libexec/kubenode-cgroups-restore'
    generation = node.generation(boot_id=this_boot)
    generation.keep_file(str(script))
    write(script, boot.script([], 'systemd', 'v2', node.generations), 0o755)
    change(node, generation)
    rc, _out, err = sh([str(script)])
    assert rc == 0, err
    assert read(node.config) == 'kubeReserved: {memory: 512Mi}\n'
    assert gens.read_latest(node.generations)['state'] == gens.PENDING


@pytest.mark.parametrize('text, count', [('low 0\nhigh 3\nmax 2\noom 1\noom_kill 4\n', 4),
                                         ('oom_kill_disable 0\nunder_oom 0\noom_kill 7\n', 7), ('oom 1\n', None)])
def test_the_oom_kill_counter_is_read_from_v2_memory_events_and_v1_oom_control(text, count):
    assert way_back.oom_kill_count(text) == count


def test_on_v1_the_oom_kills_of_a_subtree_are_summed(tmp_path):
    memory = tmp_path / 'memory'
    write(memory / 'system.slice/memory.oom_control', 'oom_kill 1\n')
    write(memory / 'system.slice/load.service/memory.oom_control', 'oom_kill 2\n')
    layout = CgroupLayout('v1', {'memory': str(memory)})
    assert way_back.oom_kills(layout, '/system.slice') == 3
    assert way_back.oom_kills(layout, '/gone.slice') is None


def confirm_params(node):
    return dict(generations_dir=node.generations, lock_path=node.lock, lock_timeout=5)


def baseline_at_arm(cgroup, layout):
    return lambda: way_back.oom_baseline(layout, None, ['/kubepods.slice', '/system.slice'], ['kubelet.service'])


def test_an_oom_kill_since_the_change_rolls_it_back_at_once(tmp_path):
    node = Node(tmp_path)
    cgroup = tmp_path / 'sys/fs/cgroup'
    layout = CgroupLayout('v2', {}, str(cgroup))
    write(cgroup / 'kubepods.slice/memory.events', 'oom_kill 0\n')
    write(cgroup / 'system.slice/memory.events', 'oom_kill 2\n')
    generation = node.generation(clock=lambda: 1000)
    generation.baseline = baseline_at_arm(cgroup, layout)
    change(node, generation)
    # A load in system.slice is killed after the change, before the confirmation.
    write(cgroup / 'system.slice/memory.events', 'oom_kill 3\n')
    result = way_back.confirm(confirm_params(node), layout, None, sh, False, clock=lambda: 1042)
    assert result['failed'] and result['rolled_back']
    assert result['gate']['new_oom_kills'] == {'/system.slice': {'before': 2, 'after': 3}}
    assert result['gate']['watched_seconds'] == 42
    assert result['msg'] == 'the change was rolled back: OOM kills within 42 s of the change: /system.slice 2 -> 3'
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    assert result['generation']['state'] == gens.ROLLED_BACK and result['generation']['mode'] == 'gate'


def test_no_new_oom_kill_confirms_the_change_and_stops_its_timer(tmp_path):
    node = Node(tmp_path)
    cgroup = tmp_path / 'sys/fs/cgroup'
    layout = CgroupLayout('v2', {}, str(cgroup))
    write(cgroup / 'kubepods.slice/memory.events', 'oom_kill 1\n')
    generation = node.generation()
    generation.baseline = baseline_at_arm(cgroup, layout)
    change(node, generation)
    gens.mark(node.generations, generation.id, 'pending boot-a 1 120\n')  # as armed by a timer
    calls = []

    def run_command(argv):
        calls.append(argv)
        return 0, '', ''
    result = way_back.confirm(confirm_params(node), layout, None, run_command, False)
    assert not result.get('failed') and result['generation']['state'] == gens.CONFIRMED
    assert result['gate']['oom_kills'] == {'/kubepods.slice': {'before': 1, 'after': 1},
                                           '/system.slice': {'before': None, 'after': None}}
    assert calls == []  # no systemd here to stop a timer
    assert read(node.config) == 'kubeReserved: {memory: 512Mi}\n'


def test_a_change_its_timer_rolled_back_cannot_be_confirmed(tmp_path):
    node = Node(tmp_path)
    generation = node.generation()
    change(node, generation)
    sh(['/bin/sh', os.path.join(generation.path, 'revert.sh'), 'timeout', 'not confirmed within 120 s'])
    result = way_back.confirm(confirm_params(node), None, None, sh, False)
    assert result['failed'] and 'rolled back: not confirmed within 120 s' in result['msg']


def test_a_run_that_takes_a_pending_generation_over_keeps_its_oom_counts(tmp_path):
    node = Node(tmp_path)
    first = node.generation()
    first.baseline = lambda: {'/kubepods.slice': {'path': '/kubepods.slice', 'count': 4, 'unit': False}}
    change(node, first)
    second = node.generation()
    second.baseline = lambda: {'/kubepods.slice': {'path': '/kubepods.slice', 'count': 9, 'unit': False}}
    second.keep_file(str(node.config))
    assert gens.read_baseline(node.generations, second.id)['/kubepods.slice']['count'] == 4


def test_a_rollback_on_demand_says_in_check_mode_what_it_would_restore_and_restores_it_otherwise(tmp_path):
    node = Node(tmp_path)
    generation = node.generation(timeout=0)
    change(node, generation)
    params = dict(generations_dir=node.generations, reason='the logging agent starves', trigger='demand')
    said = way_back.roll_back(params, sh, True)
    assert said['msg'] == 'would restore 5 item(s) of generation 000001 and restart containerd.service, kubelet.service'
    assert read(node.config) == 'kubeReserved: {memory: 512Mi}\n'
    done = way_back.roll_back(params, sh, False)
    assert done['rolled_back'] and read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    assert done['generation']['reason'] == 'the logging agent starves'
    again = way_back.roll_back(params, sh, False)
    assert again['changed'] is False and 'nothing to roll back' in again['msg']
    with pytest.raises(KubenodeError) as error:
        way_back.roll_back(dict(params, generations_dir=str(tmp_path / 'none')), sh, False)
    assert error.value.field == 'generations_dir'


KERNEL_LOG = '''python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/system.slice,task_memcg=/system.slice/kubenode-way-back-load.service,task=python3,pid=412,uid=0
Memory cgroup out of memory: Killed process 412 (python3) total-vm:447656kB, anon-rss:364404kB
'''


def test_the_kernel_log_names_each_oom_kill_with_the_cgroup_whose_limit_was_hit_and_the_victims():
    assert way_back.oom_kill_records(KERNEL_LOG) == [{
        'oom_memcg': '/system.slice', 'task_memcg': '/system.slice/kubenode-way-back-load.service',
        'task': 'python3', 'pid': '412'}]


def test_on_v1_the_gate_counts_the_kills_the_kernel_log_gives_since_the_change(tmp_path):
    """v1 counts a kill only in the victim's own cgroup, which systemd removed with the transient unit: the
    counters say nothing, the kernel's log says it (measured on the role_cgroupfs_v1 VM)."""
    node = Node(tmp_path)
    memory = tmp_path / 'sys/fs/cgroup/memory'
    write(memory / 'system.slice/memory.oom_control', 'oom_kill 0\n')
    write(memory / 'kubepods/memory.oom_control', 'oom_kill 0\n')
    layout = CgroupLayout('v1', {'memory': str(memory)})
    generation = node.generation(clock=lambda: 1000)
    generation.baseline = lambda: way_back.oom_baseline(layout, None, ['/kubepods', '/system.slice'], [])
    change(node, generation)
    asked = []

    def run_command(argv):
        asked.append(argv)
        if argv[0] == 'journalctl':
            return 0, KERNEL_LOG, ''
        return sh(argv)
    result = way_back.confirm(confirm_params(node), layout, None, run_command, False, clock=lambda: 1030)
    assert asked[0] == ['journalctl', '-k', '-o', 'cat', '--no-pager', '--since', '@1000']
    assert result['rolled_back'] and result['gate']['new_oom_kills'] == {'/system.slice': {'before': 0, 'after': 1}}
    assert result['gate']['source'] == 'the kernel log (journalctl -k)'
    assert read(node.config) == 'kubeReserved: {memory: 256Mi}\n'
    # A log that cannot be read confirms, and says so: no figure is made up.
    node2 = Node(tmp_path / 'second')
    generation = node2.generation(clock=lambda: 1000)
    generation.baseline = lambda: way_back.oom_baseline(layout, None, ['/kubepods'], [])
    change(node2, generation)
    result = way_back.confirm(confirm_params(node2), layout, None, lambda argv: (1, '', 'no journal'), False)
    assert not result.get('failed') and result['gate']['source'] == 'none: the kernel log could not be read'


def test_the_generations_follow_the_node_so_that_a_fake_node_never_writes_this_machines():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import generations_dir_for
    from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_options import NodeSpec
    assert generations_dir_for('/sys/fs/cgroup') == '/var/lib/kubenode-cgroups/generations'
    assert generations_dir_for('/tmp/node/sys/fs/cgroup') == '/tmp/node/var/lib/kubenode-cgroups/generations'
    assert generations_dir_for('/tmp/tree/cgroup') == '/tmp/tree/kubenode-cgroups-generations'
    assert NodeSpec({'cgroupfs_path': '/tmp/tree/cgroup'}).generations_dir == '/tmp/tree/kubenode-cgroups-generations'
    assert NodeSpec({'node_root': '/tmp/node'}).generations_dir == '/tmp/node/var/lib/kubenode-cgroups/generations'
    with pytest.raises(KubenodeError) as error:
        NodeSpec({'node_root': '/tmp/node', 'generations_dir': '/var/lib/elsewhere'})
    assert error.value.field == 'generations_dir'


def test_every_kept_copy_is_on_disk_before_the_restore_line_that_names_it(tmp_path, monkeypatch):
    """A power cut inside the window reverts from the kept copies at the next boot: each is synced before its line of
    the restore list is (which is synced too), so that a cut between them leaves no line naming an empty copy."""
    node = Node(tmp_path)
    link = tmp_path / 'etc/kubernetes/kubelet.conf'
    os.makedirs(str(link.parent), exist_ok=True)
    os.symlink('bootstrap.conf', str(link))
    synced = []
    real_fsync = os.fsync

    def fsync(descriptor):
        synced.append(os.readlink('/proc/self/fd/%d' % descriptor))
        real_fsync(descriptor)
    monkeypatch.setattr(gens.os, 'fsync', fsync)
    generation = node.generation()
    change(node, generation)
    generation.keep_file(str(link))
    directory = generation.path
    kept = [(item['kind'], os.path.join(directory, item['saved']))
            for item in gens.parse_restore(read(os.path.join(directory, 'restore'))) if item['saved'] != '-']
    assert [kind for kind, _path in kept] == ['file', 'file', 'value', 'link']
    restore = os.path.join(directory, 'restore')
    for _kind, path in kept:
        # The copy, then the restore list after it.
        assert path in synced and restore in synced[synced.index(path):], (path, synced)
