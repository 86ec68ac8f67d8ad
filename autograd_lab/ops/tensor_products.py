"""Products of whole tensors, made of other ops as in PyTorch: ``kron``, ``tensordot``, ``inner``, ``cdist``."""

from __future__ import annotations

from ._args import checked
from .linalg import mm
from .shape import UnsafeViewBackward0


@checked
def kron(input, other):
    """The Kronecker product: every element of ``input`` times the whole of ``other``, blocks laid out along each
    dim (the shorter shape is padded with leading 1s)."""
    n = max(input.ndim, other.ndim)
    a_shape = (1,) * (n - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (n - other.ndim) + tuple(other.shape)
    a = UnsafeViewBackward0.apply(input, shape=tuple(s for d in a_shape for s in (d, 1)))  # (PyTorch's nodes)
    b = UnsafeViewBackward0.apply(other, shape=tuple(s for d in b_shape for s in (1, d)))
    return UnsafeViewBackward0.apply(a * b, shape=tuple(x * y for x, y in zip(a_shape, b_shape)))


@checked(kinds={"dims": None})
def tensordot(a, b, dims=2):
    """Sum of products over the last ``dims`` dims of ``a`` and the first ``dims`` of ``b`` (or over the dims
    given as two lists)."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db} [autograd_lab] tensordot of shapes "
                               f"{list(a.shape)} and {list(b.shape)}")
    dims_a, dims_b = [d % a.ndim for d in dims_a], [d % b.ndim for d in dims_b]
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    size = 1
    for d in dims_a:
        size *= a.shape[d]
    left = a.permute(*(free_a + dims_a)).reshape(-1, size) if a.ndim else a.reshape(1, 1)
    right = b.permute(*(dims_b + free_b)).reshape(size, -1) if b.ndim else b.reshape(1, 1)
    return mm(left, right).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


@checked
def inner(input, other):
    """The dot product over the last dim of each (a 0-dim operand: the product)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


@checked(kinds={"p": "number"})
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batch dims broadcast): shape
    ``(..., P, R)``. (PyTorch records ``CdistBackward0``; here the norm's node, ``LinalgVectorNormBackward0``,
    which gives a zero gradient at a zero distance, as ``cdist`` does.)"""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.ndim < 2 else 2} got: "
                           f"{min(x1.ndim, x2.ndim) if x1.ndim < 2 else x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {x1.dtype._legacy_name}")
    return (x1.unsqueeze(-2) - x2.unsqueeze(-3)).norm(p, -1)
