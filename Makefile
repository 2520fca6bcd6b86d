# The two commands of the README: `make preview` and `make test`. Both set up the virtualenv first (idempotent:
# it is reinstalled only when requirements.txt or requirements-dev.txt changes). requirements.txt is what `pulumi up`
# installs (the program and the packs); requirements-dev.txt adds the offline preview's and the tests' tools.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup preview preflight test fuzz policy-docs bench clean consumer-preview outputs-docs docs fleet-preview

setup: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

## make preview: the offline preview of the dev stack (no cloud, no credentials)
preview: $(STAMP)
	$(PY) -m offline.preview --stack dev

## make preflight [STACK=dev]: check the stack against the real tenancy with your OCI credentials before
## pulumi up (docs/preflight.md; exit 0 ok, 1 problems, 2 config/credentials/usage)
STACK ?= dev
preflight: $(STAMP)
	$(PY) -m oke_rdma.preflight --stack $(STACK)

## make consumer-preview: the dev stack's plan, then the training-job example previewed against its outputs
## (pulumi.StackReference answered from plan-dev.json) and checked with the organisation's security pack
consumer-preview: $(STAMP)
	$(PY) -m offline.preview --stack dev --json plan-dev.json > /dev/null
	$(PY) -m offline.preview --program examples/training-job/__main__.py \
	  --config-file examples/training-job/Pulumi.dev.yaml \
	  --stack-outputs organization/oke-rdma/dev=plan-dev.json \
	  --policy-pack policies/security --policy-config examples/training-job/policy-config.json

## make outputs-docs: check the output contract's versions and regenerate the outputs table of docs/outputs.md
outputs-docs: $(STAMP)
	$(PY) -m oke_rdma.outputs
	$(PY) -m oke_rdma.docs --write

## make docs: regenerate every generated part of the documentation: the config reference (docs/configuration.md)
## and Pulumi.yaml's config schema from the config model, the NSG rules (docs/networking.md), the output contract
## (docs/outputs.md), the policy packs' tables (docs/policies.md) and the example fleet's rendered objects
## (fleet/rendered, docs/fleet.md); tests/components/test_docs.py and tests/fleet/test_render.py fail when one is stale
docs: $(STAMP)
	$(PY) -m offline.changecost --write
	$(PY) -m oke_rdma.docs --write
	$(PY) -m policies.doc --write
	$(PY) -m oke_rdma.fleet render --fleet fleet/fleet.yaml

## make fleet-preview: the offline preview of every stack of the example fleet, one table (docs/fleet.md)
fleet-preview: $(STAMP)
	$(PY) -m offline.preview --fleet fleet/fleet.yaml

## make test: every test, on every core (TEST_WORKERS=N to choose; 0 runs in this process); one module per worker at
## a time, so a module's shared previews are made once. The sources are compiled first: where PYTHONDONTWRITEBYTECODE
## is set, every preview subprocess would otherwise compile them again. pytest runs with that variable cleared so it
## keeps the test modules it rewrote for assertion messages (__pycache__/*-pytest-*.pyc): rewriting them costs each
## worker about 12 s of CPU at every collection otherwise. CPU per test: make test PYTEST_ARGS="--cpu-report FILE"
TEST_WORKERS ?= auto
test: $(STAMP)
	$(PY) -m compileall -q oke_rdma offline policies bench tests examples __main__.py
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

## make policy-docs: regenerate docs/policies.md's tables from both packs and refresh their vendored helper copies
policy-docs: $(STAMP)
	$(PY) -m policies.doc --write
## make fuzz: the property-based config fuzz test with 1,000 random mutated stacks (FUZZ_EXAMPLES=N for more)
fuzz: $(STAMP)
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-1000} $(PY) -m pytest -q -p no:cacheprovider --hypothesis-show-statistics tests/config/test_fuzz.py

clean:
	rm -rf $(VENV) .pytest_cache

## make bench: the offline preview's cost as the stack grows (docs/benchmark.md)
bench: $(STAMP)
	$(PY) -m bench.run $(BENCH_ARGS)
