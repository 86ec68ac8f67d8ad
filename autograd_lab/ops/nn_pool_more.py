"""More pooling: over sequences (``max_pool1d``, ``avg_pool1d``, ``adaptive_avg_pool1d``, ``adaptive_max_pool1d``),
adaptive max pooling of images (``adaptive_max_pool2d``) and power-average pooling (``lp_pool1d``, ``lp_pool2d``).
(Max unpooling is in :mod:`.nn_unpool`.)

PyTorch computes the 1-D forms as the 2-D ones over a height (or, for unpooling, a width) of 1, and records them so:
``max_pool1d`` is a ``SqueezeBackward1`` after a ``MaxPool2DWithIndicesBackward0``; so do these functions. Power
averages are composites too (a power, an average pooling, a power back). One op is new: adaptive max pooling,
whose windows differ in size. They are read at once, through an index grid as large as the largest window, the last
position repeated in the smaller ones (a repeat never changes a maximum, nor which position holds it first).
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
from .nn_pool import (
    _gather_maxima,
    _last_nan,
    _max_pool_grad,
    _planes,
    adaptive_avg_pool2d,
    avg_pool2d,
    max_pool2d,
)
from .pointwise import relu

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "lp_pool1d", "lp_pool2d"]


# -- 1-D pooling: the 2-D ops over a height of 1 -----------------------------------------------------------------
def _one_int(value, name: str, op: str, allow_none: bool = False, words: str = "an int, list of ints, or tuple of ints"):
    """An int, or a list or tuple holding one int, as an int (PyTorch's error for any other length)."""
    if value is None and allow_none:
        return None
    if isinstance(value, int):
        return value
    value = list(value)
    if len(value) == 0 and allow_none:
        return None
    if len(value) != 1:
        raise RuntimeError(f"{op}() {name} must be {'None, ' if allow_none else ''}{words} of size 1 but got size "
                           f"{len(value)}")
    return int(value[0])


def _argument_int(value, name: str, op: str) -> int:
    """An int or a one-int sequence, with PyTorch's other wording of the error ("argument ... should contain")."""
    if isinstance(value, int):
        return value
    value = list(value)
    if len(value) != 1:
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(value)})")
    return int(value[0])


def _sequence_dims(input: Tensor, op: str) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
                           f"(while checking arguments for {op})")


@checked
def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each (dilated) window of (N, C, L) sequences (or one (C, L)), as ``F.max_pool1d``; with
    ``return_indices``, also where it was (a position in L). ``max_pool2d`` over a height of 1."""
    op = "max_pool1d"
    empty = input.ndim in (2, 3) and 0 in input.shape[-2:]  # (only the batch may be empty)
    if input.ndim not in (2, 3) or empty and not return_indices:
        raise RuntimeError(f"{op}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(input.shape)}")
    if empty:  # (with indices, PyTorch checks it as max_pool2d does, over a height of 1)
        shape = list(input.shape[:-1]) + [1, input.shape[-1]]
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
                           f"{shape}")
    if not return_indices and input._data.dtype.kind in "iub":
        raise no_kernel(f"{op}_impl", input.dtype, f"{op} is for floating-point tensors: convert first, e.g. x.float()")
    kernel = _one_int(kernel_size, "kernel_size", op, words="an int, list of ints or tuple of ints")
    stride = _one_int(stride, "stride", op, allow_none=True)
    stride = kernel if stride is None else stride
    padding, dilation = _one_int(padding, "padding", op), _one_int(dilation, "dilation", op)
    for name, value, low in (("kernel_size", kernel, 1), ("stride", stride, 1), ("dilation", dilation, 1)):
        if value < low:
            raise RuntimeError(f"{op}() {name} must be greater than zero, but got {value}")
    if padding < 0:
        raise RuntimeError(f"{op}() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"{op}() padding should be at most half of kernel size, but got padding={padding} and "
                           f"kernel_size={kernel}")
    span = input.shape[-1] + 2 * padding - dilation * (kernel - 1) - 1
    size = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (size - 1) * stride >= input.shape[-1] + padding:
        size -= 1
    if size < 1:
        raise RuntimeError(f"{op}() Invalid computed output size: {size}")
    values, indices = max_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), (1, dilation), ceil_mode,
                                 return_indices=True)
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


@checked
def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window of (N, C, L) sequences (or one (C, L)), as ``F.avg_pool1d``: ``avg_pool2d`` over a
    height of 1."""
    op = "avg_pool1d"
    _sequence_dims(input, op)
    kernel = _argument_int(kernel_size, "kernel_size", op)
    stride = kernel if stride is None or stride == [] else _argument_int(stride, "stride", op)
    padding = _argument_int(padding, "padding", op)
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                      count_include_pad).squeeze(-2)


