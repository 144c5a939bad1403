#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A Kubernetes control plane as a test's own processes on this machine (issue 52): etcd, kube-apiserver,
kube-controller-manager and kube-scheduler built from the Go modules (make cluster-bin), listening on 127.0.0.1
only, every file in one state directory, every process stopped by `down`.

    python3 tests/cluster/control_plane.py up --bin .cache/cluster/bin --state /tmp/cp   # prints the kubeconfig
    python3 tests/cluster/control_plane.py down --state /tmp/cp

The certificates and kubeconfigs are kubeadm's own (`kubeadm init phase certs` and `kubeconfig` with --cert-dir
and --kubeconfig-dir, --kubernetes-version so that nothing is fetched). The API server advertises 10.0.2.2, the
address under which a QEMU guest on the user network reaches this machine's 127.0.0.1, and its certificate names
both. Nothing outside the state directory is written; never kubelet or a container runtime here.
"""

from __future__ import absolute_import, division, print_function

import argparse
import hashlib
import json
import os
import re
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import time

# The address a QEMU guest on the user network reaches this machine's 127.0.0.1 under (slirp's gateway).
GUEST_VISIBLE_HOST = '10.0.2.2'
SERVICE_CIDR = '10.96.0.0/12'
STATE_FILE = 'control-plane.json'
COMPONENTS = ('node-tunnel', 'etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler')


def free_port():
    """A TCP port nothing listens on at 127.0.0.1 now."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]
    finally:
        probe.close()


