# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import struct

import pytest

from ansible_collections.kubenode.cgroups.plugins.modules import allocatable_info

from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ANSIBLE_NUL_REFUSAL, ModuleFail

NODE = {'capacity': {'cpu': '4', 'memory': '16Gi', 'ephemeral-storage': '100Gi', 'pid': '4194304',
                     'hugepages-2Mi': '1Gi', 'hugepages-1Gi': '0'}}


def plan(run_module, **args):
    merged = dict(NODE)
    merged.update(args)
    return run_module(allocatable_info, merged)


def q(section, name):
    return section[name]['quantity']


def test_default_plan_uses_kubelet_defaults(run_module):
    result = plan(run_module)
    assert result['changed'] is False
    assert result['eviction']['hard'] == {'memory.available': '100Mi', 'nodefs.available': '10%',
                                          'nodefs.inodesFree': '5%', 'imagefs.available': '15%',
                                          'imagefs.inodesFree': '5%'}
    # 10% of 100Gi through float32: 107374182400 * float32(0.1) = 10737418240 + 160.
    assert result['eviction']['reservation']['ephemeral-storage']['value'] == 10737418400
    # hugepages come out of memory: 16Gi - 100Mi - 1Gi.
    assert q(result['allocatable'], 'memory') == '15260Mi'
    assert 'pid' not in result['allocatable'] and 'pid' in result['allocatable_absolute']
    kubepods = result['cgroups']['kubepods']
    assert kubepods['resources']['memory'] == 16 * 1024 ** 3  # no eviction term, nothing reserved
    assert kubepods['v1_files']['hugetlb.2MB.limit_in_bytes'] == str(1 << 62)
    assert kubepods['v2_files']['pids.max'] == '4194304'
    assert result['cgroups']['besteffort']['v1_files']['cpu.shares'] == '2'
    assert result['cgroups']['burstable']['v2_files']['cpu.weight'] == '1'
    assert result['cgroups']['burstable']['cgroupfs_path'] == '/kubepods/burstable'


def test_check_mode_gives_the_same_plan(run_module):
    assert plan(run_module) == run_module(allocatable_info, NODE, check_mode=True)


def test_percentages_are_float32(run_module):
    result = plan(run_module, capacity={'memory': '8Gi'}, eviction_hard={'memory.available': '10%'})
    assert result['reservation']['memory']['value'] == 858993472  # exact 10% is 858993459.2
    result = plan(run_module, capacity={'memory': '8Gi'}, eviction_hard={'memory.available': '100.0%'})
    assert result['allocatable']['memory']['value'] == 0
    for ignored in ('0%', '100%'):
        result = plan(run_module, capacity={'memory': '8Gi'}, eviction_hard={'memory.available': ignored})
        assert result['reservation'] == {}


def test_flag_form_and_merge_defaults(run_module):
    result = plan(run_module, eviction_hard='memory.available<500Mi,nodefs.available<5%',
                  keep_default_eviction_signals=False)
    assert result['eviction']['hard'] == {'memory.available': '500Mi', 'nodefs.available': '5%'}
    merged = plan(run_module, eviction_hard={'memory.available': '500Mi'}, merge_default_eviction_settings=True)
    assert merged['eviction']['hard']['memory.available'] == '500Mi'
    assert merged['eviction']['hard']['imagefs.available'] == '15%'
    older = plan(run_module, kubelet_version='1.29')
    assert 'imagefs.inodesFree' not in older['eviction']['hard']


