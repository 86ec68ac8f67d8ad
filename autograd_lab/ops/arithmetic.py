"""Arithmetic: ``+ - * / ** %`` and their functions (``add``, ``sub``, ``mul``, ``div``, ``pow``...).

Every binary op broadcasts; its derivatives are written for the broadcast shape and the engine sums
them back to each input's shape. Python numbers may appear as operands: their ``next_functions``
entry is ``(None, 0)``, as in PyTorch.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import type_name
from ._op import Op
from .out import write_out

_OPERAND_TYPES = frozenset((Tensor, bool, int, float))  # taken as they are (one set lookup on the per-op path)


def _operand(x, op: str):
    """A Tensor or Python number; NumPy values become one of these; anything else is a TypeError. (A NumPy scalar
    counts as the Python number it holds, as in PyTorch: ``np.float64`` is a ``float`` to Python, but one NumPy
    would promote a float32 tensor with.)"""
    if x.__class__ in _OPERAND_TYPES or isinstance(x, Tensor):
        return x
    if isinstance(x, backend.np.generic):
        return x.item()
    if isinstance(x, (bool, int, float)):  # a subclass of a Python number (an IntEnum...): the number it is
        return bool(x) if isinstance(x, bool) else int(x) if isinstance(x, int) else float(x)
    if isinstance(x, backend.np.ndarray):
        return Tensor._make(x)
    raise TypeError(f"{op}(): argument 'other' must be Tensor, not {type_name(x)} [autograd_lab] {op} takes a Tensor or "
                    "a Python number")


def plain_number(value):
    """A setting such as ``alpha``: a NumPy scalar becomes the Python number it holds (NumPy promotes with a
    ``np.float64`` as with a float64 array, PyTorch as with a Python float)."""
    return value.item() if isinstance(value, backend.np.generic) else value


class AddBackward0(Op):
    """out = self + alpha * other"""
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, other, *, alpha=1):
        return self + other if alpha == 1 else self + alpha * other

    def d_self(grad):
        return grad

    def d_other(grad, alpha):
        return grad if alpha == 1 else grad * alpha

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class SubBackward0(Op):
    """out = self - alpha * other"""
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, other, *, alpha=1):
        return self - other if alpha == 1 else self - alpha * other

    def d_self(grad):
        return grad

    def d_other(grad, alpha):
        return -grad if alpha == 1 else grad * -alpha

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class RsubBackward0(Op):
    """out = other - alpha * self, for ``rsub(tensor, tensor)``"""
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, other, *, alpha=1):
        return other - self if alpha == 1 else other - alpha * self

    def d_self(grad, alpha):
        return -grad if alpha == 1 else grad * -alpha

    def d_other(grad):
        return grad

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class RsubBackward1(Op):
    """out = other - alpha * self, for ``number - tensor``"""
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, *, other, alpha=1):
        return other - self if alpha == 1 else other - alpha * self

    def d_self(grad, alpha):
        return -grad if alpha == 1 else grad * -alpha

    f_self = d_self  # element-wise: the forward derivative is the backward one


class MulBackward0(Op):
    """out = self * other"""
    saves = ("self", "other")
    promotes = True

    def forward(xp, self, other):
        return self * other

    def d_self(grad, other):
        return grad * other

    def d_other(grad, self):
        return grad * self

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class DivBackward0(Op):
    """out = self / other (true division: integers give floats)"""
    saves = ("self", "other")
    promotes = "float"

    def forward(xp, self, other):
        return self / other

    def d_self(grad, other):
        return grad / other

    def d_other(grad, self, other):
        return -grad * ((self / other) / other)  # PyTorch's order: no other * other to overflow, nor 0 * inf

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class DivBackward2(Op):
    """out = self / other rounded with ``rounding_mode`` ('floor' or 'trunc'): piecewise constant"""
    saves = ("other", "rounding_mode", "self")
    promotes = True

    def forward(xp, self, other, *, rounding_mode):
        # floor: NumPy's floor_divide is Python's and PyTorch's a // b (floor(a / b) of the rounded quotient
        # is off by one where a / b rounds up to an integer, as 9.0 / -0.3 does; inf // 2 is nan)
        out = xp.floor_divide(self, other) if rounding_mode == "floor" else xp.trunc(xp.true_divide(self, other))
        return xp.asarray(out).astype(xp.result_type(self, other))

    # Zero even where the incoming gradient is NaN or infinite, as in PyTorch. They take the operands PyTorch's
    # formulas take, so that these are saved and freed as there (a second backward raises).
    def d_self(grad, other):
        return formulas.zeros_like(grad)

    def d_other(grad, self, other):
        return formulas.zeros_like(grad)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class ReciprocalBackward0(Op):
    """out = 1 / self"""
    saves = ("result",)
    promotes = "float"

    def forward(xp, self):
        return 1 / self

    def d_self(grad, result):
        return -grad * result * result

    f_self = d_self  # element-wise: the forward derivative is the backward one


class NegBackward0(Op):
    """out = -self"""

    def forward(xp, self):
        return -self

    def d_self(grad):
        return -grad

    f_self = d_self  # element-wise: the forward derivative is the backward one


def _scalar_power(x, exponent):
    """``x ** exponent`` for a number ``exponent``, as PyTorch computes it: the power -0.5 is ``1 / sqrt(x)``
    (PyTorch's rsqrt), so it is NaN at -inf as ``x ** 0.5`` is (NumPy's power gives 0 there)."""
    return 1 / formulas.sqrt(x) if exponent == -0.5 else x ** exponent


class PowBackward0(Op):
    """out = self ** exponent, exponent a number"""
    saves = ("exponent", "self")

    def forward(xp, self, *, exponent):
        return _scalar_power(self, exponent)

    def d_self(grad, exponent, self):
        if exponent == 0:
            return formulas.zeros_like(grad)
        return grad * exponent * _scalar_power(self, exponent - 1)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class PowBackward1(Op):
    """out = self ** exponent, both tensors"""
    saves = ("self", "exponent", "result")
    promotes = True

    def forward(xp, self, exponent):
        if exponent.dtype.kind in "iu" and self.dtype.kind in "iu":
            return _int_power(xp, self, exponent)
        return formulas.power(self, exponent)  # (PyTorch's pow: a 0-dim exponent 0.5 is no sqrt)

    def d_self(grad, self, exponent):
        return formulas.where(exponent == 0, 0.0, grad * exponent * formulas.power(self, exponent - 1))

    def d_exponent(grad, self, exponent, result):
        # the gradient multiplies the masked factor, as in PyTorch: a NaN arriving where self == 0 stays NaN
        return grad * formulas.where((self == 0) & (exponent >= 0), 0.0, result * formulas.log(self))

    f_self, f_exponent = d_self, d_exponent  # element-wise: the forward derivatives are the backward ones


class PowBackward2(Op):
    """out = self ** exponent, self a number and exponent a tensor"""
    saves = ("exponent", "result", "self")

    def forward(xp, exponent, *, self):
        base = xp.asarray(self, dtype=exponent.dtype)
        return _int_power(xp, base, exponent) if exponent.dtype.kind in "iu" else base ** exponent

    def d_exponent(grad, exponent, result, self):
        if self == 0:  # (the gradient multiplies the masked factor, as in PyTorch)
            return grad * formulas.where(exponent >= 0, 0.0, result * float("-inf"))
        return grad * result * float(backend.np.log(self))

    f_exponent = d_exponent  # element-wise: the forward derivative is the backward one


def _float_remainder(xp, self, other):
    """Python's ``%`` on arrays: ``self - floor(self / other) * other``, the sign of ``other``."""
    if xp.result_type(self, other).kind != "f":
        return xp.remainder(self, other)
    mod = xp.fmod(self, other)  # PyTorch's float remainder: a zero result keeps the dividend's sign
    return xp.where((mod != 0) & ((other < 0) != (mod < 0)), mod + other, mod)


