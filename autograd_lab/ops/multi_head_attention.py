"""Multi-head attention as a function, ``multi_head_attention_forward``, composed of existing ops in the order
PyTorch composes it, so that the same weights give the same numbers. Inputs are sequence-first, (L, N, E) (or
one unbatched (L, E) sequence):

1. the query, key and value are projected (one packed ``in_proj_weight`` of (3E, E), split in three, or three
   separate weights when key and value have other sizes than the query);
2. ``bias_k``/``bias_v`` add one learned position to key and value, ``add_zero_attn`` one position of zeros
   (each masks widened by a column of 0);
3. each is cut into ``num_heads`` heads of E / num_heads features (``static_k``/``static_v``, given already cut,
   (N * num_heads, S, head_dim), replace the projected key/value);
4. the masks: ``attn_mask`` (L, S) or (N * num_heads, L, S), ``key_padding_mask`` (N, S), boolean (True: leave
   out; the opposite of ``scaled_dot_product_attention``'s convention) or float (added), are summed into one;
5. with ``need_weights``, the attention weights are computed explicitly (and returned, averaged over the heads
   if ``average_attn_weights``); otherwise through :func:`.attention.scaled_dot_product_attention`;
6. the heads are joined and projected by ``out_proj``.
"""

from __future__ import annotations

import math
import warnings

from .. import backend, creation
from ..tensor import Tensor
from .attention import scaled_dot_product_attention
from .dropout import dropout
from .join import cat
from .nn import linear, softmax
from .padding import pad

__all__ = ["multi_head_attention_forward"]


def _canonical_mask(mask: Tensor | None, name: str, other_type, other_name: str, dtype) -> Tensor | None:
    """A boolean mask (True: leave out) as the float mask it stands for (-inf where True, 0 elsewhere); a float
    mask as it is; PyTorch's warning when the two masks have different types."""
    if mask is None:
        return None
    if mask.dtype is not backend.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other_type is not None and mask.dtype is not other_type:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      "instead.", UserWarning, stacklevel=3)
    if mask.is_floating_point():
        return mask
    return creation.zeros_like(mask, dtype=dtype).masked_fill_(mask, float("-inf"))


def _check_shapes(query: Tensor, key: Tensor, value: Tensor, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the input is a batch ((L, N, E) query) or one sequence ((L, E)), with PyTorch's errors."""
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")


def _in_projection(query, key, value, weights, biases):
    """The three projections: one ``linear`` for self-attention (query, key and value the same tensor), two when
    key and value are the same, three otherwise, as PyTorch splits them."""
    embed_dim = query.shape[-1]
    if len(weights) == 3:  # (separate weights: the key and value have their own sizes)
        return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))
    weight, bias = weights[0], biases[0]
    if key is value and query is key:
        packed = linear(query, weight, bias).unflatten(-1, (3, embed_dim)).unsqueeze(0).transpose(0, -2)
        packed = packed.squeeze(-2).contiguous()
        return packed[0], packed[1], packed[2]
    if key is value:
        w_q, w_kv = weight.split([embed_dim, 2 * embed_dim])
        b_q, b_kv = (None, None) if bias is None else bias.split([embed_dim, 2 * embed_dim])
        packed = linear(key, w_kv, b_kv).unflatten(-1, (2, embed_dim)).unsqueeze(0).transpose(0, -2)
        packed = packed.squeeze(-2).contiguous()
        return linear(query, w_q, b_q), packed[0], packed[1]
    w_q, w_k, w_v = weight.chunk(3)
    b_q, b_k, b_v = (None, None, None) if bias is None else bias.chunk(3)
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _projection_weights(in_proj_weight, in_proj_bias, use_separate, q_proj_weight, k_proj_weight, v_proj_weight):
    if not use_separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return (in_proj_weight,), (in_proj_bias,)
    for w, name in ((q_proj_weight, "q_proj_weight"), (k_proj_weight, "k_proj_weight"), (v_proj_weight, "v_proj_weight")):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
    biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    return (q_proj_weight, k_proj_weight, v_proj_weight), biases


def _shaped_attn_mask(attn_mask: Tensor, target: tuple, bsz_heads: int) -> Tensor:
    """``attn_mask`` as (1 or N * num_heads, L, S), with PyTorch's errors for a wrong shape."""
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != target:
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape!r}, but should be "
                               f"{target}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != (bsz_heads, *target):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape!r}, but should be "
                               f"{(bsz_heads, *target)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")


