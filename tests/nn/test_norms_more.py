"""``group_norm``/``GroupNorm``, ``rms_norm``/``RMSNorm`` and ``prelu``/``PReLU`` against PyTorch in float64 (values,
gradients of input and weights, the nodes recorded, float32), gradcheck, gradgradcheck and forward mode; the
modules' parameters, initial values and reprs; errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((2, 6, 5)) * 2
_C6, _B6, _W5 = _RNG.standard_normal(6), _RNG.standard_normal(6), _RNG.standard_normal(5)

# name: (call given the functional module and the tensors, arrays)
CASES = {
    "group_norm affine": (lambda F, x, w, b: F.group_norm(x, 3, w, b), (_X, _C6, _B6)),
    "group_norm 4-d, eps": (lambda F, x: F.group_norm(x, 2, eps=1e-3), (_X.reshape(2, 6, 5, 1),)),
    "group_norm 2-d weight only": (lambda F, x, w: F.group_norm(x, 6, w), (_X[:, :, 0], _C6)),
    "rms_norm weight": (lambda F, x, w: F.rms_norm(x, (5,), w), (_X, _W5)),
    "rms_norm two dims": (lambda F, x: F.rms_norm(x, (6, 5), eps=1e-4), (_X,)),
    "rms_norm default eps": (lambda F, x: F.rms_norm(x, [5]), (_X,)),
    "prelu per channel": (lambda F, x, w: F.prelu(x, w), (_X, _C6)),
    "prelu one slope": (lambda F, x, w: F.prelu(x, w), (_X, _C6[:1])),
    "prelu 1-d": (lambda F, x, w: F.prelu(x, w), (_X[0, 0], _C6[:1])),
    "prelu 0-d": (lambda F, x, w: F.prelu(x, w), (_X[0, 0, 0], _C6[:1])),
}


def _nodes(node):
    names, stack = [], [node]
    while stack:
        node = stack.pop()
        if node is not None and type(node).__name__ != "AccumulateGrad":
            names.append(type(node).__name__)
            stack.extend(n for n, _ in reversed(node.next_functions))
    return names


def _run(lib, functional, name, dtype):
    call, arrays = CASES[name]
    inputs = [lib.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = call(functional, *inputs)
    out.backward(lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)), dtype=dtype))
    return out, [t.grad.numpy() for t in inputs]


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_nodes_match_torch(name):
    out, grads = _run(al, F, name, al.float64)
    their_out, their_grads = _run(torch, TF, name, torch.float64)
    assert out.dtype is al.float64 and tuple(out.shape) == tuple(their_out.shape)
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    for a, t in zip(grads, their_grads):
        np.testing.assert_allclose(a, t, rtol=1e-10, atol=1e-12)
    assert _nodes(out.grad_fn) == _nodes(their_out.grad_fn)


@pytest.mark.parametrize("name", ["group_norm affine", "rms_norm default eps", "prelu per channel"])
def test_float32_matches_torch(name):
    out, grads = _run(al, F, name, al.float32)
    their_out, their_grads = _run(torch, TF, name, torch.float32)
    assert out.dtype is al.float32
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-5, atol=1e-5)
    for a, t in zip(grads, their_grads):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, t, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", CASES)
def test_gradcheck_gradgradcheck_and_forward_mode(name):
    call, arrays = CASES[name]
    inputs = [al.tensor(a[..., :3] if a.ndim == 3 else a, requires_grad=True) for a in arrays]
    if name == "rms_norm weight":
        inputs[1] = al.tensor(_W5[:3], requires_grad=True)
        call = lambda F, x, w: F.rms_norm(x, (3,), w)  # noqa: E731
    elif name == "rms_norm two dims":
        call = lambda F, x: F.rms_norm(x, (6, 3), eps=1e-4)  # noqa: E731
    elif name == "rms_norm default eps":
        call = lambda F, x: F.rms_norm(x, [3])  # noqa: E731

    def function(*tensors):
        return call(F, *tensors)
    assert gradcheck(function, inputs, check_forward_ad=True)
    assert gradgradcheck(function, inputs)


def test_saved_values_as_torch():
    x, w = al.tensor(_X, requires_grad=True), al.tensor(_C6, requires_grad=True)
    tx, tw = torch.tensor(_X, requires_grad=True), torch.tensor(_C6, requires_grad=True)
    ours, theirs = F.group_norm(x, 3, w).grad_fn, TF.group_norm(tx, 3, tw).grad_fn
    for name in ("C", "HxW", "N", "eps", "group"):
        assert getattr(ours, f"_saved_{name}") == getattr(theirs, f"_saved_{name}")
    np.testing.assert_array_equal(ours._saved_weight.detach().numpy(), theirs._saved_weight.detach().numpy())
    ours, theirs = F.prelu(x, w).grad_fn, TF.prelu(tx, tw).grad_fn
    assert tuple(ours._saved_weight.shape) == tuple(theirs._saved_weight.shape) == (1, 6, 1)
    np.testing.assert_array_equal(ours._saved_self.detach().numpy(), theirs._saved_self.detach().numpy())


MODULES = {
    "GroupNorm": (lambda nn: nn.GroupNorm(3, 6), _X),
    "GroupNorm no affine": (lambda nn: nn.GroupNorm(2, 6, affine=False), _X),
    "GroupNorm no bias": (lambda nn: nn.GroupNorm(2, 6, eps=1e-3, bias=False), _X),
    "RMSNorm": (lambda nn: nn.RMSNorm(5), _X),
    "RMSNorm no affine": (lambda nn: nn.RMSNorm([6, 5], eps=1e-3, elementwise_affine=False), _X),
    "PReLU": (lambda nn: nn.PReLU(), _X),
    "PReLU per channel": (lambda nn: nn.PReLU(6, init=0.1), _X),
}


@pytest.mark.parametrize("name", MODULES)
def test_modules_match_torch(name):
    build, x = MODULES[name]
    ours, theirs = build(al.nn).double(), build(torch.nn).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[key].detach().numpy(), value.detach().numpy())
    x, tx = al.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, their_out = ours(x), theirs(tx)
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=1e-12, atol=1e-13)
    out.sum().backward(), their_out.sum().backward()
    for p, tp in zip([x, *ours.parameters()], [tx, *theirs.parameters()]):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12)


ERRORS = {
    "groups do not divide": (lambda lib: lib.nn.functional.group_norm(lib.randn(2, 4, 3), 3), RuntimeError,
                             r"Expected number of channels in input to be divisible by num_groups, but got input of "
                             r"shape \[2, 4, 3\] and num_groups=3"),
    "module groups": (lambda lib: lib.nn.GroupNorm(3, 4), ValueError, r"num_channels \(4\) must be divisible by "
                                                                      r"num_groups \(3\)"),
    "group_norm integer": (lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3).long(), 2), NotImplementedError,
                           "\"GroupNormKernelImpl\" not implemented for 'Long'"),
    "rms_norm shape": (lambda lib: lib.nn.functional.rms_norm(lib.randn(2, 4, 3), (4,)), RuntimeError,
                       r"Given normalized_shape=\[4\], expected input with shape \[\*4\], but got input of size"),
    "rms_norm dims": (lambda lib: lib.nn.functional.rms_norm(lib.randn(3), (2, 3)), ValueError,
                      "Input tensor must have at least 2 dimensions, but got 1"),
    "rms_norm weight": (lambda lib: lib.nn.functional.rms_norm(lib.randn(2, 4, 3), (3,), lib.ones(4)), RuntimeError,
                        r"Expected weight to be of same shape as normalized_shape, but got weight of shape \[4\]"),
    "prelu channels": (lambda lib: lib.nn.functional.prelu(lib.randn(2, 4, 3), lib.ones(3)), RuntimeError,
                       "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel "
                       "size = 4."),
    "prelu dtypes": (lambda lib: lib.nn.functional.prelu(lib.ones(2, 4).long(), lib.ones(1)), RuntimeError,
                     "prelu: Type promoting not supported. Got Long and Float"),
    "prelu 2-d weight": (lambda lib: lib.nn.functional.prelu(lib.randn(2, 4), lib.ones(1, 1)), RuntimeError,
                         "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    build, error, phrase = ERRORS[name]
    for lib in (torch, al):
        with pytest.raises(error, match=phrase):
            build(lib)
