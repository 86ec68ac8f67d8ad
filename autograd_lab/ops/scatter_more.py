"""Selecting and scattering, more ways: ``take_along_dim``, ``masked_select``, ``scatter_reduce`` (and
``scatter_reduce_``, ``scatter_add_``), ``index_reduce`` (and ``index_reduce_``), ``select_scatter``,
``slice_scatter`` and ``diagonal_scatter``; and the top-level ``masked_fill``, ``index_put``/``index_put_`` and the
method ``Tensor.where``.

``take_along_dim`` is ``gather`` after broadcasting, as in PyTorch (its node is ``GatherBackward0``).
``masked_select`` reads the elements where a (broadcast) mask is true into a vector; its gradient writes the
vector back in order (``masked_scatter`` into zeros). The ``*_scatter`` ops write ``src`` into a slice, a
selected index or a diagonal of a copy of ``input``: the gradient of ``input`` is the incoming one with zeros
where ``src`` went, and ``src`` gets that region of it.

``scatter_reduce`` combines the values of ``src`` sent to one place with ``sum``, ``prod``, ``mean``, ``amax``
or ``amin`` (``include_self``: whether the value already there takes part). Its gradients are PyTorch's: ``prod``
divides the result by each factor, computing the product without it where that factor is 0; ``amax``/``amin``
share the gradient evenly among the values equal to the result; ``mean`` divides by how many values were
averaged. As in PyTorch, the gradient of ``src`` for ``prod`` cannot be differentiated again where two zeros of
``src`` meet in one place: that gradient's node (``Error``) raises when a backward reaches it.
"""

from __future__ import annotations

from .. import backend
from ..autograd.graph import Node, gradient_edge
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._errors import broadcast_message, no_kernel
from ._op import LINEAR, Op
from .index_writes import MaskedScatterBackward0, ScatterBackward1, _scatter_key
from .pointwise import where
from .scatter_gather import (
    GatherBackward0,
    ScatterAddBackward0,
    _check_index,
    _first_out_of_bounds,
    gather,
    scatter_add,
)
from .shape import DiagonalBackward0, expand, select, view

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
DOUBLE_BACKWARD_MESSAGE = ("scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
                           "scattered to the same position in self")
INDEX_DOUBLE_BACKWARD_MESSAGE = ("index_reduce(): Double backward is unsupported for source when >1 zeros in source are "
                                 "scattered to the same position in self")


class MaskedSelectBackward0(Op):
    """out = the elements of self (broadcast with ``mask``) where ``mask`` is True, in order, as a vector"""
    saves = ("mask", "self")
    tensor_params = ("mask",)

    def forward(xp, self, *, mask):
        shape = xp.broadcast_shapes(self.shape, mask.shape)
        return xp.broadcast_to(self, shape)[xp.broadcast_to(mask, shape)]

    def d_self(grad, mask, self):  # the gradient put back in order where the mask is True (the engine sums it down)
        shape = backend.np.broadcast_shapes(tuple(self.shape), tuple(mask.shape))
        return formulas.call(MaskedScatterBackward0, formulas.zeros(shape, grad), grad, mask=mask)

    jvp = LINEAR


class ScatterReduceBackward0(Op):
    """out = self with the values of src sent to each place (``index`` along ``dim``) combined by ``reduce``"""
    saves = ("dim", "include_self", "index", "reduce", "result", "self", "src")
    tensor_params = ("index",)

    def forward(xp, self, src, *, dim, index, reduce, include_self):
        out = self.copy()
        target = out.reshape(1) if out.ndim == 0 else out  # (a view: a 0-d self is a 1-element vector)
        key = (index.reshape(-1),) if out.ndim == 0 else _scatter_key(xp, index, dim)
        values = src.reshape(-1)[:index.size] if out.ndim == 0 else src[tuple(slice(0, s) for s in index.shape)]
        if not include_self:
            target[key] = _identity(xp, reduce, out.dtype)
        {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}[reduce].at(
            target, key, values)
        if reduce == "mean":
            count = xp.full(target.shape, 1 if include_self else 0, dtype=out.dtype)
            xp.add.at(count, key, 1)
            count[count == 0] = 1
            target[...] = target // count if out.dtype.kind in "iu" else target / count
        return out

    def d_self(grad, dim, include_self, index, reduce, result, self, src):
        return _grad_self(grad, dim, include_self, index, reduce, result, self, src)

    def d_src(grad, dim, include_self, index, reduce, result, self, src):
        return _grad_src(grad, dim, include_self, index, reduce, result, self, src)

    def jvp(tangents, dim, include_self, index, reduce, result, self, src):
        return _reduce_jvp(tangents, dim, include_self, index, reduce, result, self, src)


