"""Writing at an index, out of place: ``scatter``, ``index_fill``, ``index_add``, ``index_copy``,
``masked_scatter``; and reading at flat positions: ``take``.

Each computes a fresh tensor; the in-place forms (``scatter_``, ``index_fill_``, ``index_add_``, ``index_copy_``,
``masked_scatter_``) are these ops committed into the tensor by :mod:`autograd_lab.ops.inplace`. Overwritten
places get a zero gradient; what was written gets the gradient of the places it landed in (read back with
``gather``, ``index_select`` or a mask); what was added gets the gradient unchanged. The index and mask tensors
are saved version-checked, as PyTorch saves them.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .fill import IndexPutBackward0
from .indexing import IndexBackward0
from .scatter_gather import GatherBackward0, IndexSelectBackward0, _check_index, _first_out_of_bounds


def _scatter_key(xp, index, dim):
    """The key that reaches ``out[..., index[i][j], ...]`` along ``dim`` for each position of ``index``."""
    grids = list(xp.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _slices_key(dim, index):
    """The key of the slices at ``index`` (a vector) along ``dim``."""
    return (slice(None),) * dim + (index.reshape(-1),)


class ScatterBackward0(Op):
    """out = self with the values of ``src`` written at ``index`` along ``dim``"""
    saves = ("dim", "index")
    tensor_params = ("index",)

    def forward(xp, self, src, *, dim, index):
        out = self.copy()
        if out.ndim == 0:
            out.reshape(1)[index.reshape(-1)] = src.reshape(-1)[:index.size]
        else:
            out[_scatter_key(xp, index, dim)] = src[tuple(slice(0, s) for s in index.shape)]
        return out

    def d_self(grad, dim, index):
        return formulas.call(ScatterBackward1, grad, dim=dim, index=index, value=0)

    def d_src(grad, dim, index):
        return formulas.call(GatherBackward0, grad, dim=dim, index=index)

    jvp = LINEAR


class ScatterBackward1(Op):
    """out = self with the number ``value`` written at ``index`` along ``dim``"""
    saves = ("dim", "index")
    tensor_params = ("index",)

    def forward(xp, self, *, dim, index, value):
        out = self.copy()
        if out.ndim == 0:
            out.reshape(1)[index.reshape(-1)] = value
        else:
            out[_scatter_key(xp, index, dim)] = value
        return out

    def d_self(grad, dim, index):
        return formulas.call(ScatterBackward1, grad, dim=dim, index=index, value=0)

    f_self = d_self  # the written places hold a constant


class IndexFillBackward0(Op):
    """out = self with the slices at ``index`` along ``dim`` filled with the number ``value``"""
    saves = ("dim", "index")
    tensor_params = ("index",)

    def forward(xp, self, *, dim, index, value):
        out = self.copy()
        (out.reshape(1) if out.ndim == 0 else out)[_slices_key(dim, index)] = value
        return out

    def d_self(grad, dim, index):
        return formulas.call(IndexFillBackward0, grad, dim=dim, index=index, value=0)

    f_self = d_self


class IndexFillBackward1(Op):
    """out = self with the slices at ``index`` along ``dim`` filled with the value of a 0-dim tensor"""
    saves = ("dim", "index")
    tensor_params = ("index",)

    def forward(xp, self, value, *, dim, index):
        return IndexFillBackward0.forward(xp, self, dim=dim, index=index, value=value.reshape(()))

    def d_self(grad, dim, index):
        return formulas.call(IndexFillBackward0, grad, dim=dim, index=index, value=0)

    def d_value(grad, dim, index):  # the gradients of the places filled (each once, however often it is indexed)
        return formulas.sum(formulas.where(_filled(grad, dim, index), grad, 0.0))

    f_self = d_self

    def f_value(tangent, dim, index, result):
        return formulas.call(IndexFillBackward1, formulas.zeros_like(result), tangent, dim=dim, index=index)


def _filled(grad, dim: int, index):
    """A constant mask, broadcastable to ``grad``: True on the slices at ``index`` along ``dim``."""
    positions = formulas.array_of(index).reshape(-1)
    xp = backend.namespace_of(positions)
    if grad.ndim == 0:
        return xp.asarray(positions.size > 0)
    mask = xp.zeros(grad.shape[dim], dtype=bool)
    mask[positions] = True
    return mask.reshape((-1,) + (1,) * (grad.ndim - dim - 1))


class IndexAddBackward0(Op):
    """out = self with ``alpha * source`` added to the slices at ``index`` along ``dim`` (repeats accumulate)"""
    saves = ("alpha", "dim", "index", "source", "source_dim")
    tensor_params = ("index",)

    def forward(xp, self, source, *, dim, index, alpha):
        out = self.copy()
        added = source if alpha == 1 else source * xp.asarray(alpha, dtype=source.dtype)
        target = out.reshape(1) if out.ndim == 0 else out
        xp.add.at(target, _slices_key(dim, index), added.reshape(-1) if out.ndim == 0 else added)
        return out

    def d_self(grad):
        return grad

    def d_source(grad, alpha, dim, index, source):
        picked = formulas.reshape(formulas.call(IndexSelectBackward0, grad, dim=dim, index=index), tuple(source.shape))
        return picked if alpha == 1 else picked * alpha

    jvp = LINEAR


class IndexCopyBackward0(Op):
    """out = self with the slices at ``index`` along ``dim`` replaced by those of ``source``"""
    saves = ("dim", "index", "source", "source_dim")
    tensor_params = ("index",)

    def forward(xp, self, source, *, dim, index):
        out = self.copy()
        (out.reshape(1) if out.ndim == 0 else out)[_slices_key(dim, index)] = source.reshape(-1) if out.ndim == 0 \
            else source
        return out

    def d_self(grad, dim, index):
        return formulas.call(IndexFillBackward0, grad, dim=dim, index=index, value=0)

    def d_source(grad, dim, index, source):
        return formulas.reshape(formulas.call(IndexSelectBackward0, grad, dim=dim, index=index), tuple(source.shape))

    jvp = LINEAR


class MaskedScatterBackward0(Op):
    """out = self (broadcast with ``mask``) with the first values of ``source``, in order, where ``mask`` is True"""
    saves = ("mask", "source_sym_sizes")
    tensor_params = ("mask",)

    def forward(xp, self, source, *, mask):
        shape = xp.broadcast_shapes(self.shape, mask.shape)
        where = xp.broadcast_to(mask, shape)
        count = int(where.sum())
        if count > source.size:
            raise RuntimeError("Number of elements of source < number of ones in mask [autograd_lab] masked_scatter "
                               f"needs {count} values, source has {source.size}")
        out = xp.broadcast_to(self, shape).copy()
        out[where] = source.reshape(-1)[:count]
        return out

    def d_self(grad, mask):
        return formulas.where(mask, 0.0, grad)

    def d_source(grad, mask, source_sym_sizes):  # the gradients where the mask is True, in order, then zeros
        where = formulas.array_of(mask)
        where = backend.namespace_of(where).broadcast_to(where, grad.shape)
        picked = formulas.call(IndexBackward0, grad, indices=where)
        total = 1
        for s in source_sym_sizes:
            total *= s
        padded = formulas.cat([picked, formulas.zeros((total - picked.shape[0],), picked)], 0)
        return formulas.reshape(padded, tuple(source_sym_sizes))

    jvp = LINEAR


class TakeBackward0(Op):
    """out = self's elements at the flat positions ``index`` (negative ones count from the end), shaped like it"""
    saves = ("index", "self")  # (self for its shape, as PyTorch saves it)
    tensor_params = ("index",)

    def forward(xp, self, *, index):
        return self.reshape(-1)[index]

    def d_self(grad, index, self):
        sizes = tuple(self.shape)
        total = 1
        for s in sizes:
            total *= s
        flat = formulas.call(IndexPutBackward0, formulas.zeros((total,), grad), grad, indices=(index,), accumulate=True)
        return formulas.reshape(flat, sizes)

    jvp = LINEAR


