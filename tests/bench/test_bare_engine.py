"""The bare engine of ``benchmarks/bare_engine.py`` (the floor the per-op lines are read against) computes the same
gradients as autograd_lab on both of its workloads, so its timings compare like with like."""

from __future__ import annotations

import numpy as np

import autograd_lab as al
from benchmarks import bare_engine


def test_op_chain_gradient_equals_autograd_lab():
    ours = bare_engine.op_chain(bare_engine._Bare)
    np.testing.assert_allclose(ours, bare_engine.op_chain(al).numpy(), rtol=1e-12)


def test_deep_chain_gradient_equals_autograd_lab():
    ours = bare_engine.deep_chain(bare_engine._Bare, n=300)
    np.testing.assert_allclose(ours, bare_engine.deep_chain(al, n=300).numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours, [1.0001 ** 300], rtol=1e-12)  # d(1.0001^n x + ...)/dx
