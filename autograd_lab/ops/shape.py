"""Shape ops that are views: view, reshape, transpose, permute, expand, squeeze, unsqueeze, narrow,
select, diagonal (and ``reshape``'s copy where no view can express it). The views that come several at a
time (split, chunk, unbind) are in :mod:`.split`; the ops that build a new tensor from pieces (cat, stack,
repeat, flip) are in :mod:`.join`.

A view shares its base's memory and version counter (``_base`` points to the base): modifying one
in place changes the other. Each view's gradient is the inverse rearrangement of the incoming one;
slicing's embeds the incoming gradient in zeros (``SliceBackwardBackward0``). All are linear: a view's tangent is the
same view of the tangent.
"""

from __future__ import annotations

import operator

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .split import chunk, split, unbind  # noqa: F401  (re-exported: the family of views)


def _sizes(args) -> tuple:
    """Accept ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])``; each size an int (``operator.index``: a float is a
    TypeError, never truncated)."""
    if len(args) == 1 and not isinstance(args[0], int):
        if not isinstance(args[0], (tuple, list, range)):
            raise TypeError(f"expected a tuple of ints, got {type(args[0]).__name__}")
        return tuple(operator.index(s) for s in args[0])
    return tuple(operator.index(s) for s in args)


class ViewBackward0(Op):
    """out = self with another shape, same memory"""
    saves = ("self_sym_sizes",)
    is_view = True

    def forward(xp, self, *, shape):
        out = self.reshape(shape)
        if out.size and not xp.shares_memory(out, self):
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead. [autograd_lab] view"
                f"{tuple(shape)} of a non-contiguous tensor of shape {self.shape}"
            )
        return out

    def d_self(grad, self_sym_sizes):
        return grad.reshape(self_sym_sizes)


class ReshapeAliasBackward0(ViewBackward0):
    """out = self with another shape, same memory: reshape of a non-contiguous tensor that a view can
    still express (PyTorch records ``_reshape_alias`` there, not ``view``)"""


class UnsafeViewBackward0(Op):
    """out = a reshaped copy (reshape of a tensor that no view can express)"""
    saves = ("self_sym_sizes",)
    jvp = LINEAR

    def forward(xp, self, *, shape):
        return self.reshape(shape)

    def d_self(grad, self_sym_sizes):
        return grad.reshape(self_sym_sizes)


class AliasBackward0(Op):
    is_view = True

    def forward(xp, self):
        return self.view()

    def d_self(grad):
        return grad


class TBackward0(Op):
    is_view = True

    def forward(xp, self):
        return self.T

    def d_self(grad):
        return formulas.t(grad)


class TransposeBackward0(Op):
    saves = ("dim0", "dim1")
    is_view = True

    def forward(xp, self, *, dim0, dim1):
        return xp.swapaxes(self, dim0, dim1) if self.ndim else self[...]  # 0-dim: dims 0 and -1 are the tensor

    def d_self(grad, dim0, dim1):
        return formulas.transpose(grad, dim0, dim1) if grad.ndim else grad


class PermuteBackward0(Op):
    saves = ("dims",)
    is_view = True

    def forward(xp, self, *, dims):
        return self.transpose(dims)  # (the array method: NumPy's xp.transpose is a Python wrapper around it)

    def d_self(grad, dims):
        return formulas.permute(grad, _inverse(dims))


def _inverse(dims) -> list:
    """The permutation that undoes ``dims``."""
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return inverse


class ExpandBackward0(Op):
    """out = self broadcast to a larger shape, without copying"""
    saves = ("self_sym_sizes",)
    is_view = True

    def forward(xp, self, *, size):
        out = xp.broadcast_to(self, size)
        if not getattr(out.flags, "writeable", True) and self.flags.writeable:
            # NumPy's broadcast views are read-only; PyTorch's expanded tensors are not. Writes that
            # touch each memory location once (``t[0] = 1`` on a row-expanded ``t``, ``fill_``) go
            # through; the others are refused by ``check_inplace``'s overlap check, as in PyTorch.
            out.flags.writeable = True
        return out

    def d_self(grad, self_sym_sizes):
        return formulas.sum_to(grad, self_sym_sizes)


class _Squeeze(Op):
    """``dim`` (an int, or a tuple of them) is saved as given; only those of its dims that have size 1 go"""
    saves = ("self_sym_sizes",)
    is_view = True

    def forward(xp, self, *, dim):
        dims = (dim,) if dim.__class__ is int else dim
        return xp.squeeze(self, axis=tuple(d for d in dims if self.ndim and self.shape[d] == 1))

    def d_self(grad, self_sym_sizes):
        return grad.reshape(self_sym_sizes)


class SqueezeBackward0(_Squeeze):
    """squeeze(): every size-1 dim"""


