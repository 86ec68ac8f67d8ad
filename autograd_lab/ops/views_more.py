"""More views and rearrangements: ``moveaxis``, ``swapdims`` (and ``swapdims_``), ``ravel``, ``fliplr``,
``flipud``, ``Tensor.unfold`` (sliding windows, a view: ``UnfoldBackward0``), ``unsqueeze_`` and ``squeeze_`` (in
place, changing only the shape), ``narrow_copy``, ``storage_offset``, ``diag``, ``diagflat``, ``tril_indices``,
``triu_indices`` and ``unravel_index``.

``unfold`` is the one new view: each window is a stretch of the input's memory, so the windows overlap when
``step < size``, and its gradient adds each window's gradient back where the window lies
(``UnfoldBackwardBackward0``, whose own gradient is ``unfold`` again). ``narrow_copy`` is ``narrow``'s copy and
``diag`` of a matrix is ``diagonal``'s copy, as in PyTorch, where their nodes are ``NarrowCopyBackward0`` and
``DiagonalBackward0_copy``. The in-place shape changes run the view op and let the tensor take it over, as
``transpose_`` does (:mod:`.inplace`); their nodes have PyTorch's names (``UnsqueezeBackward1``,
``SqueezeBackward3``/``4``/``5``).
"""

from __future__ import annotations

import operator

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import LINEAR, Op
from .inplace import TransposeBackward1, _swap_in_place
from .join import flip
from .shape import (
    DiagonalBackward0,
    SqueezeBackward0,
    SqueezeBackward2,
    SqueezeBackward4,
    UnsqueezeBackward0,
    _embed,
    contiguous,
    movedim,
    transpose,
    view,
)
from .triangles import diag_embed
from .view_history import _element_offset


class UnfoldBackward0(Op):
    """out = the windows of ``size`` elements, ``step`` apart, along ``dimension``: that dim counts the windows
    and a new last dim runs along each one (a view: the windows share the input's memory)"""
    saves = ("dimension", "self_sym_sizes", "size", "step")
    is_view = True

    def forward(xp, self, *, dimension, size, step):
        if self.ndim == 0:
            return self.reshape((1,))[:size]
        shape, strides = list(self.shape), list(self.strides)
        shape[dimension] = (shape[dimension] - size) // step + 1
        strides[dimension] *= step
        return xp.lib.stride_tricks.as_strided(self, tuple(shape) + (size,), tuple(strides) + (self.strides[dimension],))

    def d_self(grad, dimension, self_sym_sizes, size, step):
        return formulas.call(UnfoldBackwardBackward0, grad, sizes=tuple(self_sym_sizes), dim=dimension, size=size,
                             step=step)


class UnfoldBackwardBackward0(Op):
    """out = zeros(sizes) with each window of ``self`` (as ``unfold`` cut them) added back where it lies"""
    saves = ("dim", "size", "step")
    jvp = LINEAR

    def forward(xp, self, *, sizes, dim, size, step):
        out = xp.zeros(sizes, dtype=self.dtype)
        if not sizes:
            return out + self.sum()
        windows = self.shape[dim]
        moved = xp.moveaxis(self, dim, -2)  # (..., windows, size)
        target = xp.moveaxis(out, dim, -1)  # a writable view of out, the unfolded dim last
        for k in range(size):  # the k-th element of every window: positions k, k + step, ...
            target[..., k:k + step * (windows - 1) + 1:step] += moved[..., k]
        return out

    def d_self(grad, dim, size, step):
        return formulas.call(UnfoldBackward0, grad, dimension=dim, size=size, step=step)


