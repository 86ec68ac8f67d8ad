"""Ops that neural networks need: softmax/log_softmax, gelu, linear (addmm), embedding, batch_norm.

Dropout is in :mod:`.dropout`, convolution in :mod:`.nn_conv`, pooling in :mod:`.nn_pool`, losses in
:mod:`.nn_loss`. As everywhere in ``ops``, each derivative is written with differentiable tensor operations, so
gradients of gradients work.
Where PyTorch records a composite (``dropout`` is a ``MulBackward0``, ``linear`` without bias a
``MmBackward0``), so does this file, so the graphs a learner draws look the same.
"""

from __future__ import annotations

import math
import warnings

from .. import backend
from ..autograd import grad_mode as _gm
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._errors import check_norm_dtypes, mixed_devices_message, no_kernel
from ._op import LINEAR, Op
from .inplace import writable_array
from .linalg import matrix_product, mm_mat2_backward

# -- softmax and log_softmax -------------------------------------------------------------------


class SoftmaxBackward0(Op):
    """out = exp(x - max) / sum(exp(x - max)) along ``dim`` (shifting by the max avoids overflow)"""
    saves = ("dim", "result")

    def forward(xp, self, *, dim):
        if self.size == 0:
            return self.copy()  # (an empty input has no maximum to shift by, and nothing to normalize)
        self = xp.asarray(self, order="C")  # (as PyTorch's kernel, which makes the result contiguous too)
        shifted = xp.exp(self - xp.max(self, axis=dim, keepdims=True))
        return shifted / shifted.sum(axis=dim, keepdims=True)

    def d_self(grad, dim, result):
        return result * (grad - formulas.sum(grad * result, dim, keepdim=True))

    f_self = d_self  # (the Jacobian, diag(s) - s s^T, is symmetric: J t has the formula of J^T g)


class LogSoftmaxBackward0(Op):
    """out = x - max - log(sum(exp(x - max))) along ``dim``"""
    saves = ("dim", "result")

    def forward(xp, self, *, dim):
        if self.size == 0:
            return self.copy()
        self = xp.asarray(self, order="C")  # (as in softmax)
        shifted = self - self.max(axis=dim, keepdims=True)
        return shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))

    def d_self(grad, dim, result):
        return grad - formulas.exp(result) * formulas.sum(grad, dim, keepdim=True)

    def f_self(tangent, dim, result):  # (J = I - 1 s^T is not symmetric: J t = t - sum(s * t))
        return tangent - formulas.sum(formulas.exp(result) * tangent, dim, keepdim=True)


def _softmax_dim(input: Tensor, dim, name: str) -> int:
    if dim is None:  # PyTorch's legacy implicit choice
        dim = 0 if input.ndim in (0, 1, 3) else 1
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                      "dim=X as an argument.", UserWarning, stacklevel=3)
    return _wrap_dim(dim, input.ndim, name)


def _float_input(input: Tensor, dtype, name: str) -> Tensor:
    if dtype is not None:
        return input.to(dtype)
    if not input.is_floating_point():
        raise RuntimeError(f'"{name}_lastdim_kernel_impl" not implemented for \'{backend.kernel_type_name(input.dtype)}\' '
                           f"[autograd_lab] {name} needs a floating tensor: call .float() first, or pass dtype=")
    return input


@checked(kinds={"dim": "int?"})
def softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, computed without overflow."""
    input = _float_input(input, dtype, "softmax")
    d = _softmax_dim(input, dim, "softmax")
    return SoftmaxBackward0.apply(input, dim=d)


@checked(kinds={"dim": "int?"})
def log_softmax(input: Tensor, dim: int | None = None, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``, computed directly (never log of a rounded-to-zero probability)."""
    input = _float_input(input, dtype, "log_softmax")
    d = _softmax_dim(input, dim, "log_softmax")
    return LogSoftmaxBackward0.apply(input, dim=d)


# -- gelu --------------------------------------------------------------------------------------
_np_erf = backend.np.frompyfunc(math.erf, 1, 1)  # NumPy has no erf; math.erf is exact


def _erf(xp, array):
    if xp is backend.np:  # (asarray: on a 0-d array the ufunc gives a Python float)
        return xp.asarray(_np_erf(array), dtype=array.dtype)
    erf = getattr(xp, "erf", None)  # a namespace may have its own; CuPy's lives in cupyx
    if erf is None:
        from cupyx.scipy.special import erf  # CuPy arrays: the GPU's erf
    return erf(array)


