# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kubernetes resource.Quantity, ported from k8s.io/apimachinery/pkg/api/resource.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

A quantity is held as an exact integer number of nano-units (Go rounds every
parsed value up to nano precision), plus the Go Format and, like Go, the input
string when it is already in canonical shape. Pure Python, no I/O.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import re

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError

DECIMAL_SI = 'DecimalSI'
BINARY_SI = 'BinarySI'
DECIMAL_EXPONENT = 'DecimalExponent'

NANO = 10 ** 9
MAX_INT64 = (1 << 63) - 1
# Exponents beyond this would only build enormous integers; Go's int64 views are garbage there too.
_MAX_ABS_EXPONENT = 100

_DECIMAL_SUFFIXES = {'n': -9, 'u': -6, 'm': -3, '': 0, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18}
_DECIMAL_SUFFIX_FOR_EXPONENT = dict((v, k) for k, v in _DECIMAL_SUFFIXES.items())
_BINARY_SUFFIXES = {'Ki': 10, 'Mi': 20, 'Gi': 30, 'Ti': 40, 'Pi': 50, 'Ei': 60}
_BINARY_SUFFIX_FOR_POWER = {0: '', 1: 'Ki', 2: 'Mi', 3: 'Gi', 4: 'Ti', 5: 'Pi', 6: 'Ei'}
_SUFFIX_CHARS = 'eEinumkKMGTP'
_DIGITS = '0123456789'


class QuantityError(KubenodeError):
    pass


def _div_away_from_zero(numerator: int, denominator: int) -> int:
    """Integer division rounding away from zero, as Go's quantity scaling does."""
    quotient, remainder = divmod(abs(numerator), denominator)
    if remainder:
        quotient += 1
    return quotient if numerator >= 0 else -quotient


class Quantity(object):
    """An immutable Kubernetes quantity."""

    __slots__ = ('nano', 'fmt', '_s')

    def __init__(self, nano: int, fmt: str, cached: str | None = None) -> None:
        self.nano = nano
        self.fmt = fmt
        self._s = cached

    @classmethod
    def from_int(cls, value: int, fmt: str = DECIMAL_SI) -> Quantity:
        """resource.NewQuantity(value, fmt)."""
        return cls(int(value) * NANO, fmt)

    @classmethod
    def from_milli(cls, milli: int, fmt: str = DECIMAL_SI) -> Quantity:
        """resource.NewMilliQuantity(milli, fmt)."""
        return cls(int(milli) * 10 ** 6, fmt)

    # Go's Value() and MilliValue(): round away from zero.
    def value(self) -> int:
        return _div_away_from_zero(self.nano, NANO)

    def milli_value(self) -> int:
        return _div_away_from_zero(self.nano, 10 ** 6)

    def is_zero(self) -> bool:
        return self.nano == 0

    def sign(self) -> int:
        return (self.nano > 0) - (self.nano < 0)

    def add(self, other: Quantity) -> Quantity:
        # Go: a zero receiver takes the format of what is added to it.
        fmt = other.fmt if self.nano == 0 else self.fmt
        return Quantity(self.nano + other.nano, fmt)

    def sub(self, other: Quantity) -> Quantity:
        fmt = other.fmt if self.nano == 0 else self.fmt
        return Quantity(self.nano - other.nano, fmt)

    def with_value(self, value: int) -> Quantity:
        """Go's q.Set(value): keeps the format."""
        return Quantity(int(value) * NANO, self.fmt)

    def cmp(self, other: Quantity) -> int:
        return (self.nano > other.nano) - (self.nano < other.nano)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.nano == other.nano

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: Quantity) -> bool:
        return self.nano < other.nano

    def __hash__(self) -> int:
        return hash(self.nano)

    def __repr__(self) -> str:
        return 'Quantity(%r)' % str(self)

    def __str__(self) -> str:
        if self._s is None:
            return canonical_string(self.nano, self.fmt)
        return self._s


def canonical_string(nano: int, fmt: str) -> str:
    """Quantity.String() for an uncached quantity (CanonicalizeBytes)."""
    if nano == 0:
        return '0'
    if fmt == BINARY_SI:
        if -1024 * NANO < nano < 1024 * NANO or nano % NANO:
            fmt = DECIMAL_SI
        else:
            value = abs(nano) // NANO
            power = 0
            while value >= 1024 and value % 1024 == 0 and power < 6:
                value //= 1024
                power += 1
            return ('-' if nano < 0 else '') + str(value) + _BINARY_SUFFIX_FOR_POWER[power]
    if fmt not in (DECIMAL_SI, DECIMAL_EXPONENT):
        fmt = DECIMAL_EXPONENT
    mantissa, exponent = abs(nano), -9
    while mantissa >= 10 and mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10 ** shift
    exponent -= shift
    number = ('-' if nano < 0 else '') + str(mantissa)
    if fmt == DECIMAL_SI and exponent in _DECIMAL_SUFFIX_FOR_EXPONENT:
        return number + _DECIMAL_SUFFIX_FOR_EXPONENT[exponent]
    return number if exponent == 0 else '%se%d' % (number, exponent)


