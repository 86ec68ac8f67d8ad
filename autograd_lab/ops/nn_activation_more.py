"""More activations, each with the node PyTorch records for it: ``hardtanh`` (and ``relu6``), ``elu`` (and
``selu``), ``celu``, ``silu``, ``mish``, ``softplus``, ``hardsigmoid``, ``hardswish``, ``logsigmoid``, ``glu``,
``hardshrink``, ``softshrink``; and the composites PyTorch builds from other ops: ``softsign``, ``tanhshrink``,
``softmin``.

``inplace=True`` runs the out-of-place op and writes its result into the input (:func:`.inplace._run_inplace`):
the node is the same (``HardtanhBackward0``, ``SiluBackward0``...) and reads a copy of the overwritten values, as
PyTorch's does, except for ``elu`` and ``celu``, whose in-place nodes (``EluBackward1``, ``CeluBackward1``) read the
result instead, as PyTorch's do. Every op here is element-wise but ``glu``, so its forward rule is its backward
formula given the tangent (``f_self = d_self``).
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import Op
from .activation_backward import HardshrinkBackwardBackward0, HardtanhBackwardBackward0, SoftshrinkBackwardBackward0
from .inplace import _run_inplace
from .nn import SoftmaxBackward0, _float_input, _softmax_dim

__all__ = ["hardtanh", "hardtanh_", "relu6", "elu", "elu_", "selu", "selu_", "celu", "celu_", "silu", "mish",
           "softplus", "softsign", "tanhshrink", "hardsigmoid", "hardswish", "logsigmoid", "glu", "softmin",
           "hardshrink", "softshrink"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_NEGATIVE_ALPHA_IN_PLACE = (
    "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused by "
    "calling in-place forward function with a negative slope, please call out-of-place version instead."
)


def _floating(input: Tensor, kernel: str) -> None:
    """PyTorch's error for an integer or bool input (its kernels are written for floating types only)."""
    if not input.is_floating_point():
        raise no_kernel(kernel, input.dtype, f"{kernel.rsplit('_', 1)[0]} needs a floating tensor: call .float() first")


def _in_place(op, input: Tensor, name: str, **settings) -> Tensor:
    """``op`` applied to ``input`` and written into it (``name`` is the in-place method's, for its errors)."""
    return _run_inplace(input, name, lambda x: op.apply(x, **settings), (), {})


# -- hardtanh, relu6 -----------------------------------------------------------------------------
class HardtanhBackward0(Op):
    """out = x clamped to [min_val, max_val]"""
    saves = ("max_val", "min_val", "self")

    def forward(xp, self, *, min_val, max_val):
        return xp.clip(self, min_val, max_val).astype(self.dtype, copy=False)

    def d_self(grad, max_val, min_val, self):  # (0 outside (min_val, max_val), else grad; NaN passes grad)
        return formulas.call(HardtanhBackwardBackward0, grad, self, min_val=min_val, max_val=max_val)

    f_self = d_self


