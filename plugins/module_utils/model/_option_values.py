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
NEWEST_MINOR = 37
DEFAULT_KUBELET_VERSION = '1.%d' % NEWEST_MINOR
# kubelet_version's value that reads the release from the node's kubelet.
AUTO = 'auto'
