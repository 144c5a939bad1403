# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""report.py --runs DIR --out docs/protection.md --images docs/protection [--note TEXT]: make protection's table
and a timeline PNG a run (issue 76), from the runs tasks/pressure.yml kept in DIR (CONFIG--LOAD.node.jsonl,
.api.jsonl and .outcome.json). Each timeline shows, against seconds from the load's start: memory.available with
kubelet's threshold, evictions and OOM kills (in kubepods and outside it); the Node's Ready and pressure
conditions; ssh logins' and kubelet's healthz latency, failures marked; kubepods' PIDs and the node's threads."""

import argparse
import glob
import json
import os

import importlib.util

import matplotlib  # pylint: disable=import-error  # installed by make protection
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402 pylint: disable=import-error,wrong-import-position

MIB = 1 << 20
# The runs' outcomes are computed again from their series, with tests/vm/protection/outcomes.py as it is now.
_SPEC = importlib.util.spec_from_file_location(
    'kubenode_protection_outcomes', os.path.join(os.path.dirname(__file__), '..', '..', 'tests', 'vm', 'protection',
                                                 'outcomes.py'))
OUTCOMES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(OUTCOMES)
CONFIGS = ('kubeadm-defaults', 'collection-default', 'no-pid-reservation', 'measured')


def read_series(path):
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def runs(directory):
    """[(config, load, outcome, node series, api series)] in the matrix's order."""
    found = []
    for path in glob.glob(os.path.join(directory, '*.outcome.json')):
        name = os.path.basename(path)[:-len('.outcome.json')]
        config, load = name.split('--', 1)
        with open(path) as handle:
            kept = json.load(handle)
        node, api = (read_series(os.path.join(directory, name + suffix)) for suffix in ('.node.jsonl', '.api.jsonl'))
        outcome = dict(kept, **OUTCOMES.outcomes(node, api, kept['load_start'], 'innocent', list(kept['load_pods'])))
        found.append((config, load, outcome, node, api))
    order = {config: index for index, config in enumerate(CONFIGS)}
    return sorted(found, key=lambda run: (run[1], order.get(run[0], len(order)), run[0]))


def timeline(config, load, outcome, node, api, path):
    """Draw one run's timeline into path."""
    start = outcome['load_start']
    figure, axes = plt.subplots(4, 1, sharex=True, figsize=(10, 9))
    seconds = [sample['t'] - start for sample in node]
    memory, conditions, latency, pids = axes
    memory.plot(seconds, [sample['memory']['available'] / MIB for sample in node], label='memory.available')
    if outcome.get('threshold_bytes'):
        memory.axhline(outcome['threshold_bytes'] / MIB, color='orange', linestyle='--', label='eviction threshold')
    for victim in outcome['oom_victims']:
        inside = victim['task_memcg'].startswith('/kubepods')
        if not inside:
            color, label = 'red', 'OOM kill outside kubepods'
        elif victim['constraint'] == 'CONSTRAINT_MEMCG':
            color, label = 'purple', "OOM kill by kubepods' limit"
        else:
            color, label = 'darkorange', 'node-wide OOM kill, victim in kubepods'
        memory.axvline(victim['t'] - start, color=color, linestyle=':', label=label)
    if outcome['first_eviction_after'] is not None:
        memory.axvline(outcome['first_eviction_after'], color='green', label='first eviction')
    if outcome['load_ended_after'] is not None:
        for axis in axes:
            axis.axvspan(0, outcome['load_ended_after'], color='grey', alpha=0.08)
    memory.set_ylabel('MiB')
    handles, labels = memory.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    memory.legend(unique.values(), unique.keys(), fontsize='small', loc='upper right')
    states = [sample for sample in api if 'node' in sample and 'error' not in sample['node']]
    api_seconds = [sample['t'] - start for sample in states]
    # One band a condition, raised while it is True.
    names = ('Ready', 'MemoryPressure', 'PIDPressure', 'DiskPressure')
    for offset, (name, color) in enumerate(zip(names, ('green', 'orange', 'red', 'brown'))):
        conditions.step(api_seconds, [offset + 0.7 * (sample['node'].get(name) == 'True') for sample in states],
                        where='post', color=color)
    conditions.set_yticks([offset + 0.35 for offset in range(len(names))], names, fontsize='small')
    conditions.set_ylabel('True when raised')
    logins = [login for sample in api for login in sample.get('ssh', ())]
    latency.plot([login[0] - start for login in logins if login[2]], [login[1] for login in logins if login[2]],
                 '.', label='ssh login (s)')
    failed = [login[0] - start for login in logins if not login[2]]
    latency.plot(failed, [0] * len(failed), 'rx', label='ssh failed')
    latency.plot(seconds, [(sample['healthz_ms'] or 0) / 1000 for sample in node], label='kubelet healthz (s)')
    latency.set_ylabel('seconds')
    latency.legend(fontsize='small', loc='upper right')
    pids.plot(seconds, [(sample['cgroups'].get('kubepods.slice') or {}).get('pids') or 0 for sample in node],
              label='kubepods pids.current')
    pids.plot(seconds, [sample['threads'] for sample in node], label='node threads')
    pids.set_ylabel('tasks')
    pids.set_xlabel('seconds from the load\'s start')
    pids.legend(fontsize='small', loc='upper right')
    figure.suptitle('%s under %s' % (config, load))
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def ssh_cell(ssh):
    if not ssh['logins']:
        return 'none'
    return '%s / %s s%s' % (ssh['p50'], ssh['p99'], ', %d failed' % ssh['failed'] if ssh['failed'] else '')


