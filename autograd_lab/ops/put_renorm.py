"""Writes by flat position and rescaling by slice: ``put`` (``PutBackward0``), ``fill_diagonal_`` and
``renorm`` (``RenormBackward0``).

``put`` writes ``source`` at flat positions of ``input`` (as if it were 1-D, negative positions counting from
the end), or adds it there with ``accumulate=True``: the gradient of what was overwritten is zero, the
gradient of ``source`` is the output's gradient read back at those positions (``take``). ``renorm`` scales each
slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` down to norm ``maxnorm`` (dividing by the norm plus
1e-7, as PyTorch does); the others are left as they are. ``fill_diagonal_`` is made of views and ``fill_``, as
PyTorch makes it, so its history is a ``CopySlices``.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .index_writes import check_flat_positions
from .inplace import _method
from .norm import LinalgVectorNormBackward0

_RENORM_EPS = 1e-7  # added to a norm before dividing by it, as PyTorch's renorm does


class PutBackward0(Op):
    """out = self with ``source`` written (or added, ``accumulate``) at the flat positions ``index``"""
    saves = ("accumulate", "index", "source")  # (source for its shape, as PyTorch saves it)
    tensor_params = ("index",)

    def forward(xp, self, source, *, index, accumulate):
        out = self.copy()  # (C order: its reshape(-1) is a view to write through)
        flat, positions = out.reshape(-1), index.reshape(-1)
        if accumulate:
            xp.add.at(flat, positions, source.reshape(-1))
        else:
            flat[positions] = source.reshape(-1)
        return out

    def d_self(grad, accumulate, index, source):
        if accumulate:
            return grad
        return formulas.call(PutBackward0, grad, formulas.zeros(tuple(source.shape), grad), index=index,
                             accumulate=False)

    def d_source(grad, index, source):
        taken = formulas.reshape(grad, (-1,))[formulas.reshape(index, (-1,))]
        return formulas.reshape(taken, tuple(source.shape))

    jvp = LINEAR  # the tangents of self and source, put the same way


def _name(tensor: Tensor) -> str:
    return backend.kernel_type_name(tensor.dtype)


@checked(kinds={"source": "Tensor"})
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source``'s values written at the flat positions ``index`` (int64, negative ones from the
    end), or added there with ``accumulate=True``; out of place."""
    if index.dtype is not backend.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_name(index)} [autograd_lab] pass "
                           "index.long()")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_name(input)} and source.dtype = {_name(source)} [autograd_lab] convert the source "
                           "first: source.to(input.dtype)")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()} [autograd_lab] one "
                           "value per position")
    total = input.numel()
    if index.numel() and total == 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    check_flat_positions(index, total)
    return PutBackward0.apply(input, source, index=index, accumulate=accumulate)


class RenormBackward0(Op):
    """out = each slice along ``dim`` of ``p``-norm above ``maxnorm`` scaled by ``maxnorm / (norm + 1e-7)``"""
    saves = ("dim", "maxnorm", "p", "self")

    def forward(xp, self, *, p, dim, maxnorm):
        wide = self.astype(xp.float64)  # (the norm and the factor accumulated in double, as PyTorch's on the CPU)
        dims = tuple(d for d in range(self.ndim) if d != dim)
        norm = LinalgVectorNormBackward0.forward(xp, wide, ord=p, dim=dims, keepdim=True)
        factor = xp.where(norm > maxnorm, maxnorm / (norm + _RENORM_EPS), 1.0)
        return (wide * factor).astype(self.dtype)

    def d_self(grad, dim, maxnorm, p, self):
        dims = tuple(d for d in range(self.ndim) if d != dim)
        norm = formulas.call(LinalgVectorNormBackward0, self, ord=p, dim=dims, keepdim=True)
        along_norm = formulas.sum(self * grad, dims, keepdim=True)  # the gradient's part along d norm / d self
        through_norm = LinalgVectorNormBackward0.d_self(along_norm, dims, True, p, norm, self)
        inverse = 1.0 / (norm + _RENORM_EPS)
        return formulas.where(norm > maxnorm, grad * (inverse * maxnorm) - through_norm * (maxnorm * inverse * inverse),
                              grad)

    def f_self(tangent, dim, maxnorm, p, self):
        dims = tuple(d for d in range(self.ndim) if d != dim)
        norm = formulas.call(LinalgVectorNormBackward0, self, ord=p, dim=dims, keepdim=True)
        weights = LinalgVectorNormBackward0.d_self(formulas.ones_like(norm), dims, True, p, norm, self)
        norm_tangent = formulas.sum(weights * tangent, dims, keepdim=True)
        inverse = 1.0 / (norm + _RENORM_EPS)
        return formulas.where(norm > maxnorm, tangent * (inverse * maxnorm) - self * (maxnorm * inverse * inverse)
                              * norm_tangent, tangent)


@checked(kinds={"dim": "int", "maxnorm": "number"})
def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Each slice of ``input`` along ``dim`` whose ``p``-norm (over the other dims) exceeds ``maxnorm``, scaled
    to norm ``maxnorm``; the other slices unchanged."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions [autograd_lab] "
                           "renorm rescales slices along a dim; a vector has no slices to take the norms of")
    d = _wrap_dim(dim, input.ndim, "renorm")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_name(input)} [autograd_lab] renorm of an integer tensor: convert it first, e.g. x.float()")
    return RenormBackward0.apply(input, p=p, dim=d, maxnorm=maxnorm)


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` on the main diagonal (``self[i, i, ...]``; every dim of the same size past 2-D), in
    place. ``wrap``: for a tall matrix, start again below the diagonal every ``columns + 1`` rows, as NumPy's
    ``fill_diagonal`` does."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if isinstance(fill_value, Tensor):  # read as a number, as PyTorch reads it: no gradient can reach it
        if fill_value.requires_grad or fill_value.numel() != 1:
            raise TypeError("fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not Tensor "
                            "[autograd_lab] the value is a number; pass fill_value.item()")
        fill_value = fill_value.item()
    value = fill_value
    diagonal = self
    while diagonal.ndim > 1:
        diagonal = diagonal.diagonal(0, 0, 1)
    diagonal.fill_(value)
    rows, columns = self.shape[0], self.shape[-1]
    if wrap and self.ndim == 2 and rows > columns + 1:
        step = columns + 1
        if self.is_contiguous():  # the wrapped diagonal: every step-th element of the memory, after the first
            self.view(-1)[columns * step::step].fill_(value)
        else:  # (the same positions, counted in row-major order)
            xp = backend.namespace_of(self._data)
            flat = xp.arange(columns * step, self.numel(), step)
            self.index_put_((Tensor._make(flat // columns), Tensor._make(flat % columns)),
                            Tensor._make(xp.asarray(value).astype(self._data.dtype)))
    return self


def _bind() -> None:
    Tensor.put, Tensor.put_ = put, _method("put_", put)
    Tensor.renorm, Tensor.renorm_ = renorm, _method("renorm_", renorm)
    Tensor.fill_diagonal_ = fill_diagonal_


_bind()
