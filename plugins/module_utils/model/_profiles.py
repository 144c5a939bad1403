# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reservation sizing profiles of the managed Kubernetes services.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Every profile puts its whole reservation in kubeReserved, as the providers do. Rounding,
so that kubelet receives integer quantity strings:
- CPU tiers (GKE, EKS): each tier's share in millicores is floored (amazon-eks-ami's
  integer division per range), then summed.
- Memory tiers (GKE, AKS < 1.29): the exact byte sum is floored to whole MiB.
- AKS >= 1.29: 20 MiB per pod + 50 MiB (the docs' "MB" read as MiB), capped at 25% of
  memory floored to whole MiB.
- AKS CPU: the published table for 1, 2, 4, 8, 16, 32 and 64 cores; 3 cores takes 120m
  (between 2 and 4), other counts from 4 up follow the table's line 140m + 10m per core
  above 4 (an extrapolation: AKS publishes no other values). A fractional core count is
  refused: kubelet's capacity is a count of logical CPUs, and AKS has no rule for a part of one.
- OpenShift (autoSizingReserved): machine-config-operator's dynamic-system-reserved-calc.sh
  (templates/common/_base/files/kubelet-auto-sizing.yaml), sizing version 2, quirks and all:
  memory is counted as `free -g` counts it (MemTotal floored to whole GiB, so a 15.6 GiB node is
  15); 1 GiB up to 8 GiB, then 6% of the next 120 GiB - but above 128 GiB the script adds 6.72 GiB
  (6% of 112) and takes 112 GiB off, so 8 GiB are counted again at 2% - then 2% of the rest, rounded
  to the nearest whole GiB (a 16 GiB node gets 1 GiB, 1.42 rounded down). CPU: 0.06 + 0.012 per CPU
  after the first, printed to hundredths, and never below 0.5 CPU, which decides every node up to 37
  CPUs. ephemeral-storage 1Gi. OpenShift writes it as systemReserved; here, like every profile, it is
  kubeReserved. Nodes sized by the script's version 1 (tiers like GKE's CPU) keep it there and are
  not modelled; neither is the retuned 8 GiB tier (machine-config-operator#5847).
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from typing import Mapping

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_values import PROFILES

MIB = 1024 * 1024
GIB = 1024 * MIB
PROFILES_NEEDING_MAX_PODS = ('eks', 'aks')

# (start millicores, end millicores or None, basis points)
_CPU_TIERS = ((0, 1000, 600), (1000, 2000, 100), (2000, 4000, 50), (4000, None, 25))
# (start bytes, end bytes or None, percent)
_MEMORY_TIERS = ((0, 4 * GIB, 25), (4 * GIB, 8 * GIB, 20), (8 * GIB, 16 * GIB, 10),
                 (16 * GIB, 128 * GIB, 6), (128 * GIB, None, 2))
_AKS_CPU_TABLE = {1: 60, 2: 100, 3: 120, 4: 140}


def tiered_cpu_millicores(total_milli: int) -> int:
    reserved = 0
    for start, end, basis_points in _CPU_TIERS:
        top = total_milli if end is None else min(total_milli, end)
        if top > start:
            reserved += (top - start) * basis_points // 10000
    return reserved


def tiered_memory_mib(total_bytes: int) -> int:
    if total_bytes < GIB:
        return 255
    reserved_hundredths = 0
    for start, end, percent in _MEMORY_TIERS:
        top = total_bytes if end is None else min(total_bytes, end)
        if top > start:
            reserved_hundredths += (top - start) * percent
    return reserved_hundredths // 100 // MIB


def aks_cpu_millicores(total_milli: int) -> int:
    cores = -(-total_milli // 1000)
    if cores in _AKS_CPU_TABLE:
        return _AKS_CPU_TABLE[cores]
    return 140 + 10 * (cores - 4)


def openshift_memory_gib(total_bytes: int) -> int:
    """dynamic_memory_sizing: whole GiB, from `free -g`'s floored GiB."""
    total = total_bytes // GIB
    reserved_thousandths, rest = 1000, max(0, total - 8)
    if rest <= 120:
        reserved_thousandths += rest * 60
        rest = 0
    else:
        reserved_thousandths += 6720
        rest -= 112
    reserved_thousandths += rest * 20
    return (reserved_thousandths + 500) // 1000


def openshift_cpu_millicores(total_milli: int) -> int:
    """dynamic_cpu_sizing, version 2: 60m + 12m per further CPU, to hundredths of a CPU, at least 500m."""
    cpus = total_milli // 1000
    milli = 60 + 12 * (cpus - 1) if cpus > 1 else 60
    return max(500, (milli + 5) // 10 * 10)


def profile_reservation(profile: str | None, capacity: Mapping[str, int | None], max_pods: object,
                        field: str = 'profile') -> tuple[dict[str, str], dict[str, str] | None] | None:
    """(kube_reserved dict of quantity strings, eviction_hard dict or None) for a profile.

    capacity: {'cpu': millicores, 'memory': bytes}. None for "static".
    """
    if profile in (None, '', 'static'):
        return None
    if profile not in PROFILES:
        raise KubenodeError('unknown profile; choose one of %s' % ', '.join(PROFILES), field=field, value=profile)
    if profile in PROFILES_NEEDING_MAX_PODS:
        if max_pods is None:
            raise KubenodeError('profile "%s" sizes memory by the pod count: set max_pods' % profile,
                                field='max_pods', value=max_pods)
        if isinstance(max_pods, bool) or not isinstance(max_pods, int) or max_pods <= 0:
            raise KubenodeError('must be a positive integer', field='max_pods', value=max_pods)
    for resource in ('cpu', 'memory'):
        if capacity.get(resource) is None:
            raise KubenodeError('profile "%s" needs the node capacity of %s' % (profile, resource),
                                field='capacity.%s' % resource)
    # Both checked above; max_pods too, where the profile sizes by it.
    cpu_milli, memory_bytes = capacity['cpu'] or 0, capacity['memory'] or 0
    pods = max_pods if isinstance(max_pods, int) else 0
    if profile in ('aks', 'aks-legacy') and cpu_milli % 1000:
        # kubelet's CPU capacity is a count of logical CPUs, and AKS publishes its CPU tiers by whole core.
        raise KubenodeError('profile "%s" sizes CPU by whole cores, as kubelet counts them: give a whole number of '
                            'cores' % profile, field='capacity.cpu', value='%dm' % cpu_milli)
    if profile == 'gke':
        kube = {'cpu': '%dm' % tiered_cpu_millicores(cpu_milli), 'memory': '%dMi' % tiered_memory_mib(memory_bytes)}
        return kube, {'memory.available': '100Mi'}
    if profile == 'eks':
        kube = {'cpu': '%dm' % tiered_cpu_millicores(cpu_milli), 'memory': '%dMi' % (11 * pods + 255),
                'ephemeral-storage': '1Gi'}
        return kube, {'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%'}
    if profile == 'openshift':
        return {'cpu': '%dm' % openshift_cpu_millicores(cpu_milli), 'memory': '%dGi' % openshift_memory_gib(memory_bytes),
                'ephemeral-storage': '1Gi'}, None
    if profile == 'aks':
        memory_mib = min(20 * pods + 50, memory_bytes // 4 // MIB)
        return {'cpu': '%dm' % aks_cpu_millicores(cpu_milli), 'memory': '%dMi' % memory_mib}, \
            {'memory.available': '100Mi'}
    kube = {'cpu': '%dm' % aks_cpu_millicores(cpu_milli), 'memory': '%dMi' % tiered_memory_mib(memory_bytes)}
    return kube, {'memory.available': '750Mi'}
