#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The API server's way to the VM nodes' kubelets: an HTTP CONNECT proxy on 127.0.0.1 that kube-apiserver sends its
"cluster" traffic through (its --egress-selector-config-file; what konnectivity does in a real cluster), on a
unix socket.

A VM node reports its real address (10.0.2.15 on QEMU's user network), which this machine cannot reach; its kubelet
port is forwarded from this machine's 127.0.0.1 (start-vm.sh VM_FORWARDS). So every CONNECT host:port is
connected to 127.0.0.1:port, and nowhere else. The API server refuses to proxy to a loopback node address, hence
the tunnel rather than a node named localhost.

    python3 tests/cluster/node_tunnel.py SOCKET
"""

from __future__ import absolute_import, division, print_function

import socket
import sys
import threading


def pipe(source, target):
    """Copy source to target until either end closes."""
    try:
        while True:
            chunk = source.recv(65536)
            if not chunk:
                break
            target.sendall(chunk)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client):
    """One CONNECT: read the request head, connect to 127.0.0.1 at its port, answer 200, then relay both ways."""
    head = b''
    while b'\r\n\r\n' not in head and len(head) < 8192:
        chunk = client.recv(4096)
        if not chunk:
            client.close()
            return
        head += chunk
    request = head.split(b'\r\n', 1)[0].decode('latin-1').split()
    try:
        if len(request) != 3 or request[0] != 'CONNECT':
            raise ValueError('not a CONNECT: %r' % request)
        port = int(request[1].rsplit(':', 1)[1])
        upstream = socket.create_connection(('127.0.0.1', port), timeout=10)
        upstream.settimeout(None)
    except (ValueError, IndexError, OSError) as error:
        sys.stderr.write('refused %r: %s\n' % (request, error))
        client.sendall(b'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')
        client.close()
        return
    sys.stderr.write('CONNECT %s -> 127.0.0.1:%d\n' % (request[1], port))
    client.sendall(b'HTTP/1.1 200 Connection established\r\n\r\n')
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
    pipe(client, upstream)


def main(argv):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(argv[1])
    listener.listen(64)
    while True:
        client, _address = listener.accept()
        threading.Thread(target=serve, args=(client,), daemon=True).start()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
