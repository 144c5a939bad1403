//go:build !(k8s129 || k8s130)

// What kubelet has from 1.31: versioned feature gates (KEP-4330), failCgroupV1 (KEP-4569), and the config sources'
// readiness asked with a sets.Set[string].
package main

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/featuregate"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/config"
)

// mutableGate: the type of utilfeature.DefaultMutableFeatureGate.
type mutableGate = featuregate.MutableVersionedFeatureGate

// failCgroupV1: whether kubelet refuses a cgroup v1 host.
func failCgroupV1(c *kubeletconfig.KubeletConfiguration) interface{} { return c.FailCgroupV1 }

// neverReady: config sources that never report every source seen.
func neverReady() config.SourcesReady {
	return config.NewSourcesReady(func(sets.Set[string]) bool { return false })
}