class ErfBackward0(Op):
    """out = erf(x) = 2/sqrt(pi) * integral of exp(-t^2) from 0 to x"""
    saves = ("self",)
    promotes = "float"  # (integer inputs give the default float dtype)

    def forward(xp, self):
        return _erf(xp, self)

    def d_self(grad, self):
        return grad * (2 / math.sqrt(math.pi)) * formulas.exp(-self * self)

    f_self = d_self  # element-wise: the forward derivative is the backward one


def erf(input: Tensor) -> Tensor:
    """The error function, elementwise (used by the exact GELU)."""
    return ErfBackward0.apply(input)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


class GeluBackward0(Op):
    """out = x * Phi(x) (Phi: the standard normal CDF), or its tanh approximation"""
    saves = ("approximate", "self")

    def forward(xp, self, *, approximate):
        if approximate == "tanh":
            return 0.5 * self * (1 + xp.tanh(_SQRT_2_OVER_PI * (self + 0.044715 * self ** 3)))
        return 0.5 * self * (1 + _erf(xp, self / math.sqrt(2)))

    def d_self(grad, approximate, self):
        if approximate == "tanh":
            t = formulas.tanh(_SQRT_2_OVER_PI * (self + 0.044715 * self ** 3))
            inner = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * self * self)
            return grad * (0.5 * (1 + t) + 0.5 * self * (1 - t * t) * inner)
        cdf = 0.5 * (1 + formulas.call(ErfBackward0, self / math.sqrt(2)))
        pdf = formulas.exp(-0.5 * self * self) / math.sqrt(2 * math.pi)
        return grad * (cdf + self * pdf)

    f_self = d_self  # element-wise: the forward derivative is the backward one


@checked
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian Error Linear Unit: ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh. (got {approximate!r})")
    return GeluBackward0.apply(input, approximate=approximate)


# -- linear ------------------------------------------------------------------------------------
class AddmmBackward0(Op):
    """out = beta * self + alpha * (mat1 @ mat2); ``self`` broadcasts (a bias row)"""
    saves = ("alpha", "beta", "mat1", "mat1_sym_sizes", "mat1_sym_strides", "mat2", "mat2_sym_sizes", "mat2_sym_strides")

    def forward(xp, self, mat1, mat2, *, beta, alpha):
        product = matrix_product(mat1, mat2)  # (2-D by 2-D: addmm checks)
        if (beta == 1 and alpha == 1 and self.__class__ is product.__class__ and self.dtype == product.dtype
                and self.shape == product.shape[2 - self.ndim:]):
            product += self  # a bias row (or a full matrix) of the product's dtype: added into the fresh product
            return product
        if beta == 0:  # self's values are ignored (a NaN there stays out), as PyTorch documents
            return product if alpha == 1 else alpha * product
        return (self if beta == 1 else beta * self) + (product if alpha == 1 else alpha * product)

    def d_self(grad, beta):
        return grad if beta == 1 else grad * beta

    def d_mat1(grad, alpha, mat2):
        out = formulas.mm(grad, formulas.t(mat2))
        return out if alpha == 1 else out * alpha

    def d_mat2(grad, alpha, mat1, mat2_sym_sizes, mat2_sym_strides):
        out = mm_mat2_backward(grad, mat1, mat2_sym_sizes, mat2_sym_strides)
        return out if alpha == 1 else out * alpha

    f_self = d_self  # (the bias's tangent, scaled; broadcast to the output's shape)

    def f_mat1(tangent, alpha, mat2):
        out = formulas.mm(tangent, mat2)
        return out if alpha == 1 else out * alpha

    def f_mat2(tangent, alpha, mat1):
        out = formulas.mm(mat1, tangent)
        return out if alpha == 1 else out * alpha


@checked
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``: one node for a layer's product and bias."""
    if mat1.ndim != 2 or mat2.ndim != 2 or mat1.shape[1] != mat2.shape[0]:
        mat1.mm(mat2)  # raises mm's shape error
    for t in (input, mat2):
        if t.dtype is not mat1.dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {mat1.dtype!r} != {t.dtype!r}. "
                               "[autograd_lab] linear/addmm: convert the input or the layer, e.g. model.double()")
    if not mat1.dtype.is_floating_point:  # an integer product truncates beta and alpha, as PyTorch's kernel does
        beta, alpha = int(beta), int(alpha)
    return AddmmBackward0.apply(input, mat1, mat2, beta=beta, alpha=alpha)


