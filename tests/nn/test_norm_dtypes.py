"""The normalisations' dtype rules against PyTorch (CPU): the weight, bias and running statistics have the input's
dtype, or are all float32 with a float16 input; other mixes and integer inputs are errors, with PyTorch's
messages (they were computed, promoting or keeping the input's dtype). ``rms_norm`` with a weight of another dtype
warns and keeps the input's dtype. Also group_norm's and layer_norm's size checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

CALLS = {
    "batch_norm": lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True),
    "batch_norm stats": lambda lib, x, w, b: lib.nn.functional.batch_norm(x, w, b, training=False),
    "layer_norm": lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (3,), w, b),
    "group_norm": lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b),
    "instance_norm": lambda lib, x, w, b: lib.nn.functional.instance_norm(x.unsqueeze(-1).expand(2, 3, 2), weight=w,
                                                                          bias=b),
}
DTYPES = [("float64", "float32", "float64"), ("float32", "float64", "float32"), ("float16", "float32", "float64"),
          ("float64", "float64", "float32"), ("float16", "float16", "float32"), ("float32", None, "float64"),
          ("float16", None, "float32"), ("float16", "float32", "float32"), ("int64", "float32", None),
          ("int64", "int64", "int64"), ("int64", None, None)]


def _outcome(lib, call, dtypes):
    x_dtype, w_dtype, b_dtype = (None if d is None else getattr(lib, d) for d in dtypes)
    x = lib.tensor(np.arange(6.0).reshape(2, 3) ** 2).to(x_dtype)
    weight, bias = (None if d is None else lib.ones(3, dtype=d) for d in (w_dtype, b_dtype))
    try:
        return "returns", str(CALLS[call](lib, x, weight, bias).dtype).split(".")[-1]
    except (RuntimeError, NotImplementedError) as error:
        return type(error).__name__, str(error).split(" [autograd_lab]")[0]


@pytest.mark.parametrize("dtypes", DTYPES, ids=["-".join(str(d) for d in ds) for ds in DTYPES])
@pytest.mark.parametrize("call", CALLS)
def test_dtype_rules_match_torch(call, dtypes):
    assert _outcome(al, call, dtypes) == _outcome(torch, call, dtypes)


@pytest.mark.parametrize("x_dtype,w_dtype", [("float32", "float64"), ("float64", "float32")])
def test_rms_norm_weight_of_another_dtype(x_dtype, w_dtype):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 5)), rng.standard_normal(5)
    results = []
    for lib in (torch, al):
        a = lib.tensor(x).to(getattr(lib, x_dtype)).requires_grad_()
        weight = lib.tensor(w).to(getattr(lib, w_dtype)).requires_grad_()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.functional.rms_norm(a, (5,), weight)
        (out * lib.tensor(x).to(out.dtype)).sum().backward()
        results.append((out, a.grad, weight.grad, [str(w.message).split(" (Triggered")[0] for w in caught]))
    (out, a_grad, w_grad, caught), (expected, e_a_grad, e_w_grad, expected_caught) = results[1], results[0]
    assert out.dtype is getattr(al, x_dtype) and w_grad.dtype is getattr(al, w_dtype)
    assert caught == expected_caught or not expected_caught  # (PyTorch warns once per process)
    assert caught == [f"Mismatch dtype between input and weight: input dtype = {al.backend.c_type_name(a.dtype)}, "
                      f"weight dtype = {al.backend.c_type_name(weight.dtype)}, Cannot dispatch to fused implementation."
                      for a, weight in [(out, w_grad)]]
    for got, want in ((out, expected), (a_grad, e_a_grad), (w_grad, e_w_grad)):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.group_norm(lib.ones(1, 2), 2),  # one sample, one value per group
    lambda lib: lib.nn.functional.group_norm(lib.ones(1, 3, 1), 3),
    lambda lib: lib.nn.functional.group_norm(lib.ones(1, 3), 2),  # PyTorch checks this before divisibility
    lambda lib: lib.nn.functional.rms_norm(lib.ones(2, 3, dtype=lib.int64), (3,)),
    lambda lib: lib.nn.LayerNorm(())(lib.ones(2, 3)),
    lambda lib: lib.nn.InstanceNorm1d(3)(lib.ones(2, 3, 1)),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), None, lib.ones(3)),
    lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3), lib.ones(3), None),
])
def test_size_errors_match_torch(call):
    with pytest.raises((ValueError, RuntimeError, NotImplementedError)) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(al)
    assert str(got.value).split(" [autograd_lab]")[0] == str(expected.value).replace("torch.", "al.")


def test_group_norm_many_values_per_group_still_computes():
    x = np.random.default_rng(0).standard_normal((2, 2))  # two samples: PyTorch accepts it (each group one value)
    np.testing.assert_allclose(al.nn.functional.group_norm(al.tensor(x), 2).numpy(),
                               torch.nn.functional.group_norm(torch.tensor(x), 2).numpy())


@pytest.mark.parametrize("call", [
    lambda lib, x, w: lib.nn.functional.layer_norm(x, (6,), w[:6]),
    lambda lib, x, w: lib.nn.functional.group_norm(x, 2, w[:4]),
    lambda lib, x, w: lib.nn.functional.batch_norm(x, lib.zeros(4, dtype=x.dtype), lib.ones(4, dtype=x.dtype), w[:4],
                                                   training=True),
    lambda lib, x, w: lib.nn.functional.instance_norm(x, weight=w[:4]),
    lambda lib, x, w: lib.nn.functional.rms_norm(x, (6,), w[:6]),
], ids=["layer_norm", "group_norm", "batch_norm", "instance_norm", "rms_norm"])
def test_float16_statistics_are_taken_in_float32(call):
    """Values of a few hundred square past float16's range: PyTorch takes the statistics in float32; ours were inf,
    so every output was 0 and every gradient 0."""
    rng = np.random.default_rng(4)
    x, w = (rng.standard_normal((4, 4, 6)) * 300).astype(np.float16), rng.standard_normal(6).astype(np.float16)
    seed = rng.standard_normal((4, 4, 6)).astype(np.float16)
    results = []
    for lib in (torch, al):
        a, weight = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = call(lib, a, weight)
        (out * lib.tensor(seed)).sum().backward()
        results.append([t.detach().float().numpy() for t in (out, a.grad, weight.grad)] + [str(out.dtype)[-7:]])
    (out, x_grad, w_grad, dtype), expected = results[1], results[0]
    assert dtype == expected[3] == "float16"
    for got, want in zip((out, x_grad, w_grad), expected[:3]):
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-3 * np.abs(want).max())  # (half's rounding)


def test_empty_normalisations_are_silent():
    """Normalising zero values gives an empty result without NumPy's 'Mean of empty slice' warnings, as PyTorch."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda: al.nn.functional.layer_norm(al.randn(2, 0, requires_grad=True), (0,)),
                     lambda: al.nn.functional.group_norm(al.randn(2, 4, 0, requires_grad=True), 2)):
            out = call()
            out.sum().backward()
            assert out.numel() == 0