def test_pods_enforcement_and_reserved_cgroups(run_module):
    result = plan(run_module, cgroup_driver='systemd', system_reserved={'cpu': '500m', 'memory': '1Gi', 'pid': '1000'},
                  kube_reserved={'cpu': '250m', 'memory': '512Mi'},
                  enforce_node_allocatable=['pods', 'system-reserved', 'kube-reserved-compressible'],
                  system_reserved_cgroup='/system.slice', kube_reserved_cgroup='/kube.slice/kube-reserved.slice')
    cgroups = result['cgroups']
    assert cgroups['kubepods']['path'] == '/kubepods.slice'
    assert cgroups['kubepods']['resources']['cpu_shares'] == 3328  # 3250m
    assert cgroups['kubepods']['resources']['memory'] == (16 * 1024 - 1536) * 1024 ** 2
    system = cgroups['system_reserved']
    assert system['path'] == '/system.slice' and system['enforced'] is True
    assert system['v1_files']['memory.limit_in_bytes'] == str(1024 ** 3)
    assert system['v2_files']['pids.max'] == '1000'
    assert system['v2_files']['hugetlb.2MB.max'] == '0'
    # kubelet's values (memory.min the reservation with MemoryQoS, on by default in 1.37; every CPU with the none CPU
    # manager policy, PR #125923), and memory.low and the swap limit at the kernel's defaults: the collection owns them
    assert system['systemd_properties']['v2'] == {'CPUWeight': '20', 'MemoryMax': '1073741824', 'TasksMax': '1000',
                                                  'MemoryMin': '1073741824', 'MemoryLow': '0', 'MemorySwapMax': 'infinity',
                                                  'AllowedCPUs': '0-3'}
    assert system['owned_defaults'] == ['memory.low', 'memory.swap.max']
    assert system['resources']['memory_min'] == 1024 ** 3
    kube = cgroups['kube_reserved']
    assert kube['path'] == '/kube.slice/kube-reserved.slice' and kube['enforcement'] == 'kube-reserved-compressible'
    assert kube['v1_files'] == {'cpu.shares': '256', 'cpuset.cpus': '0-3'}


def test_pods_not_enforced_writes_capacity(run_module):
    result = plan(run_module, system_reserved={'memory': '1Gi'}, enforce_node_allocatable=[])
    assert result['cgroups']['kubepods']['resources']['memory'] == 16 * 1024 ** 3
    assert result['cgroups']['kubepods']['source'] == 'capacity'


@pytest.mark.parametrize('version, reserved_milli', [('1.37', 29), ('1.36', 28.5)])
def test_a_reserved_cpu_finer_than_a_millicore_is_rounded_from_1_37(run_module, version, reserved_milli):
    """cmd/kubelet/app parseResourceList rounds a reserved CPU to the nearest millicore from 1.37 (the kubelet judge
    found 28.5m reserving 29m there); before, 28.5m stays 28.5m and Allocatable CPU reads 3972m (MilliValue rounds
    the remaining 3971.5m up)."""
    result = plan(run_module, system_reserved={'cpu': '28.5m'}, kube_reserved={}, kubelet_version=version)
    assert result['reserved']['system']['cpu']['quantity'] == ('29m' if reserved_milli == 29 else '28500u')
    assert result['allocatable']['cpu']['value'] == (3971 if reserved_milli == 29 else 3972)


def test_reserved_system_cpus_override_cpu_reservations(run_module):
    result = plan(run_module, reserved_system_cpus='0-1', system_reserved={'cpu': '100m'},
                  kube_reserved={'cpu': 'not-a-quantity', 'memory': '1Gi'})
    assert q(result['reserved']['system'], 'cpu') == '2'
    assert 'cpu' not in result['reserved']['kube']
    assert q(result['allocatable'], 'cpu') == '2'


def test_memory_qos_and_qos_reserved(run_module):
    result = plan(run_module, kubelet_version='1.35', feature_gates={'MemoryQoS': True, 'QOSReserved': True},
                  qos_reserved={'memory': '50%'}, system_reserved={'memory': '1Gi'}, system_reserved_cgroup='/system',
                  enforce_node_allocatable=['pods', 'system-reserved'])
    assert result['cgroups']['system_reserved']['v2_files']['memory.min'] == str(1024 ** 3)
    assert result['cgroups']['burstable']['resources']['memory'] == 15 * 1024 ** 3
    assert 'memory.min' not in result['cgroups']['burstable']['v2_files']
    tiered = plan(run_module, feature_gates={'MemoryQoS': True}, memory_reservation_policy='TieredReservation')
    assert tiered['cgroups']['kubepods']['v2_files']['memory.min'] == '0'
    assert tiered['cgroups']['burstable']['v2_files']['memory.low'] == '0'


