"""More ways of joining, splitting and broadcasting tensors, as NumPy users know them: ``tile``, ``hstack``,
``vstack`` (``row_stack``), ``column_stack``, ``dstack``, ``atleast_1d/2d/3d``, ``tensor_split`` (``hsplit``,
``vsplit``, ``dsplit``), ``block_diag``, ``cartesian_prod``, ``combinations``, ``broadcast_tensors``,
``broadcast_shapes`` and ``meshgrid``.

All but ``block_diag`` are built from the ops of :mod:`.shape`, :mod:`.split` and :mod:`.join`, as PyTorch
builds them: their results carry the node of the last op they run (``hstack``'s is ``CatBackward0``, a piece of
``tensor_split`` is a ``SliceBackward0`` view, ``meshgrid``'s grids are ``ExpandBackward0`` views), so a
learner who looks at ``grad_fn`` sees what PyTorch shows. ``block_diag`` is an op of its own there
(``BlockDiagBackward0``), and here: its gradient cuts each block back out of the incoming gradient.
"""

from __future__ import annotations

import operator
import warnings

from .. import backend
from ..tensor import Size, Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._errors import broadcast_message
from ._op import LINEAR, Op
from .join import cat, repeat, stack
from .shape import SliceBackward0, _sizes, expand, reshape, unsqueeze, view


class BlockDiagBackward0(Op):
    """out = the inputs (each seen as a matrix: 0-d as 1x1, 1-d as one row) along the diagonal of a zero matrix"""
    saves = ("shapes",)
    hidden_saves = ("shapes",)  # (PyTorch keeps it out of sight too)

    def forward(xp, *tensors, shapes):
        blocks = [t.reshape(_as_matrix(s)) for t, s in zip(tensors, shapes)]
        out = xp.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), dtype=tensors[0].dtype)
        row = col = 0
        for b in blocks:
            out[row:row + b.shape[0], col:col + b.shape[1]] = b
            row, col = row + b.shape[0], col + b.shape[1]
        return out

    def backward(grad, shapes):
        pieces, row, col = [], 0, 0
        for shape in shapes:
            rows, cols = _as_matrix(shape)
            pieces.append(formulas.reshape(grad[row:row + rows, col:col + cols], tuple(shape)))
            row, col = row + rows, col + cols
        return tuple(pieces)

    jvp = LINEAR


