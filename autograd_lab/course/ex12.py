"""Checkers for ``12_checkpointing_and_profiling.ipynb``: what checkpointing half a block keeps and recomputes."""

from __future__ import annotations

import autograd_lab as al
from autograd_lab import nn

from ..i18n import msg
from ._feedback import Feedback, failed, is_placeholder, not_answered, passed

__all__ = ["ex_12_1", "half_checkpointed"]


def _block() -> nn.Sequential:
    return nn.Sequential(*[layer for _ in range(8) for layer in (nn.Linear(256, 256), nn.Tanh())])


def half_checkpointed(block: nn.Sequential, v: al.Tensor) -> al.Tensor:
    """The first half of ``block`` run plainly, the second half checkpointed (what exercise 1 asks about)."""
    from autograd_lab.utils.checkpoint import checkpoint
    return checkpoint(block[8:], block[:8](v), use_reentrant=False)


def _truth() -> tuple[int, int, int]:
    """(activation buffers kept by the forward, aten::addmm calls in forward + backward, of them in the backward)."""
    from autograd_lab.profiler import profile
    block = _block()
    v = al.randn(64, 256, requires_grad=True, generator=al.Generator().manual_seed(12))
    buffers = set()

    def pack(tensor):
        if not (isinstance(tensor, nn.Parameter) or isinstance(tensor._base, nn.Parameter)):
            buffers.add(tensor.data_ptr())
        return tensor

    with al.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = half_checkpointed(block, v)
    with profile() as prof:
        half_checkpointed(block, v).pow(2).mean().backward()
    addmm = [e for e in prof.events() if e.name == "aten::addmm"]
    in_backward = sum(1 for e in addmm if e.cpu_parent is not None)
    del out
    return len(buffers), len(addmm), in_backward


def ex_12_1(activations, addmm_calls) -> Feedback:
    """``activations``: the activation buffers the half-checkpointed forward keeps; ``addmm_calls``: the matrix
    products of a forward and backward through it."""
    if is_placeholder(activations) or is_placeholder(addmm_calls):
        return not_answered(msg("ex12.two_numbers"))
    if any(isinstance(a, bool) or not isinstance(a, int) for a in (activations, addmm_calls)):
        return failed(msg("ex12.not_whole", activations=repr(activations), addmm_calls=repr(addmm_calls)))
    kept, calls, recomputed = _truth()
    lines = []
    if activations != kept:
        lines.append(msg("ex12.activations_wrong", given=activations, kept=kept))
    if addmm_calls != calls:
        lines.append(msg("ex12.calls_wrong", given=addmm_calls, calls=calls, recomputed=recomputed))
    if lines:
        return failed(msg("feedback.n_wrong", wrong=len(lines), total=2) + "\n" + "\n".join(lines))
    return passed(msg("ex12.passed", kept=kept, recomputed=recomputed))
