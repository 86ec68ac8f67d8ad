"""Reductions: sum, mean, prod, var, std, max/min, logsumexp; argmax/argmin (no gradient).

A reduction's gradient is the incoming gradient, put back in the reduced dimensions (``reshape``)
and spread over the input (``expand``), times the local derivative. The ``a_self`` beside a ``d_self``
is its array form (``ops/_op.py``): the same NumPy calls on the arrays that the tensor ops would make.
"""

from __future__ import annotations

import builtins
from collections import namedtuple

from .. import backend
from ..tensor import Tensor, _wrap_dim
from ._op import Op

ValuesIndices = namedtuple("max", ["values", "indices"])
MinValuesIndices = namedtuple("min", ["values", "indices"])


def _dims(dim, ndim: int, op: str) -> tuple[int, ...]:
    """``dim`` (None, an int or a sequence) as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(sorted(_wrap_dim(d, ndim, op) for d in dim))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}: dim {list(dim)} appears multiple times in the list of dims")
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 / -1, as in PyTorch, and has nothing to reduce


def _kept_shape(sizes: tuple, dims: tuple) -> tuple:
    """The shape of a reduction over ``dims`` with ``keepdim=True``."""
    return tuple(1 if i in dims else s for i, s in enumerate(sizes))


def _restore(grad: Tensor, sizes: tuple, dims: tuple, keepdim: bool) -> Tensor:
    """Put a reduced gradient back in the reduced dims (size 1), ready to broadcast over ``sizes``."""
    return grad if keepdim else grad.reshape(_kept_shape(sizes, dims))


def _broadcast(array, sizes):
    """``expand`` for arrays: a read-only broadcast view, as ``ExpandBackward0`` makes.

    The gradient of a full reduction is a single value: a 0-d NumPy array is spread over ``sizes``
    by the ndarray constructor with zero strides (the same view, without ``np.broadcast_to``'s
    Python-level checks, which cost 4x more; this runs once per ``loss.backward()``).
    """
    if isinstance(array, backend.np.generic):  # (NumPy's 0-d results are scalars)
        array = backend.np.asarray(array)
    if array.__class__ is backend.np.ndarray and array.ndim == 0:
        view = backend.np.ndarray(sizes, array.dtype, array, 0, (0,) * len(sizes))
        view.flags.writeable = False
        return view
    return backend.namespace_of(array).broadcast_to(array, sizes)



def _asarray(xp, value, like):
    """NumPy reductions return scalars for 0-d results: keep them arrays of the expected dtype."""
    return xp.asarray(value, dtype=getattr(value, "dtype", like.dtype))


def _mean_of_all(xp, array):
    """The mean of every element. For float32/float64 NumPy arrays it is NumPy's own computation,
    written out (``np.mean`` is the pairwise sum divided by the count, in the array's dtype; its
    Python-level wrappers cost three times the sum itself on small arrays)."""
    if array.__class__ is backend.np.ndarray and array.dtype.char in "fd":
        return backend.np.asarray(array.sum() / array.size)
    return _asarray(xp, xp.mean(array), array)


class SumBackward0(Op):
    """out = sum of all elements"""
    saves = ("self_sym_sizes",)

    def forward(xp, self):
        return _asarray(xp, self.sum(), self)  # (the array method: xp.sum is a Python wrapper around it)

    def d_self(grad, self_sym_sizes):
        return grad.expand(self_sym_sizes)

    def a_self(grad, self_sym_sizes):  # the array form (ops/_op.py): expand is broadcast_to
        return _broadcast(grad, self_sym_sizes)


class SumBackward1(Op):
    """out = sum over dims"""
    saves = ("dim", "keepdim", "self_sym_sizes")

    def forward(xp, self, *, dim, keepdim):
        return _asarray(xp, xp.sum(self, axis=dim, keepdims=keepdim), self)

    def d_self(grad, dim, keepdim, self_sym_sizes):
        return _restore(grad, self_sym_sizes, dim, keepdim).expand(self_sym_sizes)

    def a_self(grad, dim, keepdim, self_sym_sizes):
        return _broadcast(_restore(grad, self_sym_sizes, dim, keepdim), self_sym_sizes)


class MeanBackward0(Op):
    """out = mean of all elements"""
    saves = ("self_sym_numel", "self_sym_sizes")

    def forward(xp, self):
        return _mean_of_all(xp, self)

    def d_self(grad, self_sym_numel, self_sym_sizes):
        return grad.expand(self_sym_sizes) / self_sym_numel

    def a_self(grad, self_sym_numel, self_sym_sizes):
        return _broadcast(grad, self_sym_sizes) / self_sym_numel


class MeanBackward1(Op):
    """out = mean over dims"""
    saves = ("dim", "keepdim", "self_sym_numel", "self_sym_sizes")

    def forward(xp, self, *, dim, keepdim):
        return _asarray(xp, xp.mean(self, axis=dim, keepdims=keepdim), self)

    def d_self(grad, dim, keepdim, self_sym_numel, self_sym_sizes):
        count = 1
        for d in dim:
            count *= self_sym_sizes[d]
        return _restore(grad, self_sym_sizes, dim, keepdim).expand(self_sym_sizes) / count

    def a_self(grad, dim, keepdim, self_sym_numel, self_sym_sizes):
        count = 1
        for d in dim:
            count *= self_sym_sizes[d]
        return _broadcast(_restore(grad, self_sym_sizes, dim, keepdim), self_sym_sizes) / count


def _prod_others(self: Tensor, dims: tuple) -> Tensor:
    """For each element, the product of the *other* elements of its reduction group.

    Dividing the product by the element fails at zeros, so this multiplies exclusive
    products instead: one extra product per position along the reduced dims.
    """
    from .shape import cat, stack  # shape imports this module
    flat_dims = dims
    moved = self.permute([d for d in range(self.ndim) if d not in flat_dims] + list(flat_dims))
    kept = moved.shape[: self.ndim - len(flat_dims)]
    flat = moved.reshape(tuple(kept) + (-1,))
    n = flat.shape[-1]
    parts = [cat([flat[..., :i], flat[..., i + 1:]], dim=-1).prod(dim=-1) for i in range(n)]
    others = stack(parts, dim=-1).reshape(moved.shape)
    inverse = [0] * self.ndim
    for i, d in enumerate([d for d in range(self.ndim) if d not in flat_dims] + list(flat_dims)):
        inverse[d] = i
    return others.permute(inverse)


class ProdBackward0(Op):
    """out = product of all elements"""
    saves = ("result", "self")

    def forward(xp, self):
        return _asarray(xp, xp.prod(self), self)

    def d_self(grad, result, self):
        if not bool((self._data == 0).any()):
            return grad * result / self
        return grad * _prod_others(self, tuple(range(self.ndim)))


class ProdBackward1(Op):
    """out = product over one dim"""
    saves = ("dim", "keepdim", "result", "self")

    def forward(xp, self, *, dim, keepdim):
        return _asarray(xp, xp.prod(self, axis=dim, keepdims=keepdim), self)

    def d_self(grad, dim, keepdim, result, self):
        dims = (dim,)
        grad = _restore(grad, self.shape, dims, keepdim)
        if not bool((self._data == 0).any()):
            return grad * _restore(result, self.shape, dims, keepdim) / self
        return grad * _prod_others(self, dims)


class VarBackward0(Op):
    """out = sum((x - mean)^2) / (N - correction) over dims"""
    saves = ("correction", "dim", "keepdim", "self")

    def forward(xp, self, *, dim, correction, keepdim):
        return _asarray(xp, xp.var(self, axis=dim, ddof=correction, keepdims=keepdim), self)

    def d_self(grad, correction, dim, keepdim, self):
        n = 1
        for d in dim:
            n *= self.shape[d]
        centered = self - self.mean(dim=dim, keepdim=True)
        dof = n - correction  # no degrees of freedom left: the variance is nan, and so is its gradient (PyTorch)
        return _restore(grad, self.shape, dim, keepdim) * centered * (2.0 / dof if dof > 0 else float("nan"))

    def a_self(grad, correction, dim, keepdim, self):
        n = 1
        for d in dim:
            n *= self.shape[d]
        centered = self - _keepdim_mean(self, dim)
        dof = n - correction
        return _restore(grad, self.shape, dim, keepdim) * centered * (2.0 / dof if dof > 0 else float("nan"))


class StdBackward0(Op):
    """out = sqrt(var) over dims"""
    saves = ("correction", "dim", "keepdim", "result", "self")

    def forward(xp, self, *, dim, correction, keepdim):
        return _asarray(xp, xp.std(self, axis=dim, ddof=correction, keepdims=keepdim), self)

    def d_self(grad, correction, dim, keepdim, result, self):
        n = 1
        for d in dim:
            n *= self.shape[d]
        centered = self - self.mean(dim=dim, keepdim=True)
        scale = _restore(grad, self.shape, dim, keepdim) / _restore(result, self.shape, dim, keepdim)
        return scale * centered / (n - correction)

    def a_self(grad, correction, dim, keepdim, result, self):
        n = 1
        for d in dim:
            n *= self.shape[d]
        centered = self - _keepdim_mean(self, dim)
        scale = _restore(grad, self.shape, dim, keepdim) / _restore(result, self.shape, dim, keepdim)
        return scale * centered / (n - correction)


def _keepdim_mean(array, dims: tuple):
    """``array.mean(dims, keepdim=True)`` of the tensor ops, on the array (the call MeanBackward1 makes)."""
    xp = backend.namespace_of(array)
    return _asarray(xp, xp.mean(array, axis=dims, keepdims=True), array)


class _EvenlyDistributed(Op):
    """max()/min() of all elements: ties share the gradient evenly"""
    saves = ("result", "self")

    def d_self(grad, result, self):
        mask = self == result
        return grad * mask / mask.sum()

    def a_self(grad, result, self):  # (the count as a Python int: the tensor ops divide in the gradient's dtype)
        mask = self == result
        return grad * mask / int(mask.sum())


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


class _ValueSelecting(Op):
    """max/min over a dim: the gradient goes to the selected element of each slice"""
    saves = ("dim", "indices", "keepdim", "self_sym_sizes")

    def forward(xp, self, *, dim, indices, keepdim):
        values = xp.take_along_axis(self, indices, axis=dim)
        return values if keepdim else xp.squeeze(values, axis=dim)

    def d_self(grad, dim, indices, keepdim, self_sym_sizes):
        grad = _restore(grad, self_sym_sizes, (dim,), keepdim)
        return _zeros_scatter(grad, self_sym_sizes, dim, indices)

    def a_self(grad, dim, indices, keepdim, self_sym_sizes):
        grad = _restore(grad, self_sym_sizes, (dim,), keepdim)
        xp = backend.namespace_of(grad)
        out = xp.zeros(self_sym_sizes, dtype=grad.dtype)
        _add_at_along(xp, out, indices, grad, dim)  # what ScatterAddBackward0 runs on its copy of the zeros
        return out


class MaxBackward0(_ValueSelecting):
    """max(dim): values and indices of the largest element of each slice"""


class MinBackward0(_ValueSelecting):
    """min(dim): values and indices of the smallest element of each slice"""


class LogsumexpBackward0(Op):
    """out = log(sum(exp(x))) over dims, computed stably around the maximum"""
    saves = ("dim", "keepdim", "result", "self")

    def forward(xp, self, *, dim, keepdim):
        peak = xp.max(self, axis=dim, keepdims=True)
        peak = xp.where(xp.isfinite(peak), peak, 0)
        out = xp.log(xp.sum(xp.exp(self - peak), axis=dim, keepdims=True)) + peak
        return _asarray(xp, out if keepdim else xp.squeeze(out, axis=dim), self)

    def d_self(grad, dim, keepdim, result, self):
        shape = self.shape
        return _restore(grad, shape, dim, keepdim) * (self - _restore(result, shape, dim, keepdim)).exp()

    def a_self(grad, dim, keepdim, result, self):
        shape = self.shape
        exp = backend.namespace_of(self).exp
        return _restore(grad, shape, dim, keepdim) * exp(self - _restore(result, shape, dim, keepdim))


class GatherBackward0(Op):
    """out[i][j] = self[index[i][j]][j] (along ``dim``)"""
    saves = ("dim", "index", "self_sym_sizes")
    tensor_params = ("index",)  # saved version-checked, as PyTorch does

    def forward(xp, self, *, dim, index):
        if self.ndim == 0:  # a 0-d input gathers as a 1-element vector (PyTorch's rule)
            return xp.take_along_axis(self.reshape(1), index.reshape(-1), axis=0).reshape(index.shape)
        # index may be smaller than self in the other dims: the output is shaped like index (NumPy would broadcast)
        corner = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))
        return xp.take_along_axis(self[corner], index, axis=dim)

    def d_self(grad, dim, index, self_sym_sizes):
        return _zeros_scatter(grad, self_sym_sizes, dim, index)


class ScatterAddBackward0(Op):
    """out = self, with src added at ``index`` along ``dim`` (repeated indices accumulate)"""
    saves = ("dim", "index")
    tensor_params = ("index",)
    promotes = True

    def forward(xp, self, src, *, dim, index):
        out = self.copy()
        _add_at_along(xp, out, index, src, dim)
        return out

    def d_self(grad, dim, index):
        return grad

    def d_src(grad, dim, index):
        return GatherBackward0.apply(grad, dim=dim, index=index)


class IndexSelectBackward0(Op):
    """out = the slices of self at ``index`` (a vector) along ``dim``, in that order, repeats allowed"""
    saves = ("dim", "index", "self_sym_sizes")
    tensor_params = ("index",)  # saved version-checked, as PyTorch does

    def forward(xp, self, *, dim, index):
        if self.ndim == 0:  # a 0-d input: its one value, 0-d (PyTorch's rule)
            return self.copy()
        return xp.take(self, index.reshape(-1), axis=dim)

    def d_self(grad, dim, index, self_sym_sizes):  # index_add into zeros: repeated slices accumulate
        xp = backend.namespace_of(grad._data)
        zeros = Tensor._make(xp.zeros(tuple(self_sym_sizes), dtype=grad._data.dtype))
        if not self_sym_sizes:
            return zeros + grad.sum()
        key = (slice(None),) * dim + (index.reshape(-1),)
        return zeros.index_put(key, grad, accumulate=True)

    def a_self(grad, dim, index, self_sym_sizes):  # (the array form)
        xp = backend.namespace_of(grad)
        out = xp.zeros(tuple(self_sym_sizes), dtype=grad.dtype)
        if not self_sym_sizes:
            return out + grad.sum()
        xp.add.at(out, (slice(None),) * dim + (index.reshape(-1),), grad)
        return out


def _add_at_along(xp, out, index, src, dim) -> None:
    """``out[..., index, ...] += src`` along ``dim``, accumulating repeated indices."""
    if out.ndim == 0:  # (a 0-d ``out`` takes its one element's additions; ``reshape`` is a view of it)
        xp.add.at(out.reshape(1), index.reshape(-1), src.reshape(-1)[:index.size])
        return
    grids = list(xp.indices(index.shape, sparse=True))
    grids[dim] = index
    xp.add.at(out, tuple(grids), src[tuple(slice(0, s) for s in index.shape)])


def _zeros_scatter(grad: Tensor, sizes: tuple, dim: int, index) -> Tensor:
    """zeros(sizes) with ``grad`` added at ``index`` along ``dim`` (differentiable in ``grad``)."""
    xp = backend.namespace_of(grad._data)
    zeros = Tensor._make(xp.zeros(sizes, dtype=grad._data.dtype))
    return ScatterAddBackward0.apply(zeros, grad, dim=dim, index=index)


# -- front-end functions ------------------------------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001 - mirrors torch.sum
    """Sum of all elements, or over ``dim`` (an int or a tuple)."""
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "bu" or (input._data.dtype.kind == "i" and input._data.itemsize < 8):
        input = input.to(backend.int64)  # PyTorch sums bool and small ints as int64
    if dim is None:
        return SumBackward0.apply(input)
    return SumBackward1.apply(input, dim=_dims(dim, input.ndim, "sum"), keepdim=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of all elements, or over ``dim``; floating dtypes only, as in PyTorch."""
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point():
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {input.dtype._legacy_name.replace('Tensor', '')}. [autograd_lab] convert first: t.float().mean()"
        )
    if dim is None:
        return MeanBackward0.apply(input)
    return MeanBackward1.apply(input, dim=_dims(dim, input.ndim, "mean"), keepdim=keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return ProdBackward0.apply(input)
    return ProdBackward1.apply(input, dim=_wrap_dim(dim, input.ndim, "prod"), keepdim=keepdim)


def _correction(unbiased, correction) -> int:
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance (Bessel-corrected unless ``unbiased=False`` or ``correction=0``)."""
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    return VarBackward0.apply(input, dim=_dims(dim, input.ndim, "var"), correction=_correction(unbiased, correction),
                              keepdim=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation (Bessel-corrected unless ``unbiased=False`` or ``correction=0``)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return StdBackward0.apply(input, dim=_dims(dim, input.ndim, "std"), correction=_correction(unbiased, correction),
                              keepdim=keepdim)


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
    indices = xp.expand_dims(getattr(xp, arg)(data, axis=d), d)
    values = dim_cls.apply(input if input.ndim else input.reshape(1), dim=d, indices=indices, keepdim=keepdim)
    if not input.ndim:
        values = values.reshape(())
    idx = indices if keepdim else xp.squeeze(indices, axis=d)
    return result_type(values, Tensor._make(idx.astype(xp.int64).reshape(values.shape)))


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Largest element; with ``dim``, ``(values, indices)``; with a tensor, the elementwise maximum."""
    from .pointwise import maximum
    return _select_reduction(input, dim, keepdim, other, "max", MaxBackward1, MaxBackward0, "argmax",
                             ValuesIndices, maximum)


def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """Smallest element; with ``dim``, ``(values, indices)``; with a tensor, the elementwise minimum."""
    from .pointwise import minimum
    return _select_reduction(input, dim, keepdim, other, "min", MinBackward1, MinBackward0, "argmin",
                             MinValuesIndices, minimum)


def amax(input, dim=None, keepdim=False):
    return max(input, dim, keepdim).values if dim is not None and isinstance(dim, int) else _amax_multi(
        input, dim, keepdim, "max")


def amin(input, dim=None, keepdim=False):
    return min(input, dim, keepdim).values if dim is not None and isinstance(dim, int) else _amax_multi(
        input, dim, keepdim, "min")


def _amax_multi(input, dim, keepdim, which):
    dims = _dims(dim, input.ndim, "a" + which)
    out = input
    for d in reversed(dims):
        out = (max if which == "max" else min)(out, d, keepdim=True).values
    return out if keepdim else out.reshape(tuple(s for i, s in enumerate(input.shape) if i not in dims))


def _arg(name):
    def fn(input, dim=None, keepdim=False):
        xp = backend.namespace_of(input._data)
        if dim is None:
            out = getattr(xp, name)(input._data.reshape(-1))
            out = xp.asarray(out, dtype=xp.int64)
            return Tensor._make(out.reshape((1,) * input.ndim) if keepdim else out)
        d = _wrap_dim(dim, input.ndim, name)
        return Tensor._make(getattr(xp, name)(input._data, axis=d, keepdims=keepdim).astype(xp.int64))
    fn.__name__ = name
    return fn


argmax = _arg("argmax")
argmin = _arg("argmin")


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))``, without overflow."""
    return LogsumexpBackward0.apply(input, dim=_dims(dim, input.ndim, "logsumexp"), keepdim=keepdim)


def gather(input, dim, index):
    """Pick values along ``dim`` at ``index`` (an int64 tensor shaped like the output)."""
    d = _wrap_dim(dim, input.ndim, "gather")
    _check_index("gather", input, d, index)
    return GatherBackward0.apply(input, dim=d, index=index)


def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices accumulate)."""
    d = _wrap_dim(dim, input.ndim, "scatter_add")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    _check_index("scatter", input, d, index, src)
    if src._data.dtype != input._data.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype [autograd_lab] scatter_add got "
                           f"self {input.dtype} and src {src.dtype}: convert src, e.g. src.to(self.dtype)")
    return ScatterAddBackward0.apply(input, src, dim=d, index=index)


