# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_restart: the restarts in order, stopped at the first refusal, and kubelet's health asked until it answers
or the timeout passes (node/_restart.py), with systemctl, the clock and the endpoint faked."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.kubenode.cgroups.plugins.module_utils.node import _restart as restart
from ansible_collections.kubenode.cgroups.plugins.modules import node_restart


class Clock(object):
    """A clock that moves only when slept on, or when an answer takes time."""

    def __init__(self):
        self.now = 100.0
        self.slept = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


def endpoint(clock, answers, takes=0.0):
    """ask(url, timeout): the answers in turn (the last one repeats), each taking `takes` seconds."""
    asked = []

    def ask(url, timeout):
        asked.append((url, timeout))
        clock.now += takes
        return answers.pop(0) if len(answers) > 1 else answers[0]
    return ask, asked


def test_the_services_restart_in_the_order_given_and_stop_at_the_first_refusal():
    ran = []

    def systemctl(*args):
        ran.append(args)
        return (1, '', 'Job for kubelet.service failed.\n') if args[1] == 'kubelet.service' else (0, '', '')
    done = []
    with pytest.raises(restart.RestartFailed) as refused:
        restart.restart_services(systemctl, ['containerd.service', 'kubelet.service', 'crio.service'], False, done)
    assert ran == [('restart', 'containerd.service'), ('restart', 'kubelet.service')]
    assert done == [{'service': 'containerd.service', 'changed': True}]
    assert refused.value.service == 'kubelet.service' and refused.value.detail == 'Job for kubelet.service failed.'


def test_check_mode_restarts_nothing_and_names_each_service():
    def systemctl(*args):
        raise AssertionError('check mode ran systemctl %s' % (args,))
    done = []
    restart.restart_services(systemctl, ['containerd.service', 'kubelet.service'], True, done)
    assert [entry['service'] for entry in done] == ['containerd.service', 'kubelet.service']


def test_the_wait_ends_at_the_first_200_and_asks_every_interval():
    clock = Clock()
    ask, asked = endpoint(clock, [(None, 'Connection refused'), (None, 'Connection refused'), (500, 'not ready'),
                                  (200, 'ok')], takes=0.25)
    health = restart.wait_healthy(ask, 'http://127.0.0.1:10248/healthz', 120, 1, clock=clock, sleep=clock.sleep)
    assert health == {'url': 'http://127.0.0.1:10248/healthz', 'healthy': True, 'status': 200, 'said': 'ok',
                      'tries': 4, 'seconds': 4.0}
    assert clock.slept == [1, 1, 1] and len(asked) == 4
    # A try gets at most 5 s of the timeout.
    assert all(timeout == 5.0 for _url, timeout in asked)


def test_a_kubelet_that_never_answers_fails_after_the_timeout_with_its_last_answer():
    clock = Clock()
    ask, asked = endpoint(clock, [(None, 'Connection refused')])
    health = restart.wait_healthy(ask, 'http://127.0.0.1:10248/healthz', 12, 5, clock=clock, sleep=clock.sleep)
    # At 0, 5 and 10 s; a fourth try at 15 s would be past the timeout.
    assert health['healthy'] is False and health['tries'] == 3 and clock.slept == [5, 5]
    assert restart.unhealthy_message(health, 12) == (
        'kubelet did not answer http://127.0.0.1:10248/healthz with 200 within 12 s of its restart (Connection refused)')
    # The last try gets what is left of the timeout, never less than a second.
    assert [timeout for _url, timeout in asked] == [5.0, 5.0, 2.0]


def test_a_zero_timeout_asks_once():
    clock = Clock()
    ask, asked = endpoint(clock, [(503, '')])
    health = restart.wait_healthy(ask, 'http://x/healthz', 0, 1, clock=clock, sleep=clock.sleep)
    assert health['healthy'] is False and health['tries'] == 1 and clock.slept == []
    assert restart.unhealthy_message(health, 0).endswith('(503)')


