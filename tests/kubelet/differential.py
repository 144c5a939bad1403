# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The random differential: seeded random nodes, pods, quantities and KubeletConfiguration files, each through
the collection's code and through the kubelet judge (tests/kubelet, kubelet's own Go code of one release). Every
value compared; any disagreement fails.

    python differential.py --judge BINARY --release 1.37 --seed S --cases N [--show K]

Prints `kubelet judge (k8s.io/kubernetes vX.Y.Z): N cases, D disagreements` and, for the first K
disagreements, the case and both answers. What is not compared, and why, is in docs/testing.md.
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile

from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math as cgmath
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_names as names
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _kubelet_config as kc
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _pods
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _versions
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import (
    PlanOptions, parse_feature_gates, plan_node)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._feature_gates import KNOWN_FEATURE_GATES, known_to
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _admission as adm
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._impact import admission_rules
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._pods import parse_pod, plan_pods
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import parse_quantity

GI = 1 << 30
MI = 1 << 20
# The share of each kind of case, out of 100.
MIX = (('pod', 47), ('admission', 10), ('allocatable', 14), ('config', 11), ('quantity', 10), ('cgroup_name', 4),
       ('cpu', 4))


class Judge(object):
    """The judge binary, fed cases in one batch (it answers one JSON line per case)."""

    def __init__(self, binary):
        self.binary = binary

    def ask(self, cases):
        with tempfile.TemporaryDirectory(prefix='kubelet-judge-') as scratch:
            lines = ''.join(json.dumps(case) + '\n' for case in cases)
            done = subprocess.run([self.binary, '-scratch', scratch], input=lines, capture_output=True, text=True,
                                  check=False)
        if done.returncode != 0:
            raise SystemExit('kubelet judge failed (%d): %s' % (done.returncode, done.stderr[-2000:]))
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        if len(answers) != len(cases):
            raise SystemExit('kubelet judge answered %d of %d cases: %s'
                             % (len(answers), len(cases), done.stderr[-2000:]))
        return answers


# ---------------------------------------------------------------------------------------------------- generators

def _cpu(rng, whole=False):
    if whole or rng.random() < 0.4:
        return str(rng.randint(1, 4))
    return '%dm' % rng.choice([rng.randint(1, 3999), 100, 250, 500, 1500])


def _reserved_cpu(rng):
    """A CPU reservation, now and then finer than a millicore (kubelet rounds it to the nearest)."""
    if rng.random() < 0.2:
        return rng.choice(['%d.%04d' % (rng.randint(0, 1), rng.randint(0, 9999)), '%d.5m' % rng.randint(0, 500),
                           '%du' % rng.randint(1, 999999)])
    return _cpu(rng)


def _memory(rng):
    return rng.choice(['%dMi' % rng.randint(1, 4096), '%dGi' % rng.randint(1, 4), str(rng.randint(1, 1 << 32)),
                       '%dM' % rng.randint(1, 4000), '1Gi', '512Mi'])


def _resources(rng, hugepage_names, guaranteed=False):
    """A container's (or the pod's) requests and limits, valid as the API server accepts them."""
    requests, limits = {}, {}
    for name, make in (('cpu', _cpu), ('memory', _memory)):
        shape = 'both' if guaranteed else rng.choice(['none', 'request', 'limit', 'both', 'both', 'equal'])
        if shape == 'none':
            continue
        value = make(rng)
        if shape in ('request', 'both', 'equal'):
            requests[name] = value
        if shape in ('limit', 'equal') or guaranteed:
            limits[name] = value
        elif shape == 'both':
            limits[name] = _bigger(value)
    return _with_hugepages(rng, hugepage_names if requests or limits else (), requests, limits, 8)


def _with_hugepages(rng, hugepage_names, requests, limits, most_2mi_pairs):
    """{requests, limits} with, now and then, a hugepages limit and the equal request the API server demands."""
    if hugepage_names and rng.random() < 0.3:
        name = rng.choice(hugepage_names)
        amount = ('%dMi' % (2 * rng.randint(1, most_2mi_pairs)) if name == 'hugepages-2Mi'
                  else '%dGi' % rng.randint(1, 2))
        limits[name] = amount
        requests[name] = amount
    result = {}
    if requests:
        result['requests'] = requests
    if limits:
        result['limits'] = limits
    return result


def _bigger(value):
    quantity = parse_quantity(value)
    if value.endswith('m') or quantity.milli_value() < 1000 and 'i' not in value and 'M' not in value:
        return '%dm' % (quantity.milli_value() * 2)
    return str(quantity.value() * 2)


def _container(rng, name, hugepage_names, guaranteed):
    container = {'name': name, 'image': 'judge'}
    resources = _resources(rng, hugepage_names, guaranteed)
    if resources:
        container['resources'] = resources
    return container


