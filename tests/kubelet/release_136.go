//go:build k8s136

// The calls whose signatures are kubelet 1.36's (go.1.36.mod, built with -tags k8s136). Unexported steps are reached with go:linkname, which calls
// kubelet's own compiled function; each names the file it lives in.
package main

import (
	"context"
	"time"
	_ "unsafe" // go:linkname

	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Release is the k8s.io/kubernetes version linked.
const Release = "v1.36.3"

func initRelease() {}

// cm/container_manager.go: whether any container of the pod (init containers included) holds exclusive CPUs.
//
//go:linkname podHasExclusiveCPUsOf k8s.io/kubernetes/pkg/kubelet/cm.podHasExclusiveCPUs
func podHasExclusiveCPUsOf(logger klog.Logger, cr cpuAllocationReader, pod *v1.Pod) bool

//go:linkname containerHasExclusiveCPUsOf k8s.io/kubernetes/pkg/kubelet/cm.containerHasExclusiveCPUs
func containerHasExclusiveCPUsOf(logger klog.Logger, cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool

func podHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod) bool {
	return podHasExclusiveCPUsOf(klog.Background(), cr, pod)
}

func containerHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool {
	return containerHasExclusiveCPUsOf(klog.Background(), cr, pod, container)
}

func resourceConfigForPod(pod *v1.Pod, enforceCPULimits bool, cpuPeriod uint64, enforceMemoryQoS bool, policy string) *cm.ResourceConfig {
	return cm.ResourceConfigForPod(pod, enforceCPULimits, cpuPeriod, enforceMemoryQoS, kubeletconfig.MemoryReservationPolicy(policy))
}

func newKubeGenericRuntimeManager(c PodCase, s runtimeSettings) (kuberuntime.KubeGenericRuntime, error) {
	maxParallel := int32(0)
	manager, _, err := kuberuntime.NewKubeGenericRuntimeManager(context.Background(), &record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), s.root, s.root+"/logs",
		s.machine, nil, 110, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, string(kubeletconfig.NeverVerifyPreloadedImages), nil, "", "",
		c.SingleProcessOOMKill, c.CPUCFSQuota, s.period, s.runtime, s.images, s.containers, nil, nil, false, "",
		func() v1.ResourceList { return s.allocatable }, throttlingFactorOf(c),
		kubeletconfig.MemoryReservationPolicy(c.MemoryReservationPolicy), nil, noop.NewTracerProvider(), nil, nil, nil)
	return manager, err
}
