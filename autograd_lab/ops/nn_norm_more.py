"""More normalisation, and PReLU, each recorded as PyTorch records it on the CPU:

- ``group_norm``: one op, ``NativeGroupNormBackward0``; the C channels of each sample are cut into ``num_groups``
  groups, each normalised by its own mean and variance, then each channel scaled and shifted. Its derivatives are
  written with differentiable operations (gradients of gradients work) and recompute the statistics from the saved
  input, as ``layer_norm``'s do (PyTorch's node keeps them too, as ``result1`` and ``result2``);
- ``rms_norm``: a composite, as PyTorch's CPU function is (``x * rsqrt(mean(x^2) + eps) * weight``, last node
  ``MulBackward0``; the ``+ eps`` recorded as ``AddBackward1``, PyTorch's node for a number added in its C++ code),
  ``eps`` the dtype's machine epsilon when None;
- ``prelu``: one op, ``PreluKernelBackward0``, ``x`` where positive, else ``weight * x``, ``weight`` one value or
  one per channel (dim 1), viewed as (1, C, 1, ...) first (a ``ViewBackward0``, as in PyTorch).
"""

from __future__ import annotations

import math
import warnings

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._errors import check_norm_dtypes, no_kernel
from ._op import Op

__all__ = ["group_norm", "rms_norm", "prelu"]


# -- group_norm ---------------------------------------------------------------------------------
def _channel_shape(ndim: int, C: int) -> tuple:
    return (1, C) + (1,) * (ndim - 2)


def _grouped(N: int, C: int, HxW: int, group: int) -> tuple:
    """The shape (N, group, values of a group) in which each group's statistics are taken (no -1: N may be 0)."""
    return N, group, C // group * HxW


def _group_statistics(input, N: int, group: int, eps: float) -> tuple:
    """The input as (N, group, rest), its 1/std per group and the normalised input in that shape."""
    grouped = formulas.reshape(formulas.opmath(input), _grouped(N, input.shape[1], math.prod(input.shape[2:]), group))
    mean = formulas.mean(grouped, (2,), keepdim=True)
    rstd = 1 / formulas.sqrt(formulas.var(grouped, (2,), correction=0, keepdim=True) + eps)
    return rstd, (grouped - mean) * rstd


