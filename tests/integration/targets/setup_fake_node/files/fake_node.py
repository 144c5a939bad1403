#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright (c) 2026, kubenode.cgroups contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lay out a fake Kubernetes node under a directory, to point node_allocatable_root (node_root) at.

    python3 fake_node.py ROOT [--layout kubeadm|kubespray] [--driver systemd|cgroupfs] [--kubelet 1.37.2|none]

What lands under ROOT, as a node of that layout and driver has it:
- the kernel's side: proc/ (mountinfo naming ROOT/sys/fs/cgroup as cgroup2, PID 1's comm, meminfo, pid_max, a
  running kubelet's command line with --running), sys/devices/system/cpu/online, and a cgroup v2 tree whose
  root offers and enables kubelet's controllers, with the cgroups kubelet makes (kubepods and its QoS tiers,
  named as the driver names them), system.slice and user.slice (systemd makes them at boot whatever the driver)
  and those given with --cgroup, each with the files the kernel shows;
- kubelet's side: kubeadm's /var/lib/kubelet/config.yaml, kubeadm-flags.env, the package's kubelet.service and
  its 10-kubeadm.conf drop-in; or kubespray's /etc/kubernetes/kubelet-config.yaml, kubelet.env and
  /etc/systemd/system/kubelet.service; containerd's config.toml with the driver's SystemdCgroup;
- a kubelet "binary" (a shell script that answers --version) where the unit starts kubelet, unless --kubelet none.

PID 1 is "init", never "systemd": with systemd as PID 1 the collection would ask this machine's systemctl about
the fake node. Under a root without systemd the systemd driver writes its slice units and asks systemd nothing;
the fake slices' directories stand for what systemd makes at the node's next boot.

Plain files are not a kernel (a write to cgroup.subtree_control replaces its text instead of enabling a controller),
so the controllers are enabled already, as kubelet leaves them. Nothing outside ROOT is written. The integration
tests' setup_fake_node role runs this script; CONTRIBUTING.md shows how to run the roles against what it makes.
"""

from __future__ import absolute_import, division, print_function

import argparse
import os
import sys

CONTROLLERS = 'cpuset cpu memory hugetlb pids'
# What the kernel shows in a cgroup kubelet or systemd made and nobody limited yet.
CGROUP_FILES = {
    'cpu.weight': '100', 'cpu.max': 'max 100000', 'memory.max': 'max', 'memory.min': '0', 'memory.low': '0',
    'pids.max': 'max', 'cpuset.cpus': '', 'cpuset.mems': '', 'hugetlb.2MB.max': 'max', 'hugetlb.2MB.rsvd.max': 'max',
    'cgroup.subtree_control': CONTROLLERS, 'cgroup.controllers': CONTROLLERS,
}
KUBEPODS = {
    'cgroupfs': ['kubepods', 'kubepods/burstable', 'kubepods/besteffort'],
    'systemd': ['kubepods.slice', 'kubepods.slice/kubepods-burstable.slice',
                'kubepods.slice/kubepods-besteffort.slice'],
}
# The cgroups systemd makes at every boot, whatever kubelet's driver: a node booted by systemd has them.
BOOT_SLICES = ['system.slice', 'user.slice']

# kubeadm 1.37's rendering of its KubeletConfiguration (`kubeadm init` / `join`), the driver left to fill in.
KUBEADM_CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: {driver}
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: ""
cpuManagerReconcilePeriod: 0s
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
kind: KubeletConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
memorySwap: {{}}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
"""
# The kubelet package's unit (pkgs.k8s.io deb and rpm) and kubeadm's drop-in.
KUBEADM_UNIT = """[Unit]
Description=kubelet: The Kubernetes Node Agent
Documentation=https://kubernetes.io/docs/
Wants=network-online.target
After=network-online.target

[Service]
ExecStart=/usr/bin/kubelet
Restart=always
StartLimitInterval=0
RestartSec=10

[Install]
WantedBy=multi-user.target
"""
KUBEADM_DROPIN = """# Note: This dropin only works with kubeadm and kubelet v1.11+
[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \
--kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
# This is a file that "kubeadm init" and "kubeadm join" generates at runtime, populating the KUBELET_KUBEADM_ARGS \
variable dynamically
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
# This is a file that the user can use for overrides of the kubelet args as a last resort. Preferably, the user \
should use
# the .NodeRegistration.KubeletExtraArgs object in the configuration files instead. KUBELET_EXTRA_ARGS should be \
sourced from this file.
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
"""
KUBEADM_FLAGS = ('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock '
                 '--pod-infra-container-image=registry.k8s.io/pause:3.10"\n')