@checked
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``; ``inplace=True`` overwrites ``input``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _in_place(HardtanhBackward0, input, "hardtanh_", min_val=min_val, max_val=max_val)
    return HardtanhBackward0.apply(input, min_val=min_val, max_val=max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``hardtanh(input, min_val, max_val, inplace=True)``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6): ``hardtanh(input, 0, 6)``, recorded as ``HardtanhBackward0`` as in PyTorch."""
    return hardtanh(input, 0.0, 6.0, inplace)


# -- elu, selu, celu -----------------------------------------------------------------------------
def _elu_forward(xp, x, alpha, scale, input_scale):
    """scale * x where x > 0, else alpha * scale * (exp(x * input_scale) - 1)"""
    # (the negative side only, so the positive side cannot overflow; -0.0 stays -0.0, whose expm1 is -0.0 in
    # PyTorch's kernel: minimum(-0.0, 0) would give +0.0)
    negative = (alpha * scale) * xp.expm1(xp.where(x > 0, 0, x) * input_scale)
    return xp.where(x > 0, x * scale, negative).astype(x.dtype, copy=False)


def _elu_grad(grad, values, alpha, scale, input_scale, is_result):
    """PyTorch's ``elu_backward``: from the input, or (``is_result``) from the output, whose negative part is
    alpha * scale * (exp(x * input_scale) - 1), so exp(...) * alpha * scale = result + alpha * scale."""
    if is_result:
        negative = grad * (input_scale * (values + alpha * scale))
    else:
        # (exp of the negative part only: differentiated again under create_graph, as PyTorch's elu_double_backward,
        # the derivative is 0 at x = 0, masked by x < 0, though this one takes the negative side there)
        negative = grad * (input_scale * alpha * scale) * formulas.exp(formulas.where(values < 0, values, 0.0) * input_scale)
    return formulas.where(values <= 0, negative, grad * scale)  # (NaN takes the positive side, as PyTorch's kernel)


class EluBackward0(Op):
    """out = scale * x where x > 0, else alpha * scale * (exp(input_scale * x) - 1) (``selu`` too)"""
    saves = ("alpha", "input_scale", "scale", "self")

    def forward(xp, self, *, alpha, scale, input_scale):
        return _elu_forward(xp, self, alpha, scale, input_scale)

    def d_self(grad, alpha, input_scale, scale, self):
        return _elu_grad(grad, self, alpha, scale, input_scale, False)

    f_self = d_self


class EluBackward1(Op):
    """``elu(x, inplace=True)``: the derivative from the result (the input is gone); PyTorch refuses it for a
    negative alpha, where the result's sign no longer tells the two sides apart"""
    saves = ("alpha", "input_scale", "result", "scale")

    def forward(xp, self, *, alpha, scale, input_scale):
        return _elu_forward(xp, self, alpha, scale, input_scale)

    def d_self(grad, alpha, input_scale, result, scale):
        if alpha < 0:
            raise RuntimeError(_NEGATIVE_ALPHA_IN_PLACE)
        return _elu_grad(grad, result, alpha, scale, input_scale, True)

    f_self = d_self


class CeluBackward0(Op):
    """out = x where x > 0, else alpha * (exp(x / alpha) - 1)"""
    saves = ("alpha", "self")

    def forward(xp, self, *, alpha):
        return _elu_forward(xp, self, alpha, 1.0, 1.0 / alpha)

    def d_self(grad, alpha, self):
        return _elu_grad(grad, self, alpha, 1.0, 1.0 / alpha, False)

    f_self = d_self


class CeluBackward1(Op):
    """``celu(x, inplace=True)``: the derivative from the result, as ``EluBackward1``"""
    saves = ("alpha", "result")

    def forward(xp, self, *, alpha):
        return _elu_forward(xp, self, alpha, 1.0, 1.0 / alpha)

    def d_self(grad, alpha, result):
        if alpha < 0:
            raise RuntimeError(_NEGATIVE_ALPHA_IN_PLACE)
        return _elu_grad(grad, result, alpha, 1.0, 1.0 / alpha, True)

    f_self = d_self


@checked
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``; ``inplace=True`` overwrites ``input``."""
    _floating(input, "elu_cpu")
    if inplace:
        return _in_place(EluBackward1, input, "elu_", alpha=alpha, scale=1.0, input_scale=1.0)
    return EluBackward0.apply(input, alpha=alpha, scale=1.0, input_scale=1.0)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``elu(input, alpha, inplace=True)``."""
    return elu(input, alpha, inplace=True)