# -- front-end functions ------------------------------------------------------------------------
def _dtype_name(tensor: Tensor) -> str:
    """A dtype as PyTorch's C++ messages name it (``Float``, ``Long``)."""
    return tensor.dtype._legacy_name[: -len("Tensor")]


@checked(kinds={"dim": "int", "src": "Tensor|Number", "value": "number?"})
def scatter(input, dim, index, src=None, *, value=None):
    """``input`` with ``src`` (a tensor, or a number: also ``value=``) written at ``index`` along ``dim``."""
    d = _wrap_dim(dim, input.ndim, "scatter")
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' [autograd_lab] give src (a tensor) "
                        "or value (a number)")
    if isinstance(src, Tensor):
        _check_index("scatter", input, d, index, src)
        if src.dtype is not input.dtype:
            raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype [autograd_lab] self is "
                               f"{input.dtype}, src {src.dtype}: convert src, e.g. src.to(self.dtype)")
        return ScatterBackward0.apply(input, src, dim=d, index=index)
    _check_index("scatter", input, d, index)
    number = value if src is None else src
    return ScatterBackward1.apply(input, dim=d, index=index, value=backend.check_scalar(number, input.dtype, "scatter"))


def _vector_index(op: str, input: Tensor, dim: int, index, *, wraps: bool = False):
    """PyTorch's checks of the index of ``index_fill``/``index_add``/``index_copy``: an int64 vector (or scalar)
    of positions along ``dim``; returns it (negative positions counted from the end where ``wraps``)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype is not backend.int64:
        if op == "index_fill_":
            raise IndexError("index_fill_(): Expected dtype int64 for index. [autograd_lab] pass index.long()")
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {_dtype_name(index)} "
                           "[autograd_lab] pass index.long()")
    if index.ndim > 1:
        if op == "index_fill_":
            raise RuntimeError("Index has to be a vector/scalar")
        raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {index.ndim} with type: Long and "
                         f"size: {list(index.shape)}")
    size = input.shape[dim] if input.ndim else 1
    positions = index._data
    if wraps:
        positions = backend.namespace_of(positions).where(positions < 0, positions + size, positions)
    bad = _first_out_of_bounds(positions, size)
    if bad is not None:
        shown = int(backend.to_host(index._data.reshape(-1)[(positions.reshape(-1) == bad)]).flat[0])
        prefix = "index_copy_(): " if op == "index_copy_" else ""
        error = RuntimeError if op == "index_add_" else IndexError
        raise error(f"{prefix}index {shown} is out of bounds for dimension {dim} with size {size}")
    return index if positions is index._data else Tensor._make(positions)


def _index_source(op: str, input: Tensor, dim: int, index: Tensor, source) -> None:
    if not isinstance(source, Tensor):
        raise TypeError(f"{op}(): argument 'source' must be Tensor, not {type(source).__name__}")
    count = source.shape[dim] if source.ndim else 1
    if index.numel() != count:
        if op == "index_add_":
            raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                               f"source.size(dim): ({count}), for dim: {dim}")
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                         f"({count})")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{op}(): self ({_dtype_name(input)}) and source ({_dtype_name(source)}) must have the same "
                           "scalar type [autograd_lab] convert source, e.g. source.to(self.dtype)")


@checked(kinds={"dim": "int", "value": "Tensor|Number"})
def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` filled with ``value`` (a number or a 0-dim tensor)."""
    d = _wrap_dim(dim, input.ndim, "index_fill")
    index = _vector_index("index_fill_", input, d, index, wraps=True)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return IndexFillBackward1.apply(input, value, dim=d, index=index)
    number = backend.check_scalar(value, input.dtype, "index_fill_")
    return IndexFillBackward0.apply(input, dim=d, index=index, value=number)


