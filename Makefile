# gpu-fabric: `make plan STACK=a3-prod` (offline plan), `make test`, and `make verify STACK=...`
# (check a deployed cluster). Each creates .venv first. `make help` lists every target.
STACK ?= a3-prod
PYTHON ?= python3
VENV := .venv
# The commands behind the targets (gpu_fabric/cli.py), installed into .venv by requirements-dev.txt.
# Their exit codes are their own (`.venv/bin/gpu-fabric --help`); make reports any failure of a
# recipe as its own status 2 (GNU make manual, "Errors in Recipes"): run the command itself when
# the code matters (a script, CI).
GPU_FABRIC := $(VENV)/bin/gpu-fabric
STAMP := $(VENV)/.installed
# Python's bytecode cache (__pycache__/, git-ignored) on for every target, whatever the shell says:
# without it each run compiles the package, and pytest rewrites every test module again, which is
# most of what a warm `make test` or a fresh interpreter of `make bench` would spend.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help plan test lint verify clean

help:
	@echo "gpu-fabric targets (each creates .venv on first use):"
	@echo "  make plan    STACK=a3-prod        offline plan of a stack under Pulumi mocks (build/plan/)"
	@echo "  make test                          the test suite"
	@echo "  make lint                          ruff format and lint, and the type checker"
	@echo "  make docs                          write docs/config-reference.md's key tables from the config models"
	@echo "  make diff    [BASE=rev | OLD=a.json NEW=b.json]"
	@echo "                                     what a change does to every stack (build/diff/report.md)"
	@echo "  make graph   STACK=... [LEVEL=resources]"
	@echo "                                     the stack's dependency graph (build/plan/<stack>.mmd/.dot/.png)"
	@echo "  make bench                         estimated pulumi up time, offline plan speed and growth"
	@echo "  make verify  STACK=... [KUBECONFIG_FILE=path] [BANDWIDTH=1 [NODES=2] [TIMEOUT=seconds] [UPSTREAM_PODS=1]] [STORAGE=1]"
	@echo "                                     check a deployed fabric;"
	@echo "                                     BANDWIDTH=1: run its NCCL test, judge it, clean up (build/verify/<stack>/)"
	@echo "                                     STORAGE=1: write and read the training volumes from a job, report the throughput"
	@echo "  make nccl-judge LOG=path [STACK=... | MIN_BUSBW=GB/s SIZE=bytes] [PLOT=out.png]"
	@echo "                                     judge a saved nccl-tests log"
	@echo "  make scan    [STACK=...]           checkov over every rendered Kubernetes object, a count per stack"
	@echo "                                     (.venv-scan, build/scan/)"
	@echo "  make package-check                 pip install .[gke] into a fresh environment and import it"
	@echo "  make clean                         remove build/ and .venv"
	@echo "variables: STACK (default a3-prod), PYTHON (default python3), BASE, OLD, NEW, LEVEL,"
	@echo "  KUBECONFIG_FILE"
	@echo "make exits 0 or 2 (any failure); each target's command has its own exit codes, listed by"
	@echo "  .venv/bin/gpu-fabric --help (nccl-judge: 0 meets, 1 below or wrong, 2 unreadable)"

# The Python version is checked before anything is installed (pyproject.toml's requires-python):
# an older one would fail only at the end of the install. pip's progress bars on a terminal; in a
# log (CI), one line per package instead of bars, so a long first install is never silent.
PIP_PROGRESS = if [ -t 1 ]; then echo; else echo --progress-bar off; fi
$(STAMP): requirements.txt requirements-dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(0) if sys.version_info >= (3, 11) else sys.exit( \
	  f"gpu-fabric needs Python 3.11 or newer; $(PYTHON) is {sys.version.split()[0]}: " \
	  "install one and run make again with PYTHON=python3.11 (or newer)")'
	@echo "==> creating the virtual environment $(VENV) with $(PYTHON) (first run only)"
	$(PYTHON) -m venv $(VENV)
	@echo "==> installing requirements-dev.txt into $(VENV): Pulumi, the cloud SDKs and the test tools (a few minutes the first time)"
	$(VENV)/bin/pip install $$($(PIP_PROGRESS)) --disable-pip-version-check -r requirements-dev.txt
	@touch $@
	@echo "==> $(VENV) is ready"

plan: $(STAMP)
	$(GPU_FABRIC) plan $(STACK)

# One worker per core (pytest-xdist): each worker shares the plans its tests ask for. With
# `worksteal` an idle worker takes half of the other's queue, so the suite's last long tests do not
# leave a core idle (pytest-xdist docs, "Running tests across multiple CPUs").
test: $(STAMP)
	$(VENV)/bin/python -m pytest -n auto --dist worksteal