@checked
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalizing constants (recorded as ``EluBackward0``)."""
    _floating(input, "elu_cpu")
    if inplace:
        return _in_place(EluBackward1, input, "selu_", alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)
    return EluBackward0.apply(input, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def selu_(input: Tensor) -> Tensor:
    """``selu(input, inplace=True)``."""
    return selu(input, inplace=True)


@checked
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``; ``inplace=True`` overwrites ``input``."""
    _floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return _in_place(CeluBackward1, input, "celu_", alpha=alpha)
    return CeluBackward0.apply(input, alpha=alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``celu(input, alpha, inplace=True)``."""
    return celu(input, alpha, inplace=True)


# -- smooth gates: silu, mish, softplus, logsigmoid -------------------------------------------------
def _softplus(x, beta=1.0):
    """log(1 + exp(beta * x)) / beta without overflow."""
    z = x * beta
    return (formulas.clamp_min(z, 0) + formulas.log1p(formulas.exp(-formulas.abs(z)))) / beta


def _softplus_smooth(x):
    """log(1 + exp(x)) written with no kink: under create_graph autograd differentiates it (in mish's derivative), and
    _softplus's max(x, 0) + log1p(exp(-abs(x))) has two at 0, where its derivative came out 1, not sigmoid(0) = 0.5.
    Above 40, exp(x) would grow without end and the value is x to the last bit."""
    return formulas.where(x > 40, x, formulas.log1p(formulas.exp(formulas.where(x > 40, 40.0, x))))


class SiluBackward0(Op):
    """out = x * sigmoid(x)"""
    saves = ("self",)

    def forward(xp, self):
        return self * formulas.sigmoid(self)

    def d_self(grad, self):
        s = formulas.sigmoid(self)
        return grad * s * (1 + self * (1 - s))

    f_self = d_self


class MishBackward0(Op):
    """out = x * tanh(softplus(x))"""
    saves = ("self",)

    def forward(xp, self):
        return self * xp.tanh(_softplus(self))

    def d_self(grad, self):
        t = formulas.tanh(_softplus_smooth(self))
        return grad * (t + self * formulas.sigmoid(self) * (1 - t * t))

    f_self = d_self


class SoftplusBackward0(Op):
    """out = log(1 + exp(beta * x)) / beta, or x where beta * x > threshold"""
    saves = ("beta", "self", "threshold")

    def forward(xp, self, *, beta, threshold):
        return xp.where(self * beta > threshold, self, _softplus(self, beta)).astype(self.dtype, copy=False)

    def d_self(grad, beta, self, threshold):
        return formulas.where(self * beta > threshold, grad, grad * formulas.sigmoid(self * beta))

    f_self = d_self


class LogSigmoidBackward0(Op):
    """out = log(sigmoid(x)) = -softplus(-x)"""
    saves = ("self",)

    def forward(xp, self):  # (as PyTorch's kernel writes it: +0.0 at +inf, where -softplus(-x) gives -0.0)
        return xp.minimum(self, 0) - xp.log1p(xp.exp(-xp.abs(self)))

    def d_self(grad, self):
        return grad * formulas.sigmoid(-self)

    f_self = d_self


def _maybe_in_place(op, input: Tensor, inplace: bool, name: str) -> Tensor:
    return _in_place(op, input, name) if inplace else op.apply(input)


@checked
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (also called swish)."""
    _floating(input, "silu_cpu")
    return _maybe_in_place(SiluBackward0, input, inplace, "silu_")


@checked
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    _floating(input, "mish_cpu")
    return _maybe_in_place(MishBackward0, input, inplace, "mish_")


@checked
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, a smooth relu; linear where ``beta * x > threshold``."""
    _floating(input, "softplus_cpu")
    return SoftplusBackward0.apply(input, beta=beta, threshold=threshold)


@checked
def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), computed without overflow."""
    _floating(input, "log_sigmoid_cpu")
    return LogSigmoidBackward0.apply(input)


# -- piecewise linear: hardsigmoid, hardswish, hardshrink, softshrink ------------------------------
class HardsigmoidBackward0(Op):
    """out = relu6(x + 3) / 6"""
    saves = ("self",)

    def forward(xp, self):
        return (xp.clip(self + 3, 0, 6) / 6).astype(self.dtype, copy=False)

    def d_self(grad, self):
        return formulas.where((self > -3) & (self < 3), grad / 6, 0.0)

    f_self = d_self


class HardswishBackward0(Op):
    """out = x * relu6(x + 3) / 6"""
    saves = ("self",)

    def forward(xp, self):
        return (self * xp.clip(self + 3, 0, 6) / 6).astype(self.dtype, copy=False)

    def d_self(grad, self):
        upper = formulas.where(self >= 3, grad, grad * (self / 3 + 0.5))  # (PyTorch 2.13's ends: 0 at -3, 1 at 3,
        return formulas.where(self <= -3, 0.0, upper)  # and NaN at NaN)

    f_self = d_self


class HardshrinkBackward0(Op):
    """out = x where abs(x) > lambd, else 0"""
    saves = ("lambd", "self")

    def forward(xp, self, *, lambd):
        return xp.where((self >= -lambd) & (self <= lambd), 0, self).astype(self.dtype, copy=False)

    def d_self(grad, lambd, self):  # (0 where -lambd <= self <= lambd, else grad)
        return formulas.call(HardshrinkBackwardBackward0, grad, self, lambd=lambd)

    f_self = d_self


class SoftshrinkBackward0(Op):
    """out = x - lambd where x > lambd, x + lambd where x < -lambd, else 0"""
    saves = ("lambd", "self")

    def forward(xp, self, *, lambd):
        shrunk = self - xp.clip(self, -lambd, lambd)
        return shrunk.astype(self.dtype, copy=False)

    def d_self(grad, lambd, self):  # (the same mask as hardshrink's)
        return formulas.call(SoftshrinkBackwardBackward0, grad, self, lambd=lambd)

    f_self = d_self


@checked
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6, a piecewise-linear sigmoid."""
    _floating(input, "hardsigmoid_cpu")
    return _maybe_in_place(HardsigmoidBackward0, input, inplace, "hardsigmoid_")


@checked
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6, a piecewise version of silu."""
    _floating(input, "hardswish_cpu")
    return _maybe_in_place(HardswishBackward0, input, inplace, "hardswish_")


@checked
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``abs(x) > lambd``, else 0."""
    _floating(input, "hardshrink_cpu")
    return HardshrinkBackward0.apply(input, lambd=lambd)


@checked
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` moved toward 0 by ``lambd`` (0 inside ``[-lambd, lambd]``)."""
    _floating(input, "softshrink_check")
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, 3.40282e+38] for input dtype "
                           f"{backend.kernel_type_name(input.dtype)}, but found {lambd:g} [autograd_lab] softshrink: lambd is "
                           "the width of the band set to 0, use a non-negative value")
    return SoftshrinkBackward0.apply(input, lambd=lambd)