@checked
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``, recorded as PyTorch records it (``AddmmBackward0``, or ``MmBackward0``)."""
    data, w = input._data, weight._data
    if data.shape[-1:] != w.shape[-1:] if data.ndim else True:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_rows(input)}x{input.shape[-1] if input.ndim else 1} and "
            f"{weight.shape[-1]}x{weight.shape[0]}). [autograd_lab] linear: the input's last dim must equal "
            f"in_features={weight.shape[-1]}"
        )
    if bias is None:
        return input.matmul(weight.t())
    if data.ndim == 2:
        if w.ndim == 2 and isinstance(bias, Tensor) and bias._data.dtype == data.dtype == w.dtype:
            # (what addmm checks holds already: 2-D operands of matching sizes and one dtype)
            return AddmmBackward0.apply(bias, input, weight.t(), beta=1, alpha=1)
        return addmm(bias, input, weight.t())
    rows = input.reshape(-1, input.shape[-1])
    return addmm(bias, rows, weight.t()).view(*input.shape[:-1], weight.shape[0])


def _rows(input: Tensor) -> int:
    n = 1
    for s in input.shape[:-1]:
        n *= s
    return n


# -- embedding ---------------------------------------------------------------------------------
class EmbeddingBackward0(Op):
    """out = weight[indices]: one row of the table per index (``padding_idx`` -1 for none, as PyTorch keeps it)"""
    saves = ("indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")
    tensor_params = ("indices",)  # saved version-checked, as PyTorch does

    def forward(xp, weight, *, indices, padding_idx, scale_grad_by_freq, sparse=False):
        return weight[indices]

    def d_weight(grad, indices, padding_idx, scale_grad_by_freq, weight_sym_argsize_0):
        return formulas.call(EmbeddingDenseBackwardBackward0, grad, indices=indices, num_weights=weight_sym_argsize_0,
                             padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)

    jvp = LINEAR  # the tangent's rows at the indices


def _row_scale(xp, indices, num_weights, padding_idx, scale_grad_by_freq, dtype):
    """What each index's gradient is multiplied by: 0 at padding_idx, 1/count with scale_grad_by_freq."""
    scale = xp.ones(indices.shape, dtype=dtype)
    if scale_grad_by_freq:
        scale = scale / xp.bincount(indices.reshape(-1), minlength=num_weights)[indices]
    if padding_idx >= 0:
        scale = xp.where(indices == padding_idx, 0, scale)
    return scale.astype(dtype, copy=False)[..., None]


