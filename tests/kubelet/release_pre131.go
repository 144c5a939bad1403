//go:build k8s129 || k8s130

// What kubelet 1.29 and 1.30 share and 1.31 changed: feature gates without emulated versions (KEP-4330), no
// failCgroupV1 (KEP-4569, 1.31), and the config sources' readiness asked with a sets.String.
package main

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/featuregate"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/config"
)

// mutableGate: the type of utilfeature.DefaultMutableFeatureGate.
type mutableGate = featuregate.MutableFeatureGate

// failCgroupV1: the key does not exist before 1.31 (a file that sets it is refused by the strict decoder).
func failCgroupV1(*kubeletconfig.KubeletConfiguration) interface{} { return nil }

// neverReady: config sources that never report every source seen.
func neverReady() config.SourcesReady {
	return config.NewSourcesReady(func(sets.String) bool { return false })
}