# kubespray's roles/kubernetes/node templates (kubelet-config.v1beta1.yaml.j2, kubelet.env.v1beta1.j2,
# kubelet.service.j2), trimmed to what the collection reads.
KUBESPRAY_CONFIG = """# kubespray's template
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
nodeStatusUpdateFrequency: "10s"
failSwapOn: true
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/ssl/ca.crt
authorization:
  mode: Webhook
staticPodPath: /etc/kubernetes/manifests
cgroupDriver: {driver}
containerLogMaxFiles: 5
containerLogMaxSize: 10Mi
maxPods: {max_pods}
podPidsLimit: -1
address: 0.0.0.0
readOnlyPort: 0
healthzPort: 10248
healthzBindAddress: 127.0.0.1
clusterDomain: cluster.local
clusterDNS:
- 169.254.25.10
resolvConf: "/run/systemd/resolve/resolv.conf"
"""
KUBESPRAY_ENV = """KUBE_LOGTOSTDERR="--logtostderr=true"
KUBE_LOG_LEVEL="--v=2"
KUBELET_ADDRESS="--node-ip=10.0.0.11"
KUBELET_HOSTNAME="--hostname-override=node1"
KUBELET_ARGS="--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf \\
--config=/etc/kubernetes/kubelet-config.yaml \\
--kubeconfig=/etc/kubernetes/kubelet.conf \\
--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock \\
--runtime-cgroups=/system.slice/containerd.service \\
 "
KUBELET_NETWORK_PLUGIN=""
KUBELET_CLOUDPROVIDER=""
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
"""
KUBESPRAY_UNIT = """[Unit]
Description=Kubernetes Kubelet Server
Documentation=https://github.com/GoogleCloudPlatform/kubernetes
After=containerd.service
Wants=containerd.service

[Service]
EnvironmentFile=-/etc/kubernetes/kubelet.env
ExecStart=/usr/local/bin/kubelet \\
                $KUBE_LOGTOSTDERR \\
                $KUBE_LOG_LEVEL \\
                $KUBELET_API_SERVER \\
                $KUBELET_ADDRESS \\
                $KUBELET_PORT \\
                $KUBELET_HOSTNAME \\
                $KUBELET_ARGS \\
                $DOCKER_SOCKET \\
                $KUBELET_NETWORK_PLUGIN \\
                $KUBELET_VOLUME_PLUGIN \\
                $KUBELET_CLOUDPROVIDER
Restart=always
RestartSec=10s

[Install]
WantedBy=multi-user.target
"""
LAYOUTS = {
    # layout: (kubelet's binary, its --config, the files of its unit, the unit's command line words after the binary)
    'kubeadm': ('/usr/bin/kubelet', '/var/lib/kubelet/config.yaml',
                {'/usr/lib/systemd/system/kubelet.service': KUBEADM_UNIT,
                 '/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf': KUBEADM_DROPIN,
                 '/var/lib/kubelet/kubeadm-flags.env': KUBEADM_FLAGS},
                ['--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf',
                 '--kubeconfig=/etc/kubernetes/kubelet.conf', '--config=/var/lib/kubelet/config.yaml',
                 '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock']),
    'kubespray': ('/usr/local/bin/kubelet', '/etc/kubernetes/kubelet-config.yaml',
                  {'/etc/systemd/system/kubelet.service': KUBESPRAY_UNIT, '/etc/kubernetes/kubelet.env': KUBESPRAY_ENV},
                  ['--logtostderr=true', '--v=2', '--config=/etc/kubernetes/kubelet-config.yaml',
                   '--kubeconfig=/etc/kubernetes/kubelet.conf',
                   '--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock']),
}
KUBELET_PID = 4242


def under(root, path):
    """A node path (/sys/fs/cgroup/...) as a path in the fake node's directory: never this machine's own."""
    return os.path.join(root, path.lstrip('/'))


def write(root, path, text, mode=0o644):
    target = under(root, path)
    if not os.path.realpath(target).startswith(os.path.realpath(root) + os.sep):
        raise SystemExit('%s would land outside %s (a symlink in the way?): nothing more is written' % (path, root))
    if not os.path.isdir(os.path.dirname(target)):
        os.makedirs(os.path.dirname(target))
    with open(target, 'w') as handle:
        handle.write(text)
    os.chmod(target, mode)
    return target


def parse_memory(text):
    """Kibibytes of a memory size given as 16Gi, 2048Mi or a number of bytes."""
    units = {'Ki': 1, 'Mi': 1024, 'Gi': 1024 ** 2, 'Ti': 1024 ** 3}
    for suffix, factor in units.items():
        if text.endswith(suffix) and text[:-2].isdigit():
            return int(text[:-2]) * factor
    if text.isdigit():
        return int(text) // 1024
    raise argparse.ArgumentTypeError('--memory: %r is not a size such as 16Gi, 2048Mi or a number of bytes' % text)


