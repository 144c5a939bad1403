# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The restarts a change leaves and kubelet's health after them, on the node, in one round trip (node_restart).

PRIVATE module_utils: internal to kubenode.cgroups, may change without notice.

The role restarted each service with ansible.builtin.systemd_service and then asked kubelet's health endpoint with
ansible.builtin.uri every 5 s: one module round trip per service and per try, each of which starts Python and
imports ansible-core on the node (3.5 s of a test VM's CPU under TCG, docs/testing.md), while the kubelet it waited
for was starting beside it. Here the services are restarted in the order given and the endpoint asked every
`interval` seconds by one process. Nothing here confirms the change: the gate's verdict and the generation's
confirmation stay on the controller (node_generation), so that a lost controller still leaves the revert to the
node's timer.
"""

from __future__ import absolute_import, annotations, division, print_function

__metaclass__ = type

import time
from collections.abc import Callable, Iterable
from typing import Any, Optional, Tuple

from ansible_collections.kubenode.cgroups.plugins.module_utils.node._systemd import Systemctl

# ask(url, timeout) -> (HTTP status or None when nothing answered, what answered or why nothing did).
Ask = Callable[[str, float], Tuple[Optional[int], str]]


class RestartFailed(Exception):
    """A restart systemd refused: the service and systemctl's words."""

    def __init__(self, service: str, detail: str) -> None:
        super(RestartFailed, self).__init__('%s: %s' % (service, detail))
        self.service = service
        self.detail = detail


def restart_services(systemctl: Systemctl, services: Iterable[str], check_mode: bool,
                     restarted: list[dict[str, Any]]) -> None:
    """`systemctl restart` each service in the order given (the runtime before kubelet, as node_cgroups lists them);
    each one restarted is appended to restarted, so that a failure leaves the ones done in it. Check mode restarts
    nothing and says each would be. Raises RestartFailed at the first refusal: the next ones are not restarted."""
    for service in services:
        if not check_mode:
            rc, out, err = systemctl('restart', service)
            if rc != 0:
                raise RestartFailed(service, (err or out).strip() or 'systemctl restart exited %d' % rc)
        restarted.append({'service': service, 'changed': True})


def wait_healthy(ask: Ask, url: str, timeout: float, interval: float,
                 clock: Optional[Callable[[], float]] = None,
                 sleep: Optional[Callable[[float], Any]] = None) -> dict[str, Any]:
    """Ask url until it answers 200 or timeout seconds have passed: once at once, then every interval seconds, each
    try given at most what is left of the timeout (at least a second). The answer: url, healthy, the last status
    and what it said, the tries and the seconds waited. clock and sleep: time's, unless a test gives its own."""
    clock = clock or time.monotonic
    sleep = sleep or time.sleep
    start = clock()
    tries = 0
    while True:
        left = timeout - (clock() - start)
        status, said = ask(url, max(1.0, min(left, 5.0)))
        tries += 1
        waited = clock() - start
        if status == 200:
            return {'url': url, 'healthy': True, 'status': status, 'said': said, 'tries': tries,
                    'seconds': round(waited, 1)}
        if waited + interval > timeout:
            return {'url': url, 'healthy': False, 'status': status, 'said': said, 'tries': tries,
                    'seconds': round(waited, 1)}
        sleep(interval)


def unhealthy_message(health: dict[str, Any], timeout: float) -> str:
    """The health gate's failure, as the role words it: the url, the timeout and kubelet's last answer."""
    return 'kubelet did not answer %s with 200 within %s s of its restart (%s)' % (
        health['url'], timeout, health['said'] or health['status'])
