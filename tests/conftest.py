"""Shared test setup.

In CI (``CI`` set in the environment) a skipped test is a failed test: everything the suite needs is
installed there (PyTorch included), so a skip would only hide a missing install step. On a user's
machine, tests needing an optional dependency skip with a reason instead.

One exception: tests marked ``cuda`` need CuPy and an NVIDIA GPU, which CI does not have. They skip
with their reason even in CI; the seam tests (tests/gpu/test_seam_*.py) run the same suites there through
a test double of the CUDA backend (tests/fake_backend.py). On a GPU machine they run like any other.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

IN_CI = bool(os.environ.get("CI"))

settings.register_profile("default", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if IN_CI else "default")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail") and item.get_closest_marker("cuda") is None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where every test must run: {reason}"