class RemainderBackward0(Op):
    """out = self % other, other a number (Python's %: the sign of other)"""

    def forward(xp, self, *, other):
        return _float_remainder(xp, self, other)

    def d_self(grad):
        return grad

    f_self = d_self  # element-wise: the forward derivative is the backward one


class RemainderBackward1(Op):
    """out = self - floor(self / other) * other, both tensors (Python's %)"""
    saves = ("self", "other")
    promotes = True

    def forward(xp, self, other):
        return _float_remainder(xp, self, other)

    def d_self(grad):
        return grad

    def d_other(grad, self, other):
        return -grad * formulas.floor_div(self, other)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class FmodBackward0(Op):
    """out = fmod(self, other), other a number: C's fmod, the remainder of truncated division (the sign of self)"""

    def forward(xp, self, *, other):
        return xp.fmod(self, other)

    def d_self(grad):
        return grad

    f_self = d_self  # element-wise: the forward derivative is the backward one


class FmodBackward1(Op):
    """out = fmod(self, other), both tensors: self - trunc(self / other) * other"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.fmod(self, other)

    def d_self(grad):
        return grad

    def d_other(grad, self, other):
        return -grad * formulas.trunc_div(self, other)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


# -- front-end functions ------------------------------------------------------------------------
def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other``, broadcasting."""
    if out is not None:
        return write_out("add", add, out, input, other, alpha=alpha)
    if input.__class__ is not Tensor:  # (the common case, a tensor plus a tensor or a number, checks nothing)
        input = _operand(input, "add")
    if other.__class__ not in _OPERAND_TYPES:
        other = _operand(other, "add")
    if alpha.__class__ is not int:
        alpha = plain_number(alpha)
    return AddBackward0.apply(input, other, alpha=alpha)