def _reduce_jvp(tangents, dim, include_self, index, reduce, result, self, src):
    """Each output is a weighted sum of the tangents of what went into it, weighted as the gradients are; for
    amax/amin, the mean of the tangents of the values equal to the result that took part (PyTorch's forward
    formula: without ``include_self``, a self equal to the result is not counted where src went, although the
    gradients count it)."""
    self_t, src_t = tangents
    if reduce in ("amax", "amin"):
        self_is, src_is, _ = _ties(result, self, src, dim, index)
        n = formulas.call(ScatterReduceBackward0, self_is, src_is, dim=dim, index=index, reduce="sum",
                          include_self=include_self)
        return formulas.call(ScatterReduceBackward0, self_t * self_is, src_t * src_is, dim=dim, index=index,
                             reduce="sum", include_self=include_self) / n
    ones = formulas.ones_like(result)
    out = self_t * _grad_self(ones, dim, include_self, index, reduce, result, self, src)
    spread = src_t * _grad_src(ones, dim, include_self, index, reduce, result, self, src)
    return out + formulas.call(ScatterAddBackward0, formulas.zeros_like(result), spread, dim=dim, index=index)


def _identity(xp, reduce: str, dtype):
    """The value a place starts from when the value already there does not take part (``include_self=False``)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    info = xp.finfo(dtype) if dtype.kind == "f" else xp.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:
        return reduce == "amin"  # (bool)
    low = -xp.inf if dtype.kind == "f" else info.min
    high = xp.inf if dtype.kind == "f" else info.max
    return low if reduce == "amax" else high


def _gather(x, dim, index):
    return formulas.call(GatherBackward0, x, dim=dim, index=index)


def _scatter_add(base, values, dim, index):
    return formulas.call(ScatterAddBackward0, base, values, dim=dim, index=index)


def _counts(like, src, dim, include_self, index):
    """How many values each place averaged (1 where none: the place keeps its value)."""
    start = formulas.ones_like(like) if include_self else formulas.zeros_like(like)
    n = _scatter_add(start, formulas.ones_like(src), dim, index)
    return formulas.where(n == 0, formulas.ones_like(n), n)


def _check_src_meets_index(src, index) -> None:
    """PyTorch's error where its amax/amin/prod gradients compare ``src`` with values gathered at ``index`` (of
    ``index``'s shape) and the two shapes do not broadcast (a ``src`` larger than ``index``)."""
    shapes = [tuple(src.shape), tuple(index.shape)]
    try:
        backend.np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuntimeError(broadcast_message("scatter_reduce backward", shapes)) from None


def _ties(result, self, src, dim, index):
    """For amax/amin: where self and src equal the result, as numbers, and how many values share each result."""
    _check_src_meets_index(src, index)
    self_is = formulas.cast_like(self == result, result)
    src_is = formulas.cast_like(src == _gather(result, dim, index), result)
    return self_is, src_is, _scatter_add(self_is, src_is, dim, index)


