"""``F.scaled_dot_product_attention`` against PyTorch's CPU math path in float64 (values, gradients of query, key,
value and a float mask, the nodes it records, masks, ``is_causal``, ``scale``, grouped-query attention, errors),
its dropout drawn from al's generator, and gradcheck/gradgradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_RNG = np.random.default_rng(0)
_Q, _K, _V = (_RNG.standard_normal(s) for s in ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)))
_FLOAT_MASK = _RNG.standard_normal((4, 5))
_BOOL_MASK = _RNG.random((2, 1, 4, 5)) > 0.4
_BOOL_MASK[0, 0, 1] = False  # (a query that sees no key: its output and gradients are 0, not NaN)

CASES = {
    "plain": ((_Q, _K, _V), {}),
    "is_causal": ((_Q, _K, _V), {"is_causal": True}),
    "is_causal, more queries than keys": ((_K, _Q, _RNG.standard_normal((2, 3, 4, 6))), {"is_causal": True}),
    "float mask": ((_Q, _K, _V), {"attn_mask": _FLOAT_MASK}),
    "bool mask": ((_Q, _K, _V), {"attn_mask": _BOOL_MASK}),
    "scale": ((_Q, _K, _V), {"scale": 0.7}),
    "negative scale": ((_Q, _K, _V), {"scale": -0.3}),
    "3-d": ((_Q[0], _K[0], _V[0]), {}),
    "2-d": ((_Q[0, 0], _K[0, 0], _V[0, 0]), {"is_causal": True}),
    "broadcast batch": ((_Q, _K[:1], _V[:1]), {}),
    "grouped query": ((_RNG.standard_normal((2, 6, 4, 8)), _K, _V[:, :1]), {"enable_gqa": True}),
}


def _run(lib, functional, arrays, kwargs, dtype):
    inputs = [lib.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    kwargs = {k: lib.tensor(v, dtype=dtype if v.dtype.kind == "f" else None) if isinstance(v, np.ndarray) else v
              for k, v in kwargs.items()}
    if "attn_mask" in kwargs and kwargs["attn_mask"].is_floating_point():
        kwargs["attn_mask"].requires_grad_()
    out = functional.scaled_dot_product_attention(*inputs, **kwargs)
    seed = np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
    out.backward(lib.tensor(seed, dtype=dtype))
    grads = [t.grad.numpy() for t in inputs]
    if "attn_mask" in kwargs and kwargs["attn_mask"].requires_grad:
        grads.append(kwargs["attn_mask"].grad.numpy())
    return out, grads


def _nodes(node):
    """The names of the nodes of a graph, depth first (AccumulateGrad left out)."""
    names, stack = [], [node]
    while stack:
        node = stack.pop()
        if node is not None and type(node).__name__ != "AccumulateGrad":
            names.append(type(node).__name__)
            stack.extend(n for n, _ in reversed(node.next_functions))
    return names


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_graph_match_torch(name):
    arrays, kwargs = CASES[name]
    ours, our_grads = _run(al, F, arrays, kwargs, al.float64)
    theirs, their_grads = _run(torch, TF, arrays, kwargs, torch.float64)
    assert ours.dtype is al.float64 and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-13)
    assert len(our_grads) == len(their_grads)
    for a, t in zip(our_grads, their_grads):
        np.testing.assert_allclose(a, t, rtol=1e-11, atol=1e-12)
    assert _nodes(ours.grad_fn) == _nodes(theirs.grad_fn)


def test_float32_matches_torch():
    ours, our_grads = _run(al, F, (_Q, _K, _V), {"attn_mask": _BOOL_MASK}, al.float32)
    theirs, their_grads = _run(torch, TF, (_Q, _K, _V), {"attn_mask": _BOOL_MASK}, torch.float32)
    assert ours.dtype is al.float32
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    for a, t in zip(our_grads, their_grads):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, t, rtol=1e-5, atol=1e-5)


def test_a_query_that_sees_no_key_gets_zeros():
    q, k, v = (al.tensor(a, requires_grad=True) for a in (_Q, _K, _V))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=al.tensor(_BOOL_MASK))
    out.sum().backward()
    assert (out[0, :, 1] == 0).all() and (q.grad[0, :, 1] == 0).all()
    assert not np.isnan(k.grad.numpy()).any()


def test_dropout_comes_from_als_generator():
    q, k, v = (al.tensor(a) for a in (_Q, _K, _V))
    al.manual_seed(3)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    al.manual_seed(3)
    weights = F.dropout(F.softmax(q @ k.transpose(-2, -1) / 8 ** 0.5, -1), 0.4)
    np.testing.assert_allclose(out.numpy(), (weights @ v).numpy(), rtol=1e-12)
    assert (F.scaled_dot_product_attention(q, k, v, dropout_p=1.0) == 0).all()


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"attn_mask": _BOOL_MASK[:, :, :3, :3]}, {"scale": 2.0}],
                         ids=["plain", "causal", "bool mask", "scale"])
def test_gradcheck_and_gradgradcheck(kwargs):
    kwargs = {k: al.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    inputs = [al.tensor(a[:, :2, :3], requires_grad=True) for a in (_Q, _K, _V)]

    def attend(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, **kwargs)
    assert gradcheck(attend, inputs)
    assert gradgradcheck(attend, inputs)


def test_gradcheck_float_mask():
    mask = al.tensor(_FLOAT_MASK[:3, :4], requires_grad=True)
    q, k, v = (al.tensor(a[0, :1, :3 if i == 0 else 4], requires_grad=True) for i, a in enumerate((_Q, _K, _V)))
    assert gradcheck(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), [q, k, v, mask])


ERRORS = {
    "dtypes differ": (lambda lib: ((lib.randn(2, 3), lib.randn(2, 3).double(), lib.randn(2, 3)), {}),
                      RuntimeError, "Expected query, key, and value to have the same dtype, but got query.dtype: float "
                                    "key.dtype: double and value.dtype: float instead."),
    "1-d": (lambda lib: ((lib.randn(3), lib.randn(3), lib.randn(3)), {}),
            RuntimeError, "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: 1"),
    "causal and mask": (lambda lib: ((lib.randn(2, 3),) * 3, {"is_causal": True, "attn_mask": lib.ones(2, 2).bool()}),
                        RuntimeError, "Explicit attn_mask should not be set when is_causal=True"),
    "integer mask": (lambda lib: ((lib.randn(2, 3),) * 3, {"attn_mask": lib.ones(2, 2).long()}), RuntimeError,
                     "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                     "long int and  query.dtype: float instead."),
    "double mask": (lambda lib: ((lib.randn(2, 3),) * 3, {"attn_mask": lib.ones(2, 2).double()}), RuntimeError,
                    "but got attn_mask.dtype: double and  query.dtype: float"),
    "dropout_p": (lambda lib: ((lib.randn(2, 3),) * 3, {"dropout_p": 1.5}),
                  RuntimeError, "dropout probability has to be between 0 and 1, but got 1.5"),
    "heads do not divide": (lambda lib: ((lib.randn(3, 2, 4), lib.randn(2, 2, 4), lib.randn(2, 2, 4)),
                                         {"enable_gqa": True}),
                            RuntimeError, "Number of heads in key and value must divide the number of heads in"),
    "integer inputs": (lambda lib: ((lib.ones(1, 1, 2, 3).long(),) * 3, {}), RuntimeError, "expected scalar type Float"),
    "mask with more dims": (lambda lib: ((lib.randn(3, 4),) * 3, {"attn_mask": lib.zeros(2, 3, 3)}), RuntimeError,
                            "doesn't match the broadcast shape"),
    "mask wider than the batch": (lambda lib: ((lib.randn(1, 2, 3, 4),) * 3, {"attn_mask": lib.ones(2, 1, 3, 3).bool()}),
                                  RuntimeError, "doesn't match the broadcast shape"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    build, error, phrase = ERRORS[name]
    for lib, functional in ((torch, TF), (al, F)):
        args, kwargs = build(lib)
        with pytest.raises(error, match=phrase.replace(".", r"\.").replace("(", r"\(")):
            functional.scaled_dot_product_attention(*args, **kwargs)


def test_wrong_kind_of_argument_is_a_type_error():
    with pytest.raises(TypeError, match="scaled_dot_product_attention"):
        F.scaled_dot_product_attention([1.0], al.randn(2, 2), al.randn(2, 2))
