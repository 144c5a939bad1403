//go:build !(k8s129 || k8s130 || k8s131 || k8s132 || k8s133 || k8s134)

// What kubelet 1.35 changed and later releases keep: the CPU manager's constructor and Start take a logger and a
// context, the predicate admit handler's node getter a context, and featuregate knows each gate's dependencies.
package main

import (
	"context"
	"time"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	schedulerframework "k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/cpuset"
)

// cmd/kubelet/app/server.go: reservedSystemCPUs parsed against the machine's CPUs (the 32 of cpuMachine).
//
//go:linkname getReservedCPUsOf k8s.io/kubernetes/cmd/kubelet/app.getReservedCPUs
func getReservedCPUsOf(logger klog.Logger, machineInfo *machineInfo, cpus string) (cpuset.CPUSet, error)

func getReservedCPUs(cpus string) (cpuset.CPUSet, error) {
	return getReservedCPUsOf(klog.Background(), cpuMachine(), cpus)
}

func gateDependencies() map[featuregate.Feature][]featuregate.Feature {
	return utilfeature.DefaultMutableFeatureGate.Dependencies()
}

func newCPUManager(policy string, reserved v1.ResourceList, dir string) (cpumanager.Manager, error) {
	return cpumanager.NewManager(klog.Background(), policy, nil, time.Hour, cpuMachine(), cpuset.New(), reserved, dir,
		newTopologyStore())
}

func startCPUManager(manager cpumanager.Manager, ready config.SourcesReady) error {
	return manager.Start(context.Background(), func() []*v1.Pod { return nil }, ready, statusProvider{}, noRuntime{},
		containermap.NewContainerMap())
}

// newPredicateAdmitHandler: kubelet's predicate admit handler for the node given, with no device plugin resources.
func newPredicateAdmitHandler(node *v1.Node, failure lifecycle.AdmissionFailureHandler) lifecycle.PodAdmitHandler {
	update := func(*schedulerframework.NodeInfo, *lifecycle.PodAdmitAttributes) error { return nil }
	return lifecycle.NewPredicateAdmitHandler(func(context.Context, bool) (*v1.Node, error) { return node, nil },
		failure, update)
}
