//go:build k8s132

// The calls whose signatures are kubelet 1.32's (go.1.32.mod, built with -tags k8s132).
package main

import (
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Release is the k8s.io/kubernetes version linked.
const Release = "v1.32.13"

func initRelease() {}

// Kubelet 1.32 and older give a container with exclusive CPUs a CFS quota like any other:
// DisableCPUQuotaWithExclusiveCPUs and cm's podHasExclusiveCPUs came in 1.33.
func podHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod) bool { return false }

func containerHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool {
	return false
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
	manager, err := kuberuntime.NewKubeGenericRuntimeManager(&record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), s.root, s.root+"/logs",
		s.machine, nil, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, "", "", c.SingleProcessOOMKill, c.CPUCFSQuota, s.period, s.runtime, s.images,
		s.containers, nil, nil, false, "", func() v1.ResourceList { return s.allocatable }, throttlingFactor, nil,
		noop.NewTracerProvider())
	return manager, err
}
