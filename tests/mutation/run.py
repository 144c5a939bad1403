# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""make mutation: cosmic-ray's mutants of plugins/module_utils, each run against the unit tests that can see it, a
score per file and per layer package (model, node, run), and every surviving mutant with its diff.

Usage: python3 tests/mutation/run.py [--timeout S] [--sample N [--seed S]] [FILE ...]
(FILE relative to plugins/module_utils; default: all). --sample runs a seeded random sample of N mutants of each
package, drawn from all its files, for a package score in minutes where all of them take hours.

The collection is copied first (git's files) into a temporary ansible_collections tree: cosmic-ray rewrites the
file it mutates, and the working tree (which the VM scenarios read through .cache/collections) stays untouched.
Each file's mutants run the unit test files that import it or a plugin that imports it (the reverse import closure),
stopping at the first failure. Results: .cache/mutation/report.md (scores, survivors with their diffs).
"""

import argparse
import ast
import json
import random
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
PREFIX = 'ansible_collections.kubenode.cgroups.'
LAYERS = ('model', 'node', 'run')


def python_files(top):
    for directory, _dirs, names in os.walk(os.path.join(ROOT, top)):
        for name in names:
            if name.endswith('.py'):
                yield os.path.relpath(os.path.join(directory, name), ROOT)


def module_name(path):
    return PREFIX + path[:-3].replace(os.sep, '.')


def imports_of(path):
    with open(os.path.join(ROOT, path)) as handle:
        tree = ast.parse(handle.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PREFIX):
            found.add(node.module)
            found.update('%s.%s' % (node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith(PREFIX))
    return found


def tests_for(target, plugins, tests):
    """The unit test files that import target, or a plugin that (transitively) imports it."""
    importers = {module_name(target)}
    changed = True
    while changed:
        changed = False
        for path in plugins:
            name = module_name(path)
            if name not in importers and imports_of(path) & importers:
                importers.add(name)
                changed = True
    return sorted(path for path in tests if imports_of(path) & importers)


def init(copy, target, selected, timeout, python, work):
    """cosmic-ray's session of one file: its mutants, not yet run. Returns (session, config)."""
    session = os.path.join(work, target.replace(os.sep, '_') + '.sqlite')
    config = os.path.join(work, target.replace(os.sep, '_') + '.toml')
    command = 'env PYTHONPATH=%s %s -m pytest -x -q -p no:cacheprovider %s' % (
        os.path.dirname(os.path.dirname(os.path.dirname(copy))), python, ' '.join(selected))
    with open(config, 'w') as handle:
        handle.write('[cosmic-ray]\nmodule-path = %s\ntimeout = %.1f\nexcluded-modules = []\ntest-command = %s\n\n'
                     '[cosmic-ray.distributor]\nname = "local"\n' % (json.dumps(target), timeout, json.dumps(command)))
    bindir = os.path.dirname(python)
    subprocess.check_call([os.path.join(bindir, 'cosmic-ray'), 'init', '--force', config, session], cwd=copy)
    return session, config


def execute(copy, session, config, python):
    subprocess.check_call([os.path.join(os.path.dirname(python), 'cosmic-ray'), 'exec', config, session], cwd=copy)
    return session


def job_ids(session):
    db = sqlite3.connect(session)
    try:
        return [row[0] for row in db.execute('select job_id from work_items order by job_id')]
    finally:
        db.close()


def keep_only(session, kept):
    """Leave a session only the mutants in kept (job ids): the others are not run, nor counted."""
    db = sqlite3.connect(session)
    try:
        for job in set(job_ids(session)) - set(kept):
            db.execute('delete from mutation_specs where job_id = ?', (job,))
            db.execute('delete from work_items where job_id = ?', (job,))
        db.commit()
    finally:
        db.close()


def sample_per_package(sessions, size, seed):
    """{target: job ids to run}: a seeded random sample of size mutants of each package (model, node, run), drawn
    from all its files' mutants, so that a package's score estimates the score of all of them."""
    chosen = {}
    for layer in LAYERS:
        jobs = [(target, job) for target in sorted(sessions) if target.split(os.sep)[0] == layer
                for job in job_ids(sessions[target][0])]
        picked = random.Random('%s-%s' % (seed, layer)).sample(jobs, min(size, len(jobs)))
        for target, job in picked:
            chosen.setdefault(target, []).append(job)
    return chosen


def outcomes(session):
    """[(operator, occurrence, test outcome, diff)] of a session's mutants."""
    db = sqlite3.connect(session)
    try:
        rows = db.execute('select m.operator_name, m.occurrence, r.test_outcome, r.diff from mutation_specs m '
                          'join work_results r on r.job_id = m.job_id').fetchall()
    except sqlite3.Error:
        rows = []
    db.close()
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('files', nargs='*')
    parser.add_argument('--timeout', type=float, default=180.0)
    parser.add_argument('--sample', type=int, default=0,
                        help='run a random sample of this many mutants of each package (model, node, run), not all')
    parser.add_argument('--seed', default='kubenode', help="the sample's seed")
    args = parser.parse_args(argv)
    python = sys.executable
    out_dir = os.path.join(ROOT, '.cache', 'mutation')
    os.makedirs(out_dir, exist_ok=True)
    targets = args.files or sorted(os.path.relpath(p, 'plugins/module_utils') for p in python_files('plugins/module_utils')
                                   if not p.endswith('__init__.py'))
    plugins = list(python_files('plugins'))
    tests = [p for p in python_files('tests/unit') if os.path.basename(p).startswith('test_')]
    scores = {}
    survivors = []
    with tempfile.TemporaryDirectory(prefix='kubenode-mutation-') as temp:
        copy = os.path.join(temp, 'ansible_collections', 'kubenode', 'cgroups')
        os.makedirs(copy)
        listed = subprocess.check_output(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=ROOT)
        for path in [p for p in listed.decode().split('\0') if p]:
            source = os.path.join(ROOT, path)
            if os.path.isfile(source):
                os.makedirs(os.path.dirname(os.path.join(copy, path)), exist_ok=True)
                shutil.copy2(source, os.path.join(copy, path))
        sessions = {}
        for target in targets:
            path = os.path.join('plugins', 'module_utils', target)
            selected = tests_for(path, plugins, tests)
            if not selected:
                print('%s: no unit test imports it' % target)
                scores[target] = (0, 0)
                continue
            print('%s: %d test files' % (target, len(selected)), flush=True)
            sessions[target] = init(copy, path, selected, args.timeout, python, out_dir)
        if args.sample:
            chosen = sample_per_package(sessions, args.sample, args.seed)
            for target, (session, _config) in sessions.items():
                keep_only(session, chosen.get(target, []))
            print('sampled %d mutants a package (seed %s)' % (args.sample, args.seed), flush=True)
        for target, (session, config) in sorted(sessions.items()):
            rows = outcomes(execute(copy, session, config, python)) if job_ids(session) else []
            # KILLED, or INCOMPETENT (the mutant does not even import): caught either way.
            survived = [r for r in rows if str(r[2]).upper().endswith('SURVIVED')]
            scores[target] = (len(rows) - len(survived), len(rows))
            survivors += [(target,) + tuple(r) for r in survived]
    lines = ['# Mutation score (cosmic-ray, `make mutation`)', '']
    if args.sample:
        lines += ['A seeded random sample of %d mutants of each package (seed %s), drawn from all its files.' % (
            args.sample, args.seed), '']
    header = len(lines)
    lines += ['| file | killed | mutants | score |', '|---|---:|---:|---:|']
    by_layer = {}
    for target, (killed, total) in sorted(scores.items()):
        lines.append('| %s | %d | %d | %s |' % (target, killed, total, '%.0f%%' % (100.0 * killed / total) if total else '-'))
        layer = target.split(os.sep)[0]
        k, t = by_layer.get(layer, (0, 0))
        by_layer[layer] = (k + killed, t + total)
    lines += ['', '| package | killed | mutants | score |', '|---|---:|---:|---:|']
    for layer, (killed, total) in sorted(by_layer.items()):
        lines.append('| %s | %d | %d | %s |' % (layer, killed, total, '%.0f%%' % (100.0 * killed / total) if total else '-'))
    lines += ['', '## Surviving mutants', '']
    for target, operator, occurrence, _outcome, diff in survivors:
        lines += ['### %s: %s #%s' % (target, operator, occurrence), '', '```diff', (diff or '').strip(), '```', '']
    with open(os.path.join(out_dir, 'report.md'), 'w') as handle:
        handle.write('\n'.join(lines) + '\n')
    print('\n'.join(lines[:header + len(scores) + 6 + len(by_layer)]))
    print('report: %s' % os.path.join(out_dir, 'report.md'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
