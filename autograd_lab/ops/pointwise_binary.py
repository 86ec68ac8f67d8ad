"""Pointwise math of several tensors: atan2, hypot, logaddexp(2), xlogy, copysign, float_power, lerp, addcmul, addcdiv,
heaviside (no gradient).

They broadcast and promote as the arithmetic ops do (:mod:`.arithmetic`); one-tensor math is in
:mod:`.pointwise_math`.
"""

from __future__ import annotations

import math

from .. import backend
from ..tensor import Tensor
from . import formulas as F
from . import special
from ._args import checked
from ._errors import no_kernel
from ._op import Op
from .arithmetic import _operand, plain_number
from .arithmetic import pow as _pow
from .inplace import _method


def _no_integers(cls_name: str, kernel: str, *inputs) -> None:
    """PyTorch's error for an op with floating-point kernels only, where the inputs promote to an integer dtype (NumPy
    would compute one)."""
    if backend.result_type(*inputs).is_floating_point:
        return
    for x in inputs:
        if isinstance(x, Tensor):
            raise no_kernel(kernel, x.dtype, f"{cls_name} is for floating-point tensors: convert first, e.g. x.double()")


def _reciprocal_norm(self, other):
    """1 / (self^2 + other^2), 0 where that is infinite (PyTorch's atan2 gradient is 0 at the origin)."""
    recip = 1 / (self * self + other * other)
    return F.where(recip == float("inf"), 0.0, recip)


