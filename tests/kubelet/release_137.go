//go:build !(k8s129 || k8s130 || k8s131 || k8s132 || k8s133 || k8s134 || k8s135 || k8s136 || k8s138)

// NewKubeGenericRuntimeManager's arguments in kubelet 1.37 (go.mod).
package main

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
)

// Release is the k8s.io/kubernetes version linked.
const Release = "v1.37.2"

func initRelease() {}

func newKubeGenericRuntimeManager(c PodCase, s runtimeSettings) (kuberuntime.KubeGenericRuntime, error) {
	maxParallel := int32(0)
	manager, _, err := kuberuntime.NewKubeGenericRuntimeManager(context.Background(), &record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), s.root, s.root+"/logs",
		s.machine, nil, 110, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, string(kubeletconfig.NeverVerifyPreloadedImages), nil, "", "",
		c.SingleProcessOOMKill, c.CPUCFSQuota, s.period, nil, s.runtime, s.images, s.containers, nil, nil, false, "",
		func() v1.ResourceList { return s.allocatable }, c.MemoryThrottlingFactor,
		kubeletconfig.MemoryReservationPolicy(c.MemoryReservationPolicy), nil, noop.NewTracerProvider(), nil, nil, nil)
	return manager, err
}