def _is_bool(x) -> bool:
    return x.__class__ is bool or isinstance(x, Tensor) and x._data.dtype.kind == "b"


def _check_subtraction(input, other) -> None:
    """PyTorch refuses to subtract with a bool operand (NumPy's own words would be about NumPy)."""
    if _is_bool(input) or _is_bool(other):
        if _is_bool(input) and _is_bool(other):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                               "`logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other``, broadcasting."""
    _check_subtraction(input, other)
    if out is not None:
        return write_out("sub", sub, out, input, other, alpha=alpha)
    alpha = plain_number(alpha)
    if not isinstance(input, Tensor):
        input = _operand(input, "sub")
        if not isinstance(input, Tensor):
            return RsubBackward1.apply(other, other=input, alpha=alpha)
    return SubBackward0.apply(input, _operand(other, "sub"), alpha=alpha)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    _check_subtraction(other, input)
    alpha = plain_number(alpha)
    if not isinstance(other, Tensor):
        return RsubBackward1.apply(input, other=_operand(other, "rsub"), alpha=alpha)
    return RsubBackward0.apply(input, other, alpha=alpha)


def mul(input, other, *, out=None):
    """``input * other``, broadcasting."""
    if out is not None:
        return write_out("mul", mul, out, input, other)
    if input.__class__ is not Tensor:  # (as in add)
        input = _operand(input, "mul")
    if other.__class__ not in _OPERAND_TYPES:
        other = _operand(other, "mul")
    return MulBackward0.apply(input, other)


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``: true division, or rounded with ``rounding_mode='floor'``/``'trunc'``.

    Rounded quotients are piecewise constant, so their gradient is zero; integer inputs stay integer.
    """
    if out is not None:
        return write_out("div", div, out, input, other, rounding_mode=rounding_mode)
    if rounding_mode is None:
        if not isinstance(input, Tensor):  # number / tensor, recorded as PyTorch records it
            return mul(reciprocal(other), input)
        return DivBackward0.apply(input, _operand(other, "div"))
    if rounding_mode not in ("floor", "trunc"):
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    input, other = _operand(input, "div"), _operand(other, "div")
    target = backend.result_type(input, other)
    if target.is_floating_point:
        return DivBackward2.apply(input, other, rounding_mode=rounding_mode)
    _check_integer_divisor(f"div_{rounding_mode}", target, input, other)
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    xp = backend.namespace_of(a if hasattr(a, "dtype") else b)
    out = xp.floor_divide(a, b)
    if rounding_mode == "trunc":  # (exact: a true division would round int64 values beyond 2**53)
        out = out + ((out * b != a) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0)))
    return Tensor._make(xp.asarray(out).astype(target.np_dtype))


def _check_integer_divisor(kernel: str, target, input, other) -> None:
    """PyTorch's errors for an integer division (``//``, ``%``, rounded ``div``) that has no answer: a zero
    divisor (floats give inf or nan instead), or two bool tensors."""
    if target is backend.bool_:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'Bool\' [autograd_lab] {kernel.split("_")[0]} '
                                  "of two bool tensors: convert them first, e.g. a.long()")
    divisor = other._data if isinstance(other, Tensor) else other
    if isinstance(input, Tensor) and input._data.size == 0:
        return  # (an empty quotient: nothing is divided)
    if (divisor == 0).any() if hasattr(divisor, "dtype") else divisor == 0:
        where = "" if not hasattr(divisor, "dtype") else f" (the divisor, of shape {tuple(divisor.shape)}, holds a 0)"
        raise RuntimeError(f"ZeroDivisionError [autograd_lab] integer division by zero in {kernel.split('_')[0]}"
                           f"{where}: it has no integer result; divide floats (x.double()) to get inf or nan")


def reciprocal(input):
    return ReciprocalBackward0.apply(input)


def neg(input):
    if isinstance(input, Tensor) and input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
                           "a mask, use the `~` or `logical_not()` operator instead.")
    return NegBackward0.apply(input)


def _int_power(xp, base, exponent):
    """Integer powers as PyTorch computes them where an exponent is negative (NumPy raises): the
    truncated reciprocal, 0 except for bases 1 (1) and -1 (+-1 by parity)."""
    if not (exponent < 0).any():
        return base ** exponent
    result = base ** xp.where(exponent < 0, 0, exponent)
    inverse = xp.where(base == 1, 1, xp.where(base == -1, xp.where(exponent % 2 == 0, 1, -1), 0))
    return xp.where(exponent < 0, inverse, result).astype(result.dtype, copy=False)


def pow(input, exponent):
    """``input ** exponent``: either may be a tensor."""
    if not isinstance(input, Tensor):
        return PowBackward2.apply(exponent, self=_operand(input, "pow"))
    exponent = _operand(exponent, "pow")  # (a NumPy array becomes a tensor)
    if isinstance(exponent, Tensor):
        return PowBackward1.apply(input, exponent)
    if input._data.dtype.kind == "b":  # a bool base counts as an int64 (NumPy would pick int8)
        input = input.to(backend.result_type(input, exponent))
    if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "iu":
        raise RuntimeError("Integers to negative integer powers are not allowed. [autograd_lab] pow: make the "
                           f"{input.dtype} tensor floating point first (x.double() ** {exponent})")
    if isinstance(exponent, float) and not input.is_floating_point():
        input = input.to(backend.get_default_dtype())
    return PowBackward0.apply(input, exponent=exponent)


def square(input):
    return pow(input, 2)


def remainder(input, other):
    input, other = _operand(input, "remainder"), _operand(other, "remainder")
    target = backend.result_type(input, other)
    if not target.is_floating_point:
        _check_integer_divisor("remainder", target, input, other)
    if isinstance(other, Tensor):
        return RemainderBackward1.apply(input, other)
    if input.dtype != target:  # (an integer tensor and a float: the result is of the default float dtype)
        input = input.to(target)
    return RemainderBackward0.apply(input, other=other)


def fmod(input, other):
    """C's ``fmod``: the remainder of the division rounded toward zero, with the sign of ``input`` (``remainder``,
    Python's ``%``, rounds toward minus infinity and takes the sign of ``other``)."""
    input, other = _operand(input, "fmod"), _operand(other, "fmod")
    target = backend.result_type(input, other)
    if not target.is_floating_point:
        _check_integer_divisor("fmod", target, input, other)
    if isinstance(other, Tensor):
        return FmodBackward1.apply(input, other)
    if input.dtype != target:  # (an integer tensor and a float: the result is of the default float dtype)
        input = input.to(target)
    return FmodBackward0.apply(input, other=other)


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def _bind() -> None:
    """Tensor methods and operators for this family."""
    def reflected(fn):
        return lambda self, other: fn(other, self)

    methods = dict(
        add=add, sub=sub, mul=mul, div=div, true_divide=div, reciprocal=reciprocal, neg=neg, pow=pow,
        remainder=remainder, fmod=fmod, square=square, floor_divide=floor_divide, multiply=mul, subtract=sub, divide=div,
        negative=neg,
        __add__=add, __radd__=add, __sub__=sub, __rsub__=rsub, __mul__=mul, __rmul__=mul,
        __truediv__=div, __rtruediv__=reflected(div), __pow__=pow, __rpow__=reflected(pow),
        __mod__=remainder, __rmod__=reflected(remainder), __floordiv__=floor_divide,
        __rfloordiv__=reflected(floor_divide), __neg__=neg, __pos__=lambda self: self,
    )
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


_bind()
