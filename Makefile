# gpu-fabric: `make plan STACK=a3-prod` (offline plan) and `make test`. Both create .venv first.
STACK ?= a3-prod
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: plan test clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

plan: $(STAMP)
	$(VENV)/bin/python -m offline.plan $(STACK)

test: $(STAMP)
	$(VENV)/bin/python -m pytest

clean:
	rm -rf build $(VENV)
