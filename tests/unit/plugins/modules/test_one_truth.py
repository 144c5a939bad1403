# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One answer to "does the node match its plan?": node_drift_info reports a difference exactly where
node_cgroups in check mode would change something, on random plans and random hand-made damage, cgroup v1,
v2 and hybrid, both drivers; and a normal run leaves nothing for either to report."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ansible_collections.kubenode.cgroups.plugins.modules import node_cgroups, node_drift_info

from ansible_collections.kubenode.cgroups.tests.unit.fake_cgroupfs import FakeCgroupfs, node_cgroups_args

CAPACITY = {'cpu': '4', 'memory': '16Gi', 'pid': '100000', 'hugepages-2Mi': '1Gi'}
# The values a hand (or another tool) may leave in a control file, by the file's kind.
HAND_VALUES = {
    'memory': st.one_of(st.just('max'), st.integers(0, 32).map(lambda gib: str(gib << 30))),
    'weight': st.integers(1, 10000).map(str),
    'shares': st.integers(2, 262144).map(str),
    'pids': st.one_of(st.just('max'), st.integers(1, 200000).map(str)),
    'cpus': st.sampled_from(['0', '0-1', '1-3', '0-3', '2']),
    'hugetlb': st.integers(0, 4).map(lambda pages: str(pages << 21)),
}


def kind_of(name):
    if name.startswith('memory.'):
        return 'memory'
    if name.startswith('hugetlb.'):
        return 'hugetlb'
    return {'cpu.weight': 'weight', 'cpu.shares': 'shares', 'pids.max': 'pids', 'cpuset.cpus': 'cpus',
            'cpuset.mems': None}.get(name)


def node_options(tree, draw_options):
    driver, reserved, swap = draw_options
    args = node_cgroups_args(tree, CAPACITY, cgroup_driver=driver, kubelet_version='1.34',
                             system_reserved=reserved[0], kube_reserved=reserved[1],
                             keep_reserved_out_of_swap=swap, services=['kubelet'] if driver == 'systemd' else [],
                             kubelet_config={'kubelet_config_path': tree.node_paths()['kubelet_config_paths'][0]},
                             containerd_config_path=os.path.join(tree.base, 'none.toml'), crio_config_paths=[])
    if driver == 'systemd':
        args.update(system_reserved_cgroup='/system.slice', kube_reserved_cgroup='/kube.slice')
    return args


def audit_options(tree, args, plan):
    """node_drift_info's options for the node node_cgroups was given: the same paths, services, files."""
    options = dict(tree.audit_paths(), plan=plan, services=args['services'], cgroupfs_path=tree.root,
                   proc_path=tree.proc, containerd_config_path=args['containerd_config_path'],
                   crio_config_paths=args['crio_config_paths'], kubelet_config_path=args['kubelet_config']
                   ['kubelet_config_path'])
    return options


def managed_files(tree, plan):
    """Every control file of the managed cgroups that exists now, with the kind of value it holds."""
    found = []
    for entry in plan['cgroups'].values():
        relative = (entry['systemd_path'] if plan['cgroup_driver'] == 'systemd' else entry['cgroupfs_path']).strip('/')
        tops = [tree.root] if tree.mode == 'v2' else [os.path.join(tree.root, h) for h in sorted(os.listdir(tree.root))]
        for top in tops:
            directory = os.path.join(top, relative)
            if os.path.isdir(directory):
                found += [os.path.join(directory, name) for name in sorted(os.listdir(directory))
                          if kind_of(name) and os.path.isfile(os.path.join(directory, name))]
    return found


def damage(tree, plan, data):
    """Change the node by hand in a few ways a node meets: kernel values, unit files, overrides, the boot
    script, the kubelet configuration. Returns what was done, for the failure message."""
    done = []
    files = managed_files(tree, plan)
    for path in data.draw(st.lists(st.sampled_from(files), max_size=3, unique=True), label='kernel files'):
        value = data.draw(HAND_VALUES[kind_of(os.path.basename(path))], label=path)
        with open(path, 'w') as handle:  # behind the fake kernel: no rounding, as a hand writes it
            handle.write(value + '\n')
        done.append('%s=%s' % (path, value))
    paths = tree.node_paths()
    if plan['cgroup_driver'] == 'systemd' and data.draw(st.booleans(), label='override'):
        unit = data.draw(st.sampled_from(sorted(e['systemd_unit'] for e in plan['cgroups'].values())), label='unit')
        tree.systemd.set_property(unit, 'MemoryMax', data.draw(st.sampled_from(['1G', '536870912', 'infinity'])))
        done.append('override ' + unit)
    if plan['cgroup_driver'] == 'systemd' and data.draw(st.booleans(), label='unit file'):
        unit = data.draw(st.sampled_from(sorted(e['systemd_unit'] for e in plan['cgroups'].values()
                                                if e['systemd_unit'] != 'system.slice')), label='removed unit')
        os.remove(os.path.join(paths['systemd_unit_dir'], unit))
        done.append('removed ' + unit)
    if data.draw(st.booleans(), label='boot script'):
        with open(paths['persist_script'], 'a') as handle:
            handle.write('# edited by hand\n')
        done.append('boot script edited')
    if data.draw(st.booleans(), label='kubelet config'):
        with open(paths['kubelet_config_paths'][0], 'a') as handle:
            handle.write('evictionHard: {memory.available: 1Gi}\n')
        done.append('kubelet config edited')
    return done


OPTIONS = st.tuples(
    st.sampled_from(['cgroupfs', 'systemd']),
    st.tuples(st.fixed_dictionaries({}, optional={'cpu': st.sampled_from(['100m', '500m', '1']),
                                                  'memory': st.sampled_from(['256Mi', '1Gi', '1500M']),
                                                  'pid': st.sampled_from(['1000', '5000'])}),
              st.fixed_dictionaries({}, optional={'cpu': st.sampled_from(['250m', '1']),
                                                  'memory': st.sampled_from(['512Mi', '2Gi'])})),
    st.booleans())


@pytest.mark.parametrize('mode', ['v2', 'v1', 'hybrid'])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=OPTIONS, data=st.data())
def test_the_audit_reports_exactly_what_check_mode_would_change(run_module, mode, options, data):
    base = tempfile.mkdtemp(prefix='one-truth-')
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            tree = FakeCgroupfs(_Path(base), mode, monkeypatch)
            args = node_options(tree, options)
            converged = run_module(node_cgroups, args)
            audit = audit_options(tree, args, converged['plan'])
            assert run_module(node_drift_info, audit)['drift'] == []
            assert not run_module(node_cgroups, args, check_mode=True)['changed']

            done = damage(tree, converged['plan'], data)
            checked = run_module(node_cgroups, args, check_mode=True)
            drift = run_module(node_drift_info, audit)['drift']
            # One entry per step check mode would take, in its order; nothing else is amiss on this node
            # but what systemd shows against its units (an override not yet removed).
            steps = [d for d in drift if d['check'] not in ('MemoryMax', 'MemoryLimit')]
            assert len(steps) == len(checked['changes']), (done, checked['changes'], drift)
            assert (drift == []) == (not checked['changed']), done

            repaired = run_module(node_cgroups, args)
            assert repaired['changes'] == checked['changes'], done
            assert run_module(node_drift_info, audit)['drift'] == [], done
            assert not run_module(node_cgroups, args, check_mode=True)['changed'], done
    finally:
        shutil.rmtree(base)


class _Path(str):
    """What FakeCgroupfs takes of pytest's tmp_path: str() and / ."""

    def __truediv__(self, other):
        return _Path(os.path.join(self, other))