class Atan2Backward0(Op):
    saves = ("other", "self")
    promotes = "float"

    def forward(xp, self, other):
        return xp.arctan2(self, other)

    def d_self(grad, other, self):
        return grad * other * _reciprocal_norm(self, other)

    def d_other(grad, other, self):
        return grad * -self * _reciprocal_norm(self, other)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class HypotBackward0(Op):
    saves = ("other", "result", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.hypot(self, other)

    def d_self(grad, result, self):
        return grad * self / result

    def d_other(grad, other, result):
        return grad * other / result

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class LogaddexpBackward0(Op):
    """out = log(exp(self) + exp(other)), without overflow"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):  # (PyTorch's kernel, to the last bit more often than NumPy's logaddexp)
        same_infinity = xp.isinf(self) & (self == other)
        out = xp.maximum(self, other) + xp.log1p(xp.exp(-xp.abs(self - other)))
        return xp.where(same_infinity, self, out)

    def d_self(grad, other, self):
        return grad / (1 + F.exp(other - self))

    def d_other(grad, other, self):
        return grad / (1 + F.exp(self - other))

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class Logaddexp2Backward0(Op):
    """out = log2(2^self + 2^other), without overflow"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        same_infinity = xp.isinf(self) & (self == other)
        out = xp.maximum(self, other) + xp.log1p(xp.exp2(-xp.abs(self - other))) * (1 / math.log(2))
        return xp.where(same_infinity, self, out)

    def d_self(grad, other, self):
        return grad / (1 + 2.0 ** (other - self))

    def d_other(grad, other, self):
        return grad / (1 + 2.0 ** (self - other))

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class XlogyBackward0(Op):
    """out = self * log(other), 0 where self is 0 (unless other is NaN)"""
    saves = ("other", "self")
    promotes = "float"

    def forward(xp, self, other):
        return special.xlogy(xp, self, other)

    def d_self(grad, other, self):
        return _d_xlogy_self(grad, self, other)

    def d_other(grad, other, self):
        return grad * self / other

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


def _d_xlogy_self(grad, self, other):
    """The derivative of self * log(other) for self: grad * log(other), except 0 where self is 0 and other <= 0,
    where log(other) is not a number (PyTorch's formula, in its derivatives.yaml)."""
    return F.where((self == 0) & (other <= 0), 0.0, F.xlogy(grad, other))


class XlogyBackward1(Op):
    """out = self * log(other), self a number"""
    saves = ("other", "self")

    def forward(xp, other, *, self):
        return special.xlogy(xp, xp.asarray(self, dtype=other.dtype), other)

    def d_other(grad, other, self):
        return grad * self / other

    f_other = d_other  # element-wise: the forward derivative is the backward one


class XlogyBackward2(Op):
    """out = self * log(other), other a number"""
    saves = ("other", "self")

    def forward(xp, self, *, other):
        return special.xlogy(xp, self, xp.asarray(other, dtype=self.dtype))

    def d_self(grad, other, self):
        return _d_xlogy_self(grad, self, F.zeros_like(grad) + other)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class CopysignBackward0(Op):
    """out = abs(self) with the sign of other"""
    saves = ("result", "self")
    promotes = "float"

    def forward(xp, self, other):
        return xp.copysign(self, other)

    def d_self(grad, result, self):
        return grad * F.where(self == 0, 0.0, result / self)

    def d_other(grad):
        return F.zeros_like(grad)

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class CopysignBackward1(Op):
    """out = abs(self) with the sign of other, a number"""
    saves = ("result", "self")

    def forward(xp, self, *, other):
        return xp.copysign(self, xp.asarray(other, dtype=self.dtype))

    d_self = f_self = CopysignBackward0.d_self


def _lerp(xp, self, end, weight):
    """PyTorch's lerp kernel: from the nearer end, so that weight 1 gives ``end`` exactly."""
    return xp.where(xp.abs(weight) < 0.5, self + weight * (end - self), end - (end - self) * (1 - weight))


class LerpBackward0(Op):
    """out = self + weight * (end - self), weight a number"""
    saves = ("weight",)

    def forward(xp, self, end, *, weight):
        return _lerp(xp, self, end, weight).astype(self.dtype, copy=False)

    def d_self(grad, weight):
        return grad * (1 - weight)

    def d_end(grad, weight):
        return grad * weight

    f_self, f_end = d_self, d_end  # element-wise: the forward derivatives are the backward ones


class LerpBackward1(Op):
    """out = self + weight * (end - self), weight a tensor"""
    saves = ("end", "self", "weight")

    def forward(xp, self, end, weight):
        return _lerp(xp, self, end, weight)

    def d_self(grad, weight):
        return grad * (1 - weight)

    def d_end(grad, weight):
        return grad * weight

    def d_weight(grad, end, self):
        return grad * (end - self)

    f_self, f_end, f_weight = d_self, d_end, d_weight  # element-wise: the forward derivatives are the backward ones


class AddcmulBackward0(Op):
    """out = self + value * tensor1 * tensor2"""
    saves = ("tensor1", "tensor2", "value")
    promotes = True

    def forward(xp, self, tensor1, tensor2, *, value=1):
        return self + value * tensor1 * tensor2

    def d_self(grad):
        return grad

    def d_tensor1(grad, tensor2, value):
        return grad * tensor2 * value

    def d_tensor2(grad, tensor1, value):
        return grad * tensor1 * value

    f_self, f_tensor1, f_tensor2 = d_self, d_tensor1, d_tensor2  # element-wise: as the backward ones


class AddcdivBackward0(Op):
    """out = self + value * tensor1 / tensor2"""
    saves = ("tensor1", "tensor2", "value")
    promotes = True

    def forward(xp, self, tensor1, tensor2, *, value=1):
        return self + value * tensor1 / tensor2

    def d_self(grad):
        return grad

    def d_tensor1(grad, tensor2, value):
        return grad * value / tensor2

    def d_tensor2(grad, tensor1, tensor2, value):
        return -grad * value * tensor1 / (tensor2 * tensor2)

    f_self, f_tensor1, f_tensor2 = d_self, d_tensor1, d_tensor2  # element-wise: as the backward ones


# -- front-end functions ------------------------------------------------------------------------
def _binary(cls, name: str, kernel: str | None = None):
    def fn(input, other):
        other = _operand(other, name)
        if kernel is not None:
            _no_integers(name, kernel, input, other)
        return cls.apply(input, other)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, broadcasting, as ``torch.{name}``; its node is ``{cls.__name__}``."
    return checked(fn)


atan2 = _binary(Atan2Backward0, "atan2")
hypot = _binary(HypotBackward0, "hypot", "hypot_cpu")
logaddexp = _binary(LogaddexpBackward0, "logaddexp", "logaddexp_cpu")
logaddexp2 = _binary(Logaddexp2Backward0, "logaddexp2", "logaddexp2_cpu")


@checked(kinds={"input": "Tensor|Number"})
def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN); either may be a number."""
    input, other = _operand(input, "xlogy"), _operand(other, "xlogy")
    if not isinstance(input, Tensor):
        other = other if other.is_floating_point() else other.to(backend.get_default_dtype())
        return XlogyBackward1.apply(other, self=input)
    if not isinstance(other, Tensor):
        input = input if input.is_floating_point() else input.to(backend.get_default_dtype())
        return XlogyBackward2.apply(input, other=other)
    return XlogyBackward0.apply(input, other)


@checked
def copysign(input, other):
    """The magnitude of ``input`` with the sign of ``other`` (a tensor or a number), elementwise."""
    other = _operand(other, "copysign")
    if isinstance(other, Tensor):
        return CopysignBackward0.apply(input, other)
    input = input if input.is_floating_point() else input.to(backend.get_default_dtype())
    return CopysignBackward1.apply(input, other=other)


@checked(kinds={"input": "Tensor|Number"})
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (the result is float64 whatever the inputs), as ``pow`` records it."""
    input, exponent = (x.to(backend.float64) if isinstance(x, Tensor) else float(x) for x in (input, exponent))
    return _pow(input, exponent)


