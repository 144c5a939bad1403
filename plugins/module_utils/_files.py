# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a node's small text files, and replacing a configuration file (unit, drop-in, kubelet
configuration) atomically.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import tempfile


def replace_file(module, path, content, mode=None, unsafe_writes=False):
    """Write content to path through a temp file and AnsibleModule.atomic_move, making the directory when
    missing. atomic_move keeps an existing file's mode and owner; mode, when given, is set afterwards
    (a new file otherwise gets the umask's)."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    fd, temp = tempfile.mkstemp(dir=module.tmpdir)
    with os.fdopen(fd, 'w') as handle:
        handle.write(content)
    module.atomic_move(temp, path, unsafe_writes=unsafe_writes)
    if mode is not None:
        os.chmod(path, mode)


def read_text(path):
    """A small file's text, or None when it cannot be read (missing, a directory, no permission)."""
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None
