"""The activations added beside ReLU and GELU (``hardtanh``, ``relu6``, ``elu``, ``selu``, ``celu``, ``silu``, ``mish``,
``softplus``, ``softsign``, ``tanhshrink``, ``hardsigmoid``, ``hardswish``, ``logsigmoid``, ``glu``, ``softmin``,
``hardshrink``, ``softshrink``), functional and modules, against PyTorch in float64: values, node names,
gradients, in-place forms, reprs, errors; and gradcheck."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _twins(shape, seed=0, scale=3.0):
    """The same values for both libraries, spread over every piece of the piecewise activations."""
    values = np.random.default_rng(seed).standard_normal(shape) * scale
    return al.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)


# PyTorch's CPU hardsigmoid backward multiplies by 1/6 rounded to float32, in float64 too (a relative 3e-8 off);
# ours multiplies by 1/6.
_FLOAT32_SIXTH = 1e-7


def _compare(ours, theirs, a, t, seed=1, grad_rtol=1e-11):
    """Same values, node name and gradients (for a random output gradient)."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-13)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    seed_grad = np.random.default_rng(seed).standard_normal(tuple(theirs.shape))
    ours.backward(al.tensor(seed_grad))
    theirs.backward(torch.tensor(seed_grad))
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=grad_rtol, atol=1e-12)


