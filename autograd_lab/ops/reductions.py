"""Reductions: sum, mean, prod, max/min, amax/amin, logsumexp; argmax/argmin (no gradient). Variance and standard
deviation are in :mod:`.variance`.

A reduction's gradient is the incoming gradient put back in the reduced dimensions (``_restore``: size
1 there) and spread over the input (``expand``), times the local derivative. Its forward derivative goes the
other way: each element's tangent times that local derivative, summed over the reduced dims (``_weighted``);
sums and means are linear. Gather, scatter and ``index_select`` are in :mod:`.scatter_gather`.
"""

from __future__ import annotations

import builtins
import operator
from collections import namedtuple

from .. import backend
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .out import write_out
from .shape import _sizes

ValuesIndices = namedtuple("max", ["values", "indices"])
MinValuesIndices = namedtuple("min", ["values", "indices"])


def _dims(dim, ndim: int, op: str) -> tuple[int, ...]:
    """``dim`` (None, an int or a sequence) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    elif not isinstance(dim, (tuple, list)):
        raise TypeError(f"{op}(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    dims = tuple(sorted(_wrap_dim(operator.index(d), ndim, op) for d in dim))
    if len(set(dims)) != len(dims):
        twice = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"{op}: dim {twice} appears multiple times in the list of dims")
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 / -1, as in PyTorch, and has nothing to reduce


def _restore(grad, sizes: tuple, dims: tuple | None, keepdim: bool):
    """Put a reduced gradient (or result) back in the reduced dims (size 1; ``dims`` None: all), ready to broadcast
    over ``sizes``."""
    if keepdim:
        return grad
    return grad.reshape(tuple(1 if dims is None or i in dims else s for i, s in enumerate(sizes)))


def _count(sizes: tuple, dims: tuple | None) -> int:
    """How many elements each reduction over ``dims`` (None: all) takes."""
    n = 1
    for d in range(len(sizes)) if dims is None else dims:
        n *= sizes[d]
    return n


def _weighted(d_self, tangent, result, dims, keepdim: bool, *saved):
    """A reduction's forward derivative: the tangent weighted by how much each element moves the result (the
    backward derivative ``d_self`` given ones), summed over the reduced ``dims`` (None: all)."""
    return formulas.sum(d_self(formulas.ones_like(result), *saved) * tangent, dims, keepdim)


def _cast(array, dtype):
    """``array`` in ``dtype`` (None: as it is): a reduction's ``dtype=`` applied inside its node, as PyTorch records it
    (no ToCopyBackward0; the engine casts the gradient back to the input's dtype)."""
    return array if dtype is None else array.astype(dtype, copy=False)


def _with_dtype(input, dtype) -> tuple:
    """``(input, dtype for the op)``: a floating input keeps its edge and the op casts; another (no gradient to keep)
    is converted first."""
    if dtype is None:
        return input, None
    if input.is_floating_point():
        return input, backend.to_dtype(dtype).np_dtype
    return input.to(dtype), None


def _asarray(xp, value, like):
    """NumPy reductions return scalars for 0-d results: keep them arrays of the expected dtype."""
    return xp.asarray(value, dtype=getattr(value, "dtype", like.dtype))


class SumBackward0(Op):
    """out = sum of all elements"""
    saves = ("self_sym_sizes",)

    def forward(xp, self, *, dtype=None):
        self = _cast(self, dtype)
        return _asarray(xp, self.sum(dtype=self.dtype), self)  # (the array method: xp.sum is a Python wrapper)

    def d_self(grad, self_sym_sizes):
        return formulas.expand(grad, self_sym_sizes)

    jvp = LINEAR


class SumBackward1(Op):
    """out = sum over dims (``dim`` (): every dim, as PyTorch saves ``x.sum(())``)"""
    saves = ("dim", "keepdim", "self_sym_sizes")

    def forward(xp, self, *, dim, keepdim, dtype=None):
        self = _cast(self, dtype)
        return _asarray(xp, xp.sum(self, axis=dim or None, keepdims=keepdim, dtype=self.dtype), self)  # (int32 stays)

    def d_self(grad, dim, keepdim, self_sym_sizes):
        return formulas.expand(_restore(grad, self_sym_sizes, dim or None, keepdim), self_sym_sizes)

    jvp = LINEAR


class MeanBackward0(Op):
    """out = mean of all elements"""
    saves = ("self_sym_numel", "self_sym_sizes")

    def forward(xp, self, *, dtype=None):
        self = _cast(self, dtype)
        if self.__class__ is backend.np.ndarray and self.dtype.char in "fd":
            return backend.np.asarray(self.sum() / self.size)  # NumPy's mean, without its wrappers' cost
        return formulas.mean(self)

    def d_self(grad, self_sym_numel, self_sym_sizes):
        return formulas.expand(grad, self_sym_sizes) / self_sym_numel

    jvp = LINEAR


class MeanBackward1(Op):
    """out = mean over dims (``dim`` (): every dim, as PyTorch saves ``x.mean(())``)"""
    saves = ("dim", "keepdim", "self_sym_numel", "self_sym_sizes")

    def forward(xp, self, *, dim, keepdim, dtype=None):
        return formulas.mean(_cast(self, dtype), dim or None, keepdim)

    def d_self(grad, dim, keepdim, self_sym_sizes):
        dims = dim or None
        return formulas.expand(_restore(grad, self_sym_sizes, dims, keepdim), self_sym_sizes) / _count(self_sym_sizes, dims)

    jvp = LINEAR


def _prod_others(self, dims: tuple):
    """For each element, the product of the *other* elements of its reduction group.

    Dividing the product by the element fails at zeros, so this multiplies exclusive products
    instead: one product per position along the reduced dims.
    """
    order = [d for d in range(self.ndim) if d not in dims] + list(dims)
    moved = formulas.permute(self, order)
    flat = formulas.reshape(moved, tuple(moved.shape[: self.ndim - len(dims)]) + (-1,))
    parts = [formulas.prod(formulas.cat([flat[..., :i], flat[..., i + 1:]], -1), -1) for i in range(flat.shape[-1])]
    others = formulas.reshape(formulas.stack(parts, -1), moved.shape)
    inverse = [0] * self.ndim
    for i, d in enumerate(order):
        inverse[d] = i
    return formulas.permute(others, inverse)


class ProdBackward0(Op):
    """out = product of all elements"""
    saves = ("result", "self")

    def forward(xp, self, *, dtype=None):
        self = _cast(self, dtype)
        return _asarray(xp, xp.prod(self), self)

    def d_self(grad, result, self):
        if self.ndim == 0:
            return grad  # the product of one value is that value (PyTorch's shortcut: no result / self, NaN-free)
        zeros = formulas.count(self == 0)
        if not zeros:
            return grad * result / self
        if zeros > 1 and not is_grad_enabled():  # PyTorch's shortcut outside create_graph: every other-product has
            return formulas.zeros_like(self)  # a zero (so a NaN or an infinity elsewhere does not make it NaN)
        return grad * _prod_others(self, tuple(range(self.ndim)))

    def f_self(tangent, result, self):
        return _weighted(ProdBackward0.d_self, tangent, result, None, False, result, self)


class ProdBackward1(Op):
    """out = product over one dim"""
    saves = ("dim", "keepdim", "result", "self")

    def forward(xp, self, *, dim, keepdim, dtype=None):
        self = _cast(self, dtype)
        return _asarray(xp, xp.prod(self, axis=dim, keepdims=keepdim), self)

    def d_self(grad, dim, keepdim, result, self):
        if self.ndim == 0:
            return grad  # a 0-dim tensor's dim 0 reduces nothing (as in PyTorch)
        grad = _restore(grad, self.shape, (dim,), keepdim)
        if not formulas.any_true(self == 0):
            return grad * _restore(result, self.shape, (dim,), keepdim) / self
        return grad * _prod_others(self, (dim,))

    def f_self(tangent, dim, keepdim, result, self):
        return _weighted(ProdBackward1.d_self, tangent, result, dim, keepdim, dim, keepdim, result, self)


class _EvenlyDistributed(Op):
    """max()/min() of all elements: tied elements share the gradient evenly (a NaN result: the NaNs share it)"""
    saves = ("result", "self")

    def d_self(grad, result, self):
        mask = formulas.isnan(self) if formulas.any_true(formulas.isnan(result)) else self == result
        return formulas.where(mask, grad / formulas.count(mask), 0.0)

    def f_self(tangent, result, self):  # the mean of the tied elements' tangents
        return _weighted(_EvenlyDistributed.d_self, tangent, result, None, False, result, self)


class MaxBackward1(_EvenlyDistributed):
    def forward(xp, self):
        _nonempty(self, "max")
        return _asarray(xp, xp.max(self), self)


class MinBackward1(_EvenlyDistributed):
    def forward(xp, self):
        _nonempty(self, "min")
        return _asarray(xp, xp.min(self), self)


def _nonempty(array, op: str) -> None:
    if array.size == 0:
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")


class _Extremes(Op):
    """amax/amin over dims (``dim`` (): all, as PyTorch saves it): tied elements of a slice share its gradient evenly
    (PyTorch's scale_grad_by_count)"""
    saves = ("dim", "keepdim", "result", "self")

    def d_self(grad, dim, keepdim, result, self):
        dims = dim or None
        mask = self == _restore(result, self.shape, dims, keepdim)
        share = formulas.cast_like(formulas.sum(mask, dims, keepdim=True), grad)
        return _restore(grad, self.shape, dims, keepdim) / share * mask

    def f_self(tangent, dim, keepdim, result, self):
        return _weighted(_Extremes.d_self, tangent, result, dim or None, keepdim, dim, keepdim, result, self)


class AmaxBackward0(_Extremes):
    def forward(xp, self, *, dim, keepdim):
        return _asarray(xp, xp.max(self, axis=dim or None, keepdims=keepdim), self)


class AminBackward0(_Extremes):
    def forward(xp, self, *, dim, keepdim):
        return _asarray(xp, xp.min(self, axis=dim or None, keepdims=keepdim), self)


class _ValueSelecting(Op):
    """max/min over a dim: the gradient goes to the selected element of each slice. ``indices`` are the op's second
    output, shaped like the values (without ``dim`` unless ``keepdim``), saved version-checked as in PyTorch."""
    saves = ("dim", "indices", "keepdim", "self_sym_sizes")
    tensor_params = ("indices",)

    def forward(xp, self, *, dim, indices, keepdim):
        if self.ndim == 0:  # a 0-dim tensor's dim 0 selects its one value (a new tensor, as in PyTorch)
            return self.copy()
        values = xp.take_along_axis(self, _restore(indices, self.shape, (dim,), keepdim), axis=dim)
        return values if keepdim else xp.squeeze(values, axis=dim)

    def d_self(grad, dim, indices, keepdim, self_sym_sizes):
        from .scatter_gather import ScatterAddBackward0
        if not self_sym_sizes:
            return grad  # (0-dim: the value was selected whole)
        grad = _restore(grad, self_sym_sizes, (dim,), keepdim)
        indices = _restore(indices, self_sym_sizes, (dim,), keepdim)
        zeros = formulas.zeros(self_sym_sizes, grad)
        return formulas.call(ScatterAddBackward0, zeros, grad, dim=dim, index=indices)

    jvp = LINEAR  # the tangents at the same indices


class _DimKept(_ValueSelecting):
    """sort, topk: the values keep the dim they were selected along, so no ``keepdim`` is saved (as in PyTorch)"""
    saves = ("dim", "indices", "self_sym_sizes")

    def forward(xp, self, *, dim, indices, keepdim=True):
        return _ValueSelecting.forward(xp, self, dim=dim, indices=indices, keepdim=True)

    def d_self(grad, dim, indices, self_sym_sizes):
        return _ValueSelecting.d_self(grad, dim, indices, True, self_sym_sizes)


class MaxBackward0(_ValueSelecting):
    """max(dim): values and indices of the largest element of each slice"""


class MinBackward0(_ValueSelecting):
    """min(dim): values and indices of the smallest element of each slice"""


class LogsumexpBackward0(Op):
    """out = log(sum(exp(x))) over dims, computed stably around the maximum"""
    saves = ("dim", "keepdim", "result", "self")

    def forward(xp, self, *, dim, keepdim):
        if self.size:
            peak = xp.max(self, axis=dim, keepdims=True)
            peak = xp.where(xp.isfinite(peak), peak, 0)
        else:  # nothing to shift by: an empty sum of exponentials is 0, and its log -inf
            peak = xp.zeros(tuple(1 if i in dim else n for i, n in enumerate(self.shape)), dtype=self.dtype)
        out = xp.log(xp.sum(xp.exp(self - peak), axis=dim, keepdims=True)) + peak
        return _asarray(xp, out if keepdim else xp.squeeze(out, axis=dim), self)

    def d_self(grad, dim, keepdim, result, self):
        shape = self.shape
        return _restore(grad, shape, dim, keepdim) * formulas.exp(self - _restore(result, shape, dim, keepdim))

    def f_self(tangent, dim, keepdim, result, self):  # the softmax-weighted sum of the tangents
        return _weighted(LogsumexpBackward0.d_self, tangent, result, dim, keepdim, dim, keepdim, result, self)


# -- front-end functions ------------------------------------------------------------------------
@checked
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001 - mirrors torch.sum
    """Sum of all elements, or over ``dim`` (an int or a tuple)."""
    if out is not None:
        return write_out("sum", sum, out, input, dim, keepdim, dtype=dtype)
    input, cast = _with_dtype(input, dtype)
    if dtype is None and (input._data.dtype.kind in "bu" or (input._data.dtype.kind == "i" and input._data.itemsize < 8)):
        input = input.to(backend.int64)  # PyTorch sums bool and small ints as int64
    if dim is None and not keepdim:
        return SumBackward0.apply(input, dtype=cast)
    dims = () if dim is None or dim == () else _dims(dim, input.ndim, "sum")  # (): every dim, as PyTorch reads it
    return SumBackward1.apply(input, dim=dims, keepdim=keepdim, dtype=cast)


@checked
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of all elements, or over ``dim``; floating dtypes only, as in PyTorch."""
    if out is not None:
        return write_out("mean", mean, out, input, dim, keepdim, dtype=dtype)
    input, cast = _with_dtype(input, dtype)
    if not input.is_floating_point():
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {input.dtype._legacy_name.replace('Tensor', '')}. [autograd_lab] convert first: t.float().mean()"
        )
    if dim is None and not keepdim:
        return MeanBackward0.apply(input, dtype=cast)
    dims = () if dim is None or dim == () else _dims(dim, input.ndim, "mean")  # (): every dim, as PyTorch reads it
    return MeanBackward1.apply(input, dim=dims, keepdim=keepdim, dtype=cast)


@checked
def prod(input, dim=None, keepdim=False, *, dtype=None):
    input, cast = _with_dtype(input, dtype)
    if dim is None:
        return ProdBackward0.apply(input, dtype=cast)
    return ProdBackward1.apply(input, dim=_wrap_dim(dim, input.ndim, "prod"), keepdim=keepdim, dtype=cast)


def _select_reduction(input, dim, keepdim, other, name, whole_cls, dim_cls, arg, result_type, elementwise):
    if isinstance(dim, Tensor):
        other, dim = dim, None
    if other is not None:
        return elementwise(input, other)
    if dim is None:
        return whole_cls.apply(input)
    d = _wrap_dim(dim, input.ndim, name)
    if input.shape[d] == 0 if input.ndim else False:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    xp = backend.namespace_of(input._data)
    data = input._data if input.ndim else input._data.reshape(1)
    indices = xp.expand_dims(getattr(xp, arg)(data, axis=d), d).astype(xp.int64, copy=False)
    return select_values(dim_cls, input, d, indices, keepdim, result_type)


def select_values(cls, input, d: int, indices, keepdim: bool, result_type):
    """``result_type(values, indices)``: the elements of ``input`` that ``indices`` (int64 array, the input's shape but
    along ``d``, 1-d for a 0-dim input) select along ``d``, taken by ``cls`` (a ``_ValueSelecting`` op, so the gradient
    goes back to them); without ``keepdim``, ``d`` is squeezed from both."""
    xp = backend.namespace_of(indices)
    if not input.ndim:
        indices = indices.reshape(())
    elif not keepdim:
        indices = xp.squeeze(indices, axis=d)
    indices = Tensor._make(indices)  # returned, and saved: changing them in place is caught in backward
    return result_type(cls.apply(input, dim=d, indices=indices, keepdim=keepdim), indices)


@checked(kinds={"dim": None})  # (a tensor there is max(input, other))
def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Largest element; with ``dim``, ``(values, indices)``; with a tensor, the elementwise maximum."""
    from .pointwise import maximum
    return _select_reduction(input, dim, keepdim, other, "max", MaxBackward1, MaxBackward0, "argmax",
                             ValuesIndices, maximum)


@checked(kinds={"dim": None})
def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Smallest element; with ``dim``, ``(values, indices)``; with a tensor, the elementwise minimum."""
    from .pointwise import minimum
    return _select_reduction(input, dim, keepdim, other, "min", MinBackward1, MinBackward0, "argmin",
                             MinValuesIndices, minimum)


@checked
def amax(input, dim=(), keepdim=False):
    """The largest value over ``dim`` (all dims by default); tied elements share the gradient evenly."""
    return AmaxBackward0.apply(input, dim=_amax_dims(input, dim, "amax"), keepdim=keepdim)


@checked
def amin(input, dim=(), keepdim=False):
    """The smallest value over ``dim`` (all dims by default); tied elements share the gradient evenly."""
    return AminBackward0.apply(input, dim=_amax_dims(input, dim, "amin"), keepdim=keepdim)


def _amax_dims(input, dim, op: str) -> tuple:
    if dim == () or dim is None:
        _nonempty(input._data, op)
        return ()  # (every dim, as PyTorch saves it)
    dims = _dims(dim, input.ndim, op)
    for d in dims:
        if input.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    return dims


def _arg(name):
    def fn(input, dim=None, keepdim=False):
        xp = backend.namespace_of(input._data)
        if input._data.size == 0:  # (PyTorch's errors; an empty result along another dim is fine)
            if dim is None:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            d = _wrap_dim(dim, input.ndim, name)
            if input.ndim and input.shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        if dim is None:
            out = getattr(xp, name)(input._data.reshape(-1))
            out = xp.asarray(out, dtype=xp.int64)
            return Tensor._make(out.reshape((1,) * input.ndim) if keepdim else out)
        d = _wrap_dim(dim, input.ndim, name)
        return Tensor._make(getattr(xp, name)(input._data, axis=d, keepdims=keepdim).astype(xp.int64))
    fn.__name__ = name
    return checked(fn, kinds={"dim": "int?"})


argmax = _arg("argmax")
argmin = _arg("argmin")


@checked
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))``, without overflow."""
    return LogsumexpBackward0.apply(input, dim=_dims(dim, input.ndim, "logsumexp"), keepdim=keepdim)


@checked
def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the inverse of broadcasting ``size`` up to ``input``'s shape)."""
    shape = _sizes(size)
    have = tuple(input.shape)
    lead = len(have) - len(shape)
    if lead < 0 or builtins.any(s not in (1, h) for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(have)}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1)
    out = sum(input, dims, keepdim=True) if dims else input
    return out.reshape(shape) if lead else out


@checked
def all(input, dim=None, keepdim=False):  # noqa: A001
    xp = backend.namespace_of(input._data)
    return Tensor._make(xp.asarray(xp.all(input._data, axis=dim, keepdims=keepdim)))


@checked
def any(input, dim=None, keepdim=False):  # noqa: A001
    xp = backend.namespace_of(input._data)
    return Tensor._make(xp.asarray(xp.any(input._data, axis=dim, keepdims=keepdim)))


def _bind() -> None:
    for name, fn in dict(sum=sum, mean=mean, prod=prod, max=max, min=min, amax=amax,
                         amin=amin, argmax=argmax, argmin=argmin, logsumexp=logsumexp, sum_to_size=sum_to_size,
                         all=all, any=any).items():
        setattr(Tensor, name, fn)


_bind()