def index_select(input, dim, index):
    """The slices of ``input`` at ``index`` (a vector of int32/int64) along ``dim``, as a copy."""
    d = _wrap_dim(dim, input.ndim, "index_select")
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' must be Tensor, not {type(index).__name__}")
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector [autograd_lab] got an index of shape "
                         f"{list(idx.shape)}: flatten it, or use gather for an index per element")
    if not _int32_or_int64(idx):
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index [autograd_lab] got {index.dtype}: "
                           "pass index.long()")
    if input.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    size = input.shape[d] if input.ndim else 1
    value = _first_out_of_bounds(idx, size)
    if value is not None:
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={value} axis_dim={size} [autograd_lab] "
                           f"index_select: indices along dim {d} must be in [0, {size - 1}]")
    return IndexSelectBackward0.apply(input, dim=d, index=index)


def _check_index(op: str, input, dim: int, index, src=None) -> None:
    """PyTorch's checks of a gather/scatter index, with its messages: an int32/int64 tensor with the
    input's number of dims, no larger than the input outside ``dim`` (and than ``src`` everywhere), and
    every value in ``[0, input.shape[dim])`` (NumPy would wrap negative ones around)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    idx = index._data
    if not _int32_or_int64(idx):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index [autograd_lab] got {index.dtype}: "
                           "pass index.long()")
    shape, ishape = tuple(input.shape), tuple(idx.shape)
    if builtins.max(len(ishape), 1) != builtins.max(len(shape), 1):
        what = "input" if op == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor [autograd_lab] "
                           f"{op} of a tensor of shape {list(shape)} got an index of shape {list(ishape)}")
    if len(shape) == len(ishape):
        larger = builtins.any(i > s for k, (i, s) in enumerate(zip(ishape, shape)) if k != dim)
        if src is None and larger:
            bad = next(k for k, (i, s) in enumerate(zip(ishape, shape)) if k != dim and i > s)
            raise RuntimeError(f"Size does not match at dimension {bad} expected index {list(ishape)} to be no larger "
                               f"than self {list(shape)} apart from dimension {dim}")
        if src is not None and (larger or builtins.any(i > s for i, s in zip(ishape, src.shape))):
            raise RuntimeError(f"Expected index {list(ishape)} to be no larger than self {list(shape)} apart from "
                               f"dimension {dim} and to be no larger size than src {list(src.shape)}")
    size = shape[dim] if shape else 1
    value = _first_out_of_bounds(idx, size)
    if value is not None:
        raise RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {size}")


def _int32_or_int64(idx) -> bool:
    """Whether an index array has one of the dtypes PyTorch's index ops take."""
    return idx.dtype.kind in "iu" and idx.dtype.itemsize in (4, 8)


