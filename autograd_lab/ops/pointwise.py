"""Pointwise ops: arithmetic, unary functions, clamping, selection; comparisons (no gradient).

Every binary op broadcasts; its derivatives are written for the broadcast shape and the engine sums
them back to each input's shape. Python numbers may appear as operands: their ``next_functions``
entry is ``(None, 0)``, as in PyTorch.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from ._op import Op, OpError, _broadcast_message

_OPERAND_TYPES = frozenset((Tensor, bool, int, float))  # taken as they are (one set lookup on the per-op path)


def _operand(x, op: str):
    """A Tensor or Python number; NumPy values become one of these; anything else is a TypeError."""
    if x.__class__ in _OPERAND_TYPES or isinstance(x, (Tensor, bool, int, float)):
        return x
    if isinstance(x, backend.np.generic):
        return x.item()
    if isinstance(x, backend.np.ndarray):
        return Tensor._make(x)
    raise TypeError(f"{op}(): unsupported operand type {type(x).__name__}; expected a Tensor or a Python number")


# -- arithmetic ---------------------------------------------------------------------------------
class AddBackward0(Op):
    """out = self + alpha * other"""
    array_safe = True
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, other, *, alpha=1):
        return self + other if alpha == 1 else self + alpha * other

    def d_self(grad, alpha):
        return grad

    def d_other(grad, alpha):
        return grad if alpha == 1 else grad * alpha


class SubBackward0(Op):
    """out = self - alpha * other"""
    array_safe = True
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, other, *, alpha=1):
        return self - other if alpha == 1 else self - alpha * other

    def d_self(grad, alpha):
        return grad

    def d_other(grad, alpha):
        return -grad if alpha == 1 else grad * -alpha


class RsubBackward1(Op):
    """out = other - alpha * self, for ``number - tensor``"""
    array_safe = True
    saves = ("alpha",)
    promotes = True

    def forward(xp, self, *, other, alpha=1):
        return other - self if alpha == 1 else other - alpha * self

    def d_self(grad, alpha):
        return -grad if alpha == 1 else grad * -alpha


class MulBackward0(Op):
    """out = self * other"""
    array_safe = True
    saves = ("self", "other")
    promotes = True

    def forward(xp, self, other):
        return self * other

    def d_self(grad, self, other):
        return grad * other

    def d_other(grad, self, other):
        return grad * self


class DivBackward0(Op):
    """out = self / other (true division: integers give floats)"""
    array_safe = True
    saves = ("self", "other")
    promotes = "float"

    def forward(xp, self, other):
        return self / other

    def d_self(grad, self, other):
        return grad / other

    def d_other(grad, self, other):
        return -grad * self / (other * other)


class DivBackward2(Op):
    """out = self / other rounded with ``rounding_mode`` ('floor' or 'trunc'): piecewise constant"""
    array_safe = True
    saves = ("rounding_mode",)
    promotes = True

    def forward(xp, self, other, *, rounding_mode):
        quotient = xp.true_divide(self, other)
        out = xp.floor(quotient) if rounding_mode == "floor" else xp.trunc(quotient)
        return xp.asarray(out).astype(xp.result_type(self, other))

    def d_self(grad, rounding_mode):
        return grad * 0  # zero where defined; keeps NaN/inf where the incoming gradient has them

    def d_other(grad, rounding_mode):
        return grad * 0


class ReciprocalBackward0(Op):
    """out = 1 / self"""
    array_safe = True
    saves = ("result",)
    promotes = "float"

    def forward(xp, self):
        return 1 / self

    def d_self(grad, result):
        return -grad * result * result


class NegBackward0(Op):
    """out = -self"""
    array_safe = True

    def forward(xp, self):
        return -self

    def d_self(grad):
        return -grad


class PowBackward0(Op):
    """out = self ** exponent, exponent a number"""
    array_safe = True
    saves = ("exponent", "self")

    def forward(xp, self, *, exponent):
        return self ** exponent

    def d_self(grad, exponent, self):
        if exponent == 0:
            return grad * 0
        return grad * exponent * self ** (exponent - 1)


class PowBackward1(Op):
    """out = self ** exponent, both tensors"""
    saves = ("self", "exponent", "result")
    promotes = True

    def forward(xp, self, exponent):
        if exponent.dtype.kind in "iu" and self.dtype.kind in "iu":
            return _int_power(xp, self, exponent)
        return self ** exponent

    def d_self(grad, self, exponent, result):
        return where(exponent == 0, 0.0, grad * exponent * self ** (exponent - 1))

    def d_exponent(grad, self, exponent, result):
        return where((self == 0) & (exponent >= 0), 0.0, grad * result * log(self))


class PowBackward2(Op):
    """out = self ** exponent, self a number and exponent a tensor"""
    saves = ("exponent", "result", "self")

    def forward(xp, exponent, *, self):
        base = xp.asarray(self, dtype=exponent.dtype)
        return _int_power(xp, base, exponent) if exponent.dtype.kind in "iu" else base ** exponent

    def d_exponent(grad, exponent, result, self):
        if self == 0:
            return where(exponent >= 0, 0.0, grad * result * float("-inf"))
        return grad * result * float(backend.np.log(self))


class RemainderBackward0(Op):
    """out = self - floor(self / other) * other (Python's %)"""
    saves = ("self", "other")
    promotes = True

    def forward(xp, self, other):
        return xp.remainder(self, other)

    def d_self(grad, self, other):
        return grad

    def d_other(grad, self, other):
        return -grad * (self / other).floor()


# -- unary functions ----------------------------------------------------------------------------
class AbsBackward0(Op):
    saves = ("self",)

    def forward(xp, self):
        return xp.abs(self)

    def d_self(grad, self):
        return grad * self.sign()


class ExpBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        return xp.exp(self)

    def d_self(grad, result):
        return grad * result


class LogBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("self",)

    def forward(xp, self):
        return xp.log(self)

    def d_self(grad, self):
        return grad / self


class Log1PBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("self",)

    def forward(xp, self):
        return xp.log1p(self)

    def d_self(grad, self):
        return grad / (self + 1)


class SqrtBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        return xp.sqrt(self)

    def d_self(grad, result):
        return grad / (2 * result)


class RsqrtBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        return 1 / xp.sqrt(self)

    def d_self(grad, result):
        return -0.5 * grad * result ** 3


class SinBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    saves = ("self",)

    def forward(xp, self):
        return xp.sin(self)

    def d_self(grad, self):
        return grad * self.cos()


class CosBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    saves = ("self",)

    def forward(xp, self):
        return xp.cos(self)

    def d_self(grad, self):
        return grad * -self.sin()


class TanBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        return xp.tan(self)

    def d_self(grad, result):
        return grad * (1 + result * result)


class TanhBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        return xp.tanh(self)

    def d_self(grad, result):
        return grad * (1 - result * result)


class SigmoidBackward0(Op):
    promotes = "float"  # integer inputs give the default float dtype, as in PyTorch
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        # exp of a negative number only: no overflow for large |x|
        e = xp.exp(-xp.abs(self))
        return xp.where(self >= 0, 1 / (1 + e), e / (1 + e)).astype(self.dtype, copy=False)

    def d_self(grad, result):
        return grad * result * (1 - result)


class ReluBackward0(Op):
    array_safe = True
    saves = ("result",)

    def forward(xp, self):
        dtype = self.dtype
        if dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
        # Against an array of zeros, written into it, not against the scalar 0: NumPy's maximum has a vector
        # loop for two arrays only, and element by element a float32 layer's relu took 4x as long
        # (benchmarks/NOTES.md, item 31). The zeros take the input's layout (a transposed input gives a
        # transposed result, as the scalar form and PyTorch give); calloc's zeros where that is row-major.
        # The zeros come first: where the two are equal, maximum gives its second operand, so -0.0 stays
        # -0.0, as PyTorch's relu keeps it.
        out = xp.zeros(self.shape, dtype) if self.flags.c_contiguous else xp.zeros_like(self)
        return xp.maximum(out, self, out=out)

    def d_self(grad, result):
        return grad * (result > 0)


class SignBackward0(Op):
    """sign(x) is piecewise constant: its gradient is zero everywhere it exists"""
    array_safe = True

    def forward(xp, self):
        return xp.sign(self)

    def d_self(grad):
        return grad * 0


class _Rounding(Op):
    """floor/ceil/round/trunc: piecewise constant, zero gradient"""
    array_safe = True

    def d_self(grad):
        return grad * 0


class FloorBackward0(_Rounding):
    def forward(xp, self):
        return xp.floor(self)


class CeilBackward0(_Rounding):
    def forward(xp, self):
        return xp.ceil(self)


class RoundBackward0(_Rounding):
    def forward(xp, self):
        return xp.round(self)


class TruncBackward0(_Rounding):
    def forward(xp, self):
        return xp.trunc(self)


class ClampBackward1(Op):
    """out = min(max(self, min), max), bounds numbers (either may be None)"""
    array_safe = True
    saves = ("max", "min", "self")

    def forward(xp, self, *, min, max):
        return xp.clip(self, min, max).astype(self.dtype, copy=False)

    def d_self(grad, max, min, self):
        if min is None:
            return grad * (self <= max)
        if max is None:
            return grad * (self >= min)
        return grad * ((self >= min) & (self <= max))


class ClampBackward0(Op):
    """out = min(max(self, min), max), bounds tensors (either may be None)"""
    saves = ("max", "min", "self")
    promotes = True

    def forward(xp, self, min, max):
        out = self if min is None else xp.maximum(self, min)
        return out if max is None else xp.minimum(out, max)

    def d_self(grad, max, min, self):
        mask = True
        if min is not None:
            mask = self >= min
        if max is not None:
            mask = (self <= max) if min is None else mask & (self <= max)
        return grad * mask

    def d_min(grad, max, min, self):  # where min > max the output is max: min gets nothing
        return grad * (self < min) if max is None else grad * ((self < min) & (min < max))

    def d_max(grad, max, min, self):
        return grad * (self > max) if min is None else grad * ((self > max) | (max < min))


class MaximumBackward0(Op):
    """out = max(self, other) elementwise; ties split the gradient in half"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.maximum(self, other)

    def d_self(grad, other, self):
        return grad * ((self > other) + (self == other) * 0.5)

    def d_other(grad, other, self):
        return grad * ((other > self) + (self == other) * 0.5)


class MinimumBackward0(Op):
    """out = min(self, other) elementwise; ties split the gradient in half"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.minimum(self, other)

    def d_self(grad, other, self):
        return grad * ((self < other) + (self == other) * 0.5)

    def d_other(grad, other, self):
        return grad * ((other < self) + (self == other) * 0.5)


class WhereBackward0(Op):
    """out = self where condition else other"""
    saves = ("condition",)

    def forward(xp, condition, self, other, *, dtype):
        return xp.where(condition, self, other).astype(dtype, copy=False)

    def d_condition(grad, condition):
        return None

    def d_self(grad, condition):
        return where(condition, grad, 0.0)

    def d_other(grad, condition):
        return where(condition, 0.0, grad)


class ToCopyBackward0(Op):
    """out = self converted to another dtype and/or copied to another device (the gradient goes back)"""
    saves = ("source",)

    def forward(xp, self, *, dtype=None, device=None, source=None):
        out = self if dtype is None else self.astype(dtype)
        return out if device is None else backend.move(out, device)

    def d_self(grad, source):
        return grad if source is None else grad.to(source)  # back to self's device; the engine casts the dtype


class CloneBackward0(Op):
    array_safe = True
    def forward(xp, self):
        return self.copy()

    def d_self(grad):
        return grad


# -- front-end functions ------------------------------------------------------------------------
def add(input, other, *, alpha=1):
    """``input + alpha * other``, broadcasting."""
    if input.__class__ is not Tensor:  # (the common case, a tensor plus a tensor or a number, checks nothing)
        input = _operand(input, "add")
    if other.__class__ not in _OPERAND_TYPES:
        other = _operand(other, "add")
    if alpha.__class__ is int and alpha == 1:  # the common case: no keyword (the node saves alpha's default, 1)
        return AddBackward0.apply(input, other)
    return AddBackward0.apply(input, other, alpha=alpha)


def sub(input, other, *, alpha=1):
    """``input - alpha * other``, broadcasting."""
    if not isinstance(input, Tensor):
        return RsubBackward1.apply(other, other=_operand(input, "sub"), alpha=alpha)
    return SubBackward0.apply(input, _operand(other, "sub"), alpha=alpha)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    if not isinstance(other, Tensor):
        return RsubBackward1.apply(input, other=_operand(other, "rsub"), alpha=alpha)
    return SubBackward0.apply(other, input, alpha=alpha)


def mul(input, other):
    """``input * other``, broadcasting."""
    if input.__class__ is not Tensor:  # (as in add)
        input = _operand(input, "mul")
    if other.__class__ not in _OPERAND_TYPES:
        other = _operand(other, "mul")
    return MulBackward0.apply(input, other)


def div(input, other, *, rounding_mode=None):
    """``input / other``: true division, or rounded with ``rounding_mode='floor'``/``'trunc'``.

    Rounded quotients are piecewise constant, so their gradient is zero; integer inputs stay integer.
    """
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
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    xp = backend.namespace_of(a if hasattr(a, "dtype") else b)
    out = xp.floor_divide(a, b) if rounding_mode == "floor" else xp.trunc(xp.true_divide(a, b))
    return Tensor._make(xp.asarray(out).astype(target.np_dtype))


def reciprocal(input):
    return ReciprocalBackward0.apply(input)


def neg(input):
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
    if isinstance(exponent, Tensor):
        return PowBackward1.apply(input, exponent)
    exponent = _operand(exponent, "pow")
    if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "iu":
        raise RuntimeError("Integers to negative integer powers are not allowed. [autograd_lab] pow: make the "
                           f"{input.dtype} tensor floating point first (x.double() ** {exponent})")
    if isinstance(exponent, float) and not input.is_floating_point():
        input = input.to(backend.get_default_dtype())
    return PowBackward0.apply(input, exponent=exponent)


def remainder(input, other):
    return RemainderBackward0.apply(_operand(input, "remainder"), _operand(other, "remainder"))


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def _unary(cls):
    def fn(input):
        return cls.apply(input)  # (looked up per call: the legacy layer may wrap Op.apply later)
    fn.__name__ = cls.__name__.replace("Backward0", "").lower()
    fn.__doc__ = f"Elementwise {fn.__name__}; its node is ``{cls.__name__}``."
    return fn


abs = _unary(AbsBackward0)  # noqa: A001 - mirrors torch.abs
exp = _unary(ExpBackward0)
log = _unary(LogBackward0)
log1p = _unary(Log1PBackward0)
sqrt = _unary(SqrtBackward0)
rsqrt = _unary(RsqrtBackward0)
sin = _unary(SinBackward0)
cos = _unary(CosBackward0)
tan = _unary(TanBackward0)
tanh = _unary(TanhBackward0)
sigmoid = _unary(SigmoidBackward0)
relu = _unary(ReluBackward0)
sign = _unary(SignBackward0)
floor = _unary(FloorBackward0)
ceil = _unary(CeilBackward0)
round = _unary(RoundBackward0)  # noqa: A001
trunc = _unary(TruncBackward0)


def square(input):
    return pow(input, 2)


def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]`` (numbers or tensors; either may be None)."""
    if min is None and max is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return ClampBackward0.apply(input, min, max)
    return ClampBackward1.apply(input, min=min, max=max)


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def maximum(input, other):
    return MaximumBackward0.apply(input, _operand(other, "maximum"))


def minimum(input, other):
    return MinimumBackward0.apply(input, _operand(other, "minimum"))


def where(condition, input, other):
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed for either)."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not {type(condition).__name__}")
    if condition.dtype is not backend.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype._legacy_name.removesuffix('Tensor')} [autograd_lab] make it one, "
                           "e.g. condition > 0 or condition.bool()")
    input, other = _operand(input, "where"), _operand(other, "where")
    dtype = backend.result_type(*(x for x in (input, other))).np_dtype
    return WhereBackward0.apply(condition, input, other, dtype=dtype)


def clone(input):
    return CloneBackward0.apply(input)


# -- comparisons and logic (results are bool tensors with no history) ---------------------------
def _compare(name: str):
    def fn(input, other):
        if other is None:
            return NotImplemented  # t == None is False, as in PyTorch
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else _operand(other, name)
        xp = backend.namespace_of(a if hasattr(a, "dtype") else b)
        try:
            return Tensor._make(getattr(xp, name)(a, b))
        except ValueError as exc:
            shapes = [tuple(x._data.shape) for x in (input, other) if isinstance(x, Tensor)]
            if "broadcast" in str(exc) and len(shapes) == 2:
                raise OpError(_broadcast_message(fn.__name__, shapes)) from exc
            raise RuntimeError(f"{fn.__name__}: cannot compare tensors of shapes {shapes}: {exc}") from exc
    fn.__name__ = {"equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
                   "greater_equal": "ge", "logical_and": "logical_and", "logical_or": "logical_or",
                   "logical_xor": "logical_xor"}[name]
    return fn


eq = _compare("equal")
ne = _compare("not_equal")
lt = _compare("less")
le = _compare("less_equal")
gt = _compare("greater")
ge = _compare("greater_equal")
logical_and = _compare("logical_and")
logical_or = _compare("logical_or")
logical_xor = _compare("logical_xor")


def logical_not(input):
    return Tensor._make(backend.namespace_of(input._data).logical_not(input._data))


def _bitwise(name: str):
    def fn(input, other):
        a, b = input._data, (other._data if isinstance(other, Tensor) else other)
        if input._data.dtype.kind == "f" or (isinstance(other, Tensor) and other._data.dtype.kind == "f"):
            raise TypeError(f"{name} is only supported for integer and boolean tensors, got {input.dtype!r}")
        return Tensor._make(getattr(backend.namespace_of(a), name)(a, b))
    return fn


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")


def isnan(input):
    return Tensor._make(backend.namespace_of(input._data).isnan(input._data))


def isinf(input):
    return Tensor._make(backend.namespace_of(input._data).isinf(input._data))


def isfinite(input):
    return Tensor._make(backend.namespace_of(input._data).isfinite(input._data))


def _bind() -> None:
    """Tensor methods and operators for this family."""
    def reflected(fn):
        return lambda self, other: fn(other, self)

    methods = dict(
        add=add, sub=sub, mul=mul, div=div, true_divide=div, reciprocal=reciprocal, neg=neg, pow=pow,
        remainder=remainder, abs=abs, exp=exp, log=log, log1p=log1p, sqrt=sqrt, rsqrt=rsqrt, sin=sin,
        cos=cos, tan=tan, tanh=tanh, sigmoid=sigmoid, relu=relu, sign=sign, floor=floor, ceil=ceil,
        round=round, trunc=trunc, square=square, clamp=clamp, clip=clip, clamp_min=clamp_min,
        clamp_max=clamp_max, maximum=maximum, minimum=minimum, clone=clone, eq=eq, ne=ne, lt=lt, le=le,
        gt=gt, ge=ge, logical_and=logical_and, logical_or=logical_or, logical_xor=logical_xor,
        logical_not=logical_not, isnan=isnan, isinf=isinf, isfinite=isfinite, floor_divide=floor_divide,
        multiply=mul, subtract=sub, divide=div, negative=neg, greater=gt, less=lt,
        __add__=add, __radd__=add, __sub__=sub, __rsub__=rsub, __mul__=mul, __rmul__=mul,
        __truediv__=div, __rtruediv__=reflected(div), __pow__=pow, __rpow__=reflected(pow),
        __mod__=remainder, __rmod__=reflected(remainder), __floordiv__=floor_divide,
        __rfloordiv__=reflected(floor_divide), __neg__=neg, __abs__=abs, __pos__=lambda self: self,
        __eq__=eq, __ne__=ne, __lt__=lt, __le__=le, __gt__=gt, __ge__=ge,
        __and__=lambda a, b: logical_and(a, b) if a.dtype is backend.bool_ else bitwise_and(a, b),
        __or__=lambda a, b: logical_or(a, b) if a.dtype is backend.bool_ else bitwise_or(a, b),
        __xor__=lambda a, b: logical_xor(a, b) if a.dtype is backend.bool_ else bitwise_xor(a, b),
        __invert__=lambda a: logical_not(a) if a.dtype is backend.bool_ else
        Tensor._make(backend.namespace_of(a._data).invert(a._data)),
    )
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


_bind()
