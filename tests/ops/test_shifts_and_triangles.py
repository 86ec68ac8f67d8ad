"""roll, rot90, tril/triu (and tril_/triu_), trace, diag_embed and repeat_interleave (ops/triangles.py) against
PyTorch: values, grad_fn names and gradients on several shapes, negative dims, empty and 0-dim inputs; gradcheck in
float64; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

OPS = {
    "roll flat": ((3, 4), lambda m, x: x.roll(5)),
    "roll dims": ((2, 3, 4), lambda m, x: m.roll(x, (1, -2), (0, -1))),
    "roll same dim twice": ((3, 4), lambda m, x: x.roll((1, 2), (1, -1))),
    "roll 0-dim": ((), lambda m, x: x.roll(1)),
    "roll empty": ((0, 3), lambda m, x: x.roll(1, 1)),
    "rot90": ((3, 4), lambda m, x: x.rot90()),
    "rot90 k=2 dims (2, 0)": ((2, 3, 4), lambda m, x: m.rot90(x, 2, (2, 0))),
    "rot90 k=-1 negative dims": ((2, 3, 4), lambda m, x: x.rot90(-1, (-1, -2))),
    "rot90 k=0": ((3, 4), lambda m, x: x.rot90(0)),
    "rot90 k=5 empty": ((0, 4), lambda m, x: x.rot90(5)),
    "tril": ((4, 3), lambda m, x: x.tril()),
    "tril batched diagonal=-1": ((2, 3, 4), lambda m, x: m.tril(x, -1)),
    "triu diagonal=2": ((3, 5), lambda m, x: x.triu(2)),
    "triu empty": ((0, 3), lambda m, x: x.triu()),
    "trace square": ((3, 3), lambda m, x: x.trace()),
    "trace wide": ((2, 5), lambda m, x: m.trace(x)),
    "trace empty": ((0, 3), lambda m, x: x.trace()),
    "diag_embed": ((2, 3), lambda m, x: x.diag_embed()),
    "diag_embed offset dims": ((2, 3), lambda m, x: m.diag_embed(x, 1, 0, 2)),
    "diag_embed negative offset swapped dims": ((4,), lambda m, x: x.diag_embed(-2, -1, 0)),
    "diag_embed empty": ((0,), lambda m, x: x.diag_embed()),
    "repeat_interleave flat": ((2, 3), lambda m, x: x.repeat_interleave(2)),
    "repeat_interleave dim": ((2, 3), lambda m, x: m.repeat_interleave(x, 3, dim=-1)),
    "repeat_interleave 0": ((2, 3), lambda m, x: x.repeat_interleave(0, dim=0)),
    "repeat_interleave tensor": ((3, 2), lambda m, x: x.repeat_interleave(m.tensor([1, 0, 3]), dim=0)),
    "repeat_interleave one count": ((3, 2), lambda m, x: x.repeat_interleave(m.tensor([2]), dim=1)),
    "repeat_interleave 0-dim count": ((3,), lambda m, x: x.repeat_interleave(m.tensor(2))),
    "repeat_interleave 0-dim input": ((), lambda m, x: x.repeat_interleave(3)),
    "repeat_interleave output_size": ((3, 2), lambda m, x: x.repeat_interleave(m.tensor([1, 2, 0]), 0, output_size=3)),
}


@pytest.mark.parametrize("name", OPS)
def test_ops_match_torch(name):
    shape, fn = OPS[name]
    same_as_torch(torch, fn, np.random.default_rng(4).standard_normal(shape))


@pytest.mark.parametrize("name", ["roll dims", "rot90 k=-1 negative dims", "tril batched diagonal=-1", "triu diagonal=2",
                                  "trace wide", "diag_embed offset dims", "repeat_interleave tensor"])
def test_ops_pass_gradcheck_and_gradgradcheck(name):
    shape, fn = OPS[name]
    x = al.tensor(np.random.default_rng(5).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda t: fn(al, t), [x], check_forward_ad=True)
    assert gradgradcheck(lambda t: fn(al, t), [x])


@pytest.mark.parametrize("name", ["tril_", "triu_"])
def test_tril_and_triu_in_place_match_torch(name):
    def fn(m, x):
        y = x * 2
        view = y[1:]
        assert getattr(view, name)(-1) is view
        return y
    out = same_as_torch(torch, fn, np.random.default_rng(6).standard_normal((4, 3)))
    assert out.grad_fn.name().endswith("CopySlices")


def test_tril_in_place_on_a_leaf_that_requires_grad_is_pytorchs_error():
    same_error(torch, lambda m: m.ones(2, 2, requires_grad=True).tril_(), RuntimeError)


def test_repeat_interleave_of_counts_alone_gives_the_repeated_positions():
    counts = [2, 0, 3]
    assert al.repeat_interleave(al.tensor(counts)).tolist() == torch.repeat_interleave(torch.tensor(counts)).tolist()


def test_trace_of_integers_is_int64_as_torch():
    ours, theirs = al.tensor([[1, 2], [3, 4]]).int().trace(), torch.tensor([[1, 2], [3, 4]]).int().trace()
    assert ours.dtype is al.int64 and theirs.dtype is torch.int64 and ours.item() == theirs.item()


ERRORS = [
    (lambda m: m.zeros(3, 4).roll((1, 2), 0), RuntimeError),
    (lambda m: m.tensor(1.0).roll(1, 0), IndexError),
    (lambda m: m.zeros(3, 4).rot90(1, (0, 0)), RuntimeError),
    (lambda m: m.zeros(3, 4).rot90(1, (0, 1, 1)), RuntimeError),
    (lambda m: m.zeros(3).rot90(), RuntimeError),
    (lambda m: m.zeros(3).tril(), RuntimeError),
    (lambda m: m.zeros(3).triu(), RuntimeError),
    (lambda m: m.zeros(2, 2, 2).trace(), RuntimeError),
    (lambda m: m.zeros(3, 2).repeat_interleave(m.tensor([1, 2]), 0), RuntimeError),
    (lambda m: m.zeros(3).repeat_interleave(m.tensor([1, -2, 1]), 0), RuntimeError),
    (lambda m: m.zeros(3).repeat_interleave(-1), RuntimeError),
    (lambda m: m.zeros(3).diag_embed(0, 1, 1), RuntimeError),
    (lambda m: m.zeros(3, 2).repeat_interleave(2, dim=0, output_size=5), RuntimeError),
    (lambda m: m.zeros(3, 2).repeat_interleave(m.tensor([1, 2, 0]), dim=0, output_size=4), RuntimeError),
]


@pytest.mark.parametrize("fn, error", ERRORS)
def test_errors_match_torch(fn, error):
    same_error(torch, fn, error)
