"""Max unpooling (``max_unpool1d``, ``max_unpool2d``): the partial inverse of max pooling. Each value goes back to
the position its ``indices`` (as ``max_pool2d(..., return_indices=True)`` gives them) name, in an image of zeros.

The gradient reads the output gradient back at those positions: a gather along the flattened plane, which is how
PyTorch records it too (a ``GatherBackward0`` under a ``ViewBackward0``), so gradients of gradients need no op of
their own. ``max_unpool1d`` is ``max_unpool2d`` over a width of 1, as in PyTorch.
"""

from __future__ import annotations

import math

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from ._op import LINEAR, Op
from .nn_conv import _pair
from .nn_pool import _planes
from .scatter_gather import GatherBackward0

__all__ = ["max_unpool1d", "max_unpool2d"]


class MaxUnpool2DBackward0(Op):
    """out = zeros of ``output_size`` per plane, each input value written at its flat index (in H * W; in
    D * H * W for volumes: as many spatial dims as ``output_size`` has)"""
    saves = ("indices",)
    tensor_params = ("indices",)

    def forward(xp, self, *, indices, output_size):
        spatial = len(output_size)
        planes = _planes(self, spatial)
        out = xp.zeros(planes.shape[:-1] + (math.prod(output_size),), dtype=self.dtype)
        dims = planes.ndim  # the batch and channel of each value, shaped to broadcast against the indices:
        lead = tuple(xp.arange(size).reshape((1,) * i + (size,) + (1,) * (dims - 1 - i))
                     for i, size in enumerate(planes.shape[:-1]))
        out[lead + (_planes(indices, spatial),)] = planes
        return out.reshape(self.shape[:-spatial] + tuple(output_size))

    def d_self(grad, indices):
        flat = formulas.call(GatherBackward0, _planes(grad, 2), dim=grad.ndim - 2, index=_planes(indices, 2))
        return formulas.reshape(flat, indices.shape)

    jvp = LINEAR


def _output_size(input: Tensor, kernel, stride, padding, output_size) -> tuple:
    """The spatial size to unpool into: ``(in - 1) * stride - 2 * padding + kernel`` per dim, or ``output_size``
    (its last dims), which must lie strictly within a stride of that, in PyTorch's words."""
    spatial = len(kernel)
    default = [(input.shape[-spatial + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(spatial)]
    if output_size is None:
        return tuple(default)
    if len(output_size) == spatial + 2:
        output_size = output_size[2:]
    if len(output_size) != spatial:
        raise ValueError(f"output_size should be a sequence containing {spatial} or {spatial + 2} elements, but it has "
                         f"a length of '{len(output_size)}'")
    for d in range(spatial):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
    return tuple(int(s) for s in output_size)


def _unpool(op_class, input: Tensor, indices: Tensor, size: tuple) -> Tensor:
    """Check the indices against the input and the output ``size`` (its spatial dims), then unpool, recording
    ``op_class`` (the 2-D or 3-D node)."""
    spatial = len(size)
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Input to max_unpooling{spatial}d should be a {spatial + 1}d or {spatial + 2}d Tensor, but "
                           f"got a tensor with {input.ndim} dimensions.")
    if input._data.dtype.kind in "iub":
        raise no_kernel(f"max_unpool{spatial}d", input.dtype, "max_unpool is for floating-point tensors: convert "
                        "first, e.g. x.float()")
    if indices.dtype is not backend.int64:
        name = backend.kernel_type_name(indices.dtype)
        raise RuntimeError(f"elements in indices should be type int64 but got: {name} [autograd_lab] pass the indices "
                           f"max_pool{spatial}d(..., return_indices=True) returned")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    data = indices._data
    bad = (data < 0) | (data >= math.prod(size))
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(data[bad][0])} (output volumes are of size "
                           f"{'x'.join(map(str, size))}) [autograd_lab] max_unpool: give the output_size the input of "
                           "the max pooling had")
    return op_class.apply(input, indices=indices, output_size=size)


@checked
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value of (N, C, H, W) pooled images (or one (C, H, W)) back at its ``indices`` in zeros, as
    ``F.max_unpool2d``; ``output_size`` picks among the sizes the pooling could have come from."""
    kernel = _pair(kernel_size, "kernel_size", "max_unpool2d")
    stride = kernel if stride is None else _pair(stride, "stride", "max_unpool2d")
    padding = _pair(padding, "padding", "max_unpool2d")
    return _unpool(MaxUnpool2DBackward0, input, indices, _output_size(input, kernel, stride, padding, output_size))


@checked
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value of (N, C, L) pooled sequences (or one (C, L)) back at its ``indices`` in zeros, as
    ``F.max_unpool1d``: ``max_unpool2d`` over a width of 1."""
    kernel = (_single(kernel_size, "kernel_size"),)
    stride = kernel if stride is None else (_single(stride, "stride"),)
    padding = (_single(padding, "padding"),)
    length = _output_size(input, kernel, stride, padding, output_size)
    return _unpool(MaxUnpool2DBackward0, input.unsqueeze(-1), indices.unsqueeze(-1), length + (1,)).squeeze(-1)


def _single(value, name: str) -> int:
    if isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1:
        raise ValueError(f"max_unpool1d: {name} must be an int or a 1-tuple of ints, got {value!r}")
    return int(value[0])
