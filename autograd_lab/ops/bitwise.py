"""Bitwise ops on integer and bool tensors: ``bitwise_and``, ``bitwise_or``, ``bitwise_xor``, ``bitwise_not``,
``bitwise_left_shift``, ``bitwise_right_shift``; their methods, in-place forms and operators (``& | ^ ~ << >>``,
reflected and in-place). They promote as PyTorch does (a Python int beside an int8 tensor keeps int8); a shift by
the width of the type or more (or by a negative amount) gives 0, or -1 for a negative number shifted right, as
PyTorch defines it. Integers have no gradient, so nothing is recorded."""

from __future__ import annotations

from numbers import Number

from .. import backend
from ..tensor import Tensor
from ._args import type_name
from ._errors import no_kernel
from .inplace import _method


def _arrays(name: str, kernel: str, input, other):
    """The two operands as arrays of their promoted integer (or bool) dtype: PyTorch's errors for floats."""
    for x, position in ((input, 1), (other, 2)):
        if not isinstance(x, (Tensor, bool, int)):
            if isinstance(x, Number):  # a float number: PyTorch's kernel refuses it
                raise no_kernel(kernel, backend.get_default_dtype(), f"{name} is for integers and bools")
            raise TypeError(f"{name}(): argument '{'input' if position == 1 else 'other'}' (position {position}) must "
                            f"be Tensor, not {type_name(x)}")
    dtype = backend.result_type(input, other)
    if dtype.is_floating_point:
        raise no_kernel(kernel, dtype, f"{name} is for integer and bool tensors: convert first, e.g. x.long()")
    like = input if isinstance(input, Tensor) else other
    xp = backend.namespace_of(like._data)
    return [x._data.astype(dtype.np_dtype, copy=False) if isinstance(x, Tensor) else
            xp.asarray(x if isinstance(x, bool) or dtype is backend.bool_ else backend.wrap_int(x, dtype, name),
                       dtype=dtype.np_dtype) for x in (input, other)], xp


def _binary(name: str, kernel: str, ufunc: str):
    def fn(input, other):
        (a, b), xp = _arrays(name, kernel, input, other)
        return Tensor._make(getattr(xp, ufunc)(a, b))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Element-wise ``{name}`` of integer or bool tensors (or a tensor and an int), broadcasting."
    return fn


bitwise_and = _binary("bitwise_and", "bitwise_and_cpu", "bitwise_and")
bitwise_or = _binary("bitwise_or", "bitwise_or_cpu", "bitwise_or")
bitwise_xor = _binary("bitwise_xor", "bitwise_xor_cpu", "bitwise_xor")


def _shift(name: str, kernel: str, left: bool):
    def fn(input, other):
        (a, s), xp = _arrays(name, kernel, input, other)
        if a.dtype.kind == "b":
            raise no_kernel(kernel, backend.bool_, f"{name} shifts integers: convert first, e.g. x.long()")
        bits = 8 * a.dtype.itemsize
        outside = (s < 0) | (s >= bits)
        safe = xp.where(outside, 0, s).astype(a.dtype)
        shifted = xp.left_shift(a, safe) if left else xp.right_shift(a, safe)
        fill = 0 if left else xp.where(a < 0, -1, 0)
        return Tensor._make(xp.where(outside, fill, shifted).astype(a.dtype, copy=False))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Shift the bits of integer tensors {'left' if left else 'right'} by ``other`` "
                  f"({'times 2 **' if left else 'floor division by 2 **'} other, in the tensor's width).")
    return fn


bitwise_left_shift = _shift("bitwise_left_shift", "lshift_cpu", left=True)
bitwise_right_shift = _shift("bitwise_right_shift", "rshift_cpu", left=False)


def bitwise_not(input):
    """Flip every bit of an integer tensor (``not`` of a bool tensor)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bitwise_not(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    if input.dtype.is_floating_point:
        raise no_kernel("bitwise_not_cpu", input.dtype, "bitwise_not is for integer and bool tensors")
    return Tensor._make(backend.namespace_of(input._data).invert(input._data))


def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors "
                        f"[autograd_lab] got a {self.dtype!r} tensor; for a mask use (x != 0).logical_not()")
    return bitwise_not(self)


def _operator(fn, reflected: bool = False):
    """``a & b`` (``NotImplemented`` for operands of no kind it knows, so Python tries the other side). A NumPy
    array counts as a tensor and a NumPy scalar as the number it holds, as in PyTorch."""
    def operator(self, other):
        if isinstance(other, backend.np.ndarray):
            other = Tensor._make(other)
        elif isinstance(other, backend.np.generic):
            other = other.item()
        if not isinstance(other, (Tensor, Number)):
            return NotImplemented
        return fn(other, self) if reflected else fn(self, other)
    operator.__name__ = fn.__name__
    return operator


_FUNCTIONS = dict(bitwise_and=bitwise_and, bitwise_or=bitwise_or, bitwise_xor=bitwise_xor, bitwise_not=bitwise_not,
                  bitwise_left_shift=bitwise_left_shift, bitwise_right_shift=bitwise_right_shift)
_OPERATORS = dict(and_=bitwise_and, or_=bitwise_or, xor_=bitwise_xor, lshift_=bitwise_left_shift,
                  rshift_=bitwise_right_shift)


def _bind() -> None:
    for name, fn in _FUNCTIONS.items():
        setattr(Tensor, name, fn)
        setattr(Tensor, name + "_", _method(name + "_", fn))
    for short, fn in _OPERATORS.items():
        name = short[:-1]
        setattr(Tensor, f"__{name}__", _operator(fn))
        setattr(Tensor, f"__r{name}__", _operator(fn, reflected=True))
        setattr(Tensor, f"__i{name}__", getattr(Tensor, fn.__name__ + "_"))
    Tensor.__invert__ = _invert


_bind()
