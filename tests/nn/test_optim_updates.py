"""Adam, AdamW and RMSprop update raw arrays in place (issue 7): the same values as PyTorch 2.13's single-tensor
implementations (``foreach=False``), the same state, and version counters bumped as PyTorch's in-place ops
bump them (``lerp_``, ``mul_``, ``addcmul_``, ``maximum(out=)``, ``addcdiv_``, ``add_``)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

CONFIGS = [
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.02, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.05, betas=(0.3, 0.6), amsgrad=True, weight_decay=0.05)),  # lerp with a weight over 0.5
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.3, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.02, weight_decay=0.0)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.8, weight_decay=0.05)),
    ("RMSprop", dict(lr=0.005, centered=True, momentum=0.5, maximize=True)),
    ("RMSprop", dict(lr=0.01, alpha=0.3, centered=True, eps=1e-4)),  # lerp with a weight over 0.5
]


def _run(lib, name, kwargs, values, dtype, steps):
    """``steps`` optimizer steps on two parameters (a matrix, a vector) from ``values``; the library's tensors."""
    T = al if lib == "al" else torch
    tdtype = getattr(T, dtype)
    w = T.tensor(values[0], dtype=tdtype, requires_grad=True)
    b = T.tensor(values[1], dtype=tdtype, requires_grad=True)
    extra = {} if lib == "al" else {"foreach": False}
    opt = getattr(T.optim, name)([w, b], **kwargs, **extra)
    x = T.tensor(values[2], dtype=tdtype)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w.t() + b).tanh() ** 2).sum() + (w * w).sum() * 0.1
        loss.backward()
        opt.step()
    return (w, b), opt


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_updates_match_torch(name, kwargs, dtype):
    rng = np.random.default_rng(len(CONFIGS) + len(str(kwargs)))
    values = [rng.standard_normal((3, 4)), rng.standard_normal(3), rng.standard_normal((5, 4))]
    ours, opt_a = _run("al", name, kwargs, values, dtype, steps=5)
    theirs, opt_b = _run("torch", name, kwargs, values, dtype, steps=5)
    # (float32: centered RMSprop's sqrt(square_avg - grad_avg^2) cancels digits, and PyTorch's kernels fuse
    # multiply-adds: the previous tensor implementation differed from PyTorch by 2e-5 there too)
    rtol = 1e-10 if dtype == "float64" else 1e-4
    for p, q in zip(ours, theirs):
        assert p._version == q._version
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=rtol, atol=rtol)
        state_a, state_b = opt_a.state[p], opt_b.state[q]
        assert sorted(state_a) == sorted(state_b)
        for key in state_b:
            a, b = state_a[key], state_b[key]
            assert a._version == b._version, key
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], key
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=rtol, err_msg=key)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop"])
def test_the_update_is_in_place(name):
    """Aliases of a parameter (``detach()`` shares memory) see the step, as with PyTorch's in-place ops."""
    w = al.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    alias = w.detach()
    before = alias.numpy().copy()
    opt = getattr(al.optim, name)([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert not np.array_equal(alias.numpy(), before)
    assert np.array_equal(alias.numpy(), w.detach().numpy())


@pytest.mark.parametrize("name", ["Adam", "RMSprop"])
def test_a_non_contiguous_parameter_and_gradient(name):
    """A transposed parameter (its own layout) and a broadcast gradient are updated as PyTorch updates them."""
    base = np.arange(6.0).reshape(2, 3) / 7
    ours = al.tensor(base).t().requires_grad_()
    theirs = torch.tensor(base).t().requires_grad_()
    opt_a = getattr(al.optim, name)([ours], lr=0.1)
    opt_b = getattr(torch.optim, name)([theirs], lr=0.1, foreach=False)
    for _ in range(3):
        ours.grad = al.ones(2, dtype=al.float64).expand(3, 2)
        theirs.grad = torch.ones(2, dtype=torch.float64).expand(3, 2)
        opt_a.step()
        opt_b.step()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert ours._version == theirs._version


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop"])
def test_inference_parameters_are_refused_as_by_the_in_place_ops(name):
    with al.inference_mode():
        p = al.ones(2)
    p.grad = al.ones(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        getattr(al.optim, name)([p], lr=0.1).step()


@pytest.mark.parametrize("default", ["float64", "float32"])
@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop"])
def test_step_count_dtype_follows_the_default_dtype(name, default):
    """PyTorch keeps the step count in float64 when that is the default dtype (``_get_scalar_dtype``)."""
    torch = pytest.importorskip("torch")
    dtypes = []
    for lib in (al, torch):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(getattr(lib, default))
        try:
            p = lib.nn.Parameter(lib.ones(2))
            opt = getattr(lib.optim, name)([p])
            p.grad = lib.ones(2)
            opt.step()
            dtypes.append(str(opt.state[p]["step"].dtype).split(".")[-1])
        finally:
            lib.set_default_dtype(previous)
    assert dtypes[0] == dtypes[1] == default
