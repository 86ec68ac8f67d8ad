"""Vector norms: ``Tensor.norm`` records ``LinalgVectorNormBackward0``, as ``torch.linalg.vector_norm`` does.

Every ``ord`` PyTorch accepts: 0 (the count of non-zeros, no gradient), 1, 2, any other number
(negative ones too: a zero entry then makes the norm 0), ``inf`` and ``-inf`` (the largest / smallest
magnitude, ties sharing the gradient). A zero norm has a zero subgradient.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import Op
from .reductions import _asarray, _dims, _restore, _weighted


class LinalgVectorNormBackward0(Op):
    """out = ``(sum |x|^ord)^(1/ord)`` over dims; ord inf / -inf: the largest / smallest ``|x|``; ord 0: non-zeros"""
    saves = ("dim", "keepdim", "ord", "result", "self")

    def forward(xp, self, *, ord, dim, keepdim):
        axis = None if dim is None else _dims(dim, self.ndim, "linalg_vector_norm")
        size = xp.abs(self)
        if size.dtype == xp.float16:  # half precision is accumulated in float32, as PyTorch's kernels do
            size = size.astype(xp.float32)
        if ord == float("inf"):
            out = xp.max(size, axis=axis, keepdims=keepdim)
        elif ord == float("-inf"):
            out = xp.min(size, axis=axis, keepdims=keepdim)
        elif ord == 0:
            out = xp.sum(size != 0, axis=axis, keepdims=keepdim)
        elif ord == 1:
            out = xp.sum(size, axis=axis, keepdims=keepdim)
        elif ord == 2:
            out = xp.sqrt(xp.sum(size * size, axis=axis, keepdims=keepdim))
        else:  # a negative ord makes |0|^ord infinite, so the norm 0: computed without NumPy's warnings
            nonzero = size != 0
            powered = xp.where(nonzero, xp.where(nonzero, size, 1) ** ord, 0 if ord > 0 else xp.inf)
            out = xp.sum(powered, axis=axis, keepdims=keepdim) ** (1.0 / ord)
        return _asarray(xp, out, self).astype(self.dtype, copy=False)

    def d_self(grad, dim, keepdim, ord, result, self):
        dims = _dims(dim, self.ndim, "linalg_vector_norm")
        grad = _restore(grad, self.shape, dims, keepdim)
        result = _restore(result, self.shape, dims, keepdim)
        if ord == 0:  # piecewise constant: PyTorch sends no gradient at all (x.grad stays None)
            return None
        sign = formulas.sign(self)
        if ord == 1:
            return grad * sign
        if abs(ord) == float("inf"):  # ties share the gradient evenly, as in amax()/amin()
            mask = formulas.abs(self) == result
            return grad * sign * mask / formulas.cast_like(formulas.sum(mask, dims, keepdim=True), grad)
        zero_norm = result == 0  # a zero norm has a zero subgradient: divide by 1 there, then mask
        norm = formulas.where(zero_norm, 1.0, result)
        if ord == 2:
            scaled = self / norm
        else:  # d/dx (sum |x|^p)^(1/p) = sign(x) |x|^(p-1) / norm^(p-1); sign(0) = 0 keeps x = 0 at 0
            scaled = sign * formulas.where(self == 0, 1.0, formulas.abs(self)) ** (ord - 1) / norm ** (ord - 1)
        return grad * formulas.where(zero_norm, 0.0, scaled)

    def f_self(tangent, dim, keepdim, ord, result, self):
        if ord == 0:  # a count of non-zeros: piecewise constant
            return formulas.zeros_like(result)
        dims = _dims(dim, self.ndim, "linalg_vector_norm")
        return _weighted(LinalgVectorNormBackward0.d_self, tangent, result, dims, keepdim, dim, keepdim, ord, result,
                         self)


@checked
def norm(input, p=2, dim=None, keepdim=False):
    """The ``p``-norm (``p`` = 0, 1, 2, ``inf``, ``-inf`` or any other number) of all elements or over ``dim``.

    Recorded as ``LinalgVectorNormBackward0``, the node ``torch.linalg.vector_norm`` makes (which
    ``Tensor.norm`` calls). Integer tensors are refused, as in PyTorch.
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {input.dtype._legacy_name.replace('Tensor', '')} [autograd_lab] norm of a tensor of "
                           f"shape {tuple(input.shape)}: convert it first, e.g. x.float().norm()")
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
        _dims(dim, input.ndim, "linalg_vector_norm")  # range and repetition checks, with PyTorch's errors
    if p < 0 or p == float("inf"):
        _check_identity(input, p, dim)
    return LinalgVectorNormBackward0.apply(input, ord=p, dim=dim, keepdim=keepdim)


def _check_identity(input, p, dim) -> None:
    """The inf norm and the negative ones are a maximum or a minimum: nothing to return for no elements
    (PyTorch's errors, word for word)."""
    where = None
    if dim is None and input.numel() == 0:
        where = "on an empty tensor because"
    for d in _dims(dim, input.ndim, "linalg_vector_norm") if dim is not None else ():
        if input.shape[d] == 0:
            where = f"on the dimension {d}because this dimension is empty and"
            break
    if where is not None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm {where} the operation does not have an "
                           f"identity [autograd_lab] norm(p={p}) of a tensor of shape {tuple(input.shape)}: there are "
                           "no elements to take it over")


Tensor.norm = norm
