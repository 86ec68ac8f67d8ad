"""Questions about values and tensors: ``isin``, ``isclose`` (which ``allclose`` asks of every element),
``is_nonzero``, ``is_same_size``, ``is_complex``, ``is_signed``; and ``unique_consecutive``, which collapses runs
of equal values (or of equal slices along ``dim``).

None of them has a gradient: their results are booleans, counts and positions. ``unique_consecutive`` of a
tensor that requires grad gives values whose node is PyTorch's ``UniqueConsecutiveBackward0``, and, as in
PyTorch, a backward that reaches it raises: that derivative is not implemented.
"""

from __future__ import annotations

import math

from .. import backend
from ..autograd import grad_mode
from ..autograd.graph import Node, gradient_edge
from ..tensor import Tensor, _wrap_dim
from ._args import checked


@checked(kinds={"elements": "Tensor|Number", "test_elements": "Tensor|Number", "assume_unique": "bool",
                "invert": "bool"})
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """For each element of ``elements``, whether it is among ``test_elements`` (``invert``: whether it is not);
    either may be a number. NaN is never found, as in PyTorch."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
                        f"{type(test_elements).__name__}), but expected one of: (Tensor elements, Tensor test_elements), "
                        "(Number element, Tensor test_elements), (Tensor elements, Number test_element) [autograd_lab] "
                        "give at least one tensor")
    like = elements if isinstance(elements, Tensor) else test_elements
    xp = backend.namespace_of(like._data)
    for t in (elements, test_elements):
        if isinstance(t, Tensor) and t.dtype is backend.bool_:
            raise RuntimeError("Unsupported input type encountered for isin(): Bool [autograd_lab] compare booleans "
                               "with == instead")
    values = elements._data if isinstance(elements, Tensor) else xp.asarray(elements)
    tests = test_elements._data if isinstance(test_elements, Tensor) else xp.asarray(test_elements)
    return Tensor._make(xp.asarray(xp.isin(values, tests, invert=invert, assume_unique=assume_unique)))


@checked(kinds={"other": "Tensor", "rtol": "number", "atol": "number", "equal_nan": "bool"})
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise (broadcasting): whether ``|input - other| <= atol + rtol * |other|``, or the two are equal
    (infinities of one sign included); NaNs are close to each other only with ``equal_nan``. Both tensors must have
    one dtype, as in PyTorch."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{backend.kernel_type_name(input.dtype)} did not match "
                           f"{backend.kernel_type_name(other.dtype)} [autograd_lab] isclose compares tensors of one "
                           "dtype: convert one, e.g. other.to(input.dtype)")
    for name, tolerance in (("rtol", rtol), ("atol", atol)):
        if not tolerance >= 0:  # (NaN fails it, as in PyTorch)
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tolerance:g}")
    a, b = input._data, other._data
    xp = backend.namespace_of(a)
    close = a == b
    if equal_nan and a.dtype.kind == "f":
        close = close | (xp.isnan(a) & xp.isnan(b))
    if rtol == 0 and atol == 0:  # (no tolerance: equality alone, exact for integers too, as in PyTorch)
        return Tensor._make(xp.asarray(close))
    if a.dtype.kind != "f":  # (integers and bools: the distance in the default dtype, as PyTorch measures it)
        a, b = a.astype(backend.get_default_dtype().np_dtype), b.astype(backend.get_default_dtype().np_dtype)
    with backend.np.errstate(invalid="ignore", over="ignore"):
        near = xp.isfinite(a) & xp.isfinite(b) & (xp.abs(a - b) <= atol + rtol * xp.abs(b))
    return Tensor._make(xp.asarray(close | near))


@checked
def is_nonzero(input) -> bool:
    """Whether the one value of a single-element tensor is not zero (NaN counts as not zero)."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous [autograd_lab] is_nonzero "
                           f"takes a tensor of one element; this one has shape {list(input.shape)}")
    return bool(input._data.reshape(-1)[0] != 0)


@checked(kinds={"other": "Tensor"})
def is_same_size(input, other) -> bool:
    """Whether the two tensors have the same shape."""
    return tuple(input.shape) == tuple(other.shape)


@checked
def is_complex(input) -> bool:
    """Whether the dtype is complex (autograd_lab has no complex dtypes: always False)."""
    return input._data.dtype.kind == "c"


@checked
def is_signed(input) -> bool:
    """Whether the dtype holds negative numbers (every dtype but ``uint8`` and ``bool``)."""
    return input.dtype not in (backend.uint8, backend.bool_)


class UniqueConsecutiveBackward0(Node):
    """The history of ``unique_consecutive``'s values: PyTorch records it, and its backward is not implemented."""

    def __init__(self, input: Tensor, values) -> None:
        super().__init__([gradient_edge(input)], [(values.shape, values.dtype)])

    def _backward(self, grad_outputs: tuple) -> tuple:
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented. [autograd_lab] the "
                                  "values it keeps are picked, not computed; to differentiate through them, index "
                                  "the input with the positions the runs start at instead")


@checked(kinds={"return_inverse": "bool", "return_counts": "bool", "dim": "int?"})
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of consecutive equal values (``dim`` given: of equal slices along ``dim``) kept once; with
    ``return_inverse`` the run each element (slice) belongs to, with ``return_counts`` each run's length."""
    data = input._data
    xp = backend.namespace_of(data)
    if dim is None:
        flat = data.reshape(-1)
        starts = _run_starts(xp, flat.reshape(-1, 1))
        values, length, inverse_shape = flat[starts], flat.shape[0], data.shape
    else:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = _wrap_dim(dim, input.ndim, "unique_consecutive")
        if data.size == 0:  # (PyTorch's checks: only the dim it runs along may be empty)
            if sum(s == 0 for s in data.shape) > 1:
                raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
            if data.shape[d] != 0:
                raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                                   "applied")
        moved = xp.moveaxis(data, d, 0)
        starts = _run_starts(xp, moved.reshape(moved.shape[0], math.prod(moved.shape[1:])))
        values = xp.ascontiguousarray(xp.take(data, starts, axis=d))
        length = inverse_shape = data.shape[d]
    out = Tensor._make(values)
    if input.requires_grad and grad_mode.is_grad_enabled():
        out._grad_fn = UniqueConsecutiveBackward0(input, values)
    results = (out,)
    if return_inverse:  # (the run of each element: 1 where a run starts, summed)
        group = xp.zeros(length, dtype=xp.int64)
        group[starts[1:]] = 1
        results += (Tensor._make(xp.cumsum(group).reshape(inverse_shape)),)
    if return_counts:
        results += (Tensor._make(xp.diff(xp.append(starts, length)).astype(xp.int64)),)
    return results if len(results) > 1 else out


def _run_starts(xp, rows):
    """Where each run of equal rows starts (row 0 always does, NaN equals nothing)."""
    if rows.shape[0] == 0:
        return xp.zeros(0, dtype=xp.int64)
    changed = (rows[1:] != rows[:-1]).any(axis=1)
    return xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.nonzero(changed)[0].astype(xp.int64) + 1])


def _bind() -> None:
    for fn in (isclose, is_nonzero, is_same_size, is_complex, is_signed, unique_consecutive):
        setattr(Tensor, fn.__name__, fn)


_bind()
