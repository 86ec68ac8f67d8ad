"""The 1-D pools, adaptive max pooling, power-average pooling and max unpooling (functions and modules) against
PyTorch: values, dtypes, indices, gradients, the nodes recorded (composites where PyTorch's are), gradients of
gradients, finite differences in float64, reprs and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from pooling_inputs import distinct, run

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


CALLS = [
    ((2, 3, 9), lambda F, x: F.max_pool1d(x, 3)),
    ((2, 3, 9), lambda F, x: F.max_pool1d(x, 3, 2, 1, 2, True, True)),
    ((3, 8), lambda F, x: F.max_pool1d(x, (2,), stride=[1])),
    ((2, 3, 9), lambda F, x: F.max_pool1d_with_indices(x, 4, 3, 2)),
    ((2, 3, 9), lambda F, x: F.avg_pool1d(x, 3)),
    ((2, 3, 9), lambda F, x: F.avg_pool1d(x, 4, 3, 2, True, False)),
    ((3, 8), lambda F, x: F.avg_pool1d(x, 2, 1, 1)),
    ((2, 3, 9), lambda F, x: F.adaptive_avg_pool1d(x, 4)),
    ((3, 7), lambda F, x: F.adaptive_avg_pool1d(x, 1)),
    ((2, 3, 9), lambda F, x: F.adaptive_max_pool1d(x, 4, True)),
    ((3, 7), lambda F, x: F.adaptive_max_pool1d_with_indices(x, (10,))),
    ((2, 3, 7, 5), lambda F, x: F.adaptive_max_pool2d(x, (3, 2), True)),
    ((2, 3, 7, 5), lambda F, x: F.adaptive_max_pool2d(x, 4)),
    ((3, 7, 5), lambda F, x: F.adaptive_max_pool2d(x, (None, 3), True)),
    ((2, 3, 4, 5), lambda F, x: F.adaptive_max_pool2d_with_indices(x, (9, 6))),
    ((2, 3, 7, 5), lambda F, x: F.lp_pool2d(x, 2, (2, 3))),
    ((2, 3, 7, 5), lambda F, x: F.lp_pool2d(x, 1, 2, 1, True)),
    ((2, 3, 7, 5), lambda F, x: F.lp_pool2d(x, float("inf"), 3, 2)),
    ((2, 3, 7, 5), lambda F, x: F.lp_pool2d(x, -float("inf"), 2)),
    ((2, 3, 9), lambda F, x: F.lp_pool1d(x, 3, 2)),
    ((2, 3, 9), lambda F, x: F.lp_pool1d(x, 1.5, 3, 2, True)),
    ((2, 3, 9), lambda F, x: F.lp_pool1d(x, float("inf"), 2)),
]


@pytest.mark.parametrize("shape, call", CALLS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pools_match_torch(shape, call, dtype):
    array = distinct(shape, positive=True)  # (positive: a fractional power of a negative mean is NaN)
    ours, values, grad = run(al, call, array, dtype)
    theirs, their_values, their_grad = run(torch, call, array, dtype)
    assert values.grad_fn.name() == their_values.grad_fn.name()
    assert str(values.dtype).split(".")[-1] == str(their_values.dtype).split(".")[-1]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(values.detach().numpy(), their_values.detach().numpy(), rtol=rtol)
    np.testing.assert_allclose(grad.numpy(), their_grad.numpy(), rtol=rtol, atol=rtol)
    if isinstance(theirs, tuple):
        assert ours[1].dtype is al.int64
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


@pytest.mark.parametrize("shape, call", [CALLS[i] for i in (1, 5, 7, 9, 11, 13, 16, 20)])
def test_pools_gradcheck_and_gradgradcheck(shape, call):
    x = al.tensor(distinct(shape, positive=True), requires_grad=True)

    def fn(v):
        out = call(F, v)
        return out[0] if isinstance(out, tuple) else out
    assert gradcheck(fn, (x,), check_forward_ad=True)
    assert gradgradcheck(fn, (x,))


def test_adaptive_max_pool2d_double_backward_node_as_in_torch():
    array = distinct((2, 3, 5, 4))
    names = []
    for lib in (al, torch):
        x = lib.tensor(array, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.adaptive_max_pool2d(x, (2, 3)).pow(2).sum(), x, create_graph=True)
        names.append(g.grad_fn.name())
    assert names[0] == names[1] == "AdaptiveMaxPool2DBackwardBackward0"


def test_adaptive_max_pool2d_saves_the_input_and_the_indices_it_returns():
    x = al.tensor(distinct((1, 2, 5, 4)), requires_grad=True)
    out, indices = F.adaptive_max_pool2d(x, 3, return_indices=True)
    assert out.grad_fn._saved_result1.equal(indices) and out.grad_fn._saved_self.equal(x)
    indices.add_(0)  # (changed in place: the gradient would read other positions)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# -- max unpooling -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, pool, unpool", [
    ((2, 3, 5, 5), dict(kernel_size=2), dict(kernel_size=2, output_size=(5, 5))),
    ((2, 3, 6, 4), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, padding=1, output_size=(6, 4))),
    ((2, 3, 5, 3), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, padding=1)),
    ((3, 4, 4), dict(kernel_size=2), dict(kernel_size=2, output_size=(2, 3, 4, 4))),
])
def test_max_unpool2d_matches_torch(shape, pool, unpool):
    results = []
    for lib in (al, torch):
        x = lib.tensor(distinct(shape))
        values, indices = lib.nn.functional.max_pool2d(x, return_indices=True, **pool)
        leaf = values.detach().requires_grad_()
        out = lib.nn.functional.max_unpool2d(leaf, indices, **unpool)
        g = np.random.default_rng(2).standard_normal(tuple(out.shape))
        (grad,) = lib.autograd.grad(out, leaf, lib.tensor(g, requires_grad=True), create_graph=True)
        results.append((out.grad_fn.name(), out.detach().numpy(), grad.detach().numpy(), grad.grad_fn.name()))
    (name, out, grad, second), (their_name, their_out, their_grad, their_second) = results
    assert (name, second) == (their_name, their_second) == ("MaxUnpool2DBackward0", "ViewBackward0")
    np.testing.assert_array_equal(out, their_out)
    np.testing.assert_allclose(grad, their_grad, rtol=1e-12)


def test_max_unpool1d_matches_torch_and_module_round_trip():
    for size in (None, [9], [2, 3, 9]):
        results = []
        for lib in (al, torch):
            x = lib.tensor(distinct((2, 3, 9)), requires_grad=True)
            values, indices = lib.nn.MaxPool1d(2, return_indices=True)(x)
            out = lib.nn.MaxUnpool1d(2)(values, indices, output_size=size)
            out.backward(lib.ones_like(out))
            results.append((out.grad_fn.name(), out.detach().numpy(), x.grad.numpy()))
        assert results[0][0] == results[1][0]
        np.testing.assert_array_equal(results[0][1], results[1][1])
        np.testing.assert_array_equal(results[0][2], results[1][2])
    y = al.tensor(distinct((1, 1, 5, 5)), requires_grad=True)
    values, indices = al.nn.MaxPool2d(2, return_indices=True)(y)
    assert gradcheck(lambda v: al.nn.MaxUnpool2d(2)(v, indices, y.shape), (values.detach().requires_grad_(),))


# -- modules --------------------------------------------------------------------------------------------------------
MODULES = [
    ("MaxPool1d", (2,), (2, 3, 8)), ("MaxPool1d", (3, 2, 1, 2, False, True), (2, 3, 9)),
    ("AvgPool1d", (2,), (2, 3, 8)), ("AvgPool1d", (3, 2, 1, True, False), (3, 9)),
    ("AdaptiveAvgPool1d", (3,), (2, 3, 8)), ("AdaptiveMaxPool1d", (3,), (2, 3, 8)),
    ("AdaptiveMaxPool1d", (4, True), (3, 8)), ("AdaptiveMaxPool2d", ((2, None),), (2, 3, 5, 4)),
    ("AdaptiveMaxPool2d", (3, True), (2, 3, 5, 4)), ("LPPool1d", (2, 3), (2, 3, 8)),
    ("LPPool2d", (1.5, (2, 3), 1, True), (2, 3, 5, 4)), ("LPPool2d", (2, 2), (3, 5, 4)),
]


@pytest.mark.parametrize("name, args, shape", MODULES)
def test_modules_match_torch(name, args, shape):
    ours, theirs = getattr(al.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    array = distinct(shape, positive=True)
    out, their_out = ours(al.tensor(array)), theirs(torch.tensor(array))
    if isinstance(their_out, tuple):
        np.testing.assert_array_equal(out[1].numpy(), their_out[1].numpy())
        out, their_out = out[0], their_out[0]
    np.testing.assert_allclose(out.numpy(), their_out.numpy(), rtol=1e-12)


def test_unpool_module_reprs():
    for args in [(2,), ((2, 3), 1, 1)]:
        assert repr(al.nn.MaxUnpool2d(*args)) == repr(torch.nn.MaxUnpool2d(*args))
    assert repr(al.nn.MaxUnpool1d(3, 2)) == repr(torch.nn.MaxUnpool1d(3, 2))


# -- errors ---------------------------------------------------------------------------------------------------------
def _indices(lib, shape=(2, 3, 5, 5)):
    return lib.nn.functional.max_pool2d(lib.tensor(distinct(shape)), 2, return_indices=True)


@pytest.mark.parametrize("call, error", [
    (lambda m: m.nn.functional.max_pool1d(m.ones(8), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 4, 5), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 9), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, padding=2), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, padding=-1), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 0), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, stride=0), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, dilation=0), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, stride=(1, 1)), RuntimeError),
    (lambda m: m.nn.functional.avg_pool1d(m.ones(8), 2), RuntimeError),
    (lambda m: m.nn.functional.avg_pool1d(m.ones(2, 3, 8), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.avg_pool1d(m.ones(2, 3, 8), 2, padding=2), RuntimeError),
    (lambda m: m.nn.functional.avg_pool1d(m.ones(2, 3, 8), 0), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(8), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(2, 3, 8), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(2, 3, 8), -1), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(8), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(2, 3, 8), (2, 2)), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(8), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3, 0, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3, 4, 4), -1), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3, 4, 4, dtype=m.int64), 2), NotImplementedError),
    # only the batch may be empty (an unbatched input's channels included), and max_pool1d's values are for floats:
    (lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 0, 4, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(2, 0, 4), 2), RuntimeError),
    (lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(2, 3, 0), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 0, 8), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(0, 8), 2), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 0), 1), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 0, 8), 2, return_indices=True), RuntimeError),
    (lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8, dtype=m.int64), 2), NotImplementedError),
    (lambda m: m.nn.functional.max_unpool2d(_indices(m)[0].long(), _indices(m)[1], 2), NotImplementedError),
    (lambda m: m.nn.functional.max_unpool1d(m.ones(1, 1, 2, dtype=m.int32), m.zeros(1, 1, 2, dtype=m.int64), 2),
     NotImplementedError),
    (lambda m: m.nn.functional.max_unpool2d(*_indices(m), 2, output_size=(7, 7)), ValueError),
    (lambda m: m.nn.functional.max_unpool2d(*_indices(m), 2, output_size=(5,)), ValueError),
    (lambda m: m.nn.functional.max_unpool2d(_indices(m)[0], _indices(m)[1].float(), 2, output_size=(5, 5)),
     RuntimeError),
    (lambda m: m.nn.functional.max_unpool2d(_indices(m)[0], _indices(m)[1][:, :, :1], 2, output_size=(5, 5)),
     RuntimeError),
    (lambda m: m.nn.functional.max_unpool2d(_indices(m)[0][0, 0], _indices(m)[1][0, 0], 2), RuntimeError),
    (lambda m: m.nn.functional.max_unpool1d(*m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, return_indices=True), 2,
                                            output_size=[10]), ValueError),
    (lambda m: m.nn.functional.max_unpool1d(*m.nn.functional.max_pool1d(m.ones(2, 3, 8), 2, return_indices=True), 2,
                                            output_size=[1, 2, 3, 4]), ValueError),
])
def test_errors_as_in_pytorch(call, error):
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as ours:
        call(al)
    phrase = str(theirs.value).splitlines()[0]
    assert phrase in str(ours.value), (phrase, str(ours.value))


def test_an_empty_batch_or_unbatched_input_with_no_channels_is_pooled_as_in_torch():
    for call in (lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(0, 3, 3), 2, return_indices=True),
                 lambda m: m.nn.functional.adaptive_max_pool1d(m.ones(0, 3), 2, return_indices=True),
                 lambda m: m.nn.functional.max_pool1d(m.ones(0, 2, 8), 2, return_indices=True),
                 lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 8, dtype=m.int64), 2, return_indices=True)):
        assert [tuple(t.shape) for t in call(al)] == [tuple(t.shape) for t in call(torch)]


@pytest.mark.parametrize("call", [
    lambda m, x: m.nn.functional.max_pool1d(x[:, :, 0], 2, 1, 1, return_indices=True),
    lambda m, x: m.nn.functional.max_pool2d(x, 2, 2, 1, return_indices=True),
    lambda m, x: m.nn.functional.max_pool2d(x, 3, 2, 1, dilation=(2, 1), ceil_mode=True, return_indices=True),
    lambda m, x: m.nn.functional.max_pool2d(x, 3, 1, 1, return_indices=True),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (2, 3), return_indices=True),
    lambda m, x: m.nn.functional.adaptive_max_pool1d(x[:, :, 1], 2, return_indices=True),
])
def test_max_pools_name_the_element_torch_names_among_minus_infinities_padding_and_nans(call):
    """A window whose elements inside the input are all -inf names the first of them, never a padded position (it
    named -3, or an element outside the window); of several NaNs, the last wins. The gradient goes there too."""
    x = np.full((2, 2, 5, 4), -np.inf)
    x[0, 0, 1, 1], x[0, 1, 2] = 1.0, np.nan
    x[1, 0, :, 1:3] = np.nan
    x[1, 1] = np.arange(20.0).reshape(5, 4)
    ours, theirs = al.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (v, i), (tv, ti) = call(al, ours), call(torch, theirs)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    g = np.arange(float(tv.numel())).reshape(tuple(tv.shape))
    v.backward(al.tensor(g))
    tv.backward(torch.tensor(g))
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_max_unpool2d_names_an_index_outside_the_output():
    for lib in (al, torch):  # (PyTorch's kernel may name another of the indices that do not fit)
        with pytest.raises(RuntimeError, match=r"Found an invalid max index: 1\d \(output volumes are of size 4x4\)"):
            lib.nn.functional.max_unpool2d(*_indices(lib), 2)


def test_avg_pool1d_output_too_small_names_the_sizes():
    for lib in (al, torch):  # (channels first, and the height of 1 it is computed over, as PyTorch names them)
        with pytest.raises(RuntimeError, match=r"Given input size: \(3x1x8\). Calculated output size: \(3x1x0\). "
                                               "Output size is too small"):
            lib.nn.functional.avg_pool1d(lib.ones(2, 3, 8), 9)


@pytest.mark.parametrize("shape, call", [
    ((3, 5, 6), lambda F, x: F.max_pool2d(x, 2)), ((3, 5, 6), lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True)),
    ((3, 5, 6), lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)),
    ((3, 5, 6), lambda F, x: F.avg_pool2d(x, 2)), ((3, 5, 6), lambda F, x: F.adaptive_avg_pool2d(x, (2, 3))),
    ((3, 7), lambda F, x: F.max_pool1d(x, 2)), ((3, 7), lambda F, x: F.avg_pool1d(x, 3)),
])
def test_one_unbatched_image_is_recorded_as_pytorch_records_it(shape, call):
    """A (C, H, W) image is pooled as it is (the pool's node, not a squeeze after a batch of one), and so are the
    gradients of the gradients."""
    array = distinct(shape)
    results = []
    for lib in (al, torch):
        x = lib.tensor(array, requires_grad=True)
        out = call(lib.nn.functional, x)
        out, indices = out if isinstance(out, tuple) else (out, None)
        (g,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
        inner = out.grad_fn.next_functions[0][0]
        results.append((out.grad_fn.name(), type(inner).__name__, g.grad_fn.name(), out.detach().numpy(),
                        g.detach().numpy(), None if indices is None else indices.numpy()))
    ours, theirs = results
    assert ours[:3] == theirs[:3]
    for a, b in zip(ours[3:], theirs[3:]):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_avg_pool_of_integers_divides_as_pytorch():
    """Integer images keep their dtype, each window's sum divided toward zero (C's integer division), as PyTorch's
    kernel (they became float64 means); local_response_norm of integers then matches PyTorch's float32 too."""
    x = np.random.default_rng(0).integers(-50, 50, (2, 3, 5, 6))
    for call in (lambda lib, t: lib.nn.functional.avg_pool2d(t, 2),
                 lambda lib, t: lib.nn.functional.avg_pool2d(t, 3, stride=2, padding=1, count_include_pad=False),
                 lambda lib, t: lib.nn.functional.avg_pool2d(t, 2, divisor_override=3),
                 lambda lib, t: lib.nn.functional.avg_pool1d(t[0], 2)):
        got, expected = call(al, al.tensor(x)), call(torch, torch.tensor(x))
        assert got.dtype is al.int64 and expected.dtype is torch.int64
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    got = al.nn.functional.local_response_norm(al.tensor(x), 3)
    expected = torch.nn.functional.local_response_norm(torch.tensor(x), 3)
    assert got.dtype is al.float32
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
