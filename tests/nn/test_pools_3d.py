"""Pooling over volumes (functions and modules) against PyTorch: values, dtypes, indices, gradients, the nodes
recorded and what they save, gradients of gradients, finite differences in float64, NaNs, integers, empty
batches, reprs and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from pooling_inputs import distinct, run

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck
from tests.ops._torch_compare import same_error

torch = pytest.importorskip("torch")


CALLS = [
    ((2, 3, 5, 6, 7), lambda F, x: F.max_pool3d(x, 2)),
    ((2, 3, 5, 6, 7), lambda F, x: F.max_pool3d(x, (2, 3, 2), (1, 2, 1), (1, 1, 0), (2, 1, 1), True, True)),
    ((3, 5, 6, 7), lambda F, x: F.max_pool3d(x, 3, 2, 1, return_indices=True)),
    ((2, 3, 5, 6, 7), lambda F, x: F.max_pool3d_with_indices(x, [2], [])),
    ((2, 3, 5, 6, 7), lambda F, x: F.avg_pool3d(x, 2)),
    ((2, 3, 5, 6, 7), lambda F, x: F.avg_pool3d(x, 3, 2, 1, True, False)),
    ((3, 5, 6, 7), lambda F, x: F.avg_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 0, 1), True, True, 5)),
    ((2, 3, 5, 6, 7), lambda F, x: F.avg_pool3d(x, (2, 3, 4), 1, (1, 0, 2), False, False)),
    ((2, 3, 5, 6, 7), lambda F, x: F.adaptive_avg_pool3d(x, (2, 4, 3))),
    ((3, 5, 6, 7), lambda F, x: F.adaptive_avg_pool3d(x, (7, None, 2))),
    ((2, 3, 5, 6, 7), lambda F, x: F.adaptive_avg_pool3d(x, 1)),
    ((2, 3, 5, 6, 7), lambda F, x: F.adaptive_max_pool3d(x, (2, 4, 3), True)),
    ((3, 5, 6, 7), lambda F, x: F.adaptive_max_pool3d(x, (3, None, 9), True)),
    ((2, 3, 5, 6, 7), lambda F, x: F.adaptive_max_pool3d_with_indices(x, 1)),
    ((2, 3, 5, 6, 7), lambda F, x: F.lp_pool3d(x, 2, (2, 3, 2))),
    ((2, 3, 5, 6, 7), lambda F, x: F.lp_pool3d(x, 1, 2, 1, True)),
    ((3, 5, 6, 7), lambda F, x: F.lp_pool3d(x, 1.5, 3, 2)),
    ((2, 3, 5, 6, 7), lambda F, x: F.lp_pool3d(x, float("inf"), 3, 2)),
    ((2, 3, 5, 6, 7), lambda F, x: F.lp_pool3d(x, -float("inf"), 2)),
]


@pytest.mark.parametrize("shape, call", CALLS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pools_3d_match_torch(shape, call, dtype):
    array = distinct(shape, positive=True)  # (positive: a fractional power of a negative mean is NaN)
    ours, values, grad = run(al, call, array, dtype)
    theirs, their_values, their_grad = run(torch, call, array, dtype)
    assert values.grad_fn.name() == their_values.grad_fn.name()
    assert str(values.dtype).split(".")[-1] == str(their_values.dtype).split(".")[-1]
    assert tuple(values.shape) == tuple(their_values.shape)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(values.detach().numpy(), their_values.detach().numpy(), rtol=rtol)
    np.testing.assert_allclose(grad.numpy(), their_grad.numpy(), rtol=rtol, atol=rtol)
    if isinstance(theirs, tuple):
        assert ours[1].dtype is al.int64
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


@pytest.mark.parametrize("shape, call", [CALLS[i] for i in (1, 2, 5, 6, 8, 9, 11, 12, 15)])
def test_pools_3d_gradcheck_and_gradgradcheck(shape, call):
    x = al.tensor(distinct(shape, positive=True), requires_grad=True)

    def fn(v):
        out = call(al.nn.functional, v)
        return out[0] if isinstance(out, tuple) else out

    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-5)
    assert gradgradcheck(fn, (x,), eps=1e-6, atol=1e-5)


SAVED = [
    lambda F, x: F.max_pool3d(x, 2),
    lambda F, x: F.max_pool3d(x[0], (2, 3, 2), 1, 1, 2, True),
    lambda F, x: F.avg_pool3d(x, 2),
    lambda F, x: F.avg_pool3d(x, 3, 2, 1, True, False, 3),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 4)),
    lambda F, x: F.adaptive_avg_pool3d(x[0], (3, 1, 2)),
    lambda F, x: F.adaptive_max_pool3d(x, (2, 3, 4)),
    lambda F, x: F.adaptive_max_pool3d(x[0], 1),
]


def _saved(node) -> dict:
    """A node's ``_saved_*`` attributes, tensors as arrays."""
    values = {}
    for name in dir(node):
        if name.startswith("_saved_"):
            value = getattr(node, name)
            values[name] = value.detach().numpy() if hasattr(value, "detach") else value
    return values


