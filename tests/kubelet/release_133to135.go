//go:build k8s133 || k8s134 || k8s135

// What kubelet 1.33 to 1.35 share: cm's exclusive CPU helpers (1.33's), without the logger 1.36 gave them.
package main

import (
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
)

// cm/container_manager.go: whether any container of the pod (init containers included) holds exclusive CPUs.
//
//go:linkname podHasExclusiveCPUsOf k8s.io/kubernetes/pkg/kubelet/cm.podHasExclusiveCPUs
func podHasExclusiveCPUsOf(cr cpuAllocationReader, pod *v1.Pod) bool

//go:linkname containerHasExclusiveCPUsOf k8s.io/kubernetes/pkg/kubelet/cm.containerHasExclusiveCPUs
func containerHasExclusiveCPUsOf(cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool

func podHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod) bool {
	return podHasExclusiveCPUsOf(cr, pod)
}

func containerHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool {
	return containerHasExclusiveCPUsOf(cr, pod, container)
}