# -- glu ----------------------------------------------------------------------------------------
class GluBackward0(Op):
    """out = a * sigmoid(b), where a and b are the two halves of x along dim"""
    saves = ("dim", "self")

    def forward(xp, self, *, dim):
        a, b = xp.split(self, 2, axis=dim)
        return a * formulas.sigmoid(b)

    def d_self(grad, dim, self):
        half = self.shape[dim] // 2
        a, b = formulas.split(self, [half, half], dim)
        s = formulas.sigmoid(b)
        return formulas.cat([grad * s, grad * a * s * (1 - s)], dim)

    def f_self(tangent, dim, self):
        half = self.shape[dim] // 2
        a, b = formulas.split(self, [half, half], dim)
        da, db = formulas.split(tangent, [half, half], dim)
        s = formulas.sigmoid(b)
        return da * s + a * s * (1 - s) * db


@checked(kinds={"dim": "int"})
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The first half of ``input`` along ``dim``, gated by the sigmoid of the second half."""
    _floating(input, "glu_cpu")
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = dim + input.ndim if dim < 0 else dim
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {input.shape[dim]}")
    return GluBackward0.apply(input, dim=dim)


# -- composites ---------------------------------------------------------------------------------
@checked
def softsign(input: Tensor) -> Tensor:
    """x / (1 + abs(x))."""
    return input / (input.abs() + 1)


@checked
def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


@checked(kinds={"dim": "int?"})
def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-input, dim)``: the largest weight goes to the smallest entry."""
    input = _float_input(input, dtype, "softmin")
    return SoftmaxBackward0.apply(-input, dim=_softmax_dim(input, dim, "softmin"))
