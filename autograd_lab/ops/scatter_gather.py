"""Gather and scatter: ``gather``, ``scatter_add`` and ``index_select``, which read or add values at an index.

Each is the other's gradient: gathering's gradient adds the incoming values back where they were read
(``scatter_add`` into zeros), and scatter-adding's gradient for ``src`` gathers them. The index tensors are
saved version-checked, as PyTorch saves them: changing one in place before ``backward()`` is an error.
"""

from __future__ import annotations

import builtins

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op


class GatherBackward0(Op):
    """out[i][j] = self[index[i][j]][j] (along ``dim``); ``self`` is saved (for its shape) as PyTorch saves it"""
    saves = ("dim", "index", "self", "sparse_grad")
    tensor_params = ("index",)

    def forward(xp, self, *, dim, index, sparse_grad=False):
        if self.ndim == 0:  # a 0-d input gathers as a 1-element vector (PyTorch's rule)
            return xp.take_along_axis(self.reshape(1), index.reshape(-1), axis=0).reshape(index.shape)
        # index may be smaller than self in the other dims: the output is shaped like index (NumPy would broadcast)
        corner = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))
        return xp.take_along_axis(self[corner], index, axis=dim)

    def d_self(grad, dim, index, self):
        return formulas.call(ScatterAddBackward0, formulas.zeros(tuple(self.shape), grad), grad, dim=dim, index=index)

    jvp = LINEAR


class ScatterAddBackward0(Op):
    """out = self, with src added at ``index`` along ``dim`` (repeated indices accumulate)"""
    saves = ("dim", "index")
    tensor_params = ("index",)
    promotes = True

    def forward(xp, self, src, *, dim, index):
        out = self.copy()
        _add_at_along(xp, out, index, src, dim)
        return out

    def d_self(grad):
        return grad

    def d_src(grad, dim, index):
        return formulas.call(GatherBackward0, grad, dim=dim, index=index)

    jvp = LINEAR


class IndexSelectBackward0(Op):
    """out = the slices of self at ``index`` (a vector) along ``dim``, in that order, repeats allowed"""
    saves = ("dim", "index", "self_sym_sizes")
    tensor_params = ("index",)

    def forward(xp, self, *, dim, index):
        if self.ndim == 0:  # a 0-d input: its one value, 0-d (PyTorch's rule)
            return self.copy()
        return xp.take(self, index.reshape(-1), axis=dim)

    def d_self(grad, dim, index, self_sym_sizes):  # index_add into zeros: repeated slices accumulate
        from .fill import IndexPutBackward0
        zeros = formulas.zeros(self_sym_sizes, grad)
        if not self_sym_sizes:
            return zeros + formulas.sum(grad)
        key = (slice(None),) * dim + (index.reshape(-1),)
        return formulas.call(IndexPutBackward0, zeros, grad, indices=key, accumulate=True)

    jvp = LINEAR


def _add_at_along(xp, out, index, src, dim) -> None:
    """``out[..., index, ...] += src`` along ``dim``, accumulating repeated indices."""
    if out.ndim == 0:  # (a 0-d ``out`` takes its one element's additions; ``reshape`` is a view of it)
        xp.add.at(out.reshape(1), index.reshape(-1), src.reshape(-1)[:index.size])
        return
    grids = list(xp.indices(index.shape, sparse=True))
    grids[dim] = index
    xp.add.at(out, tuple(grids), src[tuple(slice(0, s) for s in index.shape)])


# -- front-end functions ------------------------------------------------------------------------
@checked(kinds={"dim": "int"})
def gather(input, dim, index):
    """Pick values along ``dim`` at ``index`` (an int64 tensor shaped like the output)."""
    d = _wrap_dim(dim, input.ndim, "gather")
    _check_index("gather", input, d, index)
    return GatherBackward0.apply(input, dim=d, index=index)


@checked(kinds={"dim": "int"})
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


@checked(kinds={"dim": "int"})
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
        where = (f"[autograd_lab] index_select: index {value} along dim {d} of a tensor of shape {list(input.shape)}; "
                 f"indices must be in [0, {size - 1}]")
        if d == 0:  # (PyTorch's kernels word it two ways, by the dim)
            raise IndexError(f"index out of range in self {where}")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={value} axis_dim={size} {where}")
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


def _bind() -> None:
    Tensor.gather = gather
    Tensor.scatter_add = scatter_add
    Tensor.index_select = index_select


_bind()
