# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The values the modules' options name: the reservation profiles and the kubelet releases.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Apart from model/_profiles and model/_versions (which take them from here) because the argument specifications
need them on every run, the one a receipt answers included, and on the controller in every task's worker: AnsiballZ
and ansible-core's collection loader compile each imported file from source (docs/performance.md, "One task per host").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

PROFILES = ('static', 'gke', 'eks', 'aks', 'aks-legacy', 'openshift')
# The reservation a measurement recommends (_reservation.measured_reserved): a profile of no table.
MEASURED_PROFILE = 'measured'
PROFILE_CHOICES = PROFILES + (MEASURED_PROFILE,)

OLDEST_MINOR = 22
# 1.38 from its beta (k8s.io/kubernetes v1.38.0-beta.0, judged by its own code): a node that runs it on the day it
# ships is planned, not refused. A run that cannot ask the node's kubelet plans for the newest GA release.
NEWEST_MINOR = 38
NEWEST_GA_MINOR = 37
DEFAULT_KUBELET_VERSION = '1.%d' % NEWEST_GA_MINOR
# kubelet_version's value that reads the release from the node's kubelet.
AUTO = 'auto'