def _nodes_and_saved(lib, call):
    """The node of the pooling and that of its gradient (under create_graph), with what each saves."""
    x = lib.tensor(distinct((2, 3, 5, 6, 7)), requires_grad=True)
    out = call(lib.nn.functional, x)
    weights = lib.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape)), requires_grad=True)
    (grad,) = lib.autograd.grad((out * weights).sum(), x, create_graph=True)
    return [(node.name(), _saved(node)) for node in (out.grad_fn, grad.grad_fn)]


@pytest.mark.parametrize("call", SAVED)
def test_pools_3d_nodes_save_what_torch_saves(call):
    ours, theirs = _nodes_and_saved(al, call), _nodes_and_saved(torch, call)
    for (name, saved), (their_name, their_saved) in zip(ours, theirs):
        assert name == their_name
        assert sorted(saved) == sorted(their_saved)
        for key, value in their_saved.items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(saved[key], value)
            else:  # (PyTorch shows a negative dim as its unsigned 64-bit pattern)
                normal = tuple(v - 2 ** 64 if v >= 2 ** 63 else v for v in value) if isinstance(value, tuple) else value
                assert saved[key] == normal, key


def test_max_unpool3d_undoes_max_pool3d_as_torch():
    array = distinct((2, 3, 5, 6, 7))
    results = []
    for lib in (al, torch):
        F = lib.nn.functional
        pooled, indices = F.max_pool3d(lib.tensor(array), 2, return_indices=True)
        pooled.requires_grad_()
        out = F.max_unpool3d(pooled, indices, 2, output_size=(5, 6, 7))
        again = F.max_unpool3d(pooled[0], indices[0], (2, 2, 2), 2, 0, (5, 6, 7))  # (one volume)
        weights = lib.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape)), requires_grad=True)
        (grad,) = lib.autograd.grad((out * weights).sum(), pooled, create_graph=True)
        results.append((out.grad_fn.name(), grad.grad_fn.name(), grad.grad_fn.next_functions[0][0].name(),
                        out.detach().numpy(), again.detach().numpy(), grad.detach().numpy()))
    ours, theirs = results
    assert ours[:3] == theirs[:3] == ("MaxUnpool3DBackward0", "ViewBackward0", "GatherBackward0")
    for a, b in zip(ours[3:], theirs[3:]):
        np.testing.assert_array_equal(a, b)


def test_max_unpool3d_gradcheck_and_gradgradcheck():
    _, indices = al.nn.functional.max_pool3d(al.tensor(distinct((2, 2, 4, 5, 6))), 2, return_indices=True)
    x = al.tensor(distinct((2, 2, 2, 2, 3), seed=1), requires_grad=True)

    def fn(v):
        return al.nn.functional.max_unpool3d(v, indices, 2, output_size=(4, 5, 6))

    assert gradcheck(fn, (x,), eps=1e-6, atol=1e-5)
    assert gradgradcheck(fn, (x,), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2, return_indices=True),
    lambda F, x: F.max_pool3d(x, (2, 2, 3), 1, 1, return_indices=True),
    lambda F, x: F.adaptive_max_pool3d(x, (1, 2, 1), True),
    lambda F, x: F.adaptive_max_pool3d(x, 1, True),
])
def test_max_pools_3d_propagate_nan_as_torch(call):
    array = distinct((1, 2, 2, 3, 4))
    array[0, 0, 0, 0, 1] = array[0, 0, 0, 1, 3] = array[0, 1, 1, 2, 2] = np.nan  # (two NaNs in one window)
    (ours, our_indices), (theirs, their_indices) = (call(lib.nn.functional, lib.tensor(array)) for lib in (al, torch))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())  # (NaN where theirs is NaN)
    np.testing.assert_array_equal(our_indices.numpy(), their_indices.numpy())


