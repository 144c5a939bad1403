# kubenode.cgroups: every target installs what it needs.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := $(CURDIR)/.venv
BIN := $(VENV)/bin
CACHE := $(CURDIR)/.cache
# The collection seen at ansible_collections/kubenode/cgroups: a link for ansible and pytest,
# a copy for ansible-test (which insists on the real path).
COLLECTIONS := $(CACHE)/collections
SANITY_ROOT := $(CACHE)/sanity/ansible_collections/kubenode/cgroups
export ANSIBLE_HOME := $(CACHE)/ansible
export ANSIBLE_COLLECTIONS_PATH := $(COLLECTIONS)
export ANSIBLE_LOCAL_TEMP := $(CACHE)/ansible/tmp
export ANSIBLE_NOCOWS := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help venv link demo test sanity units integration bench clean

help:
	@echo "make demo   - plan this machine's Node Allocatable (read-only) and print the breakdown"
	@echo "make test   - sanity, unit, integration tests"
	@echo "make bench  - benchmarks of the calculation core"

$(BIN)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

venv: $(BIN)/.installed

link:
	@mkdir -p $(COLLECTIONS)/ansible_collections/kubenode $(ANSIBLE_LOCAL_TEMP)
	@ln -sfn $(CURDIR) $(COLLECTIONS)/ansible_collections/kubenode/cgroups

demo: venv link
	$(BIN)/ansible-playbook -i localhost, -c local playbooks/demo.yml

test: sanity units integration

sanity: venv
	rm -rf $(CACHE)/sanity && mkdir -p $(SANITY_ROOT)
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C $(SANITY_ROOT)
	cd $(SANITY_ROOT) && PATH=$(BIN):$$PATH $(BIN)/ansible-test sanity --requirements --python 3.11 --color no

units: venv link
	PYTHONPATH=$(COLLECTIONS) $(BIN)/python -m pytest -p no:cacheprovider tests/unit

integration: venv link
	PATH=$(BIN):$$PATH tests/integration/run.sh

bench: venv link
	PYTHONPATH=$(COLLECTIONS) $(BIN)/python -m pytest -p no:cacheprovider bench --benchmark-only

clean:
	rm -rf $(CACHE) $(VENV)
