# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""outcomes.py --node FILE --api FILE --load-start EPOCH --innocent POD --load POD [--load POD ...]: what a run
under pressure came to (issue 76), from node_sampler.py's and api_sampler.py's series, as one JSON object:

- seconds_not_ready, memory_pressure_seconds, pid_pressure_seconds: API samples with the condition;
- ssh: logins from the load's start on, their p50 and p99 seconds and how many failed;
- oom_kills_outside_kubepods: the node's OOM kills (/proc/vmstat) less kubepods' (its memory.events count every
  kill in its subtree), and the victims the kernel named;
- evicted_before_kubepods_oom: whether kubelet's first eviction came before the kernel's first OOM kill in kubepods;
- load_pods: how each load pod ended (Evicted, OOMKilled - by its limit or a kernel OOM kill in its cgroup -,
  Completed, Error, ... or still running);
- innocent_killed: whether the innocent pod stopped running, restarted or was evicted;
- unit_restarts: each unit's main process replaced (a new PID or start time) during the run;
- node_stall_seconds: the longest the node's sampler went without a sample beyond its second: the node frozen;
- recover_seconds: from the load's end (every load pod ended) to the last unhealthy sample (not Ready, kubelet's
  healthz or an ssh login failing), 0 when nothing was unhealthy after it, None when the node was still unhealthy
  when sampling stopped;
- pressure_cleared_after: the same for the Node's pressure conditions, which kubelet holds 5 minutes after the
  pressure on purpose."""

import argparse
import json
import re
import sys

OOM_KILL = re.compile(r'oom-kill:constraint=(?P<constraint>[A-Z_]+),.*?(?:oom_memcg=(?P<oom_memcg>[^,]*),)?'
                      r'task_memcg=(?P<task_memcg>[^,]*),task=(?P<task>[^,]*),pid=(?P<pid>\d+)')
TERMINAL = ('Succeeded', 'Failed')
KUBEPODS = 'kubepods.slice'


def read_series(path):
    """The JSON lines of a sampler."""
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def percentile(values, fraction):
    """The nearest-rank percentile of values, or None for none."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def counter_delta(samples, read):
    """How much a counter grew between the first and the last sample that have it."""
    values = [value for value in (read(sample) for sample in samples) if value is not None]
    return values[-1] - values[0] if values else 0


def kubepods_value(sample, field):
    """A field of kubepods' cgroup sample, or None."""
    return (sample.get('cgroups', {}).get(KUBEPODS) or {}).get(field)


def first_increase(samples, read):
    """The time of the first sample where a counter is above its first value, or None."""
    base = None
    for sample in samples:
        value = read(sample)
        if value is None:
            continue
        if base is None:
            base = value
        elif value > base:
            return sample['t']
    return None


def oom_victims(node):
    """The kernel's oom-kill records: constraint, the OOM cgroup, the victim's cgroup, task and pid."""
    victims = []
    for sample in node:
        for message in sample.get('kmsg', ()):
            found = OOM_KILL.search(message)
            if found:
                victims.append(dict(found.groupdict(), t=sample['t']))
    return victims


def killed_by_kernel(pod, victims):
    """Whether the kernel OOM-killed a process of the pod: a victim's cgroup names the pod's UID (the systemd driver
    spells it with underscores). containerd says OOMKilled only when the container's own cgroup hit its limit; a
    victim of the node's OOM killer (no limit below the machine's) ends as Error."""
    uid = (pod or {}).get('uid')
    return bool(uid) and any(uid in victim['task_memcg'] or uid.replace('-', '_') in victim['task_memcg']
                             for victim in victims)


def pod_end(pod, victims=()):
    """How a pod ended: Evicted, OOMKilled (by its limit or by the kernel's OOM killer), the container's reason, or
    its phase while it runs."""
    if pod is None:
        return 'gone'
    if pod.get('reason') == 'Evicted':
        return 'Evicted'
    reasons = [state.get('reason') or state.get('last_reason') for state in pod.get('containers', {}).values()]
    if 'OOMKilled' in reasons or killed_by_kernel(pod, victims):
        return 'OOMKilled'
    if pod.get('phase') in TERMINAL:
        return next((reason for reason in reasons if reason), pod['phase'])
    return pod.get('phase') or 'unknown'


def last_pods(api):
    """Each pod's last sampled state."""
    seen = {}
    for sample in api:
        if 'error' not in sample.get('pods', {'error': None}):
            seen.update(sample['pods'])
    return seen


def load_end(api, loads):
    """The time of the first API sample in which every load pod had ended, or None."""
    for sample in api:
        pods = sample.get('pods', {})
        if 'error' in pods or not pods:
            continue
        if all(name in pods and pods[name]['phase'] in TERMINAL for name in loads):
            return sample['t']
    return None


def first_eviction(api, loads):
    """The time kubelet's first eviction of a load pod was seen (its event, else its status), or None."""
    times = [event['t'] for sample in api for event in sample.get('events', ())
             if event['reason'] == 'Evicted' and event['kind'] == 'Pod' and event['t']]
    for sample in api:
        pods = sample.get('pods', {})
        if any((pods.get(name) or {}).get('reason') == 'Evicted' for name in loads if 'error' not in pods):
            times.append(sample['t'])
            break
    return min(times) if times else None


def innocent_killed(api, innocent):
    """Whether the innocent pod ever stopped running: missing, not Running, restarted, or evicted."""
    seen = False
    for sample in api:
        pods = sample.get('pods', {})
        if 'error' in pods or not pods:
            continue
        pod = pods.get(innocent)
        if pod is None:
            if seen:
                return True
            continue
        seen = True
        restarts = sum(state.get('restarts') or 0 for state in pod.get('containers', {}).values())
        if pod.get('phase') != 'Running' or pod.get('reason') == 'Evicted' or restarts:
            return True
    return not seen