def pod_case(rng, release, gates_info, machine):
    hugepage_names = ['hugepages-' + _page_name(size) for size in machine['hugepage_sizes']]
    guaranteed = rng.random() < 0.3
    containers = [_container(rng, 'app%d' % i, hugepage_names, guaranteed) for i in range(rng.randint(1, 3))]
    init = []
    for i in range(rng.choice([0, 0, 1, 2])):
        container = _container(rng, 'init%d' % i, hugepage_names, guaranteed)
        if rng.random() < 0.4:
            container['restartPolicy'] = 'Always'  # a sidecar
        init.append(container)
    spec = {'containers': containers}
    if init:
        spec['initContainers'] = init
    if rng.random() < 0.25:
        # Pod-level resources: at least what the containers request, so that the API server accepts the pod.
        spec['resources'] = _pod_level(rng, containers + init, hugepage_names, guaranteed)
    if rng.random() < 0.1:
        spec['overhead'] = {'cpu': '%dm' % rng.randint(1, 250), 'memory': '%dMi' % rng.randint(1, 128)}
    if rng.random() < 0.1:
        spec['priorityClassName'] = 'system-node-critical'
        spec['priority'] = 2000001000
    uid = '%08x-0000-4000-8000-%012x' % (rng.getrandbits(32), rng.getrandbits(48))
    pod = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'judge', 'namespace': 'default', 'uid': uid},
           'spec': spec}
    gates = {}
    for gate in ('PodLevelResources', 'MemoryQoS'):
        info = gates_info.get(gate)
        if info and not info['locked'] and rng.random() < 0.5:
            gates[gate] = rng.random() < 0.5
    gates = with_dependents(gates, gates_info)
    mode = rng.choice(['v1', 'v2', 'v2'])
    factor = rng.choice([None, None, 0.9, 0.8, 0.5, 1.0, round(rng.uniform(0.1, 1.0), 3)])
    memory_qos = gates.get('MemoryQoS', gates_info.get('MemoryQoS', {}).get('default', False))
    # kubelet's configuration validation refuses TieredReservation without MemoryQoS.
    policy = rng.choice([None, 'None'] + (['TieredReservation'] if memory_qos else [])) if _minor(release) >= 36 \
        else None
    period_ms = rng.choice([100, 100, 100, 50, 10]) if _minor(release) >= 36 else 100
    capacity = rng.choice([4, 8, 16, 64]) * GI
    allocatable = capacity - rng.choice([0, GI, 2 * GI])
    return {
        'params': {'kubelet_version': release, 'feature_gates': gates, 'cgroup_mode': mode, 'api_defaults': False,
                   'memory_capacity': capacity, 'allocatable_memory': allocatable,
                   'memory_throttling_factor': factor, 'memory_reservation_policy': policy,
                   'cpu_manager_policy': rng.choice(['none', 'static']), 'cpu_cfs_quota': rng.random() < 0.85,
                   'cpu_cfs_quota_period': '%dms' % period_ms,
                   'hugepage_sizes': [rng.choice([_page_name(size), 'hugepages-' + size, size])
                                      for size in machine['hugepage_sizes']], 'pods': [pod]},
        'judge': {'op': 'pod', 'pod': pod, 'gates': gates, 'cpuPeriodUs': period_ms * 1000,
                  'memoryCapacity': capacity, 'allocatableMemory': allocatable,
                  'memoryThrottlingFactor': factor, 'memoryReservationPolicy': policy or '',
                  'singleProcessOOMKill': None},
    }


def with_dependents(gates, gates_info):
    """The gates, with every gate that depends on one turned off turned off too (kubelet refuses to start
    otherwise); a gate whose dependent is locked on stays on."""
    result = dict(gates)
    for gate, value in gates.items():
        if value:
            continue
        dependents, queue = set(), [gate]
        while queue:
            name = queue.pop()
            for other, info in gates_info.items():
                if name in (info.get('needs') or ()) and other not in dependents:
                    dependents.add(other)
                    queue.append(other)
        if any(gates_info[d]['locked'] and gates_info[d]['default'] for d in dependents):
            result[gate] = True
            continue
        for name in dependents:
            if gates_info[name]['default']:
                result[name] = False
    return result


