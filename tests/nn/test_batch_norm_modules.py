"""``BatchNorm1d/2d/3d`` against PyTorch in float64 over training and evaluation steps: outputs, gradients of the input
and parameters, and the buffers (running statistics, ``num_batches_tracked``) for each option (``momentum=None``: a
cumulative average; ``track_running_stats=False``: batch statistics in evaluation too; ``affine=False``); reprs,
names and the input-dims errors. Also ``group_norm`` of an empty batch."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

SHAPES = {"BatchNorm1d": [(4, 3), (2, 3, 5)], "BatchNorm2d": [(2, 3, 2, 3)], "BatchNorm3d": [(2, 3, 2, 1, 3)]}
OPTIONS = [dict(), dict(momentum=None), dict(momentum=0.5, affine=False), dict(track_running_stats=False),
           dict(affine=False, track_running_stats=False, eps=0.1), dict(momentum=None, bias=False)]
CASES = [(name, shape, options) for name, shapes in SHAPES.items() for shape in shapes for options in OPTIONS]


def _check(got, expected, what):
    assert (got is None) == (expected is None), what
    if expected is not None:
        assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1], what
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-13,
                                   err_msg=what)


@pytest.mark.parametrize("name,shape,options", CASES, ids=[f"{n}-{s}-{o}" for n, s, o in CASES])
def test_steps_match_torch(name, shape, options):
    rng = np.random.default_rng(len(str(options)) + len(shape))
    ours, theirs = getattr(al.nn, name)(3, dtype=al.float64, **options), getattr(torch.nn, name)(3, dtype=torch.float64,
                                                                                                **options)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    with torch.no_grad(), al.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            q.copy_(torch.tensor(rng.standard_normal(3)))
            p.copy_(al.tensor(q.numpy()))
    for step in range(4):  # three training steps, then evaluation
        if step == 3:
            ours.eval(), theirs.eval()
        x, seed = rng.standard_normal(shape) * 3 + 1, rng.standard_normal(shape)
        a, t = al.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out, expected = ours(a), theirs(t)
        _check(out, expected, f"output, step {step}")
        (out * al.tensor(seed)).sum().backward()
        (expected * torch.tensor(seed)).sum().backward()
        _check(a.grad, t.grad, f"input's gradient, step {step}")
        for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            _check(p.grad, q.grad, f"{n}.grad, step {step}")
            p.grad, q.grad = None, None
        for (n, b), (_, e) in zip(ours.named_buffers(), theirs.named_buffers()):
            _check(b, e, f"{n}, step {step}")


@pytest.mark.parametrize("name,dims", [("BatchNorm1d", (1, 4)), ("BatchNorm2d", (3, 5)), ("BatchNorm3d", (4, 6))])
def test_input_dims_errors_match_torch(name, dims):
    for ndim in dims:
        with pytest.raises(ValueError) as expected:
            getattr(torch.nn, name)(3)(torch.ones((2, 3) + (2,) * (ndim - 2) if ndim > 1 else (3,)))
        with pytest.raises(ValueError) as got:
            getattr(al.nn, name)(3)(al.ones((2, 3) + (2,) * (ndim - 2) if ndim > 1 else (3,)))
        assert str(got.value) == str(expected.value)


def test_group_norm_of_an_empty_batch():
    results = []
    for lib in (al, torch):
        x, w = lib.ones(0, 4, 3, requires_grad=True), lib.ones(4, requires_grad=True)
        out = lib.nn.functional.group_norm(x, 2, w)  # failed here: a reshape to (0, group, -1)
        out.sum().backward()
        results.append((tuple(out.shape), tuple(x.grad.shape), w.grad.tolist()))
    assert results[0] == results[1]
