"""Pooling over volumes (N, C, D, H, W), or one unbatched (C, D, H, W) volume: ``max_pool3d``, ``avg_pool3d``,
``adaptive_avg_pool3d``, ``adaptive_max_pool3d``, ``lp_pool3d``, ``max_unpool3d``, as in video and medical imaging.

The kernels are those of the images' pooling (:mod:`.nn_pool`, :mod:`.nn_pool_more`, :mod:`.nn_unpool`), which take
any number of spatial dims; a max pooling's indices are flat in D * H * W, ``(t * H + row) * W + column``. Each op
here is its 2-D op under PyTorch's 3-D name (``MaxPool3DWithIndicesBackward0``...): it saves the same values and
says only what differs, the spatial dims its forward flattens and the 3-D op its derivative records.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._errors import no_kernel
from .nn_conv import _tuple
from .nn_pool import (
    AdaptiveAvgPool2DBackward0,
    AdaptiveAvgPool2DBackwardBackward0,
    AvgPool2DBackward0,
    AvgPool2DBackwardBackward0,
    MaxPool2DWithIndicesBackward0,
    MaxPool2DWithIndicesBackwardBackward0,
    _check_pool,
    _gather_maxima,
    _max_pool_grad,
    _max_pool_indices,
    _planes,
)
from .nn_pool_more import (
    AdaptiveMaxPool2DBackward0,
    AdaptiveMaxPool2DBackwardBackward0,
    _adaptive_max_pool,
    _lp_pool,
    _non_empty,
)
from .nn_unpool import MaxUnpool2DBackward0, _output_size, _unpool
from .scatter_gather import GatherBackward0

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "lp_pool3d", "max_unpool3d"]


# -- the ops: the 2-D ones over three spatial dims ------------------------------------------------------------------
class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    """out = the largest element of each window, read at ``result1`` (flat positions in D * H * W)"""

    def forward(xp, self, *, result1, kernel_size=(), stride=(), padding=(), dilation=(), ceil_mode=False):
        return _gather_maxima(xp, self, result1, 3)

    def d_self(grad, result1, self):
        return formulas.call(MaxPool3DWithIndicesBackwardBackward0, grad, indices=result1, self_sym_sizes=self.shape)


class MaxPool3DWithIndicesBackwardBackward0(MaxPool2DWithIndicesBackwardBackward0):
    """out = zeros shaped like the pooled volume, with ``grad`` added at the positions of the maxima"""

    def forward(xp, grad, *, indices, self_sym_sizes):
        return _max_pool_grad(xp, grad, indices, self_sym_sizes, 3)

    def d_grad(grad, indices):
        return formulas.call(MaxPool3DWithIndicesBackward0, grad, result1=indices)


class AvgPool3DBackward0(AvgPool2DBackward0):
    """out = the mean of each window of a volume (the 2-D op's forward: it pools as many dims as ``kernel_size``)"""

    def d_self(grad, ceil_mode, count_include_pad, divisor_override, kernel_size, padding, self, stride):
        return formulas.call(
            AvgPool3DBackwardBackward0, grad, kernel_size=kernel_size, stride=stride, padding=padding,
            ceil_mode=ceil_mode, count_include_pad=count_include_pad, divisor_override=divisor_override,
            self_sym_sizes=tuple(self.shape))


class AvgPool3DBackwardBackward0(AvgPool2DBackwardBackward0):
    """out = each window's gradient, divided by its divisor, spread evenly over the window of the volume"""

    def d_grad(grad, ceil_mode, count_include_pad, divisor_override, kernel_size, padding, stride):
        return formulas.call(AvgPool3DBackward0, grad, kernel_size=kernel_size, stride=stride, padding=padding,
                             ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                             divisor_override=divisor_override)


class AdaptiveAvgPool3DBackward0(AdaptiveAvgPool2DBackward0):
    """out = means over a grid of output_size windows that tile the volume (sizes may differ by one)"""

    def d_self(grad, self):
        return formulas.call(AdaptiveAvgPool3DBackwardBackward0, grad, input_size=tuple(self.shape[-3:]))


class AdaptiveAvgPool3DBackwardBackward0(AdaptiveAvgPool2DBackwardBackward0):
    """out = each output gradient spread evenly over its window of the volume"""
    saves = ("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2", "grad_output_sym_argsize_minus_3")

    def d_grad_output(grad, grad_output_sym_argsize_minus_1, grad_output_sym_argsize_minus_2,
                      grad_output_sym_argsize_minus_3):
        return formulas.call(AdaptiveAvgPool3DBackward0, grad, output_size=(
            grad_output_sym_argsize_minus_3, grad_output_sym_argsize_minus_2, grad_output_sym_argsize_minus_1))


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    """out = the largest element of each adaptive window, read at ``result1`` (flat positions in D * H * W)"""

    def forward(xp, self, *, result1):
        return _gather_maxima(xp, self, result1, 3)

    def d_self(grad, result1, self):
        return formulas.call(AdaptiveMaxPool3DBackwardBackward0, grad, indices=result1, self_sym_sizes=self.shape)


class AdaptiveMaxPool3DBackwardBackward0(AdaptiveMaxPool2DBackwardBackward0):
    """out = zeros shaped like the pooled volume, with ``grad`` added at the positions of the maxima"""

    def forward(xp, grad, *, indices, self_sym_sizes):
        return _max_pool_grad(xp, grad, indices, self_sym_sizes, 3)

    def d_grad(grad, indices):
        return formulas.call(AdaptiveMaxPool3DBackward0, grad, result1=indices)


class MaxUnpool3DBackward0(MaxUnpool2DBackward0):
    """out = zeros of ``output_size`` per volume, each input value written at its flat index (in D * H * W)"""

    def d_self(grad, indices):  # (as PyTorch records it: a gather along the flattened volume)
        flat = formulas.call(GatherBackward0, _planes(grad, 3), dim=grad.ndim - 3, index=_planes(indices, 3))
        return formulas.reshape(flat, indices.shape)


# -- the functions ------------------------------------------------------------------------------------------------
def _triple(value, name: str, op: str, must: str) -> tuple:
    """An int, or a list or tuple of one or three ints, as three ints (PyTorch's error for any other length)."""
    if isinstance(value, int):
        return (value,) * 3
    value = tuple(value)
    if len(value) not in (1, 3):
        raise RuntimeError(f"{op}: {name} {must}, or a tuple of three ints")
    if len(value) == 1:
        value = value * 3
    return tuple(int(v) for v in value)


def _volumes(input: Tensor) -> None:
    if input.ndim not in (4, 5):
        raise RuntimeError(f"non-empty 4D or 5D (batch mode) tensor expected for input [autograd_lab] give (N, C, D, H, "
                           f"W) volumes or one (C, D, H, W) volume, got shape {list(input.shape)}")


def _positive_lengths(input: Tensor, where: str) -> None:
    """PyTorch's check that every non-batch dim is non-empty (its message says dimension 0 whichever it is)."""
    for dim in range(input.ndim - 4, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{where}(): Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {list(input.shape)} and non-batch dimension 0 has length zero! "
                               f"[autograd_lab] dimension {dim} is empty")


@checked
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The maximum of each (dilated) window of (N, C, D, H, W) volumes (or one (C, D, H, W)), as ``F.max_pool3d``;
    with ``return_indices``, also where it was (flat in D * H * W)."""
    op = "max_pool3d"
    kernel = _triple(kernel_size, "kernel_size", op, "must either be a single int")
    given = () if stride is None or stride == [] else _triple(stride, "stride", op,
                                                              "must either be omitted, a single int")
    padding = _triple(padding, "padding", op, "must either be a single int")
    dilation = _triple(dilation, "dilation", op, "must be either a single int")
    _volumes(input)
    _check_pool(op, kernel, given or kernel, padding, dilation)
    _positive_lengths(input, "max_pool3d_with_indices_out_cpu_template")
    x = input._data if input.ndim == 5 else input._data[None]
    indices = _max_pool_indices(backend.namespace_of(x), x, kernel, given or kernel, padding, dilation, ceil_mode, op)
    indices = Tensor._make(indices if input.ndim == 5 else indices[0])
    out = MaxPool3DWithIndicesBackward0.apply(input, result1=indices, kernel_size=kernel, stride=given,
                                              padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    return (out, indices) if return_indices else out


@checked
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window of (N, C, D, H, W) volumes (or one (C, D, H, W)), as ``F.avg_pool3d``."""
    op = "avg_pool3d"
    kernel = _triple(kernel_size, "kernel_size", op, "must be a single int")
    stride = () if stride is None or stride == [] else _triple(stride, "stride", op, "must be omitted, a single int")
    padding = _triple(padding, "padding", op, "must be a single int")
    _volumes(input)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool(op, kernel, stride or kernel, padding)
    _positive_lengths(input, op)
    size = input.shape[-3:]
    if any(s < k for s, k in zip(size, kernel)):  # (the input itself, padding not counted: PyTorch's 3-D check)
        raise RuntimeError(f"input image (T: {size[0]} H: {size[1]} W: {size[2]}) smaller than kernel size (kT: "
                           f"{kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    if input.dtype is backend.float16:
        raise no_kernel("avg_pool3d_out_frame", input.dtype, "avg_pool3d has no float16 kernel on the CPU: convert "
                        "first, e.g. x.float()")
    return AvgPool3DBackward0.apply(input, kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                                    count_include_pad=count_include_pad, divisor_override=divisor_override)


def _output_sizes(input: Tensor, output_size) -> tuple:
    """``output_size`` as a tuple: an int for every dim, ``None`` for the input's size there."""
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size,) * 3
    sizes = tuple(output_size)
    lead = input.ndim - len(sizes)
    return tuple(input.shape[lead + i] if s is None else int(s) for i, s in enumerate(sizes))


@checked
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Average over an ``output_size`` grid of windows that tile each volume, whatever its size (``None`` keeps a
    dim), as ``F.adaptive_avg_pool3d``."""
    op = "adaptive_avg_pool3d"
    sizes = _output_sizes(input, output_size)
    if len(sizes) != 3:
        raise RuntimeError(f"{op}: output_size must be 3 [autograd_lab] give an int or three")
    if min(sizes) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{sizes[0]}, {sizes[1]},{sizes[2]}}}")
    if sizes == (1, 1, 1):  # a global average: PyTorch records it as a mean
        return input.mean((-1, -2, -3), keepdim=True)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"{op}(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    _non_empty(input, op)
    if input._data.dtype.kind in "iub":
        raise no_kernel(f"{op}_cpu", input.dtype, f"{op} is for floating-point tensors: convert first, e.g. x.float()")
    return AdaptiveAvgPool3DBackward0.apply(input, output_size=sizes)


@checked
def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """The maximum over an ``output_size`` grid of windows that tile each volume (``None`` keeps a dim), as
    ``F.adaptive_max_pool3d``; with ``return_indices``, also where each was (flat in D * H * W)."""
    op = "adaptive_max_pool3d"
    if input.ndim not in (4, 5):
        raise RuntimeError(f"{op}(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    _non_empty(input, op)
    sizes = _output_sizes(input, output_size)
    if len(sizes) != 3:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be 3 [autograd_lab] give an int or three")
    if min(sizes) < 0:
        shape = list(input.shape[:-3]) + list(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(s for s in sizes if s < 0)}: "
                           f"{shape}")
    if input._data.dtype.kind in "iub":
        raise no_kernel(f"{op}_cpu", input.dtype, f"{op} is for floating-point tensors: convert first, e.g. x.float()")
    return _adaptive_max_pool(AdaptiveMaxPool3DBackward0, input, sizes, return_indices)


@checked
def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of (N, C, D, H, W) volumes, as ``F.lp_pool3d`` (``p = 1``: the window's
    sum; ``inf``: the maximum of the absolute values)."""
    kernel = (kernel_size,) * 3 if isinstance(kernel_size, int) else tuple(kernel_size)
    if len(kernel) != 3:  # (PyTorch unpacks three sizes)
        raise ValueError(f"not enough values to unpack (expected 3, got {len(kernel)})" if len(kernel) < 3 else
                         "too many values to unpack (expected 3)")
    return _lp_pool(input, norm_type, kernel, stride, ceil_mode, max_pool3d, avg_pool3d)


@checked
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Put each value of (N, C, D, H, W) pooled volumes (or one (C, D, H, W)) back at its ``indices`` in zeros, as
    ``F.max_unpool3d``; ``output_size`` picks among the sizes the pooling could have come from."""
    kernel = _tuple(kernel_size, 3, "kernel_size", "max_unpool3d")
    stride = kernel if stride is None else _tuple(stride, 3, "stride", "max_unpool3d")
    padding = _tuple(padding, 3, "padding", "max_unpool3d")
    size = _output_size(input, kernel, stride, padding, output_size)
    return _unpool(MaxUnpool3DBackward0, input, indices, size)
