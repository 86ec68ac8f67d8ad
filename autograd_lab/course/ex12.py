"""Checkers for ``12_checkpointing_and_profiling.ipynb``: what checkpointing half a block keeps and recomputes."""

from __future__ import annotations

import autograd_lab as al
from autograd_lab import nn

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
        return not_answered("two whole numbers: the activations kept, and the aten::addmm calls")
    if any(isinstance(a, bool) or not isinstance(a, int) for a in (activations, addmm_calls)):
        return failed(f"Give two whole numbers without quotes; got {activations!r} and {addmm_calls!r}.")
    kept, calls, recomputed = _truth()
    lines = []
    if activations != kept:
        lines.append(f"  activations: yours {activations}, actually {kept}. The plain first half keeps its input and the "
                     "four Tanh outputs (each Tanh output is also the next Linear's input: one buffer); the checkpoint "
                     "keeps only its input, the fourth Tanh output, already counted.")
    if addmm_calls != calls:
        lines.append(f"  aten::addmm calls: yours {addmm_calls}, actually {calls}: eight in the forward, and the "
                     f"{recomputed} Linear layers of the checkpointed half run again inside backward. (A Linear's "
                     "backward is AddmmBackward0, a node, not an aten::addmm call.)")
    if lines:
        return failed(f"{len(lines)} of 2 wrong:\n" + "\n".join(lines))
    return passed(f"{kept} activations kept instead of 9, for {recomputed} recomputed matrix products: checkpointing "
                  "trades the memory of the half it covers for one more forward pass of that half.")
