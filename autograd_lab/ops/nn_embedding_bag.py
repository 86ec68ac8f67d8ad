"""``embedding_bag``: the sum, mean or max of each bag of embedding rows, as ``F.embedding_bag``.

The bags are runs of a 1-D ``input`` that start at ``offsets`` (a 2-D input: each row is a bag). It is composed of
ordinary ops, as the definition reads: the rows are looked up with ``embedding`` (which also does ``max_norm``
and ``scale_grad_by_freq``), multiplied by ``per_sample_weights`` (mode ``'sum'``), then each bag's rows, those
equal to ``padding_idx`` left out, are summed, averaged or maxed; an empty bag gives zeros. So its graph shows
``EmbeddingBackward0`` and the reductions (PyTorch records one ``EmbeddingBagBackward0``), with the same
gradients: ``'max'`` sends each element's gradient to the first row holding the maximum, as PyTorch's kernel.
"""

from __future__ import annotations

from .. import backend, creation
from ..tensor import Tensor
from .join import stack
from .nn import embedding

__all__ = ["embedding_bag"]


def _bags(input: Tensor, offsets, per_sample_weights, include_last_offset: bool):
    """The 1-D indices, the (start, end) of each bag and the 1-D per-sample weights, as PyTorch reads its arguments."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        length = input.shape[1]
        if length == 0:
            raise RuntimeError("step must be nonzero [autograd_lab] embedding_bag: a 2-D input of empty bags (N, 0)")
        starts = list(range(0, input.numel(), length))
        weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input.reshape(-1), [(s, s + length) for s in starts], weights
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if offsets.is_floating_point():
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
                           f"Int; but got al.{offsets.dtype._legacy_name} instead (while checking arguments for "
                           "embedding_bag)")
    bounds = [int(o) for o in offsets.tolist()]
    if include_last_offset and not bounds:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if bounds and bounds[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {bounds[0]}")
    if bounds and bounds[-1] > input.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {input.shape[0]} but got offsets[-1] "
                           f"of {bounds[-1]}")
    if any(b < a for a, b in zip(bounds, bounds[1:])):
        raise RuntimeError(f"embedding_bag: offsets must not decrease, got {bounds} [autograd_lab] each bag starts "
                           "where the one before it starts or later")
    ends = bounds[1:] if include_last_offset else bounds[1:] + [input.shape[0]]
    return input, list(zip(bounds, ends)), per_sample_weights


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """One row per bag: the ``mode`` (``'sum'``, ``'mean'`` or ``'max'``) of the bag's embedding rows."""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    indices, bounds, per_sample_weights = _bags(input, offsets, per_sample_weights, include_last_offset)
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    num = weight.shape[0]
    if padding_idx is not None and not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but got "
                           f"{padding_idx}")
    rows = embedding(indices, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    kept = [i for i, index in enumerate(indices.tolist()) if padding_idx is None or index != padding_idx % num]
    bags = []
    for start, end in bounds:
        picked = rows[creation.tensor([i for i in kept if start <= i < end], dtype=backend.int64, device=weight.device)]
        if picked.shape[0] == 0 or mode == "sum":  # (an empty bag: a sum of no rows, zeros)
            bags.append(picked.sum(0))
        else:
            bags.append(picked.mean(0) if mode == "mean" else picked.max(0).values)
    return stack(bags) if bags else rows[:0]
