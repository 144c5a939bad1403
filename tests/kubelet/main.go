// The kubelet judge: reads cases as JSON lines on stdin and answers each, one JSON line on stdout, with the code
// of the kubelet release it is linked with (k8s.io/kubernetes, go.mod). Nothing is transcribed from kubelet: every
// value comes from a call into kubelet's packages; where a step is unexported, the nearest function that runs it is
// called (release_*.go holds the calls whose signatures differ between releases, docs/testing.md lists them).
//
// It writes nothing outside the temporary directory it is given (-scratch): the CPU manager's and the runtime
// manager's checkpoints. It reads this machine's /sys/kernel/mm/hugepages (the page sizes kubelet's runtime manager
// gives every container) and the cgroup mode (isCgroup2UnifiedMode), which it reports in "machine".
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

// Case is one question; Op names it, the other fields are its input.
type Case struct {
	ID  int    `json:"id"`
	Op  string `json:"op"`
	Raw json.RawMessage
}

type answer map[string]interface{}

var scratch string

func main() {
	flag.StringVar(&scratch, "scratch", "", "a temporary directory for checkpoints (required)")
	flag.Parse()
	if scratch == "" {
		fmt.Fprintln(os.Stderr, "kubelet judge: -scratch DIR is required")
		os.Exit(2)
	}
	// kubelet's code logs through klog; the answers are on stdout, and nothing else is wanted.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	// Logging's feature gates are registered beside kube_features.go's by cmd/kubelet/app's init, linked here.
	initRelease()
	resetGates()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	encoder := json.NewEncoder(out)
	for in.Scan() {
		line := in.Bytes()
		var head struct {
			ID int    `json:"id"`
			Op string `json:"op"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			fmt.Fprintf(os.Stderr, "kubelet judge: bad case %q: %v\n", line, err)
			os.Exit(2)
		}
		result := judge(head.Op, line)
		result["id"] = head.ID
		if err := encoder.Encode(result); err != nil {
			fmt.Fprintln(os.Stderr, "kubelet judge:", err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "kubelet judge:", err)
		os.Exit(2)
	}
}

func judge(op string, raw []byte) (result answer) {
	defer func() {
		if r := recover(); r != nil {
			result = answer{"panic": fmt.Sprint(r)}
		}
	}()
	switch op {
	case "release":
		return answer{"release": Release, "gates": knownGates(), "machine": machine()}
	case "quantity":
		return judgeQuantity(raw)
	case "eviction":
		return judgeEviction(raw)
	case "allocatable":
		return judgeAllocatable(raw)
	case "set_gates":
		var c struct{ Gates map[string]bool }
		decode(raw, &c)
		resetGates()
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(c.Gates); err != nil {
			return answer{"error": err.Error()}
		}
		return answer{"accepted": true}
	case "store":
		return judgeStore(raw)
	case "pod":
		return judgePod(raw)
	case "cgroup_name":
		return judgeCgroupName(raw)
	case "cpu":
		return judgeCPU(raw)
	case "admission":
		return judgeAdmission(raw)
	case "config":
		return judgeConfig(raw)
	}
	return answer{"error": "unknown op " + op}
}

func decode(raw []byte, into interface{}) {
	if err := json.Unmarshal(raw, into); err != nil {
		panic("bad case: " + err.Error())
	}
}

// knownGates: kubelet's feature gates of this release, with their default and whether they are locked to it.
func knownGates() map[string]interface{} {
	gates := map[string]interface{}{}
	dependencies := gateDependencies()
	for name, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		needs := []string{}
		for _, need := range dependencies[name] {
			needs = append(needs, string(need))
		}
		gates[string(name)] = map[string]interface{}{"default": spec.Default, "locked": spec.LockToDefault,
			"stage": string(spec.PreRelease), "needs": needs}
	}
	return gates
}

// pristine: kubelet's feature gates as registered, before any case set one.
var pristine mutableGate

// resetGates: every feature gate back to its default, as a kubelet that starts afresh has them: a copy of the
// registry as it was registered (a SetFromMap that fails leaves some values set, and AllAlpha/AllBeta set gates that
// resetting by name does not undo).
func resetGates() {
	if pristine == nil {
		pristine = utilfeature.DefaultMutableFeatureGate.DeepCopy()
	}
	fresh := pristine.DeepCopy()
	utilfeature.DefaultMutableFeatureGate = fresh
	utilfeature.DefaultFeatureGate = fresh
}

// setGates sets the feature gates a case names, each other gate the case's code reads back to its default.
func setGates(gates map[string]bool, read []string) error {
	resetGates()
	all := utilfeature.DefaultMutableFeatureGate.GetAll()
	values := map[string]bool{}
	for _, name := range read {
		if spec, ok := all[featuregate.Feature(name)]; ok && !spec.LockToDefault && spec.PreRelease != featuregate.GA {
			values[name] = spec.Default
		}
	}
	for name, value := range gates {
		values[name] = value
	}
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(values)
}

// gateOn: whether a gate is on; false for one this release does not register (Enabled panics on those).
func gateOn(name string) bool {
	if _, known := utilfeature.DefaultMutableFeatureGate.GetAll()[featuregate.Feature(name)]; !known {
		return false
	}
	return utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name))
}

// The feature gates the pod and container values read, set to their default unless a case names them.
var podGates = []string{"PodLevelResources", "MemoryQoS", "DisableCPUQuotaWithExclusiveCPUs", "InPlacePodVerticalScaling",
	"NodeSwap", "PodLevelResourceManagers", "CustomCPUCFSQuotaPeriod", "DRANodeAllocatableResources"}

func quantityAnswer(q resource.Quantity) answer {
	return answer{"string": q.String(), "value": q.Value(), "milli": q.MilliValue()}
}

// judgeQuantity: resource.ParseQuantity and the canonical form kubelet writes back.
func judgeQuantity(raw []byte) answer {
	var c struct{ Text string }
	decode(raw, &c)
	q, err := resource.ParseQuantity(c.Text)
	if err != nil {
		return answer{"error": err.Error()}
	}
	return quantityAnswer(q)
}

func resourceList(in map[string]string) (v1.ResourceList, error) {
	list := v1.ResourceList{}
	for name, text := range in {
		q, err := resource.ParseQuantity(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		list[v1.ResourceName(name)] = q
	}
	return list, nil
}

func listAnswer(list v1.ResourceList) map[string]interface{} {
	result := map[string]interface{}{}
	for name, q := range list {
		result[string(name)] = quantityAnswer(q)
	}
	return result
}

// judgeEviction: eviction.ParseThresholdConfig (kubelet's flags and configuration to thresholds), and the memory and
// ephemeral-storage the hard thresholds hold back from Allocatable (cm's hardEvictionReservation).
func judgeEviction(raw []byte) answer {
	var c struct {
		EvictionHard map[string]string
		Capacity     map[string]string
		Enforce      []string
	}
	decode(raw, &c)
	thresholds, err := eviction.ParseThresholdConfig(c.Enforce, c.EvictionHard, nil, nil, nil)
	if err != nil {
		return answer{"error": err.Error()}
	}
	capacity, err := resourceList(c.Capacity)
	if err != nil {
		return answer{"error": err.Error()}
	}
	parsed := []interface{}{}
	for _, t := range thresholds {
		entry := map[string]interface{}{"signal": string(t.Signal), "operator": string(t.Operator)}
		if t.Value.Quantity != nil {
			entry["quantity"] = t.Value.Quantity.String()
		} else {
			entry["percentage"] = t.Value.Percentage
		}
		parsed = append(parsed, entry)
	}
	return answer{"thresholds": parsed, "reservation": listAnswer(hardEvictionReservation(thresholds, capacity))}
}

// judgeAllocatable: the node's Allocatable as kubelet's node status reports it (nodestatus.MachineInfo, which takes
// hugepages out of memory), and the kubepods cgroup values (getCgroupConfigInternal over capacity less the reserved,
// the absolute allocatable).
func judgeAllocatable(raw []byte) answer {
	var c struct {
		Capacity       map[string]string
		SystemReserved map[string]string
		KubeReserved   map[string]string
		EvictionHard   map[string]string
		Enforce        []string
		MaxPods        int
	}
	decode(raw, &c)
	capacity, err := resourceList(c.Capacity)
	if err != nil {
		return answer{"error": err.Error()}
	}
	system, err := parseResourceList(c.SystemReserved)
	if err != nil {
		return answer{"error": err.Error()}
	}
	kube, err := parseResourceList(c.KubeReserved)
	if err != nil {
		return answer{"error": err.Error()}
	}
	thresholds, err := eviction.ParseThresholdConfig(c.Enforce, c.EvictionHard, nil, nil, nil)
	if err != nil {
		return answer{"error": err.Error()}
	}
	reservation := nodeAllocatableReservation(capacity, system, kube, thresholds)
	// containerManagerImpl.validateNodeAllocatable, at NewContainerManager: kubelet does not start when a
	// reservation exceeds its capacity.
	refusals := []string{}
	for name, reserved := range reservation {
		value := capacity[name].DeepCopy()
		value.Sub(reserved)
		if value.Sign() < 0 {
			refusals = append(refusals, string(name))
		}
	}
	sort.Strings(refusals)
	allocatable, status, err := nodeStatusAllocatable(capacity, reservation, c.MaxPods)
	if err != nil {
		return answer{"error": err.Error()}
	}
	absolute := nodeAllocatableAbsolute(capacity, system, kube)
	config := kubepodsConfig(absolute)
	return answer{"reservation": listAnswer(reservation), "allocatable": listAnswer(allocatable),
		"capacity": listAnswer(status), "kubepods": configAnswer(config), "absolute": listAnswer(absolute),
		"exceeds_capacity": refusals}
}

func configAnswer(config *cm.ResourceConfig) answer {
	if config == nil {
		return nil
	}
	result := answer{}
	if config.Memory != nil {
		result["memory"] = *config.Memory
	}
	if config.CPUShares != nil {
		result["cpu_shares"] = *config.CPUShares
	}
	if config.CPUQuota != nil {
		result["cpu_quota"] = *config.CPUQuota
	}
	if config.CPUPeriod != nil {
		result["cpu_period"] = *config.CPUPeriod
	}
	if config.PidsLimit != nil {
		result["pids"] = *config.PidsLimit
	}
	if config.HugePageLimit != nil {
		pages := map[string]int64{}
		for size, limit := range config.HugePageLimit {
			pages[fmt.Sprint(size)] = limit
		}
		result["hugetlb"] = pages
	}
	if len(config.Unified) > 0 {
		result["unified"] = config.Unified
	}
	return result
}

// PodCase: a pod (as the API server stores it: API defaults applied here) and the node settings its values read.
type PodCase struct {
	Pod                     v1.Pod
	Gates                   map[string]bool
	CPUCFSQuota             bool
	CPUPeriodUs             uint64
	MemoryQoS               bool // MemoryQoS enforced: the gate on a cgroup v2 node
	MemoryReservationPolicy string
	MemoryThrottlingFactor  *float64
	MemoryCapacity          int64
	AllocatableMemory       int64
	CPUManagerPolicy        string
	SingleProcessOOMKill    *bool
}

// judgeStore: a pod as the API server stores it on creation: the v1 defaults (SetObjectDefaults_Pod), then the pod
// registry's PrepareForCreate on the internal object (pod-level resource defaulting from 1.37, status.qosClass),
// with the case's feature gates.
func judgeStore(raw []byte) answer {
	var c struct {
		Pod   v1.Pod
		Gates map[string]bool
	}
	decode(raw, &c)
	if err := setGates(c.Gates, podGates); err != nil {
		return answer{"error": "gates: " + err.Error()}
	}
	pod := c.Pod.DeepCopy()
	corev1defaults.SetObjectDefaults_Pod(pod)
	internal := &core.Pod{}
	if err := corev1defaults.Convert_v1_Pod_To_core_Pod(pod, internal, nil); err != nil {
		return answer{"error": err.Error()}
	}
	podregistry.Strategy.PrepareForCreate(context.Background(), internal)
	stored := &v1.Pod{}
	if err := corev1defaults.Convert_core_Pod_To_v1_Pod(internal, stored, nil); err != nil {
		return answer{"error": err.Error()}
	}
	return answer{"pod": stored}
}

func judgePod(raw []byte) answer {
	var c PodCase
	decode(raw, &c)
	if err := setGates(c.Gates, podGates); err != nil {
		return answer{"error": "gates: " + err.Error()}
	}
	pod := c.Pod.DeepCopy()
	corev1defaults.SetObjectDefaults_Pod(pod)
	qos := v1qos.GetPodQOS(pod)
	exclusive, err := allocateCPUs(pod, c.CPUManagerPolicy)
	if err != nil {
		return answer{"error": "cpu manager: " + err.Error()}
	}
	// The pod container manager (EnsureExists): no CFS quota for a pod with exclusive CPUs when the gate is on.
	enforceCPULimits := c.CPUCFSQuota
	if gateOn("DisableCPUQuotaWithExclusiveCPUs") && podHasExclusiveCPUs(exclusive, pod) {
		enforceCPULimits = false
	}
	podConfig := resourceConfigForPod(pod, enforceCPULimits, c.CPUPeriodUs, c.MemoryQoS, c.MemoryReservationPolicy)
	runtime, err := newRuntimeManager(c, exclusive)
	if err != nil {
		return answer{"error": "runtime manager: " + err.Error()}
	}
	containers := []interface{}{}
	for _, list := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			container := &list[i]
			lcr := runtime.containerResources(pod, container, c.MemoryQoS)
			pages := map[string]int64{}
			for _, limit := range lcr.HugepageLimits {
				pages[limit.PageSize] = int64(limit.Limit)
			}
			containers = append(containers, answer{
				"name": container.Name, "cpu_shares": lcr.CpuShares, "cpu_quota": lcr.CpuQuota,
				"cpu_period": lcr.CpuPeriod, "memory_limit": lcr.MemoryLimitInBytes, "oom_score_adj": lcr.OomScoreAdj,
				"hugetlb": pages, "unified": lcr.Unified,
				"exclusive_cpus": exclusive.GetExclusiveCPUs(string(pod.UID), container.Name).Size(),
			})
		}
	}
	return answer{"qos_class": string(qos), "pod": configAnswer(podConfig), "containers": containers,
		"enforce_cpu_limits": enforceCPULimits}
}

// judgeCgroupName: a cgroup name as kubelet's cgroup managers spell it for each driver.
func judgeCgroupName(raw []byte) answer {
	var c struct {
		Components []string
		Systemd    string
		Cgroupfs   string
	}
	decode(raw, &c)
	result := answer{}
	if c.Components != nil {
		name := cm.NewCgroupName(cm.RootCgroupName, c.Components...)
		result["systemd"] = name.ToSystemd()
		result["cgroupfs"] = name.ToCgroupfs()
	}
	if c.Systemd != "" {
		result["from_systemd"] = []string(cm.ParseSystemdToCgroupName(c.Systemd))
	}
	if c.Cgroupfs != "" {
		result["from_cgroupfs"] = []string(cm.ParseCgroupfsToCgroupName(c.Cgroupfs))
	}
	return result
}

// judgeCPU: cm.MilliCPUToShares and cm.MilliCPUToQuota.
func judgeCPU(raw []byte) answer {
	var c struct {
		MilliCPU int64
		Period   int64
	}
	decode(raw, &c)
	return answer{"shares": cm.MilliCPUToShares(c.MilliCPU), "quota": cm.MilliCPUToQuota(c.MilliCPU, c.Period)}
}

// judgeConfig: the path kubelet takes at start with a KubeletConfiguration file: its loader (strict decoding with
// kubelet's scheme, defaulting), then ValidateKubeletConfiguration with the feature gates the file sets.
func judgeConfig(raw []byte) answer {
	var c struct {
		Text string
	}
	decode(raw, &c)
	resetGates()
	strict := ""
	if err := strictDecodingErrorOrPanic(c.Text); err != nil {
		strict = err.Error()
	}
	config, err := loadKubeletConfigOrPanic(c.Text)
	if err != nil {
		return answer{"stage": "decode", "error": err.Error(), "strict_error": strict}
	}
	if err := validateKubeletConfig(config); err != nil {
		return answer{"stage": "validate", "error": err.Error(), "strict_error": strict}
	}
	// What kubelet's run() parses next, before the container manager starts (cmd/kubelet/app/server.go): reserved
	// CPUs take the place of kubeReserved's and systemReserved's cpu, then the reservations are parsed.
	reservedCPUs, err := getReservedCPUs(config.ReservedSystemCPUs)
	if err != nil {
		return answer{"stage": "start", "error": err.Error(), "strict_error": strict}
	}
	kubeReserved, systemReserved := copyMap(config.KubeReserved), copyMap(config.SystemReserved)
	if reservedCPUs.Size() > 0 {
		delete(kubeReserved, "cpu")
		systemReserved["cpu"] = strconv.Itoa(reservedCPUs.Size())
	}
	for _, reserved := range []map[string]string{kubeReserved, systemReserved} {
		if _, err := parseResourceList(reserved); err != nil {
			return answer{"stage": "start", "error": err.Error(), "strict_error": strict}
		}
	}
	if _, err := eviction.ParseThresholdConfig([]string{}, config.EvictionHard, nil, nil, nil); err != nil {
		return answer{"stage": "start", "error": err.Error(), "strict_error": strict}
	}
	if _, err := cm.ParseQOSReserved(config.QOSReserved); err != nil {
		return answer{"stage": "start", "error": err.Error(), "strict_error": strict}
	}
	keys := answer{"cgroupDriver": config.CgroupDriver, "enforceNodeAllocatable": config.EnforceNodeAllocatable,
		"systemReservedCgroup": config.SystemReservedCgroup, "kubeReservedCgroup": config.KubeReservedCgroup,
		"systemReserved": config.SystemReserved, "kubeReserved": config.KubeReserved, "evictionHard": config.EvictionHard,
		"maxPods": config.MaxPods, "cgroupsPerQOS": config.CgroupsPerQOS, "cgroupRoot": config.CgroupRoot,
		"failCgroupV1": failCgroupV1(config)}
	return answer{"stage": "accepted", "config": keys, "strict_error": strict}
}

// loadKubeletConfigOrPanic: kubelet's loader panics on some files (feature gates it cannot set while defaulting):
// kubelet does not start with them, which is a refusal like any other.
func loadKubeletConfigOrPanic(text string) (config *kubeletconfig.KubeletConfiguration, err error) {
	defer func() {
		if r := recover(); r != nil {
			config, err = nil, fmt.Errorf("kubelet panics loading it: %v", r)
		}
	}()
	return loadKubeletConfig(text)
}

func strictDecodingErrorOrPanic(text string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kubelet panics decoding it: %v", r)
		}
	}()
	return strictDecodingError(text)
}

func copyMap(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// machine: what this machine lends kubelet's code here (the node page sizes, the cgroup mode).
func machine() answer {
	sizes := []string{}
	entries, _ := os.ReadDir("/sys/kernel/mm/hugepages")
	for _, entry := range entries {
		sizes = append(sizes, strings.TrimPrefix(entry.Name(), "hugepages-"))
	}
	return answer{"hugepage_sizes": sizes, "cgroup2_unified": cgroup2Unified()}
}