def _first_out_of_bounds(idx, size: int) -> int | None:
    """The first value of the index array ``idx`` outside ``[0, size)`` (NumPy would wrap a negative one
    around), or ``None``."""
    if not idx.size:
        return None
    outside = (idx < 0) | (idx >= size)
    return int(backend.to_host(idx[outside]).flat[0]) if bool(outside.any()) else None


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size`` (the inverse of broadcasting ``size`` up to ``input``'s shape)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)
    have = tuple(input.shape)
    lead = len(have) - len(shape)
    if lead < 0 or builtins.any(s not in (1, h) for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(have)}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1)
    out = sum(input, dims, keepdim=True) if dims else input
    return out.reshape(shape) if lead else out


def all(input, dim=None, keepdim=False):  # noqa: A001
    xp = backend.namespace_of(input._data)
    return Tensor._make(xp.asarray(xp.all(input._data, axis=dim, keepdims=keepdim)))


def any(input, dim=None, keepdim=False):  # noqa: A001
    xp = backend.namespace_of(input._data)
    return Tensor._make(xp.asarray(xp.any(input._data, axis=dim, keepdims=keepdim)))


def _bind() -> None:
    for name, fn in dict(sum=sum, mean=mean, prod=prod, var=var, std=std, max=max, min=min, amax=amax,
                         amin=amin, argmax=argmax, argmin=argmin, logsumexp=logsumexp, gather=gather, index_select=index_select,
                         scatter_add=scatter_add, sum_to_size=sum_to_size, all=all, any=any).items():
        setattr(Tensor, name, fn)


_bind()
