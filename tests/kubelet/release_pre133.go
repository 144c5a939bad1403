//go:build k8s129 || k8s130 || k8s131 || k8s132

// What kubelet 1.29 to 1.32 share and 1.33 changed: runc's libcontainer/cgroups (opencontainers/cgroups from 1.33).
package main

import libcontainercgroups "github.com/opencontainers/runc/libcontainer/cgroups"

func cgroup2Unified() bool { return libcontainercgroups.IsCgroup2UnifiedMode() }