@pytest.mark.parametrize('args, kubepods_min, burstable_low, reserved_min', [
    # 1.37: MemoryQoS on by default, memoryReservationPolicy None - kubepods and burstable at 0; the enforced reserved
    # cgroup's memory.min is its reservation all the same (enforceExistingCgroup checks the gate alone, and the real
    # kubelet on the VM wrote it)
    ({}, '0', '0', str(1024 ** 3)),
    # the gate off: 1.37 resets what an earlier run of the feature left (#138903)
    ({'feature_gates': {'MemoryQoS': False}}, '0', '0', None),
    ({'feature_gates': {'MemoryQoS': False}, 'kubelet_version': '1.36'}, None, None, None),
    # TieredReservation: the enforced reserved cgroup's memory.min is its reservation
    ({'memory_reservation_policy': 'TieredReservation'}, '0', '0', str(1024 ** 3)),
])
def test_memory_qos_of_kubelet_1_37_on_the_node_cgroups(run_module, args, kubepods_min, burstable_low, reserved_min):
    result = plan(run_module, system_reserved={'memory': '1Gi'}, system_reserved_cgroup='/system',
                  enforce_node_allocatable=['pods', 'system-reserved'], **args)
    cgroups = result['cgroups']
    assert cgroups['kubepods']['v2_files'].get('memory.min') == kubepods_min
    assert cgroups['burstable']['v2_files'].get('memory.low') == burstable_low
    # kubelet's value where it writes one; the kernel's default, owned by the collection, where it writes none
    assert cgroups['system_reserved']['resources'].get('memory_min') == (int(reserved_min) if reserved_min else None)
    assert cgroups['system_reserved']['v2_files']['memory.min'] == (reserved_min or '0')
    assert 'memory.min' not in cgroups['kubepods']['v1_files'] and 'memory.low' not in cgroups['burstable']['v1_files']


@pytest.mark.parametrize('profile, cpu, memory, max_pods, reserved_cpu, reserved_memory, allocatable_memory', [
    ('gke', '2', '8Gi', None, '70m', '1843Mi', '6249Mi'),
    ('eks', '2', '8Gi', 29, '70m', '574Mi', '7518Mi'),
    ('aks', '2', '8Gi', 30, '100m', '650Mi', '7442Mi'),
    ('aks', '2', '8Gi', 110, '100m', '2Gi', '6044Mi'),
    ('aks-legacy', '2', '8Gi', None, '100m', '1843Mi', '5599Mi'),
    ('gke', '16', '64Gi', None, '110m', '5611Mi', '59825Mi'),
    ('eks', '16', '64Gi', 234, '110m', '2829Mi', '62607Mi'),
    ('aks', '16', '64Gi', 250, '260m', '5050Mi', '60386Mi'),
    ('gke', '96', '384Gi', None, '310m', '14786Mi', '378330Mi'),
    ('eks', '96', '384Gi', 737, '310m', '8362Mi', '384754Mi'),
    ('aks', '96', '384Gi', 110, '1060m', '2250Mi', '390866Mi'),
])
def test_sizing_profiles(run_module, profile, cpu, memory, max_pods, reserved_cpu, reserved_memory,
                         allocatable_memory):
    args = {'capacity': {'cpu': cpu, 'memory': memory}, 'profile': profile}
    if max_pods:
        args['max_pods'] = max_pods
    result = run_module(allocatable_info, args)
    assert q(result['reserved']['kube'], 'cpu') == reserved_cpu
    assert q(result['reserved']['kube'], 'memory') == reserved_memory
    assert q(result['allocatable'], 'memory') == allocatable_memory


@pytest.mark.parametrize('extra, kube_memory, system_memory', [
    ({}, '255Mi', None),  # GKE's figure below 1 GiB, no floor asked
    ({'min_memory_reserved': '512Mi'}, '512Mi', None),  # raised to the floor
    ({'min_memory_reserved': '512Mi', 'system_reserved': {'memory': '200Mi'}}, '312Mi', '200Mi'),  # together
    ({'min_memory_reserved': '512Mi', 'kube_reserved': {'memory': '300Mi'}}, '300Mi', None),  # the operator's wins
    ({'min_memory_reserved': '100Mi'}, '255Mi', None),  # already above it
    ({'min_memory_reserved': ''}, '255Mi', None),
])
def test_a_floor_under_a_profiles_memory_counts_system_and_kube_together(run_module, extra, kube_memory, system_memory):
    """Issue 76: GKE's 255Mi on a 960 MiB kubeadm node left kubepods a limit above what the machine could give beside
    its daemons (428 MiB), and a memory bomb froze the node instead of being OOM-killed in kubepods."""
    args = dict({'capacity': {'cpu': '2', 'memory': '960Mi'}, 'profile': 'gke'}, **extra)
    result = run_module(allocatable_info, args)
    assert q(result['reserved']['kube'], 'memory') == kube_memory
    assert (result['reserved']['system'].get('memory') or {}).get('quantity') == system_memory


