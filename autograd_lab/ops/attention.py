"""Attention: ``scaled_dot_product_attention``, written as PyTorch's own CPU "math" path writes it, out of ops the
library already has, so its graph holds the nodes PyTorch's holds (the last is ``UnsafeViewBackward0`` from the
second ``matmul``):

1. query and key are each multiplied by ``sqrt(scale)`` (two small factors rather than one large one), recorded
   as ``MulBackward1``, PyTorch's node for a product with a number made in its C++ code;
2. ``scores = query @ key.transpose(-2, -1)``, plus the mask: a float mask is added as it is, a boolean one
   becomes 0 where it is True (the pair takes part) and ``-inf`` where it is False; ``is_causal`` is the lower
   triangle of a (L, S) boolean mask;
3. the weights are ``_safe_softmax(scores, -1)``: a softmax whose rows of only ``-inf`` give 0 instead of NaN
   (``SafeSoftmaxBackward0``), then dropout (from the default generator) when
   ``dropout_p > 0``;
4. ``out = weights @ value``.

With ``enable_gqa`` a key and value with fewer heads than the query are repeated (``repeat_interleave`` along the
heads dim) so that each group of query heads shares one key head.
"""

from __future__ import annotations

import math

from .. import backend
from ..tensor import Tensor, _wrap_dim
from . import formulas
from ._args import checked
from ._op import Op
from .by_scalar import MulBackward1
from .dropout import dropout

__all__ = ["scaled_dot_product_attention"]

_CPP_NAMES = {"Long": "long int", "Short": "short int", "Byte": "unsigned char", "Char": "signed char",
              "Half": "c10::Half", "BFloat16": "c10::BFloat16"}


def _cpp_name(dtype) -> str:
    """A dtype as PyTorch's C++ checks name it in their messages (``float``, ``double``, ``long int``)."""
    name = backend.kernel_type_name(dtype)
    return _CPP_NAMES.get(name, name.lower())


class SafeSoftmaxBackward0(Op):
    """out = softmax(x) along ``dim``, and 0 along a line where every x is -inf (softmax would give NaN)"""
    saves = ("dim", "result")

    def forward(xp, self, *, dim):
        if self.size == 0:
            return self.copy()
        peak = xp.max(self, axis=dim, keepdims=True)
        masked = peak == -xp.inf
        shifted = xp.exp(self - xp.where(masked, 0, peak))
        total = shifted.sum(axis=dim, keepdims=True)
        return xp.where(masked, 0, shifted / xp.where(masked, 1, total)).astype(self.dtype, copy=False)

    def d_self(grad, dim, result):  # (softmax's: a zero line of the result gives a zero gradient)
        return result * (grad - formulas.sum(grad * result, dim, keepdim=True))

    f_self = d_self


def _safe_softmax(input: Tensor, dim: int) -> Tensor:
    return SafeSoftmaxBackward0.apply(input, dim=_wrap_dim(dim, input.ndim, "_safe_softmax"))


def _check_inputs(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float) -> None:
    """PyTorch's checks of ``scaled_dot_product_attention``'s arguments, with its words."""
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cpp_name(query.dtype)} key.dtype: {_cpp_name(key.dtype)} and value.dtype: "
                           f"{_cpp_name(value.dtype)} instead. [autograd_lab] scaled_dot_product_attention: cast all "
                           "three to one floating dtype")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead. [autograd_lab] "
                           "scaled_dot_product_attention: give (..., L, E) queries and (..., S, E) keys")
    if not query.is_floating_point():
        raise RuntimeError(f"expected scalar type Float but found {backend.kernel_type_name(query.dtype)} "
                           "[autograd_lab] scaled_dot_product_attention: attention needs floating inputs: call .float()")
    if attn_mask is not None and attn_mask.dtype not in (backend.bool_, backend.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_cpp_name(attn_mask.dtype)} and  query.dtype: "
                           f"{_cpp_name(query.dtype)} instead. [autograd_lab] scaled_dot_product_attention: a "
                           "boolean mask says which pairs take part, a float mask is added to the scores")
    if not 0 <= dropout_p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


def _additive(mask: Tensor, dtype) -> Tensor:
    """A boolean mask as the float mask it stands for: 0 where True, -inf where False."""
    if mask.dtype is not backend.bool_:
        return mask
    data = mask._data
    xp = backend.namespace_of(data)
    return Tensor._make(xp.where(data, 0.0, -xp.inf).astype(dtype.np_dtype))


def _check_mask_fits(scores: Tensor, mask: Tensor) -> None:
    """PyTorch adds the mask into the scores in place: a mask that would widen them (more dims, or a larger size
    where the scores have 1) is its error, not a broadcast output."""
    try:
        wide = tuple(backend.np.broadcast_shapes(tuple(scores.shape), tuple(mask.shape)))
    except ValueError:
        return  # (the addition raises PyTorch's broadcasting error)
    if wide != tuple(scores.shape):
        raise RuntimeError(f"output with shape {list(scores.shape)} doesn't match the broadcast shape {list(wide)} "
                           "[autograd_lab] scaled_dot_product_attention adds attn_mask to the (..., L, S) scores in "
                           "place: the mask must broadcast to their shape without growing it")


def _grouped(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """Key and value repeated along the heads dim (-3) to the query's number of heads (grouped-query attention)."""
    heads, key_heads, value_heads = query.shape[-3], key.shape[-3], value.shape[-3]
    if heads == key_heads == value_heads:
        return key, value
    if heads % key_heads or heads % value_heads:
        raise RuntimeError(f"Number of heads in key and value must divide the number of heads in query [autograd_lab] "
                           f"scaled_dot_product_attention: the query has {heads} heads, the key {key_heads} and the "
                           f"value {value_heads}")
    return (key.repeat_interleave(heads // key_heads, dim=-3),
            value.repeat_interleave(heads // value_heads, dim=-3))


@checked(kinds={"query": "Tensor", "key": "Tensor", "value": "Tensor", "attn_mask": "Tensor?",
                "dropout_p": "number", "is_causal": "bool", "scale": "number?", "enable_gqa": "bool"})
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims: query (..., L, E), key (..., S, E),
    value (..., S, Ev) give (..., L, Ev). ``attn_mask``: boolean (True takes part) or float (added to the scores),
    broadcast to (..., L, S); ``is_causal``: each query sees the keys up to its own position (no ``attn_mask`` then);
    ``scale``: 1/sqrt(E) when None; ``dropout_p``: dropout on the weights; ``enable_gqa``: key and value may have
    fewer heads (dim -3) than the query, a divisor of its number."""
    _check_inputs(query, key, value, attn_mask, dropout_p)
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    factor = math.sqrt(abs(scale))
    query = MulBackward1.apply(query, other=-factor if scale < 0 else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True "
                               "[autograd_lab] give either the causal flag or your own mask (combine them yourself)")
        xp = backend.namespace_of(query._data)
        lower = xp.tril(xp.ones((query.shape[-2], key.shape[-2]), dtype=bool))
        attn_mask = Tensor._make(lower)
    if enable_gqa:
        key, value = _grouped(query, key, value)
    scores = query @ MulBackward1.apply(key.transpose(-2, -1), other=factor)
    if attn_mask is not None:
        mask = _additive(attn_mask, query.dtype)
        _check_mask_fits(scores, mask)
        scores = scores + mask
    weights = _safe_softmax(scores, -1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, True)
    return weights @ value