class NarrowCopyBackward0(Op):
    """out = a copy of ``length`` elements of self from ``start`` along ``dim``"""
    saves = ("dim", "length", "self_sym_sizes", "start")
    jvp = LINEAR

    def forward(xp, self, *, dim, start, length):
        return self[(slice(None),) * dim + (slice(start, start + length),)].copy()

    def d_self(grad, dim, length, self_sym_sizes, start):
        return _embed(grad, self_sym_sizes, dim, start, start + length)


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801  (PyTorch's name for the node of diagonal_copy)
    """out = a copy of a diagonal of self (``diag`` of a matrix)"""
    is_view = False
    jvp = LINEAR

    def forward(xp, self, *, offset, dim1, dim2):
        return xp.diagonal(self, offset, dim1, dim2).copy()


class UnsqueezeBackward1(UnsqueezeBackward0):
    """``unsqueeze_(dim)``: a size-1 dim inserted in place"""


class SqueezeBackward3(SqueezeBackward0):
    """``squeeze_()``: every size-1 dim removed in place"""


class SqueezeBackward5(SqueezeBackward2):
    """``squeeze_(dims)``: the listed size-1 dims removed in place"""


# -- axes ----------------------------------------------------------------------------------------
@checked(kinds={"source": "dims", "destination": "dims"})
def moveaxis(input, source, destination):
    """NumPy's name for ``movedim``: the dims ``source`` moved to the positions ``destination`` (a view)."""
    return movedim(input, source, destination)


@checked
def swapdims(input, dim0, dim1):
    """NumPy's name for ``transpose``: dims ``dim0`` and ``dim1`` swapped (a view)."""
    return transpose(input, dim0, dim1)


@checked
def swapdims_(self, dim0, dim1):
    """Swap dims ``dim0`` and ``dim1`` of this tensor in place (``transpose_``)."""
    n = self.ndim
    dims = dict(dim0=_wrap_dim(dim0, n, "swapdims_"), dim1=_wrap_dim(dim1, n, "swapdims_"))
    return _swap_in_place(self, "swapdims_", TransposeBackward1, dims)


@checked(kinds={"dim": "int"})
def unsqueeze_(self, dim):
    """Insert a size-1 dim at ``dim`` in place: ``x.unsqueeze_(0)`` is ``x = x.unsqueeze(0)`` without a new tensor."""
    return _swap_in_place(self, "unsqueeze_", UnsqueezeBackward1, {"dim": _wrap_dim(dim, self.ndim + 1, "unsqueeze_")})


@checked
def squeeze_(self, dim=None):
    """Remove size-1 dims in place (all of them, or only those among ``dim`` that have size 1)."""
    if dim is None:
        return _swap_in_place(self, "squeeze_", SqueezeBackward3,
                              {"dim": tuple(i for i, s in enumerate(self.shape) if s == 1)})
    if isinstance(dim, int):
        return _swap_in_place(self, "squeeze_", SqueezeBackward4, {"dim": _wrap_dim(dim, self.ndim, "squeeze_")})
    return _swap_in_place(self, "squeeze_", SqueezeBackward5,
                          {"dim": tuple(_wrap_dim(d, self.ndim, "squeeze_") for d in dim)})


@checked
def ravel(input):
    """The elements as a vector: a view when the memory is contiguous, else a contiguous copy viewed so."""
    return view(contiguous(input), (-1,))


@checked
def fliplr(input):
    """``input`` with its columns (dim 1) in reverse order (a copy)."""
    if input.ndim < 2:
        raise RuntimeError(f"Input must be >= 2-d. [autograd_lab] fliplr reverses dim 1; got {input.ndim} dims")
    return flip(input, 1)


@checked
def flipud(input):
    """``input`` with its rows (dim 0) in reverse order (a copy)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d. [autograd_lab] flipud reverses dim 0; got a 0-dim tensor")
    return flip(input, 0)


@checked(kinds={"dimension": "int", "size": "int", "step": "int"})
def unfold(self, dimension, size, step):
    """A view of the windows of ``size`` elements, ``step`` apart, along ``dimension``: that dim then counts the
    windows, and a new last dim of ``size`` runs along each window."""
    d = _wrap_dim(dimension, self.ndim, "unfold")
    have = self.shape[d] if self.ndim else 1
    if size > have:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {have} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return UnfoldBackward0.apply(self, dimension=d, size=size, step=step)


@checked(kinds={"dim": "int", "start": "int"})
def narrow_copy(input, dim, start, length):
    """A copy of ``length`` elements from ``start`` along ``dim`` (``narrow`` makes a view of the same elements)."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim, "narrow_copy")
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return NarrowCopyBackward0.apply(input, dim=d, start=start, length=length)


def storage_offset(self) -> int:
    """Where this tensor's first element sits in the memory it shares with its base, counted in elements (0 for a
    tensor that is not a view)."""
    return 0 if self._base is None else _element_offset(self._data, self._base._data)


# -- diagonals -----------------------------------------------------------------------------------
@checked(kinds={"diagonal": "int"})
def diag(input, diagonal=0):
    """Of a vector: a square matrix with it on the ``diagonal``-th diagonal. Of a matrix: a copy of that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return DiagonalBackward0_copy.apply(input, offset=diagonal, dim1=0, dim2=1)


@checked
def diagflat(input, offset=0):
    """A square matrix with the elements of ``input`` (flattened) on the ``offset``-th diagonal."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


def _triangle_indices(op: str, row: int, col: int, offset: int, dtype, device) -> Tensor:
    """The (row, column) coordinates of a triangle of a row x col matrix, row by row, as a 2 x N tensor."""
    row, col, offset = operator.index(row), operator.index(col), operator.index(offset)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = backend.int64 if dtype is None else backend.to_dtype(dtype)
    if dtype not in (backend.int32, backend.int64):  # (PyTorch's kernels: these two; a narrower one would wrap)
        raise no_kernel(op, dtype, f"{op} gives integer coordinates: pass int64 (the default) or int32")
    np = backend.np
    pick = np.tril_indices if op == "tril_indices" else np.triu_indices
    coords = np.stack(pick(row, offset, col)).astype(dtype.np_dtype) if row and col else \
        np.zeros((2, 0), dtype=dtype.np_dtype)
    return Tensor._make(coords) if device is None else Tensor._make(coords).to(device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The coordinates of the lower triangle (on and below the ``offset``-th diagonal) of a row x col matrix: a
    2 x N int64 tensor, rows then columns, in row-major order."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The coordinates of the upper triangle (on and above the ``offset``-th diagonal) of a row x col matrix."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device)


def unravel_index(indices, shape) -> tuple:
    """The coordinates, in a tensor of ``shape``, of the flat positions ``indices`` (an integer tensor): one int64
    tensor per dim, each shaped like ``indices``. Positions outside the shape wrap around, as in PyTorch."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a tensor, got {type(indices).__name__} [autograd_lab] wrap the "
                        "positions with al.tensor(...)")
    if indices.dtype._category != 1 or indices.dtype is backend.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype!r} [autograd_lab] pass "
                        "integer positions, e.g. indices.long()")
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(operator.index(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    flat = indices._data.astype(backend.np.int64)
    if 0 in shape and flat.size:  # (PyTorch divides by the zero size, integer division by zero)
        raise RuntimeError("ZeroDivisionError [autograd_lab] a shape with a 0-size dim has no positions to "
                           f"unravel into; got shape {shape}")
    coords, stride = [], 1
    for s in reversed(shape):
        coords.append((flat // stride) % s if s else flat * 0)
        stride *= s
    return tuple(Tensor._make(c) for c in reversed(coords))


def _bind() -> None:
    for name, fn in dict(swapdims=swapdims, moveaxis=moveaxis, swapdims_=swapdims_, unsqueeze_=unsqueeze_,
                         squeeze_=squeeze_, ravel=ravel, fliplr=fliplr, flipud=flipud, unfold=unfold,
                         narrow_copy=narrow_copy, storage_offset=storage_offset, diag=diag, diagflat=diagflat).items():
        setattr(Tensor, name, fn)


_bind()