class SqueezeBackward1(_Squeeze):
    """squeeze(dim)"""
    saves = ("dim", "self_sym_sizes")


class SqueezeBackward2(_Squeeze):
    """squeeze(dims)"""
    saves = ("dim", "self_sym_sizes")


class SqueezeBackward4(_Squeeze):
    """squeeze_(dim), in place in PyTorch: how matmul drops the row it added to a 1-D first operand (no view)"""
    saves, is_view = ("dim", "self_sym_sizes"), False  # it squeezes matmul's own intermediate: _base is None
    jvp = LINEAR  # (a view needs no forward rule; this one is not a view)


class UnsqueezeBackward0(Op):
    saves = ("dim",)
    is_view = True

    def forward(xp, self, *, dim):
        return xp.expand_dims(self, dim)

    def d_self(grad, dim):
        return formulas.squeeze(grad, dim)


class SliceBackward0(Op):
    """out = self[start:end:step] along ``dim``, a view"""
    saves = ("dim", "end", "self_sym_sizes", "start", "step")
    is_view = True

    def forward(xp, self, *, dim, start, end, step):
        return self[(slice(None),) * dim + (slice(start, end, step),)]

    def d_self(grad, dim, end, self_sym_sizes, start, step):
        return _embed(grad, self_sym_sizes, dim, start, end, step)


class SelectBackward0(Op):
    """out = self[..., index, ...] at ``dim``, a view with one dim fewer"""
    saves = ("dim", "index", "self_sym_sizes")
    is_view = True

    def forward(xp, self, *, dim, index):
        return self[(slice(None),) * dim + (index, Ellipsis)]  # `...` makes a 0-d result a view, not a copy

    def d_self(grad, dim, index, self_sym_sizes):
        return formulas.call(SelectBackwardBackward0, grad, sizes=tuple(self_sym_sizes), dim=dim, index=index)


class DiagonalBackward0(Op):
    saves = ("dim1", "dim2", "offset", "self_sym_sizes")
    is_view = True

    def forward(xp, self, *, offset, dim1, dim2):
        out = xp.diagonal(self, offset, dim1, dim2)
        if getattr(out.flags, "writeable", True) or not self.flags.writeable:
            return out
        # NumPy's diagonal is read-only; the same strides over a writable view make it writable,
        # so that in-place ops on a diagonal change the matrix, as in PyTorch.
        moved = xp.moveaxis(self, (dim1, dim2), (-2, -1))[..., max(-offset, 0):, max(offset, 0):]
        strides = moved.strides[:-2] + (moved.strides[-2] + moved.strides[-1],)
        return xp.lib.stride_tricks.as_strided(moved, out.shape, strides)  # (writable: NumPy's default)

    def d_self(grad, dim1, dim2, offset, self_sym_sizes):
        return formulas.call(DiagonalBackwardBackward0, grad, sizes=tuple(self_sym_sizes), offset=offset, dim1=dim1,
                             dim2=dim2)


class DiagonalBackwardBackward0(Op):
    """out = zeros(sizes) with ``self`` written on a diagonal (the gradient of ``diagonal``)"""
    saves = ("dim1", "dim2", "offset")
    jvp = LINEAR

    def forward(xp, self, *, sizes, offset, dim1, dim2):
        out = xp.zeros(sizes, dtype=self.dtype)
        moved = xp.moveaxis(out, (dim1, dim2), (-2, -1))  # a writable view; the diagonal is its last dim
        steps = xp.arange(self.shape[-1])
        moved[..., steps + max(-offset, 0), steps + max(offset, 0)] = self
        return out

    def d_self(grad, dim1, dim2, offset):
        return formulas.call(DiagonalBackward0, grad, offset=offset, dim1=dim1, dim2=dim2)


class SliceBackwardBackward0(Op):
    """out = zeros(sizes) with ``self`` written at ``start:end:step`` of ``dim`` (the gradient of slicing)"""
    saves = ("dim", "end", "start", "step")
    jvp = LINEAR

    def forward(xp, self, *, sizes, dim, start, end, step):
        out = xp.zeros(sizes, dtype=self.dtype)
        out[(slice(None),) * dim + (slice(start, end, step),)] = self
        return out

    def d_self(grad, dim, end, start, step):
        return formulas.call(SliceBackward0, grad, dim=dim, start=start, end=end, step=step)


class SelectBackwardBackward0(Op):
    """out = zeros(sizes) with ``self`` written at ``index`` of ``dim`` (the gradient of select)"""
    saves = ("dim", "index")
    jvp = LINEAR

    def forward(xp, self, *, sizes, dim, index):
        out = xp.zeros(sizes, dtype=self.dtype)
        out[(slice(None),) * dim + (index,)] = self
        return out

    def d_self(grad, dim, index):
        return formulas.call(SelectBackward0, grad, dim=dim, index=index)


