//go:build k8s129 || k8s130 || k8s131 || k8s132 || k8s133 || k8s134 || k8s135

// What kubelet 1.29 to 1.35 share and 1.36 changed: ResourceConfigForPod has no memoryReservationPolicy.
package main

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm"
)

func resourceConfigForPod(pod *v1.Pod, enforceCPULimits bool, cpuPeriod uint64, enforceMemoryQoS bool, policy string) *cm.ResourceConfig {
	return cm.ResourceConfigForPod(pod, enforceCPULimits, cpuPeriod, enforceMemoryQoS)
}