def _same_dtype(name: str, input, other, what: str) -> None:
    if isinstance(other, Tensor) and other.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {backend.kernel_type_name(input.dtype).lower()} for `{what}` but got dtype "
                           f"{backend.kernel_type_name(other.dtype).lower()} [autograd_lab] {name} takes tensors of one dtype: "
                           f"convert them first, e.g. {what}.to(input.dtype)")


@checked(kinds={"weight": "Tensor|Number"})
def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` a number or a tensor (all three broadcast)."""
    _same_dtype("lerp", input, end, "end")
    _same_dtype("lerp", input, weight, "weight")
    _no_integers("lerp", "lerp_kernel_scalar" if not isinstance(weight, Tensor) else "lerp_kernel_tensor", input)
    if isinstance(weight, Tensor):
        return LerpBackward1.apply(input, end, weight)
    return LerpBackward0.apply(input, end, weight=weight)


@checked
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``, broadcasting."""
    return AddcmulBackward0.apply(input, tensor1, tensor2, value=plain_number(value))


@checked
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``, broadcasting."""
    if not tensor1.is_floating_point() and not tensor2.is_floating_point():
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                           "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                           "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                           "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                           "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes. [autograd_lab] convert tensor1 or tensor2 to floats first")
    return AddcdivBackward0.apply(input, tensor1, tensor2, value=plain_number(value))


@checked
def heaviside(input, values):
    """The step function: 0 below 0, 1 above, ``values`` at 0. It records no gradient (PyTorch has no derivative)."""
    values = _operand(values, "heaviside")
    if values.dtype is not input.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes. [autograd_lab] convert "
                           "values first, e.g. values.to(input.dtype)")
    a, v = input._data, values._data
    xp = backend.namespace_of(a)
    return Tensor._make(xp.where(a == 0, v, a > 0).astype(a.dtype, copy=False))


_FUNCTIONS = dict(atan2=atan2, arctan2=atan2, hypot=hypot, logaddexp=logaddexp, logaddexp2=logaddexp2, xlogy=xlogy,
                  copysign=copysign, float_power=float_power, lerp=lerp, addcmul=addcmul, addcdiv=addcdiv,
                  heaviside=heaviside)
_INPLACE = ("atan2", "arctan2", "hypot", "xlogy", "copysign", "lerp", "addcmul", "addcdiv", "heaviside")
arctan2 = atan2


def _float_power_in_place(input, exponent):
    """float_power's values for ``float_power_``: only a float64 tensor can hold them (PyTorch's check)."""
    if input.dtype is not backend.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {backend.kernel_type_name(input.dtype)} but the "
                           "operation's result requires dtype Double [autograd_lab] convert it first: x = x.double()")
    return float_power(input, exponent)


def _bind() -> None:
    """Tensor methods for this family, and their in-place versions (the one in-place path of ops/inplace.py)."""
    for name, fn in _FUNCTIONS.items():
        setattr(Tensor, name, fn)
    for name in _INPLACE:
        setattr(Tensor, name + "_", _method(name + "_", _FUNCTIONS[name]))
    Tensor.float_power_ = _method("float_power_", _float_power_in_place)


_bind()