def _grad_self(grad, dim, include_self, index, reduce, result, self, src):
    if reduce == "sum":
        out = grad
    elif reduce == "mean":
        out = grad / _counts(grad, src, dim, include_self, index)
    elif reduce == "prod":  # the product without self: computed with a 0 of self replaced by 1
        masked_self = formulas.where(self == 0, formulas.ones_like(self), self)
        without = formulas.call(ScatterReduceBackward0, masked_self, src, dim=dim, index=index, reduce=reduce,
                                include_self=include_self)
        out = grad * without / masked_self
    else:
        self_is, _, n = _ties(result, self, src, dim, index)
        out = self_is * (grad / n)
    return out if include_self else formulas.call(ScatterBackward1, out, dim=dim, index=index, value=0)


def _grad_src(grad, dim, include_self, index, reduce, result, self, src, message=DOUBLE_BACKWARD_MESSAGE):
    if reduce == "sum":
        return _gather(grad, dim, index)
    if reduce == "mean":
        return _gather(grad / _counts(grad, src, dim, include_self, index), dim, index)
    if reduce != "prod":
        _, src_is, n = _ties(result, self, src, dim, index)
        return src_is * _gather(grad / n, dim, index)
    _check_src_meets_index(src, index)
    zero = src == 0
    zeros_there = _gather(_scatter_add(formulas.zeros_like(self), formulas.cast_like(zero, self), dim, index), dim, index)
    single = zero & (zeros_there == 1)  # the only 0 sent to its place: the product of the others, computed
    masked_src = formulas.where(single, formulas.ones_like(src), src)
    without = formulas.call(ScatterReduceBackward0, self, masked_src, dim=dim, index=index, reduce=reduce,
                            include_self=include_self)
    divided = _gather(grad * result, dim, index) / formulas.where(zero, formulas.ones_like(src), src)
    out = formulas.where(single, _gather(grad * without, dim, index), divided)
    if isinstance(out, Tensor) and out.requires_grad and formulas.any_true(zeros_there > 1):
        return _delayed_error(out, message)
    return out


class IndexReduceBackward0(Op):
    """out = self with the slices of source combined, by ``reduce``, into the slices at ``index`` along ``dim``: a
    ``scatter_reduce`` whose index repeats ``index`` across the other dims, and whose gradients are its"""
    saves = ("dim", "include_self", "index", "reduce", "result", "self", "source")
    tensor_params = ("index",)

    def forward(xp, self, source, *, dim, index, reduce, include_self):
        return ScatterReduceBackward0.forward(xp, self, source, dim=dim, index=_spread(index, dim, source.shape),
                                              reduce=reduce, include_self=include_self)

    def d_self(grad, dim, include_self, index, reduce, result, self, source):
        return _grad_self(grad, dim, include_self, _spread(index, dim, source.shape), reduce, result, self, source)

    def d_source(grad, dim, include_self, index, reduce, result, self, source):
        return _grad_src(grad, dim, include_self, _spread(index, dim, source.shape), reduce, result, self, source,
                         INDEX_DOUBLE_BACKWARD_MESSAGE)

    def jvp(tangents, dim, include_self, index, reduce, result, self, source):
        return _reduce_jvp(tangents, dim, include_self, _spread(index, dim, source.shape), reduce, result, self, source)


def _spread(index, dim: int, shape):
    """``index_reduce``'s vector of positions as a ``scatter_reduce`` index shaped like ``source`` (an array, or a
    tensor where ``index`` is one)."""
    positions = formulas.array_of(index)
    xp = backend.namespace_of(positions)
    seen = [1] * len(shape)
    if shape:
        seen[dim] = -1
    spread = xp.ascontiguousarray(xp.broadcast_to(positions.reshape(seen), tuple(shape)))
    return Tensor._make(spread) if isinstance(index, Tensor) else spread


class Error(Node):
    """A gradient that is right but cannot be differentiated again: a backward that reaches this node raises
    (PyTorch's ``DelayedError``, whose node is named ``Error``)."""

    __slots__ = ("_message",)

    def __init__(self, tensor: Tensor, message: str) -> None:
        super().__init__([gradient_edge(tensor)], [(tensor._data.shape, tensor._data.dtype)])
        self._message = message

    def _backward(self, grad_outputs: tuple) -> tuple:
        raise RuntimeError(self._message + " [autograd_lab] the first gradient is right; a gradient of it through "
                           "this place is not computed (as in PyTorch)")


