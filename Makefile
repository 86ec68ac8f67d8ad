# The two commands of the README: `make lab` and `make test`. Both set up what they need, idempotently.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

# CI (CI=true) also installs PyTorch, the gradient oracle; on your machine the oracle tests skip without it.
ifneq ($(CI),)
TEST_EXTRAS := test,docs,oracle
TEST_STAMP := $(VENV)/.deps-test-docs-oracle
else
TEST_EXTRAS := test,docs
TEST_STAMP := $(VENV)/.deps-test-docs
endif

.PHONY: test lab lint clean lab-bundle bench bench-gpu docs

$(PY):
	$(PYTHON) -m venv $(VENV)

$(TEST_STAMP): pyproject.toml | $(PY)
	$(PIP) -e '.[$(TEST_EXTRAS)]'
	touch $@

$(VENV)/.deps-lab: pyproject.toml | $(PY)
	$(PIP) -e '.[lab]'
	touch $@

# The notebooks of notebooks/ run too, both editions (notebooks/zh/ holds the Chinese one), each cell's output
# compared with the stored one (nbval); what legitimately varies (addresses, timings, measured memory) is rewritten
# by notebooks/nbval_sanitize.cfg first.
# tests/lab/notebooks/ holds the browser test's fixture notebook, which is not a lesson.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg --ignore=tests/lab/notebooks

# The library's tests (tests/, by subject), the notebooks, the docs build and the browser test, in one run.
test: $(TEST_STAMP)
	$(PY) -m ruff check conftest.py autograd_lab tests benchmarks scripts
	$(PY) -m pytest tests notebooks $(NBVAL)

# --allow-root only where you are root (containers, CI machines); Jupyter refuses root otherwise.
lab: $(VENV)/.deps-lab
	mkdir -p notebooks
	$(PY) -m jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# The benchmark suite (benchmarks/NOTES.md): each workload in fresh processes, 1 BLAS thread, medians and
# ratios against hand-written NumPy and PyTorch. BENCH_ARGS: e.g. --full, --samples 3, --only op_overhead.
$(VENV)/.deps-bench: pyproject.toml | $(PY)
	$(PIP) -e '.[bench]'
	touch $@

bench: $(VENV)/.deps-bench
	$(PY) -m benchmarks $(BENCH_ARGS)

# The GPU section (benchmarks/NOTES.md): MLP and CNN steps at batch 256 and 4096, autograd_lab and PyTorch on CPU
# and CUDA (CuPy). Without a GPU only the CPU rows run. BENCH_GPU_ARGS: e.g. --samples 3, --only mlp, --require-cuda.
bench-gpu: $(VENV)/.deps-bench
	$(PY) -m benchmarks.gpu $(BENCH_GPU_ARGS)

lint: $(TEST_STAMP)
	$(PY) -m ruff check conftest.py autograd_lab tests benchmarks scripts

# The docs site, HTML in docs/_build/html (tests/docs/test_docs.py builds it too, warnings as errors). Notebooks are
# rendered from their stored outputs, never executed.
$(VENV)/.deps-docs: pyproject.toml | $(PY)
	$(PIP) -e '.[docs]'
	touch $@

docs: $(VENV)/.deps-docs
	$(PY) -m sphinx -W --keep-going -b html -d docs/_build/doctrees docs docs/_build/html

# The lab widget's front end: rebuilds autograd_lab/lab/static/widget.js from lab-frontend/ with the versions
# pinned in its package-lock.json (needs node and npm). The built file is committed: users and CI need no node.
lab-bundle:
	cd lab-frontend && npm ci --no-audit --no-fund && npm run build

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info docs/_build
