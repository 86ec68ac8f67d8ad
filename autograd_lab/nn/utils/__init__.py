"""``nn.utils``: gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``) and a model's parameters as one
vector (``parameters_to_vector``, ``vector_to_parameters``), and sequences of different lengths (``rnn``:
``PackedSequence``, ``pack_padded_sequence``...), as ``torch.nn.utils``."""

from __future__ import annotations

from . import clip_grad, convert_parameters, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad", "convert_parameters", "rnn", "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_",
           "clip_grads_with_norm_", "get_total_norm", "parameters_to_vector", "vector_to_parameters"]
