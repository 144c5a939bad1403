//go:build !(k8s129 || k8s130 || k8s131 || k8s132 || k8s133 || k8s134 || k8s135 || k8s136)

// The calls whose signatures are those of kubelet 1.37 and later. Unexported steps are reached with go:linkname,
// which calls kubelet's own compiled function; each names the file it lives in.
package main

import (
	"context"
	_ "unsafe" // go:linkname

	cadvisorapi "github.com/google/cadvisor/lib/model"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/nodestatus"
)

// cm/container_manager.go: whether any container of the pod (init containers included) holds exclusive CPUs.
//
//go:linkname podHasExclusiveCPUsOf k8s.io/kubernetes/pkg/kubelet/cm.podHasExclusiveCPUs
func podHasExclusiveCPUsOf(logger klog.Logger, cr cpuAllocationReader, pod *v1.Pod) bool

//go:linkname containerHasExclusiveCPUsOf k8s.io/kubernetes/pkg/kubelet/cm.containerHasExclusiveCPUs
func containerHasExclusiveCPUsOf(logger klog.Logger, cr cpuAllocationReader, pod *v1.Pod, container *v1.Container) bool

func podHasExclusiveCPUs(cr cpuAllocationReader, pod *v1.Pod) bool {
	return podHasExclusiveCPUsOf(klog.Background(), cr, pod)
}

// cadvisor's machine description, whose package moved between releases.
type (
	machineInfo      = cadvisorapi.MachineInfo
	machineCore      = cadvisorapi.Core
	machineNode      = cadvisorapi.Node
	machineHugePages = cadvisorapi.HugePagesInfo
)

func nodeStatusSetter(info *machineInfo, storage, reservation v1.ResourceList, maxPods int) nodestatus.Setter {
	return nodestatus.MachineInfo("node", maxPods, 0, func() (*machineInfo, error) { return info, nil },
		func(klog.Logger, bool) v1.ResourceList { return storage },
		func(klog.Logger) (v1.ResourceList, v1.ResourceList, []string) { return nil, nil, nil },
		func() v1.ResourceList { return reservation }, func(string, string, string) {}, func() *bool { return nil },
		true)
}

func resourceConfigForPod(pod *v1.Pod, enforceCPULimits bool, cpuPeriod uint64, enforceMemoryQoS bool, policy string) *cm.ResourceConfig {
	return cm.ResourceConfigForPod(pod, enforceCPULimits, cpuPeriod, enforceMemoryQoS, kubeletconfig.MemoryReservationPolicy(policy))
}

func newTopologyStore() topologymanager.Store {
	return topologymanager.NewFakeManager(klog.Background())
}

func allocate(manager cpumanager.Manager, pod *v1.Pod, container *v1.Container) error {
	return manager.Allocate(context.Background(), pod, container, lifecycle.AddOperation)
}

func (m exclusiveCPUsContainerManager) ContainerHasExclusiveCPUs(logger klog.Logger, pod *v1.Pod, container *v1.Container) bool {
	return containerHasExclusiveCPUsOf(logger, m.cpus, pod, container)
}

func (m exclusiveCPUsContainerManager) PodHasExclusiveCPUs(logger klog.Logger, pod *v1.Pod) bool {
	return podHasExclusiveCPUsOf(logger, m.cpus, pod)
}

func newFakeContainerManager() *cm.FakeContainerManager {
	return cm.NewFakeContainerManager(klog.Background())
}

// lifecycle.PodAdmitHandler.Admit takes a context and the operation from 1.37.
func admit(handler lifecycle.PodAdmitHandler, pod *v1.Pod, others []*v1.Pod) lifecycle.PodAdmitResult {
	return handler.Admit(context.Background(), &lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others,
		Operation: lifecycle.AddOperation})
}