def table_row(config, load, outcome):
    ends = ', '.join('%s' % end for end in outcome['load_pods'].values())
    first = 'evicted first' if outcome['evicted_before_kubepods_oom'] else (
        'kernel first' if outcome['first_kubepods_oom_after'] is not None else 'neither')
    recover = 'not recovered' if outcome['recover_seconds'] is None else '%s s' % outcome['recover_seconds']
    cleared = outcome.get('pressure_cleared_after')
    if outcome['memory_pressure_seconds'] or outcome['pid_pressure_seconds']:
        recover += ' (pressure held %s)' % ('past the end' if cleared is None else '%s s more' % cleared)
    restarted = ', '.join('%s (%d)' % (unit.replace('.service', ''), count)
                          for unit, count in sorted(outcome['unit_restarts'].items()) if count) or 'none'
    return '| %s | %s | %d | %s | %s | %d | %s | %s | %s | %s | %s | %s |' % (
        load, config, outcome['seconds_not_ready'], ssh_cell(outcome['ssh']), outcome.get('node_stall_seconds', '?'),
        outcome['oom_kills_outside_kubepods'], restarted,
        first, ends, 'yes' if outcome['innocent_killed'] else 'no', recover, outcome.get('cell_seconds', '?'))


# The two parts report.py writes (the table, the timelines), each between its markers; the rest is kept as written.
MARKERS = {part: ('<!-- %s: bench/protection/report.py (make protection) writes from here -->' % part,
                  '<!-- %s: to here; the rest of this file is kept as written -->' % part)
           for part in ('measured', 'timelines')}


def write_parts(path, parts):
    """Put each part ({name: text}) between its markers, keeping the rest of the file; a part whose markers the
    file lacks is added at its end."""
    text = ''
    if os.path.exists(path):
        with open(path) as handle:
            text = handle.read()
    for name, content in parts.items():
        begin, end = MARKERS[name]
        block = '%s\n%s%s\n' % (begin, content, end)
        if begin in text and end in text:
            text = text[:text.index(begin)] + block + text[text.index(end) + len(end) + 1:]
        else:
            text += ('\n' if text else '') + block
    with open(path, 'w') as out:
        out.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('--runs', required=True)
    parser.add_argument('--out', required=True)
    parser.add_argument('--images', required=True)
    parser.add_argument('--note', default='')
    args = parser.parse_args()
    os.makedirs(args.images, exist_ok=True)
    found = runs(args.runs)
    if not found:
        raise SystemExit('report.py: no run in %s' % args.runs)
    lines = ['| load | configuration | s NotReady | ssh p50 / p99 | node frozen s | OOM kills outside kubepods | '
             'daemons restarted | first to act | load ended as | innocent killed | recovered after | cell s |',
             '|---|---|---:|---|---:|---:|---|---|---|---|---|---:|']
    pictures = []
    for config, load, outcome, node, api in found:
        image = '%s--%s.png' % (config, load)
        timeline(config, load, outcome, node, api, os.path.join(args.images, image))
        lines.append(table_row(config, load, outcome))
        pictures.append('### %s under %s\n\n![%s under %s](%s/%s)\n' % (
            config, load, config, load, os.path.relpath(args.images, os.path.dirname(args.out)), image))
    write_parts(args.out, {'measured': '%s\n\n%s\n' % (args.note, '\n'.join(lines)),
                           'timelines': '## Timelines\n\n%s' % '\n'.join(pictures)})
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