def test_a_floor_under_a_profile_changes_nothing_from_2_gib_and_is_checked(run_module):
    result = run_module(allocatable_info, {'capacity': {'cpu': '2', 'memory': '2Gi'}, 'profile': 'gke',
                                           'min_memory_reserved': '512Mi'})
    assert q(result['reserved']['kube'], 'memory') == '512Mi'  # GKE's own 25% of 2 GiB
    with pytest.raises(ModuleFail, match='min_memory_reserved'):
        run_module(allocatable_info, {'capacity': {'cpu': '2', 'memory': '2Gi'}, 'profile': 'gke',
                                      'min_memory_reserved': 'lots'})


def test_profile_values_yield_to_explicit_ones(run_module):
    result = run_module(allocatable_info, {'capacity': {'cpu': '2', 'memory': '8Gi'}, 'profile': 'eks', 'max_pods': 29,
                                           'kube_reserved': {'memory': '1Gi'}, 'eviction_hard': {},
                                           'keep_default_eviction_signals': False})
    assert q(result['reserved']['kube'], 'memory') == '1Gi'
    assert q(result['reserved']['kube'], 'ephemeral-storage') == '1Gi'
    assert result['eviction']['hard'] == {}


@pytest.mark.parametrize('version, image_inodes', [('1.29', False), ('1.30', True), ('1.36', True)])
def test_a_profile_keeps_kubelets_disk_eviction_signals(run_module, version, image_inodes):
    # gke's profile names memory.available alone; kubelet would reset the disk signals (kubernetes#112057).
    result = run_module(allocatable_info, {'capacity': {'cpu': '4', 'memory': '16Gi', 'ephemeral-storage': '100Gi'},
                                           'profile': 'gke', 'kubelet_version': version})
    hard = result['eviction']['hard']
    assert hard['memory.available'] == '100Mi'
    assert (hard['nodefs.available'], hard['nodefs.inodesFree'], hard['imagefs.available']) == ('10%', '5%', '15%')
    assert ('imagefs.inodesFree' in hard) is image_inodes
    assert result['eviction']['source'] == 'profile gke'
    assert 'nodefs.available' in result['eviction']['defaults_kept']
    # nodefs.available<10% is taken out of ephemeral-storage Allocatable, as kubelet's default does.
    capacity = 100 * 1024 ** 3
    ten_percent = struct.unpack('f', struct.pack('f', 0.1))[0]  # float32, as kubelet parses it
    assert result['allocatable']['ephemeral-storage']['value'] == capacity - int(capacity * ten_percent)


def test_an_operator_map_keeps_the_other_signals_and_0_percent_switches_one_off(run_module):
    result = run_module(allocatable_info, {'capacity': {'cpu': '4', 'memory': '16Gi', 'ephemeral-storage': '100Gi'},
                                           'eviction_hard': {'memory.available': '500Mi', 'nodefs.available': '0%'}})
    hard = result['eviction']['hard']
    assert hard['memory.available'] == '500Mi' and hard['nodefs.available'] == '0%'
    assert hard['imagefs.available'] == '15%'
    assert result['eviction']['source'] == 'operator'
    assert 'nodefs.available' not in result['eviction']['defaults_kept']
    # "0%" is ignored by kubelet: nothing is taken out of ephemeral-storage.
    assert result['allocatable']['ephemeral-storage']['value'] == 100 * 1024 ** 3


