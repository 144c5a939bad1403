//go:build k8s129 || k8s130 || k8s131 || k8s132 || k8s133 || k8s134 || k8s135 || k8s136

// What kubelet 1.29 to 1.36 share and 1.37 changed: cadvisor's package, the node status setter's callbacks, the
// CPU manager's Allocate and the fakes' constructors (without a logger), the container manager's exclusive CPU
// methods (without one either).
package main

import (
	cadvisorapi "github.com/google/cadvisor/info/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/nodestatus"
)

// cadvisor's machine description, whose package moved in 1.37.
type (
	machineInfo      = cadvisorapi.MachineInfo
	machineCore      = cadvisorapi.Core
	machineNode      = cadvisorapi.Node
	machineHugePages = cadvisorapi.HugePagesInfo
)

func nodeStatusSetter(info *machineInfo, storage, reservation v1.ResourceList, maxPods int) nodestatus.Setter {
	return nodestatus.MachineInfo("node", maxPods, 0, func() (*machineInfo, error) { return info, nil },
		func(bool) v1.ResourceList { return storage },
		func() (v1.ResourceList, v1.ResourceList, []string) { return nil, nil, nil },
		func() v1.ResourceList { return reservation }, func(string, string, string) {}, true)
}

func newTopologyStore() topologymanager.Store { return topologymanager.NewFakeManager() }

func allocate(manager cpumanager.Manager, pod *v1.Pod, container *v1.Container) error {
	return manager.Allocate(pod, container)
}

func (m exclusiveCPUsContainerManager) ContainerHasExclusiveCPUs(pod *v1.Pod, container *v1.Container) bool {
	return containerHasExclusiveCPUs(m.cpus, pod, container)
}

func (m exclusiveCPUsContainerManager) PodHasExclusiveCPUs(pod *v1.Pod) bool {
	return podHasExclusiveCPUs(m.cpus, pod)
}

func newFakeContainerManager() *cm.FakeContainerManager { return cm.NewFakeContainerManager() }

func admit(handler lifecycle.PodAdmitHandler, pod *v1.Pod, others []*v1.Pod) lifecycle.PodAdmitResult {
	return handler.Admit(&lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others})
}

// throttlingFactorOf: the case's memoryThrottlingFactor, else its default before 1.37 (not a pointer yet).
func throttlingFactorOf(c PodCase) float64 {
	if c.MemoryThrottlingFactor != nil {
		return *c.MemoryThrottlingFactor
	}
	return 0.9
}
