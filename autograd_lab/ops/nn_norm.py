"""Normalisation over a sample's own values: ``layer_norm`` (its last dims) and ``instance_norm`` (each
channel of each sample). Batch norm, which normalises over the batch, is in :mod:`autograd_lab.ops.nn`.

``layer_norm`` is one op, ``NativeLayerNormBackward0``, whose derivative is written with differentiable
operations (so gradients of gradients work). ``instance_norm`` is composed as PyTorch composes it: the
(N, C, ...) input is viewed as one sample of N * C channels and batch-normalised, the weight and running
statistics repeated N times; the running statistics then take the mean of the N copies.
"""

from __future__ import annotations

from .. import backend
from ..autograd import grad_mode as _gm
from ..tensor import Tensor
from . import formulas
from ._errors import check_norm_dtypes, no_kernel
from ._op import Op
from .nn import batch_norm

__all__ = ["layer_norm", "instance_norm"]


class NativeLayerNormBackward0(Op):
    """out = (x - mean) / sqrt(var + eps) * weight + bias, the statistics over the last dims (normalized_shape):
    ``result1`` the mean, ``result2`` 1/sqrt(var + eps), saved as PyTorch saves its second and third outputs (the
    derivatives compute them again from the input, so that they are differentiable)"""
    saves = ("bias", "eps", "input", "normalized_shape", "result1", "result2", "weight")
    hidden_saves = ("eps",)  # (PyTorch's node keeps rstd, not eps)
    tensor_params = ("result1", "result2")

    def forward(xp, input, weight, bias, *, normalized_shape, eps, result1, result2):
        out = (formulas.opmath(input) - result1) * result2
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out.astype(input.dtype, copy=False)

    def backward(grad, eps, input, normalized_shape, weight, grad_input_mask):  # (bias, result1/2: PyTorch's, kept)
        dims, rstd, normalized = _layer_statistics(input, normalized_shape, eps)
        leading = tuple(range(input.ndim - len(normalized_shape)))
        need_input, need_weight, need_bias = grad_input_mask
        grad_input = grad_weight = grad_bias = None
        if need_input:
            g = grad if weight is None else grad * weight
            grad_input = rstd * (g - formulas.mean(g, dims, keepdim=True)
                                 - normalized * formulas.mean(g * normalized, dims, keepdim=True))
        if need_weight:
            grad_weight = formulas.sum(grad * normalized, leading) if leading else grad * normalized
        if need_bias:
            grad_bias = formulas.sum(grad, leading) if leading else grad
        return grad_input, grad_weight, grad_bias

    def jvp(tangents, eps, input, normalized_shape, weight, bias):
        input_t, weight_t, bias_t = tangents  # (None for no weight or bias)
        dims, rstd, normalized = _layer_statistics(input, normalized_shape, eps)
        out_t = rstd * (input_t - formulas.mean(input_t, dims, keepdim=True)
                        - normalized * formulas.mean(input_t * normalized, dims, keepdim=True))
        if weight is not None:
            out_t = out_t * weight + normalized * weight_t
        return out_t if bias is None else out_t + bias_t


def _layer_statistics(input, normalized_shape, eps: float) -> tuple:
    """What layer norm's derivatives share: the normalized dims, 1/std over them and the normalized input."""
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    input = formulas.opmath(input)
    mean = formulas.mean(input, dims, keepdim=True)
    rstd = 1 / formulas.sqrt(formulas.var(input, dims, correction=0, keepdim=True) + eps)
    return dims, rstd, (input - mean) * rstd


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims, then scale by ``weight`` and shift by ``bias``
    (both of shape ``normalized_shape``)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*"
                           + "".join(f", {s}" for s in shape) + f"], but got input of size{list(input.shape)}")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(shape)}")
    check_norm_dtypes(input, (weight, bias))
    if not input.is_floating_point():
        raise no_kernel("LayerNormKernelImpl", input.dtype, "layer_norm needs a floating tensor: call .float() first")
    data = formulas.opmath(input._data)  # (float16 in float32, as PyTorch's kernel)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    mean = formulas.mean(data, dims, keepdim=True)
    rstd = 1 / backend.namespace_of(data).sqrt(formulas.var(data, dims, correction=0, keepdim=True) + eps)
    return NativeLayerNormBackward0.apply(input, weight, bias, normalized_shape=shape, eps=eps,
                                          result1=Tensor._make(mean), result2=Tensor._make(rstd.astype(data.dtype)))


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its own positions (``use_input_stats``), or by the running
    statistics; with running statistics and ``use_input_stats``, they are updated (their mean over the batch)."""
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected an input of at least 3 dims (N, C, ...), got {input.ndim}D input "
                         f"[autograd_lab] of shape {list(input.shape)}")
    if use_input_stats:
        positions = 1
        for size in input.shape[2:]:
            positions *= size
        if positions == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    n, c = input.shape[0], input.shape[1]

    def repeated(t):
        return None if t is None else t.repeat(n)
    stats = [repeated(s.detach()) if s is not None else None for s in (running_mean, running_var)]
    out = batch_norm(input.reshape(1, n * c, *input.shape[2:]), stats[0], stats[1], repeated(weight), repeated(bias),
                     training=use_input_stats, momentum=momentum, eps=eps)
    if use_input_stats:
        with _gm.no_grad():
            for running, copies in zip((running_mean, running_var), stats):
                if running is not None:
                    running.copy_(copies.view(n, c).mean(0))
    return out.view(input.shape)
