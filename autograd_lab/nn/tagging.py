"""Tagging graph nodes with the module that made them (the lab groups a graph by module with it).

With tagging on (``set_module_tagging(True)``; importing the lab does it), each module call names the
graph nodes its forward made: ``node.metadata['module']`` is the module's qualified name, as
``named_modules()`` spells it.
"""

from __future__ import annotations

import threading

from ..autograd.graph import AccumulateGrad, next_sequence_nr
from ..tensor import Tensor

__all__ = ["set_module_tagging", "is_module_tagging_enabled", "call_tagging_nodes"]

enabled = False  # off by default: an untagged call costs one read of this flag


class _CallStack(threading.local):
    """The modules being called on this thread, outermost first, with their qualified names."""

    def __init__(self) -> None:
        self.frames: list = []


_calls = _CallStack()


def set_module_tagging(on: bool) -> bool:
    """Tag each ``grad_fn`` node made inside a module's forward with ``node.metadata['module']`` (the
    module's qualified name, as ``named_modules()`` spells it), so the lab can group a graph by module.

    Off by default (it walks the new nodes after every forward); importing ``autograd_lab.lab`` turns it
    on. Returns the previous setting.
    """
    global enabled
    previous, enabled = enabled, bool(on)
    return previous


def is_module_tagging_enabled() -> bool:
    """Whether module calls tag the nodes they create (see :func:`set_module_tagging`)."""
    return enabled


def _qualified_name(module, frames: list) -> str:
    """``module``'s dotted name under the outermost module being called (``''`` for that one itself)."""
    if not frames:
        return ""
    parent, parent_name = frames[-1]
    key = next((k for k, child in parent._modules.items() if child is module), None)
    if key is None:  # called by its parent without being registered in it
        key = type(module).__name__
    return f"{parent_name}.{key}" if parent_name else key


def _tag_new_nodes(output, first_new: int, tag: str) -> None:
    """Set ``metadata['module'] = tag`` on the nodes behind ``output`` made after sequence number
    ``first_new``, unless a module nested inside already tagged them. Walks only those new nodes."""
    pending = [output]
    nodes = []
    while pending:  # the tensors in the output (a tensor, or nested tuples/lists/dicts of them)
        item = pending.pop()
        if isinstance(item, Tensor):
            if item.grad_fn is not None:
                nodes.append(item.grad_fn)
        elif isinstance(item, (tuple, list)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    seen = set()
    while nodes:
        node = nodes.pop()
        if id(node) in seen or isinstance(node, AccumulateGrad) or node._sequence_nr <= first_new:
            continue
        seen.add(id(node))
        node.metadata.setdefault("module", tag)
        nodes.extend(child for child, _ in node.next_functions if child is not None)


def call_tagging_nodes(module, args: tuple, kwargs: dict):
    """``_call_impl``, then tag the nodes it made with this module's name (see ``set_module_tagging``)."""
    frames = _calls.frames
    name = _qualified_name(module, frames)
    first_new = next_sequence_nr()  # every node made from here on has a larger sequence number
    frames.append((module, name))
    try:
        output = module._call_impl(*args, **kwargs)
    finally:
        frames.pop()
    _tag_new_nodes(output, first_new, name or type(module).__name__)
    return output
