# The two commands of the README: `make lab` and `make test`. Both set up what they need, idempotently.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check

# CI (CI=true) also installs PyTorch, the gradient oracle; on your machine the oracle tests skip without it.
ifneq ($(CI),)
TEST_EXTRAS := test,oracle
TEST_STAMP := $(VENV)/.deps-test-oracle
else
TEST_EXTRAS := test
TEST_STAMP := $(VENV)/.deps-test
endif

.PHONY: test lab lint clean lab-bundle

$(PY):
	$(PYTHON) -m venv $(VENV)

$(TEST_STAMP): pyproject.toml | $(PY)
	$(PIP) -e '.[$(TEST_EXTRAS)]'
	touch $@

$(VENV)/.deps-lab: pyproject.toml | $(PY)
	$(PIP) -e '.[lab]'
	touch $@

test: $(TEST_STAMP)
	$(PY) -m ruff check autograd_lab tests
	$(PY) -m pytest

# --allow-root only where you are root (containers, CI machines); Jupyter refuses root otherwise.
lab: $(VENV)/.deps-lab
	mkdir -p notebooks
	$(PY) -m jupyter lab --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

lint: $(TEST_STAMP)
	$(PY) -m ruff check autograd_lab tests

# The lab widget's front end: rebuilds autograd_lab/lab/static/widget.js from lab-frontend/ with the versions
# pinned in its package-lock.json (needs node and npm). The built file is committed: users and CI need no node.
lab-bundle:
	cd lab-frontend && npm ci --no-audit --no-fund && npm run build

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
