# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""NodeSpec, the typed specification one node_cgroups run (or audit) works from, read from the options whose
argument specifications and path defaults are in _node_argspec.

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ansible_collections.kubenode.cgroups.plugins.module_utils.model._allocatable import PlanOptions
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._node_plan import NodePlan
from ansible_collections.kubenode.cgroups.plugins.module_utils.model._option_set import refuse_nul
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import service_name
from ansible_collections.kubenode.cgroups.plugins.module_utils.run._node_argspec import (
    NODE_PATHS, generations_dir_for, lock_path_for, node_cgroups_argument_spec, paths_under_root)

# The paths that follow cgroupfs_path when not given (beside a fake node's tree, never this machine's).
FOLLOWING = ('lock_path', 'generations_dir')


class NodeSpec(object):
    """One node_cgroups run's (or audit's) options, validated and typed: the node's paths, what to plan (the
    plan options, or a plan given), what to manage and how. kubelet's NodeConfig is the model; the planner,
    the snapshot readers and the step planners read it, never the raw module parameters."""

    __slots__ = tuple(sorted(set(node_cgroups_argument_spec()) | {'check_mode'}))
    # The fields __init__ sets itself; the others are read through __getattr__ below.
    lock_path: str
    generations_dir: str
    plan: NodePlan | None
    check_mode: bool

    if TYPE_CHECKING:
        # The fields are node_cgroups' options (__slots__, from its argument spec), which the checker cannot see.
        def __getattr__(self, name: str) -> Any:
            """An option's value."""

    def __init__(self, params: Mapping[str, Any], check_mode: bool = False) -> None:
        spec = node_cgroups_argument_spec()
        for name in spec:
            value = params.get(name, spec[name].get('default'))
            refuse_nul(value, name)
            setattr(self, name, list(value) if isinstance(value, (list, tuple)) else value)
        for name, value in paths_under_root(self.node_root, dict((n, getattr(self, n)) for n, _u in NODE_PATHS),
                                            [n for n, _usual in NODE_PATHS if n not in FOLLOWING]).items():
            setattr(self, name, value)
        if self.lock_path is None:
            self.lock_path = lock_path_for(self.cgroupfs_path)
        if self.generations_dir is None:
            self.generations_dir = generations_dir_for(self.cgroupfs_path)
        paths_under_root(self.node_root, {'lock_path': self.lock_path, 'generations_dir': self.generations_dir},
                         list(FOLLOWING))
        if self.plan is not None:
            self.plan = NodePlan.from_dict(self.plan)  # a plan given back: allocatable_info's dict
        self.check_mode = check_mode

    def with_changes(self, **changes: Any) -> NodeSpec:
        """A copy of this specification with some options changed (the original stays as the operator gave it)."""
        copy = NodeSpec.__new__(NodeSpec)
        for name in self.__slots__:
            setattr(copy, name, changes[name] if name in changes else getattr(self, name))
        return copy

    def plan_options(self, **changes: Any) -> PlanOptions:
        """The PlanOptions plan_node() takes, from this specification, with changes."""
        return PlanOptions(**dict(((name, getattr(self, name)) for name in PlanOptions.__slots__
                                   if name in self.__slots__), **changes))

    def kubelet_unit(self) -> str:
        return service_name(self.kubelet_service)

    def kubelet_config_option(self, name: str, fallback: Any = None) -> Any:
        """One of kubelet_config's suboptions, or fallback when kubelet_config is not given."""
        options = self.kubelet_config or {}
        value = options.get(name)
        return fallback if value is None else value
