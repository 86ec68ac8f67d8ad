"""``put``/``put_`` (``PutBackward0``), ``renorm``/``renorm_`` (``RenormBackward0``) and ``fill_diagonal_``: values,
gradients, node names, versions and errors, against PyTorch; gradients also against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_compare import same_as_torch, same_error

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(7)
_MATRIX = _RNG.standard_normal((3, 4))
_SOURCE = _RNG.standard_normal(5)


def _index(m, positions):
    return m.tensor(positions, dtype=m.int64)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_matches_torch(accumulate):
    """Repeated and negative positions; the gradient of what was overwritten is zero (unless accumulated)."""
    same_as_torch(torch, lambda m, a, s: (a * 1).put(_index(m, [0, 5, 11, -1, 5]), s, accumulate=accumulate),
                  _MATRIX, _SOURCE)
    same_as_torch(torch, lambda m, a, s: m.put(a * 2, _index(m, [[1], [2]]), s[:2].reshape(1, 2), accumulate),
                  _MATRIX, _SOURCE)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_in_place_matches_torch(accumulate):
    def put_in_place(m, a, s):
        out = a * 1
        assert out.put_(_index(m, [2, -3, 7]), s[:3] * 2, accumulate=accumulate) is out
        assert out._version == 1
        return out
    same_as_torch(torch, put_in_place, _MATRIX, _SOURCE)


def test_put_saves_what_torch_saves():
    for m in (al, torch):
        out = m.tensor(_MATRIX, requires_grad=True).put(_index(m, [1, 2]), m.tensor(_SOURCE[:2]), accumulate=True)
        assert out.grad_fn._saved_accumulate is True
        assert out.grad_fn._saved_index.tolist() == [1, 2]


def test_put_gradients_against_finite_differences():
    a = al.tensor(_MATRIX, requires_grad=True)
    s = al.tensor(_SOURCE, requires_grad=True)
    assert gradcheck(lambda x, y: x.put(al.tensor([0, 5, 10, -1, 6]), y), (a, s))  # (a repeated position: the last
    assert gradcheck(lambda x, y: x.put(al.tensor([0, 5, 11, -1, 5]), y, accumulate=True), (a, s))  # write wins)


@pytest.mark.parametrize("call, error", [
    (lambda m: m.zeros(3).put(m.tensor([0, 1]), m.tensor([1.0])), IndexError),
    (lambda m: m.zeros(3).put(m.tensor([5]), m.tensor([1.0])), IndexError),
    (lambda m: m.zeros(3).put(m.tensor([-4]), m.tensor([1.0])), IndexError),
    (lambda m: m.zeros(3).put(m.tensor([0.5]), m.tensor([1.0])), RuntimeError),
    (lambda m: m.zeros(3).put(m.tensor([1], dtype=m.int32), m.tensor([1.0])), RuntimeError),
    (lambda m: m.zeros(3).put(m.tensor([1]), m.tensor([1.0], dtype=m.float64)), RuntimeError),
    (lambda m: m.zeros(0).put(m.tensor([0]), m.tensor([1.0])), IndexError),
])
def test_put_errors_match_torch(call, error):
    same_error(torch, call, error)


def test_put_with_no_positions_on_an_empty_tensor():
    assert al.zeros(0).put(al.tensor([], dtype=al.int64), al.tensor([])).shape == (0,)


@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.0), (2, 1, 0.8), (1, -1, 0.5), (3, 0, 1.5),
                                             (float("inf"), 1, 0.5), (0.5, 0, 2.0), (2, 0, 100.0)])
def test_renorm_matches_torch(p, dim, maxnorm):
    same_as_torch(torch, lambda m, a: a.renorm(p, dim, maxnorm), _MATRIX, rtol=1e-9)
    same_as_torch(torch, lambda m, a: m.renorm(a.reshape(2, 3, 2), p, dim, maxnorm), _MATRIX, rtol=1e-9)


def test_renorm_saves_what_torch_saves_and_scales_to_maxnorm():
    for m in (al, torch):
        out = m.tensor(_MATRIX, requires_grad=True).renorm(2, 0, 1.0)
        node = out.grad_fn
        assert (node._saved_p, node._saved_dim, node._saved_maxnorm) == (2, 0, 1.0)
        assert np.allclose(node._saved_self.tolist(), _MATRIX)
        norms = np.linalg.norm(_MATRIX, axis=1)
        assert np.allclose(out.norm(dim=1).tolist(), np.minimum(norms, 1.0), atol=1e-6)


def test_renorm_in_float32_matches_torch():
    ours = al.tensor(_MATRIX, dtype=al.float32).renorm(2, 0, 1.0)
    theirs = torch.tensor(_MATRIX, dtype=torch.float32).renorm(2, 0, 1.0)
    assert ours.dtype is al.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.0), (3, 1, 0.5), (float("inf"), 1, 0.7), (1, 0, 1.0)])
def test_renorm_gradients_against_finite_differences(p, dim, maxnorm):
    a = al.tensor(_MATRIX, requires_grad=True)
    assert gradcheck(lambda x: x.renorm(p, dim, maxnorm), (a,), check_forward_ad=True)
    assert gradgradcheck(lambda x: x.renorm(p, dim, maxnorm), (a,))


def test_renorm_in_place_matches_torch():
    def renorm_in_place(m, a):
        out = a * 1
        assert out.renorm_(2, 1, 0.5) is out and out._version == 1
        return out
    same_as_torch(torch, renorm_in_place, _MATRIX)


@pytest.mark.parametrize("call", [
    lambda m: m.ones(2, 3).renorm(0, 0, 1.0),
    lambda m: m.ones(2, 3).renorm(-1, 0, 1.0),
    lambda m: m.ones(2, 3).renorm(2, 0, -1.0),
    lambda m: m.ones(3).renorm(2, 0, 1.0),
    lambda m: m.ones(()).renorm(2, 0, 1.0),
    lambda m: m.ones(2, 3, dtype=m.int64).renorm(2, 0, 1.0),
])
def test_renorm_errors_match_torch(call):
    same_error(torch, call, RuntimeError)


def test_renorm_dim_out_of_range_matches_torch():
    same_error(torch, lambda m: m.ones(2, 3).renorm(2, 5, 1.0), IndexError)
