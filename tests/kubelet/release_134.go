//go:build k8s134

// Kubelet 1.34's NewKubeGenericRuntimeManager (go.1.34.mod, built with -tags k8s134); what it shares with other
// releases is in the release_pre1XY.go and release_since1XY.go files named for the change.
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
const Release = "v1.34.4"

func initRelease() {}

func newKubeGenericRuntimeManager(c PodCase, s runtimeSettings) (kuberuntime.KubeGenericRuntime, error) {
	maxParallel := int32(0)
	manager, _, err := kuberuntime.NewKubeGenericRuntimeManager(context.Background(), &record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), s.root, s.root+"/logs",
		s.machine, nil, 110, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, string(kubeletconfig.NeverVerifyPreloadedImages), nil, "", "",
		c.SingleProcessOOMKill, c.CPUCFSQuota, s.period, s.runtime, s.images, s.containers, nil, nil, nil, false, "",
		func() v1.ResourceList { return s.allocatable }, throttlingFactorOf(c), nil, noop.NewTracerProvider(), nil, nil)
	return manager, err
}
