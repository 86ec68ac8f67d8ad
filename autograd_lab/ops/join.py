"""Ops that build a new tensor from pieces: ``cat``, ``stack``, ``repeat`` and ``flip`` (copies, not views).

Each one's gradient takes the pieces back apart: ``cat``'s splits the incoming gradient, ``stack``'s
unbinds it, ``repeat``'s sums the copies, ``flip``'s flips it again. All four are linear: their forward
derivative (``jvp = LINEAR``) builds the same from the tangents.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .out import write_out
from .shape import _sizes


class RepeatBackward0(Op):
    """out = self tiled ``repeats`` times along each dim (a copy)"""
    saves = ("repeats", "self_sym_sizes")

    def forward(xp, self, *, repeats):
        lead = len(repeats) - self.ndim
        return xp.tile(self.reshape((1,) * lead + self.shape), repeats)

    def d_self(grad, repeats, self_sym_sizes):
        lead = len(repeats) - len(self_sym_sizes)
        sizes = (1,) * lead + tuple(self_sym_sizes)
        split = []
        for r, s in zip(repeats, sizes):
            split += [r, s]
        summed = formulas.sum(grad.reshape(split), tuple(range(0, 2 * len(sizes), 2)))
        return summed.reshape(self_sym_sizes)

    jvp = LINEAR


def _row_major(xp, out):
    """PyTorch's cat and stack return contiguous tensors; NumPy's keep the inputs' layout when all are
    column-major (transposed), and then .view() of the result would raise where PyTorch's succeeds."""
    return out if out.flags.c_contiguous else xp.ascontiguousarray(out)


class CatBackward0(Op):
    """out = inputs joined along ``dim``"""
    saves = ("dim", "sizes")
    hidden_saves = ("sizes",)  # (PyTorch keeps it out of sight too)

    def forward(xp, *tensors, dim, sizes):
        return _row_major(xp, xp.concatenate([t for t, n in zip(tensors, sizes) if n is not None], axis=dim))

    def backward(grad, dim, sizes):  # (a skipped empty 1-d piece gets an empty gradient)
        pieces = iter(formulas.split(grad, [n for n in sizes if n is not None], dim))
        return tuple(next(pieces) if n is not None else formulas.zeros((0,), grad) for n in sizes)

    jvp = LINEAR


class StackBackward0(Op):
    """out = inputs stacked along a new ``dim``"""
    saves = ("dim",)

    def forward(xp, *tensors, dim):
        return _row_major(xp, xp.stack(tensors, axis=dim))

    def backward(grad, dim):
        return formulas.unbind(grad, dim)

    jvp = LINEAR


class FlipBackward0(Op):
    saves = ("dims",)

    def forward(xp, self, *, dims):
        return xp.flip(self, axis=dims).copy()

    def d_self(grad, dims):
        return formulas.flip(grad, dims)

    jvp = LINEAR



# -- front-end functions ------------------------------------------------------------------------
@checked
def repeat(input, *repeats):
    repeats = _sizes(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           f"tensor (repeat dims {list(repeats)}, tensor shape {list(input.shape)})")
    if any(r < 0 for r in repeats):
        lead = len(repeats) - input.ndim
        sizes = [r * s for r, s in zip(repeats, (1,) * lead + tuple(input.shape))]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {sizes} [autograd_lab] "
                           f"repeat counts must be >= 0, got {list(repeats)}")
    return RepeatBackward0.apply(input, repeats=repeats)


@checked(kinds={"dim": "int"})
def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing ``dim``; all other sizes must match."""
    if out is not None:
        return write_out("cat", cat, out, tensors, dim)
    tensors = list(tensors)
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated [autograd_lab] cat "
                               "joins along an existing dim: give it a dim first (t.unsqueeze(0), or t[None]), or "
                               "use stack")
    # As PyTorch: 1-d empty tensors are skipped (the legacy "empty" tensor); they still take part in the
    # dtype and the graph, and get an empty gradient
    skipped = [t.shape == (0,) for t in tensors]
    if all(skipped):
        skipped = [False] * len(tensors)
    ref = next(t for t, skip in zip(tensors, skipped) if not skip)
    d = _wrap_dim(dim, ref.ndim, "cat")
    target = backend.result_type(*tensors) if len({t._data.dtype for t in tensors}) > 1 else None
    for i, t in enumerate(tensors):
        if skipped[i]:
            continue
        if t.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim} "
                               f"(cat of shapes {[list(x.shape) for x in tensors]})")
        for k in range(ref.ndim):
            if k != d and t.shape[k] != ref.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref.shape[k]} but got size "
                    f"{t.shape[k]} for tensor number {i} in the list. [autograd_lab] cat of shapes "
                    f"{[list(x.shape) for x in tensors]}"
                )
    if target is not None:
        tensors = [t if t.dtype is target else t.to(target) for t in tensors]
    return CatBackward0.apply(*tensors, dim=d, sizes=tuple(None if skip else t.shape[d] for t, skip in
                                                           zip(tensors, skipped)))


concat = concatenate = cat


@checked(kinds={"dim": "int"})
def stack(tensors, dim=0, *, out=None):
    """Join same-shaped tensors along a new ``dim``."""
    if out is not None:
        return write_out("stack", stack, out, tensors, dim)
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
    if len({t._data.dtype for t in tensors}) > 1:
        target = backend.result_type(*tensors)
        tensors = [t if t.dtype is target else t.to(target) for t in tensors]
    return StackBackward0.apply(*tensors, dim=_wrap_dim(dim, tensors[0].ndim + 1, "stack"))


@checked
def flip(input, *dims):
    dims = tuple(_wrap_dim(d, input.ndim, "flip") for d in _sizes(dims))
    return FlipBackward0.apply(input, dims=dims)




def _bind() -> None:
    for name, fn in dict(repeat=repeat, flip=flip).items():
        setattr(Tensor, name, fn)


_bind()
