//go:build k8s138

// NewKubeGenericRuntimeManager's arguments in kubelet 1.38 (go.1.38.mod, built with -tags k8s138 and Go 1.27).
package main

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	allocationstate "k8s.io/kubernetes/pkg/kubelet/allocation/state"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Release is the k8s.io/kubernetes version linked.
const Release = "v1.38.0-beta.0"

func initRelease() {}

func newKubeGenericRuntimeManager(c PodCase, s runtimeSettings) (kuberuntime.KubeGenericRuntime, error) {
	maxParallel := int32(0)
	manager, _, err := kuberuntime.NewKubeGenericRuntimeManager(context.Background(), &record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), s.root, s.root+"/logs",
		s.machine, nil, 110, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, string(kubeletconfig.NeverVerifyPreloadedImages), nil, "", "",
		c.SingleProcessOOMKill, c.CPUCFSQuota, s.period, nil, s.runtime, s.images, s.containers, nil, nil, false, "",
		func() v1.ResourceList { return s.allocatable }, c.MemoryThrottlingFactor,
		kubeletconfig.MemoryReservationPolicy(c.MemoryReservationPolicy), nil, noop.NewTracerProvider(), nil, nil, nil,
		// From 1.38 kubelet owns the actuated resources: an empty store, as kuberuntime's fake manager has.
		allocationstate.NewStateMemory(klog.Background(), nil, kuberuntime.KeepOnlyResourceValues))
	return manager, err
}
