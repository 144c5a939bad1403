//go:build k8s129 || k8s130 || k8s131 || k8s132 || k8s133 || k8s134

// What kubelet 1.29 to 1.34 share and 1.35 changed: the CPU manager's constructor and Start (without a logger and a
// context), the predicate admit handler's node getter (without a context), and no registry of gate dependencies.
package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	schedulerframework "k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/cpuset"
)

// getReservedCPUsOf (release_130to134.go, release_129_app.go) had no logger before 1.35.
func getReservedCPUs(cpus string) (cpuset.CPUSet, error) {
	return getReservedCPUsOf(cpuMachine(), cpus)
}

// Feature gates name the gates they need only from 1.35 (featuregate's Dependencies).
func gateDependencies() map[featuregate.Feature][]featuregate.Feature { return nil }

func newCPUManager(policy string, reserved v1.ResourceList, dir string) (cpumanager.Manager, error) {
	return cpumanager.NewManager(policy, nil, time.Hour, cpuMachine(), cpuset.New(), reserved, dir, newTopologyStore())
}

func startCPUManager(manager cpumanager.Manager, ready config.SourcesReady) error {
	return manager.Start(func() []*v1.Pod { return nil }, ready, statusProvider{}, noRuntime{},
		containermap.NewContainerMap())
}

// newPredicateAdmitHandler: kubelet's predicate admit handler for the node given, with no device plugin resources.
func newPredicateAdmitHandler(node *v1.Node, failure lifecycle.AdmissionFailureHandler) lifecycle.PodAdmitHandler {
	update := func(*schedulerframework.NodeInfo, *lifecycle.PodAdmitAttributes) error { return nil }
	return lifecycle.NewPredicateAdmitHandler(func() (*v1.Node, error) { return node, nil }, failure, update)
}