def _delayed_error(tensor: Tensor, message: str) -> Tensor:
    """``tensor``'s values, whose history is an ``Error`` node leading to ``tensor``'s."""
    return Tensor._make(tensor._data, grad_fn=Error(tensor, message))


def _written(xp, self, src, where: dict):
    """A copy of ``self`` with ``src`` written into the region ``where`` describes."""
    out = self.copy()
    _region(xp, out, where)[...] = src
    return out


def _region(xp, array, where: dict):
    """The writable view of ``array`` that a select, a slice or a diagonal picks."""
    if "offset" in where:
        return DiagonalBackward0.forward(xp, array, **where)
    if "index" in where:
        return array[(slice(None),) * where["dim"] + (where["index"], Ellipsis)]
    return array[(slice(None),) * where["dim"] + (slice(where["start"], where["end"], where["step"]),)]


def _picked(grad, where: dict):
    """The region of ``grad`` (array or tensor) where src was written: src's gradient."""
    if "offset" in where:
        return formulas.call(DiagonalBackward0, grad, **where)
    if "index" in where:
        return grad[(slice(None),) * where["dim"] + (where["index"], Ellipsis)]
    return grad[(slice(None),) * where["dim"] + (slice(where["start"], where["end"], where["step"]),)]


class SelectScatterBackward0(Op):
    """out = self with src written at ``index`` along ``dim``"""
    saves = ("dim", "index")
    jvp = LINEAR

    def forward(xp, self, src, *, dim, index):
        return _written(xp, self, src, dict(dim=dim, index=index))

    def d_self(grad, dim, index):
        where = dict(dim=dim, index=index)
        return formulas.call(SelectScatterBackward0, grad, formulas.zeros_like(_picked(grad, where)), **where)

    def d_src(grad, dim, index):
        return _picked(grad, dict(dim=dim, index=index))


class SliceScatterBackward0(Op):
    """out = self with src written into the slice ``start:end:step`` along ``dim``"""
    saves = ("dim", "end", "start", "step")
    jvp = LINEAR

    def forward(xp, self, src, *, dim, start, end, step):
        return _written(xp, self, src, dict(dim=dim, start=start, end=end, step=step))

    def d_self(grad, dim, end, start, step):
        where = dict(dim=dim, start=start, end=end, step=step)
        return formulas.call(SliceScatterBackward0, grad, formulas.zeros_like(_picked(grad, where)), **where)

    def d_src(grad, dim, end, start, step):
        return _picked(grad, dict(dim=dim, start=start, end=end, step=step))


class DiagonalScatterBackward0(Op):
    """out = self with src written on the ``offset`` diagonal of the dims ``dim1``, ``dim2``"""
    saves = ("dim1", "dim2", "offset")
    jvp = LINEAR

    def forward(xp, self, src, *, offset, dim1, dim2):
        return _written(xp, self, src, dict(offset=offset, dim1=dim1, dim2=dim2))

    def d_self(grad, dim1, dim2, offset):
        where = dict(offset=offset, dim1=dim1, dim2=dim2)
        return formulas.call(DiagonalScatterBackward0, grad, formulas.zeros_like(_picked(grad, where)), **where)

    def d_src(grad, dim1, dim2, offset):
        return _picked(grad, dict(offset=offset, dim1=dim1, dim2=dim2))


