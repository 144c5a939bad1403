//go:build k8s129 || k8s130 || k8s131 || k8s132 || k8s133

// What kubelet 1.29 to 1.33 share and 1.34 changed: generateLinuxContainerResources and the configuration file
// loader take no context.
package main

import (
	"unsafe"

	v1 "k8s.io/api/core/v1"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/kubeletconfig/configfiles"
)

// kuberuntime/kuberuntime_container_linux.go: the resources kubelet sends the runtime for a container.
//
//go:linkname generateLinuxContainerResources k8s.io/kubernetes/pkg/kubelet/kuberuntime.(*kubeGenericRuntimeManager).generateLinuxContainerResources
func generateLinuxContainerResources(m unsafe.Pointer, pod *v1.Pod, container *v1.Container, enforceMemoryQoS bool) *runtimeapi.LinuxContainerResources

func (r runtimeManager) containerResources(pod *v1.Pod, container *v1.Container, enforceMemoryQoS bool) *runtimeapi.LinuxContainerResources {
	return generateLinuxContainerResources(r.receiver(), pod, container, enforceMemoryQoS)
}

func loadConfigFile(loader configfiles.Loader) (*kubeletconfig.KubeletConfiguration, error) {
	return loader.Load()
}
