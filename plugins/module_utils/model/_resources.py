# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Resource lists: capacity, reservations, cpusets and how quantities are reported.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import re
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._quantity import Quantity, parse_quantity

# kubelet's v1.ResourceList: a resource's name to its quantity.
ResourceList = dict[str, Quantity]

RESERVABLE = ('cpu', 'memory', 'ephemeral-storage', 'pid')
HUGEPAGES_PREFIX = 'hugepages-'
_INT_RE = re.compile(r'^[+-]?[0-9]+$')


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def hugepage_size_bytes(name: str, field: str | None = None) -> int:
    """The page size of a "hugepages-2Mi" resource name, in bytes."""
    size = parse_quantity(name[len(HUGEPAGES_PREFIX):], field or name)
    if size.value() <= 0:
        raise KubenodeError('hugepage size must be positive', field=field or name, value=name)
    return size.value()


def parse_capacity(capacity: object, field: str = 'capacity') -> dict[str, Quantity]:
    """A capacity map of quantity strings or numbers. Plain numbers for cpu mean cores."""
    if not isinstance(capacity, dict):
        raise KubenodeError('must be a mapping of resource name to quantity', field=field, value=capacity)
    result = {}
    for name, value in capacity.items():
        name = str(name)
        quantity = parse_quantity(value, '%s.%s' % (field, name))
        if quantity.sign() < 0:
            raise KubenodeError('capacity cannot be negative', field='%s.%s' % (field, name), value=value)
        if is_hugepages(name):
            hugepage_size_bytes(name, '%s.%s' % (field, name))
        result[name] = quantity
    return result


