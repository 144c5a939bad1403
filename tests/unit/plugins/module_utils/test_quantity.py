# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""resource.Quantity behaviour, cases from k8s.io/apimachinery quantity_test.go."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from hypothesis import given, strategies as st

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import (
    BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, MAX_INT64, NANO, Quantity, QuantityError, canonical_string,
    parse_quantity)
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._resources import parse_reservation


@pytest.mark.parametrize('text, printed', [
    ('0', '0'), ('0n', '0'), ('0u', '0'), ('0m', '0'), ('0Ki', '0'), ('0k', '0'), ('0Mi', '0'), ('-0', '0'),
    ('1', '1'), ('1Ki', '1Ki'), ('1Mi', '1Mi'), ('1Gi', '1Gi'), ('1k', '1k'), ('1M', '1M'), ('1E', '1E'),
    ('100m', '100m'), ('1000m', '1'), ('1500m', '1500m'), ('1.5', '1500m'), ('0.5', '500m'), ('.5', '500m'),
    ('1.441', '1.441'), ('1024Mi', '1Gi'), ('1000Ki', '1000Ki'), ('8Mi', '8Mi'), ('1536Mi', '1536Mi'),
    ('1.5Gi', '1536Mi'), ('0.5Gi', '512Mi'), ('100Mi', '100Mi'), ('1e3', '1e3'), ('1E3', '1E3'),
    ('1e+3', '1e+3'), ('12E-3', '12E-3'), ('1000000k', '1G'), ('0.0000000001', '1n'), ('-0.0000000001', '-1n'),
    ('1.0000000001', '1000000001n'), ('+100m', '+100m'), ('-100m', '-100m'), ('0.1Ki', '102400m'),
    ('10Gi', '10Gi'), ('5.5k', '5500'),
    # Go keeps the input string whenever its digits are already canonical.
    ('1.', '1.'), ('001', '001'),
])
def test_parse_and_print(text, printed):
    assert str(parse_quantity(text)) == printed


@pytest.mark.parametrize('text, value, milli', [
    ('1.5', 2, 1500), ('-1.5', -2, -1500), ('100m', 1, 100), ('1.0001m', 1, 2), ('1n', 1, 1), ('0', 0, 0),
    ('10Gi', 10737418240, 10737418240000), ('5', 5, 5000), ('2.0001', 3, 2001), ('1e3', 1000, 1000000),
    ('12E-3', 1, 12),
])
def test_value_and_milli_value_round_up(text, value, milli):
    quantity = parse_quantity(text)
    assert quantity.value() == value
    assert quantity.milli_value() == milli


def test_binary_si_is_capped_at_int64():
    quantity = parse_quantity('9223372036854775807Ki')
    assert quantity.value() == MAX_INT64
    assert str(quantity) == '9223372036854775807'


def test_binary_without_a_binary_suffix_reparses_as_decimal():
    printed = canonical_string(125000 * NANO, BINARY_SI)
    assert printed == '125000'
    assert parse_quantity(printed).fmt == DECIMAL_SI
    assert str(parse_quantity(printed).with_value(125000)) == '125k'


def test_binary_below_one_prints_decimal():
    assert str(parse_quantity('0.0001Ki')) == '102400u'


@pytest.mark.parametrize('text', [
    '', '1.1.M', '1+1.0M', '0.1mi', '0.1am', 'aoeu', '.5i', '1i', '-3.01i', '-3.01e-', ' 1', '1 ', '1e', '1Ki3',
    '12x', '1 Gi', '1g', '--1',
])
def test_invalid_quantities_name_the_string(text):
    with pytest.raises(KubenodeError) as error:
        parse_quantity(text, 'system_reserved.memory')
    assert 'system_reserved.memory' in str(error.value)
    assert '"%s"' % text in str(error.value)


def test_numbers_are_accepted():
    assert parse_quantity(2).value() == 2
    assert parse_quantity(0.5).milli_value() == 500
    with pytest.raises(KubenodeError):
        parse_quantity(True)


def test_arithmetic_keeps_go_formats():
    memory = parse_quantity('10Gi')
    assert str(memory.sub(parse_quantity('150Mi'))) == '10090Mi'
    assert str(Quantity(0, DECIMAL_SI).add(parse_quantity('50Mi')).add(parse_quantity('100Mi'))) == '150Mi'
    assert str(parse_quantity('10').sub(parse_quantity('150m'))) == '9850m'
    assert str(memory.with_value(0)) == '0'


