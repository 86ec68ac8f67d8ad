"""Pointwise functions: exp, log, tanh, relu..., clamping, maximum/minimum, where, clone and ``to``.

Where a derivative is a mask (relu, clamp, maximum), it is written with ``where``, as PyTorch writes it:
an incoming NaN where the mask is off gives 0, not NaN (``grad * mask`` would give NaN there).
Arithmetic is in :mod:`.arithmetic`, comparisons (no gradient) in :mod:`.comparison`.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import arithmetic, formulas
from ._args import checked
from ._errors import no_kernel
from ._op import LINEAR, Op
from .activation_backward import ThresholdBackwardBackward0
from .out import write_out


def _no_bool(array, kernel: str) -> None:
    """PyTorch's error for an op with no bool kernel (NumPy would quietly compute one)."""
    if array.dtype.kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\' [autograd_lab] convert the tensor first: '
                                  "x.long() or x.float()")


class AbsBackward0(Op):
    saves = ("self",)

    def forward(xp, self):
        _no_bool(self, "abs_cpu")
        return xp.abs(self)

    def d_self(grad, self):
        return grad * formulas.sign(self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class _Floating(Op):
    """An op whose integer inputs give the default float dtype, as in PyTorch (exp, log, sqrt...)"""
    promotes = "float"


class ExpBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return xp.exp(self)

    def d_self(grad, result):
        return grad * result

    f_self = d_self  # element-wise: the forward derivative is the backward one


class LogBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.log(self)

    def d_self(grad, self):
        return grad / self

    f_self = d_self  # element-wise: the forward derivative is the backward one


class Log1PBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.log1p(self)

    def d_self(grad, self):
        return grad / (self + 1)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SqrtBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return xp.sqrt(self)

    def d_self(grad, result):
        return grad / (2 * result)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class RsqrtBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return 1 / xp.sqrt(self)

    def d_self(grad, result):
        return -0.5 * grad * result ** 3

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SinBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.sin(self)

    def d_self(grad, self):
        return grad * formulas.cos(self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class CosBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.cos(self)

    def d_self(grad, self):
        return grad * -formulas.sin(self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class TanBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return xp.tan(self)

    def d_self(grad, result):
        return grad * (1 + result * result)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class TanhBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return xp.tanh(self)

    def d_self(grad, result):
        return grad * (1 - result * result)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SigmoidBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        # exp of a negative number only: no overflow for large |x|
        e = xp.exp(-xp.abs(self))
        return xp.where(self >= 0, 1 / (1 + e), e / (1 + e)).astype(self.dtype, copy=False)

    def d_self(grad, result):
        return grad * result * (1 - result)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class ReluBackward0(Op):
    saves = ("result",)

    def forward(xp, self):
        dtype = self.dtype
        if dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
        # Against an array of zeros, written into it, not against the scalar 0: NumPy's maximum has a vector
        # loop for two arrays only, and element by element a float32 layer's relu took 4x as long
        # (benchmarks/NOTES.md, "what stayed"). The zeros take the input's layout (a transposed input gives a
        # transposed result, as the scalar form and PyTorch give); calloc's zeros where that is row-major.
        # The zeros come first: where the two are equal, maximum gives its second operand, so -0.0 stays
        # -0.0, as PyTorch's relu keeps it. (An expanded input, with zero strides, gives a row-major result, as in
        # PyTorch; NumPy's zeros_like would order its dims column-major.)
        row_major = self.flags.c_contiguous or 0 in self.strides
        out = xp.zeros(self.shape, dtype) if row_major else xp.zeros_like(self)
        return xp.maximum(out, self, out=out)

    def d_self(grad, result):  # PyTorch's threshold_backward: 0 where result <= 0, else grad
        return formulas.call(ThresholdBackwardBackward0, grad, result, threshold=0)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class _Constant(Op):
    """Piecewise constant (sign, floor, ceil, round, trunc): the gradient is zero wherever it exists"""

    def d_self(grad):
        return formulas.zeros_like(grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SignBackward0(_Constant):
    def forward(xp, self):
        return formulas.sign(self)  # PyTorch's: 0 at NaN


class FloorBackward0(_Constant):
    def forward(xp, self):
        _no_bool(self, "floor_vml_cpu")
        return xp.floor(self)


class CeilBackward0(_Constant):
    def forward(xp, self):
        _no_bool(self, "ceil_vml_cpu")
        return xp.ceil(self)


class RoundBackward0(_Constant):
    def forward(xp, self):
        _no_bool(self, "round_vml_cpu")
        return xp.round(self)


class RoundBackward1(_Constant):
    """round(decimals=d): each value to the nearest multiple of 10^-d (half to even, on the scaled value, as NumPy and
    PyTorch compute it); no integer kernel, as in PyTorch"""
    def forward(xp, self, *, decimals):
        if self.dtype.kind in "biu":
            kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
            raise no_kernel(kernel, backend.from_np(self.dtype), "round(decimals=...) takes floating values: x.float()")
        return xp.round(formulas.opmath(self), decimals).astype(self.dtype)  # (float16 scaled in float32, as PyTorch)


class TruncBackward0(_Constant):
    def forward(xp, self):
        _no_bool(self, "trunc_vml_cpu")
        return xp.trunc(self)


class ClampBackward1(Op):
    """out = min(max(self, min), max), bounds numbers (either may be None)"""
    saves = ("max", "min", "self")

    def forward(xp, self, *, min, max):  # the bound first: on a tie maximum/minimum give self (-0.0 stays), as PyTorch
        out = self if min is None else xp.maximum(min, self)
        return (out if max is None else xp.minimum(max, out)).astype(self.dtype, copy=False)

    def d_self(grad, max, min, self):
        inside = self <= max if min is None else self >= min if max is None else (self >= min) & (self <= max)
        return formulas.where(inside, grad, 0.0)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class ClampBackward0(Op):
    """out = min(max(self, min), max), bounds tensors (either may be None)"""
    saves = ("max", "min", "self")
    promotes = True

    def forward(xp, self, min, max):  # (the bound first, as in ClampBackward1)
        out = self if min is None else xp.maximum(min, self)
        return out if max is None else xp.minimum(max, out)

    def d_self(grad, max, min, self):
        inside = self <= max if min is None else self >= min if max is None else (self >= min) & (self <= max)
        return formulas.where(inside, grad, 0.0)

    def d_min(grad, max, min, self):  # where min > max the output is max: min gets nothing
        return formulas.where(self < min if max is None else (self < min) & (min < max), grad, 0.0)

    def d_max(grad, max, min, self):
        return formulas.where(self > max if min is None else (self > max) | (max < min), grad, 0.0)

    f_self, f_min, f_max = d_self, d_min, d_max  # element-wise: the forward derivatives are the backward ones


class MaximumBackward0(Op):
    """out = max(self, other) elementwise; ties split the gradient in half"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.maximum(self, other)

    def d_self(grad, other, self):
        return formulas.where(self == other, grad / 2, formulas.where(self < other, 0.0, grad))

    def d_other(grad, other, self):
        return formulas.where(self == other, grad / 2, formulas.where(self > other, 0.0, grad))

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class MinimumBackward0(Op):
    """out = min(self, other) elementwise; ties split the gradient in half"""
    saves = ("other", "self")
    promotes = True

    def forward(xp, self, other):
        return xp.minimum(self, other)

    def d_self(grad, other, self):
        return formulas.where(self == other, grad / 2, formulas.where(self > other, 0.0, grad))

    def d_other(grad, other, self):
        return formulas.where(self == other, grad / 2, formulas.where(self < other, 0.0, grad))

    f_self, f_other = d_self, d_other  # element-wise: the forward derivatives are the backward ones


class WhereBackward0(Op):
    """out = self where condition else other (the condition is no input: no gradient goes to it, and no edge)"""
    saves = ("condition",)
    tensor_params = ("condition",)

    def forward(xp, self, other, *, condition, dtype):
        return xp.where(condition, self, other).astype(dtype, copy=False)

    def d_self(grad, condition):
        return formulas.where(condition, grad, 0.0)

    def d_other(grad, condition):
        return formulas.where(condition, 0.0, grad)

    jvp = LINEAR  # the tangents chosen by the same condition


class ToCopyBackward0(Op):
    """out = self converted to another dtype and/or copied to another device (the gradient goes back)"""
    saves = ("source",)
    hidden_saves = ("source",)  # (PyTorch keeps it out of sight too)

    def forward(xp, self, *, dtype=None, device=None, source=None):
        out = self if dtype is None else self.astype(dtype)
        return out if device is None else backend.move(out, device)

    def d_self(grad, source):
        return formulas.to_device(grad, source)  # back to self's device; the engine casts the dtype

    jvp = LINEAR  # the tangent converted (and moved) the same way


class CloneBackward0(Op):
    def forward(xp, self):
        return self.copy()

    def d_self(grad):
        return grad

    jvp = LINEAR


# -- front-end functions ------------------------------------------------------------------------
def _unary(cls):
    def fn(input):
        return cls.apply(input)
    fn.__name__ = cls.__name__.replace("Backward0", "").lower()
    fn.__doc__ = f"Elementwise {fn.__name__}; its node is ``{cls.__name__}``."
    return fn


abs = _unary(AbsBackward0)  # noqa: A001 - mirrors torch.abs
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


def round(input, *, decimals=None):  # noqa: A001
    """Elementwise round to the nearest integer (half to even); its node is ``RoundBackward0``. With ``decimals``,
    to that many decimal places (negative: to tens, hundreds...), node ``RoundBackward1``."""
    if decimals is None:
        return RoundBackward0.apply(input)
    return RoundBackward1.apply(input, decimals=decimals)


trunc = _unary(TruncBackward0)


def exp(input, *, out=None):
    """Elementwise exp; its node is ``ExpBackward0``."""
    if out is not None:
        return write_out("exp", exp, out, input)
    return ExpBackward0.apply(input)


def log(input, *, out=None):
    """Elementwise natural log; its node is ``LogBackward0``."""
    if out is not None:
        return write_out("log", log, out, input)
    return LogBackward0.apply(input)


@checked
def clamp(input, min=None, max=None, *, out=None):
    """Limit values to ``[min, max]`` (numbers or tensors; either may be None)."""
    if out is not None:
        return write_out("clamp", clamp, out, input, min, max)
    if min is None and max is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return ClampBackward0.apply(input, min, max)
    input, min, max = _clamp_numbers(input, min, max)
    return ClampBackward1.apply(input, min=min, max=max)


def _clamp_numbers(input, min, max):
    """The input and the bounds (numbers) in the result's dtype."""
    dtype = backend.result_type(input, *(b for b in (min, max) if b is not None))
    if dtype is not input.dtype:  # an integer tensor, a float bound: a float result, as in PyTorch
        input = input.to(dtype)
    min, max = (None if b is None else backend.check_scalar(b, dtype, "clamp") for b in (min, max))
    return input, min, max


clip = clamp


@checked
def maximum(input, other):
    return MaximumBackward0.apply(input, arithmetic._operand(other, "maximum"))


@checked
def minimum(input, other):
    return MinimumBackward0.apply(input, arithmetic._operand(other, "minimum"))


@checked(kinds={"input": "Tensor|Number"})
def where(condition, input, other, *, out=None):
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed for either)."""
    if out is not None:
        return write_out("where", where, out, condition, input, other)
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not {type(condition).__name__}")
    if condition.dtype is not backend.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype._legacy_name.removesuffix('Tensor')} [autograd_lab] make it one, "
                           "e.g. condition > 0 or condition.bool()")
    input, other = arithmetic._operand(input, "where"), arithmetic._operand(other, "where")
    dtype = backend.result_type(input, other)
    # (a number becomes a 0-dim tensor of the result's dtype, as PyTorch wraps it: an input without an edge)
    input, other = (x if isinstance(x, Tensor) else Tensor._make(backend.np.asarray(
        backend.check_scalar(x, dtype, "where"), dtype=dtype.np_dtype)) for x in (input, other))
    return WhereBackward0.apply(input, other, condition=condition, dtype=dtype.np_dtype)


@checked
def clone(input):
    return CloneBackward0.apply(input)


def _bind() -> None:
    """Tensor methods for this family."""
    methods = dict(
        abs=abs, exp=exp, log=log, log1p=log1p, sqrt=sqrt, rsqrt=rsqrt, sin=sin, cos=cos, tan=tan, tanh=tanh,
        sigmoid=sigmoid, relu=relu, sign=sign, floor=floor, ceil=ceil, round=round, trunc=trunc, clamp=clamp,
        clip=clip, maximum=maximum, minimum=minimum, clone=clone,
        __abs__=abs,
    )
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


_bind()