def run(argv, log):
    """Run a one-shot command (kubeadm's phases), its output appended to log; fail naming it."""
    with open(log, 'a') as out:
        out.write('$ %s\n' % ' '.join(argv))
        out.flush()
        code = subprocess.call(argv, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        raise SystemExit('%s failed (%d): see %s' % (argv[0], code, log))


def kubeadm_files(binaries, state, version, port, log):
    """kubeadm's PKI and the kubeconfigs of the admin, the controller manager and the scheduler, in state."""
    pki = os.path.join(state, 'pki')
    common = ['--kubernetes-version', version]
    run([os.path.join(binaries, 'kubeadm'), 'init', 'phase', 'certs', 'all', '--cert-dir', pki,
         '--apiserver-advertise-address', GUEST_VISIBLE_HOST, '--apiserver-cert-extra-sans', '127.0.0.1,localhost',
         '--service-cidr', SERVICE_CIDR] + common, log)
    for kind in ('super-admin', 'controller-manager', 'scheduler'):
        run([os.path.join(binaries, 'kubeadm'), 'init', 'phase', 'kubeconfig', kind, '--cert-dir', pki,
             '--kubeconfig-dir', state, '--control-plane-endpoint', '127.0.0.1:%d' % port] + common, log)
        # kubeadm names the local endpoint (advertise address and bind port) in the controller manager's and the
        # scheduler's, and refuses a loopback advertise address: point every one at 127.0.0.1 here.
        path = os.path.join(state, kind + '.conf')
        with open(path) as handle:
            lines = handle.read().splitlines(True)
        with open(path, 'w') as handle:
            handle.writelines('    server: https://127.0.0.1:%d\n' % port if line.strip().startswith('server: ')
                              else line for line in lines)
    return pki


# The API server's traffic to nodes goes through node_tunnel.py, which reaches a VM's kubelet at its port forwarded
# to this machine's 127.0.0.1.
EGRESS_SELECTOR = """apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
  - name: cluster
    connection:
      proxyProtocol: HTTPConnect
      transport:
        uds:
          udsName: {socket}
"""
# Relative to the state directory, both processes' working directory: a socket's path has room for 107 bytes only.
# (A TCP transport over http:// passes validation, then crashes kube-apiserver 1.37: getTLSConfig(nil).)
TUNNEL_SOCKET = 'node-tunnel.sock'


def commands(binaries, state, pki, ports):
    """{component: argv}, with the flags kubeadm's static pod manifests give them, on this machine's ports."""
    etcd_client = 'http://127.0.0.1:%d' % ports['etcd']
    etcd_peer = 'http://127.0.0.1:%d' % ports['etcd_peer']

    def pki_file(name):
        return os.path.join(pki, name)

    def kubeconfig(name):
        return os.path.join(state, name)

    with open(os.path.join(state, 'egress-selector.yaml'), 'w') as handle:
        handle.write(EGRESS_SELECTOR.format(socket=TUNNEL_SOCKET))
    return {
        'node-tunnel': [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'node_tunnel.py'),
                        TUNNEL_SOCKET],
        'etcd': [os.path.join(binaries, 'etcd'), '--name', 'control-plane', '--data-dir', os.path.join(state, 'etcd'),
                 '--listen-client-urls', etcd_client, '--advertise-client-urls', etcd_client,
                 '--listen-peer-urls', etcd_peer, '--initial-advertise-peer-urls', etcd_peer,
                 '--initial-cluster', 'control-plane=%s' % etcd_peer, '--listen-metrics-urls', '',
                 '--log-level', 'warn'],
        'kube-apiserver': [
            os.path.join(binaries, 'kube-apiserver'), '--bind-address=127.0.0.1',
            '--advertise-address=%s' % GUEST_VISIBLE_HOST, '--secure-port=%d' % ports['apiserver'],
            '--etcd-servers=%s' % etcd_client, '--allow-privileged=true', '--authorization-mode=Node,RBAC',
            '--client-ca-file=%s' % pki_file('ca.crt'), '--enable-admission-plugins=NodeRestriction',
            '--enable-bootstrap-token-auth=true', '--tls-cert-file=%s' % pki_file('apiserver.crt'),
            '--tls-private-key-file=%s' % pki_file('apiserver.key'),
            '--kubelet-client-certificate=%s' % pki_file('apiserver-kubelet-client.crt'),
            '--kubelet-client-key=%s' % pki_file('apiserver-kubelet-client.key'),
            '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
            # Its way to the VM nodes' kubelets (logs, exec, configz): node_tunnel.py.
            '--egress-selector-config-file=%s' % os.path.join(state, 'egress-selector.yaml'),
            '--proxy-client-cert-file=%s' % pki_file('front-proxy-client.crt'),
            '--proxy-client-key-file=%s' % pki_file('front-proxy-client.key'),
            '--requestheader-client-ca-file=%s' % pki_file('front-proxy-ca.crt'),
            '--requestheader-allowed-names=front-proxy-client', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
            '--requestheader-group-headers=X-Remote-Group', '--requestheader-username-headers=X-Remote-User',
            '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
            '--service-account-key-file=%s' % pki_file('sa.pub'),
            '--service-account-signing-key-file=%s' % pki_file('sa.key'),
            '--service-cluster-ip-range=%s' % SERVICE_CIDR],
        'kube-controller-manager': [
            os.path.join(binaries, 'kube-controller-manager'), '--bind-address=127.0.0.1',
            '--secure-port=%d' % ports['controller_manager'],
            '--kubeconfig=%s' % kubeconfig('controller-manager.conf'),
            '--authentication-kubeconfig=%s' % kubeconfig('controller-manager.conf'),
            '--authorization-kubeconfig=%s' % kubeconfig('controller-manager.conf'),
            '--client-ca-file=%s' % pki_file('ca.crt'), '--root-ca-file=%s' % pki_file('ca.crt'),
            '--cluster-signing-cert-file=%s' % pki_file('ca.crt'),
            '--cluster-signing-key-file=%s' % pki_file('ca.key'),
            '--service-account-private-key-file=%s' % pki_file('sa.key'),
            '--controllers=*,bootstrapsigner,tokencleaner', '--use-service-account-credentials=true',
            '--leader-elect=false'],
        'kube-scheduler': [
            os.path.join(binaries, 'kube-scheduler'), '--bind-address=127.0.0.1',
            '--secure-port=%d' % ports['scheduler'], '--kubeconfig=%s' % kubeconfig('scheduler.conf'),
            '--authentication-kubeconfig=%s' % kubeconfig('scheduler.conf'),
            '--authorization-kubeconfig=%s' % kubeconfig('scheduler.conf'), '--leader-elect=false'],
    }


JOIN_CONFIG = """apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
bootstrapTokens:
  - token: {token}
    ttl: 4h
localAPIEndpoint:
  advertiseAddress: {host}
  bindPort: {apiserver}
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: {version}
controlPlaneEndpoint: {host}:{apiserver}
networking:
  serviceSubnet: {services}
---
# The cluster's kubelet-config ConfigMap: what kubeadm join and kubeadm upgrade node write to a node's
# /var/lib/kubelet/config.yaml. Its port is the one forwarded from this machine to the VM; the test VMs have swap.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
port: {kubelet}
failSwapOn: false
"""