lint: $(STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The key tables of docs/config-reference.md, from the config models' descriptions
# (tools/config_reference.py; tests/test_config_reference.py fails when they differ), and the
# hosted GKE pool args' options (tools/pool_options.py; tests/test_gke_pool_options.py).
.PHONY: docs
docs: $(STAMP)
	$(VENV)/bin/python -m tools.config_reference
	$(VENV)/bin/python -m tools.pool_options
	$(VENV)/bin/python -m tools.layout

verify: $(STAMP)
	$(GPU_FABRIC) verify $(STACK) $(if $(KUBECONFIG_FILE),--kubeconfig $(KUBECONFIG_FILE)) \
	  $(if $(BANDWIDTH),--bandwidth $(if $(NODES),--nodes $(NODES)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(UPSTREAM_PODS),--upstream-pods)) \
	  $(if $(STORAGE),--storage $(if $(TIMEOUT),--timeout $(TIMEOUT)))

clean:
	rm -rf build $(VENV) $(SCAN_VENV)

# checkov in an environment of its own (its dependencies never meet Pulumi's): every Kubernetes
# object of every stack (or of STACK=...), with the optional workloads and the benchmark
# manifests; each waiver is an annotation in the object with its reason (docs/security.md).
SCAN_VENV := .venv-scan
$(SCAN_VENV)/.installed: requirements-scan.txt
	@echo "==> creating $(SCAN_VENV) for checkov (first run only)"
	$(PYTHON) -m venv $(SCAN_VENV)
	$(SCAN_VENV)/bin/pip install $$($(PIP_PROGRESS)) --disable-pip-version-check -r requirements-scan.txt
	@touch $@

.PHONY: scan
scan: $(STAMP) $(SCAN_VENV)/.installed
	$(GPU_FABRIC) scan --checkov $(SCAN_VENV)/bin/checkov $(if $(filter command line,$(origin STACK)),$(STACK))

# `pip install .` into a fresh environment, with the GKE extra only: gpu_fabric imports, no other
# cloud's SDK comes with it, gpu_fabric.testing plans a program offline (tools/package_check.py),
# and the `gpu-fabric` command is installed.
.PHONY: package-check
package-check:
	rm -rf build/package-venv
	$(PYTHON) -m venv build/package-venv
	build/package-venv/bin/pip install --quiet --disable-pip-version-check ".[gke]"
	cd build && package-venv/bin/python ../tools/package_check.py
	build/package-venv/bin/gpu-fabric --version  # the console command is on the environment's PATH

# Review a change offline (README, "Reviewing changes"): `make diff` compares every stack's plan at
# BASE (default HEAD, in a temporary git worktree) with this tree's; OLD=... NEW=... compares two
# plan files. The report is also written to build/diff/report.md.
BASE ?= HEAD
.PHONY: diff
diff: $(STAMP)
	$(GPU_FABRIC) diff --out build/diff/report.md \
		$(if $(and $(OLD),$(NEW)),$(OLD) $(NEW),--base $(BASE))

# The stack's dependency graph under build/plan/, one box per component: <stack>.mmd (Mermaid),
# .dot, and .svg and .png when Graphviz's `dot` is installed. LEVEL=resources draws every resource
# (<stack>.resources.*).
.PHONY: graph
graph: $(STAMP)
	$(GPU_FABRIC) graph $(STACK) $(if $(LEVEL),--level $(LEVEL))

# Estimated `pulumi up` critical path per stack, offline plan time against the bare SDK import, and
# plan time growth (bench/plan_bench.py; a benchmark, not a test).
.PHONY: bench
bench: $(STAMP)
	$(GPU_FABRIC) bench

# Judge a saved nccl-tests log offline (verify/nccl_judge.py): against the catalog's threshold for
# STACK's fabric (given on the command line; the default STACK is not used), or MIN_BUSBW (GB/s) at
# SIZE (bytes, or 512M). COLLECTIVE= names the collective of a log that does not, NODES= and
# GPUS_PER_NODE= override what the log says, ALLOW_UNCHECKED=1 accepts a run with -c 0.
.PHONY: nccl-judge
NCCL_JUDGE_ARGS = $(if $(filter command line environment,$(origin STACK)),--stack $(STACK)) \
	$(if $(MIN_BUSBW),--min-busbw $(MIN_BUSBW)) $(if $(SIZE),--size $(SIZE)) \
	$(if $(COLLECTIVE),--collective $(COLLECTIVE)) $(if $(NODES),--nodes $(NODES)) \
	$(if $(GPUS_PER_NODE),--gpus-per-node $(GPUS_PER_NODE)) $(if $(PLOT),--plot $(PLOT)) \
	$(if $(ALLOW_UNCHECKED),--allow-unchecked)
nccl-judge: $(STAMP)
	$(if $(LOG),,$(error LOG=path is required: make nccl-judge LOG=saved.log STACK=a3-prod))
	$(GPU_FABRIC) nccl-judge "$(LOG)" $(strip $(NCCL_JUDGE_ARGS))
