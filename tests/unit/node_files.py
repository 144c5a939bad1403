# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Files of a fake node, as the tests lay them out and read them back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os

import yaml


def write_text(path, text):
    """Write text to path, making its directory."""
    if not os.path.isdir(os.path.dirname(path)):
        os.makedirs(os.path.dirname(path))
    with open(path, 'w') as handle:
        handle.write(text)


def digest(path):
    """The file's sha256, to prove it was left byte for byte alone."""
    with open(path, 'rb') as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def read_yaml(path):
    with open(path) as handle:
        return yaml.safe_load(handle)
