"""Pointwise math of one tensor: expm1, log2, exp2, the inverse and hyperbolic trigonometric functions, erfc,
erfinv, lgamma, digamma, polygamma, sinc, logit, frac, sgn, signbit, deg2rad, nan_to_num.

Integer inputs give the default float dtype, as in PyTorch (``frac`` and ``sgn`` keep theirs). The special
functions' kernels are in :mod:`.special`; binary math (atan2, hypot, lerp...) is in :mod:`.pointwise_binary`.
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
from .inplace import _method
from .nn import ErfBackward0
from .pointwise import _Floating

_LN2, _LN10 = math.log(2), math.log(10)


class Expm1Backward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return xp.expm1(self)

    def d_self(grad, result):
        return grad * (result + 1)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class Exp2Backward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return xp.exp2(self)

    def d_self(grad, result):
        return grad * result * _LN2

    f_self = d_self  # element-wise: the forward derivative is the backward one


class Log2Backward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.log2(self)

    def d_self(grad, self):
        return grad / (self * _LN2)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class Log10Backward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.log10(self)

    def d_self(grad, self):
        return grad / (self * _LN10)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class AsinBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.arcsin(self)

    def d_self(grad, self):
        return grad / F.sqrt(1 - self * self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class AcosBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.arccos(self)

    def d_self(grad, self):
        return -grad / F.sqrt(1 - self * self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class AtanBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.arctan(self)

    def d_self(grad, self):
        return grad / (self * self + 1)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SinhBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.sinh(self)

    def d_self(grad, self):
        return grad * F.cosh(self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class CoshBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.cosh(self)

    def d_self(grad, self):
        return grad * F.sinh(self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class AsinhBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.arcsinh(self)

    def d_self(grad, self):
        return grad / F.sqrt(self * self + 1)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class AcoshBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.arccosh(self)

    def d_self(grad, self):
        return grad / F.sqrt((self - 1) * (self + 1))

    f_self = d_self  # element-wise: the forward derivative is the backward one


class AtanhBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return xp.arctanh(self)

    def d_self(grad, self):
        return grad / (1 - self * self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class ErfcBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return special.libm(xp, "erfc", self)

    def d_self(grad, self):
        return grad * (-2 / math.sqrt(math.pi)) * F.exp(-self * self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class ErfinvBackward0(_Floating):
    saves = ("result",)

    def forward(xp, self):
        return special.erfinv(xp, self)

    def d_self(grad, result):
        return grad * (0.5 * math.sqrt(math.pi)) * F.exp(result * result)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class LgammaBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return special.lgamma(xp, self)

    def d_self(grad, self):
        return grad * F.digamma(self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class DigammaBackward0(_Floating):
    saves = ("self",)

    def forward(xp, self):
        return special.digamma(xp, self)

    def d_self(grad, self):
        return grad * F.polygamma(1, self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class PolygammaBackward0(_Floating):
    """out = the n-th derivative of digamma"""
    saves = ("n", "self")

    def forward(xp, self, *, n):
        return special.polygamma(xp, n, self)

    def d_self(grad, n, self):
        return grad * F.polygamma(n + 1, self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SincBackward0(_Floating):
    """out = sin(pi x) / (pi x), 1 at 0"""
    saves = ("self",)

    def forward(xp, self):
        product = self * math.pi
        return xp.where(self == 0, 1.0, xp.sin(product) / xp.where(self == 0, 1.0, product)).astype(self.dtype)

    def d_self(grad, self):  # (PyTorch's formula: 0 at 0)
        self_pi, squared_pi = self * math.pi, self * self * math.pi
        return F.where(squared_pi == 0, 0.0, grad * (self_pi * F.cos(self_pi) - F.sin(self_pi)) / squared_pi)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class LogitBackward0(_Floating):
    """out = log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given"""
    saves = ("eps", "self")

    def forward(xp, self, *, eps=None):
        if eps is not None:  # (the bounds in the input's dtype, as PyTorch's kernel computes them)
            low = self.dtype.type(eps)
            high = 1 - low
            self = xp.where(self < low, low, xp.where(self > high, high, self))
        return xp.log(self / (1 - self))

    def d_self(grad, eps, self):  # outside [0, 1]: NaN; outside [eps, 1 - eps]: 0 (PyTorch's logit_backward)
        if eps is None:
            return F.where((self < 0) | (self > 1), float("nan"), grad / (self * (1 - self)))
        return F.where((self < eps) | (self > 1 - eps), 0.0, grad / (self * (1 - self)))

    f_self = d_self  # element-wise: the forward derivative is the backward one


class FracBackward0(Op):
    """out = x - trunc(x)"""

    def forward(xp, self):
        if self.dtype.kind in "biu":
            raise no_kernel("frac_cpu", self.dtype, "frac is for floating-point tensors: convert first, e.g. x.double()")
        return self - xp.trunc(self)

    def d_self(grad):
        return grad

    f_self = d_self  # element-wise: the forward derivative is the backward one


class SgnBackward0(Op):
    """out = x / abs(x) (0 at 0): for real tensors, sign"""

    def forward(xp, self):
        return F.sign(self)

    def d_self(grad):  # for real tensors PyTorch's gradient is zeros (even at NaN), as sign's is
        return F.zeros_like(grad)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class Deg2RadBackward0(_Floating):
    def forward(xp, self):
        return self * (math.pi / 180)

    def d_self(grad):
        return grad * (math.pi / 180)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class Rad2DegBackward0(_Floating):
    def forward(xp, self):
        return self * (180 / math.pi)

    def d_self(grad):
        return grad * (180 / math.pi)

    f_self = d_self  # element-wise: the forward derivative is the backward one


class NanToNumBackward0(Op):
    """NaN, +inf and -inf replaced by numbers (by default 0 and the dtype's largest and smallest finite values)"""
    saves = ("self",)

    def forward(xp, self, *, nan=0.0, posinf=None, neginf=None):
        if self.dtype.kind != "f":
            return self.copy()
        return xp.nan_to_num(self, nan=nan, posinf=posinf, neginf=neginf)

    def d_self(grad, self):  # PyTorch's: grad * isfinite(self)
        return grad * (F.abs(self) < math.inf)

    f_self = d_self  # element-wise: the forward derivative is the backward one


# -- front-end functions ------------------------------------------------------------------------
def _unary(cls, name: str):
    def fn(input):
        return cls.apply(input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``torch.{name}``; its node is ``{cls.__name__}``."
    return checked(fn)


expm1 = _unary(Expm1Backward0, "expm1")
exp2 = _unary(Exp2Backward0, "exp2")
log2 = _unary(Log2Backward0, "log2")
log10 = _unary(Log10Backward0, "log10")
asin = _unary(AsinBackward0, "asin")
acos = _unary(AcosBackward0, "acos")
atan = _unary(AtanBackward0, "atan")
sinh = _unary(SinhBackward0, "sinh")
cosh = _unary(CoshBackward0, "cosh")
asinh = _unary(AsinhBackward0, "asinh")
acosh = _unary(AcoshBackward0, "acosh")
atanh = _unary(AtanhBackward0, "atanh")
erf = _unary(ErfBackward0, "erf")
erfc = _unary(ErfcBackward0, "erfc")
erfinv = _unary(ErfinvBackward0, "erfinv")
lgamma = _unary(LgammaBackward0, "lgamma")
digamma = _unary(DigammaBackward0, "digamma")
sinc = _unary(SincBackward0, "sinc")
frac = _unary(FracBackward0, "frac")
deg2rad = _unary(Deg2RadBackward0, "deg2rad")
rad2deg = _unary(Rad2DegBackward0, "rad2deg")


@checked
def sgn(input):
    """``x / abs(x)`` elementwise (0 at 0); for real tensors the same values as ``sign``, recorded as ``SgnBackward0``."""
    return SgnBackward0.apply(input)


@checked
def polygamma(n: int, input):
    """The ``n``-th derivative of digamma, elementwise (``n = 0``: digamma itself)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n. [autograd_lab] n counts derivatives of "
                           "digamma: 0, 1, 2...")
    return PolygammaBackward0.apply(input, n=n)


@checked
def logit(input, eps=None):
    """log(p / (1 - p)); with ``eps``, p is first clamped to [eps, 1 - eps]."""
    return LogitBackward0.apply(input, eps=eps)


@checked
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, +inf to ``posinf``, -inf to ``neginf`` (by default the dtype's largest/smallest finite)."""
    return NanToNumBackward0.apply(input, nan=nan, posinf=posinf, neginf=neginf)


@checked
def signbit(input):
    """Whether the sign bit is set, elementwise (True at -0.0 and at a negative NaN); a bool tensor, no gradient."""
    data = input._data
    xp = backend.namespace_of(data)
    return Tensor._make(xp.signbit(data) if data.dtype.kind != "b" else xp.zeros(data.shape, bool))


arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh

_FUNCTIONS = dict(expm1=expm1, exp2=exp2, log2=log2, log10=log10, asin=asin, acos=acos, atan=atan, sinh=sinh, cosh=cosh,
                  asinh=asinh, acosh=acosh, atanh=atanh, arcsin=asin, arccos=acos, arctan=atan, arcsinh=asinh,
                  arccosh=acosh, arctanh=atanh, erf=erf, erfc=erfc, erfinv=erfinv, lgamma=lgamma, digamma=digamma,
                  sinc=sinc, frac=frac, deg2rad=deg2rad, rad2deg=rad2deg, sgn=sgn, logit=logit, nan_to_num=nan_to_num)


def _polygamma_method(self, n):
    return polygamma(n, self)


def _bind() -> None:
    """Tensor methods for this family, and their in-place versions (the one in-place path of ops/inplace.py)."""
    for name, fn in _FUNCTIONS.items():
        setattr(Tensor, name, fn)
        setattr(Tensor, name + "_", _method(name + "_", fn))
    Tensor.signbit = signbit
    Tensor.polygamma = _polygamma_method
    Tensor.polygamma_ = _method("polygamma_", _polygamma_method)


_bind()
