"""Reductions beside the pointwise math: nansum and nanmean (NaNs skipped), and aminmax (the smallest and the
largest value in one call). The plain reductions are in :mod:`.reductions`."""

from __future__ import annotations

from collections import namedtuple

from .. import backend
from ..tensor import Tensor
from . import formulas as F
from ._args import checked
from ._op import Op
from .reductions import _dims, _restore
from .reductions import sum as _sum


class NansumBackward0(Op):
    """out = the sum over dims, NaNs skipped (counted as 0)"""
    saves = ("dim", "keepdim", "self")

    def forward(xp, self, *, dim, keepdim):
        return xp.asarray(xp.nansum(self, axis=dim, keepdims=keepdim), dtype=self.dtype)

    def d_self(grad, dim, keepdim, self):  # PyTorch's: the sum's gradient times "not NaN"
        return F.expand(_restore(grad, self.shape, dim, keepdim), self.shape) * (self == self)

    def f_self(tangent, dim, keepdim, self):  # the tangents of the elements that are not NaN, summed
        return F.sum(F.where(self == self, tangent, 0.0), dim, keepdim)


def _shared(grad, self, extreme, dim, keepdim):
    """A gradient of min or max over ``dim`` shared evenly by the elements equal to it (PyTorch's amin/amax rule)."""
    mask = self == extreme
    share = F.cast_like(F.sum(mask, dim, keepdim=True), grad)
    return _restore(grad, self.shape, dim, keepdim) / share * mask


class AminmaxBackward0(Op):
    """(min, max) over a dim or all: each output's gradient shared evenly by the elements tied at it"""
    outputs = ("min", "max")
    saves = ("dim", "keepdim", "max", "min", "self")

    def forward(xp, self, *, dim, keepdim):
        dims = _reduced(dim, self.ndim)
        return (xp.asarray(xp.min(self, axis=dims, keepdims=keepdim)),
                xp.asarray(xp.max(self, axis=dims, keepdims=keepdim)))

    def d_self(grad, dim, keepdim, max, min, self):
        low, high = grad
        dims = _reduced(dim, len(self.shape))
        parts = [_shared(g, self, _restore(extreme, self.shape, dims, keepdim), dims, keepdim)
                 for g, extreme in ((low, min), (high, max)) if g is not None]
        return parts[0] if len(parts) == 1 else parts[0] + parts[1]

    def f_self(tangent, dim, keepdim, max, min, self):  # each output: the mean of its tied elements' tangents
        dims = _reduced(dim, len(self.shape))
        kept = [_restore(extreme, self.shape, dims, keepdim) for extreme in (min, max)]
        return tuple(F.sum(_shared(F.ones_like(e), self, e, dims, True) * tangent, dims, keepdim) for e in kept)


def _reduced(dim, ndim: int) -> tuple:
    """The dims ``aminmax`` reduces: ``dim`` (an int, as PyTorch saves it), or all of them for ``None``."""
    return tuple(range(ndim)) if dim is None else (dim % ndim,) if ndim else ()


# -- front-end functions ------------------------------------------------------------------------
@checked
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum over ``dim`` (all dims by default), NaNs counted as 0."""
    if not input.is_floating_point():  # (no NaN to skip: the plain sum, in int64)
        return _sum(input, dim, keepdim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    dims = None if dim is None or dim in ((), []) else _dims(dim, input.ndim, "nansum")  # (None: all, as PyTorch saves)
    return NansumBackward0.apply(input, dim=dims, keepdim=keepdim)


@checked
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` of the elements that are not NaN (recorded as nansum over their count)."""
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point():
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{backend.kernel_type_name(input.dtype)} [autograd_lab] convert first, e.g. x.double()")
    count = _sum(~input.detach().isnan(), dim, keepdim)
    return nansum(input, dim, keepdim) / count


MinMax = namedtuple("aminmax", ["min", "max"])


@checked
def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` over ``dim`` (all dims by default) in one call; tied elements share each gradient evenly."""
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity. [autograd_lab] aminmax needs at least one element")
    dims = _dims(dim, input.ndim, "aminmax")
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size. [autograd_lab] every slice "
                             "needs at least one element")
    return MinMax(*AminmaxBackward0.apply(input, dim=None if dim is None else dims[0] if dims else dim,
                                          keepdim=keepdim))


def _bind() -> None:
    Tensor.nansum, Tensor.nanmean, Tensor.aminmax = nansum, nanmean, aminmax


_bind()
