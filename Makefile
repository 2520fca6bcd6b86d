# The two commands of the README: `make preview` and `make test`. Both set up the virtualenv first (idempotent:
# it is rebuilt only when requirements.txt changes).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup preview test clean bench

setup: $(STAMP)

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

## make preview: the offline preview of the dev stack (no cloud, no credentials)
preview: $(STAMP)
	$(PY) -m offline.preview --stack dev

## make test: every test
test: $(STAMP)
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache

## make bench: the offline preview's cost as the stack grows (see README, "Offline preview benchmark")
bench: $(STAMP)
	$(PY) -m bench.run $(BENCH_ARGS)
