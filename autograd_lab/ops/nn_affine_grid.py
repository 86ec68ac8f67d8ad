"""``affine_grid``: the sampling grid of an affine transform, the points ``grid_sample`` reads (the Spatial
Transformer Networks tutorial's pair; see :mod:`.nn_grid_sample`)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .nn_grid_sample import ALIGN_WARNING

__all__ = ["affine_grid"]


class AffineGridGeneratorBackward0(Op):
    """out = a grid (N, *size[2:], D) of the points of ``size``'s spatial dims (in [-1, 1], x first) moved by each
    affine matrix of ``theta`` (N, D, D + 1): out[n, p] = theta[n] @ (x_p, y_p, [z_p,] 1)."""
    saves = ("align_corners", "size")

    def forward(xp, theta, *, size, align_corners):
        base = _base_grid(xp, size, align_corners, theta.dtype)  # (P, D + 1)
        out = xp.matmul(base[None], xp.swapaxes(theta, 1, 2))  # (N, P, D)
        return out.reshape((size[0],) + tuple(size[2:]) + (len(size) - 2,))

    def d_theta(grad, size, align_corners):  # out is linear in theta: the gradient against the grid's points
        data = formulas.array_of(grad)
        base = _base_grid(backend.namespace_of(data), size, align_corners, data.dtype)
        if isinstance(grad, Tensor):
            base = Tensor._make(base)
        flat = formulas.reshape(grad, (size[0], -1, len(size) - 2))
        return formulas.matmul(formulas.transpose(flat, 1, 2), base)

    jvp = LINEAR


def _base_grid(xp, size, align_corners: bool, dtype):
    """The points of the spatial dims of ``size``, x (the fastest dim) first, with a 1 appended: (P, D + 1)."""
    axes = []
    for steps in reversed(size[2:]):  # x, y[, z]
        line = _linspace(steps, dtype)
        axes.append(line if align_corners or steps <= 1 else line * (steps - 1) / steps)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # slowest dim first, as the output is laid out
    columns = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(mesh[0].size, dtype=dtype)]
    return xp.asarray(np.stack(columns, axis=-1))


def _linspace(steps: int, dtype):
    """``steps`` points from -1 to 1 as PyTorch's linspace computes them: the first half counted up from -1, the
    rest down from 1, each a fused multiply-add (one rounding, so in a wider type here) of the dtype's step."""
    if steps <= 1:
        return np.zeros(steps, dtype=dtype)
    wide = np.float64 if dtype.itemsize < 8 else np.longdouble
    step, i = wide(dtype.type(2) / dtype.type(steps - 1)), np.arange(steps)
    return np.where(i < steps // 2, wide(-1) + step * i, wide(1) - step * (steps - 1 - i)).astype(dtype)


@checked
def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """A sampling grid for ``grid_sample``: the points of an image of ``size`` (N, C, H, W), or of a volume
    (N, C, D, H, W), moved by the affine matrices ``theta`` (N, 2, 3), or (N, 3, 4)."""
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if align_corners is None:
        warnings.warn(ALIGN_WARNING, UserWarning, stacklevel=3)
        align_corners = False
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    dims = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape Nx{dims}x{dims + 1} for size {size}. "
                         f"Got {theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True."
                      " This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
                      UserWarning, stacklevel=3)
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {dims + 1}] but "
                           f"got: [{theta.shape[0]}, {dims + 1}]. [autograd_lab] affine_grid: theta has one matrix per "
                           f"image of size, {theta.shape[0]} for a batch of {size[0]}")
    return AffineGridGeneratorBackward0.apply(theta, size=size, align_corners=bool(align_corners))

