#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: node_results
short_description: Keep each node's outcome of a run as a shard (a file, an AWX artifact) and write its report
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Turns the fleet report's entries of this run (one per node, read from the play's variables unless O(fleet)
    gives them) into node results, one versioned JSON document per node (its schema is in C(docs/shards.md)), and keeps them where the engine keeps
    them - files in O(dir) on the controller, one per node, and, with O(artifacts), the job's artifacts the way
    M(ansible.builtin.set_stats) sets them (AWX and Automation Platform keep them and hand them to the next node of
    a workflow).
  - Nodes this run has no result for (C(not reached)) get no shard; the merge (M(kubenode.cgroups.fleet_merge))
    reports them from the inventory.
  - Runs on the controller only. Under C(ansible-pull) the controller is the node, and O(dir) is a path on it.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.role_action
attributes:
  diff_mode:
    support: none
options:
  fleet:
    description:
      - The fleet report's entries, one mapping per node (C(host), C(status), C(message), C(operations),
        C(summary), C(sizing), C(impact)).
      - Unset, they are read from the play, once for every host of it (C(ansible_play_hosts_all)) - what the roles
        left in each host's variables - C(failed) where the node playbook's rescue set C(node_allocatable_failed),
        C(applied), C(would apply) or C(unchanged) where the node_allocatable role's task ran, C(audited) where
        only C(node_audit_result) is set, and C(not reached) otherwise.
    type: list
    elements: dict
  dir:
    description:
      - An absolute directory for the shard files (C(HOST.json), written atomically). Unset, no file.
    type: path
  artifacts:
    description:
      - Also return the shards as job artifacts, one key per node (C(kubenode_cgroups_node__HOST)), each with its
        plan cut to what the report shows, so that AWX's artifact merge keeps every slice's nodes.
    type: bool
    default: false
  run:
    description: What the shards say of this run, such as C(id), C(playbook) and C(check_mode).
    type: dict
    default: {}
  name_local_node:
    description: Name a node the inventory calls C(localhost) by the machine's name (C(ansible-pull)).
    type: bool
    default: false
  report_dir:
    description:
      - Also render this run's fleet report (C(index.html), C(report.md), C(report.json)) into this absolute
        directory, from the same entries, with the role C(kubenode.cgroups.node_audit)'s templates.
    type: path
"""

EXAMPLES = r"""
- name: Keep every node's result beside the report, and as the job's artifacts under AWX
  kubenode.cgroups.node_results:
    dir: /srv/reports/nodes
    artifacts: "{{ awx_job_id is defined }}"
    run: {id: "{{ awx_job_id | default('manual') }}", playbook: node}
  run_once: true
"""

RETURN = r"""
written:
  description: The shard and report files written (those that changed).
  returned: always
  type: list
  elements: str
hosts:
  description: The nodes a shard was made for.
  returned: always
  type: list
  elements: str
time:
  description: When the shards say they were written (UTC, microseconds).
  returned: always
  type: str
"""
