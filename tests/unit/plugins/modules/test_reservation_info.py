# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""reservation_info on fake cgroup trees: cgroup v1 and v2, both drivers, missing files, empty cgroups."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import time

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions, plan_node
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._profiles import (
    openshift_cpu_millicores, openshift_memory_gib)
from ansible_collections.kubenode.cgroups.plugins.modules import reservation_info
from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs
from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail

MI = 1024 * 1024
GI = 1024 * MI


def plan(driver='systemd', system_cgroup='/system.slice', kube_cgroup='/kube.slice', **extra):
    options = dict(capacity={'cpu': '4', 'memory': '16Gi', 'pods': '110'}, cgroup_driver=driver,
                   system_reserved={'cpu': '500m', 'memory': '1Gi'}, kube_reserved={'cpu': '200m', 'memory': '512Mi'},
                   system_reserved_cgroup=system_cgroup, kube_reserved_cgroup=kube_cgroup)
    options.update(extra)
    # What a playbook passes: the plan as JSON holds it.
    return json.loads(json.dumps(plan_node(PlanOptions(**options)).as_dict()))


def put(directory, files):
    if not os.path.isdir(directory):
        os.makedirs(directory)
    for name, text in files.items():
        with open(os.path.join(directory, name), 'w') as handle:
            handle.write(text + '\n')


def v2_cgroup(tree, path, current, peak=None, oom_kill=0, usage_usec=0, tasks=5, memory_some=0.0, cpu_some=0.0):
    files = {'memory.current': str(current), 'cpu.stat': 'usage_usec %d\nuser_usec 0\nsystem_usec 0' % usage_usec,
             'memory.events': 'low 0\nhigh 0\nmax 0\noom %d\noom_kill %d' % (oom_kill, oom_kill),
             'memory.pressure': 'some avg10=0.00 avg60=%.2f avg300=0.00 total=10\nfull avg10=0.00 avg60=0.00 '
                                'avg300=0.00 total=0' % memory_some,
             'cpu.pressure': 'some avg10=0.00 avg60=%.2f avg300=0.00 total=10' % cpu_some,
             'pids.current': str(tasks)}
    if peak is not None:
        files['memory.peak'] = str(peak)
    put(tree.path(path.strip('/')), files)


def later(monkeypatch, tree, cpu_files):
    """The sample window: on sleep, each cgroup's CPU counter moves as given ({path: (file, new text)})."""
    def sleep(_seconds):
        for path, (name, text) in cpu_files.items():
            put(tree.path(path.strip('/')), {name: text})
    monkeypatch.setattr(time, 'sleep', sleep)


def run(run_module, tree, the_plan, **args):
    return run_module(reservation_info, dict(args, plan=the_plan, cgroupfs_path=tree.root, proc_path=tree.proc))


def test_v2_systemd_a_generous_reservation_is_over_and_an_oom_killed_one_under(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=200 * MI, peak=300 * MI, usage_usec=1000000)
    v2_cgroup(tree, '/kube.slice', current=500 * MI, peak=900 * MI, oom_kill=2, usage_usec=0)
    v2_cgroup(tree, '/kubepods.slice', current=2 * GI, peak=3 * GI)
    later(monkeypatch, tree, {'/system.slice': ('cpu.stat', 'usage_usec 1500000'),  # 0.5 s in 10 s: 50m
                              '/kube.slice': ('cpu.stat', 'usage_usec 3000000')})  # 3 s in 10 s: 300m
    result = run(run_module, tree, plan(), sample_seconds=10)
    system, kube = result['reserved']['system'], result['reserved']['kube']
    assert system['cgroup'] == '/system.slice' and system['processes'] == 5
    # the lifetime peak sizes the recommendation; the verdict judges the highest use of the window
    assert system['memory']['peak'] == 300 * MI and system['memory']['recommended'] == 375 * MI
    assert system['memory']['window_peak'] == system['memory']['used'] == 200 * MI
    assert system['memory']['peak_source'] == 'memory.peak'
    assert system['memory']['verdict'] == 'over' and system['memory']['headroom'] == GI - 200 * MI
    assert system['cpu']['used'] == 50 and system['cpu']['recommended'] == 100 and system['cpu']['verdict'] == 'over'
    assert system['verdict'] == 'over'
    assert kube['memory']['verdict'] == 'under'
    assert kube['memory']['reasons'] == [
        '2 OOM kills in the cgroup since it was made (memory.events oom_kill)',
        'its peak since the cgroup was made, 900Mi, is above the 512Mi reserved: a burst before the window (a start, '
        'a backup), sized for but not judged']
    assert kube['memory']['causes'] == ['oom_kill']
    assert kube['memory']['recommended'] == 1125 * MI  # 900Mi + 25%
    assert kube['cpu']['used'] == 300 and kube['cpu']['verdict'] == 'under' and kube['cpu']['recommended'] == 450
    assert result['verdict'] == 'under'
    assert result['recommendation'] == {'system_reserved': {'cpu': '100m', 'memory': '375Mi'},
                                        'kube_reserved': {'cpu': '450m', 'memory': '1125Mi'}}
    assert result['kubepods']['memory'] == {'current': 2 * GI, 'peak': 3 * GI}
    assert result['use'] == {'memory_peak': 700 * MI, 'cpu_used': 350}
    profiles = result['profiles']
    assert profiles['static'] == {'cpu': 700, 'memory': 1536 * MI}
    assert profiles['measured'] == {'cpu': 550, 'memory': 1500 * MI}
    assert profiles['gke'] == {'cpu': 80, 'memory': 2662 * MI} and profiles['openshift'] == {'cpu': 500, 'memory': GI}
    assert profiles['eks']['memory'] == (11 * 110 + 255) * MI


def test_sustained_pressure_alone_makes_it_under(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=100 * MI, peak=100 * MI, memory_some=12.5, cpu_some=30.0)
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI)
    later(monkeypatch, tree, {})
    system = run(run_module, tree, plan(), sample_seconds=1)['reserved']['system']
    assert system['memory']['reasons'] == ['memory pressure: its tasks waited 12.5% of the last minute (some avg60)']
    assert system['cpu']['reasons'] == ['CPU pressure: its tasks waited 30.0% of the last minute (some avg60)']
    assert system['verdict'] == 'under'


def test_without_memory_peak_the_peak_is_the_current_use_and_said_so(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=700 * MI)  # a kernel before 5.19: no memory.peak
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI)
    later(monkeypatch, tree, {})
    memory = run(run_module, tree, plan(), sample_seconds=1)['reserved']['system']['memory']
    assert memory['peak'] == 700 * MI and memory['verdict'] == 'ok'
    assert memory['peak_source'].startswith('the current use (no peak file')


def test_a_reserved_cgroup_with_no_processes_is_unmeasured(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=100 * MI, peak=100 * MI)
    v2_cgroup(tree, '/kube.slice', current=0, peak=0, tasks=0)
    later(monkeypatch, tree, {})
    result = run(run_module, tree, plan(), sample_seconds=1)
    kube = result['reserved']['kube']
    assert kube['verdict'] == 'unmeasured' and 'memory' not in kube
    assert 'holds no processes' in kube['reasons'][0] and 'says nothing' in kube['reasons'][0]
    assert 'kube_reserved' not in result['recommendation']


def test_no_system_cgroup_in_the_plan_measures_system_slice_and_no_kube_cgroup_is_unmeasured(run_module, tmp_path,
                                                                                             monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=100 * MI, peak=150 * MI)
    later(monkeypatch, tree, {})
    result = run(run_module, tree, plan(system_cgroup='', kube_cgroup=''), sample_seconds=1)
    system, kube = result['reserved']['system'], result['reserved']['kube']
    assert system['cgroup'] == '/system.slice' and system['cgroup_source'].startswith('the plan names no system')
    assert system['memory']['peak'] == 150 * MI
    assert kube == {'verdict': 'unmeasured', 'reasons': ['the plan names no kube-reserved cgroup'], 'cgroup': None,
                    'cgroup_source': 'the plan names no kube-reserved cgroup'}


def test_v1_cgroupfs_reads_each_hierarchy(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v1', monkeypatch, pid1='init')
    for path, usage, peak, kills, tasks in (('system', 300 * MI, 600 * MI, 1, 4), ('kube', 100 * MI, 200 * MI, 0, 3)):
        put(tree.path('memory', path), {'memory.usage_in_bytes': str(usage), 'memory.max_usage_in_bytes': str(peak),
                                        'memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\noom_kill %d' % kills,
                                        'cgroup.procs': '\n'.join(str(100 + n) for n in range(tasks))})
        put(tree.path('cpuacct', path), {'cpuacct.usage': '0'})
        put(tree.path('pids', path), {'pids.current': str(tasks)})
    later(monkeypatch, tree, {'/cpuacct/system': ('cpuacct.usage', str(20 * 10 ** 9))})  # 20 s in 10 s: 2000m
    the_plan = plan(driver='cgroupfs', system_cgroup='/system', kube_cgroup='/kube')
    result = run(run_module, tree, the_plan, sample_seconds=10)
    assert result['cgroup_version'] == 'v1'
    system = result['reserved']['system']
    assert system['events'] == {'oom_kill': 1, 'under_oom': 0} and system['processes'] == 4
    assert system['memory']['peak_source'] == 'memory.max_usage_in_bytes'
    assert system['memory']['reasons'] == ['1 OOM kill in the cgroup since it was made (memory.events oom_kill)']
    assert system['cpu']['used'] == 2000 and system['cpu']['recommended'] == 2000  # half of 4 CPUs
    assert system['cpu']['reasons'] == ['used 2000m over the window, above the 500m reserved']
    assert system['pressure'] == {'memory': None, 'cpu': None}
    assert result['reserved']['kube']['memory']['verdict'] == 'over'


def test_a_use_beyond_half_the_node_is_capped_and_said_so(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=9 * GI, peak=10 * GI)  # on a 16Gi node
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI)
    later(monkeypatch, tree, {})
    memory = run(run_module, tree, plan(), sample_seconds=1)['reserved']['system']['memory']
    assert memory['recommended'] == 8 * GI and memory['verdict'] == 'under'
    assert memory['reasons'] == ['used up to 9216Mi in the window, above the 1024Mi reserved',
                                 'the recommendation is held at half the node: the use alone is more than this node '
                                 'should give its daemons']


def test_bad_input_is_refused(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    with pytest.raises(ModuleFail) as failure:
        run(run_module, tree, plan(), sample_seconds=0)
    assert failure.value.result['msg'] == 'sample_seconds: must be between 1 and 600 (got 0)'
    with pytest.raises(ModuleFail) as failure:
        run(run_module, tree, {'capacity': {}}, sample_seconds=5)
    assert failure.value.result['msg'] == 'plan.cgroup_driver: is missing: not a result of kubenode.cgroups.allocatable_info'
    with pytest.raises(ModuleFail) as failure:
        run(run_module, tree, dict(plan(), capacity=None), sample_seconds=5)
    assert failure.value.result['msg'] == 'plan.capacity: is missing: not a result of kubenode.cgroups.allocatable_info'


@pytest.mark.parametrize('memory, cpus, memory_gib, cpu_milli', [
    (8 * GI, 2, 1, 500),  # 1 GiB up to 8 GiB; 72m lifted to the 500m floor
    (16 * GI - 400 * MI, 4, 1, 500),  # `free -g` says 15: 1 + 7 x 6% = 1.42, rounded to 1
    (64 * GI, 16, 4, 500),  # 1 + 56 x 6% = 4.36
    (256 * GI, 48, 10, 620),  # 1 + 6.72 + (248 - 112) x 2% = 10.44; 60 + 47 x 12 = 624m, to hundredths 620m
])
def test_openshift_sizing_follows_the_script_quirks_and_all(memory, cpus, memory_gib, cpu_milli):
    assert openshift_memory_gib(memory) == memory_gib
    assert openshift_cpu_millicores(cpus * 1000) == cpu_milli


def test_the_measured_profile_takes_the_recommendation_between_a_floor_and_half_the_node():
    the_plan = plan_node(PlanOptions(capacity={'cpu': '4', 'memory': '16Gi'}, profile='measured', measured_reservation={
        'system_reserved': {'cpu': '30m', 'memory': '375Mi'}, 'kube_reserved': {'cpu': '450m', 'memory': '20Gi'}}))
    reserved = the_plan.as_dict()['reserved']
    assert reserved['system'] == {'cpu': {'quantity': '100m', 'value': 100},
                                  'memory': {'quantity': '375Mi', 'value': 375 * MI}}
    assert reserved['kube'] == {'cpu': {'quantity': '450m', 'value': 450}, 'memory': {'quantity': '8Gi', 'value': 8 * GI}}
    explicit = plan_node(PlanOptions(capacity={'cpu': '4', 'memory': '16Gi'}, profile='measured',
                                     kube_reserved={'memory': '1Gi'},
                                     measured_reservation={'kube_reserved': {'memory': '2Gi'}}))
    assert explicit.reserved_of('kube')['memory']['value'] == GI


@pytest.mark.parametrize('measured, field', [
    (None, 'measured_reservation'),
    ({}, 'measured_reservation'),
    ({'pods_reserved': {'cpu': '1'}, 'kube_reserved': {'cpu': '1'}}, 'measured_reservation'),
    ({'kube_reserved': {'pids': '100'}}, 'measured_reservation.kube_reserved.pids'),
    ({'kube_reserved': {'memory': 'lots'}}, 'measured_reservation.kube_reserved.memory'),
    ({'kube_reserved': ['1Gi']}, 'measured_reservation.kube_reserved'),
])
def test_the_measured_profile_refuses_what_is_not_a_recommendation(measured, field):
    with pytest.raises(KubenodeError) as error:
        plan_node(PlanOptions(capacity={'cpu': '4', 'memory': '16Gi'}, profile='measured',
                              measured_reservation=measured))
    assert error.value.field == field


def test_a_cgroup_with_nothing_reserved_for_it_says_so(run_module, tmp_path, monkeypatch):
    # The kube side reserves too little for both: the system side's use is judged on its own.
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=500 * MI, peak=550 * MI, usage_usec=0)
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI)
    later(monkeypatch, tree, {'/system.slice': ('cpu.stat', 'usage_usec 3000000')})  # 3 s in 10 s: 300m
    system = run(run_module, tree, plan(system_reserved={}), sample_seconds=10)['reserved']['system']
    assert system['memory']['reasons'] == ['nothing reserved for it, and it used up to 500Mi in the window']
    assert system['cpu']['reasons'] == ['nothing reserved for it, and it used 300m over the window']
    assert system['verdict'] == 'under' and system['memory']['recommended'] == 688 * MI  # 550Mi + 25%, rounded up