@pytest.mark.parametrize('args, fragments', [
    ({'system_reserved': {'memory': '12x'}}, ['system_reserved.memory', '"12x"']),
    ({'kube_reserved': {'cpu': '-100m'}}, ['kube_reserved.cpu', 'cannot be negative', '"-100m"']),
    ({'system_reserved': {'gpu': '1'}}, ['system_reserved', 'cannot reserve "gpu" resource']),
    ({'system_reserved': {'hugepages-2Mi': '1Gi'}}, ['cannot reserve "hugepages-2Mi" resource']),
    ({'kube_reserved': {'memory': '20Gi'}},
     ['Resource "memory" has a reservation of', 'but capacity of 16Gi', 'Expected capacity >= reservation',
      'kube_reserved.memory: ', 'memory reserved = kube 20Gi (kube_reserved.memory) + hard eviction 100Mi '
      '(eviction_hard, kubelet defaults)']),
    ({'profile': 'gke', 'system_reserved': {'memory': '15Gi'}},
     ['system_reserved.memory: ', 'memory reserved = system 15Gi (system_reserved.memory) + kube 2662Mi '
      '(kube_reserved.memory, profile gke) + hard eviction 100Mi (eviction_hard, profile gke)']),
    ({'kube_reserved': {'memory': '1GB'}}, ['kube_reserved.memory', 'did you mean 1G (10^9) or 1Gi (2^30)?']),
    ({'enforce_node_allocatable': ['pods', 'bogus']},
     ['enforce_node_allocatable', 'option "bogus" specified for enforceNodeAllocatable']),
    ({'enforce_node_allocatable': ['pods', 'pods']}, ['duplicated enforcements "pods"']),
    ({'enforce_node_allocatable': ['none', 'pods']}, ['may not contain additional enforcements when "none"']),
    ({'enforce_node_allocatable': ['pods'], 'cgroups_per_qos': False},
     ['cgroupsPerQOS (--cgroups-per-qos) must be set to true when "pods"']),
    ({'enforce_node_allocatable': ['system-reserved']},
     ['systemReservedCgroup (--system-reserved-cgroup) must be specified']),
    ({'enforce_node_allocatable': ['kube-reserved-compressible']},
     ['kubeReservedCgroup (--kube-reserved-cgroup) must be specified']),
    ({'enforce_node_allocatable': ['kube-reserved', 'kube-reserved-compressible'], 'kube_reserved_cgroup': '/kube'},
     ['cannot be specified together']),
    ({'reserved_system_cpus': '0-1', 'kube_reserved_cgroup': '/kube.slice'},
     ["can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup"]),
    ({'reserved_system_cpus': '3-1'}, ['reserved_system_cpus', 'invalid range "3-1"']),
    ({'reserved_system_cpus': '0,x'}, ['reserved_system_cpus', '"0,x"']),
    ({'reserved_system_cpus': '2-9'}, ['reserved_system_cpus', 'not online CPUs', '4-9']),
    ({'eviction_hard': {'memory.free': '1Gi'}}, ['eviction_hard', 'unsupported eviction signal memory.free']),
    ({'eviction_hard': 'memory.available>100Mi'}, ['eviction_hard', 'unsupported eviction operator ">"']),
    ({'eviction_hard': {'memory.available': '101%'}}, ['eviction_hard.memory.available', 'must be <= 100%', '"101%"']),
    ({'eviction_hard': {'nodefs.available': '-5%'}}, ['eviction_hard.nodefs.available', 'must be >= 0%']),
    ({'eviction_hard': {'nodefs.available': 'ten%'}}, ['eviction_hard.nodefs.available', '"ten%"']),
    ({'eviction_hard': {'memory.available': '0'}}, ['eviction_hard.memory.available', 'must be positive']),
    ({'profile': 'gcp'}, ['profile', 'gcp']),
    ({'profile': 'eks'}, ['max_pods', 'profile "eks"']),
    ({'profile': 'aks', 'max_pods': 0}, ['max_pods', 'positive integer']),
    ({'profile': 'aks', 'max_pods': 30, 'capacity': {'cpu': '2500m', 'memory': '8Gi'}},
     ['capacity.cpu', 'whole cores', '"2500m"']),
    ({'profile': 'aks-legacy', 'capacity': {'cpu': '1.5', 'memory': '8Gi'}}, ['capacity.cpu', 'whole cores']),
    ({'kubelet_version': '1.3'}, ['kubelet_version', 'quote it, "1.30"']),
    ({'kubelet_version': '1.40'}, ['kubelet_version', 'not supported', '"1.40"']),
    ({'kubelet_version': 'latest'}, ['kubelet_version', '"latest"']),
    ({'merge_default_eviction_settings': True, 'kubelet_version': '1.32'}, ['mergeDefaultEvictionSettings']),
    ({'qos_reserved': {'memory': '50%'}}, ['qos_reserved', 'QOSReserved feature gate']),
    ({'qos_reserved': {'memory': '150%'}, 'feature_gates': {'QOSReserved': True}}, ['qos_reserved.memory', '150%']),
    ({'cgroup_driver': 'systemd', 'kube_reserved_cgroup': '/system.slice/kubelet.service',
      'enforce_node_allocatable': ['pods', 'kube-reserved']},
     ['kube_reserved_cgroup', 'kubelet.service.slice', 'not loaded']),
    ({'cgroup_driver': 'systemd', 'system_reserved_cgroup': '/foo.slice/bar.slice'},
     ['system_reserved_cgroup', 'would use /bar.slice']),
    ({'system_reserved_cgroup': '/../etc'}, ['system_reserved_cgroup', '".."']),
    ({'capacity': {'cpu': 'lots'}}, ['capacity.cpu', '"lots"']),
    ({'feature_gates': {'MemoryQoS': 'yes'}}, ['feature_gates.MemoryQoS']),
    ({'feature_gates': {'NodeSwapp': True}},
     ['feature_gates: unrecognized feature gate: NodeSwapp', 'did you mean NodeSwap?', '"NodeSwapp"']),
    ({'feature_gates': {'KubeletPSI': True}, 'kubelet_version': '1.32'},
     ['unrecognized feature gate: KubeletPSI', 'kubelet 1.32 refuses', 'exists from kubelet 1.33']),
    ({'memory_reservation_policy': 'TieredReservation', 'feature_gates': {'MemoryQoS': False}},
     ['MemoryQoS feature gate']),
])
def test_bad_input_fails_naming_option_and_value(run_module, args, fragments):
    with pytest.raises(ModuleFail) as failure:
        plan(run_module, **args)
    message = failure.value.result['msg']
    for fragment in fragments:
        assert fragment in message
    assert 'Traceback' not in message