def longest_stall(node):
    """The longest time the node's sampler went without a sample beyond its one second: a node so starved (a reclaim
    storm, every PID taken) that a process the OOM killer never picks could not run."""
    times = [sample['t'] for sample in node]
    return round(max([later - earlier - 1 for earlier, later in zip(times, times[1:])] + [0]), 1)


def unit_restarts(node):
    """{unit: how many times its main process was replaced}; a sample that did not find it counts as nothing."""
    restarts = {}
    for unit in sorted({unit for sample in node for unit in sample.get('units', {})}):
        pairs = [(sample['units'][unit]['pid'], sample['units'][unit]['start']) for sample in node
                 if unit in sample.get('units', {}) and sample['units'][unit]['pid'] is not None]
        restarts[unit] = sum(1 for before, after in zip(pairs, pairs[1:]) if before != after)
    return restarts


def unhealthy_times(node, api):
    """The times of every sample that saw the node unhealthy: not Ready, an ssh login or kubelet's healthz failing.
    A pressure condition is not counted: kubelet holds it evictionPressureTransitionPeriod (5 minutes) after the
    pressure ends, on purpose (pressure_times)."""
    times = []
    for sample in api:
        conditions = sample.get('node')  # None on the closing line of events
        if conditions is not None and ('error' in conditions or conditions.get('Ready') != 'True'):
            times.append(sample['t'])
        times.extend(start + seconds for start, seconds, ok in sample.get('ssh', ()) if not ok)
    times.extend(sample['t'] for sample in node if sample.get('healthz_ms') is None)
    return sorted(times)


def pressure_times(api):
    """The times of the API samples with a pressure condition True."""
    return [sample['t'] for sample in api if 'True' in (
        (sample.get('node') or {}).get(name) for name in ('MemoryPressure', 'PIDPressure', 'DiskPressure'))]


def after_end(times, ended, last_sample):
    """Seconds from the load's end to the last of times after it: 0 for none, None when ended is None or the last
    is at the end of the series (it had not cleared when sampling stopped)."""
    late = [t for t in times if ended is not None and t >= ended]
    if ended is None or (late and late[-1] >= last_sample - 2):
        return None
    return round(late[-1] - ended, 1) if late else 0


def condition_seconds(api, name, bad):
    """API samples (one a second) whose condition name had the status bad (Ready: anything but True)."""
    count = 0
    for sample in api:
        conditions = sample.get('node', {'error': 'the closing line of events'})
        if 'error' in conditions:
            continue
        status = conditions.get(name)
        if (status != 'True') if bad == 'not True' else (status == bad):
            count += 1
    return count


def outcomes(node, api, load_start, innocent, loads):
    """The outcome of one run (the module docstring lists them)."""
    logins = [(start, seconds, ok) for sample in api for start, seconds, ok in sample.get('ssh', ())
              if start >= load_start]
    latencies = [seconds for _start, seconds, ok in logins if ok]
    node_kills = counter_delta(node, lambda sample: sample.get('vmstat_oom_kill'))
    kubepods_kills = counter_delta(node, lambda sample: kubepods_value(sample, 'oom_kill'))
    first_oom = first_increase(node, lambda sample: kubepods_value(sample, 'oom_kill'))
    evicted = first_eviction(api, loads)
    ended = load_end(api, loads)
    last_sample = max([sample['t'] for sample in node + api] or [load_start])
    pods = last_pods(api)
    victims = oom_victims(node)
    available = [sample['memory']['available'] for sample in node if sample['t'] >= load_start]
    kubepods_pids = [kubepods_value(sample, 'pids') for sample in node]
    return {
        'seconds_not_ready': condition_seconds(api, 'Ready', 'not True'),
        'memory_pressure_seconds': condition_seconds(api, 'MemoryPressure', 'True'),
        'pid_pressure_seconds': condition_seconds(api, 'PIDPressure', 'True'),
        'ssh': {'logins': len(logins), 'failed': sum(1 for login in logins if not login[2]),
                'p50': percentile(latencies, 0.5), 'p99': percentile(latencies, 0.99)},
        'healthz_failed': sum(1 for sample in node if sample['t'] >= load_start and sample.get('healthz_ms') is None),
        'oom_kills_outside_kubepods': node_kills - kubepods_kills,
        'oom_kills_in_kubepods': kubepods_kills,
        'oom_victims': victims,
        'first_kubepods_oom_after': None if first_oom is None else round(first_oom - load_start, 1),
        'first_eviction_after': None if evicted is None else round(evicted - load_start, 1),
        'evicted_before_kubepods_oom': evicted is not None and (first_oom is None or evicted < first_oom),
        'load_pods': {name: pod_end(pods.get(name), victims) for name in loads},
        'load_ended_after': None if ended is None else round(ended - load_start, 1),
        'innocent_killed': innocent_killed(api, innocent),
        'unit_restarts': unit_restarts(node),
        'recover_seconds': after_end(unhealthy_times(node, api), ended, last_sample),
        'pressure_cleared_after': after_end(pressure_times(api), ended, last_sample),
        'node_stall_seconds': longest_stall(node),
        'min_memory_available': min(available) if available else None,
        'max_kubepods_pids': max([pids for pids in kubepods_pids if pids is not None] or [0]),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('--node', required=True)
    parser.add_argument('--api', required=True)
    parser.add_argument('--load-start', type=float, required=True)
    parser.add_argument('--innocent', required=True)
    parser.add_argument('--load', action='append', required=True)
    args = parser.parse_args(argv)
    result = outcomes(read_series(args.node), read_series(args.api), args.load_start, args.innocent, args.load)
    json.dump(result, sys.stdout, sort_keys=True)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