@checked(kinds={"dim": "int", "source": "Tensor", "alpha": "number"})
def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added to the slices at ``index`` along ``dim`` (repeats accumulate)."""
    d = _wrap_dim(dim, input.ndim, "index_add")
    index = _vector_index("index_add_", input, d, index)
    _index_source("index_add_", input, d, index, source)
    return IndexAddBackward0.apply(input, source, dim=d, index=index, alpha=alpha)


@checked(kinds={"dim": "int", "source": "Tensor"})
def index_copy(input, dim, index, source):
    """``input`` with the slices at ``index`` along ``dim`` replaced by the slices of ``source``, in order."""
    d = _wrap_dim(dim, input.ndim, "index_copy")
    index = _vector_index("index_copy_", input, d, index)
    _index_source("index_copy_", input, d, index, source)
    return IndexCopyBackward0.apply(input, source, dim=d, index=index)


@checked(kinds={"source": "Tensor"})
def masked_scatter(input, mask, source):
    """``input`` with the values of ``source``, in order, written where ``mask`` (broadcast) is True."""
    if not isinstance(mask, Tensor) or mask.dtype is not backend.bool_:
        got = _dtype_name(mask) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {got} "
                           "[autograd_lab] build the mask with a comparison (x > 0) or convert it with .bool()")
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, not {type(source).__name__}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got{_dtype_name(input)} "
                           f"and {_dtype_name(source)}")
    return MaskedScatterBackward0.apply(input, source, mask=mask)


@checked
def take(input, index):
    """The elements of ``input`` at the flat positions ``index`` (int64; negative ones count from the end)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"take(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype is not backend.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_dtype_name(index)} "
                           "[autograd_lab] pass index.long()")
    check_flat_positions(index, input.numel())
    return TakeBackward0.apply(input, index=index)


def check_flat_positions(index: Tensor, total: int) -> None:
    """PyTorch's error for a flat position (``take``, ``put``) outside a tensor of ``total`` elements."""
    if index.numel():
        positions = index._data
        outside = (positions < -total) | (positions >= total)
        if bool(outside.any()):
            bad = int(backend.to_host(positions[outside]).flat[0])
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {total} elements.")


def _bind() -> None:
    from .inplace import _method
    for name, fn in dict(scatter=scatter, index_fill=index_fill, index_add=index_add, index_copy=index_copy,
                         masked_scatter=masked_scatter, take=take).items():
        setattr(Tensor, name, fn)
        if name != "take":
            setattr(Tensor, name + "_", _method(name + "_", fn))


_bind()
