# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Typed option records: what a pure function computes from, named field by field, instead of a dict of
module parameters.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Mapping
from typing import Any, TypeVar

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import KubenodeError


def refuse_nul(value: object, field: str) -> None:
    """Raise naming the field when a string in value (walked through lists and mappings, keys included)
    holds a NUL byte: no path, cgroup or unit name can, and the kernel's refusal would come only at the
    write, after others were made."""
    if isinstance(value, str):
        if '\x00' in value:
            raise KubenodeError('must not contain a NUL byte', field=field, value=value)
    elif isinstance(value, dict):
        for key, item in value.items():
            refuse_nul(key, field)
            refuse_nul(item, '%s.%s' % (field, key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            refuse_nul(item, '%s[%d]' % (field, index))


_Record = TypeVar('_Record', bound='OptionSet')


class OptionSet(object):
    """A record of named options. A subclass lists its fields with their defaults in DEFAULTS and names them
    in __slots__; a field not given, or given as None (a module option left unset), takes its default. A
    name that is not a field is a programming error (TypeError), not an operator's; a NUL byte in any
    string is the operator's (KubenodeError)."""

    DEFAULTS: tuple[tuple[str, Any], ...] = ()
    __slots__: tuple[str, ...] = ()

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.__slots__))
        if unknown:
            raise TypeError('not %s fields: %s' % (type(self).__name__, ', '.join(unknown)))
        for name, default in self.DEFAULTS:
            value = options.get(name)
            if value is None:
                value = default
            else:
                refuse_nul(value, name)
            setattr(self, name, value)

    @classmethod
    def from_options(cls: type[_Record], params: Mapping[str, Any], **changes: Any) -> _Record:
        """The fields among a module's parameters (a mapping that may carry more), with changes."""
        options = dict((name, params.get(name)) for name in cls.__slots__)
        options.update(changes)
        return cls(**options)

    def replace(self: _Record, **changes: Any) -> _Record:
        options = dict((name, getattr(self, name)) for name in self.__slots__)
        options.update(changes)
        return type(self)(**options)
