"""More element-wise math: ``fmax``/``fmin`` (NaN-ignoring maximum and minimum), ``ldexp``, ``nextafter``, ``i0``,
``frexp`` (a gradient through the mantissa), and, with no gradient, ``gcd`` and ``lcm``; ``positive`` and ``fix``
(``trunc``'s other name). Methods and in-place forms as PyTorch has them."""

from __future__ import annotations

import math
from collections import namedtuple

from .. import backend
from ..tensor import Tensor
from . import formulas as F
from ._args import checked, type_name
from ._errors import no_kernel
from ._op import Op
from .inplace import _method
from .pointwise import trunc
from .pointwise_math import Exp2Backward0


class FmaxBackward0(Op):
    """out = the larger of self and other, the number where the other is NaN (NaN only where both are)"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.fmax(self, other)

    def d_self(grad, other, self):  # (ties and a NaN other: all to self, as PyTorch)
        return F.where((self >= other) | F.isnan(other), grad, 0.0)

    def d_other(grad, other, self):
        return F.where((self >= other) | F.isnan(other), 0.0, grad)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class FminBackward0(Op):
    """out = the smaller of self and other, the number where the other is NaN (NaN only where both are)"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.fmin(self, other)

    def d_self(grad, other, self):
        return F.where((self <= other) | F.isnan(other), grad, 0.0)

    def d_other(grad, other, self):
        return F.where((self <= other) | F.isnan(other), 0.0, grad)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class LdexpBackward0(Op):
    """out = self * 2 ** other"""
    saves = ("other", "result", "self")
    promotes = "float"

    def forward(xp, self, other):
        return self * xp.exp2(other)

    def d_self(grad, other):
        return grad * 2.0 ** other

    def d_other(grad, result):
        return grad * result * math.log(2)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class FrexpBackward0(Op):
    """(mantissa, exponent) = frexp(self), self = mantissa * 2 ** exponent; the int32 exponent has no gradient"""
    outputs = ("mantissa", "exponent")
    non_differentiable = ("exponent",)
    saves = ("exponent",)

    def forward(xp, self):
        mantissa, exponent = xp.frexp(self)
        return mantissa, exponent.astype("int32", copy=False)

    def d_self(grads, exponent):
        return None if grads[0] is None else grads[0] / F.cast_like(F.call(Exp2Backward0, exponent), grads[0])

    def f_self(tangent, exponent):
        return tangent / F.cast_like(F.call(Exp2Backward0, exponent), tangent), None


