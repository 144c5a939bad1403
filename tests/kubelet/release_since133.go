//go:build !(k8s129 || k8s130 || k8s131 || k8s132)

// What kubelet 1.33 changed and later releases keep: the cgroup library is opencontainers/cgroups.
package main

import libcontainercgroups "github.com/opencontainers/cgroups"

func cgroup2Unified() bool { return libcontainercgroups.IsCgroup2UnifiedMode() }
