#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fleet_merge
short_description: Merge node results from any number of runs into the fleet report's entries
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Reads node results (M(kubenode.cgroups.node_results)) from directories, shard files, AWX artifact dumps and
    artifacts passed as variables, and returns one entry per node for the fleet report - the entries a single run's
    report is rendered from, so that a report merged from the slices of an AWX job, or from nodes that ran
    C(ansible-pull), reads as the report of one run over the same fleet.
  - A node with more than one result keeps the newest. A node named in O(hosts) without any is C(not reached).
  - Runs on the controller only. The playbook C(kubenode.cgroups.report) calls it.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.info_module
options:
  shards:
    description:
      - Directories (their C(*.json) files), shard files and AWX artifact dumps (JSON mappings of
        C(kubenode_cgroups_node__*) keys). A comma-separated string is split.
      - Also ansible-runner's artifacts as AWX runs a job slice with them (C(PRIVATE_DATA_DIR/artifacts) or one run's
        C(artifacts/IDENT)), read from the C(artifact_data) of their C(playbook_on_stats) job event; a job event file;
        a downloaded AWX job (its C(artifacts)) or its job events (a page of AWX's API or a list).
    type: list
    elements: path
    default: []
  artifacts:
    description:
      - Artifacts as variables (a workflow node's extra variables), the C(kubenode_cgroups_node__*) ones.
    type: dict
    default: {}
  hosts:
    description:
      - The nodes the report is about, in order (the inventory's); those with no result are C(not reached).
    type: list
    elements: str
    default: []
  report_dir:
    description:
      - Render the fleet report (C(index.html), C(report.md), C(report.json)) into this absolute directory, from the
        role C(kubenode.cgroups.node_audit)'s templates, and leave RV(fleet) out of the result (thousands of nodes'
        plans). Unset, only RV(fleet) is returned.
    type: path
"""

EXAMPLES = r"""
- name: Merge the shards of four slices and what two nodes kept in pull mode into the fleet report
  kubenode.cgroups.fleet_merge:
    shards: [/srv/reports/slice1/nodes, /srv/reports/slice2/nodes, /tmp/artifacts-412.json, /srv/pulled]
    hosts: "{{ groups['all'] }}"
    report_dir: /srv/reports/fleet
"""

RETURN = r"""
fleet:
  description: One entry per node (host, status, message, operations, summary, sizing, impact), the inventory's
    nodes first in its order.
  returned: when O(report_dir) is not given
  type: list
  elements: dict
runs:
  description: The runs merged (run, label, nodes, written), oldest first.
  returned: always
  type: list
  elements: dict
counted:
  description: How many shards were read, how many were older duplicates, how many nodes were not reached.
  returned: always
  type: dict
  sample: {shards: 101, duplicates: 1, not_reached: 2}
written:
  description: The report files written (those that changed).
  returned: when O(report_dir) is given
  type: list
  elements: str
"""
