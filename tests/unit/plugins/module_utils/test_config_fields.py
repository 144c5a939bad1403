# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The KubeletConfiguration keys of each judged release (tests/kubelet/update_config_fields.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._config_fields import JUDGED, WINDOWS, keys_ignored_by
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import kubelet_rules


@pytest.mark.parametrize('minor, ignored', [
    # failCgroupV1 came with KEP-4569 in 1.31, mergeDefaultEvictionSettings in 1.33, memoryReservationPolicy in 1.36
    (30, ['failCgroupV1', 'memoryReservationPolicy', 'mergeDefaultEvictionSettings', 'notAKey']),
    (31, ['memoryReservationPolicy', 'mergeDefaultEvictionSettings', 'notAKey']),
    (36, ['notAKey']),
    (38, ['notAKey']),
])
def test_a_release_ignores_the_keys_it_does_not_know(minor, ignored):
    config = {'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration', 'failCgroupV1': False,
              'mergeDefaultEvictionSettings': True, 'memoryReservationPolicy': 'None', 'kubeReserved': {},
              'notAKey': 1}
    assert keys_ignored_by(config, minor) == ignored


def test_releases_the_table_was_not_read_for_are_not_judged():
    assert JUDGED == (29, 38)
    assert keys_ignored_by({'notAKey': 1}, 28) is None


def test_the_table_agrees_with_the_rules_that_name_a_key_by_release():
    """The collection's own version rules for keys agree with the keys each release's module declares."""
    for minor in range(JUDGED[0], JUDGED[1] + 1):
        rules = kubelet_rules('1.%d' % minor)
        known = dict((name, keys_ignored_by({name: 1}, minor) == []) for name in (
            'failCgroupV1', 'mergeDefaultEvictionSettings', 'memoryReservationPolicy', 'singleProcessOOMKill'))
        assert known == {'failCgroupV1': rules.has_fail_cgroup_v1,
                         'mergeDefaultEvictionSettings': rules.has_merge_default_eviction_settings,
                         'memoryReservationPolicy': rules.has_memory_reservation_policy,
                         'singleProcessOOMKill': rules.has_single_process_oom_kill}
    assert all(first >= JUDGED[0] for first, _last in WINDOWS.values())
