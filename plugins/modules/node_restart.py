#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: node_restart
short_description: Restart the services a change left running with an older configuration, then wait for kubelet's health
version_added: 0.1.0
author:
  - kubenode.cgroups contributors (@kubenode)
description:
  - Restarts each unit of O(services) with C(systemctl restart), in the order given, and stops at the first one
    systemd refuses. M(kubenode.cgroups.node_cgroups) lists them in that order, the container runtime before kubelet,
    as RV(kubenode.cgroups.node_cgroups#module:restart_pending).
  - With O(health_url), then asks kubelet's health endpoint on the node every O(health_interval) seconds until it
    answers 200, and fails naming the URL and kubelet's last answer when O(health_timeout) seconds pass first.
  - One round trip for the restarts and the wait. The node_allocatable role runs it after a change, before the
    gate's last checks; the change's confirmation stays with M(kubenode.cgroups.node_generation), asked by the
    controller, so that a controller lost meanwhile leaves the revert to the node's timer.
extends_documentation_fragment:
  - kubenode.cgroups.attributes
  - kubenode.cgroups.attributes.node_change
attributes:
  check_mode:
    support: full
    details:
      - Restarts nothing, waits for nothing, and returns each service as one it would restart.
options:
  services:
    description: The systemd units to restart, in order.
    type: list
    elements: str
    required: true
  health_url:
    description:
      - Kubelet's health endpoint, asked on the node after the last restart (kubelet's C(healthzBindAddress) and
        C(healthzPort)). Not asked when empty.
    type: str
  health_timeout:
    description: Seconds kubelet has, from the last restart, to answer O(health_url) with 200.
    type: int
    default: 120
  health_interval:
    description: Seconds between two tries of O(health_url).
    type: int
    default: 1
"""

EXAMPLES = r"""
- name: Restart containerd, then kubelet, and wait until kubelet is healthy
  kubenode.cgroups.node_restart:
    services: [containerd.service, kubelet.service]
    health_url: http://127.0.0.1:10248/healthz
    health_timeout: 120
"""

RETURN = r"""
failure:
  description: On failure, V(input) (the options, mended in the inventory) or V(host) (the node refused; a retry may pass).
  type: str
  returned: failure
  sample: input
restarted:
  description: The services restarted (in check mode, those that would be), in order; after a refusal, those before it.
  returned: always
  type: list
  elements: dict
  contains:
    service:
      description: The unit.
      type: str
    changed:
      description: Always true for a unit in the list.
      type: bool
  sample: [{service: containerd.service, changed: true}, {service: kubelet.service, changed: true}]
health:
  description: Kubelet's answer to O(health_url) after the restarts; none in check mode or without a URL.
  returned: always
  type: dict
  contains:
    url:
      description: The URL asked.
      type: str
    healthy:
      description: Whether it answered 200 within O(health_timeout).
      type: bool
    status:
      description: The last HTTP status, none when nothing answered.
      type: int
    said:
      description: What the last try got, or why it got nothing.
      type: str
    tries:
      description: How many times it was asked.
      type: int
    seconds:
      description: Seconds from the last restart to the last try.
      type: float
  sample: {url: http://127.0.0.1:10248/healthz, healthy: true, status: 200, said: ok, tries: 4, seconds: 3.2}
failed_step:
  description: On failure, V(restart) (systemd refused a restart, RV(failed_service) names it) or V(health).
  returned: failure
  type: str
failed_service:
  description: The unit systemd refused to restart.
  returned: when O(services) failed to restart
  type: str
"""

from http.client import HTTPException

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.urls import open_url

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _restart as restart
from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import runner


def ask_url(url, timeout):
    """(HTTP status, what it said) of a GET of url, or (None, why nothing answered)."""
    try:
        response = open_url(url, timeout=timeout, validate_certs=False)
        return response.getcode(), to_text(response.read(200), errors='replace').strip()
    except (IOError, OSError, HTTPException, ValueError) as error:  # URLError, HTTPError, a timeout, a reset
        status = getattr(error, 'code', None)
        # URLError's reason ("[Errno 111] Connection refused"), not its wrapper's words.
        return (status if isinstance(status, int) else None), to_text(getattr(error, 'reason', None) or error)


def main():
    module = AnsibleModule(argument_spec=dict(
        services=dict(type='list', elements='str', required=True),
        health_url=dict(type='str'),
        health_timeout=dict(type='int', default=120),
        health_interval=dict(type='int', default=1),
    ), supports_check_mode=True)
    params = module.params
    if params['health_timeout'] < 0:
        module.fail_json(msg='health_timeout: must be zero or more, got %s' % params['health_timeout'], failure='input')
    if params['health_interval'] <= 0:
        module.fail_json(msg='health_interval: must be positive, got %s' % params['health_interval'], failure='input')
    restarted = []
    try:
        restart.restart_services(runner(module), params['services'], module.check_mode, restarted)
    except restart.RestartFailed as error:
        module.fail_json(msg=error.detail, failure='host', failed_step='restart', failed_service=error.service, restarted=restarted,
                         health=None, changed=bool(restarted))
    health = None
    if params['health_url'] and restarted and not module.check_mode:
        health = restart.wait_healthy(ask_url, params['health_url'], params['health_timeout'], params['health_interval'])
        if not health['healthy']:
            module.fail_json(msg=restart.unhealthy_message(health, params['health_timeout']), failure='host', failed_step='health',
                             restarted=restarted, health=health, changed=True)
    module.exit_json(changed=bool(restarted), restarted=restarted, health=health)


if __name__ == '__main__':
    main()
