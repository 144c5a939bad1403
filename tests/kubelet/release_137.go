//go:build !k8s136

// The calls whose signatures are kubelet 1.37's (go.mod). Unexported steps are reached with go:linkname, which
// calls kubelet's own compiled function; each names the file it lives in.
package main

import (
	"context"
	"os"
	"path/filepath"
	"time"
	_ "unsafe" // go:linkname

	cadvisorapi "github.com/google/cadvisor/lib/model"
	"go.opentelemetry.io/otel/trace/noop"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	critesting "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/cpumanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/config"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/nodestatus"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/utils/cpuset"
)

// Release is the k8s.io/kubernetes version linked (go.mod).
const Release = "v1.37.2"

func initRelease() {}

// cmd/kubelet/app/server.go: reservedSystemCPUs parsed against the machine's CPUs (the 32 of cpuMachine).
//
//go:linkname getReservedCPUsOf k8s.io/kubernetes/cmd/kubelet/app.getReservedCPUs
func getReservedCPUsOf(logger klog.Logger, machineInfo *cadvisorapi.MachineInfo, cpus string) (cpuset.CPUSet, error)

func getReservedCPUs(cpus string) (cpuset.CPUSet, error) {
	return getReservedCPUsOf(klog.Background(), cpuMachine(), cpus)
}

// nodeStatusAllocatable: the node status setter kubelet reports Capacity and Allocatable with, on a machine with the
// capacity given (cpu in whole cores, memory, hugepages-*, ephemeral-storage).
func nodeStatusAllocatable(capacity, reservation v1.ResourceList, maxPods int) (v1.ResourceList, v1.ResourceList, error) {
	info := &cadvisorapi.MachineInfo{}
	if cpu, ok := capacity[v1.ResourceCPU]; ok {
		info.NumCores = int(cpu.Value())
	}
	if memory, ok := capacity[v1.ResourceMemory]; ok {
		info.MemoryCapacity = uint64(memory.Value())
	}
	for name, q := range capacity {
		if size, ok := hugepageSize(name); ok {
			info.HugePages = append(info.HugePages, cadvisorapi.HugePagesInfo{PageSize: uint64(size / 1024),
				NumPages: uint64(q.Value() / size)})
		}
	}
	storage := v1.ResourceList{}
	if q, ok := capacity[v1.ResourceEphemeralStorage]; ok {
		storage[v1.ResourceEphemeralStorage] = q
	}
	setter := nodestatus.MachineInfo("node", maxPods, 0,
		func() (*cadvisorapi.MachineInfo, error) { return info, nil },
		func(klog.Logger, bool) v1.ResourceList { return storage },
		func(klog.Logger) (v1.ResourceList, v1.ResourceList, []string) { return nil, nil, nil },
		func() v1.ResourceList { return reservation },
		func(string, string, string) {}, func() *bool { return nil }, true)
	node := &v1.Node{}
	if err := setter(context.Background(), node); err != nil {
		return nil, nil, err
	}
	return node.Status.Allocatable, node.Status.Capacity, nil
}

func resourceConfigForPod(pod *v1.Pod, enforceCPULimits bool, cpuPeriod uint64, enforceMemoryQoS bool, policy string) *cm.ResourceConfig {
	return cm.ResourceConfigForPod(pod, enforceCPULimits, cpuPeriod, enforceMemoryQoS, kubeletconfig.MemoryReservationPolicy(policy))
}

// A machine of 32 CPUs on one socket and NUMA node, CPU 0 reserved: the static policy's room for any case.
func cpuMachine() *cadvisorapi.MachineInfo {
	cores := []cadvisorapi.Core{}
	for i := 0; i < 32; i++ {
		cores = append(cores, cadvisorapi.Core{Id: i, Threads: []int{i}, SocketID: 0})
	}
	return &cadvisorapi.MachineInfo{NumCores: 32, NumSockets: 1, MemoryCapacity: 64 << 30,
		Topology: []cadvisorapi.Node{{Id: 0, Memory: 64 << 30, Cores: cores}}}
}

var managers int

