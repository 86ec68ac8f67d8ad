"""One comparison with PyTorch for the op tests: the same function run on autograd_lab and on torch, values,
dtypes, the grad_fn recorded and the gradients of every input compared."""

from __future__ import annotations

import numpy as np

import autograd_lab as al


def same_as_torch(torch, fn, *values, rtol=1e-10):
    """Run ``fn(m, *leaves)`` with ``m`` autograd_lab then torch, float64 leaves made from ``values`` (each requires
    grad), backward with the same random gradient, and compare what came out. Returns our result."""
    results = []
    for m in (al, torch):
        leaves = [m.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
        out = fn(m, *leaves)
        out = out[0] if isinstance(out, tuple) else out
        seed = np.random.default_rng(0).standard_normal(tuple(out.shape))
        out.backward(m.tensor(seed, dtype=out.dtype))
        grads = [None if x.grad is None else np.asarray(x.grad.tolist()) for x in leaves]
        node = out.grad_fn and out.grad_fn.name()
        results.append((node, tuple(out.shape), str(out.dtype).split(".")[-1], np.asarray(out.tolist()), grads, out))
    ours, theirs = results
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=rtol, atol=rtol, equal_nan=True)
    for a, b in zip(ours[4], theirs[4]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True)
    return ours[5]


def same_error(torch, fn, error, whole: bool = False):
    """``fn(m)`` raises ``error`` with the same leading phrase (``whole``: the same message) for autograd_lab and
    torch (autograd_lab's may go on with its advice)."""
    import pytest
    with pytest.raises(error) as theirs:
        fn(torch)
    with pytest.raises(error) as ours:
        fn(al)
    phrase = str(theirs.value) if whole else str(theirs.value).splitlines()[0]
    assert phrase in str(ours.value), (phrase, str(ours.value))