@checked
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average over ``output_size`` windows that tile each sequence, as ``F.adaptive_avg_pool1d``."""
    _sequence_dims(input, "adaptive_avg_pool1d")
    size = _argument_int(output_size, "output_size", "adaptive_avg_pool1d")
    if size < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{1, {size}}}")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


# -- adaptive max pooling ----------------------------------------------------------------------------------------
def _adaptive_positions(xp, size: int, out: int):
    """(out, longest window) input positions of each window floor(i*size/out) .. ceil((i+1)*size/out) - 1, the
    last one repeated where a window is shorter than the longest."""
    i = xp.arange(out)
    start, end = (i * size) // out, -(-((i + 1) * size) // out)
    longest = int((end - start).max()) if out else 1
    return xp.minimum(start[:, None] + xp.arange(longest)[None, :], end[:, None] - 1)


def _adaptive_max_indices(xp, x, output_size):
    """Flat (row-major, in the spatial dims) index of each adaptive window's maximum in ``x`` (N, C, *spatial), the
    first maximum on ties (the last NaN wins, as in PyTorch: a repeated position names the same element)."""
    size, spatial = x.shape[2:], len(output_size)
    flat = xp.zeros((1,) * 2 * spatial, dtype=xp.int64)  # grows to (*out, *longest windows): flat positions
    for d in range(spatial):
        positions = _adaptive_positions(xp, size[d], output_size[d])  # (out, longest)
        where = (1,) * d + (positions.shape[0],) + (1,) * (spatial - 1) + (positions.shape[1],) + (1,) * (spatial - 1 - d)
        flat = flat * size[d] + positions.reshape(where)
    flat = flat.reshape(tuple(output_size) + (math.prod(flat.shape[spatial:]),))  # (*out, window)
    windows = xp.take(_planes(x, spatial), flat, axis=2)  # (N, C, *out, window)
    best = _last_nan(xp, windows, windows.ndim - 1)
    return xp.take_along_axis(xp.broadcast_to(flat, windows.shape), best[..., None], axis=-1)[..., 0]


class AdaptiveMaxPool2DBackward0(Op):
    """out = the largest element of each adaptive window, read at ``result1`` (flat positions in H * W)"""
    saves = ("result1", "self")  # (as PyTorch: the input and the indices it returns)
    tensor_params = ("result1",)

    def forward(xp, self, *, result1):  # (a batch of images, or one (C, H, W) image)
        return _gather_maxima(xp, self, result1, 2)

    def d_self(grad, result1, self):
        return formulas.call(AdaptiveMaxPool2DBackwardBackward0, grad, indices=result1, self_sym_sizes=self.shape)

    jvp = LINEAR


class AdaptiveMaxPool2DBackwardBackward0(Op):
    """out = zeros shaped like the pooled input, with ``grad`` added at the positions of the maxima"""
    saves = ("indices",)
    tensor_params = ("indices",)

    def forward(xp, grad, *, indices, self_sym_sizes):  # (a batch of images, or one (C, H, W) image)
        return _max_pool_grad(xp, grad, indices, self_sym_sizes, 2)

    def d_grad(grad, indices):
        return formulas.call(AdaptiveMaxPool2DBackward0, grad, result1=indices)

    jvp = LINEAR


def _non_empty(input: Tensor, op: str) -> None:
    """PyTorch's check that every dim after the first is non-empty (an unbatched input's channels included)."""
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {dim} being empty")


def _adaptive_max_pool(op_class, input: Tensor, sizes: tuple, return_indices: bool):
    """Record ``op_class`` (the 2-D or 3-D node) for an input (N, C, *spatial) or one unbatched (C, *spatial)
    pooled to spatial ``sizes`` (checked), with the indices it finds."""
    batched = input.ndim == len(sizes) + 2
    data = input._data if batched else input._data[None]
    indices = _adaptive_max_indices(backend.namespace_of(data), data, sizes)
    indices = Tensor._make(indices if batched else indices[0])
    out = op_class.apply(input, result1=indices)  # (one unbatched sample is recorded as it is)
    return (out, indices) if return_indices else out


@checked
def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """The maximum over an ``output_size`` grid of windows that tile each image (sizes may differ by one; ``None``
    keeps a dim), as ``F.adaptive_max_pool2d``; with ``return_indices``, also where each was (flat in H * W)."""
    op = "adaptive_max_pool2d"
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{op}(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    _non_empty(input, op)
    if input._data.dtype.kind in "iub":
        raise no_kernel(op, input.dtype, f"{op} is for floating-point tensors: convert first, e.g. x.float()")
    sizes = (output_size, output_size) if isinstance(output_size, int) or output_size is None else tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be 2 [autograd_lab] give an int or a pair")
    sizes = tuple(input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(sizes))
    if min(sizes) < 0:
        shape = list(input.shape[:-2]) + list(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(s for s in sizes if s < 0)}: "
                           f"{shape}")
    return _adaptive_max_pool(AdaptiveMaxPool2DBackward0, input, sizes, return_indices)


@checked
def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """The maximum over ``output_size`` windows that tile each sequence, as ``F.adaptive_max_pool1d``."""
    _sequence_dims(input, "adaptive_max_pool1d")
    _non_empty(input, "adaptive_max_pool1d")
    size = _argument_int(output_size, "output_size", "adaptive_max_pool1d")
    values, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices=True)
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


# -- power-average pooling -----------------------------------------------------------------------------------------
def _lp_pool(input: Tensor, norm_type, kernel: tuple, stride, ceil_mode: bool, pool_max, pool_avg) -> Tensor:
    """(sum over each window of x ** p) ** (1 / p), as PyTorch composes it of the max and average poolings of as many
    dims as ``kernel`` has: the mean of x ** p over the window, times the window's size, to the power 1 / p (a
    negative mean, from odd powers, is taken as 0)."""
    if norm_type == float("inf"):
        return pool_max(input.abs(), kernel, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -pool_max(-input.abs(), kernel, stride, 0, 1, ceil_mode)
    mean = pool_avg(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    return (mean.sign() * relu(mean.abs())).mul(math.prod(kernel)).pow(1.0 / norm_type)


@checked
def lp_pool1d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of (N, C, L) sequences, as ``F.lp_pool1d`` (``inf``: the maximum of
    the absolute values)."""
    kernel = (_argument_int(kernel_size, "kernel_size", "lp_pool1d"),)
    return _lp_pool(input, norm_type, kernel, stride, ceil_mode, max_pool1d, avg_pool1d)


@checked
def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of (N, C, H, W) images, as ``F.lp_pool2d`` (``p = 1``: the window's sum;
    ``inf``: the maximum of the absolute values)."""
    kernel = _pair(kernel_size, "kernel_size", "lp_pool2d")
    return _lp_pool(input, norm_type, kernel, stride, ceil_mode, max_pool2d, avg_pool2d)
