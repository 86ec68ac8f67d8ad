"""More tensors made from numbers: ``al.logspace`` (powers of a base at evenly spaced exponents) and ``al.vander``
(the Vandermonde matrix of a vector, differentiable as PyTorch's is: written into ones, then flipped)."""

from __future__ import annotations

import numpy as np

from . import backend
from .creation import _finish, _on, _resolve, ones
from .ops._args import checked
from .tensor import Tensor

__all__ = ["logspace", "vander"]


@checked(kinds={"start": "number", "end": "number", "steps": "int", "base": "number"})
def logspace(start, end, steps: int, base=10.0, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``steps`` numbers ``base ** e`` for exponents ``e`` evenly spaced from ``start`` to ``end`` (computed in
    float64, then converted: an integer dtype truncates, as PyTorch's)."""
    if steps < 0:
        raise RuntimeError(f"number of steps must be non-negative [autograd_lab] logspace got steps={steps}")
    dt, dev, xp = _resolve(dtype, device, backend.get_default_dtype())
    if not dt.is_floating_point:  # (PyTorch's kernel converts start and end to the integer dtype first: 1.5 is 1)
        start, end = int(start), int(end)
    # PyTorch's exponents: the first half counted up from start, the second half down from end, in float64
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    index = np.arange(steps)
    exponents = np.where(index < steps // 2, start + step * index, end - step * (steps - index - 1))
    if steps == 1:  # (one step is base ** start)
        exponents = np.array([start])
    values = np.power(float(base), exponents.astype("float64"))
    return _finish(_on(values.astype(dt.np_dtype), dev, xp), requires_grad)


@checked(kinds={"N": "int?"})
def vander(x, N=None, increasing: bool = False) -> Tensor:
    """The matrix whose columns are powers of the vector ``x``: ``x**(N-1), ..., x, 1`` (``increasing``: from
    ``1`` up). Integer and bool vectors give int64."""
    if x.ndim != 1:
        raise RuntimeError(f"x must be a one-dimensional tensor. [autograd_lab] got shape {list(x.shape)}")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"N must be non-negative. [autograd_lab] got N={n}")
    dtype = x.dtype if x.dtype.is_floating_point else backend.int64
    result = ones(x.shape[0], n, dtype=dtype, device=x.device)
    if n > 1:
        result[:, 1:] = x.to(dtype).unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1)
    return result if increasing else result.flip(1)