def _split(text: str) -> tuple[bool, str, str, str] | None:
    """parseQuantityString: (positive, num, denom, suffix), or None if malformed."""
    positive = True
    pos, end = 0, len(text)
    if pos < end and text[0] in '+-':
        positive = text[0] == '+'
        pos += 1
    while pos < end and text[pos] == '0':
        pos += 1
    if pos >= end:
        return positive, '0', '', ''
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or '0'
    denom = ''
    if pos < end and text[pos] == '.':
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in '+-':
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        return None
    return positive, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int, str] | None:
    """(base, exponent, format) or None."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in 'eE':
        digits = suffix[1:]
        body = digits[1:] if digits[0] in '+-' else digits
        if body and all(c in _DIGITS for c in body):
            return 10, int(digits), DECIMAL_EXPONENT
    return None


# The valid spellings of a unit by its first letter, case aside: (decimal, its power of ten, binary, its power of two).
_UNIT_SPELLINGS = {'k': ('k', 3, 'Ki', 10), 'm': ('M', 6, 'Mi', 20), 'g': ('G', 9, 'Gi', 30),
                   't': ('T', 12, 'Ti', 40), 'p': ('P', 15, 'Pi', 50), 'e': ('E', 18, 'Ei', 60)}
_NUMBER_AND_UNIT = re.compile(r'^([+-]?[0-9.]+)\s*([A-Za-z]+)$')


def suffix_hint(text: str) -> str:
    """': did you mean 1G (10^9) or 1Gi (2^30)?' for a unit written as people do (1GB, 512mb, 2K, 1gib),
    else ''."""
    match = _NUMBER_AND_UNIT.match(text.strip())
    if not match or match.group(2)[0].lower() not in _UNIT_SPELLINGS:
        return ''
    number, unit = match.group(1), match.group(2)
    decimal, ten, binary, two = _UNIT_SPELLINGS[unit[0].lower()]
    if unit in (decimal, binary):
        return ''
    return ': did you mean %s%s (10^%d) or %s%s (2^%d)?' % (number, decimal, ten, number, binary, two)


# resource.ErrFormatWrong, kubelet's words (what kubelet prints for the same string), and the same in plain words.
FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
FORMAT_IN_WORDS = ': a number and an optional unit, such as 250m or 2 (CPUs), 512Mi or 1G (bytes)'

_PARSED: dict = {}
# Enough for every distinct string of a node's options and its pods' requests and limits.
_PARSED_KEPT = 4096


def parse_quantity(text: object, field: str | None = None) -> Quantity:
    """resource.ParseQuantity. Raises QuantityError naming the field and the string.
    Quantities are immutable, so a string parsed once is not parsed again (a plan for 110 pods repeats a
    few strings hundreds of times); what fails is not kept, and raises again naming its own field."""
    if isinstance(text, str):
        found = _PARSED.get(text)
        if found is None:
            if len(_PARSED) >= _PARSED_KEPT:
                _PARSED.clear()
            found = _PARSED[text] = _parse_quantity(text, field)
        return found
    return _parse_quantity(text, field)


def _parse_quantity(text: object, field: str | None) -> Quantity:
    if isinstance(text, bool):
        raise QuantityError('quantities must be strings or numbers', field=field, value=text)
    if isinstance(text, int):
        text = str(text)
    elif isinstance(text, float):
        text = repr(text)
    elif not isinstance(text, str):
        raise QuantityError('quantities must be strings or numbers', field=field, value=text)
    if text == '':
        raise QuantityError(FORMAT_WRONG + FORMAT_IN_WORDS, field=field, value=text)
    if text == '0':
        return Quantity(0, DECIMAL_SI, '0')
    parts = _split(text)
    if parts is None:
        raise QuantityError(FORMAT_WRONG + (suffix_hint(text) or FORMAT_IN_WORDS), field=field, value=text)
    positive, num, denom, suffix = parts
    interpreted = _interpret_suffix(suffix)
    if interpreted is None:
        raise QuantityError('unable to parse quantity\'s suffix' + suffix_hint(text), field=field, value=text)
    base, exponent, fmt = interpreted
    if abs(exponent) > _MAX_ABS_EXPONENT:
        raise QuantityError('quantity exponent is out of range', field=field, value=text)

    numerator, denominator = int(num + denom) * NANO, 10 ** len(denom)
    if base == 2:
        numerator <<= exponent
    elif exponent >= 0:
        numerator *= 10 ** exponent
    else:
        denominator *= 10 ** -exponent
    # Go rounds the magnitude up to the next nano unit.
    nano = _div_away_from_zero(numerator, denominator)
    if fmt == BINARY_SI and nano > MAX_INT64 * NANO:
        nano = MAX_INT64 * NANO
    if fmt == BINARY_SI and nano < NANO and not _binary_fast_path(num, denom, exponent):
        fmt = DECIMAL_SI
    if not positive:
        nano = -nano
    return Quantity(nano, fmt, _cached_form(text, num, denom, base, exponent, fmt))


def _binary_fast_path(num: str, denom: str, exponent: int) -> bool:
    return exponent >= 0 and not denom and _binary_precision(num, exponent) >= 0


def _binary_precision(num: str, exponent: int) -> int:
    # Go: 15 - len(num) - int32(float32(exponent)*3/10) - 1
    return 15 - len(num) - int(exponent * 3 / 10) - 1


def _cached_form(text: str, num: str, denom: str, base: int, exponent: int, fmt: str) -> str | None:
    """The input string, when Go's ParseQuantity keeps it for String()."""
    if base == 2:
        if denom or _binary_precision(num, exponent) < 0:
            return None
        value = int(num)
        if value * (1 << exponent) > MAX_INT64:
            return None
        return text if exponent % 10 == 0 and value & 0x07 else None
    if 18 - (len(num) + len(denom)) < 0:
        return None
    scale = exponent - len(denom)
    if scale < -9:
        return None
    shifted = num + denom
    if scale % 3 == 0 and not shifted.endswith('000') and shifted[0] != '0':
        return text
    return None
