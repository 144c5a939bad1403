//go:build k8s129 || k8s130 || k8s131

// What kubelet 1.29 to 1.31 share and 1.32 changed: getCgroupConfig has no compressible-only form yet.
package main

import (
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm"
)

// cm/node_container_manager_linux.go: a cgroup's values from a resource list.
//
//go:linkname getCgroupConfig k8s.io/kubernetes/pkg/kubelet/cm.getCgroupConfig
func getCgroupConfig(rl v1.ResourceList) *cm.ResourceConfig

// kubepodsConfig: the kubepods cgroup's values from the absolute allocatable.
func kubepodsConfig(rl v1.ResourceList) *cm.ResourceConfig { return getCgroupConfig(rl) }
