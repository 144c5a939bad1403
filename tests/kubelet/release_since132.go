//go:build !(k8s129 || k8s130 || k8s131)

// What kubelet 1.32 changed and later releases keep: getCgroupConfigInternal, with a compressible-only form (and
// getCgroupConfig around it adds the node's cpuset).
package main

import (
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm"
)

// cm/node_container_manager_linux.go: a cgroup's values from a resource list.
//
//go:linkname getCgroupConfigInternal k8s.io/kubernetes/pkg/kubelet/cm.getCgroupConfigInternal
func getCgroupConfigInternal(rl v1.ResourceList, compressibleResourcesOnly bool) *cm.ResourceConfig

// kubepodsConfig: the kubepods cgroup's values from the absolute allocatable.
func kubepodsConfig(rl v1.ResourceList) *cm.ResourceConfig { return getCgroupConfigInternal(rl, false) }