# -- front-end functions ------------------------------------------------------------------------
@checked(kinds={"indices": "Tensor", "dim": "int?"})
def take_along_dim(input, indices, dim=None):
    """The values of ``input`` at ``indices`` along ``dim`` (``gather`` after broadcasting ``input`` and
    ``indices`` in the other dims; negative indices count from the end); without ``dim``, at flat positions."""
    if indices.dtype is not backend.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{backend.kernel_type_name(indices.dtype)} [autograd_lab] pass indices.long()")
    if dim is None:
        return gather(view(input, (-1,)), 0, indices.reshape(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = _wrap_dim(dim, input.ndim, "take_along_dim")
    index_shape = _broadcast_except(input.shape, indices.shape, d, indices.shape[d])
    input_shape = _broadcast_except(indices.shape, input.shape, d, input.shape[d])
    size = input.shape[d]
    positions = indices._data
    if positions.size and bool((positions < 0).any()):
        positions = backend.namespace_of(positions).where(positions < 0, positions + size, positions)
    index = Tensor._make(backend.namespace_of(positions).broadcast_to(positions, index_shape))
    return gather(expand(input, input_shape), d, index)


def _broadcast_except(other, own, dim: int, size: int) -> tuple:
    """``own`` broadcast with ``other`` in every dim but ``dim``, which keeps ``size`` (PyTorch's error otherwise)."""
    other = tuple(other[:dim]) + (size,) + tuple(other[dim + 1:])
    try:
        return tuple(backend.np.broadcast_shapes(other, tuple(own)))
    except ValueError:
        raise RuntimeError(broadcast_message("take_along_dim", [other, own])) from None


@checked
def masked_select(input, mask):
    """The elements of ``input`` where the boolean ``mask`` (broadcast with it) is True, as a vector, in order."""
    if not isinstance(mask, Tensor) or mask.dtype is not backend.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask [autograd_lab] build the mask with a "
                           "comparison (x > 0) or convert it with .bool()")
    try:
        backend.np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except ValueError:
        raise RuntimeError(broadcast_message("masked_select", [tuple(mask.shape), tuple(input.shape)])) from None
    return MaskedSelectBackward0.apply(input, mask=mask)


@checked(kinds={"dim": "int", "reduce": None, "include_self": "bool"})
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with the values of ``src`` sent along ``dim`` to the places ``index`` names, combined with what is
    there by ``reduce``: ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"`` (the value already in place
    takes part when ``include_self``)."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # (PyTorch takes these two names too)
    if reduce not in REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d = _wrap_dim(dim, input.ndim, "scatter_reduce")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' must be Tensor, not {type(src).__name__}")
    _check_index("scatter", input, d, index, src)
    if src.dtype is not input.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype [autograd_lab] scatter_reduce got "
                           f"self {input.dtype} and src {src.dtype}: convert src, e.g. src.to(self.dtype)")
    if reduce == "mean" and input.dtype is backend.bool_:
        raise no_kernel("scatter_gather_tensor_cpu_reduce_mean", input.dtype, "a mean of booleans is not one: "
                        "convert first, e.g. x.float()")
    return ScatterReduceBackward0.apply(input, src, dim=d, index=index, reduce=reduce, include_self=bool(include_self))


