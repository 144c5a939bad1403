# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters over the calculation core: quantities, CPU conversions and cgroup names."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.kubenode.cgroups.plugins.plugin_utils._filters import filters


class FilterModule(object):
    """kubenode.cgroups filters (plugin_utils/_filters)."""

    def filters(self):
        return filters()
