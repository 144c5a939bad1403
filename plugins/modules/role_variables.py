#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: role_variables
short_description: Warn about, or refuse, a role's variables that its argument spec does not know
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Lists the variables of this host whose names start with O(prefix) but that the calling role's
    C(meta/argument_specs.yml) does not declare, and warns about each with the closest declared name.
    Ansible's argument validation ignores unknown variables, so a misspelled one such as
    C(node_allocatable_sytem_reserved) would otherwise leave the role's default in place without a word.
  - Runs on the controller only; used by the roles of this collection as their first task, with
    C(run_once), as it checks every host of the play's current batch (through C(hostvars)).
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.role_action
attributes:
  diff_mode:
    support: none
options:
  prefix:
    description: The prefix of the role's variables, for example C(node_allocatable_).
    type: str
    required: true
  entry_point:
    description: The entry point of the role's argument spec whose options are the known names.
    type: str
    default: main
  unknown:
    description:
      - C(warn) warns about each unknown variable; C(fail) fails the task, naming each with the closest known
        name (the roles of this collection fail by default, before anything is written).
    type: str
    choices: [warn, fail]
    default: warn
"""

EXAMPLES = r"""
- name: Warn about misspelled role variables, on every host of the batch
  kubenode.cgroups.role_variables:
    prefix: node_allocatable_
  run_once: true

- name: Stop the play on a misspelled role variable, before anything is written
  kubenode.cgroups.role_variables:
    prefix: node_allocatable_
    unknown: fail
  run_once: true
"""

RETURN = r"""
unknown:
  description: The unknown variables, each with the closest known name (null when none is close) and the
    hosts of the batch that have it.
  returned: always
  type: list
  elements: dict
  sample: [{name: node_allocatable_sytem_reserved, closest: node_allocatable_system_reserved, hosts: [node1]}]
"""