def make_joinable(binaries, state, record, log):
    """What `kubeadm init` uploads for nodes to join (kubeadm's own phases: the kubeadm-config and kubelet-config
    ConfigMaps, a bootstrap token and its RBAC rules, cluster-info), with cluster-info naming the API server as a
    guest reaches it. Returns {'endpoint', 'token', 'ca_cert_hash', 'kubelet_port'} for `kubeadm join`."""
    kubeadm, kubeconfig = os.path.join(binaries, 'kubeadm'), record['kubeconfig']
    alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
    token = '%s.%s' % (''.join(secrets.choice(alphabet) for dummy in range(6)),
                       ''.join(secrets.choice(alphabet) for dummy in range(16)))
    kubelet_port = free_port()
    config = os.path.join(state, 'kubeadm-join.yaml')
    with open(config, 'w') as handle:
        handle.write(JOIN_CONFIG.format(token=token, host=GUEST_VISIBLE_HOST, apiserver=record['ports']['apiserver'],
                                        version=record['version'], services=SERVICE_CIDR, kubelet=kubelet_port))
    for phase in (['upload-config', 'kubeadm'], ['upload-config', 'kubelet'], ['bootstrap-token']):
        run([kubeadm, 'init', 'phase'] + phase + ['--config', config, '--kubeconfig', kubeconfig], log)
    # cluster-info names the server of the kubeconfig the phase was given (127.0.0.1 here): a joining node must
    # be told the address it reaches (the bootstrapsigner controller signs the new content for the token).
    kubectl = [os.path.join(binaries, 'kubectl'), '--kubeconfig', kubeconfig, '-n', 'kube-public']
    info = json.loads(subprocess.check_output(kubectl + ['get', 'configmap', 'cluster-info', '-o', 'json']))
    info['data']['kubeconfig'] = re.sub(r'server: https://[^\s]+', 'server: https://%s:%d' % (
        GUEST_VISIBLE_HOST, record['ports']['apiserver']), info['data']['kubeconfig'])
    replace = subprocess.Popen(kubectl + ['replace', '-f', '-'], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    replace.communicate(json.dumps(info).encode())
    if replace.returncode != 0:
        raise SystemExit('kubectl replace of cluster-info failed (%d)' % replace.returncode)
    return {'endpoint': '%s:%d' % (GUEST_VISIBLE_HOST, record['ports']['apiserver']), 'token': token,
            'ca_cert_hash': 'sha256:' + ca_public_key_hash(os.path.join(state, 'pki', 'ca.crt')),
            'kubelet_port': kubelet_port}


def ca_public_key_hash(ca_file):
    """kubeadm's --discovery-token-ca-cert-hash: the SHA-256 of the CA's DER SubjectPublicKeyInfo."""
    public = subprocess.check_output(['openssl', 'x509', '-pubkey', '-noout', '-in', ca_file])
    der = subprocess.check_output(['openssl', 'pkey', '-pubin', '-outform', 'der'], input=public)
    return hashlib.sha256(der).hexdigest()


def healthy(port, path='/readyz', ca=None):
    """Whether https://127.0.0.1:port/path answers 200 (the certificate is checked against ca when given)."""
    context = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()  # nosec - readiness probe
    try:
        import urllib.request
        with urllib.request.urlopen('https://127.0.0.1:%d%s' % (port, path), context=context, timeout=5) as answer:
            return answer.status == 200
    except Exception:  # pylint: disable=broad-except
        return False


def wait_for(what, check, seconds, processes):
    deadline = time.time() + seconds
    while time.time() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                raise SystemExit('%s exited (%s) while waiting for %s' % (name, process.returncode, what))
        if check():
            return
        time.sleep(1)
    raise SystemExit('%s not ready within %d s' % (what, seconds))


def up(binaries, state, version, timeout, joinable=False):
    """Start the control plane; write its state file; return it."""
    binaries, state = os.path.abspath(binaries), os.path.abspath(state)
    if not os.path.isdir(state):
        os.makedirs(state)
    log = os.path.join(state, 'kubeadm.log')
    ports = dict((name, free_port()) for name in ('etcd', 'etcd_peer', 'apiserver', 'controller_manager', 'scheduler'))
    started = time.time()
    pki = kubeadm_files(binaries, state, version, ports['apiserver'], log)
    argv = commands(binaries, state, pki, ports)
    processes = {}
    # A control plane stopped without `down` (a run killed) leaves its tunnel's socket: the new tunnel could not bind
    # it, and the wait below would take the old file for the new socket.
    if os.path.exists(os.path.join(state, TUNNEL_SOCKET)):
        os.unlink(os.path.join(state, TUNNEL_SOCKET))
    try:
        for name in COMPONENTS:
            out = open(os.path.join(state, name + '.log'), 'w')
            # Its own session, so that down stops it and whatever it started, and a Ctrl-C here does not.
            processes[name] = subprocess.Popen(argv[name], stdout=out, stderr=subprocess.STDOUT, cwd=state,
                                               start_new_session=True)
            out.close()
            if name == 'node-tunnel':
                wait_for('node-tunnel', lambda: os.path.exists(os.path.join(state, TUNNEL_SOCKET)), timeout, processes)
            if name == 'etcd':
                wait_for('etcd', lambda: _tcp_open(ports['etcd']), timeout, processes)
            if name == 'kube-apiserver':
                wait_for('kube-apiserver', lambda: healthy(ports['apiserver'], ca=os.path.join(pki, 'ca.crt')),
                         timeout, processes)
        record = {'state': state, 'kubeconfig': os.path.join(state, 'super-admin.conf'), 'ports': ports,
                  'pids': dict((name, p.pid) for name, p in processes.items()), 'version': version,
                  'server': 'https://127.0.0.1:%d' % ports['apiserver'],
                  'guest_server': 'https://%s:%d' % (GUEST_VISIBLE_HOST, ports['apiserver']),
                  'seconds_to_ready': round(time.time() - started, 1)}
        if joinable:
            record['join'] = make_joinable(binaries, state, record, log)
    except BaseException:
        stop(dict((name, p.pid) for name, p in processes.items()))
        raise
    with open(os.path.join(state, STATE_FILE), 'w') as handle:
        json.dump(record, handle, indent=2, sort_keys=True)
    return record


def _tcp_open(port):
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(1)
    try:
        return probe.connect_ex(('127.0.0.1', port)) == 0
    finally:
        probe.close()


def stop(pids, seconds=5):
    """SIGTERM each component's process group, then SIGKILL what is left after seconds. A test's control plane keeps
    nothing (its state directory goes with it): kube-apiserver, whose etcd stops beside it, took more than 25 s to end
    on SIGTERM, which every `down` waited for."""
    for pid in pids.values():
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.time() + seconds
    for pid in pids.values():
        while time.time() < deadline and _alive(pid):
            time.sleep(0.2)
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def _alive(pid):
    try:
        waited, _status = os.waitpid(pid, os.WNOHANG)
        if waited == pid:
            return False
    except OSError:
        pass  # not our child (down from another process): ask the kernel
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # A component started by `up` (another process, since ended) is reaped by whoever adopted it, if anyone: a zombie
    # answers kill(pid, 0) until then, and waiting for it cost every `down` its whole 20 s.
    try:
        with open('/proc/%d/stat' % pid) as handle:
            return handle.read().rsplit(')', 1)[-1].split()[0] != 'Z'
    except (IOError, OSError, IndexError):
        return True


def down(state):
    path = os.path.join(os.path.abspath(state), STATE_FILE)
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        record = json.load(handle)
    stop(record['pids'])
    os.remove(path)
    return record


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    sub = parser.add_subparsers(dest='command', required=True)
    start = sub.add_parser('up', help='start the control plane and print its state (kubeconfig, ports, pids)')
    start.add_argument('--bin', required=True, help='the directory of etcd, kubeadm and the control plane binaries')
    start.add_argument('--state', required=True, help='the directory every file goes to')
    start.add_argument('--version', help="the release kubeadm is told (nothing is fetched); kubeadm's own when unset")
    start.add_argument('--timeout', type=int, default=180, help='seconds each component has to become ready')
    start.add_argument('--joinable', action='store_true',
                       help='upload what kubeadm join needs (a bootstrap token, cluster-info for 10.0.2.2, the '
                            'kubelet-config ConfigMap) and print the join parameters')
    finish = sub.add_parser('down', help='stop what up started')
    finish.add_argument('--state', required=True)
    args = parser.parse_args(argv)
    if args.command == 'up':
        if not args.version:
            args.version = subprocess.check_output([os.path.join(args.bin, 'kubeadm'), 'version', '-o', 'short'],
                                                   universal_newlines=True).strip()
        print(json.dumps(up(args.bin, args.state, args.version, args.timeout, args.joinable), indent=2, sort_keys=True))
    else:
        record = down(args.state)
        print('stopped %s' % ', '.join(sorted(record['pids'])) if record else 'nothing running')
    return 0


if __name__ == '__main__':
    sys.exit(main())