def _pod_level(rng, containers, hugepage_names, guaranteed):
    requests, limits = {}, {}
    for name in ('cpu', 'memory'):
        total = sum(parse_quantity(c.get('resources', {}).get('requests', {}).get(name, '0')).milli_value()
                    for c in containers)
        if rng.random() < 0.7:
            value = total + rng.choice([0, 0, 1000, 500]) * (1 if name == 'cpu' else MI)
            if value <= 0:
                value = 1000 if name == 'cpu' else 1000 * GI
            text = '%dm' % value if name == 'cpu' else str(value // 1000)
            requests[name] = text
            if guaranteed or rng.random() < 0.6:
                limits[name] = text if guaranteed or rng.random() < 0.5 else _bigger(text)
    return _with_hugepages(rng, hugepage_names, requests, limits, 16)


def _page_name(kernel_name):
    """2048kB (the kernel's) -> 2Mi, 1048576kB -> 1Gi."""
    kib = int(kernel_name.rstrip('kB'))
    return '%dGi' % (kib // (1 << 20)) if kib % (1 << 20) == 0 else '%dMi' % (kib // 1024)


def admission_case(rng, release, gates_info, machine):
    """The pods bound to a node kubelet restarts on, some static, some critical, created in an order with ties,
    against an Allocatable they may not fit in (kubelet's admission, _admission)."""
    hugepage_names = ['hugepages-' + _page_name(size) for size in machine['hugepage_sizes']]
    pods = []
    for index in range(rng.randint(1, 8)):
        guaranteed = rng.random() < 0.3
        containers = [_container(rng, 'app%d' % i, hugepage_names, guaranteed) for i in range(rng.randint(1, 2))]
        spec = {'containers': containers}
        if rng.random() < 0.3:
            init = _container(rng, 'init', hugepage_names, guaranteed)
            if rng.random() < 0.5:
                init['restartPolicy'] = 'Always'
            spec['initContainers'] = [init]
        if rng.random() < 0.2:
            spec['resources'] = _pod_level(rng, containers + spec.get('initContainers', []), hugepage_names,
                                           guaranteed)
        if rng.random() < 0.1:
            spec['overhead'] = {'cpu': '%dm' % rng.randint(1, 250), 'memory': '%dMi' % rng.randint(1, 128)}
        if rng.random() < 0.1:
            containers[0].setdefault('resources', {}).setdefault('requests', {})['example.com/device'] = '1'
            containers[0]['resources'].setdefault('limits', {})['example.com/device'] = '1'
        metadata = {'name': 'pod%d' % index, 'namespace': 'default',
                    'uid': '%08x-0000-4000-8000-%012x' % (rng.getrandbits(32), index),
                    'creationTimestamp': '2026-11-26T10:%02d:00Z' % rng.randint(0, 5)}
        if rng.random() < 0.25:
            metadata['annotations'] = {'kubernetes.io/config.source': 'file'}
        roll = rng.random()
        if roll < 0.15:
            spec['priorityClassName'], spec['priority'] = 'system-node-critical', 2000001000
        elif roll < 0.4:
            spec['priority'] = rng.choice([0, 100, 1000000])
        pods.append({'apiVersion': 'v1', 'kind': 'Pod', 'metadata': metadata, 'spec': spec})
    gates = {}
    info = gates_info.get('PodLevelResources')
    if info and not info['locked'] and rng.random() < 0.5:
        gates['PodLevelResources'] = rng.random() < 0.5
    gates = with_dependents(gates, gates_info)
    allocatable = {'cpu': '%dm' % rng.choice([500, 2000, 3900, 8000, rng.randint(100, 16000)]),
                   'memory': str(rng.choice([1, 2, 4, 8, 16]) * GI - rng.randint(0, 512) * MI),
                   'ephemeral-storage': str(rng.randint(1, 100) * GI), 'pods': str(rng.randint(2, 10))}
    for name in hugepage_names:
        allocatable[name] = rng.choice(['0', '0', str(rng.randint(1, 64) * 2 * MI), str(GI)])
    if rng.random() < 0.1:
        allocatable['example.com/device'] = str(rng.randint(0, 2))
    return {'params': {'kubelet_version': release, 'feature_gates': gates, 'allocatable': allocatable,
                       'pods': pods},
            'judge': {'op': 'admission', 'gates': gates, 'allocatable': allocatable, 'pods': pods}}


def _minor(release):
    return int(release.split('.')[1])


EVICTION_SIGNALS = ('memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available',
                    'imagefs.inodesFree', 'pid.available')


def _eviction_map(rng):
    result = {}
    for signal in rng.sample(EVICTION_SIGNALS, rng.randint(0, 4)):
        if rng.random() < 0.5:
            result[signal] = '%s%%' % rng.choice(['5', '10', '15', '7.5', str(round(rng.uniform(0, 40), 2))])
        elif signal == 'memory.available':
            result[signal] = rng.choice(['100Mi', '500Mi', '1Gi', '%dMi' % rng.randint(1, 2000)])
        elif 'inodes' in signal or signal == 'pid.available':
            result[signal] = str(rng.randint(1, 100000))
        else:
            result[signal] = rng.choice(['1Gi', '10Gi', '%dMi' % rng.randint(1, 20000)])
    return result


def allocatable_case(rng, release, gates_info, machine):
    memory = rng.choice(['4Gi', '16Gi', '64Gi', '%dMi' % rng.randint(1024, 300000)])
    capacity = {'cpu': str(rng.choice([1, 2, 4, 8, 16, 48, 96])), 'memory': memory,
                'ephemeral-storage': rng.choice(['20Gi', '100Gi', '%dGi' % rng.randint(10, 2000)]),
                'pid': str(rng.choice([32768, 4194304]))}
    if rng.random() < 0.3:
        capacity['hugepages-2Mi'] = '%dMi' % (2 * rng.randint(0, 512))
    if rng.random() < 0.1:
        capacity['hugepages-1Gi'] = '%dGi' % rng.randint(0, 4)
    reserved = {}
    for scope in ('system', 'kube'):
        reserved[scope] = {}
        for name in rng.sample(['cpu', 'memory', 'ephemeral-storage', 'pid'], rng.randint(0, 4)):
            reserved[scope][name] = {'cpu': lambda: _reserved_cpu(rng), 'memory': lambda: _memory(rng),
                                     'ephemeral-storage': lambda: '%dMi' % rng.randint(1, 5000),
                                     'pid': lambda: str(rng.randint(1, 2000))}[name]()
    eviction = _eviction_map(rng)
    return {'options': dict(capacity=capacity, system_reserved=reserved['system'], kube_reserved=reserved['kube'],
                            eviction_hard=eviction, kubelet_version=release),
            'judge': {'op': 'allocatable', 'capacity': dict((k, v) for k, v in capacity.items() if k != 'pid'),
                      'systemReserved': reserved['system'], 'kubeReserved': reserved['kube'],
                      'evictionHard': eviction, 'maxPods': 110},
            'internal_capacity': capacity}


QUANTITY_TEXTS = ('0', '1', '100m', '1.5', '1.5Gi', '0.5Mi', '1e3', '1E3', '1e-3', '12345678901234567890', '1Ki',
                  '1k', '1K', '-1', '+1', '1.', '.5', '1.0000000001', '5e9m', '1Pi', '1Ei', '8Ei', '9Ei', 'abc', '',
                  '1 Gi', '1Gb', '1.5e3Mi', '0.1m', '1n', '1u', '100Mi', '1023Ki', '1024Ki', '1.2345m', '001')


def quantity_case(rng, release, gates_info, machine):
    if rng.random() < 0.5:
        text = rng.choice(QUANTITY_TEXTS)
    else:
        number = rng.choice([str(rng.randint(0, 10 ** rng.randint(1, 12))),
                             '%d.%d' % (rng.randint(0, 9999), rng.randint(0, 999999)),
                             '%de%d' % (rng.randint(1, 99), rng.randint(-4, 12))])
        text = number + rng.choice(['', '', 'm', 'k', 'M', 'G', 'T', 'Ki', 'Mi', 'Gi', 'Ti', 'n', 'u', 'P', 'E'])
    return {'text': text, 'judge': {'op': 'quantity', 'text': text}}


def cgroup_name_case(rng, release, gates_info, machine):
    words = ['kubepods', 'burstable', 'besteffort', 'system', 'kube', 'a-b', 'k8s.io']
    parts = [rng.choice(words + ['pod%08x-1a2b' % rng.getrandbits(32)]) for _index in range(rng.randint(1, 4))]
    return {'parts': parts, 'judge': {'op': 'cgroup_name', 'components': parts}}


def cpu_case(rng, release, gates_info, machine):
    milli = rng.choice([0, 1, 2, 9, 10, 11, rng.randint(0, 200000), 262144000, 263000000])
    period = rng.choice([100000, 1000, 1000000, rng.randint(1000, 1000000)])
    return {'milli': milli, 'period': period, 'judge': {'op': 'cpu', 'milliCPU': milli, 'period': period}}


CONFIG_CHOICES = {
    'systemReserved': lambda rng: rng.choice([{'cpu': '500m', 'memory': '1Gi'}, {'memory': '1.5Gi', 'pid': '1000'},
                                              {'cpu': 'x'}, {'cpu': '-1'}, {'foo': '1'}, {'ephemeral-storage': '1Gi'}]),
    'kubeReserved': lambda rng: rng.choice([{'cpu': '100m'}, {'memory': '256Mi'}, {'cpu': '1e3m'}, {'memory': '1Gb'}]),
    'evictionHard': lambda rng: rng.choice([{'memory.available': '100Mi'}, {'nodefs.available': '10%'},
                                            {'memory.available': '110%'}, {'nodefs.available': '-5%'},
                                            {'bogus.signal': '1'}, {'memory.available': '0'}, {'pid.available': '5%'}]),
    'enforceNodeAllocatable': lambda rng: rng.choice([['pods'], ['pods', 'system-reserved'], ['pods', 'kube-reserved'],
                                                      ['none'], ['pods', 'none'], [], ['bogus'],
                                                      ['pods', 'system-reserved-compressible']]),
    'systemReservedCgroup': lambda rng: rng.choice(['/system.slice', '/system', 'system.slice', '']),
    'kubeReservedCgroup': lambda rng: rng.choice(['/kube.slice', '/kube', '/podruntime.slice', '']),
    'cgroupDriver': lambda rng: rng.choice(['systemd', 'cgroupfs', 'bogus']),
    'cgroupsPerQOS': lambda rng: rng.random() < 0.8,
    'cgroupRoot': lambda rng: rng.choice(['/', '', '/custom', 'relative']),
    'maxPods': lambda rng: rng.choice([110, 0, -1, 250]),
    'memoryThrottlingFactor': lambda rng: rng.choice([0.9, 0.5, 1.0, 0.0, 1.5, -0.1]),
    'cpuCFSQuotaPeriod': lambda rng: rng.choice(['100ms', '50ms', '2s', '100us']),
    'podPidsLimit': lambda rng: rng.choice([1024, -1, 0, 4194304]),
    'reservedSystemCPUs': lambda rng: rng.choice(['0', '0-1', '0,2', 'x', '']),
    'qosReserved': lambda rng: rng.choice([{'memory': '50%'}, {'memory': '150%'}, {'cpu': '50%'}]),
    'featureGates': lambda rng: rng.choice([{'MemoryQoS': True}, {'NotAGate': True}, {'PodLevelResources': False},
                                            {'NodeSwap': False}]),
    'memoryReservationPolicy': lambda rng: rng.choice(['None', 'TieredReservation', 'Bogus']),
    'cpuCFSQuota': lambda rng: rng.random() < 0.5,
}


def config_case(rng, release, gates_info, machine):
    settings = {'failCgroupV1': False}  # the judge's machine is a cgroup v1 host (see docs/testing.md)
    for key in rng.sample(sorted(CONFIG_CHOICES), rng.randint(1, 6)):
        settings[key] = CONFIG_CHOICES[key](rng)
    document = kc.apply_settings({}, settings)
    text = kc.dump(document)
    return {'settings': settings, 'text': text, 'judge': {'op': 'config', 'text': text}}


GENERATORS = {'pod': pod_case, 'admission': admission_case, 'allocatable': allocatable_case, 'quantity': quantity_case,
              'cgroup_name': cgroup_name_case, 'cpu': cpu_case, 'config': config_case}


# ---------------------------------------------------------------------------------------------------- the collection

def _refused(function, *args):
    try:
        return function(*args), None
    except KubenodeError as error:
        return None, str(error)


def ours_pod(case):
    result, error = _refused(plan_pods, case['params'])
    if error:
        return {'refused': error}
    pod = result['pods'][0]
    resources = pod['resources']
    page_bytes = dict((cgmath.hugepage_unit(size), size) for size in _node_page_bytes(case))
    answer = {'qos_class': pod['qos_class'], 'pod': {
        'cpu_shares': resources.get('cpu_shares'), 'cpu_quota': resources.get('cpu_quota'),
        'cpu_period': resources.get('cpu_period'), 'memory': resources.get('memory'),
        'hugetlb': dict((str(page_bytes[unit]), limit) for unit, limit in (resources.get('hugetlb') or {}).items()),
        'unified': _pod_unified(resources)}}
    answer['containers'] = []
    for container in pod['containers']:
        answer['containers'].append({
            'name': container['name'], 'cpu_shares': container['cpu_shares'],
            'cpu_quota': container['cpu_quota'] or 0, 'cpu_period': container['cpu_period'] or 0,
            'memory_limit': container['memory_limit'] or 0, 'oom_score_adj': container['oom_score_adj'],
            'hugetlb': container['hugetlb'], 'exclusive_cpus': container['exclusive_cpus'],
            'unified': _container_unified(container)})
    return answer


def _node_page_bytes(case):
    return [int(size[:-2]) * 1024 if size.endswith('kB') else parse_quantity(size).value()
            for size in (name.replace('hugepages-', '') for name in case['params']['hugepage_sizes'])]


def _pod_unified(resources):
    unified = {}
    for key, name in (('memory_min', 'memory.min'), ('memory_low', 'memory.low'), ('memory_high', 'memory.high')):
        if resources.get(key) is not None:
            unified[name] = str(resources[key])
    return unified


def _container_unified(container):
    unified = {}
    for key, name in (('memory_min', 'memory.min'), ('memory_low', 'memory.low'), ('memory_high', 'memory.high')):
        if container.get(key) is not None:
            unified[name] = str(container[key])
    if container.get('memory_oom_group'):
        unified['memory.oom.group'] = '1'
    return unified


def ours_allocatable(case):
    plan, error = _refused(plan_node, PlanOptions(**case['options']))
    if error:
        return {'refused': error}

    def values(report):
        return dict((k, v['value']) for k, v in report.items())  # CPU in millicores, the rest in units
    kubepods = plan.cgroup('kubepods').resources
    return {'reservation': values(plan.reservation), 'allocatable': values(plan.allocatable),
            'absolute': values(plan.allocatable_absolute),
            'kubepods': {'cpu_shares': kubepods.get('cpu_shares'), 'memory': kubepods.get('memory'),
                         'pids': kubepods.get('pids')},
            'eviction_reservation': values(plan.eviction_part('reservation'))}


def ours_quantity(case):
    try:
        quantity = parse_quantity(case['text'])
    except KubenodeError as error:
        return {'refused': str(error)}
    return {'string': str(quantity), 'value': quantity.value(), 'milli': quantity.milli_value()}


def ours_config(case):
    try:
        kc.check_settings(case['settings'])
        document = kc.parse(case['text'], 'config')
        kc.validate(document, case['release'])
    except KubenodeError as error:
        return {'refused': str(error)}
    return {'accepted': True}


# ---------------------------------------------------------------------------------------------------- comparisons

def compare_pod(case, ours, theirs):
    if 'error' in theirs:
        return ['the judge could not answer: %s' % theirs['error']]
    if 'refused' in ours:
        return ['the collection refused a pod kubelet runs: %s' % ours['refused']]
    found = []
    if ours['qos_class'] != theirs['qos_class']:
        found.append('qos_class: ours %s, kubelet %s' % (ours['qos_class'], theirs['qos_class']))
    kubelet_pod = theirs['pod'] or {}
    for key in ('cpu_shares', 'cpu_quota', 'cpu_period', 'memory'):
        if ours['pod'][key] != kubelet_pod.get(key):
            found.append('pod %s: ours %r, kubelet %r' % (key, ours['pod'][key], kubelet_pod.get(key)))
    if ours['pod']['hugetlb'] != (kubelet_pod.get('hugetlb') or {}):
        found.append('pod hugetlb: ours %r, kubelet %r' % (ours['pod']['hugetlb'], kubelet_pod.get('hugetlb')))
    if ours['pod']['unified'] != (kubelet_pod.get('unified') or {}):
        found.append('pod unified: ours %r, kubelet %r' % (ours['pod']['unified'], kubelet_pod.get('unified')))
    judged_unified = _unified_judged(case)
    for mine, kubelet in zip(ours['containers'], theirs['containers']):
        for key in ('cpu_shares', 'cpu_quota', 'cpu_period', 'memory_limit', 'oom_score_adj', 'hugetlb',
                    'exclusive_cpus'):
            if mine[key] != (kubelet.get(key) if key != 'hugetlb' else kubelet.get(key) or {}):
                found.append('container %s %s: ours %r, kubelet %r' % (mine['name'], key, mine[key], kubelet.get(key)))
        if judged_unified:
            kubelet_unified = dict(kubelet.get('unified') or {})
            mine_unified = dict(mine['unified'])
            mine_unified.pop('memory.oom.group', None)  # host-dependent in kubelet (see docs/testing.md)
            kubelet_unified.pop('memory.oom.group', None)
            if mine_unified != kubelet_unified:
                found.append('container %s unified: ours %r, kubelet %r'
                             % (mine['name'], mine_unified, kubelet_unified))
    if len(ours['containers']) != len(theirs['containers']):
        found.append('containers: ours %d, kubelet %d' % (len(ours['containers']), len(theirs['containers'])))
    return found


def _unified_judged(case):
    """Whether the containers' memory.min/low/high can be judged on this machine: with MemoryQoS enforced (the gate on
    a cgroup v2 node) kubelet's answer does not depend on the judge's host; with it off, kubelet 1.37 sends
    memory.high=max only when its own host is cgroup v2 (isCgroup2UnifiedMode), which the judge's is not."""
    params = case['params']
    return params['cgroup_mode'] == 'v1' or case['judge']['memoryQoS']


def compare_allocatable(case, ours, theirs):
    if 'error' in theirs:
        return [] if 'refused' in ours else ['kubelet refuses (%s), the collection plans' % theirs['error']]
    if theirs.get('exceeds_capacity'):
        if 'refused' in ours and 'Expected capacity >= reservation' in ours['refused']:
            return []
        return ['kubelet refuses to start (%s reserved above capacity), the collection %s'
                % (', '.join(theirs['exceeds_capacity']), ours.get('refused') or 'plans')]
    if 'refused' in ours:
        return ['the collection refused what kubelet accepts: %s' % ours['refused']]
    found = []
    for part in ('reservation', 'allocatable', 'absolute'):
        kubelet = dict((name, _value(name, q)) for name, q in theirs[part].items() if name != 'pods')
        mine = dict((name, v) for name, v in ours[part].items() if name != 'pid')
        if mine != kubelet:
            found.append('%s: ours %r, kubelet %r' % (part, mine, kubelet))
    kubepods = theirs['kubepods'] or {}
    for key in ('cpu_shares', 'memory'):
        if ours['kubepods'][key] != kubepods.get(key):
            found.append('kubepods %s: ours %r, kubelet %r' % (key, ours['kubepods'][key], kubepods.get(key)))
    return found


def _value(name, quantity):
    """The collection reports CPU in millicores, everything else in units."""
    return quantity['milli'] if name == 'cpu' else quantity['value']


def compare_quantity(case, ours, theirs):
    if ('refused' in ours) != ('error' in theirs):
        return ['%r: ours %r, kubelet %r' % (case['text'], ours, theirs)]
    if 'error' in theirs:
        return []
    found = []
    # Go's MilliValue wraps around past int64 (1 << 63 milli-units): kubelet's figure there is no value at all.
    # Value wraps likewise past 1 << 63 units.
    keys = ('string',) + tuple(key for key in ('value', 'milli') if abs(ours[key]) < 1 << 63)
    for key in keys:
        if ours[key] != theirs[key]:
            found.append('%r %s: ours %r, kubelet %r' % (case['text'], key, ours[key], theirs[key]))
    return found


def compare_cgroup_name(case, ours, theirs):
    found = []
    mine = {'systemd': names.to_systemd(case['parts']), 'cgroupfs': names.to_cgroupfs(case['parts'])}
    for key in ('systemd', 'cgroupfs'):
        if mine[key] != theirs.get(key):
            found.append('%r %s: ours %r, kubelet %r' % (case['parts'], key, mine[key], theirs.get(key)))
    return found


def compare_cpu(case, ours, theirs):
    # The judge sets no gate: the period counts where CustomCPUCFSQuotaPeriod is on by default (1.36 and later).
    custom = kubelet_rules(case['release']).gate({}, 'CustomCPUCFSQuotaPeriod')
    mine = {'shares': cgmath.milli_cpu_to_shares(case['milli']),
            'quota': cgmath.milli_cpu_to_quota(case['milli'], case['period'], custom_period=custom)}
    return ['%s(%d, %d): ours %r, kubelet %r' % (key, case['milli'], case['period'], mine[key], theirs.get(key))
            for key in ('shares', 'quota') if mine[key] != theirs.get(key)]


def compare_config(case, ours, theirs, stricter):
    kubelet_accepts = theirs.get('stage') == 'accepted' and not theirs.get('strict_error')
    if 'accepted' in ours and not kubelet_accepts:
        return ['the collection writes a configuration kubelet refuses (%s: %s)' % (
            theirs.get('stage'), theirs.get('strict_error') or theirs.get('error'))]
    if 'refused' in ours and kubelet_accepts:
        stricter.append(ours['refused'])
    return []


def gate_cases(rules, gates_info):
    """One case per gate kubelet registers: the gate set to the value it does not have by default."""
    return [{'op': 'set_gates', 'gates': {name: not info['default']}, 'judge': {'op': 'set_gates',
                                                                                'gates': {name: not info['default']}}}
            for name, info in sorted(gates_info.items())]


def ours_gates(case):
    try:
        parse_feature_gates(case['gates'], 'featureGates', kubelet_rules(case['release']))
    except KubenodeError as error:
        return {'refused': str(error)}
    return {'accepted': True}


def compare_gates(case, ours, theirs):
    if ('refused' in ours) != ('error' in theirs):
        return ['featureGates %r: ours %s, kubelet %s' % (case['gates'], ours.get('refused') or 'accepted',
                                                          theirs.get('error') or 'accepted')]
    return []


def registry_disagreements(release, gates_info):
    """The collection's view of kubelet's gate registry of the release against the registry itself."""
    rules = kubelet_rules(release)
    minor = rules.minor
    found = []
    ours = set(name for name in KNOWN_FEATURE_GATES if known_to(name, minor))
    for name in sorted(set(gates_info) - ours):
        found.append('feature gate %s: kubelet %s knows it, the collection does not' % (name, release))
    for name in sorted(ours - set(gates_info)):
        found.append('feature gate %s: the collection knows it for %s, kubelet does not' % (name, release))
    for name, default in sorted(rules.gate_defaults.items()):
        if name in gates_info and gates_info[name]['default'] != default:
            found.append('feature gate %s: default ours %s, kubelet %s' % (name, default, gates_info[name]['default']))
    return found


def ours_admission(case):
    params = case['params']
    rules = kubelet_rules(params['kubelet_version'])
    gates = parse_feature_gates(params['feature_gates'], rules=rules)
    allocatable = dict((name, adm._integer(name, parse_quantity(text))) for name, text in params['allocatable'].items())
    candidates = []
    for data in params['pods']:
        pod = parse_pod(data, data['metadata']['name'])
        static = (data['metadata'].get('annotations') or {}).get('kubernetes.io/config.source') == 'file'
        candidates.append(adm.Candidate(pod, 'file' if static else 'api', created=data['metadata']['creationTimestamp'],
                                        running=True, uid=data['metadata'].get('uid')))
    rules = admission_rules(rules, gates)
    results = adm.admit(candidates, allocatable, rules)
    return {'order': [r['pod'].split('/', 1)[1] for r in results],
            'results': dict((r['pod'].split('/', 1)[1], r) for r in results)}


def _requirement_entries(message):
    return sorted(re.findall(r'\(res: [^,]+, q: -?[0-9]+\)', message or ''))


def _scalar_order_only(key, our, their):
    """Whether ours and kubelet's differ only by the order kubelet visits the scalar resources in (a Go map): the
    first short scalar it names is any of the short ones, and its preemption requirements come in any order."""
    native = ('OutOfcpu', 'OutOfmemory', 'OutOfephemeral-storage', 'OutOfpods')
    if key in ('reason', 'message') and their.get('reason', '').startswith('OutOf') and \
            their.get('reason') not in native and our.get('reason') not in native:
        return their['reason'][len('OutOf'):] in (our.get('insufficient') or [])
    if key == 'message' and their.get('reason') == adm.UNEXPECTED_ADMISSION_ERROR == our.get('reason'):
        return _requirement_entries(our.get('message')) == _requirement_entries(their.get('message'))
    return False


def compare_admission(case, ours, theirs):
    if 'error' in theirs:
        return ['the judge refused the case: %s' % theirs['error']]
    found = []
    if ours['order'] != theirs['order']:
        found.append('order: ours %s, kubelet %s' % (ours['order'], theirs['order']))
    for name, their in sorted(theirs['results'].items()):
        our = ours['results'].get(name) or {}
        for key in ('admitted', 'reason', 'message'):
            if key == 'message' and their.get('reason') == 'Preempting':
                continue
            if _scalar_order_only(key, our, their):
                continue
            if our.get(key) != their.get(key):
                found.append('%s %s: ours %r, kubelet %r' % (name, key, our.get(key), their.get(key)))
        if their.get('reason') != 'Preempting':
            ours_out = sorted(p.split('/', 1)[1] for p in our.get('preempts') or [])
            if ours_out != (their.get('preempts') or []):
                found.append('%s preempts: ours %s, kubelet %s' % (name, ours_out, their.get('preempts')))
    return found


COMPARE = {'set_gates': compare_gates, 'pod': compare_pod, 'admission': compare_admission,
           'allocatable': compare_allocatable, 'quantity': compare_quantity, 'cgroup_name': compare_cgroup_name,
           'cpu': compare_cpu}
OURS = {'set_gates': ours_gates, 'pod': ours_pod, 'admission': ours_admission, 'allocatable': ours_allocatable,
        'quantity': ours_quantity, 'config': ours_config, 'cgroup_name': lambda case: {}, 'cpu': lambda case: {}}


# Rules of the collection broken on purpose (--mutant): the differential must catch each one.
def _rule_off(name):
    def apply():
        original = _versions.KubeletRules.__init__

        def broken(self, minor):
            original(self, minor)
            setattr(self, name, False)
        _versions.KubeletRules.__init__ = broken
    return apply


def _init_containers_hold_no_cpus():
    _pods.pod_has_exclusive_cpus = lambda pod, qos, settings: any(
        _pods.exclusive_cpus(pod, c, qos, settings) for c in pod.containers + pod.init_containers
        if not c.init or c.sidecar)


def _containers_ignore_pod_level_hugepages():
    original = _pods.container_hugetlb

    def broken(pod, container, settings):
        saved, pod.limits = pod.limits, {}
        try:
            return original(pod, container, settings)
        finally:
            pod.limits = saved
    _pods.container_hugetlb = broken


def _static_pods_have_a_priority():
    def broken(preemptor, preemptee):
        return (_pods.is_critical(preemptor) and not _pods.is_critical(preemptee)) or \
            preemptor.priority > preemptee.priority
    adm.preemptable = broken


MUTANTS = {
    'memory-high-without-request': _rule_off('memory_high_without_request'),
    'reserved-cpu-rounding': _rule_off('rounds_reserved_cpu'),
    'init-containers-hold-no-cpus': _init_containers_hold_no_cpus,
    'containers-ignore-pod-level-hugepages': _containers_ignore_pod_level_hugepages,
    'static-pods-have-a-priority': _static_pods_have_a_priority,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--judge', required=True)
    parser.add_argument('--release', required=True, help='the collection release rules to plan with, e.g. 1.37')
    parser.add_argument('--seed', type=int, default=None)
    parser.add_argument('--cases', type=int, default=2000)
    parser.add_argument('--show', type=int, default=10)
    parser.add_argument('--dump', help='write every disagreeing case (judge input, ours, kubelet) to this JSON file')
    parser.add_argument('--mutant', choices=sorted(MUTANTS),
                        help='break this rule of the collection first: the run passes only if the judge catches it')
    args = parser.parse_args(argv)
    if args.mutant:
        MUTANTS[args.mutant]()
    seed = args.seed if args.seed is not None else random.SystemRandom().randint(1, 1 << 31)
    rng = random.Random(seed)
    judge = Judge(args.judge)
    info = judge.ask([{'id': 0, 'op': 'release'}])[0]
    weights = [weight for _op, weight in MIX]
    cases = []
    for index in range(args.cases):
        op = rng.choices([op for op, _w in MIX], weights)[0]
        case = GENERATORS[op](rng, args.release, info['gates'], info['machine'])
        case['op'], case['release'] = op, args.release
        case['judge']['id'] = index + 1
        cases.append(case)
    for case in gate_cases(kubelet_rules(args.release), info['gates']):
        case['release'] = args.release
        case['judge']['id'] = len(cases) + 1
        cases.append(case)
    # Pods as the API server stores them (its defaults and PrepareForCreate, the judge's store op): what kubelet gets.
    pod_cases = [case for case in cases if case['op'] == 'pod']
    stored = judge.ask([{'id': case['judge']['id'], 'op': 'store', 'pod': case['judge']['pod'],
                         'gates': case['judge']['gates']} for case in pod_cases])
    for case, answer in zip(pod_cases, stored):
        if 'pod' not in answer:
            raise SystemExit('kubelet judge: the API server would not store %s: %s' % (case['judge']['pod'], answer))
        case['judge']['pod'] = answer['pod']
        case['params']['pods'] = [answer['pod']]
    for case in cases:
        if case['op'] == 'pod':
            params = case['params']
            gates = dict(case['judge']['gates'])
            memory_qos = gates.get('MemoryQoS', info['gates'].get('MemoryQoS', {}).get('default', False))
            case['judge'].update(memoryQoS=bool(memory_qos) and params['cgroup_mode'] == 'v2',
                                 cpuCFSQuota=params['cpu_cfs_quota'], cpuManagerPolicy=params['cpu_manager_policy'])
    answers = judge.ask([case['judge'] for case in cases])
    disagreements, stricter, counts = [], [], {}
    registry = registry_disagreements(args.release, info['gates'])
    if registry:
        disagreements.append(({'op': 'registry', 'judge': {'id': 0}}, registry, None, None))
    for case, theirs in zip(cases, answers):
        counts[case['op']] = counts.get(case['op'], 0) + 1
        if 'panic' in theirs:
            disagreements.append((case, ['the judge panicked: %s' % theirs['panic']], None, theirs))
            continue
        ours = OURS[case['op']](case)
        if case['op'] == 'config':
            found = compare_config(case, ours, theirs, stricter)
        else:
            found = COMPARE[case['op']](case, ours, theirs)
        if found:
            disagreements.append((case, found, ours, theirs))
    if args.dump:
        with open(args.dump, 'w') as handle:
            json.dump([{'case': case, 'found': found, 'ours': ours, 'theirs': theirs}
                       for case, found, ours, theirs in disagreements], handle, indent=1, default=str)
    for case, found, ours, theirs in disagreements[:args.show]:
        print('--- disagreement in a %s case (id %d)' % (case['op'], case['judge']['id']))
        for line in found:
            print('    ' + line)
        print('    case: ' + json.dumps(case['judge'], sort_keys=True)[:3000])
        if case['op'] == 'pod':
            params = dict((k, v) for k, v in case['params'].items() if k != 'pods')
            print('    params: ' + json.dumps(params, sort_keys=True))
    print('seed %d; cases by kind: %s; configurations the collection refuses and kubelet accepts: %d'
          % (seed, ', '.join('%s %d' % item for item in sorted(counts.items())), len(stricter)))
    if args.mutant:
        print('kubelet judge (k8s.io/kubernetes %s), mutant %s: %s (%d disagreements in %d cases)'
              % (info['release'], args.mutant, 'caught' if disagreements else 'NOT CAUGHT', len(disagreements),
                 len(cases) + 1))
        return 0 if disagreements else 1
    print('kubelet judge (k8s.io/kubernetes %s): %d cases, %d disagreements'
          % (info['release'], len(cases) + 1, len(disagreements)))
    return 1 if disagreements else 0


if __name__ == '__main__':
    sys.exit(main())
