// Copyright (c) 2026, kubenode.cgroups contributors
// GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// pause: the one process of the test VM's only container image, as a pod sandbox (containerd's sandbox_image)
// and as a static pod's container. It waits for SIGTERM or SIGINT and exits 0, as registry.k8s.io/pause does;
// the VMs reach no registry, so the image is built here (tests/vm/oci_image.py) and imported into containerd.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
}