def test_max_pool3d_of_a_padded_window_of_minus_infinities_names_the_first_inside():
    array = np.full((1, 1, 3, 3, 3), -np.inf)
    array[0, 0, 2, 2, 2] = 1.0
    for call in (lambda F, x: F.max_pool3d(x, 3, 2, 1, return_indices=True),
                 lambda F, x: F.max_pool3d(x, 2, 1, 1, 1, True, True)):
        (ours, our_indices), (theirs, their_indices) = (call(lib.nn.functional, lib.tensor(array))
                                                        for lib in (al, torch))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        np.testing.assert_array_equal(our_indices.numpy(), their_indices.numpy())


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2),
    lambda F, x: F.max_pool3d(x, 3, 2, 1, return_indices=True),
    lambda F, x: F.avg_pool3d(x, 3, 1, 1),
    lambda F, x: F.avg_pool3d(x, 2, 2, 1, True, False),
])
def test_pools_3d_of_integers_as_torch(call):
    array = np.arange(2 * 4 * 4 * 5).reshape(1, 2, 4, 4, 5) - 70  # (negative sums: division toward zero)
    ours, theirs = (call(lib.nn.functional, lib.tensor(array)) for lib in (al, torch))
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1] == "int64"
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("call", [
    lambda F, x: F.max_pool3d(x, 2, return_indices=True),
    lambda F, x: F.avg_pool3d(x, 2),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 1, 3)),
    lambda F, x: F.adaptive_max_pool3d(x, 2, True),
])
def test_pools_3d_of_an_empty_batch_as_torch(call):
    ours, theirs = (call(lib.nn.functional, lib.zeros(0, 3, 4, 4, 4)) for lib in (al, torch))
    for a, b in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


def _x(lib, *shape):
    return lib.ones(*(shape or (2, 3, 4, 5, 6)))


ERRORS = [
    (lambda m: m.nn.functional.max_pool3d(_x(m, 3, 4, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m, 1, 2, 3, 4, 5, 6), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, (1, 1)), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, 1, (1, 1)), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, 1, 0, (1, 1)), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 0), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), (2, 0, 1), 1), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, -1), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, 1, 0, 0), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, 1, -1, 0), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 2, 1, 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 0, 1, 1), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), 5), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m), (1, 1, 7)), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m, 2, 0, 4, 4, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m, 3, 4, 0, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool3d(_x(m, 2, 3, 0, 1, 1), 2, 1, 2), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m, 3, 4, 5), 2, divisor_override=0), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), (1, 2)), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 2, (1, 2)), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 2, 1, (1, 2)), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 0, divisor_override=0), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 0), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), (2, 0, 1), 1), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 2, -1), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 2, 1, -1), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 2, 1, 2), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m), 5), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m, 1, 1, 2, 5, 5), 3, 1, 1), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m, 2, 3, 4, 4, 0), 2), RuntimeError),
    (lambda m: m.nn.functional.avg_pool3d(_x(m).half(), 2), NotImplementedError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m, 3, 4, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m), (-1, 2, -3)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m, 2, 3, 4, 0, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m, 2, 3, 0, 3, 3), (1, 1)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m).long(), 2), NotImplementedError),
    (lambda m: m.nn.functional.adaptive_avg_pool3d(_x(m).long(), 1), RuntimeError),  # (a mean, as PyTorch's)
    (lambda m: m.nn.functional.adaptive_max_pool3d(_x(m, 3, 4, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool3d(_x(m), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool3d(_x(m), (-1, 2, -3)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool3d(_x(m, 2, 0, 4, 4, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool3d(_x(m, 2, 3, 0, 3, 3), (1, 1)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool3d(_x(m).long(), 2), NotImplementedError),
    (lambda m: m.nn.functional.lp_pool3d(_x(m), 2, (1, 2)), ValueError),
    (lambda m: m.nn.functional.lp_pool3d(_x(m, 3, 4, 5), 2, 2), RuntimeError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m), _x(m).long(), 2, output_size=(11, 10, 12)), ValueError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m), _x(m).long(), 2, output_size=(10, 12)), ValueError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m), _x(m).int(), 2), RuntimeError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m), _x(m, 1, 3, 4, 5, 6).long(), 2), RuntimeError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m, 4, 5, 6), _x(m, 4, 5, 6).long(), 2), RuntimeError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m).long(), _x(m).long(), 2), NotImplementedError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m), _x(m).long() * 1000, 2), RuntimeError),
    (lambda m: m.nn.functional.max_unpool3d(_x(m), _x(m).long() * -3, 2), RuntimeError),
]