def _embedding_grad(xp, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """zeros(num_weights, dim) with each gradient row (scaled by ``_row_scale``) added at its index."""
    if scale_grad_by_freq or padding_idx >= 0:
        grad = grad * _row_scale(xp, indices, num_weights, padding_idx, scale_grad_by_freq, grad.dtype)
    out = xp.zeros((num_weights, grad.shape[-1]), dtype=grad.dtype)  # (every scale 1: the rows as they are)
    xp.add.at(out, indices.reshape(-1), grad.reshape(-1, grad.shape[-1]))  # repeated indices accumulate
    return out


class EmbeddingDenseBackwardBackward0(Op):
    """out = zeros(num_weights, dim) with each gradient row added at its index (repeats accumulate)"""
    saves = ("indices", "padding_idx", "scale_grad_by_freq")
    hidden_saves = ("scale_grad_by_freq",)  # (PyTorch's node has no such attribute: its double backward ignores it)
    tensor_params = ("indices",)

    def forward(xp, grad, *, indices, num_weights, padding_idx, scale_grad_by_freq):
        return _embedding_grad(xp, grad, indices, num_weights, padding_idx, scale_grad_by_freq)

    def d_grad(grad, indices, padding_idx, scale_grad_by_freq):
        index = formulas.array_of(indices)  # (the row scales are constants of the derivative)
        scale = _row_scale(backend.namespace_of(index), index, grad.shape[0], padding_idx, scale_grad_by_freq,
                           formulas.array_of(grad).dtype)
        picked = formulas.call(EmbeddingBackward0, grad, indices=indices, padding_idx=padding_idx,
                               scale_grad_by_freq=scale_grad_by_freq)
        return picked * scale

    jvp = LINEAR


@checked
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` (num_embeddings, dim) picked by the integer tensor ``input``; with ``max_norm``, the
    picked rows whose ``norm_type``-norm is above it are first scaled down to it, in ``weight`` itself."""
    if input.dtype not in (backend.int64, backend.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got al.{input.dtype._legacy_name} instead (while checking arguments for "
                           "embedding) [autograd_lab] pass the indices as an int64 tensor, e.g. x.long()")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if sparse:
        raise NotImplementedError("embedding: sparse=True [autograd_lab] sparse gradients are not supported: use "
                                  "sparse=False (a dense gradient with the same values)")
    num = weight.shape[0]
    if padding_idx is not None and not -num <= padding_idx < num:
        raise AssertionError("Padding_idx must be within num_embeddings")
    padding_idx = -1 if padding_idx is None else padding_idx % num  # (-1: none)
    data = input._data
    if data.size and (data.min() < 0 or data.max() >= num):
        raise IndexError(f"index out of range in self [autograd_lab] embedding: indices must be in [0, {num - 1}], "
                         f"got values from {int(data.min())} to {int(data.max())}")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return EmbeddingBackward0.apply(weight, indices=input, padding_idx=padding_idx,
                                    scale_grad_by_freq=scale_grad_by_freq)


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: each row of ``weight`` that ``input`` picks, if its ``norm_type``-norm is
    above ``max_norm``, is multiplied in place by ``max_norm / (norm + 1e-7)`` (not recorded: under no_grad)."""
    with _gm.no_grad():
        rows = input.reshape(-1).unique()
        norms = weight[rows].norm(norm_type, dim=1, keepdim=True).double()  # (the scale in double, as PyTorch's)
        over = (norms > max_norm).reshape(-1)
        rows, norms = rows[over], norms[over]
        weight[rows] = weight[rows] * (max_norm / (norms + 1e-7)).to(weight.dtype)


# -- batch norm --------------------------------------------------------------------------------
def _channel_view(t: Tensor, ndim: int) -> Tensor:
    """A (C,) tensor shaped to broadcast over channel dim 1 of an ``ndim``-D input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


class NativeBatchNormBackward0(Op):
    """out = (x - mean) / sqrt(var + eps) * weight + bias, per channel (dim 1)

    Training uses the batch's mean and biased variance; evaluation the running statistics. The
    ``running_mean`` / ``running_var`` tensors are saved version-checked in both modes, as PyTorch saves
    them: changing them in place between the forward and the backward is an error. Training updates them
    the way PyTorch's kernel does, writing into their memory without bumping their versions (see
    ``batch_norm``), so two training forwards before one backward stay valid.
    In training, ``result1`` and ``result2`` are the batch's mean and 1/sqrt(var + eps) per channel, saved as
    PyTorch saves its second and third outputs (empty in evaluation); the derivatives compute them again from the
    input, so that they are differentiable.
    """
    saves = ("eps", "input", "result1", "result2", "running_mean", "running_var", "training", "weight")
    tensor_params = ("result1", "result2", "running_mean", "running_var")

    def forward(xp, input, weight, bias, *, training, running_mean, running_var, eps, result1, result2):
        shape = (1, -1) + (1,) * (input.ndim - 2)
        x = formulas.opmath(input)
        if training:
            out = (x - result1.reshape(shape)) * result2.reshape(shape)
        else:
            out = (x - running_mean.reshape(shape)) / xp.sqrt(running_var.reshape(shape) + eps)
        if weight is not None:
            out = out * weight.reshape(shape)
        if bias is not None:
            out = out + bias.reshape(shape)
        return out.astype(input.dtype, copy=False)

    def backward(grad, eps, input, running_mean, running_var, training, weight, grad_input_mask):
        dims, shape, invstd, normalized = _normalized(input, training, running_mean, running_var, eps)
        need_input, need_weight, need_bias = grad_input_mask
        grad_input = grad_weight = grad_bias = None
        if need_input:
            scale = invstd if weight is None else invstd * weight.reshape(shape)
            if training:
                centred = grad - formulas.mean(grad, dims, keepdim=True)
                grad_input = scale * (centred - normalized * formulas.mean(grad * normalized, dims, keepdim=True))
            else:
                grad_input = grad * scale
        if need_weight:
            grad_weight = formulas.sum(grad * normalized, dims)
        if need_bias:
            grad_bias = formulas.sum(grad, dims)
        return grad_input, grad_weight, grad_bias

    def jvp(tangents, eps, input, running_mean, running_var, training, weight, bias):
        input_t, weight_t, bias_t = tangents  # (zeros for an input without a tangent; None for no weight or bias)
        dims, shape, invstd, normalized = _normalized(input, training, running_mean, running_var, eps)
        if training:  # the batch's mean and variance move with the input too
            centred = input_t - formulas.mean(input_t, dims, keepdim=True)
            out_t = invstd * (centred - normalized * formulas.mean(input_t * normalized, dims, keepdim=True))
        else:
            out_t = input_t * invstd
        if weight is not None:
            out_t = out_t * weight.reshape(shape) + normalized * weight_t.reshape(shape)
        return out_t if bias is None else out_t + bias_t.reshape(shape)


def _normalized(input, training: bool, running_mean, running_var, eps: float) -> tuple:
    """What batch norm's derivatives share: the reduced dims, a channel's shape, 1/std and the normalized input."""
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, -1) + (1,) * (input.ndim - 2)
    input = formulas.opmath(input)
    if training:  # the batch's statistics (biased variance), differentiated through
        mean = formulas.mean(input, dims, keepdim=True)
        invstd = 1 / formulas.sqrt(formulas.var(input, dims, correction=0, keepdim=True) + eps)
    else:  # the running statistics: constants of the derivative
        mean = formulas.array_of(running_mean).reshape(shape)
        invstd = formulas.cast_like((1 / formulas.sqrt(formulas.array_of(running_var) + eps)).reshape(shape), input)
    return dims, shape, invstd, (input - mean) * invstd


@checked
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5
               ) -> Tensor:
    """Normalise each channel (dim 1) by the batch's statistics (training, updating the running ones in
    place) or by the running statistics (evaluation)."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (N, C, ...), got {input.ndim}D input")
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var")):
        if not training and t is None:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    channels = input.shape[1]
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != (channels,):
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()} "
                               f"[autograd_lab] input of shape {list(input.shape)} has {channels} channels (dim 1)")
    if training and input.numel() == channels:  # (an empty batch is fine: nothing to normalize, no update)
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    if not input.is_floating_point():
        raise no_kernel("batch_norm", input.dtype, "batch_norm needs a floating tensor: call .float() first")
    check_norm_dtypes(input, (weight, bias, running_mean, running_var))
    if training and running_mean is not None and input.numel():
        _update_running_stats(input, running_mean, running_var, momentum)
    mean, invstd = _batch_statistics(input._data, training, eps)
    return NativeBatchNormBackward0.apply(input, weight, bias, training=training, running_mean=running_mean,
                                          running_var=running_var, eps=eps, result1=mean, result2=invstd)


def _batch_statistics(data, training: bool, eps: float) -> tuple:
    """``(mean, 1/sqrt(biased var + eps))`` per channel of a training batch (0 and 1 for an empty one), as tensors;
    empty ones in evaluation, as PyTorch's batch norm returns them."""
    xp = backend.namespace_of(data)
    data = formulas.opmath(data)  # (float16 in float32, as PyTorch's kernel: the forward reads them in that dtype)
    channels = data.shape[1] if training else 0
    if not training or not data.size:
        return Tensor._make(xp.zeros(channels, dtype=data.dtype)), Tensor._make(xp.ones(channels, dtype=data.dtype))
    dims = (0,) + tuple(range(2, data.ndim))
    invstd = 1 / xp.sqrt(formulas.var(data, dims, correction=0) + eps)
    return Tensor._make(formulas.mean(data, dims)), Tensor._make(invstd.astype(data.dtype, copy=False))


def _update_running_stats(input: Tensor, running_mean: Tensor, running_var: Tensor | None, momentum: float) -> None:
    """``stat = (1 - momentum) * stat + momentum * batch_stat`` written into the running statistics' memory,
    as PyTorch's batch-norm kernel writes them: their version counters are not bumped (``running_mean._version``
    reads the same after a training step in both libraries), and a node that saved them earlier stays valid.
    The checks an in-place method makes under ``no_grad`` still apply (inference tensors outside inference
    mode, expanded memory, read-only memory)."""
    mixed = mixed_devices_message("batch_norm", [t for t in (input, running_mean, running_var) if t is not None])
    if mixed:
        raise RuntimeError(mixed)
    data = formulas.opmath(input._data)
    dims = (0,) + tuple(range(2, data.ndim))
    pairs = [(running_mean, formulas.mean(data, dims))]
    if running_var is not None:
        pairs.append((running_var, formulas.var(data, dims, correction=1)))  # (the unbiased variance)
    for stat, batch in pairs:
        with _gm.no_grad():
            target = writable_array(stat, "batch_norm")
        target *= 1 - momentum
        target += (momentum * batch).astype(target.dtype, copy=False)


def _bind() -> None:
    Tensor.softmax = softmax
    Tensor.log_softmax = log_softmax
    Tensor.erf = erf


_bind()

__all__ = ["softmax", "log_softmax", "gelu", "erf", "linear", "addmm", "embedding", "batch_norm"]