def _as_matrix(shape) -> tuple:
    """The shape ``block_diag`` sees a block as: 0-d is 1x1, 1-d is one row."""
    return (1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else tuple(shape)


# -- joining -------------------------------------------------------------------------------------
@checked
def tile(input, *dims):
    """``input`` repeated ``dims[i]`` times along each dim; fewer ``dims`` than dims are padded with 1s in front."""
    dims = _sizes(dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def _tensor_list(tensors, op: str) -> list:
    """The tensors given to a joining function (a list or tuple of them), checked non-empty, as PyTorch does."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def _one_or_many(tensors: tuple, fn):
    """``atleast_*d`` of one tensor is a tensor; of several (or of one list), a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(fn(t) for t in tensors[0])
    if len(tensors) == 1:
        return fn(tensors[0])
    return tuple(fn(t) for t in tensors)


def _at_least_1d(t: Tensor) -> Tensor:
    return t if t.ndim else reshape(t, (1,))


def _at_least_2d(t: Tensor) -> Tensor:
    return reshape(t, (1, 1)) if t.ndim == 0 else unsqueeze(t, 0) if t.ndim == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if t.ndim == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least one dim (a 0-d one becomes a 1-element vector); the tensor itself otherwise."""
    return _one_or_many(tensors, _checked_tensor(_at_least_1d, "atleast_1d"))


def atleast_2d(*tensors):
    """Each tensor with at least two dims (a vector becomes one row)."""
    return _one_or_many(tensors, _checked_tensor(_at_least_2d, "atleast_2d"))


def atleast_3d(*tensors):
    """Each tensor with at least three dims (a vector of n becomes (1, n, 1), a matrix (m, n, 1))."""
    return _one_or_many(tensors, _checked_tensor(_at_least_3d, "atleast_3d"))


def _checked_tensor(fn, op: str):
    def one(t):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(t).__name__}")
        return fn(t)
    return one


@checked
def hstack(tensors, *, out=None):
    """Join horizontally: vectors end to end, anything else along dim 1 (0-d tensors count as vectors)."""
    pieces = [_at_least_1d(t) for t in _tensor_list(tensors, "hstack")]
    return cat(pieces, 0 if pieces[0].ndim == 1 else 1, out=out)


@checked
def vstack(tensors, *, out=None):
    """Join vertically, along dim 0, after making each tensor at least 2-d (a vector becomes a row)."""
    return cat([_at_least_2d(t) for t in _tensor_list(tensors, "vstack")], 0, out=out)


row_stack = vstack


@checked
def column_stack(tensors, *, out=None):
    """Join as columns, along dim 1: a vector (or a 0-d tensor) becomes one column."""
    pieces = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in _tensor_list(tensors, "column_stack")]
    return cat(pieces, 1, out=out)


@checked
def dstack(tensors, *, out=None):
    """Join along dim 2 (depth), after making each tensor at least 3-d."""
    return cat([_at_least_3d(t) for t in _tensor_list(tensors, "dstack")], 2, out=out)


def block_diag(*tensors):
    """A matrix with the given tensors (0-d, 1-d as a row, or 2-d) as blocks along its diagonal, zeros elsewhere."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' must be tuple of Tensors, but found element of type "
                            f"{type(t).__name__} at pos {i}")
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions [autograd_lab] block_diag places matrices; reshape this one "
                               f"(shape {list(t.shape)}) to two dims first")
    if not tensors:
        return Tensor._make(backend.np.zeros((1, 0), dtype=backend.float32.np_dtype))
    if len({t._data.dtype for t in tensors}) > 1:
        target = backend.result_type(*tensors)
        tensors = tuple(t if t.dtype is target else t.to(target) for t in tensors)
    return BlockDiagBackward0.apply(*tensors, shapes=tuple(tuple(t.shape) for t in tensors))