def _embed(grad, sizes, dim: int, start: int, end: int, step: int = 1):
    """zeros(sizes) with ``grad`` written at ``start:end:step`` of ``dim``: a slice's gradient."""
    return formulas.call(SliceBackwardBackward0, grad, sizes=tuple(sizes), dim=dim, start=start, end=end, step=step)


# -- front-end functions ------------------------------------------------------------------------
def _infer_shape(shape: tuple, numel: int, op: str) -> tuple:
    known, unknown = 1, [i for i, s in enumerate(shape) if s == -1]
    for s in shape:
        if s != -1:
            known *= s
    if len(unknown) > 1:
        raise RuntimeError(f"only one dimension can be inferred [autograd_lab] {op}: shape {list(shape)} has "
                           "several -1s")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if unknown and not known and numel == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified "
                           "dimension size -1 can be any value and is ambiguous")
    if unknown and known and numel % known == 0:
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if any(s < 0 for s in shape) or _numel(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


@checked(kinds={"shape": None})  # (view(dtype) explains itself)
def view(input, *shape):
    """The same data seen with another shape (must be expressible without copying)."""
    if len(shape) == 1 and isinstance(shape[0], backend.dtype):
        raise TypeError("view(dtype) is not supported by autograd_lab; use .to(dtype) for a converted copy")
    return ViewBackward0.apply(input, shape=_infer_shape(_sizes(shape), input.numel(), "view"))


@checked
def reshape(input, *shape):
    """Another shape: a view when the memory layout allows, else a copy (as in PyTorch)."""
    shape = _infer_shape(_sizes(shape), input.numel(), "reshape")
    data = input._data
    if data.flags["C_CONTIGUOUS"] or data.size <= 1:
        return ViewBackward0.apply(input, shape=shape)
    attempt = data.reshape(shape)
    if backend.namespace_of(data).shares_memory(attempt, data):
        # (fix: this was ViewBackward0; PyTorch names the node of a non-contiguous reshape-as-view so)
        return ReshapeAliasBackward0.apply(input, shape=shape)
    return UnsafeViewBackward0.apply(input.clone(), shape=shape)


@checked
def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshape(input, 1)
    start = _wrap_dim(start_dim, input.ndim, "flatten")
    end = _wrap_dim(end_dim, input.ndim, "flatten")
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input.shape
    return reshape(input, tuple(shape[:start]) + (-1,) + tuple(shape[end + 1:]))


@checked(kinds={"dim": "int", "sizes": "ints"})
def unflatten(input, dim, sizes):
    d = _wrap_dim(dim, input.ndim, "unflatten")
    shape = input.shape
    return reshape(input, tuple(shape[:d]) + tuple(sizes) + tuple(shape[d + 1:]))


@checked
def t(input):
    """Transpose of a tensor of at most 2 dims."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return TBackward0.apply(input)


@checked
def transpose(input, dim0, dim1):
    n = input.ndim
    return TransposeBackward0.apply(input, dim0=_wrap_dim(dim0, n, "transpose"), dim1=_wrap_dim(dim1, n, "transpose"))


swapaxes = transpose


@checked
def permute(input, *dims):
    dims = _sizes(dims)
    if len(dims) != input.ndim:
        raise RuntimeError("permute(): number of dimensions in the tensor input does not match the length of the "
                           f"desired ordering of dimensions i.e. input.dim() = {input.ndim} is not equal to "
                           f"len(dims) = {len(dims)}")
    dims = tuple(_wrap_dim(d, input.ndim, "permute") for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"permute(): duplicate dims are not allowed (got {list(dims)})")
    return PermuteBackward0.apply(input, dims=dims)


@checked(kinds={"source": "dims", "destination": "dims"})
def movedim(input, source, destination):
    """Move the dims ``source`` (an int or a sequence) to the positions ``destination``; the others keep their order."""
    one = isinstance(source, int) and isinstance(destination, int)
    src, dst = ((source,), (destination,)) if one else (tuple(_sizes((source,))), tuple(_sizes((destination,))))
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain the "
                           f"same number of dims as destination ({list(dst)} dims)")
    given = {"source": src, "destination": dst}  # (the dims as given: PyTorch's message names them so)
    src = tuple(_wrap_dim(d, input.ndim, "movedim") for d in src)
    dst = tuple(_wrap_dim(d, input.ndim, "movedim") for d in dst)
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given[name])})")
    rest = iter(d for d in range(input.ndim) if d not in src)
    placed = dict(zip(dst, src))
    return permute(input, [placed[i] if i in placed else next(rest) for i in range(input.ndim)])


@checked
def expand(input, *sizes):
    """A view broadcasting size-1 dims to ``sizes`` (-1 keeps a dim); no memory is copied."""
    sizes = _sizes(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(
            f"expand({input.dtype._legacy_name}{{{list(input.shape)}}}, size={list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({input.ndim})"
        )
    lead = len(sizes) - input.ndim
    final = []
    for i in range(len(sizes) - 1, -1, -1):  # (from the last dim, as PyTorch checks them)
        s = sizes[i]
        have = input.shape[i - lead] if i >= lead else None
        if s == -1:
            if have is None:
                raise RuntimeError(f"expand: -1 is not allowed in a leading, non-existing dimension ({list(sizes)})")
            s = have
        if have is not None and have != 1 and have != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({have}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(input.shape)}"
            )
        final.append(s)
    return ExpandBackward0.apply(input, size=tuple(final[::-1]))


@checked
def expand_as(input, other):
    return expand(input, other.shape)


@checked
def broadcast_to(input, shape):
    return expand(input, shape)


@checked
def squeeze(input, dim=None):
    """Remove size-1 dims (all, or only ``dim`` if it has size 1)."""
    if dim is None:
        return SqueezeBackward0.apply(input, dim=tuple(i for i, s in enumerate(input.shape) if s == 1))
    if isinstance(dim, int):
        return SqueezeBackward1.apply(input, dim=_wrap_dim(dim, input.ndim, "squeeze"))
    return SqueezeBackward2.apply(input, dim=tuple(_wrap_dim(d, input.ndim, "squeeze") for d in dim))


@checked(kinds={"dim": "int"})
def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim`` (a view)."""
    return UnsqueezeBackward0.apply(input, dim=_wrap_dim(dim, input.ndim + 1, "unsqueeze"))


@checked(kinds={"dim": "int", "start": "int"})
def narrow(input, dim, start, length):
    """A view of ``length`` elements from ``start`` along ``dim``."""
    d = _wrap_dim(dim, input.ndim, "narrow")
    size = input.shape[d]
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return SliceBackward0.apply(input, dim=d, start=start, end=start + length, step=1)


@checked(kinds={"dim": "int", "index": "int"})
def select(input, dim, index):
    """A view of slice ``index`` along ``dim`` (that dim disappears)."""
    shape = input._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, len(shape), "select")
    size = shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {d}")
    return SelectBackward0.apply(input, dim=d, index=index + size if index < 0 else index)


