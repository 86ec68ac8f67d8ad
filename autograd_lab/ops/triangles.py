"""Moving and masking whole blocks: ``roll``, ``rot90``, ``tril``/``triu``, ``trace``, ``diag_embed`` and
``repeat_interleave``.

Each is linear and moves or keeps values without mixing them, so each gradient is the same movement backwards:
rolling back by the opposite shift, rotating the other way, keeping the same triangle, putting the gradient of a
trace on the diagonal, reading a diagonal back. ``repeat_interleave`` is made of other ops, as in PyTorch
(``expand`` and ``clone`` for an int, ``index_select`` for a tensor of repeats).
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .shape import DiagonalBackward0, DiagonalBackwardBackward0


class RollBackward0(Op):
    """out = self shifted by ``shifts`` along ``dims`` (the elements pushed off one end come back at the other)"""
    saves = ("dims", "shifts")

    def forward(xp, self, *, shifts, dims):
        return xp.roll(self, shifts, axis=dims)  # (dims None: the flattened tensor, rolled, in its shape)

    def d_self(grad, dims, shifts):
        return formulas.call(RollBackward0, grad, shifts=tuple(-s for s in shifts), dims=dims)

    jvp = LINEAR


class Rot90Backward0(Op):
    """out = self rotated ``k`` quarter turns in the plane of ``dims``, from the first dim towards the second"""
    saves = ("dims", "k")

    def forward(xp, self, *, k, dims):
        return xp.rot90(self, k, axes=dims).copy()  # (a copy, as PyTorch's)

    def d_self(grad, dims, k):
        return formulas.call(Rot90Backward0, grad, k=-k, dims=dims)

    jvp = LINEAR


class TrilBackward0(Op):
    """out = self with the elements above the ``diagonal`` of its last two dims set to 0"""
    saves = ("diagonal",)

    def forward(xp, self, *, diagonal):
        return xp.tril(self, diagonal)

    def d_self(grad, diagonal):
        return formulas.call(TrilBackward0, grad, diagonal=diagonal)

    jvp = LINEAR


class TriuBackward0(Op):
    """out = self with the elements below the ``diagonal`` of its last two dims set to 0"""
    saves = ("diagonal",)

    def forward(xp, self, *, diagonal):
        return xp.triu(self, diagonal)

    def d_self(grad, diagonal):
        return formulas.call(TriuBackward0, grad, diagonal=diagonal)

    jvp = LINEAR


class TraceBackward0(Op):
    """out = the sum of the diagonal of a matrix"""
    saves = ("self_sym_sizes",)

    def forward(xp, self):
        dtype = xp.int64 if self.dtype.kind in "biu" else self.dtype  # (integers sum as int64, as in PyTorch)
        return xp.asarray(xp.trace(self, dtype=dtype))

    def d_self(grad, self_sym_sizes):
        length = min(self_sym_sizes)
        return formulas.call(DiagonalBackwardBackward0, formulas.expand(grad, (length,)), sizes=tuple(self_sym_sizes),
                             offset=0, dim1=0, dim2=1)

    jvp = LINEAR


class DiagEmbedBackward0(Op):
    """out = zeros with the last dim of self written on the ``offset`` diagonal of the new dims ``dim1``, ``dim2``"""
    saves = ("dim1", "dim2", "offset")

    def forward(xp, self, *, offset, dim1, dim2):
        size = self.shape[-1] + abs(offset)
        sizes = list(self.shape[:-1])
        for d in sorted((dim1, dim2)):
            sizes.insert(d, size)
        return DiagonalBackwardBackward0.forward(xp, self, sizes=tuple(sizes), offset=offset, dim1=dim1, dim2=dim2)

    def d_self(grad, dim1, dim2, offset):
        return formulas.call(DiagonalBackward0, grad, offset=offset, dim1=dim1, dim2=dim2)

    jvp = LINEAR


# -- front-end functions ------------------------------------------------------------------------
def _ints(value) -> tuple:
    return (int(value),) if isinstance(value, int) or not hasattr(value, "__len__") else tuple(int(v) for v in value)


@checked(kinds={"shifts": "ints", "dims": "dims"})
def roll(input, shifts, dims=None):
    """``input`` shifted by ``shifts`` along ``dims`` (all elements, flattened, when ``dims`` is None)."""
    shifts = _ints(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return RollBackward0.apply(input, shifts=shifts, dims=None)
    dims = _ints(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions [autograd_lab] roll a 0-dim "
                         "tensor without dims (it has one element: nothing moves)")
    dims = tuple(_wrap_dim(d, input.ndim, "roll") for d in dims)
    return RollBackward0.apply(input, shifts=shifts, dims=dims)


@checked(kinds={"k": "int", "dims": "ints"})
def rot90(input, k=1, dims=(0, 1)):
    """``input`` turned ``k`` quarter turns (negative: the other way) in the plane of ``dims``."""
    dims = _ints(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == input.ndim:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    dims = tuple(_wrap_dim(d, input.ndim, "rot90") for d in dims)
    return Rot90Backward0.apply(input, k=int(k) % 4, dims=dims)


def _triangle(name: str, op):
    def fn(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return op.apply(input, diagonal=int(diagonal))
    fn.__name__ = name
    fn.__doc__ = (f"``input`` with the elements {'above' if name == 'tril' else 'below'} the ``diagonal`` (0: the main "
                  "one, positive: above it) of its last two dims set to 0.")
    return checked(fn, kinds={"diagonal": "int"})


tril = _triangle("tril", TrilBackward0)
triu = _triangle("triu", TriuBackward0)


@checked
def trace(input):
    """The sum of the diagonal of a matrix (int64 for integers and bools)."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return TraceBackward0.apply(input)


