"""al.tensor() of nested sequences that hold tensors or NumPy values, read as torch.tensor() reads them.

A tensor among the items stands for one number (``al.tensor([loss1, loss2])``); where the shape read from the first
items wants a sequence, a tensor or NumPy array of the right length is read row by row. The dtype is PyTorch's
promotion of the items' own dtypes. Each case is run in both libraries and the results (or errors) compared.
"""

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

# Each expression builds the data with ``lib`` (al or torch) and NumPy.
BUILT = [
    "[lib.ones(1)]", "[lib.ones(1), lib.ones(1)]", "[lib.ones(1, 1)]", "[lib.tensor(3.)]", "[[lib.ones(1)]]",
    "[lib.ones(()) * 2, 3]", "[lib.ones(3)[1:2]]", "[lib.ones(2)[0], lib.ones(2)[1]]",
    "[[1., 2.], lib.ones(2)]", "[[1, 2], lib.ones(2)]", "[[[1., 2.]], lib.ones(1, 2)]", "[[[1., 2.]], [lib.ones(2)]]",
    "[[1., 2.], lib.ones(2, dtype=lib.int64)]", "[lib.ones(1, dtype=lib.int64)]",
    "[lib.tensor(True), 1]", "[lib.tensor(2), 1.5]", "[lib.tensor(2.), 1]", "[lib.tensor(2, dtype=lib.int32), 1]",
    "[lib.tensor(2., dtype=lib.float64)]", "[lib.tensor(2., dtype=lib.float16), 1.]", "[[lib.tensor(1)], [2.5]]",
    "[True, lib.tensor(2)]", "[lib.tensor(0.1), 0.3]",
    "[np.ones(1)]", "[np.ones(2), np.ones(2)]", "[[1., 2.], np.ones(2)]", "[np.float64(2.)]", "[np.ones(0)]",
    "[np.ones(2, dtype=np.float32), [1., 2.]]", "[np.int32(1), 2]", "[np.float32(1), 2.]", "[np.float64(1.5), 2.0]",
    "[np.int64(3), 2.5]", "[[np.ones(2)], [[1, 2]]]", "[np.ones((2, 3)), np.zeros((2, 3))]",
    "[[np.ones(3)], [np.zeros(3)]]",
]
REFUSED = [
    "[lib.ones(2)] * 2", "(lib.ones(2), lib.zeros(2))", "[lib.ones(2, 3), lib.zeros(2, 3)]", "[lib.ones(0)]",
    "[lib.ones(2), [1., 2.]]", "[1., lib.ones(2)]", "[[1., 2.], lib.ones(3)]", "[[1., 2.], lib.ones(1, 2)]",
    "[[1., 2.], lib.ones(1)]", "[lib.ones(1), [2]]", "[1., np.ones(2)]", "[[1., 2.], 3.]",
    "[[1, 2], [3]]", "[[[1], [2]], [[3], [4, 5]]]",
]
DTYPES = [None, "float64", "float32", "int64", "uint8"]


def _build(lib, expression: str, dtype):
    data = eval(expression, {"lib": lib, "np": np})  # noqa: S307 - the expressions above
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.tensor(data, **({"dtype": getattr(lib, dtype)} if dtype else {}))


def _outcome(lib, expression: str, dtype):
    try:
        t = _build(lib, expression, dtype)
    except (TypeError, ValueError, RuntimeError) as exc:
        return type(exc).__name__, str(exc).split(" [autograd_lab]")[0]
    return tuple(t.shape), str(t.dtype).split(".")[-1], t.tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("expression", BUILT + REFUSED)
def test_nested_data_reads_as_in_torch(expression, dtype):
    assert _outcome(al, expression, dtype) == _outcome(torch, expression, dtype)


@pytest.mark.parametrize("expression", REFUSED)
def test_data_that_does_not_fit_is_refused(expression):
    """The same data that torch refuses is refused here (not silently given another shape)."""
    with pytest.raises((TypeError, ValueError)):
        _build(al, expression, None)


def test_a_list_of_losses_is_a_vector_of_their_values():
    w = al.tensor([1.5, -2.0], requires_grad=True)
    losses = [(w * w).sum(), w.sum()]
    with pytest.warns(UserWarning, match="requires_grad=True to a scalar"):
        al.set_warn_always(True)
        try:
            values = al.tensor(losses)
        finally:
            al.set_warn_always(False)
    assert values.tolist() == [6.25, -0.5] and not values.requires_grad


def test_joining_tensors_points_to_stack():
    with pytest.raises(ValueError, match=r"only one element tensors .* al.stack\(tensors\)"):
        al.tensor([al.ones(2), al.ones(2)])


def test_a_python_float_keeps_its_value_beside_a_float32_tensor():
    """0.3 goes into a float64 result unrounded; the float32 tensor's 0.1 is its float32 value (as in torch)."""
    t = al.tensor([al.tensor(0.1), 0.3], dtype=al.float64)
    assert t.tolist() == [float(np.float32(0.1)), 0.3]


def test_an_integer_that_does_not_fit_is_an_overflow_error():
    for lib in (al, torch):
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without overflow"):
            lib.tensor([lib.tensor(300), 1], dtype=lib.uint8)


def test_as_tensor_reads_the_same_way():
    assert al.as_tensor([al.ones(1), al.tensor(2.)]).tolist() == torch.as_tensor([torch.ones(1), torch.tensor(2.)]).tolist()
    assert al.as_tensor([np.float64(1.5), 2.0]).dtype == al.float64
