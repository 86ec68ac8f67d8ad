"""The Tensor surface: creation, dtypes, attributes, conversions and NumPy interop."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al


def test_python_data_gets_pytorchs_default_dtypes():
    assert al.tensor([1.0, 2.0]).dtype is al.float32
    assert al.tensor([1, 2]).dtype is al.int64
    assert al.tensor([True, False]).dtype is al.bool
    assert al.tensor(np.array([1.0])).dtype is al.float64  # NumPy arrays keep their dtype
    assert al.tensor([1, 2], dtype=al.float64).dtype is al.float64
    assert al.float is al.float32 and al.double is al.float64 and al.long is al.int64


def test_set_default_dtype_changes_what_python_floats_become():
    try:
        al.set_default_dtype(al.float64)
        assert al.tensor([0.5]).dtype is al.float64
        assert al.zeros(2).dtype is al.float64
    finally:
        al.set_default_dtype(al.float32)
    with pytest.raises(TypeError, match="floating-point"):
        al.set_default_dtype(al.int64)


@pytest.mark.parametrize("factory, expected", [
    (lambda: al.zeros(2, 3), np.zeros((2, 3))),
    (lambda: al.ones((2, 3)), np.ones((2, 3))),
    (lambda: al.full((2,), 7.0), np.full(2, 7.0)),
    (lambda: al.empty([3]), np.zeros(3)),
    (lambda: al.arange(5), np.arange(5)),
    (lambda: al.arange(1, 2, 0.25), np.arange(1, 2, 0.25)),
    (lambda: al.linspace(0, 1, 5), np.linspace(0, 1, 5)),
    (lambda: al.eye(3), np.eye(3)),
    (lambda: al.zeros_like(al.ones(2, 2)), np.zeros((2, 2))),
    (lambda: al.ones_like(al.zeros(3)), np.ones(3)),
    (lambda: al.full_like(al.zeros(2), 3.0), np.full(2, 3.0)),
])
def test_factories_fill_as_expected(factory, expected):
    t = factory()
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6)
    assert tuple(t.shape) == expected.shape


def test_integer_factories_are_int64_and_float_ones_default_float():
    assert al.arange(3).dtype is al.int64
    assert al.arange(3.0).dtype is al.float32
    assert al.full((2,), 1).dtype is al.int64
    assert al.randint(0, 10, (3, 2)).dtype is al.int64


def test_manual_seed_makes_random_tensors_reproducible():
    al.manual_seed(0)
    a = (al.rand(3), al.randn(2, 2), al.randint(0, 5, (4,)), al.randperm(6))
    al.manual_seed(0)
    b = (al.rand(3), al.randn(2, 2), al.randint(0, 5, (4,)), al.randperm(6))
    for x, y in zip(a, b):
        assert x.equal(y)
    assert 0.0 <= al.rand(1000).min().item() and al.rand(1000).max().item() < 1.0
    assert sorted(al.randperm(6).tolist()) == list(range(6))


def test_shape_and_size_attributes():
    t = al.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and repr(t.shape) == "al.Size([2, 3, 4])"
    assert t.size() == t.shape and t.size(1) == 3 and t.size(-1) == 4
    assert t.ndim == t.dim() == 3
    assert t.numel() == 24
    assert t.device == al.device("cpu") and str(t.device) == "cpu"
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.size(3)


def test_item_tolist_and_numpy():
    t = al.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert t.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert t[0, 1].item() == 2.0
    with pytest.raises(RuntimeError, match="a Tensor with 4 elements cannot be converted to Scalar"):
        t.item()
    array = t.numpy()
    array[0, 0] = 9.0  # numpy() shares memory
    assert t[0, 0].item() == 9.0


def test_numpy_interop_both_ways():
    array = np.arange(6.0).reshape(2, 3)
    t = al.from_numpy(array)
    assert t.dtype is al.float64
    array[0, 0] = -1.0
    assert t[0, 0].item() == -1.0  # from_numpy shares memory
    assert np.asarray(al.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert (np.ones(2) * al.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]  # NumPy defers to our operators
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.asarray(al.ones(2, requires_grad=True))


def test_numpy_of_a_tensor_requiring_grad_under_no_grad():
    """PyTorch refuses ``.numpy()`` of a tensor requiring grad in grad mode only; under no_grad it
    gives the shared array (nothing could record an operation on it there)."""
    torch = pytest.importorskip("torch")
    ours, theirs = al.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with al.no_grad(), torch.no_grad():
        assert ours.numpy() is ours._data and theirs.numpy().tolist() == ours.numpy().tolist()
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        ours.numpy()


def test_detach_shares_storage_and_version_counter_but_data_only_storage():
    x = al.ones(3, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf
    assert d._vc is x._vc  # detach() shares the version counter, as in PyTorch
    assert x.data._vc is not x._vc  # .data does not: its changes are invisible to autograd's checks
    d.numpy()[0] = 5.0
    assert x[0].item() == 5.0


def test_clone_copies_and_records():
    x = al.ones(3, requires_grad=True)
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    assert c._data is not x._data
    c.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_requires_grad_rules_for_leaves():
    x = al.zeros(2)
    assert x.requires_grad_() is x and x.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        al.zeros(2, dtype=al.int64).requires_grad_()
    y = x * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False


def test_conversions_record_a_copy_node():
    x = al.ones(2, dtype=al.float64, requires_grad=True)
    y = x.float()
    assert y.dtype is al.float32 and y.grad_fn.name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype is al.float64  # the gradient comes back in the input's dtype
    assert x.to(al.float64) is x
    assert al.ones(2).long().dtype is al.int64 and not al.ones(2, requires_grad=True).long().requires_grad


def test_equal_and_allclose():
    a = al.tensor([1.0, 2.0])
    assert a.equal(al.tensor([1.0, 2.0])) and not a.equal(al.tensor([1.0, 2.5]))
    assert al.allclose(a, a + 1e-9) and not al.allclose(a, a + 1e-3)


def test_bool_len_iter_and_index():
    t = al.tensor([[1, 2], [3, 4]])
    assert len(t) == 2
    assert [row.tolist() for row in t] == [[1, 2], [3, 4]]
    assert list(range(5))[al.tensor(3)] == 3
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(al.tensor([True, False]))
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(al.tensor(1.0))


def test_legacy_constructor_makes_default_float_tensors():
    assert al.Tensor([0, 0, 0]).dtype is al.float32
    assert al.Tensor(2, 3).shape == (2, 3)
    assert al.Tensor([1, 2]).tolist() == [1.0, 2.0]


def test_ragged_data_gets_a_clear_error():
    with pytest.raises(ValueError, match="rectangular"):
        al.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="not supported|could not build"):
        al.tensor(np.array([1 + 2j]))
