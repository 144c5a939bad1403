//go:build k8s133

// The calls whose signatures are kubelet 1.33's (go.1.33.mod, built with -tags k8s133). Unexported steps are reached with go:linkname, which calls
// kubelet's own compiled function; each names the file it lives in.
package main

import (
	"time"
	_ "unsafe" // go:linkname

	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Release is the k8s.io/kubernetes version linked.
const Release = "v1.33.13"

func initRelease() {}

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

func resourceConfigForPod(pod *v1.Pod, enforceCPULimits bool, cpuPeriod uint64, enforceMemoryQoS bool, policy string) *cm.ResourceConfig {
	return cm.ResourceConfigForPod(pod, enforceCPULimits, cpuPeriod, enforceMemoryQoS) // no memoryReservationPolicy before 1.36
}

func newKubeGenericRuntimeManager(c PodCase, s runtimeSettings) (kuberuntime.KubeGenericRuntime, error) {
	maxParallel := int32(0)
	throttlingFactor := 0.9 // memoryThrottlingFactor's default before 1.37 (not a pointer yet)
	if c.MemoryThrottlingFactor != nil {
		throttlingFactor = *c.MemoryThrottlingFactor
	}
	manager, _, err := kuberuntime.NewKubeGenericRuntimeManager(&record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), s.root, s.root+"/logs",
		s.machine, nil, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, string(kubeletconfig.NeverVerifyPreloadedImages), nil, "", "",
		c.SingleProcessOOMKill, c.CPUCFSQuota, s.period, s.runtime, s.images, s.containers, nil, nil, nil, false, "",
		func() v1.ResourceList { return s.allocatable }, throttlingFactor, nil, noop.NewTracerProvider(), nil, nil)
	return manager, err
}