class FakeSystemctl(object):
    def __init__(self, refuse=()):
        self.ran, self.refuse = [], refuse

    def run_command(self, module, argv, **kwargs):
        self.ran.append(argv[1:])
        return (1, '', 'Unit %s not found.' % argv[-1]) if argv[-1] in self.refuse else (0, '', '')


def patch_node(monkeypatch, refuse=(), answers=((200, 'ok'),)):
    from ansible.module_utils import basic
    fake = FakeSystemctl(refuse)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', lambda module, argv, **kw: fake.run_command(module, argv))
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda module, name, required=False: '/bin/' + name)
    answers, asked = list(answers), []

    def ask(url, timeout):
        asked.append(url)
        return answers.pop(0) if len(answers) > 1 else answers[0]
    monkeypatch.setattr(node_restart, 'ask_url', ask)
    monkeypatch.setattr(restart.time, 'sleep', lambda seconds: None)
    return fake, asked


def test_the_module_restarts_then_waits_for_the_health_endpoint(run_module, monkeypatch):
    fake, asked = patch_node(monkeypatch, answers=[(None, 'refused'), (200, 'ok')])
    result = run_module(node_restart, {'services': ['containerd.service', 'kubelet.service'],
                                       'health_url': 'http://127.0.0.1:10248/healthz'})
    assert fake.ran == [['restart', 'containerd.service'], ['restart', 'kubelet.service']]
    assert result['changed'] and [entry['service'] for entry in result['restarted']] == [
        'containerd.service', 'kubelet.service']
    assert result['health']['healthy'] and result['health']['tries'] == 2 and asked == ['http://127.0.0.1:10248/healthz'] * 2


def test_the_module_names_the_refused_service_and_the_unhealthy_kubelet(run_module, monkeypatch):
    from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
    fake, asked = patch_node(monkeypatch, refuse=('kubelet.service',))
    with pytest.raises(ModuleFail) as failed:
        run_module(node_restart, {'services': ['containerd.service', 'kubelet.service'], 'health_url': 'http://h/'})
    assert failed.value.result['failed_step'] == 'restart' and failed.value.result['failed_service'] == 'kubelet.service'
    assert failed.value.result['msg'] == 'Unit kubelet.service not found.' and asked == []
    assert failed.value.result['restarted'] == [{'service': 'containerd.service', 'changed': True}]

    fake, asked = patch_node(monkeypatch, answers=[(None, 'Connection refused')])
    with pytest.raises(ModuleFail) as failed:
        run_module(node_restart, {'services': ['kubelet.service'], 'health_url': 'http://h/', 'health_timeout': 3})
    assert failed.value.result['failed_step'] == 'health' and failed.value.result['health']['tries'] >= 1
    assert 'within 3 s' in failed.value.result['msg'] and 'Connection refused' in failed.value.result['msg']


def test_the_module_in_check_mode_runs_nothing_and_asks_nothing(run_module, monkeypatch):
    fake, asked = patch_node(monkeypatch)
    result = run_module(node_restart, {'services': ['kubelet.service'], 'health_url': 'http://h/'}, check_mode=True)
    assert fake.ran == [] and asked == [] and result['health'] is None
    assert result['changed'] and result['restarted'] == [{'service': 'kubelet.service', 'changed': True}]


def test_the_module_refuses_a_zero_interval_naming_it(run_module, monkeypatch):
    from ansible_collections.kubenode.cgroups.tests.unit.module_runner import ModuleFail
    fake, _asked = patch_node(monkeypatch)
    with pytest.raises(ModuleFail) as failed:
        run_module(node_restart, {'services': ['kubelet.service'], 'health_interval': 0})
    assert failed.value.result['msg'] == 'health_interval: must be positive, got 0' and fake.ran == []
    with pytest.raises(ModuleFail) as failed:
        run_module(node_restart, {'services': ['kubelet.service'], 'health_timeout': -1})
    assert failed.value.result['msg'] == 'health_timeout: must be zero or more, got -1' and fake.ran == []