@checked(kinds={"offset": "int", "dim1": "int", "dim2": "int"})
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (``offset``) in the plane of the new dims ``dim1``, ``dim2`` hold the last dim of
    ``input``, zeros elsewhere."""
    n = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, n, "diag_embed"), _wrap_dim(dim2, n, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbedBackward0.apply(input, offset=int(offset), dim1=d1, dim2=d2)


@checked(kinds={"repeats": "Tensor|Number", "dim": "int?"})
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (each slice along ``dim``) repeated ``repeats`` times in a row; ``repeats`` is an int, or a
    tensor with a count per slice. ``repeat_interleave(counts)`` alone gives ``0, 1, ...`` each repeated its count.
    ``output_size``, where given, must be the length of the result along ``dim`` (PyTorch reads it to skip a sync)."""
    from .scatter_gather import index_select
    if repeats is None:
        return Tensor._make(_repeated_positions(input._data, "repeat_interleave"))
    if dim is None or input.ndim == 0:
        input, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.ndim, "repeat_interleave")
    size = input.shape[d]
    if isinstance(repeats, Tensor):
        counts = repeats._data
        if counts.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if counts.size == 1:
            counts = backend.namespace_of(counts).full((size,), counts.reshape(()), dtype=counts.dtype)
        elif counts.size != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.size} and input.size({d}) = {size}")
        positions = _repeated_positions(counts, "repeat_interleave")
        if output_size is not None and output_size != positions.size:
            raise RuntimeError(f"allocated size does not match required size [autograd_lab] output_size is "
                               f"{output_size}, the repeats add up to {positions.size}")
        return index_select(input, d, Tensor._make(positions))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if output_size is not None and output_size != size * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {size * repeats} but got {output_size}")
    shape = tuple(input.shape)
    wide = input.unsqueeze(d + 1).expand(*shape[:d + 1], int(repeats), *shape[d + 1:])
    return wide.clone().flatten(d, d + 1)


def _repeated_positions(counts, op: str):
    """``0, 1, 2, ...``, each repeated its count (``counts``: a vector of non-negative ints)."""
    xp = backend.namespace_of(counts)
    if counts.ndim != 1 or counts.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: repeats must be 1-dim and of an integer dtype [autograd_lab] got shape "
                           f"{list(counts.shape)} and dtype {counts.dtype}")
    if bool((counts < 0).any()):
        raise RuntimeError("repeats can not be negative")
    return xp.repeat(xp.arange(counts.size), counts).astype(xp.int64, copy=False)


def _bind() -> None:
    from .inplace import _method
    for name, fn in dict(roll=roll, rot90=rot90, tril=tril, triu=triu, trace=trace, diag_embed=diag_embed,
                         repeat_interleave=repeat_interleave).items():
        setattr(Tensor, name, fn)
    Tensor.tril_, Tensor.triu_ = _method("tril_", tril), _method("triu_", triu)


_bind()