def _extra_positions(k, v, attn_mask, key_padding_mask, bias_k, bias_v, bsz, static_k, static_v):
    """``bias_k``/``bias_v`` appended to key and value (one position more), the masks widened to match."""
    if bias_k is None or bias_v is None:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
        return k, v, attn_mask, key_padding_mask
    if static_k is not None:
        raise AssertionError("bias cannot be added to static key.")
    if static_v is not None:
        raise AssertionError("bias cannot be added to static value.")
    k = cat([k, bias_k.repeat(1, bsz, 1)])
    v = cat([v, bias_v.repeat(1, bsz, 1)])
    attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
    key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    return k, v, attn_mask, key_padding_mask


def _static(static: Tensor, name: str, bsz_heads: int, head_dim: int) -> Tensor:
    """A precomputed key or value, already (N * num_heads, S, head_dim), in place of the projected one."""
    if static.shape[0] != bsz_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


def _heads_first(x: Tensor, bsz_heads: int, head_dim: int) -> Tensor:
    """(S, N, E) as (N * num_heads, S, head_dim)."""
    return x.view(x.shape[0], bsz_heads, head_dim).transpose(0, 1)


def _attend(q, k, v, attn_mask, dropout_p, need_weights, average, is_causal, sizes):
    """The heads' attention, (N * num_heads, L, head_dim) each, joined to (L * N, E); and the weights or None."""
    tgt_len, bsz, num_heads, embed_dim = sizes
    src_len = k.shape[1]
    if need_weights:
        scores = (q * math.sqrt(1.0 / q.shape[-1])) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = (weights @ v).transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        return out, weights.mean(dim=1) if average else weights
    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else attn_mask.view(bsz, num_heads, -1, src_len)
    heads = [x.view(bsz, num_heads, x.shape[1], x.shape[2]) for x in (q, k, v)]
    out = scaled_dot_product_attention(*heads, attn_mask, dropout_p, is_causal)
    return out.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim), None


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
                                 bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
                                 static_v: Tensor | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of a (L, N, E) query over a (S, N, kdim) key and (S, N, vdim) value (or unbatched
    (L, E), (S, kdim), (S, vdim)): the (L, N, E) output and, with ``need_weights``, the (N, L, S) attention
    weights (averaged over heads; (N, num_heads, L, S) without ``average_attn_weights``), else None. The module
    :class:`~autograd_lab.nn.MultiheadAttention` holds the weights and calls it."""
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                           "`generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # (scaled_dot_product_attention makes the causal mask itself)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        is_causal = is_causal and key_padding_mask is None
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight and tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]!r} do not match value's "
                             f"{value.shape[:2]!r}")
    if not use_separate_proj_weight and tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape!r} does not match value shape {value.shape!r}")
    weights, biases = _projection_weights(in_proj_weight, in_proj_bias, use_separate_proj_weight,
                                          q_proj_weight, k_proj_weight, v_proj_weight)
    q, k, v = _in_projection(query, key, value, weights, biases)
    if attn_mask is not None:
        attn_mask = _shaped_attn_mask(attn_mask, (tgt_len, src_len), bsz * num_heads)
    k, v, attn_mask, key_padding_mask = _extra_positions(k, v, attn_mask, key_padding_mask, bias_k, bias_v, bsz,
                                                         static_k, static_v)
    q = _heads_first(q, bsz * num_heads, head_dim)
    k = _heads_first(k, bsz * num_heads, head_dim) if static_k is None else _static(static_k, "static_k",
                                                                                    bsz * num_heads, head_dim)
    v = _heads_first(v, bsz * num_heads, head_dim) if static_v is None else _static(static_v, "static_v",
                                                                                    bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = creation.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = cat([k, zeros], dim=1), cat([v, zeros], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for i, size in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != size:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {size}, but got "
                                     f"{key_padding_mask.shape[i]}")
        padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        padding = padding.reshape(bsz * num_heads, 1, src_len)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    out, weights = _attend(q, k, v, attn_mask, dropout_p if training else 0.0, need_weights, average_attn_weights,
                           is_causal, (tgt_len, bsz, num_heads, embed_dim))
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, out_proj_weight.shape[0])
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights
