"""What a run under pressure came to (tests/vm/protection/outcomes.py, issue 76), from samplers' series made here."""
from __future__ import annotations

import importlib.util
import json
import os

import pytest

START = 1000.0
MIB = 1 << 20
KUBEPODS_OOM = ('oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,'
                'oom_memcg=/kubepods.slice,task_memcg=/kubepods.slice/kubepods-besteffort.slice/x,task=load,pid=4242,'
                'uid=65535')
GLOBAL_OOM = ('oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,'
              'task_memcg=/system.slice/ssh.service,task=sshd,pid=77,uid=0')


@pytest.fixture(scope='module')
def outcomes():
    """The module, loaded from tests/vm/protection."""
    path = os.path.join(os.path.dirname(__file__), '..', 'vm', 'protection', 'outcomes.py')
    spec = importlib.util.spec_from_file_location('kubenode_protection_outcomes', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def node_sample(t, kubepods_kills=0, node_kills=0, kmsg=(), healthz=3.0, kubelet=(10, 500), available=500 * MIB,
                pids=20):
    """One line of node_sampler.py."""
    return {'t': t, 'memory': {'capacity': 1000 * MIB, 'working_set': 1000 * MIB - available, 'available': available},
            'vmstat_oom_kill': node_kills, 'threads': 150, 'healthz_ms': healthz, 'kmsg': list(kmsg),
            'cgroups': {'kubepods.slice': {'oom_kill': kubepods_kills, 'pids': pids}, 'system.slice': {'oom_kill': 0}},
            'units': {'kubelet.service': {'pid': kubelet[0], 'start': kubelet[1]}}}


def pod(phase='Running', reason=None, container_reason=None, restarts=0):
    """A pod as api_sampler.py keeps it."""
    state = 'terminated' if phase in ('Succeeded', 'Failed') else 'running'
    return {'phase': phase, 'reason': reason, 'qos': 'BestEffort',
            'containers': {'c': {'restarts': restarts, 'state': state, 'reason': container_reason,
                                 'last_reason': None}}}


def api_sample(t, ready='True', memory_pressure='False', bomb=None, innocent=None, ssh=((None, 0.4, True),)):
    """One line of api_sampler.py; ssh logins start at t unless given."""
    return {'t': t, 'node': {'Ready': ready, 'MemoryPressure': memory_pressure, 'PIDPressure': 'False'},
            'pods': {'bomb': bomb or pod(), 'innocent': innocent or dict(pod(), qos='Guaranteed')},
            'ssh': [(t if start is None else start, seconds, ok) for start, seconds, ok in ssh]}


def contained_run():
    """A bomb OOM-killed in kubepods at +3 s, ended at +4 s, the node healthy throughout."""
    node = [node_sample(START + second, kubepods_kills=1 if second >= 3 else 0, node_kills=1 if second >= 3 else 0,
                        kmsg=[KUBEPODS_OOM] if second == 3 else (), pids=900 if second == 2 else 20)
            for second in range(-2, 8)]
    api = [api_sample(START + second, bomb=pod('Failed', container_reason='OOMKilled') if second >= 4 else pod())
           for second in range(-2, 8)]
    return node, api


def test_a_bomb_killed_in_kubepods_on_a_healthy_node(outcomes):
    node, api = contained_run()
    result = outcomes.outcomes(node, api, START, 'innocent', ['bomb'])
    assert result['seconds_not_ready'] == 0
    assert result['oom_kills_outside_kubepods'] == 0
    assert result['oom_kills_in_kubepods'] == 1
    assert result['oom_victims'] == [{'constraint': 'CONSTRAINT_MEMCG', 'oom_memcg': '/kubepods.slice',
                                      'task_memcg': '/kubepods.slice/kubepods-besteffort.slice/x', 'task': 'load',
                                      'pid': '4242', 't': START + 3}]
    assert result['first_kubepods_oom_after'] == 3
    assert result['first_eviction_after'] is None
    assert result['evicted_before_kubepods_oom'] is False
    assert result['load_pods'] == {'bomb': 'OOMKilled'}
    assert result['load_ended_after'] == 4
    assert result['innocent_killed'] is False
    assert result['unit_restarts'] == {'kubelet.service': 0}
    assert result['recover_seconds'] == 0
    # Logins from the load's start on: seconds 0 to 7.
    assert result['ssh'] == {'logins': 8, 'failed': 0, 'p50': 0.4, 'p99': 0.4}
    assert result['max_kubepods_pids'] == 900
    assert result['node_stall_seconds'] == 0


def test_a_frozen_node_shows_as_a_gap_in_its_series(outcomes):
    node, api = contained_run()
    stalled = node[:4] + [dict(sample, t=sample['t'] + 12.5) for sample in node[4:]]
    assert outcomes.outcomes(stalled, api, START, 'innocent', ['bomb'])['node_stall_seconds'] == 12.5


def test_a_kill_outside_kubepods_and_a_restarted_kubelet_are_counted(outcomes):
    node, api = contained_run()
    for sample in node[6:]:
        sample['vmstat_oom_kill'] += 1
        sample['units']['kubelet.service'] = {'pid': 11, 'start': 900}
    node[6]['kmsg'] = [GLOBAL_OOM]
    result = outcomes.outcomes(node, api, START, 'innocent', ['bomb'])
    assert result['oom_kills_outside_kubepods'] == 1
    assert result['oom_victims'][-1]['task_memcg'] == '/system.slice/ssh.service'
    assert result['oom_victims'][-1]['constraint'] == 'CONSTRAINT_NONE'
    assert result['unit_restarts'] == {'kubelet.service': 1}


def test_an_eviction_before_the_kernel_and_a_node_that_recovers(outcomes):
    node = [node_sample(START + second, healthz=None if second == 6 else 3.0) for second in range(0, 12)]
    api = [api_sample(START + second, ready='False' if second in (2, 3) else 'True',
                      memory_pressure='True' if 1 <= second <= 5 else 'False',
                      bomb=pod('Failed', reason='Evicted') if second >= 4 else pod(),
                      ssh=((None, 0.5, second != 5),))
           for second in range(0, 12)]
    api.append({'t': START + 12, 'ssh': [], 'events': [
        {'t': START + 3.5, 'reason': 'Evicted', 'kind': 'Pod', 'name': 'bomb', 'message': 'low on memory',
         'count': 1, 'source': 'kubelet'}]})
    result = outcomes.outcomes(node, api, START, 'innocent', ['bomb'])
    assert result['seconds_not_ready'] == 2
    assert result['memory_pressure_seconds'] == 5
    assert result['first_eviction_after'] == 3.5
    assert result['evicted_before_kubepods_oom'] is True
    assert result['load_pods'] == {'bomb': 'Evicted'}
    assert result['load_ended_after'] == 4
    # The last unhealthy sample: healthz failing at +6 s, two seconds after the load ended. MemoryPressure, which
    # kubelet holds on purpose, is not counted: it cleared a second after the load's end.
    assert result['recover_seconds'] == 2
    assert result['pressure_cleared_after'] == 1
    assert result['ssh']['failed'] == 1
    assert result['healthz_failed'] == 1


def test_a_node_still_unhealthy_when_sampling_stops_has_not_recovered(outcomes):
    node = [node_sample(START + second) for second in range(0, 6)]
    api = [api_sample(START + second, ready='False' if second >= 3 else 'True',
                      bomb=pod('Failed', container_reason='OOMKilled') if second >= 2 else pod())
           for second in range(0, 6)]
    assert outcomes.outcomes(node, api, START, 'innocent', ['bomb'])['recover_seconds'] is None
    for sample in api:
        sample['node'].update(Ready='True', MemoryPressure='True')
    held = outcomes.outcomes(node, api, START, 'innocent', ['bomb'])
    assert held['recover_seconds'] == 0 and held['pressure_cleared_after'] is None


def test_a_load_that_never_ends_has_no_end_nor_recovery(outcomes):
    node, api = contained_run()
    for sample in api:
        sample['pods']['bomb'] = pod()
    result = outcomes.outcomes(node, api, START, 'innocent', ['bomb'])
    assert result['load_ended_after'] is None
    assert result['recover_seconds'] is None
    assert result['load_pods'] == {'bomb': 'Running'}


@pytest.mark.parametrize('innocent, killed', [
    (pod(restarts=1), True),
    (pod('Failed', reason='Evicted'), True),
    (pod('Failed', container_reason='OOMKilled'), True),
    (pod(), False),
])
def test_the_innocent_pod_is_killed_when_it_restarts_stops_or_is_evicted(outcomes, innocent, killed):
    node, api = contained_run()
    api[5]['pods']['innocent'] = innocent
    assert outcomes.outcomes(node, api, START, 'innocent', ['bomb'])['innocent_killed'] is killed


def test_an_innocent_pod_that_disappears_was_killed(outcomes):
    node, api = contained_run()
    for sample in api[5:]:
        del sample['pods']['innocent']
    assert outcomes.outcomes(node, api, START, 'innocent', ['bomb'])['innocent_killed'] is True


def test_the_command_line_reads_the_series_files(outcomes, tmp_path, capsys):
    node, api = contained_run()
    for name, series in (('node.jsonl', node), ('api.jsonl', api)):
        (tmp_path / name).write_text(''.join(json.dumps(line) + '\n' for line in series))
    outcomes.main(['--node', str(tmp_path / 'node.jsonl'), '--api', str(tmp_path / 'api.jsonl'),
                   '--load-start', str(START), '--innocent', 'innocent', '--load', 'bomb'])
    assert json.loads(capsys.readouterr().out)['load_pods'] == {'bomb': 'OOMKilled'}


def test_percentiles_are_nearest_rank(outcomes):
    assert outcomes.percentile([], 0.5) is None
    assert outcomes.percentile([3, 1, 2], 0.5) == 2
    assert outcomes.percentile(list(range(1, 101)), 0.99) == 99
    assert outcomes.percentile([1, 9], 0.99) == 9


def test_a_pod_the_kernel_oom_killed_outside_its_limit_ended_oomkilled(outcomes):
    """kubeadm's defaults: kubepods has no limit below the machine, the node's OOM killer takes the bomb, and
    containerd reports Error; the kernel's victim names the pod's cgroup (its UID, underscored by the systemd driver)."""
    node, api = contained_run()
    victim = KUBEPODS_OOM.replace('task_memcg=/kubepods.slice/kubepods-besteffort.slice/x',
                                  'task_memcg=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podab_12.slice/c')
    node[5]['kmsg'] = [victim]
    for sample in api:
        sample['pods']['bomb']['uid'] = 'ab-12'
        for state in sample['pods']['bomb']['containers'].values():
            state['reason'] = 'Error' if state['reason'] == 'OOMKilled' else state['reason']
    assert outcomes.outcomes(node, api, START, 'innocent', ['bomb'])['load_pods'] == {'bomb': 'OOMKilled'}
    for sample in api:
        sample['pods']['bomb']['uid'] = 'cd-34'
    assert outcomes.outcomes(node, api, START, 'innocent', ['bomb'])['load_pods'] == {'bomb': 'Error'}
