"""``nn.MultiheadAttention`` and ``F.multi_head_attention_forward`` against PyTorch's in float64: PyTorch's weights
loaded through ``load_state_dict`` give the same outputs, attention weights and gradients (self-attention, shared
key and value, other key and value sizes, ``batch_first``, masks, ``add_bias_kv``, ``add_zero_attn``, unbatched
input, train and eval modes, ``static_k``/``static_v``); gradcheck of the functional form; the parameters' names,
shapes and first values; the repr; errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(3)
_PADDING = np.array([[False] * 4 + [True], [False] * 5])
_BOOL_MASK = _RNG.random((3, 5)) > 0.3
_FLOAT_MASK = _RNG.standard_normal((4, 3, 5))
_CAUSAL = np.triu(np.full((3, 3), -np.inf), 1)

# name: (constructor arguments, forward arguments, how query, key and value are related)
CASES = {
    "cross attention": ({}, {}, "distinct"),
    "self attention": ({}, {}, "self"),
    "key is value": ({}, {}, "key is value"),
    "no weights": ({}, {"need_weights": False}, "distinct"),
    "weights per head": ({}, {"average_attn_weights": False}, "distinct"),
    "kdim and vdim": ({"kdim": 3, "vdim": 5}, {}, "distinct"),
    "bias_kv, zero_attn, padding": ({"add_bias_kv": True, "add_zero_attn": True}, {"key_padding_mask": _PADDING},
                                    "distinct"),
    "bool mask, no weights": ({}, {"attn_mask": _BOOL_MASK, "need_weights": False}, "distinct"),
    "3-d float mask": ({}, {"attn_mask": _FLOAT_MASK}, "distinct"),
    "padding and mask": ({}, {"attn_mask": _BOOL_MASK, "key_padding_mask": _PADDING, "need_weights": False},
                         "distinct"),
    "batch_first, no bias": ({"embed_dim": 6, "num_heads": 3, "bias": False, "batch_first": True}, {}, "self"),
    "batch_first cross": ({"batch_first": True}, {"key_padding_mask": _PADDING}, "distinct"),
    "is_causal": ({}, {"attn_mask": _CAUSAL, "is_causal": True, "need_weights": False}, "self"),
    "is_causal with weights": ({}, {"attn_mask": _CAUSAL, "is_causal": True}, "self"),
    "unbatched": ({}, {}, "unbatched"),
}


def _twins(settings: dict):
    """Our module holding a fresh PyTorch module's weights (through a state_dict of NumPy copies)."""
    settings = {"embed_dim": 4, "num_heads": 2, **settings}
    theirs = torch.nn.MultiheadAttention(**settings).double()
    ours = al.nn.MultiheadAttention(**settings).double()
    ours.load_state_dict({k: al.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _inputs(module, relation: str):
    """Query, key and value arrays for ``module`` (L=3, S=5, N=2)."""
    rng = np.random.default_rng(1)
    first = module.batch_first and relation != "unbatched"

    def shape(length, dim):
        return (length, dim) if relation == "unbatched" else (2, length, dim) if first else (length, 2, dim)
    return (rng.standard_normal(shape(3, module.embed_dim)), rng.standard_normal(shape(5, module.kdim)),
            rng.standard_normal(shape(5, module.vdim)))


def _run(lib, module, arrays, relation, forward_kwargs):
    query = lib.tensor(arrays[0], requires_grad=True)
    key = query if relation == "self" else lib.tensor(arrays[1], requires_grad=True)
    value = key if relation in ("self", "key is value") else lib.tensor(arrays[2], requires_grad=True)
    kwargs = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in forward_kwargs.items()}
    out, weights = module(query, key, value, **kwargs)
    loss = out.sum() if weights is None else out.sum() + (weights * weights).sum()
    loss.backward()
    grads = [p.grad.numpy() for p in module.parameters()] + [query.grad.numpy()]
    return out, weights, grads


@pytest.mark.parametrize("name", CASES)
def test_same_outputs_weights_and_gradients_as_torch(name):
    settings, forward_kwargs, relation = CASES[name]
    ours, theirs = _twins(settings)
    arrays = _inputs(ours, relation)
    out, weights, grads = _run(al, ours, arrays, relation, forward_kwargs)
    their_out, their_weights, their_grads = _run(torch, theirs, arrays, relation, forward_kwargs)
    assert tuple(out.shape) == tuple(their_out.shape) and out.dtype is al.float64
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    assert (weights is None) == (their_weights is None)
    if weights is not None:
        np.testing.assert_allclose(weights.detach().numpy(), their_weights.detach().numpy(), rtol=1e-12, atol=1e-13)
    assert len(grads) == len(their_grads)
    for a, t in zip(grads, their_grads):
        np.testing.assert_allclose(a, t, rtol=1e-11, atol=1e-12)
    assert type(out.grad_fn).__name__ == type(their_out.grad_fn).__name__


def test_eval_mode_matches_torchs_fast_path():
    ours, theirs = _twins({"dropout": 0.5, "batch_first": True})
    ours.eval(), theirs.eval()
    x = np.random.default_rng(2).standard_normal((2, 3, 4))
    with torch.no_grad():
        expected, _ = theirs(*(torch.tensor(x),) * 3, key_padding_mask=torch.tensor(_PADDING[:, :3]))
    with al.no_grad():
        got, _ = ours(*(al.tensor(x),) * 3, key_padding_mask=al.tensor(_PADDING[:, :3]))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-13)


