# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Typed option records: what a pure function computes from, named field by field, instead of a dict of
module parameters.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class OptionSet(object):
    """A record of named options. A subclass lists its fields with their defaults in DEFAULTS and names them
    in __slots__; a field not given, or given as None (a module option left unset), takes its default. A
    name that is not a field is a programming error (TypeError), not an operator's."""

    DEFAULTS = ()
    __slots__ = ()

    def __init__(self, **options):
        unknown = sorted(set(options) - set(self.__slots__))
        if unknown:
            raise TypeError('not %s fields: %s' % (type(self).__name__, ', '.join(unknown)))
        for name, default in self.DEFAULTS:
            value = options.get(name)
            setattr(self, name, default if value is None else value)

    @classmethod
    def from_options(cls, params, **changes):
        """The fields among a module's parameters (a mapping that may carry more), with changes."""
        options = dict((name, params.get(name)) for name in cls.__slots__)
        options.update(changes)
        return cls(**options)

    def replace(self, **changes):
        options = dict((name, getattr(self, name)) for name in self.__slots__)
        options.update(changes)
        return type(self)(**options)
