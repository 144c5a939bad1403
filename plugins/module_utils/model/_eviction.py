# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hard-eviction thresholds as kubelet parses and resolves them.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

Sources: kubernetes pkg/kubelet/eviction/helpers.go (parseThresholdStatement,
hardEvictionReservation), pkg/kubelet/eviction/api/types.go (GetThresholdQuantity),
pkg/kubelet/apis/config/v1beta1/defaults_linux.go.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import math
import re
import struct
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import (
    BINARY_SI, Quantity, parse_quantity)

if TYPE_CHECKING:  # the rules are passed in: only the type checker needs their class
    from ansible_collections.kubenode.cgroups.plugins.module_utils.model._versions import KubeletRules

SIGNALS = (
    'memory.available', 'allocatableMemory.available', 'nodefs.available', 'nodefs.inodesFree',
    'imagefs.available', 'imagefs.inodesFree', 'containerfs.available', 'containerfs.inodesFree',
    'pid.available',
)
# Signals whose hard threshold is taken out of Node Allocatable, and from which resource.
RESERVING_SIGNALS = {'memory.available': 'memory', 'nodefs.available': 'ephemeral-storage'}

_FLOAT_RE = re.compile(r'^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$')
_FLOAT32_MAX = 3.4028234663852886e38


def default_eviction_hard(rules: KubeletRules) -> dict[str, str]:
    defaults = {
        'memory.available': '100Mi',
        'nodefs.available': '10%',
        'nodefs.inodesFree': '5%',
        'imagefs.available': '15%',
    }
    if rules.eviction_defaults_include_imagefs_inodes:
        defaults['imagefs.inodesFree'] = '5%'
    return defaults


def _round_to_float32(value: Fraction) -> float:
    """Round an exact Fraction to the nearest float32 (ties to even), as strconv.ParseFloat(s, 32)."""
    if value == 0:
        return 0.0
    negative = value < 0
    value = abs(value)
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if value < Fraction(2) ** exponent:
        exponent -= 1
    elif value >= Fraction(2) ** (exponent + 1):
        exponent += 1
    shift = max(exponent - 23, -149)
    scaled = value / Fraction(2) ** shift
    mantissa = scaled.numerator // scaled.denominator
    remainder = scaled - mantissa
    if remainder > Fraction(1, 2) or (remainder == Fraction(1, 2) and mantissa % 2):
        mantissa += 1
    result = math.ldexp(mantissa, shift)
    if result > _FLOAT32_MAX:
        raise OverflowError('value out of range')
    return -result if negative else result


def _to_float32(value: float) -> float:
    return struct.unpack('f', struct.pack('f', value))[0]


def parse_percentage(text: str, field: str) -> float:
    """parsePercentage: float32(ParseFloat(s without "%", 32)) / 100, in float32."""
    number = text.rstrip('%')
    if not _FLOAT_RE.match(number):
        raise KubenodeError('invalid percentage: strconv.ParseFloat: parsing "%s": invalid syntax' % number,
                            field=field, value=text)
    try:
        value = _round_to_float32(Fraction(number))
    except OverflowError:
        raise KubenodeError('invalid percentage: strconv.ParseFloat: parsing "%s": value out of range' % number,
                            field=field, value=text)
    return _to_float32(value / 100.0)


class Threshold(object):
    __slots__ = ('signal', 'quantity', 'percentage')

    def __init__(self, signal: str, quantity: Quantity | None = None, percentage: float | None = None) -> None:
        self.signal = signal
        self.quantity = quantity
        self.percentage = percentage

    def resolve(self, capacity: Quantity | None) -> Quantity:
        """GetThresholdQuantity: the quantity, or int64(float64(capacity) * float64(pct))."""
        if self.quantity is not None:
            return self.quantity
        capacity_value = capacity.value() if capacity is not None else 0
        percentage = self.percentage or 0.0  # a threshold holds a quantity or a percentage
        return Quantity.from_int(int(float(capacity_value) * percentage), BINARY_SI)