def kernel_side(root, args):
    """proc/ and sys/ as a cgroup v2 node with systemd nowhere shows them."""
    write(root, '/proc/self/mountinfo', '30 1 0:30 / %s rw - cgroup2 cgroup2 rw\n' % under(root, '/sys/fs/cgroup'))
    write(root, '/proc/self/cgroup', '0::/\n')
    write(root, '/proc/1/comm', 'init\n')
    write(root, '/proc/meminfo', 'MemTotal:       %d kB\nSwapTotal:             0 kB\n' % args.memory)
    write(root, '/proc/sys/kernel/pid_max', '4194304\n')
    write(root, '/proc/sys/kernel/threads-max', '%d\n' % args.threads_max)
    write(root, '/sys/devices/system/cpu/online', '0-%d\n' % (args.cpus - 1) if args.cpus > 1 else '0\n')
    write(root, '/sys/fs/cgroup/cgroup.controllers', CONTROLLERS + '\n')
    write(root, '/sys/fs/cgroup/cgroup.subtree_control', CONTROLLERS + '\n')
    cgroups = BOOT_SLICES + [c for c in args.cgroup if c not in BOOT_SLICES]
    if args.kubepods:
        cgroups = KUBEPODS[args.driver] + cgroups
    for cgroup in cgroups:
        for name, value in sorted(CGROUP_FILES.items()):
            write(root, '/sys/fs/cgroup/%s/%s' % (cgroup.strip('/'), name), value + '\n' if value else '')
    return cgroups


def kubelet_side(root, args):
    """kubelet's configuration, unit and environment files as the layout writes them, containerd's config, and
    kubelet's binary and running process when asked."""
    binary, config, unit_files, argv = LAYOUTS[args.layout]
    if args.layout == 'kubeadm':
        text = KUBEADM_CONFIG.format(driver=args.driver)
        if args.max_pods is not None:
            text += 'maxPods: %d\n' % args.max_pods
    else:
        text = KUBESPRAY_CONFIG.format(driver=args.driver, max_pods=110 if args.max_pods is None else args.max_pods)
    written = [write(root, config, text)]
    if args.unit:
        written += [write(root, path, content) for path, content in sorted(unit_files.items())]
    written.append(write(root, '/etc/containerd/config.toml',
                         'version = 3\n[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]\n'
                         '  SystemdCgroup = %s\n' % ('true' if args.driver == 'systemd' else 'false')))
    if not os.path.isdir(under(root, '/var/lib/kubelet')):
        os.makedirs(under(root, '/var/lib/kubelet'))
    if args.kubelet != 'none':
        written.append(write(root, binary, '#!/bin/sh\n# A fake kubelet: it answers --version, nothing else.\n'
                                           'echo "Kubernetes v%s"\n' % args.kubelet, 0o755))
    if args.running:
        write(root, '/proc/%d/comm' % KUBELET_PID, 'kubelet\n')
        write(root, '/proc/%d/cmdline' % KUBELET_PID, '\0'.join([binary] + argv) + '\0')
    return written


def parser():
    result = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    result.add_argument('root', help='the directory to lay the node out in (made when missing)')
    result.add_argument('--layout', choices=sorted(LAYOUTS), default='kubeadm',
                        help='who installed kubelet: kubeadm (/var/lib/kubelet/config.yaml) or kubespray '
                             '(/etc/kubernetes/kubelet-config.yaml); default kubeadm')
    result.add_argument('--driver', choices=sorted(KUBEPODS), default='systemd',
                        help='the cgroup driver kubelet and containerd are configured with; default systemd')
    result.add_argument('--kubelet', default='1.37.2', metavar='VERSION',
                        help='the release the fake kubelet binary answers (default 1.37.2); "none" for no binary')
    result.add_argument('--no-unit', dest='unit', action='store_false',
                        help="no kubelet unit nor environment files: only kubelet's configuration file")
    result.add_argument('--running', action='store_true',
                        help="a kubelet process in proc/ whose command line names the layout's configuration")
    result.add_argument('--no-kubepods', dest='kubepods', action='store_false',
                        help='no kubepods cgroups (a node whose kubelet never started)')
    result.add_argument('--cgroup', action='append', default=[], metavar='PATH',
                        help='one more cgroup to make, relative to the cgroup root; repeatable. A reserved cgroup the '
                             'cgroupfs driver will use is made here (kube.slice): a directory made in plain files has '
                             "none of the controller files the kernel shows, and kubelet's Validate finds it wanting")
    result.add_argument('--cpus', type=int, default=4, help='online CPUs (default 4)')
    result.add_argument('--memory', type=parse_memory, default=parse_memory('16Gi'), help='MemTotal (default 16Gi)')
    result.add_argument('--threads-max', type=int, default=100000, help='kernel.threads-max, the pid capacity')
    result.add_argument('--max-pods', type=int, default=None, help="maxPods in kubelet's configuration")
    return result


def main(argv=None):
    args = parser().parse_args(argv)
    if args.cpus < 1:
        parser().error('--cpus: %d is not a number of CPUs' % args.cpus)
    root = os.path.abspath(args.root)
    if os.path.realpath(root) == '/':
        parser().error('root: / is this machine; give a directory for the fake node')
    cgroups = kernel_side(root, args)
    files = kubelet_side(root, args)
    print('%s: a %s node, %s driver, cgroup v2, cgroups %s; %s' % (
        root, args.layout, args.driver, ', '.join(cgroups) or 'none',
        ', '.join(os.path.relpath(f, root) for f in files)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