class NativeGroupNormBackward0(Op):
    """out = (x - mean) / sqrt(var + eps) * weight + bias, the statistics over each group of C / group channels of
    each sample, weight and bias per channel. ``result1`` and ``result2``, (N, group): the mean and 1/sqrt(var + eps)
    of each group, saved as PyTorch saves its second and third outputs (the derivatives compute them again from the
    input, so that they are differentiable)"""
    saves = ("C", "HxW", "N", "eps", "group", "input", "result1", "result2", "weight")
    tensor_params = ("result1", "result2")

    def forward(xp, input, weight, bias, *, N, C, HxW, group, eps, result1, result2):
        grouped = formulas.opmath(input).reshape(_grouped(N, C, HxW, group))
        out = ((grouped - result1[..., None]) * result2[..., None]).reshape(input.shape)
        if weight is not None:
            out = out * weight.reshape(_channel_shape(input.ndim, C))
        if bias is not None:
            out = out + bias.reshape(_channel_shape(input.ndim, C))
        return out.astype(input.dtype, copy=False)

    def backward(grad, C, HxW, N, eps, group, input, weight, grad_input_mask):
        rstd, normalized = _group_statistics(input, N, group, eps)
        need_input, need_weight, need_bias = grad_input_mask
        others = (0,) + tuple(range(2, input.ndim))
        grad_input = grad_weight = grad_bias = None
        if need_input:
            g = grad if weight is None else grad * formulas.reshape(weight, _channel_shape(input.ndim, C))
            g = formulas.reshape(g, _grouped(N, C, HxW, group))
            grad_input = rstd * (g - formulas.mean(g, (2,), keepdim=True)
                                 - normalized * formulas.mean(g * normalized, (2,), keepdim=True))
            grad_input = formulas.reshape(grad_input, input.shape)
        if need_weight:
            grad_weight = formulas.sum(grad * formulas.reshape(normalized, input.shape), others)
        if need_bias:
            grad_bias = formulas.sum(grad, others)
        return grad_input, grad_weight, grad_bias

    def jvp(tangents, C, HxW, N, eps, group, input, weight, bias):
        input_t, weight_t, bias_t = tangents  # (None for no weight or bias, or no tangent)
        rstd, normalized = _group_statistics(input, N, group, eps)
        channel = _channel_shape(input.ndim, C)
        out_t = None
        if input_t is not None:
            t = formulas.reshape(input_t, _grouped(N, C, HxW, group))
            out_t = rstd * (t - formulas.mean(t, (2,), keepdim=True)
                            - normalized * formulas.mean(t * normalized, (2,), keepdim=True))
            out_t = formulas.reshape(out_t, input.shape)
            if weight is not None:
                out_t = out_t * formulas.reshape(weight, channel)
        for extra in (None if weight_t is None else formulas.reshape(normalized, input.shape)
                      * formulas.reshape(weight_t, channel), None if bias_t is None
                      else formulas.expand(formulas.reshape(bias_t, channel), input.shape)):
            if extra is not None:
                out_t = extra if out_t is None else out_t + extra
        return out_t


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each group of ``C / num_groups`` channels of each sample of an (N, C, ...) input over its values,
    then scale by ``weight`` and shift by ``bias`` (one value per channel)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    N, C = input.shape[0], input.shape[1]
    if num_groups > 0 and N * C // num_groups * math.prod(input.shape[2:]) == 1:  # PyTorch's check, made first
        size = [N * C // num_groups, num_groups, *input.shape[2:]]
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size} "
                         "[autograd_lab] group_norm: N * C // num_groups times the spatial sizes is 1 (one sample, one value per "
                         "group): there is nothing to normalise")
    if num_groups <= 0 or C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    check_norm_dtypes(input, (weight, bias))
    if not input.is_floating_point():
        raise no_kernel("GroupNormKernelImpl", input.dtype, "group_norm needs a floating tensor: call .float() first")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and (t.ndim != 1 or t.shape[0] != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    HxW = math.prod(input.shape[2:])
    grouped = formulas.opmath(input._data).reshape(_grouped(N, C, HxW, num_groups))  # (float16 in float32)
    xp = backend.namespace_of(grouped)
    if grouped.size:
        mean = formulas.mean(grouped, (2,))
        rstd = 1 / xp.sqrt(formulas.var(grouped, (2,), correction=0) + eps)
    else:  # (no values: a mean of 0 and a 1/std of nan, as PyTorch's kernel leaves them)
        mean, rstd = xp.zeros(grouped.shape[:2], grouped.dtype), xp.full(grouped.shape[:2], xp.nan, grouped.dtype)
    return NativeGroupNormBackward0.apply(input, weight, bias, N=N, C=C, HxW=HxW, group=num_groups, eps=eps,
                                          result1=Tensor._make(mean), result2=Tensor._make(rstd.astype(grouped.dtype)))


# -- rms_norm -----------------------------------------------------------------------------------
class AddBackward1(Op):
    """out = x + other, ``other`` a number (what PyTorch records when its C++ code adds a Scalar, as its
    ``rms_norm`` does with ``eps``; a Python ``x + 0.5`` records ``AddBackward0``)"""
    saves = ()

    def forward(xp, self, *, other):
        return self + other

    def d_self(grad):
        return grad

    f_self = d_self


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``input`` divided by its root mean square over the last ``len(normalized_shape)`` dims (plus ``eps``, the
    dtype's machine epsilon when None, under the root), then scaled by ``weight``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if input.ndim < len(shape):
        raise ValueError(f"Input tensor must have at least {len(shape)} dimensions, but got {input.ndim}")
    if not shape or tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*"
                           + ", ".join(str(s) for s in shape) + f"], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    if not input.is_floating_point():
        raise no_kernel("rms_norm", input.dtype, "rms_norm needs a floating tensor: call .float() first")
    if eps is None:
        eps = float(backend.np.finfo(input.dtype.np_dtype).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    x = formulas.opmath(input)  # (float16 in float32, then back)
    out = (x * AddBackward1.apply(x.pow(2).mean(dims, keepdim=True), other=eps).rsqrt()).to(input.dtype)
    if weight is None:
        return out
    if weight.dtype is not input.dtype:  # the product, then back to the input's dtype (PyTorch's slower path)
        warnings.warn(f"Mismatch dtype between input and weight: input dtype = {backend.c_type_name(input.dtype)}, "
                      f"weight dtype = {backend.c_type_name(weight.dtype)}, Cannot dispatch to fused implementation.",
                      UserWarning, stacklevel=2)
        return (out * weight).to(input.dtype)
    return out * weight


# -- prelu --------------------------------------------------------------------------------------
class PreluKernelBackward0(Op):
    """out = x where x > 0, else weight * x (weight broadcast: one value, or one per channel)"""
    saves = ("self", "weight")

    def forward(xp, self, weight):
        return xp.where(self > 0, self, weight * self).astype(self.dtype, copy=False)

    def d_self(grad, self, weight):
        return formulas.where(self > 0, grad, grad * weight)

    def d_weight(grad, self, weight):
        return formulas.where(self > 0, 0.0, grad * self)

    def jvp(tangents, self, weight):
        self_t, weight_t = tangents
        out = None if self_t is None else formulas.where(self > 0, self_t, self_t * weight)
        if weight_t is None:
            return out
        extra = formulas.where(self > 0, 0.0, weight_t * self)
        return extra if out is None else out + extra


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``input`` where positive, else ``weight * input``: ``weight`` one value, or one per channel (dim 1)."""
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {backend.kernel_type_name(input.dtype)} and "
                           f"{backend.kernel_type_name(weight.dtype)} [autograd_lab] give the input and the weight "
                           "one floating dtype")
    count = weight.numel()
    if count != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if count != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{count} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if input.ndim != weight.ndim:  # (a view of weight that broadcasts along the channels, dim 1)
        weight = weight.view((1, count) + (1,) * (input.ndim - 2) if input.ndim > 1 else (1,) * input.ndim)
    return PreluKernelBackward0.apply(input, weight)
