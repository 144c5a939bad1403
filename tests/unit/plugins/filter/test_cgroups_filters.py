# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import decimal
from fractions import Fraction

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kubenode.cgroups.plugins.filter.cgroups import FilterModule
from ansible_collections.kubenode.cgroups.plugins.module_utils.model import _cgroup_math

F = FilterModule().filters()


@pytest.mark.parametrize('milli, shares, linear, oci', [
    (0, 2, 1, 1), (100, 102, 4, 17), (500, 512, 20, 59), (1000, 1024, 39, 100), (8000, 8192, 313, 532),
    (96000, 98304, 3750, 4276),
])
def test_cpu_conversion_table(milli, shares, linear, oci):
    assert F['milli_cpu_to_shares'](milli) == shares
    assert F['cpu_shares_to_weight'](shares) == linear
    assert F['cpu_shares_to_weight'](shares, formula='quadratic') == oci
    assert F['cpu_shares_to_weight'](shares, formula='oci') == oci  # the older name


def test_oci_formula_matches_exact_arithmetic_far_from_integer_boundaries():
    # runc's quadratic formula in float64 (Go's math.Log2 and math.Pow) against the same formula in 40-digit
    # decimals: float differences between Go and C libm could flip ceil() only next to an integer, so the
    # exact value must stay clear of one wherever the code's answer is taken.
    context = decimal.Context(prec=40)
    ln2 = context.ln(decimal.Decimal(2))
    for shares in list(range(3, 262144, 13)) + [262143]:
        log2 = context.divide(context.ln(decimal.Decimal(shares)), ln2)
        exponent = (log2 * log2 + 125 * log2) / 612 - decimal.Decimal(7) / 34
        exact = context.power(decimal.Decimal(10), exponent)
        weight = _cgroup_math.quadratic_weight(shares)
        assert weight == int(exact.to_integral_value(rounding=decimal.ROUND_CEILING)), shares
        assert abs(exact - exact.to_integral_value()) > decimal.Decimal('1e-9') or exact == exact.to_integral_value()


def test_quantities_and_cpu_strings():
    assert F['quantity_to_int']('1.5Gi') == 1610612736
    assert F['quantity_to_milli']('2') == 2000
    assert F['milli_cpu_to_shares']('250m') == 256
    assert F['milli_cpu_to_quota']('250m') == 25000
    assert F['milli_cpu_to_quota'](5, 100000) == 1000
    assert F['milli_cpu_to_quota'](200, 5000) == 1000


def test_names():
    assert F['cgroup_to_systemd']('/kubepods/burstable') == '/kubepods.slice/kubepods-burstable.slice'
    assert F['cgroup_to_systemd']('/') == '/'
    assert F['systemd_to_cgroup']('/kubepods.slice/kubepods-burstable.slice') == '/kubepods/burstable'
    assert F['systemd_to_cgroup']('/system.slice/kubelet.service') == '/kubelet.service'
    assert F['hugepage_size_name'](2097152) == '2MB' and F['hugepage_size_name'](1073741824) == '1GB'
    assert F['cpu_weight_to_shares'](39) == 998


@pytest.mark.parametrize('name, args, fragment', [
    ('quantity_to_int', ['12x'], '"12x"'),
    ('milli_cpu_to_shares', ['fast'], '"fast"'),
    ('cpu_shares_to_weight', [1024, 'cubic'], '"cubic"'),
    ('cpu_shares_to_weight', [-1], 'negative'),
    ('cpu_weight_to_shares', [20000], '20000'),
    ('cgroup_to_systemd', ['kubepods'], '"kubepods"'),
    ('cgroup_to_systemd', ['/a_b'], '"/a_b"'),
    ('hugepage_size_name', [3218079744], 'divisible'),
])
def test_filter_errors(name, args, fragment):
    with pytest.raises(AnsibleFilterError) as error:
        F[name](*args)
    assert fragment in str(error.value) and name in str(error.value)


def test_float32_percentage_rounding_is_exact():
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._eviction import _round_to_float32
    import struct
    for text in ('0.1', '5', '10', '33.333333', '99.99999999', '1e-3', '0.000001'):
        assert _round_to_float32(Fraction(text)) == struct.unpack('f', struct.pack('f', float(text)))[0]


@pytest.mark.parametrize('quantity, resource, shown', [
    ('24683656Ki', 'memory', '23.5 GiB'), ('3125Mi', 'memory', '3.1 GiB'), ('100Mi', 'memory', '100 MiB'),
    ('1930m', 'cpu', '1.93 cores'), ('1', 'cpu', '1 core'), ('70m', 'cpu', '0.07 cores'), ('2', 'cpu', '2 cores'),
    ('0', 'hugepages-2Mi', '0'), ('2Gi', 'hugepages-1Gi', '2 GiB'), ('110', 'pods', '110'),
    ('264212084Ki', 'ephemeral-storage', '252 GiB'), ('512', 'memory', '512 B'),
])
def test_quantity_to_human(quantity, resource, shown):
    assert F['quantity_to_human'](quantity, resource) == shown


def test_quantity_to_human_of_a_plan_map():
    plan = {'cpu': {'quantity': '1930m', 'value': 1930}, 'memory': {'quantity': '21381256Ki', 'value': 1}}
    assert F['quantity_to_human'](plan) == 'cpu 1.93 cores, memory 20.4 GiB'
    assert F['quantity_to_human']({'pods': '110'}) == 'pods 110'
    with pytest.raises(AnsibleFilterError):
        F['quantity_to_human']('1Gi')