def test_extra_feature_gates_accept_a_gate_the_table_misses(run_module):
    result = plan(run_module, feature_gates={'VendorGate': True, 'MemoryQoS': True}, extra_feature_gates=['VendorGate'])
    assert result['kubelet_version'] == '1.37'
    with pytest.raises(ModuleFail) as failure:
        plan(run_module, feature_gates={'VendorGate': True})
    assert 'unrecognized feature gate: VendorGate' in failure.value.result['msg']


def test_kubelet_1_31_messages(run_module):
    with pytest.raises(ModuleFail) as failure:
        plan(run_module, kubelet_version='1.31', enforce_node_allocatable=['pods', 'system-reserved-compressible'])
    assert 'Valid options are "pods", "system-reserved", "kube-reserved", or "none"' in failure.value.result['msg']
    result = plan(run_module, kubelet_version='1.31', cgroups_per_qos=False, enforce_node_allocatable=['none'])
    assert 'burstable' not in result['cgroups']
    # Without QoS cgroups kubelet's root for pods is cgroupRoot itself ("/" unless set).
    assert result['node_allocatable_root']['cgroupfs_path'] == '/'
    result = plan(run_module, kubelet_version='1.31', cgroups_per_qos=False, enforce_node_allocatable=['none'],
                  cgroup_root='/pods')
    assert result['node_allocatable_root']['cgroupfs_path'] == '/pods' and 'kubepods' in result['cgroups']
    assert plan(run_module)['node_allocatable_root']['cgroupfs_path'] == '/kubepods'
    with pytest.raises(ModuleFail):
        plan(run_module, kubelet_version='1.30', cgroups_per_qos=False, enforce_node_allocatable=['none'])


def _write(path, text):
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'w') as handle:
        handle.write(text)


