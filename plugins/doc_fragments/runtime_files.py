# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # Where the container runtimes keep their cgroup driver setting.
    DOCUMENTATION = r"""
options:
  containerd_config_path:
    description:
      - containerd's configuration, read for its cgroup driver (C(SystemdCgroup), config versions 2 and 3) and its
        default runtime's OCI binary (C(default_runtime_name), C(BinaryName)).
    type: path
    default: /etc/containerd/config.toml
  crio_config_paths:
    description:
      - CRI-O configuration files and drop-in globs, read for its cgroup driver and its default runtime
        (C(default_runtime), C(runtime_path)); later files win.
    type: list
    elements: path
    default: [/etc/crio/crio.conf, /etc/crio/crio.conf.d/*.conf]
"""
