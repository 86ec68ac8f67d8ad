"""Shared test setup.

In CI (``CI`` set in the environment) a skipped test is a failed test: everything the suite needs is
installed there (PyTorch included), so a skip would only hide a missing install step. That holds for a
whole module skipped at collection (``torch = pytest.importorskip("torch")`` at its top) too. On a user's
machine, tests needing an optional dependency skip with a reason instead, and a skip for a module that
could not be imported says how to install it (``INSTALL_HINTS``).

One exception: tests marked ``cuda`` need CuPy and an NVIDIA GPU, which CI does not have. They skip
with their reason even in CI; the seam tests (tests/gpu/test_seam_*.py) run the same suites there through
a test double of the CUDA backend (tests/fake_backend.py). On a GPU machine they run like any other.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, settings

IN_CI = bool(os.environ.get("CI"))

settings.register_profile("default", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if IN_CI else "default")


# What to install for a module a test could not import (``pytest.importorskip`` without a reason says only
# "could not import 'torch'"): the hint is added to the skip's reason.
INSTALL_HINTS = {
    "torch": "PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'",
    "cupy": "CuPy needs an NVIDIA GPU: pip install -e '.[gpu]'",
    "graphviz": "pip install -e '.[test]'",
    "playwright": "pip install -e '.[test]'",
    "jupyterlab": "pip install -e '.[test]'",
    "nbval": "pip install -e '.[test]'",
    "sphinx": "pip install -e '.[docs]'",
    "myst_nb": "pip install -e '.[docs]'",
    "furo": "pip install -e '.[docs]'",
}


def _skip_reason(report) -> str:
    return report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)


def _add_install_hint(report) -> None:
    missing = re.search(r"could not import '(\w+)", _skip_reason(report))
    if missing and missing.group(1) in INSTALL_HINTS and isinstance(report.longrepr, tuple):
        path, line, reason = report.longrepr
        report.longrepr = (path, line, f"{reason} ({INSTALL_HINTS[missing.group(1)]})")


def _fail_in_ci(report) -> None:
    report.outcome = "failed"
    report.longrepr = f"skipped in CI, where every test must run: {_skip_reason(report)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        _add_install_hint(report)
        if IN_CI and item.get_closest_marker("cuda") is None:
            _fail_in_ci(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A module skipped as it is collected (an ``importorskip`` at its top) gets the same treatment."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped:
        _add_install_hint(report)
        if IN_CI:
            _fail_in_ci(report)
