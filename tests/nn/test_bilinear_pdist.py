"""``F.bilinear`` / ``nn.Bilinear`` and ``F.pdist`` against PyTorch: values, dtypes, the nodes PyTorch records
(``TrilinearBackward0`` under a view, ``PdistBackward0`` and its underivable ``PdistBackwardBackward0``), saved values,
gradients (of gradients for bilinear), finite differences, the module's repr and initialisation, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck
from tests.ops._torch_compare import same_error

torch = pytest.importorskip("torch")


def _run(m, fn, arrays, create_graph=False):
    leaves = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *leaves)
    seed = m.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=out.dtype)
    grads = m.autograd.grad(out, leaves, seed, create_graph=create_graph, allow_unused=True)
    return out, leaves, grads


def _same(ours, theirs, rtol=1e-12):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol)


def _bilinear(m, x1, x2, w, b=None):
    return m.nn.functional.bilinear(x1, x2, w, b)


@pytest.mark.parametrize("batch", [(4,), (2, 3), (), (0,)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_bilinear_matches_torch_with_its_nodes_and_gradients_of_gradients(batch, with_bias):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(batch + (3,)), rng.standard_normal(batch + (5,)), rng.standard_normal((2, 3, 5))]
    arrays += [rng.standard_normal(2)] if with_bias else []
    (ours, our_leaves, our_grads), (theirs, their_leaves, their_grads) = (
        _run(m, _bilinear, arrays, create_graph=True) for m in (al, torch))
    nodes = [ours.grad_fn] + [n for n, _ in ours.grad_fn.next_functions if n is not None]
    their_nodes = [theirs.grad_fn] + [n for n, _ in theirs.grad_fn.next_functions if n is not None]
    assert [type(n).__name__ for n in nodes] == [type(n).__name__ for n in their_nodes]
    trilinear = ours.grad_fn if not with_bias else ours.grad_fn.next_functions[0][0]
    trilinear = trilinear.next_functions[0][0]
    their_trilinear = theirs.grad_fn if not with_bias else theirs.grad_fn.next_functions[0][0]
    their_trilinear = their_trilinear.next_functions[0][0]
    assert trilinear.name() == their_trilinear.name() == "TrilinearBackward0"
    for name in ("expand1", "expand2", "expand3", "sumdim"):
        assert tuple(getattr(trilinear, f"_saved_{name}")) == tuple(getattr(their_trilinear, f"_saved_{name}"))
    _same(ours, theirs)
    for a, b in zip(our_grads, their_grads):
        _same(a, b)
    if batch != (0,):
        second = [al.autograd.grad(sum((g ** 2).sum() for g in our_grads), our_leaves[:3]),
                  torch.autograd.grad(sum((g ** 2).sum() for g in their_grads), their_leaves[:3])]
        for a, b in zip(*second):
            _same(a, b, 1e-10)


def test_bilinear_float32_and_finite_differences():
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal((4, 2)), rng.standard_normal((3, 3, 2)),
              rng.standard_normal(3)]
    ours, theirs = (_bilinear(m, *[m.tensor(a.astype("float32")) for a in arrays]) for m in (al, torch))
    _same(ours, theirs, 1e-5)
    leaves = [al.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(F.bilinear, leaves, check_forward_ad=True)
    assert gradgradcheck(F.bilinear, leaves, check_fwd_over_rev=True)


def test_bilinear_module_repr_initialisation_and_forward():
    layer = al.nn.Bilinear(4, 3, 2)
    assert repr(layer) == repr(torch.nn.Bilinear(4, 3, 2))
    assert repr(al.nn.Bilinear(1, 2, 3, bias=False)) == repr(torch.nn.Bilinear(1, 2, 3, bias=False))
    assert al.nn.Bilinear(1, 2, 3, bias=False).bias is None
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    assert tuple(layer.weight.shape) == (2, 4, 3) and tuple(layer.bias.shape) == (2,)
    bound = 1 / math.sqrt(4)  # U(-1/sqrt(in1_features), 1/sqrt(in1_features)), for the bias too
    big = al.nn.Bilinear(4, 30, 40)
    for p in (big.weight, big.bias):
        values = p.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound and values.max() - values.min() > 1.5 * bound
    al.manual_seed(5)
    first = al.nn.Bilinear(4, 3, 2).weight.detach().numpy()
    al.manual_seed(5)
    assert np.array_equal(first, al.nn.Bilinear(4, 3, 2).weight.detach().numpy())
    x1, x2 = al.randn(5, 4), al.randn(5, 3)
    np.testing.assert_allclose(layer(x1, x2).detach().numpy(),
                               F.bilinear(x1, x2, layer.weight, layer.bias).detach().numpy())
    assert al.nn.Bilinear(4, 3, 2, dtype=al.float64).weight.dtype is al.float64


def _error(fn, error):
    same_error(torch, fn, error, whole=True)


@pytest.mark.parametrize("s1, s2, w, b", [((4, 3), (4, 5, 1), (2, 3, 5), None), ((4, 3), (3, 5), (2, 3, 5), None),
                                          ((4, 4), (4, 5), (2, 3, 5), None), ((4, 3), (4, 6), (2, 3, 5), None),
                                          ((4, 3), (4, 5), (2, 3, 5), (3,)), ((4, 3), (4, 5), (2, 3), None)])
def test_bilinear_errors_are_torchs(s1, s2, w, b):
    _error(lambda m: _bilinear(m, m.zeros(*s1), m.zeros(*s2), m.zeros(*w), None if b is None else m.zeros(*b)),
           IndexError if len(w) == 2 else RuntimeError)


def test_bilinear_refuses_mixed_dtypes_as_torch_does():
    _error(lambda m: _bilinear(m, m.zeros(4, 3, dtype=m.float16), m.zeros(4, 5), m.zeros(2, 3, 5),
                               m.zeros(2, dtype=m.float64)), RuntimeError)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 1.5, 3.0, float("inf"), 0.0])
def test_pdist_matches_torch(p):
    x = np.random.default_rng(3).standard_normal((5, 3))
    x[3] = x[1]  # (a zero distance)
    x[4, 0] = x[0, 0]  # (a zero difference)
    (ours, _, our_grads), (theirs, _, their_grads) = (
        _run(m, lambda m, a: m.nn.functional.pdist(a, p), [x], create_graph=True) for m in (al, torch))
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "PdistBackward0"
    assert ours.grad_fn._saved_p == theirs.grad_fn._saved_p
    _same(ours.grad_fn._saved_result, theirs.grad_fn._saved_result)
    _same(ours, theirs)
    _same(our_grads[0], their_grads[0])


def test_pdist_float32_small_and_empty_inputs():
    x = np.random.default_rng(4).standard_normal((6, 4)).astype("float32")
    _same(F.pdist(al.tensor(x)), torch.nn.functional.pdist(torch.tensor(x)), 1e-6)
    for shape in ((1, 3), (0, 3), (3, 0)):
        _same(F.pdist(al.zeros(*shape)), torch.nn.functional.pdist(torch.zeros(*shape)), 0)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0, float("inf")])
def test_pdist_finite_differences_and_forward_mode(p):
    x = al.tensor(np.random.default_rng(5).standard_normal((4, 3)), requires_grad=True)
    assert gradcheck(lambda a: F.pdist(a, p), (x,), check_forward_ad=True)


def test_pdist_gradient_records_torchs_node_which_has_no_derivative():
    results = []
    for m in (al, torch):
        x = m.tensor(np.random.default_rng(6).standard_normal((4, 3)), requires_grad=True)
        (grad,) = m.autograd.grad(m.nn.functional.pdist(x).sum(), x, create_graph=True)
        nodes = [type(grad.grad_fn).__name__] + [type(n).__name__ for n, _ in grad.grad_fn.next_functions]
        with pytest.raises(RuntimeError if m is torch else NotImplementedError) as error:
            grad.sum().backward()
        results.append((nodes, grad.detach().numpy(), str(error.value)))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[1][2].split(" [autograd_lab]")[0] in results[0][2]


def test_pdist_errors_are_torchs():
    _error(lambda m: m.nn.functional.pdist(m.zeros(3)), RuntimeError)
    _error(lambda m: m.nn.functional.pdist(m.zeros(2, 3, 4)), RuntimeError)
    _error(lambda m: m.nn.functional.pdist(m.zeros(3, 2), -1), RuntimeError)
    _error(lambda m: m.nn.functional.pdist(m.ones(3, 2, dtype=m.int64)), RuntimeError)


def test_pdist_forward_mode_and_forward_over_its_gradient():
    """pdist has a forward derivative here (PyTorch has none yet, and says so); forward mode over its gradient meets
    the same 'not implemented' as reverse mode does, never a silently missing tangent."""
    import autograd_lab.autograd.forward_ad as fwAD
    x = al.tensor(np.random.default_rng(7).standard_normal((4, 3)), requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, al.ones(4, 3, dtype=al.float64))
        assert fwAD.unpack_dual(F.pdist(dual)).tangent is not None
        with pytest.raises(NotImplementedError, match="the derivative for '_pdist_backward' is not implemented"):
            al.autograd.grad(F.pdist(dual).sum(), x, create_graph=True)