class NextafterBackward0(Op):
    """out = the next number after self towards other (the gradient is PyTorch's: to self where self != other)"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.nextafter(self, other)

    def d_self(grad, other, self):
        return F.where(self == other, 0.0, grad)

    def d_other(grad):
        return F.zeros_like(grad)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


def _i1(xp, x):
    """The modified Bessel function of the first kind of order 1, in float64: its power series up to |x| = 30, where
    every term is positive (so the sum loses no digits), and its asymptotic series beyond (error below e^-60)."""
    x = x.astype("float64")
    size = xp.abs(x)
    half = xp.minimum(size, 30.0) / 2
    term = half.copy()
    total = half.copy()
    for k in range(1, 100):  # (x/2)^(2k+1) / (k! (k+1)!), each from the last
        term = term * half * half / (k * (k + 1))
        total = total + term
    big = xp.maximum(size, 30.0)
    coefficient, series = xp.ones_like(big), xp.ones_like(big)
    for k in range(1, 30):  # e^x / sqrt(2 pi x) * sum of (-1)^k prod_j (4 - (2j-1)^2) / (k! (8x)^k)
        coefficient = coefficient * -(4 - (2 * k - 1) ** 2) / (k * 8 * big)
        series = series + coefficient
    with backend.np.errstate(over="ignore"):
        asymptotic = xp.exp(big) / xp.sqrt(2 * math.pi * big) * series
    return xp.sign(x) * xp.where(size <= 30, total, asymptotic)


class I0Backward0(Op):
    """out = I0(self), the modified Bessel function of the first kind of order 0"""
    saves = ("self",)
    promotes = "float"

    def forward(xp, self):
        with backend.np.errstate(all="ignore"):  # (NaN at infinities, as PyTorch's; inf past e^709)
            return xp.i0(self).astype(self.dtype, copy=False)

    def d_self(grad, self):
        return grad * F.call(SpecialI1Backward0, self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SpecialI1Backward0(Op):
    """out = I1(self), the modified Bessel function of the first kind of order 1 (the derivative of I0)"""
    saves = ("result", "self")
    promotes = "float"

    def forward(xp, self):
        return _i1(xp, self).astype(self.dtype, copy=False)

    def d_self(grad, result, self):  # I1' = I0 - I1 / x, which tends to 1/2 at 0
        tiny = F.abs(self) <= backend.np.finfo(backend.np.float32).eps
        safe = F.where(tiny, 1.0, self)
        return grad * F.where(tiny, 0.5, F.call(I0Backward0, self) - result / safe)

    f_self = d_self  # element-wise: the forward derivative is the backward one


# -- front-end functions ------------------------------------------------------------------------
def _tensor_other(name: str, other) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type_name(other)}")
    return other


@checked
def fmax(input, other):
    """The element-wise maximum, where a NaN loses to a number (``maximum`` would give NaN); broadcasting."""
    return FmaxBackward0.apply(input, _tensor_other("fmax", other))


@checked
def fmin(input, other):
    """The element-wise minimum, where a NaN loses to a number (``minimum`` would give NaN); broadcasting."""
    return FminBackward0.apply(input, _tensor_other("fmin", other))


@checked
def ldexp(input, other):
    """``input * 2 ** other``: builds numbers from mantissas and exponents (the result is floating)."""
    other = _tensor_other("ldexp", other)
    if other.dtype is backend.bool_ and input.dtype.is_floating_point:  # (PyTorch's kernel for a floating input has
        # no bool exponents; an integer or bool input goes through floats first, and its bool exponents with it)
        raise no_kernel("ldexp_cpu_exp", other.dtype, "the exponents are numbers: convert them first, e.g. "
                        "other.long()")
    return LdexpBackward0.apply(input, other)


@checked
def nextafter(input, other):
    """The next representable number after ``input`` in the direction of ``other``, element-wise."""
    other = _tensor_other("nextafter", other)
    dtype = backend.result_type(input, other)
    if not dtype.is_floating_point:
        raise no_kernel("nextafter_cpu", dtype, "nextafter steps between floating-point numbers: convert first, e.g. "
                        "x.double()")
    return NextafterBackward0.apply(input, other)


def _integers(name: str, kernel: str, input, other):
    """The arrays of two integer tensors (or a tensor and an int), promoted as PyTorch promotes them."""
    if not isinstance(other, Tensor):
        if isinstance(other, bool) or not isinstance(other, int):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type_name(other)}")
        other = Tensor._make(backend.np.asarray(other, dtype=input._data.dtype))
    dtype = backend.result_type(input, other)
    if dtype.is_floating_point or dtype is backend.bool_:
        raise no_kernel(kernel, dtype, f"{name} is for integer tensors: convert first, e.g. x.long()")
    return input._data.astype(dtype.np_dtype, copy=False), other._data.astype(dtype.np_dtype, copy=False)


@checked
def gcd(input, other):
    """The greatest common divisor of each pair of integers (non-negative; 0 for two zeros). No gradient."""
    a, b = _integers("gcd", "gcd_cpu", input, other)
    return Tensor._make(backend.namespace_of(a).gcd(a, b))


@checked
def lcm(input, other):
    """The least common multiple of each pair of integers (non-negative; 0 if one is 0). No gradient."""
    a, b = _integers("lcm", "lcm_cpu", input, other)
    return Tensor._make(backend.namespace_of(a).lcm(a, b))


frexp_result = namedtuple("frexp", ["mantissa", "exponent"])


@checked
def frexp(input):
    """Split each number into a mantissa in [0.5, 1) (signed) and an int32 exponent: ``input = mantissa * 2 **
    exponent``. The gradient flows through the mantissa (``grad / 2 ** exponent``), as in PyTorch."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes [autograd_lab] convert first, e.g. "
                           "x.float()")
    return frexp_result(*FrexpBackward0.apply(input))


@checked
def positive(input):
    """``input`` itself (``+input``); an error for a bool tensor, as in PyTorch."""
    if input.dtype is backend.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported. [autograd_lab] a bool tensor has no "
                           "sign; convert it first, e.g. x.long()")
    return input


@checked
def i0(input):
    """The modified Bessel function of the first kind of order 0, element-wise (integers give floats)."""
    return I0Backward0.apply(input)


fix = trunc

_FUNCTIONS = dict(fmax=fmax, fmin=fmin, ldexp=ldexp, nextafter=nextafter, gcd=gcd, lcm=lcm, frexp=frexp,
                  positive=positive, fix=fix, i0=i0)
_INPLACE = ("ldexp", "nextafter", "gcd", "lcm", "fix", "i0")


def _bind() -> None:
    for name, fn in _FUNCTIONS.items():
        setattr(Tensor, name, fn)
    for name in _INPLACE:
        setattr(Tensor, name + "_", _method(name + "_", _FUNCTIONS[name]))


_bind()