def parse_reservation(reserved: object, field: str, round_cpu: bool) -> dict[str, Quantity]:
    """kubelet's parseResourceList for --system-reserved / --kube-reserved; round_cpu: kubelet 1.37's rounding of
    CPU to whole millicores (rules.rounds_reserved_cpu)."""
    if reserved is None:
        return {}
    if not isinstance(reserved, dict):
        raise KubenodeError('must be a mapping of resource name to quantity', field=field, value=reserved)
    result = {}
    for name, value in reserved.items():
        name = str(name)
        if name not in RESERVABLE:
            raise KubenodeError('cannot reserve "%s" resource; only %s can be reserved'
                                % (name, ', '.join(RESERVABLE)), field=field, value=name)
        try:
            quantity = parse_quantity(value, '%s.%s' % (field, name))
        except KubenodeError as error:
            raise KubenodeError('failed to parse quantity "%s" for "%s" resource: %s' % (value, name, error.message),
                                field='%s.%s' % (field, name), value=value)
        if quantity.sign() < 0:
            raise KubenodeError('resource quantity for "%s" cannot be negative: %s' % (name, value),
                                field='%s.%s' % (field, name), value=value)
        if name == 'cpu' and round_cpu:
            # 1.37: q.SetMilli((q.ScaledValue(resource.Micro) + 500) / 1000), CPU to the nearest whole millicore from
            # microcores rounded up (the kubelet judge found 28.5m reserving 29m there, 28.5m before).
            micro = -(-quantity.nano // 1000)
            quantity = Quantity.from_milli((micro + 500) // 1000)
        result[name] = quantity
    return result


def parse_cpuset(text: object, field: str) -> list[int]:
    """k8s.io/utils/cpuset.Parse: "0-3,8" -> sorted list of CPU ids."""
    if text is None or text == '':
        return []
    if not isinstance(text, str):
        text = str(text)
    cpus: set[int] = set()
    for part in text.split(','):
        bounds = part.split('-', 1)
        if not all(_INT_RE.match(b) for b in bounds):
            raise KubenodeError('invalid cpuset: strconv.Atoi: parsing "%s": invalid syntax' % part,
                                field=field, value=text)
        numbers = [int(b) for b in bounds]
        if any(n < 0 for n in numbers):
            raise KubenodeError('invalid cpuset: CPU ids cannot be negative', field=field, value=text)
        if len(numbers) == 2:
            start, end = numbers
            if start > end:
                raise KubenodeError('invalid cpuset: invalid range "%s" (%d > %d)' % (part, start, end),
                                    field=field, value=text)
            cpus.update(range(start, end + 1))
        else:
            cpus.add(numbers[0])
    return sorted(cpus)


def format_cpuset(cpus: Iterable[int]) -> str:
    """The kernel's list format: [0, 1, 2, 5] -> "0-2,5"."""
    ranges: list[list[int]] = []
    for cpu in sorted(cpus):
        if ranges and ranges[-1][1] == cpu - 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ','.join(str(a) if a == b else '%d-%d' % (a, b) for a, b in ranges)


def report(quantity: Quantity, name: str) -> dict[str, Any]:
    """A quantity as the modules return it: canonical string and integer.

    The integer is millicores for cpu and whole units (bytes, pages, pids, pods) otherwise.
    """
    return {'quantity': str(quantity), 'value': quantity.milli_value() if name == 'cpu' else quantity.value()}


_BINARY_UNITS = (('TiB', 1 << 40), ('GiB', 1 << 30), ('MiB', 1 << 20), ('KiB', 1 << 10))
_BYTE_RESOURCES = ('memory', 'ephemeral-storage', 'storage')


def _trimmed(number: float, digits: int) -> str:
    text = '%.*f' % (digits, number)
    return text.rstrip('0').rstrip('.') if '.' in text else text


def _human_bytes(value: int) -> str:
    """Bytes in the largest binary unit they fill, at most one decimal: 256Mi is "256 MiB", never "0.2 GiB"."""
    for unit, size in _BINARY_UNITS:
        if abs(value) >= size:
            return '%s %s' % (_trimmed(value / float(size), 1), unit)
    return '%d B' % value if value else '0'


def human_quantity(quantity: Quantity, name: str) -> str:
    """A quantity for people: cores for cpu, binary units for bytes (at most one decimal), the count
    otherwise. Rounded, so reports show it beside the exact quantity."""
    parsed = parse_quantity(quantity, name)
    if name == 'cpu':
        cores = parsed.milli_value() / 1000.0
        return '%s core%s' % (_trimmed(cores, 2), '' if cores == 1 else 's')
    value = parsed.value()
    if name in _BYTE_RESOURCES or name.startswith('hugepages-'):
        return _human_bytes(value)
    return str(value)


def human_row(quantities: Sequence[object], name: str) -> list[str]:
    """A report row for people: quantities (quantity strings, None for none) whose first is the whole and
    the rest its parts, in the whole's unit. When the parts add up to the whole exactly, they are rounded
    so that the figures shown add up as well (largest remainder); else each is rounded alone. A part of bytes
    under one of the whole's unit is shown in its own (256 MiB, not 0.2 GiB)."""
    parsed = [None if q is None else parse_quantity(q, name) for q in quantities]
    if name == 'cpu':
        exact = [None if q is None else q.milli_value() for q in parsed]
        size, unit, digits = 1000, 'cores', 2
    elif name in _BYTE_RESOURCES or name.startswith('hugepages-'):
        exact = [None if q is None else q.value() for q in parsed]
        whole = exact[0] or 0
        size, unit = next(((s, u) for u, s in _BINARY_UNITS if abs(whole) >= s), (1, 'B'))
        digits = 1 if size > 1 else 0
    else:
        return ['-' if q is None else str(q.value()) for q in parsed]
    scale = 10 ** digits
    steps = [None if v is None else Fraction(v * scale, size) for v in exact]
    shown = [None if v is None else int(round(v)) for v in steps]
    parts = [(i, v) for i, v in enumerate(steps[1:], 1) if v is not None]
    if steps[0] is not None and parts and sum(v for _i, v in parts) == steps[0] and all(v >= 0 for _i, v in parts):
        floors = dict((i, int(v)) for i, v in parts)  # v >= 0: int() floors
        short = (shown[0] or 0) - sum(floors.values())
        for i, _v in sorted(parts, key=lambda item: (-(item[1] - int(item[1])), item[0]))[:max(short, 0)]:
            floors[i] += 1
        shown = [shown[0]] + [floors.get(i, shown[i]) for i in range(1, len(shown))]

    def text(steps_shown: int | None, value: int | None) -> str:
        if value is None:
            return '-'
        if value == 0:
            return '0'
        if unit != 'cores' and abs(value) < size:
            return _human_bytes(value)
        number = _trimmed((steps_shown or 0) / float(scale), digits)
        if name == 'cpu':
            return '%s core%s' % (number, '' if number == '1' else 's')
        return '%s %s' % (number, unit)
    return [text(count, value) for count, value in zip(shown, exact)]


def report_list(resources: Mapping[str, Quantity]) -> dict[str, dict[str, Any]]:
    return dict((name, report(q, name)) for name, q in sorted(resources.items()))


def cpu_quantity(count: int) -> Quantity:
    """strconv.Itoa(cpus) parsed as a quantity: what reservedSystemCPUs puts in systemReserved."""
    return parse_quantity(str(count))
