# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""api_sampler.py --kubeconfig F --node N --namespace NS --ssh-port P --ssh-key K --seconds S --out FILE: what the
controller sees of a node under pressure, once a second, as JSON lines (issue 76):

- the Node's Ready, MemoryPressure, PIDPressure and DiskPressure conditions, from the API server;
- the namespace's pods: UID, phase, reason, QoS class, and each container's restarts and last termination reason;
- an ssh login's latency (a new connection each time, no multiplexing: a login needs sshd to fork), in a thread of
  its own so that a slow login does not slow the API's samples.

At the end (--seconds, or SIGTERM) it writes one more line, {"events": [...]}: the namespace's and the Node's
events (kubelet's Evicted, SystemOOM, OOMKilling ...). Traffic goes only to the API server and the VM's forwarded
ssh port on 127.0.0.1."""

import argparse
import json
import signal
import subprocess
import threading
import time

from kubernetes import client, config  # pylint: disable=import-error  # the test venv's (requirements.txt)

CONDITIONS = ('Ready', 'MemoryPressure', 'PIDPressure', 'DiskPressure')


def node_conditions(api, node):
    """{condition type: status} of the Node, or {'error': ...} when the API server does not answer."""
    try:
        status = api.read_node_status(node, _request_timeout=3).status
    except Exception as error:  # pylint: disable=broad-exception-caught  # a failed sample is a sample
        return {'error': str(error)[:200]}
    return {condition.type: condition.status for condition in status.conditions or ()
            if condition.type in CONDITIONS}


def container_state(status):
    """A container status as {restarts, state, reason, last_reason}."""
    state, reason = 'waiting', None
    if status.state.running:
        state = 'running'
    elif status.state.terminated:
        state, reason = 'terminated', status.state.terminated.reason
    elif status.state.waiting:
        reason = status.state.waiting.reason
    last = status.last_state.terminated if status.last_state else None
    return {'restarts': status.restart_count, 'state': state, 'reason': reason,
            'last_reason': last.reason if last else None}


def pods(api, namespace):
    """{pod name: {phase, reason, qos, containers}} of the namespace, or {'error': ...}."""
    try:
        listed = api.list_namespaced_pod(namespace, _request_timeout=3).items
    except Exception as error:  # pylint: disable=broad-exception-caught
        return {'error': str(error)[:200]}
    return {pod.metadata.name: {'uid': pod.metadata.uid, 'phase': pod.status.phase, 'reason': pod.status.reason,
                                'qos': pod.status.qos_class,
                                'containers': {status.name: container_state(status)
                                               for status in pod.status.container_statuses or ()}}
            for pod in listed}


def events(api, namespace, node):
    """The namespace's events and the Node's, oldest first."""
    found = []
    for listed in (api.list_namespaced_event(namespace).items,
                   api.list_namespaced_event('default', field_selector='involvedObject.kind=Node').items):
        for event in listed:
            when = event.last_timestamp or event.event_time or event.first_timestamp
            found.append({'t': when.timestamp() if when else None, 'reason': event.reason,
                          'kind': event.involved_object.kind, 'name': event.involved_object.name,
                          'message': (event.message or '')[:300], 'count': event.count,
                          'source': event.source.component if event.source else None})
    return sorted((event for event in found if event['kind'] != 'Node' or event['name'] == node),
                  key=lambda event: event['t'] or 0)


class SshProbe(threading.Thread):
    """Logs in again and again, each login at least a second after the last began; keeps (start, seconds, ok)."""

    def __init__(self, port, key, stop):
        super().__init__(daemon=True)
        self.command = ['ssh', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o',
                        'UserKnownHostsFile=/dev/null', '-o', 'ControlMaster=no', '-o', 'ControlPath=none',
                        '-o', 'ConnectTimeout=10', '-o', 'LogLevel=ERROR', '-i', key, '-p', str(port),
                        'root@127.0.0.1', 'true']
        self.stop, self.logins, self.lock = stop, [], threading.Lock()

    def run(self):
        while not self.stop.is_set():
            start = time.time()
            try:
                ok = subprocess.run(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, timeout=20, check=False).returncode == 0
            except subprocess.TimeoutExpired:
                ok = False
            with self.lock:
                self.logins.append((start, round(time.time() - start, 3), ok))
            self.stop.wait(max(0.0, 1.0 - (time.time() - start)))

    def take(self):
        """The logins that ended since the last take."""
        with self.lock:
            taken, self.logins = self.logins, []
        return taken


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    for name in ('--kubeconfig', '--node', '--namespace', '--ssh-key', '--out'):
        parser.add_argument(name, required=True)
    parser.add_argument('--ssh-port', type=int, required=True)
    parser.add_argument('--seconds', type=int, required=True, help='at most 1 to 1800')
    args = parser.parse_args()
    if not 1 <= args.seconds <= 1800:
        parser.error('--seconds %d: give 1 to 1800' % args.seconds)
    api = client.CoreV1Api(config.new_client_from_config(config_file=args.kubeconfig))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    probe = SshProbe(args.ssh_port, args.ssh_key, stop)
    probe.start()
    deadline = time.monotonic() + args.seconds
    with open(args.out, 'w') as out:
        while not stop.is_set() and time.monotonic() < deadline:
            tick = time.monotonic()
            line = {'t': round(time.time(), 3), 'node': node_conditions(api, args.node),
                    'pods': pods(api, args.namespace), 'ssh': probe.take()}
            out.write(json.dumps(line, sort_keys=True) + '\n')
            out.flush()
            stop.wait(max(0.0, 1.0 - (time.monotonic() - tick)))
        stop.set()
        probe.join(timeout=25)
        out.write(json.dumps({'t': round(time.time(), 3), 'ssh': probe.take(),
                              'events': events(api, args.namespace, args.node)}, sort_keys=True) + '\n')


if __name__ == '__main__':
    main()
