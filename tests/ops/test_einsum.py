"""``al.einsum`` against ``torch.einsum``: values and gradients in float64, gradcheck, the string and sublist
forms, and PyTorch's error messages."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output: letters used once, alphabetical
    ("ba", [(2, 3)]),  # implicit output sorts: a transpose
    ("iJ", [(2, 3)]),  # upper case sorts first
    ("ii", [(3, 3)]),  # trace
    ("ii->i", [(3, 3)]),  # diagonal
    ("iij->j", [(3, 3, 2)]),
    ("iji->ij", [(3, 2, 3)]),
    ("ij->", [(2, 3)]),
    ("i,j", [(3,), (2,)]),  # outer product
    ("i,i", [(3,), (3,)]),  # dot product
    ("ij,ij->ij", [(2, 1), (2, 3)]),  # a size-1 dim broadcasts
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 4)]),  # ellipses broadcast, right-aligned
    ("...ij,jk", [(2, 2, 3), (3, 4)]),
    ("...ij->ij", [(5, 2, 3)]),  # ellipsis dims summed
    ("i...,i...->...", [(3, 2, 2), (3, 2)]),
    ("ij,jk->...", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),  # contracted left to right
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("ijk,k->j", [(2, 3, 4), (4,)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),  # attention scores
    (" a b , b c -> a c ", [(2, 3), (3, 4)]),  # spaces
]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(equation, shapes):
    rng = np.random.default_rng(len(equation))
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [al.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = al.einsum(equation, *ours), torch.einsum(equation, *theirs)
    assert tuple(out.shape) == tuple(expected.shape)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    seed = rng.standard_normal(tuple(expected.shape))
    out.backward(al.tensor(seed))
    expected.backward(torch.tensor(seed))
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("equation,shapes", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_gradcheck_and_gradgradcheck(equation, shapes):
    rng = np.random.default_rng(1)
    inputs = [al.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    assert gradcheck(lambda *xs: al.einsum(equation, *xs), inputs)
    assert gradgradcheck(lambda *xs: al.einsum(equation, *xs), inputs)


def test_sublist_form_and_operand_list():
    a, b = al.randn(2, 3, dtype=al.float64), al.randn(3, 4, dtype=al.float64)
    expected = a @ b
    assert al.allclose(al.einsum(a, [0, 1], b, [1, 2], [0, 2]), expected)
    assert al.allclose(al.einsum(a, [0, 1], b, [1, 2]), expected)
    assert al.allclose(al.einsum("ij,jk->ik", [a, b]), expected)
    assert al.allclose(al.einsum(a, [..., 1], [1]), a.sum(0))


def test_one_node_per_contraction():
    a, b, c = (al.randn(2, 2, requires_grad=True) for _ in range(3))
    out = al.einsum("ij,jk,kl->il", a, b, c)
    assert type(out.grad_fn).__name__ == "EinsumBackward0"
    assert type(out.grad_fn.next_functions[0][0]).__name__ == "EinsumBackward0"
    assert al.einsum("ij,jk->ik", al.ones(2, 3, dtype=al.int64), al.ones(3, 2, dtype=al.int64)).dtype is al.int64


ERRORS = [
    ("ij,jk->ik", [(2, 3)]),
    ("ij->ij", [(2, 3), (3, 4)]),
    ("ijk->i", [(2, 3)]),
    ("ij...k->i", [(2, 3)]),
    ("ij,jk->ik", [(2, 3), (4, 4)]),
    ("ii", [(2, 3)]),
    ("i1,jk", [(2, 3), (3, 4)]),
    ("ij,jk->ik->", [(2, 3), (3, 4)]),
    ("ij,jk->ii", [(2, 3), (3, 4)]),
    ("ij,jk->iz", [(2, 3), (3, 4)]),
    ("ij.,jk", [(2, 3), (3, 4)]),
    ("i...j...", [(2, 3)]),
    ("ij->i...j...", [(2, 3)]),
    ("ij->i.", [(2, 3)]),
]


@pytest.mark.parametrize("equation,shapes", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_read_as_pytorchs(equation, shapes):
    with pytest.raises(RuntimeError) as expected:
        torch.einsum(equation, *[torch.ones(s) for s in shapes])
    with pytest.raises(RuntimeError) as got:
        al.einsum(equation, *[al.ones(s) for s in shapes])
    assert str(got.value).split(" [autograd_lab]")[0] == str(expected.value)


def test_ellipsis_and_dtype_errors():
    with pytest.raises(RuntimeError, match="dimension 0 covered by ellipsis in operand 1 has size 4 which does not "
                                           "broadcast with previously seen ellipsis with size 5"):
        al.einsum("...ij,...jk", al.ones(5, 2, 3), al.ones(4, 3, 2))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        al.einsum("ij,jk->ik", al.ones(2, 3), al.ones(3, 4, dtype=al.float64))
