# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AnsibleModule of the modules that write a node.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import contextlib
from collections.abc import Iterator
from typing import Any

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._errors import HostError


class NodeModule(AnsibleModule):
    """The AnsibleModule of the modules that write a node. AnsibleModule's file methods (atomic_move,
    backup_local) end the module with fail_json on an OSError; inside raising_failures() they raise
    HostError instead, so that the run can report what it had applied before (an honest partial result)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._raise_failures = False
        super(NodeModule, self).__init__(*args, **kwargs)

    @contextlib.contextmanager
    def raising_failures(self) -> Iterator[None]:
        self._raise_failures = True
        try:
            yield
        finally:
            self._raise_failures = False

    def fail_json(self, msg: str, **kwargs: Any) -> None:
        if self._raise_failures:
            raise HostError(msg, operation='write')
        super(NodeModule, self).fail_json(msg=msg, **kwargs)
