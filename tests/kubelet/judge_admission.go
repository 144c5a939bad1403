// Kubelet's admission of the pods bound to a node when it restarts (the collection's _admission.py): kubelet's own
// predicate admit handler (pkg/kubelet/lifecycle/predicate.go: the scheduler's resource fit, kubelet's reasons and
// messages) with its critical pod admission handler (pkg/kubelet/preemption), each source's pods sorted as
// HandlePodAdditions sorts them (util/sliceutils.PodsByCreationTime), the static pods' batch first.
package main

import (
	"sort"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet/preemption"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
	"k8s.io/kubernetes/pkg/kubelet/util/sliceutils"
)

// AdmissionCase: the node's Allocatable (pods: its maxPods) and the pods bound to it, static ones annotated
// kubernetes.io/config.source: file.
type AdmissionCase struct {
	Gates       map[string]bool
	Allocatable map[string]string
	Pods        []*v1.Pod
}

func judgeAdmission(raw []byte) answer {
	var c AdmissionCase
	decode(raw, &c)
	if err := setGates(c.Gates, podGates); err != nil {
		return answer{"error": "gates: " + err.Error()}
	}
	allocatable, err := resourceList(c.Allocatable)
	if err != nil {
		return answer{"error": err.Error()}
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node", Labels: map[string]string{v1.LabelOSStable: "linux"}},
		Status: v1.NodeStatus{Capacity: allocatable, Allocatable: allocatable}}
	var active []*v1.Pod
	results := map[string]answer{}
	// kubelet's active pods: the ones admitted so far, and the one being admitted (the pod manager holds it).
	var admitting *v1.Pod
	var victims []string // the pods preempted to admit the one being admitted
	activePods := func() []*v1.Pod { return append(append([]*v1.Pod{}, active...), admitting) }
	killPod := func(pod *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
		for i, other := range active {
			if other.UID == pod.UID {
				active = append(active[:i], active[i+1:]...)
				break
			}
		}
		results[pod.Name] = answer{"admitted": false, "reason": "Preempting", "preempted_by": admitting.Name}
		victims = append(victims, pod.Name)
		return nil
	}
	handler := newPredicateAdmitHandler(node,
		preemption.NewCriticalPodAdmissionHandler(activePods, killPod, record.NewFakeRecorder(100)))
	var static, bound []*v1.Pod
	for _, pod := range c.Pods {
		if kubetypes.IsStaticPod(pod) {
			static = append(static, pod)
		} else {
			bound = append(bound, pod)
		}
	}
	order := []string{}
	for _, batch := range [][]*v1.Pod{static, bound} {
		sort.Sort(sliceutils.PodsByCreationTime(batch))
		for _, pod := range batch {
			admitting = pod
			order = append(order, pod.Name)
			others := append([]*v1.Pod{}, active...)
			victims = []string{}
			result := admit(handler, pod, others)
			sort.Strings(victims)
			results[pod.Name] = answer{"admitted": result.Admit, "reason": result.Reason, "message": result.Message,
				"preempts": victims}
			if result.Admit {
				active = append(active, pod)
			}
		}
	}
	return answer{"order": order, "results": results}
}
