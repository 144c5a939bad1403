# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # What runs on the node, for the plan's impact on it (RV(impact)).
    DOCUMENTATION = r"""
options:
  pods:
    description:
      - The pods the API server has bound to this node (the C(resources) of C(kubernetes.core.k8s_info) with
        C(field_selectors=[spec.nodeName=NODE])), for kubelet's admission in RV(impact). Mirror pods and pods
        that ended are left out; kubelet admits a static pod from its manifest.
      - Unset, only the static pods are known; the impact says which pods it judged.
    type: list
    elements: dict
    default: []
  static_pod_path:
    description:
      - The directory of the node's static pod manifests, as the node names it (read under O(node_root)).
        Unset, kubelet's C(staticPodPath) from the configuration it reads now.
    type: path
"""
