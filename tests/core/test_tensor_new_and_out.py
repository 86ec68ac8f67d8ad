"""Tensor API that scripts reach for, against PyTorch: ``new_*``, ``transpose_``/``t_``, ``output_nr``,
``var_mean``/``std_mean`` and the ``out=`` keyword with PyTorch's rules."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _same(ours, theirs):
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.") and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)


# -- new_* ------------------------------------------------------------------------------------------------------
NEW = [
    lambda lib, x: x.new_zeros(2, 3), lambda lib, x: x.new_zeros((2, 3)), lambda lib, x: x.new_ones(2),
    lambda lib, x: x.new_full((2,), 3), lambda lib, x: x.new_full((2,), 1.5), lambda lib, x: x.new_tensor([1, 2]),
    lambda lib, x: x.new_tensor(3.5), lambda lib, x: x.new_tensor(True), lambda lib, x: x.new_empty(2).zero_(),
    lambda lib, x: x.new_ones(2, dtype=lib.int64), lambda lib, x: x.new_tensor([1, 2], dtype=lib.float32),
    lambda lib, x: x.new(2, 3).zero_(), lambda lib, x: x.new([1, 2]), lambda lib, x: x.new(),
    lambda lib, x: x.new((2, 3)), lambda lib, x: x.new(lib.Size([2, 3])).zero_(),
]


@pytest.mark.parametrize("dtype", ["float64", "int32", "float32"])
@pytest.mark.parametrize("make", NEW)
def test_new_tensors_inherit_dtype_and_device(make, dtype):
    ours = make(al, al.ones(2, dtype=getattr(al, dtype)))
    theirs = make(torch, torch.ones(2, dtype=getattr(torch, dtype)))
    _same(ours, theirs)
    assert ours.device == al.ones(2).device and not ours.requires_grad


def test_new_tensor_copies_and_warns_like_pytorch():
    source = al.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="rather than tensor.new_tensor"):
        copy = source.new_tensor(source)
    assert not copy.requires_grad and copy.is_leaf
    copy.add_(1)
    assert source.detach().tolist() == [1.0, 1.0]
    assert al.ones(1).new_empty(2, requires_grad=True).requires_grad
    with pytest.raises(TypeError, match="expected TensorOptions"):
        al.ones(1).new(al.ones(1, dtype=al.int64))


# -- transpose_, t_, output_nr -------------------------------------------------------------------------------
@pytest.mark.parametrize("swap", [lambda x: x.t_(), lambda x: x.transpose_(0, 1), lambda x: x.transpose_(-1, 0)])
def test_transpose_in_place_records_as_pytorch(swap):
    rng = np.random.default_rng(0)
    data, weights = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    results = []
    for lib in (al, torch):
        a = lib.tensor(data, requires_grad=True)
        b = a.clone()
        assert swap(b) is b
        assert type(b.grad_fn).__name__ in ("TBackward1", "TransposeBackward1") and b._version == 1
        assert b.is_contiguous() is False and tuple(b.stride()) == (1, 3)
        (b * lib.tensor(weights)).sum().backward()
        results.append((b.detach().numpy().copy(), a.grad.numpy().copy(), type(b.grad_fn).__name__))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def test_transpose_in_place_rules():
    leaf = al.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        leaf.t_()
    with al.no_grad():
        assert leaf.t_().shape == (3, 2) and leaf.is_leaf
    b = leaf * 1
    c = b * b  # saves b
    b.t_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
    with pytest.raises(RuntimeError, match=r"t_\(\) expects a tensor with <= 2 dimensions, but self is 3D"):
        al.ones(2, 2, 2).t_()
    assert al.ones(3).t_().shape == (3,)


def test_transpose_in_place_of_a_view_sends_the_gradient_to_the_base():
    a = al.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    base = a * 1
    view = base[1:3]
    view.t_()
    assert view.shape == (3, 2) and view._base is base and type(view.grad_fn).__name__ == "TBackward1"
    weights = np.arange(6.0).reshape(3, 2)
    (view * al.tensor(weights)).sum().backward()
    expected = np.zeros((4, 3))
    expected[1:3] = weights.T
    np.testing.assert_array_equal(a.grad.numpy(), expected)


def test_output_nr_as_pytorch():
    for lib in (al, torch):
        x = lib.ones(4, requires_grad=True)
        parts = (x * 2).split(2)
        assert [p.output_nr for p in parts] == [0, 1]
        assert x.output_nr == 0 and lib.ones(4).split(2)[1].output_nr == 0  # nothing recorded: 0
        assert lib.var_mean(x * 1)[1].output_nr == 1


# -- var_mean, std_mean ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.var_mean(x), lambda lib, x: lib.var_mean(x, 1), lambda lib, x: lib.var_mean(x, (0, 1), keepdim=True),
    lambda lib, x: lib.var_mean(x, 0, correction=0), lambda lib, x: lib.var_mean(x, False),
    lambda lib, x: lib.std_mean(x), lambda lib, x: lib.std_mean(x, 1, unbiased=False),
    lambda lib, x: lib.std_mean(x, -1, keepdim=True, correction=2),
])
def test_var_mean_and_std_mean_match_torch(call):
    data = np.random.default_rng(3).standard_normal((3, 4))
    ours_x, torch_x = al.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours, theirs = call(al, ours_x), call(torch, torch_x)
    assert type(ours) is tuple and len(ours) == 2
    assert type(ours[0].grad_fn).__name__ == type(theirs[0].grad_fn).__name__
    for o, t in zip(ours, theirs):
        _same(o, t)
    (ours[0].sum() * 2 + ours[1].sum()).backward()
    (theirs[0].sum() * 2 + theirs[1].sum()).backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), torch_x.grad.numpy(), rtol=1e-12)
    assert al.autograd.gradcheck(lambda x: call(al, x), [ours_x.detach().requires_grad_()])
    assert al.autograd.gradgradcheck(lambda x: call(al, x), [ours_x.detach().requires_grad_()])


def test_only_one_output_of_var_mean_used():
    x = al.tensor(np.arange(6.0), requires_grad=True)
    al.var_mean(x)[1].backward()
    assert al.allclose(x.grad, al.full((6,), 1 / 6, dtype=al.float64))


# -- out= --------------------------------------------------------------------------------------------------------
OUT_CALLS = [
    ("add", lambda lib, out: lib.add(lib.ones(2, 3), lib.arange(3.0), alpha=2, out=out), (2, 3)),
    ("sub", lambda lib, out: lib.sub(lib.ones(2, 3), 0.5, out=out), (2, 3)),
    ("mul", lambda lib, out: lib.mul(lib.ones(2, 3), 3, out=out), (2, 3)),
    ("div", lambda lib, out: lib.div(lib.ones(2, 3), 4, out=out), (2, 3)),
    ("matmul", lambda lib, out: lib.matmul(lib.ones(2, 3), lib.ones(3, 4), out=out), (2, 4)),
    ("mm", lambda lib, out: lib.mm(lib.ones(2, 3), lib.ones(3, 4), out=out), (2, 4)),
    ("exp", lambda lib, out: lib.exp(lib.zeros(2, 3), out=out), (2, 3)),
    ("log", lambda lib, out: lib.log(lib.ones(2, 3), out=out), (2, 3)),
    ("sum", lambda lib, out: lib.sum(lib.ones(2, 3), 1, out=out), (2,)),
    ("mean", lambda lib, out: lib.mean(lib.ones(2, 3), 0, out=out), (3,)),
    ("cat", lambda lib, out: lib.cat([lib.ones(2, 3), lib.zeros(1, 3)], out=out), (3, 3)),
    ("stack", lambda lib, out: lib.stack([lib.ones(3), lib.zeros(3)], out=out), (2, 3)),
    ("clamp", lambda lib, out: lib.clamp(lib.arange(6.0).reshape(2, 3), 1, 4, out=out), (2, 3)),
    ("where", lambda lib, out: lib.where(lib.tensor([True, False, True]), lib.ones(3), lib.zeros(3), out=out), (3,)),
]


@pytest.mark.parametrize("name,call,shape", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_out_writes_into_the_given_tensor(name, call, shape):
    ours_out, torch_out = al.empty(shape), torch.empty(shape)
    ours, theirs = call(al, ours_out), call(torch, torch_out)
    assert ours is ours_out and theirs is torch_out
    _same(ours, theirs)
    assert ours_out._version == torch_out._version == 1


@pytest.mark.parametrize("name,call,shape", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_out_of_the_wrong_shape_is_resized_with_pytorchs_warning(name, call, shape):
    for lib, out in ((al, al.empty(7)), (torch, torch.empty(7))):
        with pytest.warns(UserWarning, match=re.escape("An output with one or more elements was resized since it had "
                                                       "shape [7], which does not match the required output shape "
                                                       f"{list(shape)}")):
            assert tuple(call(lib, out).shape) == shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tuple(call(al, al.empty(0)).shape) == shape  # an empty out is resized silently


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_out_refuses_arguments_that_require_grad(lib):
    x = lib.ones(2, requires_grad=True)
    message = "functions with out=... arguments don't support automatic differentiation, but one of the arguments"
    for name, call in (("add", lambda: lib.add(x, 1, out=lib.empty(2))),
                       ("add", lambda: lib.add(lib.ones(2), 1, out=lib.empty(2, requires_grad=True))),
                       ("cat", lambda: lib.cat([x, x], out=lib.empty(4))),
                       ("aten::zeros", lambda: lib.zeros(2, out=lib.empty(2, requires_grad=True)))):
        with pytest.raises(RuntimeError, match=rf"^{name}\(\): " + message.replace(".", r"\.").replace("(", r"\(")):
            call()
    with lib.no_grad():  # nothing to record: allowed
        out = lib.empty(2)
        assert lib.add(x, 1, out=out) is out and out.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_out_dtype_rules(lib):
    assert lib.add(lib.ones(2), 1, out=lib.empty(2, dtype=lib.float64)).dtype == lib.float64  # cast up: fine
    assert lib.mul(lib.ones(2, dtype=lib.int64), 2, out=lib.empty(2)).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        lib.add(lib.ones(2), 1, out=lib.empty(2, dtype=lib.int64))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        lib.mm(lib.ones(2, 2), lib.ones(2, 2), out=lib.empty(2, 2, dtype=lib.float64))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        lib.add(lib.ones(2), 1, out=[1])


@pytest.mark.parametrize("lib", [al, torch], ids=["al", "torch"])
def test_factories_with_out(lib):
    out = lib.empty(2, dtype=lib.int64)
    assert lib.zeros(2, 3, out=out) is out and out.dtype == lib.int64 and tuple(out.shape) == (2, 3)
    assert lib.ones(4, out=lib.empty(4)).tolist() == [1.0] * 4
    assert lib.arange(5, out=lib.empty(5)).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]  # out's dtype when none is given
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape \\[3\\] is 3 which does "
                                         "not match the computed number of elements 5"):
        lib.arange(5, out=lib.empty(3))
    with pytest.raises(RuntimeError, match=r"dtype Double does not match dtype of out parameter \(Float\)"):
        lib.zeros(2, dtype=lib.float64, out=lib.empty(2))


def test_out_view_of_the_right_shape_writes_through():
    base = al.zeros(2, 3)
    al.add(al.ones(3), 1, out=base[1])
    assert base.tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]] and base._version == 1
    with pytest.raises(RuntimeError, match="cannot resize out, a view"), pytest.warns(UserWarning):
        al.add(al.ones(4), 1, out=base[1])
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        al.add(al.ones(2, 3), 1, out=al.zeros(3).expand(2, 3))
