// Calls into kubelet whose signatures are the same in every release the judge is built for. Unexported steps
// are reached with go:linkname, which calls kubelet's own compiled function; each names the file it lives in.
package main

import (
	"context"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	critesting "k8s.io/cri-api/pkg/apis/testing"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	kubeletvalidation "k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
	"k8s.io/kubernetes/pkg/kubelet/kubeletconfig/configfiles"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	utilfs "k8s.io/kubernetes/pkg/util/filesystem"
	"k8s.io/utils/cpuset"
)

// cm/helpers.go: what the hard eviction thresholds hold back from Allocatable.
//
//go:linkname hardEvictionReservation k8s.io/kubernetes/pkg/kubelet/cm.hardEvictionReservation
func hardEvictionReservation(thresholds []evictionapi.Threshold, capacity v1.ResourceList) v1.ResourceList

type cpuAllocationReader interface {
	GetExclusiveCPUs(podUID, containerName string) cpuset.CPUSet
}

// nodeAllocatableReservation: containerManagerImpl.GetNodeAllocatableReservation's sum (a method of a manager only
// NewContainerManager builds, which writes /var/lib/kubelet): system + kube reserved + hardEvictionReservation.
func nodeAllocatableReservation(capacity, system, kube v1.ResourceList, thresholds []evictionapi.Threshold) v1.ResourceList {
	evictionReservation := hardEvictionReservation(thresholds, capacity)
	result := make(v1.ResourceList)
	for k := range capacity {
		value := resource.NewQuantity(0, resource.DecimalSI)
		if system != nil {
			value.Add(system[k])
		}
		if kube != nil {
			value.Add(kube[k])
		}
		if evictionReservation != nil {
			value.Add(evictionReservation[k])
		}
		if !value.IsZero() {
			result[k] = *value
		}
	}
	return result
}

// nodeAllocatableAbsolute: containerManagerImpl.getNodeAllocatableAbsoluteImpl (capacity less the reserved, never
// below zero), for the same reason.
func nodeAllocatableAbsolute(capacity, system, kube v1.ResourceList) v1.ResourceList {
	result := make(v1.ResourceList)
	for k, v := range capacity {
		value := v.DeepCopy()
		value.Sub(system[k])
		value.Sub(kube[k])
		if value.Sign() < 0 {
			value.Set(0)
		}
		result[k] = value
	}
	return result
}

func hugepageSize(name v1.ResourceName) (int64, bool) {
	const prefix = "hugepages-"
	if len(name) <= len(prefix) || string(name[:len(prefix)]) != prefix {
		return 0, false
	}
	q, err := resource.ParseQuantity(string(name[len(prefix):]))
	if err != nil {
		return 0, false
	}
	return q.Value(), true
}

type statusProvider struct{}

func (statusProvider) GetPodStatus(types.UID) (v1.PodStatus, bool) { return v1.PodStatus{}, false }

type noRuntime struct{}

func (noRuntime) UpdateContainerResources(context.Context, string, *runtimeapi.ContainerResources) error {
	return nil
}

type runtimeManager struct {
	manager kuberuntime.KubeGenericRuntime
}

// receiver: the *kubeGenericRuntimeManager inside the interface NewKubeGenericRuntimeManager returns, the receiver of
// its unexported methods.
func (r runtimeManager) receiver() unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&r.manager))[1]
}

// loadKubeletConfig: kubelet's file loader (configfiles), as kubelet reads --config: strict decoding with kubelet's
// scheme, then defaulting.
func loadKubeletConfig(text string) (*kubeletconfig.KubeletConfiguration, error) {
	path := filepath.Join(scratch, "kubelet-config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, err
	}
	loader, err := configfiles.NewFsLoader(&utilfs.DefaultFs{}, path)
	if err != nil {
		return nil, err
	}
	return loadConfigFile(loader)
}

// strictDecodingError: kubelet's scheme with strict decoding (what DecodeKubeletConfiguration tries first, before it
// falls back to a lenient decoder for v1beta1 and only logs); nil when the file decodes strictly.
func strictDecodingError(text string) error {
	_, codecs, err := kubeletscheme.NewSchemeAndCodecs(serializer.EnableStrict)
	if err != nil {
		return err
	}
	_, _, err = codecs.UniversalDecoder().Decode([]byte(text), nil, nil)
	return err
}

