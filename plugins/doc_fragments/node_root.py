# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # The node's root, for a node seen from elsewhere (a fake node in tests, a mounted image).
    DOCUMENTATION = r"""
options:
  node_root:
    description:
      - The node's root directory as this machine sees it. C(/), the default, is this machine itself.
      - Every path the node names is read under it - kubelet's C(--config) and C(--config-dir) and its binary,
        from kubelet's unit or a running kubelet's command line, the unit's C(EnvironmentFile=) files
        (kubeadm-flags.env, kubespray's kubelet.env) - and so are the usual kubeadm and kubespray places.
      - When it is not C(/), every path option must lie under it; one that does not is refused before anything
        is read or written, so nothing outside the root is written.
    type: path
    default: /
"""