def test_a_side_with_nothing_reserved_is_judged_with_the_other_within_their_total(run_module, tmp_path, monkeypatch):
    """Issue 35 (5): the gke profile reserves everything as kube-reserved; system.slice using some of it while
    both stay within the total is no shortage, and the report says why."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=100 * MI, peak=150 * MI, usage_usec=0)
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI, usage_usec=0)
    later(monkeypatch, tree, {'/system.slice': ('cpu.stat', 'usage_usec 1000000'),  # 100m
                              '/kube.slice': ('cpu.stat', 'usage_usec 500000')})  # 50m
    result = run(run_module, tree, plan(system_reserved={}), sample_seconds=10)
    system = result['reserved']['system']
    assert system['memory']['verdict'] == 'ok' and system['memory']['judged_together']
    assert system['memory']['reasons'] == ['nothing reserved for it alone: judged with the other side, as the plan '
                                           'reserves 512Mi for both together and together they used 200Mi']
    assert system['cpu']['verdict'] == 'ok'
    assert system['cpu']['reasons'] == ['nothing reserved for it alone: judged with the other side, as the plan '
                                        'reserves 200m for both together and together they used 150m']
    assert system['verdict'] == 'ok' and result['verdict'] != 'under'


def test_a_side_with_nothing_reserved_and_oom_kills_stays_under(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=100 * MI, peak=150 * MI, oom_kill=1)
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI)
    later(monkeypatch, tree, {})
    system = run(run_module, tree, plan(system_reserved={}), sample_seconds=10)['reserved']['system']
    assert system['memory']['verdict'] == 'under' and system['memory']['causes'] == ['oom_kill', 'use']


def test_a_node_at_rest_is_not_under_for_a_boot_time_peak(run_module, tmp_path, monkeypatch):
    """Issue 35 (5): memory.peak spans the cgroup's life; its age is said, the window is measured too, and only
    the window is judged."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=200 * MI, peak=2 * GI)
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI)
    put(tree.proc, {'uptime': '11045.20 40000.00'})
    currents = iter([250, 400, 300] + [300] * 20)

    def sleep(_seconds):  # memory.current moves within the window: its highest read is the window's peak
        put(tree.path('system.slice'), {'memory.current': str(next(currents) * MI)})
    monkeypatch.setattr(time, 'sleep', sleep)
    result = run(run_module, tree, plan(), sample_seconds=3)
    memory = result['reserved']['system']['memory']
    assert memory['window_peak'] == 400 * MI and memory['peak'] == 2 * GI
    assert memory['verdict'] == 'ok' and memory['causes'] == []
    assert memory['reasons'][0].startswith('its peak since the cgroup was made, 2048Mi, is above the 1024Mi reserved')
    assert memory['recommended'] == 2560 * MI  # sized for the lifetime peak
    assert result['peak_since'] == 'since the cgroup was made, at most 3h04m ago (the node booted then)'
    assert result['uptime_seconds'] == 11045


def test_cpu_over_a_short_window_is_not_enough_data(run_module, tmp_path, monkeypatch):
    """Issue 35 (5): a 2-second sample says nothing of a daemon's CPU; the reservation is kept, not cut."""
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=100 * MI, peak=100 * MI, usage_usec=0)
    v2_cgroup(tree, '/kube.slice', current=100 * MI, peak=100 * MI, usage_usec=0)
    later(monkeypatch, tree, {'/system.slice': ('cpu.stat', 'usage_usec 10000')})
    result = run(run_module, tree, plan(), sample_seconds=2)
    cpu = result['reserved']['system']['cpu']
    assert cpu['verdict'] == 'unmeasured' and cpu['recommended'] == 500
    assert cpu['reasons'] == ['not enough data: a 2 s window is too short to judge CPU use (at least 10 s)']
    assert result['recommendation']['system_reserved']['cpu'] == '500m'


def test_nothing_measured_is_no_use_of_zero(run_module, tmp_path, monkeypatch):
    tree = FakeCgroupfs(tmp_path, 'v2', monkeypatch)
    v2_cgroup(tree, '/system.slice', current=0, peak=0, tasks=0)
    v2_cgroup(tree, '/kube.slice', current=0, peak=0, tasks=0)
    later(monkeypatch, tree, {})
    assert run(run_module, tree, plan(), sample_seconds=1)['use'] == {'memory_peak': None, 'cpu_used': None}
    assert run(run_module, tree, plan(), sample_seconds=1)['profiles']['measured'] == {
        'error': 'unmeasured: no reserved cgroup was measured, so there is nothing to recommend'}