// validateKubeletConfig: as kubelet's command does, the file's feature gates set first, then
// ValidateKubeletConfiguration against them.
func validateKubeletConfig(kc *kubeletconfig.KubeletConfiguration) error {
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(kc.FeatureGates); err != nil {
		return err
	}
	return kubeletvalidation.ValidateKubeletConfiguration(kc, utilfeature.DefaultFeatureGate)
}

// A machine of 32 CPUs on one socket and NUMA node, CPU 0 reserved: the static policy's room for any case.
func cpuMachine() *machineInfo {
	cores := []machineCore{}
	for i := 0; i < 32; i++ {
		cores = append(cores, machineCore{Id: i, Threads: []int{i}, SocketID: 0})
	}
	return &machineInfo{NumCores: 32, NumSockets: 1, MemoryCapacity: 64 << 30,
		Topology: []machineNode{{Id: 0, Memory: 64 << 30, Cores: cores}}}
}

// nodeStatusAllocatable: the node status setter kubelet reports Capacity and Allocatable with (nodestatus.MachineInfo),
// on a machine with the capacity given (cpu in whole cores, memory, hugepages-*, ephemeral-storage).
func nodeStatusAllocatable(capacity, reservation v1.ResourceList, maxPods int) (v1.ResourceList, v1.ResourceList, error) {
	info := &machineInfo{}
	if cpu, ok := capacity[v1.ResourceCPU]; ok {
		info.NumCores = int(cpu.Value())
	}
	if memory, ok := capacity[v1.ResourceMemory]; ok {
		info.MemoryCapacity = uint64(memory.Value())
	}
	for name, q := range capacity {
		if size, ok := hugepageSize(name); ok {
			info.HugePages = append(info.HugePages, machineHugePages{PageSize: uint64(size / 1024),
				NumPages: uint64(q.Value() / size)})
		}
	}
	storage := v1.ResourceList{}
	if q, ok := capacity[v1.ResourceEphemeralStorage]; ok {
		storage[v1.ResourceEphemeralStorage] = q
	}
	node := &v1.Node{}
	if err := nodeStatusSetter(info, storage, reservation, maxPods)(context.Background(), node); err != nil {
		return nil, nil, err
	}
	return node.Status.Allocatable, node.Status.Capacity, nil
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
	manager, err := newCPUManager(policy, reserved, dir)
	if err != nil {
		return nil, err
	}
	ready := neverReady()
	if err := startCPUManager(manager, ready); err != nil {
		return nil, err
	}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if err := allocate(manager, pod, &list[i]); err != nil {
				return nil, err
			}
		}
	}
	return manager, nil
}

// exclusiveCPUsContainerManager: a container manager whose exclusive CPU answers are containerManagerImpl's
// (cm.containerHasExclusiveCPUs over the CPU manager that admitted the pod); the rest is cm's fake. Its two methods
// are the release's (their signatures differ).
type exclusiveCPUsContainerManager struct {
	*cm.FakeContainerManager
	cpus cpuAllocationReader
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
	settings := runtimeSettings{
		root:        root,
		machine:     &machineInfo{MemoryCapacity: uint64(c.MemoryCapacity), NumCores: 32},
		allocatable: v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(c.AllocatableMemory, resource.BinarySI)},
		period:      metav1.Duration{Duration: time.Duration(c.CPUPeriodUs) * time.Microsecond},
		containers:  exclusiveCPUsContainerManager{newFakeContainerManager(), cpus},
		runtime:     critesting.NewFakeRuntimeService(),
		images:      critesting.NewFakeImageService(),
	}
	manager, err := newKubeGenericRuntimeManager(c, settings)
	if err != nil {
		return runtimeManager{}, err
	}
	return runtimeManager{manager}, nil
}

// runtimeSettings: what newKubeGenericRuntimeManager passes kuberuntime beside the case's own settings.
type runtimeSettings struct {
	root        string
	machine     *machineInfo
	allocatable v1.ResourceList
	period      metav1.Duration
	containers  exclusiveCPUsContainerManager
	runtime     *critesting.FakeRuntimeService
	images      *critesting.FakeImageService
}
