//go:build !k8s129

// cmd/kubelet/app, linked from 1.30 on (1.29's cannot be built from the module proxy: release_129_app.go).
package main

import (
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	_ "k8s.io/kubernetes/cmd/kubelet/app" // parseResourceList; its init registers logging's feature gates, as kubelet's does
)

// cmd/kubelet/app/server.go: systemReserved and kubeReserved as kubelet's run() parses them at start (names it
// reserves, quantities, no negative, CPU rounded to whole millicores).
//
//go:linkname parseResourceList k8s.io/kubernetes/cmd/kubelet/app.parseResourceList
func parseResourceList(m map[string]string) (v1.ResourceList, error)