// allocateCPUs: a CPU manager of the policy named, on a fresh checkpoint, that admits the pod as kubelet's topology
// manager does (Allocate for each init container, then each container); what it hands out is read back through
// GetExclusiveCPUs.
func allocateCPUs(pod *v1.Pod, policy string) (cpuAllocationReader, error) {
	if policy == "" {
		policy = "none"
	}
	managers++
	dir := filepath.Join(scratch, "cpu", string(rune('a'+managers%26)), time.Now().Format("150405.000000000"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	reserved := v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}
	manager, err := cpumanager.NewManager(klog.Background(), policy, nil, time.Hour, cpuMachine(), cpuset.New(),
		reserved, dir, topologymanager.NewFakeManager(klog.Background()))
	if err != nil {
		return nil, err
	}
	ready := config.NewSourcesReady(func(sets.Set[string]) bool { return false })
	if err := manager.Start(context.Background(), func() []*v1.Pod { return nil }, ready, statusProvider{}, noRuntime{},
		containermap.NewContainerMap()); err != nil {
		return nil, err
	}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if err := manager.Allocate(context.Background(), pod, &list[i], lifecycle.AddOperation); err != nil {
				return nil, err
			}
		}
	}
	return manager, nil
}

// exclusiveCPUsContainerManager: a container manager whose exclusive CPU answers are containerManagerImpl's
// (cm.containerHasExclusiveCPUs over the CPU manager that admitted the pod); the rest is cm's fake.
type exclusiveCPUsContainerManager struct {
	*cm.FakeContainerManager
	cpus cpuAllocationReader
}

func (m exclusiveCPUsContainerManager) ContainerHasExclusiveCPUs(logger klog.Logger, pod *v1.Pod, container *v1.Container) bool {
	return containerHasExclusiveCPUsOf(logger, m.cpus, pod, container)
}

func (m exclusiveCPUsContainerManager) PodHasExclusiveCPUs(logger klog.Logger, pod *v1.Pod) bool {
	return podHasExclusiveCPUsOf(logger, m.cpus, pod)
}

// newRuntimeManager: kuberuntime's manager as NewKubeGenericRuntimeManager builds it, with the case's settings, a
// fake CRI runtime and image service (cri-api's), checkpoints in the scratch directory.
func newRuntimeManager(c PodCase, cpus cpuAllocationReader) (runtimeManager, error) {
	managers++
	root := filepath.Join(scratch, "runtime", time.Now().Format("150405.000000000"))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return runtimeManager{}, err
	}
	defer os.RemoveAll(root)
	runtimeService := critesting.NewFakeRuntimeService()
	imageService := critesting.NewFakeImageService()
	machineInfo := &cadvisorapi.MachineInfo{MemoryCapacity: uint64(c.MemoryCapacity), NumCores: 32}
	allocatable := v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(c.AllocatableMemory, resource.BinarySI)}
	period := time.Duration(c.CPUPeriodUs) * time.Microsecond
	containerManager := exclusiveCPUsContainerManager{cm.NewFakeContainerManager(klog.Background()), cpus}
	maxParallel := int32(0)
	manager, _, err := kuberuntime.NewKubeGenericRuntimeManager(context.Background(), &record.FakeRecorder{},
		proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), root, filepath.Join(root, "logs"),
		machineInfo, nil, 110, &kubecontainer.RealOS{}, nil, nil, flowcontrol.NewBackOff(time.Second, time.Minute),
		false, &maxParallel, 5, 10, string(kubeletconfig.NeverVerifyPreloadedImages), nil, "", "", c.SingleProcessOOMKill, c.CPUCFSQuota,
		metav1.Duration{Duration: period}, nil, runtimeService, imageService, containerManager, nil, nil, false, "",
		func() v1.ResourceList { return allocatable }, c.MemoryThrottlingFactor,
		kubeletconfig.MemoryReservationPolicy(c.MemoryReservationPolicy), nil, noop.NewTracerProvider(), nil, nil, nil)
	if err != nil {
		return runtimeManager{}, err
	}
	return runtimeManager{manager}, nil
}
