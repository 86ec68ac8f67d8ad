"""``asarray`` (memory shared where it can be, ``copy=``, ``dtype=``, ``requires_grad=`` as PyTorch 2.13 reads them),
``scalar_tensor`` and ``empty_strided``/``new_empty_strided``, against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_compare import same_error

import autograd_lab as al

torch = pytest.importorskip("torch")


def _state(m, build):
    """What ``build(m, obj)`` gives for a float tensor ``obj`` (a leaf that requires grad, a result of ops, or
    plain): whether it is ``obj`` itself, an alias of its memory, its flags, its node, and ``obj``'s flag after."""
    out = []
    for kind in ("leaf", "result", "plain"):
        obj = m.tensor([1.0, 2.0], requires_grad=kind != "plain")
        obj = obj * 2 if kind == "result" else obj
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (PyTorch warns once a process: compared in the test below)
            got = build(m, obj)
        shares = got.data_ptr() == obj.data_ptr()
        node = got.grad_fn and got.grad_fn.name()
        out.append((kind, got is obj, shares, got.requires_grad, got.is_leaf, node, obj.requires_grad, got.dtype.itemsize))
    return out


@pytest.mark.parametrize("build", [
    lambda m, x: m.asarray(x),
    lambda m, x: m.asarray(x, requires_grad=False),
    lambda m, x: m.asarray(x, requires_grad=True),
    lambda m, x: m.asarray(x, dtype=m.float64),
    lambda m, x: m.asarray(x, dtype=m.float64, requires_grad=False),
    lambda m, x: m.asarray(x, dtype=m.float64, requires_grad=True),
    lambda m, x: m.asarray(x, copy=True),
    lambda m, x: m.asarray(x, copy=True, requires_grad=False),
    lambda m, x: m.asarray(x, copy=True, requires_grad=True),
    lambda m, x: m.asarray(x, copy=False, dtype=m.float32),
])
def test_asarray_of_a_tensor_matches_torch(build):
    assert _state(al, build) == _state(torch, build)


def test_asarray_warns_when_a_leaf_keeps_requiring_grad_by_default():
    """PyTorch 2.13's warning (given once a process there, each time here), for a leaf that requires grad only."""
    with pytest.warns(UserWarning, match="torch.asarray: unspecified requires_grad now defaults to obj.requires_grad"):
        al.asarray(al.ones(2, requires_grad=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        al.asarray(al.ones(2, requires_grad=True) * 2)
        al.asarray(al.ones(2, requires_grad=True), requires_grad=True)
        al.asarray(al.ones(2))


def test_asarray_shares_numpy_memory_unless_asked_or_converting():
    for m in (al, torch):
        array = np.arange(4.0)
        m.asarray(array).add_(1)
        assert array.tolist() == [1.0, 2.0, 3.0, 4.0]
        m.asarray(array, copy=True).add_(1)
        m.asarray(array, dtype=m.float32).add_(1)
        assert array.tolist() == [1.0, 2.0, 3.0, 4.0]
        strided = np.arange(6.0)[::2]
        assert m.asarray(strided).stride() == (2,)
        assert m.asarray(np.arange(3)).dtype is m.int64


def test_asarray_of_a_buffer_shares_its_bytes():
    for m in (al, torch):
        data = bytearray(b"\x01\x02")
        m.asarray(data, dtype=m.uint8).mul_(3)
        assert list(data) == [3, 6]


@pytest.mark.parametrize("obj", [[1, 2], [1.0, 2], 3.5, True, [[1, 2.0]], np.float64(2.5), np.float32(2.0),
                                 np.array(2.5, dtype=np.float32)])
def test_asarray_of_data_matches_torch(obj):
    ours, theirs = al.asarray(obj), torch.asarray(obj)
    assert ours.tolist() == theirs.tolist() and ours.dtype.name == str(theirs.dtype).split(".")[-1]


def test_asarray_of_a_list_of_0_dim_tensors():
    ours = al.asarray([al.tensor(1.0), al.tensor(2)])
    assert ours.tolist() == torch.asarray([torch.tensor(1.0), torch.tensor(2)]).tolist() and ours.dtype is al.float32


@pytest.mark.parametrize("call, error", [
    (lambda m: m.asarray(m.ones(2), dtype=m.float64, copy=False), ValueError),
    (lambda m: m.asarray(np.arange(3), dtype=m.float32, copy=False), ValueError),
    (lambda m: m.asarray([1, 2], copy=False), ValueError),
    (lambda m: m.asarray([1, 2], requires_grad=True), RuntimeError),
    (lambda m: m.asarray("abc"), TypeError),
    (lambda m: m.asarray(bytearray(b"\x01\x02")), ValueError),
])
def test_asarray_errors_match_torch(call, error):
    same_error(torch, call, error)


@pytest.mark.parametrize("value, options", [(3, {}), (True, {}), (2.5, {"dtype": "float64"}), (2, {"dtype": "int64"}),
                                            (1.5, {"dtype": "int64"}), (np.float64(1.0), {})])
def test_scalar_tensor_matches_torch(value, options):
    ours = al.scalar_tensor(value, **{k: getattr(al, v) for k, v in options.items()})
    theirs = torch.scalar_tensor(value, **{k: getattr(torch, v) for k, v in options.items()})
    assert ours.shape == () and ours.item() == theirs.item() and ours.dtype.name == str(theirs.dtype).split(".")[-1]


def test_scalar_tensor_requires_grad_and_errors():
    assert al.scalar_tensor(1.5, requires_grad=True).requires_grad
    assert al.scalar_tensor(al.tensor(2.0)).item() == torch.scalar_tensor(torch.tensor(2.0)).item()
    same_error(torch, lambda m: m.scalar_tensor([1]), TypeError)
    same_error(torch, lambda m: m.scalar_tensor(1, dtype=m.int64, requires_grad=True), RuntimeError)


@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((2, 3), (6, 2)), ((2, 3), (0, 1)),
                                          ((), ()), ((0, 3), (3, 1)), ((4,), (3,))])
def test_empty_strided_has_the_strides_asked_for(size, stride):
    ours, theirs = al.empty_strided(size, stride), torch.empty_strided(size, stride)
    assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
    assert ours.is_contiguous() == theirs.is_contiguous() and ours.dtype is al.float32
    like = al.ones(1, dtype=al.float64).new_empty_strided(size, stride)
    assert like.dtype is al.float64 and like.stride() == theirs.stride()


def test_empty_strided_options():
    x = al.empty_strided((2, 3), (3, 1), dtype=al.float64, requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.dtype is al.float64


@pytest.mark.parametrize("call", [
    lambda m: m.empty_strided((2, 3), (1,)),
    lambda m: m.empty_strided((2, 3), (-1, 1)),
    lambda m: m.empty_strided((2, -3), (3, 1)),
    lambda m: m.empty_strided((2, 3), (0, 0)).add_(1),
])
def test_empty_strided_errors_match_torch(call):
    same_error(torch, call, RuntimeError)