@checked
def diagonal(input, offset=0, dim1=0, dim2=1):
    n = input.ndim
    wrapped1, wrapped2 = _wrap_dim(dim1, n, "diagonal"), _wrap_dim(dim2, n, "diagonal")
    if wrapped1 == wrapped2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2} [autograd_lab] a diagonal runs "
                           f"across two different dims of the input (shape {list(input.shape)}), e.g. dim1=0, dim2=1")
    return DiagonalBackward0.apply(input, offset=offset, dim1=wrapped1, dim2=wrapped2)


@checked
def contiguous(input):
    """``input`` itself if its memory is C-contiguous, else a contiguous copy."""
    return input if input._data.flags["C_CONTIGUOUS"] else input.clone()


@checked(kinds={"other": "Tensor"})
def view_as(input, other):
    return view(input, other.shape)


@checked(kinds={"other": "Tensor"})
def reshape_as(input, other):
    return reshape(input, other.shape)


def _bind() -> None:
    methods = dict(
        view=view, reshape=reshape, flatten=flatten, unflatten=unflatten, t=t, transpose=transpose,
        swapaxes=swapaxes, permute=permute, movedim=movedim, expand=expand, expand_as=expand_as,
        broadcast_to=broadcast_to, squeeze=squeeze, unsqueeze=unsqueeze, narrow=narrow, select=select, diagonal=diagonal,
        contiguous=contiguous, view_as=view_as, reshape_as=reshape_as,
    )
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(_reversed_dims, doc="All dims reversed (a view).")
    Tensor.mT = property(lambda self: self.transpose(-2, -1), doc="The last two dims swapped (a view).")
    Tensor.__iter__ = lambda self: iter(_iter_rows(self))


_REVERSED = {n: tuple(range(n))[::-1] for n in range(8)}  # .T's permutation, by ndim


def _reversed_dims(tensor):
    """``tensor.T``: all dims reversed (the dims are valid by construction, so no checks)."""
    dims = _REVERSED.get(tensor._data.ndim)
    return permute(tensor, tuple(range(tensor.ndim))[::-1]) if dims is None else PermuteBackward0.apply(tensor, dims=dims)


def _iter_rows(tensor):
    if tensor.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return unbind(tensor, 0)


_bind()