def parse_threshold(signal: str, value: object, field: str) -> Threshold | None:
    """parseThresholdStatement. None for the ignored "0%" and "100%"."""
    if signal not in SIGNALS:
        raise KubenodeError('unsupported eviction signal %s; supported signals are %s'
                            % (signal, ', '.join(SIGNALS)), field=field, value=signal)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise KubenodeError('eviction threshold must be a quantity or a percentage', field='%s.%s' % (field, signal),
                            value=value)
    text = str(value)
    if text.endswith('%'):
        if text in ('0%', '100%'):
            return None
        percentage = parse_percentage(text, '%s.%s' % (field, signal))
        if percentage < 0:
            raise KubenodeError('eviction percentage threshold %s must be >= 0%%' % signal,
                                field='%s.%s' % (field, signal), value=text)
        if percentage > 1:
            raise KubenodeError('eviction percentage threshold %s must be <= 100%%' % signal,
                                field='%s.%s' % (field, signal), value=text)
        return Threshold(signal, percentage=percentage)
    quantity = parse_quantity(text, '%s.%s' % (field, signal))
    if quantity.sign() <= 0:
        raise KubenodeError('eviction threshold %s must be positive' % signal,
                            field='%s.%s' % (field, signal), value=text)
    return Threshold(signal, quantity=quantity)


def _flag_form_to_map(text: str, field: str) -> dict[str, str]:
    """--eviction-hard's "memory.available<100Mi,nodefs.available<10%" form."""
    result = {}
    for statement in [s for s in text.split(',') if s.strip()]:
        if '<' not in statement:
            operator = next((op for op in ('<=', '>=', '>', '=', '!=') if op in statement), None)
            if operator:
                raise KubenodeError('unsupported eviction operator "%s"; hard eviction thresholds only use "<" '
                                    '(LessThan)' % operator, field=field, value=statement)
            raise KubenodeError('malformed pair, expect string<string', field=field, value=statement)
        key, threshold = statement.split('<', 1)
        result[key.strip()] = threshold.strip()
    return result


def resolve_eviction_hard(eviction_hard: object, merge_defaults: bool | None, rules: KubeletRules,
                          field: str = 'eviction_hard', keep_defaults: bool = False) -> tuple[dict[str, Any], list[str]]:
    """(the evictionHard map kubelet ends up with, the default signals added to it).

    kubelet takes its defaults when evictionHard is unset and resets every signal a given map leaves
    out (kubernetes#112057), unless mergeDefaultEvictionSettings. keep_defaults is ours: the release's
    defaults are written out beside the given signals, so that a map which names memory alone does not
    switch off kubelet's disk eviction, on every release. A signal set to "0%" stays off.
    """
    if merge_defaults and not rules.has_merge_default_eviction_settings:
        raise KubenodeError('mergeDefaultEvictionSettings exists only from kubelet 1.33',
                            field='merge_default_eviction_settings', value=merge_defaults)
    if eviction_hard is None:
        return dict(default_eviction_hard(rules)), []
    if isinstance(eviction_hard, str):
        eviction_hard = _flag_form_to_map(eviction_hard, field)
    if not isinstance(eviction_hard, dict):
        raise KubenodeError('must be a mapping of eviction signal to threshold', field=field, value=eviction_hard)
    resolved = dict((str(k), v) for k, v in eviction_hard.items())
    added = []
    if merge_defaults or keep_defaults:
        for signal, value in sorted(default_eviction_hard(rules).items()):
            if signal not in resolved:
                resolved[signal] = value
                added.append(signal)
    return resolved, added


def parse_thresholds(eviction_map: Mapping[str, Any], field: str = 'eviction_hard') -> list[Threshold]:
    thresholds = []
    for signal in sorted(eviction_map):
        threshold = parse_threshold(signal, eviction_map[signal], field)
        if threshold is not None:
            thresholds.append(threshold)
    return thresholds


def hard_eviction_reservation(thresholds: Iterable[Threshold], capacity: Mapping[str, Quantity]) -> dict[str, Quantity]:
    """hardEvictionReservation: only memory.available and nodefs.available reserve anything."""
    reservation = {}
    for threshold in thresholds:
        resource = RESERVING_SIGNALS.get(threshold.signal)
        if resource is not None:
            reservation[resource] = threshold.resolve(capacity.get(resource))
    return reservation