@pytest.mark.parametrize("call, error", ERRORS)
def test_pools_3d_errors_as_torch(call, error):
    same_error(torch, call, error)


MODULES = [
    (lambda nn: nn.MaxPool3d(2), False),
    (lambda nn: nn.MaxPool3d((2, 3, 2), stride=1, padding=1, dilation=2, return_indices=True, ceil_mode=True), False),
    (lambda nn: nn.AvgPool3d(2), False),
    (lambda nn: nn.AvgPool3d((2, 2, 3), 1, 1, True, False, 2), False),
    (lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), False),
    (lambda nn: nn.AdaptiveAvgPool3d(2), False),
    (lambda nn: nn.AdaptiveMaxPool3d(2, True), False),
    (lambda nn: nn.LPPool3d(2, 2), False),
    (lambda nn: nn.LPPool3d(1.5, (1, 2, 3), 2, True), False),
    (lambda nn: nn.MaxUnpool3d(2), True),
    (lambda nn: nn.MaxUnpool3d((2, 3, 2), 1, 1), True),
]


@pytest.mark.parametrize("make, unpools", MODULES)
def test_pool_3d_modules_repr_and_forward_as_torch(make, unpools):
    array = distinct((2, 3, 5, 6, 7), positive=True)
    results = []
    for lib in (al, torch):
        module, x = make(lib.nn), lib.tensor(array)
        if unpools:
            pooled, indices = lib.nn.functional.max_pool3d(x, module.kernel_size, module.stride, module.padding,
                                                           return_indices=True)
            out = module(pooled, indices, output_size=tuple(x.shape))
        else:
            out = module(x)
        results.append((repr(module), [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]))
    (our_repr, ours), (their_repr, theirs) = results
    assert our_repr == their_repr
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_max_pool3d_of_float16_and_global_average_of_three_dims_as_torch():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6)).astype(np.float16)
    (ours, our_indices), (theirs, their_indices) = (lib.nn.functional.max_pool3d(lib.tensor(x), 2, return_indices=True)
                                                    for lib in (al, torch))
    assert ours.dtype is al.float16 and theirs.dtype is torch.float16
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(our_indices.numpy(), their_indices.numpy())
    # an output size of ones is a mean over the last three dims, whatever the input's dims (PyTorch checks none)
    ours, theirs = (lib.nn.functional.adaptive_avg_pool3d(lib.tensor(x[0, 0].astype(np.float64)), 1)
                    for lib in (al, torch))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_top_level_max_pool3d_is_torchs():
    assert hasattr(torch, "max_pool3d") and not hasattr(torch, "avg_pool3d")  # (the names PyTorch has)
    x = distinct((2, 3, 4, 5, 6))
    ours, theirs = al.max_pool3d(al.tensor(x), 2, 1, 1), torch.max_pool3d(torch.tensor(x), 2, 1, 1)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert not hasattr(al, "avg_pool3d")