@given(st.integers(min_value=-(10 ** 21), max_value=10 ** 21),
       st.sampled_from([DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT]))
def test_format_then_parse_round_trips(nano, fmt):
    printed = canonical_string(nano, fmt)
    parsed = parse_quantity(printed)
    assert parsed.nano == nano
    # A BinarySI amount that is no multiple of 1024 prints without a suffix and so parses
    # back as DecimalSI (Go does the same); its reprint must still be a fixed point.
    reprinted = canonical_string(parsed.nano, parsed.fmt)
    assert reprinted == printed or (fmt == BINARY_SI and parsed.fmt == DECIMAL_SI)
    assert str(parse_quantity(reprinted)) == reprinted


@given(st.integers(min_value=-(10 ** 15), max_value=10 ** 15), st.integers(min_value=-(10 ** 15), max_value=10 ** 15))
def test_ordering_matches_the_numbers(a, b):
    qa, qb = Quantity(a * 1000, DECIMAL_SI), Quantity(b * 1000, BINARY_SI)
    assert qa.cmp(qb) == (a > b) - (a < b)
    assert parse_quantity(str(qa)).cmp(parse_quantity(str(qb))) == qa.cmp(qb)


@given(st.integers(min_value=0, max_value=2 ** 62))
def test_value_is_the_ceiling(nano):
    quantity = Quantity(nano, DECIMAL_SI)
    assert quantity.value() == -(-nano // NANO)
    assert quantity.milli_value() == -(-nano // 10 ** 6)


def test_a_string_parsed_again_is_the_same_and_a_bad_one_names_its_field_each_time():
    first = parse_quantity('1536Mi', 'system_reserved.memory')
    assert parse_quantity('1536Mi', 'kube_reserved.memory') is first and str(first) == '1536Mi'
    for field in ('system_reserved.memory', 'kube_reserved.memory'):
        with pytest.raises(QuantityError) as error:
            parse_quantity('1GB', field)
        assert error.value.field == field


@pytest.mark.parametrize('text, said', [
    ('', 'a number and an optional unit, such as 250m or 2 (CPUs), 512Mi or 1G (bytes)'),
    ('half a gig', 'a number and an optional unit, such as 250m or 2 (CPUs), 512Mi or 1G (bytes)'),
    ('1GB', 'did you mean 1G (10^9) or 1Gi (2^30)?'),
    # Each unit's powers (issue 38's mutation sample: a wrong power of T was let through).
    ('2TB', 'did you mean 2T (10^12) or 2Ti (2^40)?'),
    ('3kb', 'did you mean 3k (10^3) or 3Ki (2^10)?'),
    ('5PB', 'did you mean 5P (10^15) or 5Pi (2^50)?'),
])
def test_a_malformed_quantity_is_said_in_kubelets_words_and_in_plain_words(text, said):
    """Issue 35 (7): kubelet's ErrFormatWrong names a regular expression; the plain words follow it."""
    with pytest.raises(QuantityError) as error:
        parse_quantity(text, 'system_reserved.memory')
    message = str(error.value)
    assert message.startswith("system_reserved.memory: quantities must match the regular expression '^([+-]?")
    assert message.count(said) == 1


@pytest.mark.parametrize('value, rounded_milli', [
    # q.SetMilli((q.ScaledValue(resource.Micro) + 500) / 1000): ScaledValue rounds up to the microcore first, so
    # 28.4995m is 28.5m and then 29m (rounding down first would give 28m).
    ('28499500n', 29),
    ('28499000n', 28),
    ('28.5m', 29),
    ('100m', 100),
])
def test_kubelet_1_37_rounds_a_reserved_cpu_up_to_the_microcore_then_to_the_nearest_millicore(value, rounded_milli):
    rounded = parse_reservation({'cpu': value}, 'system_reserved', round_cpu=True)['cpu']
    assert rounded.nano == rounded_milli * 1000 * 1000
    assert parse_reservation({'cpu': value}, 'system_reserved', round_cpu=False)['cpu'].nano == \
        parse_quantity(value, 'cpu').nano
