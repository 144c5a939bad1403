# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""task_times.py [--top N] FILE...: where each scenario's time went, from the task_times callback's files
(SCENARIO.times.tsv: seconds, playbook, task path, task name a line): the seconds per playbook of molecule's
sequence, then the N slowest tasks, their seconds summed where one task runs more than once."""
import argparse
import collections
import os


def read_times(path):
    rows = []
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            fields = line.rstrip('\n').split('\t')
            if len(fields) == 4:
                rows.append((float(fields[0]), fields[1], fields[2], fields[3]))
    return rows


def summary(scenario, rows, top):
    per_playbook = collections.OrderedDict()
    per_task = collections.Counter()
    runs = collections.Counter()
    for seconds, playbook, task_path, name in rows:
        per_playbook[playbook] = per_playbook.get(playbook, 0.0) + seconds
        key = '%s (%s)' % (name, os.path.basename(task_path.split(':')[0]) + ':' + task_path.rsplit(':', 1)[-1])
        per_task[key] += seconds
        runs[key] += 1
    lines = ['%s: %.0f s in %d tasks; per playbook: %s' % (
        scenario, sum(row[0] for row in rows), len(rows),
        ', '.join('%s %.0f s' % (playbook, seconds) for playbook, seconds in per_playbook.items()))]
    for key, seconds in per_task.most_common(top):
        lines.append('  %6.0f s %s%s' % (seconds, key, ' x%d' % runs[key] if runs[key] > 1 else ''))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--top', type=int, default=12)
    parser.add_argument('files', nargs='+')
    args = parser.parse_args()
    for path in args.files:
        if os.path.exists(path):
            scenario = os.path.basename(path).split('.times.tsv')[0]
            print('\n'.join(summary(scenario, read_times(path), args.top)))


if __name__ == '__main__':
    main()