@checked(kinds={"dim": "int", "source": "Tensor", "reduce": None, "include_self": "bool"})
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with the slices of ``source`` combined into the slices at ``index`` (a vector) along ``dim`` by
    ``reduce``: ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"`` (the slice already in place takes part when
    ``include_self``)."""
    if reduce not in REDUCTIONS[1:]:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _wrap_dim(dim, input.ndim, "index_reduce")
    _check_index_reduce(input, d, index, source)
    if input.dtype is backend.bool_:  # (PyTorch's kernels for booleans: only include_self, 2 dims or more, no mean)
        kernel = ("index_reduce_func_exclude_input_init" if not include_self else "index_func_" if input.ndim <= 1
                  else "div_floor_cpu" if reduce == "mean" else None)
        if kernel is not None:
            raise no_kernel(kernel, input.dtype, "index_reduce of booleans: convert first, e.g. x.int()")
    return IndexReduceBackward0.apply(input, source, dim=d, index=index, reduce=reduce, include_self=bool(include_self))


def _check_index_reduce(input: Tensor, dim: int, index, source: Tensor) -> None:
    """PyTorch's checks of ``index_reduce``'s index and source, with its messages."""
    if not isinstance(index, Tensor):
        raise TypeError(f"index_reduce(): argument 'index' must be Tensor, not {type(index).__name__}")
    kind = backend.kernel_type_name(index.dtype)
    if index.dtype not in (backend.int32, backend.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {kind} [autograd_lab] "
                           "pass index.long()")
    if index.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{kind} and size: {list(index.shape)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({backend.kernel_type_name(input.dtype)}) and source "
                           f"({backend.kernel_type_name(source.dtype)}) must have the same scalar type")
    if dim != 0 and dim >= source.ndim:
        raise RuntimeError(f"index_reduce_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    count = source.shape[dim] if source.ndim else 1
    if index.numel() != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({count}), for dim: {dim}")
    others = [s for k, s in enumerate(input.shape) if k != dim]
    if source.ndim != input.ndim or others != [s for k, s in enumerate(source.shape) if k != dim]:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                           f"self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if _first_out_of_bounds(index._data, input.shape[dim] if input.ndim else 1) is not None:
        raise IndexError(f"index out of range in self [autograd_lab] index_reduce: the positions along dim {dim} must "
                         f"be in [0, {input.shape[dim] if input.ndim else 1})")


def _check_region(src: Tensor, region_shape) -> None:
    if tuple(src.shape) != tuple(region_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(region_shape)}")


@checked(kinds={"src": "Tensor", "dim": "int", "index": "int"})
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``index`` along ``dim`` (where ``input.select(dim, index)``
    reads)."""
    picked = select(input, dim, index)  # (PyTorch's checks and errors of the position)
    d = _wrap_dim(dim, input.ndim, "select_scatter")
    _check_region(src, picked.shape)
    return SelectScatterBackward0.apply(input, src, dim=d, index=index % input.shape[d])


@checked(kinds={"src": "Tensor", "dim": "int", "start": "int?", "end": "int?", "step": "int"})
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written into the slice ``start:end:step`` along ``dim``."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim, "slice_scatter")
    start, end, _ = slice(start, end, step).indices(input.shape[d])
    end = max(start, end)
    _check_region(src, input.shape[:d] + (len(range(start, end, step)),) + input.shape[d + 1:])
    return SliceScatterBackward0.apply(input, src, dim=d, start=start, end=end, step=step)


@checked(kinds={"src": "Tensor"})
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written on the diagonal that ``input.diagonal(offset, dim1, dim2)`` reads."""
    picked = input.diagonal(offset, dim1, dim2)  # (PyTorch's checks and errors of the dims)
    _check_region(src, picked.shape)
    n = input.ndim
    return DiagonalScatterBackward0.apply(input, src, offset=offset, dim1=_wrap_dim(dim1, n, "diagonal_scatter"),
                                          dim2=_wrap_dim(dim2, n, "diagonal_scatter"))


@checked(name="where", kinds={"condition": "Tensor", "other": "Tensor|Number"})
def _where_method(self, condition, other):
    """``self`` where ``condition`` holds, else ``other``: ``al.where(condition, self, other)``."""
    return where(condition, self, other)


def index_put_(input, indices, values, accumulate=False):
    """Put ``values`` at ``indices`` (a tuple of index tensors) into ``input``, in place; ``accumulate`` adds them."""
    return input.index_put_(indices, values, accumulate)


def _bind() -> None:
    from .inplace import _method
    Tensor.where = _where_method
    Tensor.take_along_dim = take_along_dim
    Tensor.masked_select = masked_select
    for name, fn in dict(scatter_reduce=scatter_reduce, select_scatter=select_scatter, slice_scatter=slice_scatter,
                         diagonal_scatter=diagonal_scatter).items():
        setattr(Tensor, name, fn)
    Tensor.scatter_reduce_ = _method("scatter_reduce_", scatter_reduce)
    Tensor.index_reduce = index_reduce
    Tensor.index_reduce_ = _method("index_reduce_", index_reduce)
    Tensor.scatter_add_ = _method("scatter_add_", scatter_add)


_bind()