# -- splitting -----------------------------------------------------------------------------------
@checked(kinds={"dim": "int"})
def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` cut along ``dim``: into ``sections`` pieces of nearly equal size (the first ones one
    larger), or at the listed ``indices`` (slicing rules: out-of-range indices clamp, negative ones count from
    the end). ``indices_or_sections`` may also be an int64 tensor: 0-d for sections, 1-d for indices."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, input.ndim, "tensor_split")
    cuts = _tensor_split_arg(indices_or_sections)
    n = input.shape[d]
    if isinstance(cuts, int):
        if cuts <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cuts}")
        small, extra = divmod(n, cuts)
        bounds, start = [], 0
        for i in range(cuts):
            end = start + small + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    else:
        edges = [0, *cuts, None]
        bounds = [slice(a, b).indices(n)[:2] for a, b in zip(edges[:-1], edges[1:])]
    return tuple(SliceBackward0.apply(input, dim=d, start=a, end=max(a, b), step=1) for a, b in bounds)


def _tensor_split_arg(arg):
    """``tensor_split``'s second argument: an int (sections) or a list of ints (indices)."""
    if isinstance(arg, Tensor):
        if arg.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {arg.ndim} dims")
        if arg.dtype is not backend.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{backend.kernel_type_name(arg.dtype)} [autograd_lab] pass it .long()")
        return int(arg.item()) if arg.ndim == 0 else [int(i) for i in arg.tolist()]
    if isinstance(arg, (list, tuple)):
        return [operator.index(i) for i in arg]
    return operator.index(arg)


def _split_along(input, indices_or_sections, dim: int, op: str, least: int):
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim``, where sections must divide the size."""
    if input.ndim < least:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {least} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


@checked
def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (along dim 0 for a vector); a number of sections must divide the size."""
    return _split_along(input, indices_or_sections, 1 if input.ndim > 1 else 0, "hsplit", 1)


@checked
def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims; a number of sections must divide the size."""
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


@checked
def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims; a number of sections must divide the size."""
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


# -- broadcasting --------------------------------------------------------------------------------
def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of the given shapes broadcast to (each shape an int or a sequence of ints),
    computed without making any tensor."""
    sizes = []
    for shape in shapes:
        if isinstance(shape, (int, backend.np.integer)) and not isinstance(shape, bool):
            shape = (shape,)
        if not isinstance(shape, (tuple, list, Size)) or not all(isinstance(s, int) for s in shape):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
        if any(s < 0 for s in shape):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        sizes.append(tuple(shape))
    result = [1] * max((len(s) for s in sizes), default=0)
    for shape in sizes:
        for k in range(-1, -len(shape) - 1, -1):
            if shape[k] != 1 and result[k] == 1:
                result[k] = shape[k]
    for i, shape in enumerate(sizes):
        for k in range(-1, -len(shape) - 1, -1):
            if shape[k] != 1 and shape[k] != result[k]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[k]} at {k}! Mismatching "
                                   f"argument at index {i} had {tuple(shape)}; but expected shape should be "
                                   f"broadcastable to {result}")
    return Size(result)


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common broadcast shape (views, ``ExpandBackward0``); a tensor already of that
    shape comes back itself."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"broadcast_tensors(): argument 'tensors' must be tuple of Tensors, but found element of "
                            f"type {type(t).__name__} at pos {i}")
    shapes = [tuple(t.shape) for t in tensors]
    try:
        shape = tuple(backend.np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(broadcast_message("broadcast_tensors", shapes)) from None
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


_MESHGRID_WARNING = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 0-d or 1-d tensors: with ``indexing='ij'`` grid ``i`` varies along dim ``i``; with
    ``'xy'`` (NumPy's default) the first two dims are swapped. Without ``indexing`` it is ``'ij'``, with PyTorch's
    warning. Each grid is an expanded view (``ExpandBackward0``) of its input."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: a tensor of "
                               f"shape {list(t.shape)} [autograd_lab] flatten it first")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype [autograd_lab] got "
                               f"{tensors[0].dtype} and {t.dtype}: convert them to one dtype first")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    grids = []
    for i, t in enumerate(order):
        seen = [1] * len(order)
        seen[i] = -1
        grids.append(expand(view(t, tuple(seen)), shape))
    if swap:  # (the grids of the swapped inputs, back in the order given)
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of one element from each vector, one combination per row (a vector given alone comes
    back itself)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([reshape(g, (-1,)) for g in meshgrid(*tensors, indexing="ij")], 1)


@checked(kinds={"r": "int", "with_replacement": "bool"})
def combinations(input, r=2, with_replacement=False):
    """The combinations of ``r`` elements of a vector, one per row, in lexicographic order of positions (with
    ``with_replacement``, a position may repeat); as PyTorch builds them: ``r`` coordinate grids of the vector,
    each read where the positions increase (``masked_select``), stacked as columns."""
    from .scatter_more import masked_select
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(backend.namespace_of(input._data).zeros((0,), dtype=input._data.dtype))
    np = backend.np
    positions = np.indices((input.shape[0],) * r)
    increasing = np.ones(positions.shape[1:], dtype=bool)
    for a, b in zip(positions[:-1], positions[1:]):
        increasing &= (a <= b) if with_replacement else (a < b)
    mask = Tensor._make(backend.move(increasing, input.device))
    return stack([masked_select(g, mask) for g in meshgrid(*([input] * r), indexing="ij")], 1)


def _bind() -> None:
    for name, fn in dict(tile=tile, tensor_split=tensor_split, hsplit=hsplit, vsplit=vsplit, dsplit=dsplit).items():
        setattr(Tensor, name, fn)


_bind()
