//go:build k8s130 || k8s131 || k8s132 || k8s133 || k8s134

// cmd/kubelet/app's getReservedCPUs as 1.30 to 1.34 have it: no logger yet.
package main

import (
	_ "unsafe" // go:linkname

	"k8s.io/utils/cpuset"
)

// cmd/kubelet/app/server.go: reservedSystemCPUs parsed against the machine's CPUs (the 32 of cpuMachine); no logger
// before 1.35. go:linkname does not check a signature: each release's must be the one declared.
//
//go:linkname getReservedCPUsOf k8s.io/kubernetes/cmd/kubelet/app.getReservedCPUs
func getReservedCPUsOf(machineInfo *machineInfo, cpus string) (cpuset.CPUSet, error)