def test_dropout_in_training_draws_from_als_generator():
    module = al.nn.MultiheadAttention(4, 2, dropout=0.5).double()
    x = al.tensor(np.random.default_rng(2).standard_normal((3, 2, 4)))
    al.manual_seed(7)
    first = module(x, x, x)[0]
    al.manual_seed(7)
    again = module(x, x, x)[0]
    assert (first == again).all()
    module.eval()
    assert not (module(x, x, x)[0] == first).all()


def test_parameters_names_shapes_and_initial_values():
    same = al.nn.MultiheadAttention(4, 2)
    assert [(n, tuple(p.shape)) for n, p in same.named_parameters()] == [
        ("in_proj_weight", (12, 4)), ("in_proj_bias", (12,)), ("out_proj.weight", (4, 4)), ("out_proj.bias", (4,))]
    assert (same.in_proj_bias == 0).all() and (same.out_proj.bias == 0).all()
    bound = (6 / (12 + 4)) ** 0.5  # (Xavier-uniform over the packed (12, 4) weight)
    assert same.in_proj_weight.abs().max().item() <= bound
    other = al.nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    theirs = torch.nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert list(other.state_dict()) == list(theirs.state_dict())
    assert {k: tuple(v.shape) for k, v in other.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert other.in_proj_weight is None and other.in_proj_bias is None and other.out_proj.bias is None


def test_repr_as_torch():
    for settings in ({}, {"kdim": 3, "bias": False}):
        ours = al.nn.MultiheadAttention(4, 2, **settings)
        theirs = torch.nn.MultiheadAttention(4, 2, **settings)
        assert repr(ours) == repr(theirs)


def test_functional_form_matches_torch():
    ours, theirs = _twins({})
    arrays = _inputs(ours, "distinct")

    def call(lib, functional, module):
        q, k, v = (lib.tensor(a) for a in arrays)
        return functional.multi_head_attention_forward(
            q, k, v, 4, 2, module.in_proj_weight, module.in_proj_bias, None, None, False, 0.0,
            module.out_proj.weight, module.out_proj.bias, key_padding_mask=lib.tensor(_PADDING))
    out, weights = call(al, F, ours)
    their_out, their_weights = call(torch, torch.nn.functional, theirs)
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(weights.detach().numpy(), their_weights.detach().numpy(), rtol=1e-12, atol=1e-13)


def _functional(lib, module, arrays, **kwargs):
    q, k, v = (lib.tensor(a) for a in arrays)
    return lib.nn.functional.multi_head_attention_forward(
        q, k, v, 4, 2, module.in_proj_weight, module.in_proj_bias, kwargs.pop("bias_k", None),
        kwargs.pop("bias_v", None), False, 0.0, module.out_proj.weight, module.out_proj.bias, **kwargs)


def test_static_key_and_value_match_torch():
    ours, theirs = _twins({})
    arrays = _inputs(ours, "distinct")
    static = np.random.default_rng(5).standard_normal((2, 4, 6, 2))
    out, weights = _functional(al, ours, arrays, static_k=al.tensor(static[0]), static_v=al.tensor(static[1]))
    their_out, their_weights = _functional(torch, theirs, arrays, static_k=torch.tensor(static[0]),
                                           static_v=torch.tensor(static[1]))
    assert tuple(weights.shape) == (2, 3, 6)
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(weights.detach().numpy(), their_weights.detach().numpy(), rtol=1e-12, atol=1e-13)


def test_gradcheck_and_gradgradcheck_of_the_functional_form():
    rng = np.random.default_rng(6)
    q, k, v = (al.tensor(rng.standard_normal(s), requires_grad=True) for s in ((2, 1, 4), (3, 1, 4), (3, 1, 4)))
    w_in, w_out = (al.tensor(rng.standard_normal(s) * 0.5, requires_grad=True) for s in ((12, 4), (4, 4)))
    padding = al.tensor([[False, False, True]])

    def attend(q, k, v, w_in, w_out):
        out, weights = F.multi_head_attention_forward(q, k, v, 4, 2, w_in, None, None, None, False, 0.0, w_out, None,
                                                      key_padding_mask=padding)
        return out, weights
    assert gradcheck(attend, [q, k, v, w_in, w_out])
    assert gradgradcheck(attend, [q, k, v, w_in, w_out])


def _forward_error(lib, **kwargs):
    module = lib.nn.MultiheadAttention(4, 2)
    q, k = lib.randn(3, 2, 4), lib.randn(5, 2, 4)
    return module(kwargs.pop("query", q), kwargs.pop("key", k), kwargs.pop("value", k), **kwargs)


_ARRAYS = tuple(np.random.default_rng(1).standard_normal((n, 2, 4)).astype(np.float32) for n in (3, 5, 5))
ERRORS = {
    "2-d mask shape": (lambda lib: _forward_error(lib, attn_mask=lib.ones(3, 4).bool()),
                       RuntimeError, r"The shape of the 2D attn_mask is (torch|al)\.Size\(\[3, 4\]\), but should be "
                                     r"\(3, 5\)\."),
    "3-d mask shape": (lambda lib: _forward_error(lib, attn_mask=lib.ones(3, 3, 5).bool()),
                       RuntimeError, r"The shape of the 3D attn_mask is (torch|al)\.Size\(\[3, 3, 5\]\), but should be "
                                     r"\(4, 3, 5\)\."),
    "padding shape": (lambda lib: _forward_error(lib, key_padding_mask=lib.ones(2, 4).bool()),
                      AssertionError, r"Expected key_padded_mask\.shape\[1\] to be 5, but got 4"),
    "padding dtype": (lambda lib: _forward_error(lib, key_padding_mask=lib.ones(2, 5).long()),
                      AssertionError, "only bool and floating types of key_padding_mask are supported"),
    "causal without mask": (lambda lib: _forward_error(lib, is_causal=True),
                            RuntimeError, "Need attn_mask if specifying the is_causal hint"),
    "4-d query": (lambda lib: _forward_error(lib, query=lib.randn(1, 3, 2, 4)),
                  AssertionError, "query should be unbatched 2D or batched 3D tensor but received 4-D query tensor"),
    "2-d key for 3-d query": (lambda lib: _forward_error(lib, key=lib.randn(5, 4)), AssertionError,
                              "For batched \\(3-D\\) `query`, expected `key` and `value` to be 3-D but found 2-D"),
    "bias_k without bias_v": (lambda lib: _functional(lib, lib.nn.MultiheadAttention(4, 2, add_bias_kv=True),
                                                      _ARRAYS, bias_k=lib.zeros(1, 1, 4)),
                              AssertionError, "bias_k is set but bias_v is None"),
    "bias with static key": (lambda lib: _functional(lib, lib.nn.MultiheadAttention(4, 2), _ARRAYS,
                                                     bias_k=lib.zeros(1, 1, 4), bias_v=lib.zeros(1, 1, 4),
                                                     static_k=lib.zeros(4, 5, 2)),
                             AssertionError, "bias cannot be added to static key."),
    "static key size": (lambda lib: _functional(lib, lib.nn.MultiheadAttention(4, 2), _ARRAYS,
                                                static_k=lib.zeros(3, 5, 2)),
                        AssertionError, r"expecting static_k.size\(0\) of 4, but got 3"),
    "key and value shapes": (lambda lib: _forward_error(lib, value=lib.randn(4, 2, 4)), AssertionError,
                             r"key shape (torch|al)\.Size\(\[5, 2, 4\]\) does not match value shape "
                             r"(torch|al)\.Size\(\[4, 2, 4\]\)"),
    "heads do not divide": (lambda lib: lib.nn.MultiheadAttention(5, 2),
                            AssertionError, "embed_dim must be divisible by num_heads"),
    "no heads": (lambda lib: lib.nn.MultiheadAttention(4, 0), ValueError,
                 "embed_dim and num_heads must be greater than 0, got embed_dim=4 and num_heads=0 instead"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    build, error, phrase = ERRORS[name]
    for lib in (torch, al):
        with pytest.raises(error, match=phrase):
            build(lib)


def test_mismatched_mask_types_warn_as_torch():
    for lib in (torch, al):
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
            _forward_error(lib, key_padding_mask=lib.zeros(2, 5).bool(), attn_mask=lib.zeros(3, 5))