def test_detects_capacity_like_cadvisor(run_module, tmp_path):
    proc, sys_root = str(tmp_path / 'proc'), str(tmp_path / 'sys')
    _write(os.path.join(proc, 'meminfo'), 'MemTotal:       16363012 kB\nMemFree:  1 kB\n')
    _write(os.path.join(proc, 'sys/kernel/pid_max'), '4194304\n')
    _write(os.path.join(proc, 'sys/kernel/threads-max'), '127441\n')
    _write(os.path.join(sys_root, 'devices/system/cpu/online'), '0-5\n')
    _write(os.path.join(sys_root, 'kernel/mm/hugepages/hugepages-2048kB/nr_hugepages'), '512\n')
    _write(os.path.join(sys_root, 'kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages'), '0\n')
    result = run_module(allocatable_info, {'proc_path': proc, 'sys_path': sys_root,
                                           'kubelet_root_dir': str(tmp_path / 'var/lib/kubelet')})
    assert q(result['capacity'], 'cpu') == '6'
    assert q(result['capacity'], 'memory') == '16363012Ki'
    assert result['capacity']['memory']['value'] == 16363012 * 1024
    assert q(result['capacity'], 'hugepages-2Mi') == '1Gi'
    assert q(result['capacity'], 'hugepages-1Gi') == '0'
    assert result['internal_capacity']['pid']['value'] == 127441
    assert result['capacity']['ephemeral-storage']['value'] > 0
    assert result['allocatable']['memory']['value'] == 16363012 * 1024 - 100 * 1024 ** 2 - 1024 ** 3
    assert 'hugetlb.1GB.max' in result['cgroups']['kubepods']['v2_files']


def test_detection_failure_is_a_clear_error(run_module, tmp_path):
    with pytest.raises(ModuleFail) as failure:
        run_module(allocatable_info, {'proc_path': str(tmp_path), 'sys_path': str(tmp_path)})
    assert 'cannot detect the node capacity' in failure.value.result['msg']


def test_a_cgroup_name_with_a_nul_byte_is_refused(run_module):
    with pytest.raises(ModuleFail) as failure:
        run_module(allocatable_info, dict(NODE, system_reserved_cgroup='/sys\x00tem',
                                          enforce_node_allocatable=['pods', 'system-reserved']))
    message = failure.value.result['msg']
    assert message == 'system_reserved_cgroup: must not contain a NUL byte (got "/sys\\x00tem")' \
        or message.startswith(ANSIBLE_NUL_REFUSAL)


@pytest.mark.parametrize('version, policy, enforce, cpus', [
    ('1.37', None, ['pods', 'system-reserved'], '0-3'),
    ('1.32', 'none', ['pods', 'system-reserved-compressible'], '0-3'),
    ('1.37', 'static', ['pods', 'system-reserved'], None),  # the static CPU manager keeps the cpusets itself
    ('1.31', None, ['pods', 'system-reserved'], None),  # before PR #125923
    ('1.37', None, ['pods'], None),  # a reserved cgroup kubelet does not enforce is left alone
])
def test_kubelet_gives_its_node_cgroups_every_cpu_under_the_none_policy(run_module, version, policy, enforce, cpus):
    """getCgroupConfig (node_container_manager_linux.go): with the none CPU manager policy, kubepods and each enforced
    reserved cgroup get every CPU as their cpuset, so that systemd keeps the cpuset cgroup; the real kubelet on the VM
    wrote AllowedCPUs on kube.slice where the plan had none."""
    args = dict(system_reserved={'cpu': '500m', 'memory': '1Gi'}, system_reserved_cgroup='/system',
                enforce_node_allocatable=enforce, kubelet_version=version)
    if policy:
        args['cpu_manager_policy'] = policy
    cgroups = plan(run_module, **args)['cgroups']
    assert cgroups['system_reserved']['v2_files'].get('cpuset.cpus') == cpus
    assert cgroups['system_reserved']['systemd_properties']['v2'].get('AllowedCPUs') == cpus
    kubepods = cgroups['kubepods']['v2_files'].get('cpuset.cpus')
    assert kubepods == (None if policy == 'static' or version == '1.31' else '0-3')
