"""What the pooling tests (1-D, 2-D and 3-D) feed both libraries: values without ties, and a run that returns an
op's outputs with the input's gradient under a seeded upstream gradient."""

from __future__ import annotations

import numpy as np


def distinct(shape, seed=0, positive=False):
    """Values at least 0.1 apart (no ties, so maxima and finite differences are well defined)."""
    n = int(np.prod(shape))
    values = np.random.default_rng(seed).permutation(n) * 0.1 + 0.05
    return (values if positive else values - n * 0.05).reshape(shape)


def run(lib, call, array, dtype):
    """``call(lib.nn.functional, x)`` of ``array`` in ``dtype``: its outputs, its first output, and x's gradient."""
    x = lib.tensor(array.astype(dtype), requires_grad=True)
    out = call(lib.nn.functional, x)
    values = out[0] if isinstance(out, tuple) else out
    seed = np.random.default_rng(1).standard_normal(tuple(values.shape)).astype(dtype)
    (grad,) = lib.autograd.grad(values, x, lib.tensor(seed))
    return out, values, grad
