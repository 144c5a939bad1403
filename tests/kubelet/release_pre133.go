//go:build k8s129 || k8s130 || k8s131 || k8s132

// What kubelet 1.29 to 1.32 share and 1.33 changed: runc's libcontainer/cgroups (opencontainers/cgroups from 1.33),
// and no CFS quota rule for exclusive CPUs.
package main

import (
	libcontainercgroups "github.com/opencontainers/runc/libcontainer/cgroups"
	v1 "k8s.io/api/core/v1"
)

func cgroup2Unified() bool { return libcontainercgroups.IsCgroup2UnifiedMode() }

// Kubelet 1.32 and older give a container with exclusive CPUs a CFS quota like any other:
// DisableCPUQuotaWithExclusiveCPUs and cm's podHasExclusiveCPUs came in 1.33.
func podHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod) bool { return false }

func containerHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool {
	return false
}
