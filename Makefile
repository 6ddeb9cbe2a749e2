# gpu-fabric: `make plan STACK=a3-prod` (offline plan), `make test`, and `make verify STACK=...`
# (check a deployed cluster). Each creates .venv first.
STACK ?= a3-prod
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: plan test lint verify clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

plan: $(STAMP)
	$(VENV)/bin/python -m offline.plan $(STACK)

test: $(STAMP)
	$(VENV)/bin/python -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

verify: $(STAMP)
	$(VENV)/bin/python -m verify $(STACK) $(if $(KUBECONFIG_FILE),--kubeconfig $(KUBECONFIG_FILE))

clean:
	rm -rf build $(VENV)

# Review a change offline (README, "Reviewing changes"): `make diff` compares every stack's plan at
# BASE (default HEAD, in a temporary git worktree) with this tree's; OLD=... NEW=... compares two
# plan files. The report is also written to build/diff/report.md.
BASE ?= HEAD
.PHONY: diff
diff: $(STAMP)
	$(VENV)/bin/python -m offline.diff --out build/diff/report.md \
		$(if $(and $(OLD),$(NEW)),$(OLD) $(NEW),--base $(BASE))

# The stack's dependency graph under build/plan/, one box per component: <stack>.mmd (Mermaid),
# .dot, and .svg and .png when Graphviz's `dot` is installed. LEVEL=resources draws every resource
# (<stack>.resources.*).
.PHONY: graph
graph: $(STAMP)
	$(VENV)/bin/python -m offline.graph $(STACK) $(if $(LEVEL),--level $(LEVEL))

# Estimated `pulumi up` critical path per stack, offline plan time against the bare SDK import, and
# plan time growth (bench/plan_bench.py; a benchmark, not a test).
.PHONY: bench
bench: $(STAMP)
	$(VENV)/bin/python -m bench.plan_bench