CALLS = {
    "hardtanh": lambda F, x: F.hardtanh(x), "hardtanh(-2, 0.5)": lambda F, x: F.hardtanh(x, -2.0, 0.5),
    "hardtanh inplace": lambda F, x: F.hardtanh(x * 1, inplace=True), "hardtanh_": lambda F, x: F.hardtanh_(x * 1),
    "relu6": lambda F, x: F.relu6(x), "relu6 inplace": lambda F, x: F.relu6(x * 1, inplace=True),
    "elu": lambda F, x: F.elu(x), "elu(0.3)": lambda F, x: F.elu(x, 0.3), "elu(-0.5)": lambda F, x: F.elu(x, -0.5),
    "elu inplace": lambda F, x: F.elu(x * 1, 2.0, inplace=True), "elu_": lambda F, x: F.elu_(x * 1),
    "selu": lambda F, x: F.selu(x), "selu inplace": lambda F, x: F.selu(x * 1, inplace=True),
    "celu": lambda F, x: F.celu(x), "celu(0.5)": lambda F, x: F.celu(x, 0.5),
    "celu inplace": lambda F, x: F.celu(x * 1, 1.5, inplace=True), "celu_": lambda F, x: F.celu_(x * 1),
    "silu": lambda F, x: F.silu(x), "silu inplace": lambda F, x: F.silu(x * 1, inplace=True),
    "mish": lambda F, x: F.mish(x), "mish inplace": lambda F, x: F.mish(x * 1, inplace=True),
    "softplus": lambda F, x: F.softplus(x), "softplus(2, 3)": lambda F, x: F.softplus(x, 2.0, 3.0),
    "softplus(0.5)": lambda F, x: F.softplus(x * 100, 0.5),
    "softsign": lambda F, x: F.softsign(x), "tanhshrink": lambda F, x: F.tanhshrink(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x), "hardsigmoid inplace": lambda F, x: F.hardsigmoid(x * 1, True),
    "hardswish": lambda F, x: F.hardswish(x), "hardswish inplace": lambda F, x: F.hardswish(x * 1, True),
    "logsigmoid": lambda F, x: F.logsigmoid(x), "logsigmoid far": lambda F, x: F.logsigmoid(x * 300),
    "glu": lambda F, x: F.glu(x), "glu(0)": lambda F, x: F.glu(x[:4], 0),
    "softmin": lambda F, x: F.softmin(x, 1), "softmin(0, float32)": lambda F, x: F.softmin(x, 0, dtype=x.dtype),
    "hardshrink": lambda F, x: F.hardshrink(x), "hardshrink(2)": lambda F, x: F.hardshrink(x, 2.0),
    "softshrink": lambda F, x: F.softshrink(x), "softshrink(1.5)": lambda F, x: F.softshrink(x, 1.5),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_functional_matches_torch(name):
    a, t = _twins((5, 6))
    _compare(CALLS[name](F, a), CALLS[name](TF, t), a, t, grad_rtol=_FLOAT32_SIXTH if "hardsigmoid" in name else 1e-11)


@pytest.mark.parametrize("name", sorted(n for n in CALLS if "inplace" not in n and not n.endswith("_")))
def test_gradcheck_and_gradgradcheck(name):
    x = al.tensor(np.random.default_rng(3).standard_normal((4, 4)) * 2.5, requires_grad=True)
    assert gradcheck(lambda x: CALLS[name](F, x), [x], check_forward_ad=True)
    assert gradgradcheck(lambda x: CALLS[name](F, x), [x])


MODULES = [("Hardtanh", ()), ("Hardtanh", (-2.0, 3.0, True)), ("ReLU6", ()), ("ReLU6", (True,)), ("ELU", ()),
           ("ELU", (0.5, True)), ("SELU", ()), ("SELU", (True,)), ("CELU", ()), ("CELU", (2.0,)), ("SiLU", ()),
           ("SiLU", (True,)), ("Mish", ()), ("Mish", (True,)), ("Softplus", ()), ("Softplus", (2.0, 5.0)),
           ("Softsign", ()), ("Tanhshrink", ()), ("Hardsigmoid", ()), ("Hardsigmoid", (True,)), ("Hardswish", ()),
           ("Hardswish", (True,)), ("LogSigmoid", ()), ("GLU", ()), ("GLU", (0,)), ("Softmin", (1,)),
           ("Hardshrink", ()), ("Hardshrink", (1.0,)), ("Softshrink", ()), ("Softshrink", (0.25,))]


@pytest.mark.parametrize("name, args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_modules_match_torch(name, args):
    ours, theirs = getattr(al.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    a, t = _twins((4, 6), seed=4)
    _compare(ours(a * 1), theirs(t * 1), a, t, grad_rtol=_FLOAT32_SIXTH if name == "Hardsigmoid" else 1e-11)


def test_in_place_forms_write_into_their_input():
    a, t = _twins((3, 4))
    for fn in ("hardtanh", "elu", "selu", "celu", "silu", "mish", "hardsigmoid", "hardswish"):
        x, y = a.detach().clone(), t.detach().clone()
        assert getattr(F, fn)(x, inplace=True) is x
        getattr(TF, fn)(y, inplace=True)
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        F.silu(a, inplace=True)


def test_errors_match_torch():
    x = al.randn(3, 5)
    cases = [(lambda F: F.glu(x if F is not TF else torch.randn(3, 5)), RuntimeError,
              "Halving dimension must be even, but dimension 1 is size 5"),
             (lambda F: F.glu(al.tensor(1.0) if F is not TF else torch.tensor(1.0)), RuntimeError,
              "glu does not support scalars because halving size must be even"),
             (lambda F: F.hardtanh(x if F is not TF else torch.randn(2), 2.0, 1.0), ValueError,
              "min_val cannot be greater than max_val"),
             (lambda F: F.celu(x if F is not TF else torch.randn(2), 0.0), RuntimeError,
              "ZeroDivisionError: alpha cannot be 0 for CELU"),
             (lambda F: F.softshrink(x if F is not TF else torch.randn(2), -1.0), RuntimeError,
              r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, but found -1")]
    for call, error, phrase in cases:
        for lib in (F, TF):
            with pytest.raises(error, match=phrase):
                call(lib)


@pytest.mark.parametrize("fn", ["elu", "celu"])
def test_in_place_elu_with_a_negative_alpha_refuses_its_backward(fn):
    phrase = "In-place elu backward calculation is triggered with a negative slope which is not supported"
    for lib, make in ((F, al.randn), (TF, torch.randn)):
        x = make(4, requires_grad=True)
        y = getattr(lib, fn)(x * 1, -0.5, inplace=True)
        assert type(y.grad_fn).__name__ == f"{fn.capitalize()}Backward1"
        with pytest.raises(RuntimeError, match=phrase):
            y.sum().backward()


def test_softmin_without_dim_warns_as_torch_does():
    for lib, x in ((F, al.randn(2, 3)), (TF, torch.randn(2, 3))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert lib.softmin(x).sum(1).allclose(type(x)([1.0, 1.0]) if lib is TF else al.ones(2, dtype=x.dtype))
        assert "Implicit dimension choice for softmin has been deprecated" in str(caught[0].message)


def test_float32_keeps_its_dtype_and_matches_torch():
    values = np.random.default_rng(6).standard_normal((3, 4)).astype(np.float32) * 3
    for name in ("hardtanh", "elu", "selu", "celu", "silu", "mish", "softplus", "hardsigmoid", "hardswish",
                 "logsigmoid", "hardshrink", "softshrink"):
        ours = getattr(F, name)(al.tensor(values))
        assert ours.dtype is al.float32, name
        np.testing.assert_allclose(ours.numpy(), getattr(TF, name)(torch.tensor(values)).numpy(), rtol=1e-6,
                                   atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "silu", "mish", "softplus", "hardsigmoid", "hardswish",
                                  "logsigmoid", "glu", "hardshrink", "softshrink"])
def test_integer_inputs_are_refused_as_torch_refuses_them(name):
    messages = []
    for lib, make in ((F, al.tensor), (TF, torch.tensor)):
        with pytest.raises(NotImplementedError) as caught:
            getattr(lib, name)(make([[1, -2], [3, 4]]))
        messages.append(str(caught.value).split(" [autograd_lab]")[0])
    assert messages[0] == messages[1]
    assert F.hardtanh(al.tensor([3, -2])).tolist() == [1, -1]  # (hardtanh, a clamp, keeps integers, as in torch)


NODES = {  # a call per new node, for the saved values each keeps
    "hardtanh": lambda L, x, y: L.hardtanh(x, -0.5, 2.0), "elu": lambda L, x, y: L.elu(x, 0.3),
    "elu inplace": lambda L, x, y: L.elu(x * 1, inplace=True), "celu": lambda L, x, y: L.celu(x, 2.0),
    "celu inplace": lambda L, x, y: L.celu(x * 1, inplace=True), "silu": lambda L, x, y: L.silu(x),
    "mish": lambda L, x, y: L.mish(x), "softplus": lambda L, x, y: L.softplus(x, 2.0, 3.0),
    "hardsigmoid": lambda L, x, y: L.hardsigmoid(x), "hardswish": lambda L, x, y: L.hardswish(x),
    "hardshrink": lambda L, x, y: L.hardshrink(x, 0.7), "softshrink": lambda L, x, y: L.softshrink(x, 0.7),
    "smooth_l1_loss": lambda L, x, y: L.smooth_l1_loss(x, y, beta=0.5),
    "huber_loss": lambda L, x, y: L.huber_loss(x, y, reduction="sum", delta=2.0),
    "soft_margin_loss": lambda L, x, y: L.soft_margin_loss(x, y.detach().sign()),
    "pairwise_distance": lambda L, x, y: L.pairwise_distance(x, y, 3.0), "clamp_min": lambda L, x, y: x.clamp_min(0.2),
    # (logsigmoid: PyTorch also keeps a '_saved_buffer' of its kernel's; ours needs only the input)
}


@pytest.mark.parametrize("name", sorted(NODES))
def test_nodes_keep_what_torchs_keep(name):
    a, t = _twins((3, 4))
    b, u = _twins((3, 4), seed=1)
    ours, theirs = NODES[name](F, a, b).grad_fn, NODES[name](TF, t, u).grad_fn
    names = {n for n in dir(theirs) if n.startswith("_saved_")}
    assert {n for n in dir(ours) if n.startswith("_saved_")} == names
    for n in names:
        mine, torchs = getattr(ours, n), getattr(theirs, n)
        if isinstance(torchs, torch.Tensor):
            np.testing.assert_allclose(mine.detach().numpy(), torchs.detach().numpy(), rtol=1e-12)
        else:
            assert mine == pytest.approx(torchs), n


@pytest.mark.parametrize("name", ["mish", "elu", "selu", "celu"])
def test_second_derivatives_at_zero_are_torchs(name):
    """Double backward at x = 0 exactly: mish's derivative read through a kinked softplus gave 1 for sigmoid(0), and
    elu's second derivative there is 0 in PyTorch (its elu_double_backward masks x < 0). Found by the fuzzer."""
    results = []
    for m in (al, torch):
        x = m.tensor([0.0, -0.5, 0.75], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(getattr(m.nn.functional, name)(x).sum(), x, create_graph=True)
        (gg,) = m.autograd.grad((g * g).sum(), x)
        results.append(gg.tolist())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_hardswish_gradient_at_its_ends_is_torchs():
    """PyTorch 2.13 gives 0 at x = -3 and 1 at x = 3 (ours had the middle formula at both ends: fuzzer seed 20004725)."""
    grads = []
    for m in (al, torch):
        x = m.tensor([-3.0, 3.0, -2.9, 2.9, 0.0], dtype=m.float64, requires_grad=True)
        m.nn.functional.hardswish(x).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_logsigmoid_at_the_infinities_keeps_torchs_signs():
    """+0.0 at +inf, as PyTorch's kernel (-softplus(-x) gave -0.0, whose reciprocal is -inf: fuzzer seed 21018459)."""
    values = []
    for m in (al, torch):
        x = m.tensor([float("inf"), float("-inf"), 0.0, -30.0, 30.0], dtype=m.float64)
        values.append([repr(v) for v in m.nn.functional.logsigmoid(x).tolist()])
    assert values[0] == values[1]


@pytest.mark.parametrize("name", ["elu", "celu", "selu"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_elu_family_keeps_the_sign_of_a_negative_zero_as_torch(name, dtype):
    """PyTorch's kernel takes expm1 of -0.0, which is -0.0 (fuzzer seed 41018544: rsqrt of it is -inf, not inf)."""
    values = [-0.0, 0.0, -1.0, 2.0]
    ours = getattr(F, name)(al.tensor(values, dtype=getattr(al, dtype))).numpy()
    theirs = getattr(torch.nn.functional, name)(torch.tensor(values, dtype=getattr(torch, dtype))).numpy()
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
    np.testing.assert_array_equal(ours, theirs)
