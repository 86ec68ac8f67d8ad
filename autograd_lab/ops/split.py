"""Views that come several at a time: ``split`` (pieces of a size, or of listed sizes), ``chunk`` (a number
of nearly equal pieces) and ``unbind`` (every slice along a dim).

Each output is a view of the input. Their op's backward gets one gradient per output (``None`` where an
output got none, which contributes zeros) and joins them back: ``cat`` for pieces, ``stack`` for slices.
PyTorch forbids changing these views in place while grad mode is on (see :mod:`.inplace`).
"""

from __future__ import annotations

from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op


def _each(grads) -> tuple:
    """The gradients of a multi-output view's outputs: with a single output, the engine passes it alone."""
    return grads if isinstance(grads, tuple) else (grads,)


def _fill_missing(grads, like_shapes, ref) -> list:
    """Gradients of multi-output views: outputs that got none contribute zeros."""
    return [g if g is not None else formulas.zeros(shape, ref) for g, shape in zip(grads, like_shapes)]


class SplitBackward0(Op):
    """outputs = views of consecutive pieces of ``split_size`` along ``dim``"""
    saves = ("dim", "self_sym_sizes", "split_size")
    is_view = True

    def forward(xp, self, *, split_size, dim):
        n = self.shape[dim]
        bounds = list(range(split_size, n, split_size)) if n else []
        return tuple(xp.split(self, bounds, axis=dim)) if bounds or n else (self,)

    def backward(grads, dim, self_sym_sizes, split_size):
        grads = _each(grads)
        ref = next(g for g in grads if g is not None)
        n = self_sym_sizes[dim]
        shapes = []
        for start in range(0, n, split_size) if n else [0]:
            shape = list(self_sym_sizes)
            shape[dim] = min(split_size, n - start)
            shapes.append(tuple(shape))
        return formulas.cat(_fill_missing(grads, shapes, ref), dim)


class SplitWithSizesBackward0(Op):
    """outputs = views of pieces of the given sizes along ``dim``"""
    saves = ("dim", "self_sym_sizes", "split_sizes")
    is_view = True

    def forward(xp, self, *, split_sizes, dim):
        bounds, total = [], 0
        for s in split_sizes[:-1]:
            total += s
            bounds.append(total)
        return tuple(xp.split(self, bounds, axis=dim))

    def backward(grads, dim, self_sym_sizes, split_sizes):
        grads = _each(grads)
        ref = next(g for g in grads if g is not None)
        shapes = []
        for s in split_sizes:
            shape = list(self_sym_sizes)
            shape[dim] = s
            shapes.append(tuple(shape))
        return formulas.cat(_fill_missing(grads, shapes, ref), dim)


class UnsafeSplitBackward0(SplitBackward0):
    """``unsafe_split``: split's pieces, sharing its memory but not tracked as views (each has its own version
    counter, and may be changed in place: the caller promises not to change the input through them)"""
    is_view = False
    jvp = LINEAR  # (a view op needs no rule; these are not tracked as views)


class UnsafeSplitWithSizesBackward0(SplitWithSizesBackward0):
    """``unsafe_split_with_sizes``: pieces of the given sizes, sharing memory but not tracked as views"""
    is_view = False
    jvp = LINEAR


class UnbindBackward0(Op):
    """outputs = the slices along ``dim``, as views"""
    saves = ("dim",)
    is_view = True

    def forward(xp, self, *, dim):
        index = (slice(None),) * dim
        return tuple(self[index + (i, Ellipsis)] for i in range(self.shape[dim]))  # `...` keeps 0-d views

    def backward(grads, dim):
        grads = _each(grads)
        ref = next(g for g in grads if g is not None)
        return formulas.stack(_fill_missing(grads, [ref.shape] * len(grads), ref), dim)


# -- front-end functions ------------------------------------------------------------------------
@checked(kinds={"split_size_or_sections": "ints", "dim": "int"})
def split(input, split_size_or_sections, dim=0):
    """Views of consecutive pieces: of size ``split_size`` each, or of the listed sizes."""
    d = _wrap_dim(dim, input.ndim, "split")
    if isinstance(split_size_or_sections, int):
        if split_size_or_sections <= 0 and input.shape[d]:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {input.shape[d]}")
        return SplitBackward0.apply(input, split_size=split_size_or_sections, dim=d)
    return SplitWithSizesBackward0.apply(input, split_sizes=_checked_sizes(input, split_size_or_sections, d), dim=d)


def _checked_sizes(input, split_sizes, d: int) -> tuple:
    """The sizes of ``split_with_sizes``, refused with PyTorch's errors unless none is negative and they sum to
    the size of dim ``d``."""
    sizes = tuple(int(s) for s in split_sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={list(sizes)}")
    if sum(sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input tensor's "
                           f"size at dimension {d}), but got split_sizes={list(sizes)}")
    return sizes


@checked(kinds={"split_sizes": "ints", "dim": "int"})
def split_with_sizes(input, split_sizes, dim=0):
    """Views of consecutive pieces of the listed sizes along ``dim`` (``split`` with a list)."""
    d = _wrap_dim(dim, input.ndim, "split_with_sizes")
    return SplitWithSizesBackward0.apply(input, split_sizes=_checked_sizes(input, split_sizes, d), dim=d)


@checked(kinds={"split_sizes": "ints", "dim": "int"})
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` whose pieces are not tracked as views: each may be changed in place, with grad mode
    on, where a view from ``split`` may not (``UnsafeSplitWithSizesBackward0``)."""
    d = _wrap_dim(dim, input.ndim, "split_with_sizes")
    return UnsafeSplitWithSizesBackward0.apply(input, split_sizes=_checked_sizes(input, split_sizes, d), dim=d)


@checked(kinds={"split_size": "int", "dim": "int"})
def unsafe_split(input, split_size, dim=0):
    """``split`` into pieces of ``split_size`` (an int only) not tracked as views (``UnsafeSplitBackward0``)."""
    if not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' must be int, not {type(split_size).__name__}")
    d = _wrap_dim(dim, input.ndim, "split")
    if split_size <= 0 and input.shape[d]:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {input.shape[d]}")
    return UnsafeSplitBackward0.apply(input, split_size=split_size, dim=d)


def _chunk_size(input, chunks, dim):
    """What ``chunk`` splits by: pieces of ceil(n / chunks) (at least 1), or, as PyTorch, ``chunks`` empty pieces of
    an empty dim (a list of sizes)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[_wrap_dim(dim, input.ndim, "chunk")]
    return [0] * chunks if n == 0 else max(-(-n // chunks), 1)


@checked(kinds={"dim": "int"})
def chunk(input, chunks, dim=0):
    """Split into ``chunks`` pieces of (nearly) equal size."""
    return split(input, _chunk_size(input, chunks, dim), dim)


@checked(kinds={"dim": "int"})
def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` whose pieces are not tracked as views (each may be changed in place)."""
    size = _chunk_size(input, chunks, dim)
    return unsafe_split_with_sizes(input, size, dim) if isinstance(size, list) else unsafe_split(input, size, dim)


@checked(kinds={"dim": "int"})
def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of views (none along a dim of size 0)."""
    d = _wrap_dim(dim, input.ndim, "unbind")
    return UnbindBackward0.apply(input, dim=d) if input.shape[d] else ()


def _bind() -> None:
    for name, fn in dict(split=split, chunk=chunk, unbind=unbind, split_with_sizes=split_with_sizes,
                         unsafe_split=unsafe_split, unsafe_chunk=unsafe_chunk,
                         unsafe_split_with_sizes=unsafe_split_with_sizes).items():
        setattr(Tensor, name, fn)


_bind()
