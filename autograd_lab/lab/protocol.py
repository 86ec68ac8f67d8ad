"""Drawing graphs that autograd_lab did not record: any object with PyTorch-style introspection.

``al.lab.draw`` (and ``al.lab.snapshot``) take, besides autograd_lab tensors, any object that follows
this small protocol, the one PyTorch's own graph exposes. The course's build track relies on it: a
learner's hand-written engine is drawn by the same widget as the real one.

A **tensor** (what you pass to ``draw``) has

* ``grad_fn``: the node that made it, or ``None`` for a leaf (required);
* optionally ``shape`` and ``dtype`` (else those of its ``data``), ``requires_grad``, ``grad`` (an array
  or a tensor) and ``_version`` (the count of in-place changes).

A **node** has

* ``next_functions``: one ``(node or None, output_nr)`` pair per input of the operation (required);
* ``name()``: its label (optional; the class name otherwise);
* optionally ``variable``: the leaf whose ``.grad`` the node accumulates into, which makes it drawn as
  an ``AccumulateGrad`` node with that leaf;
* optionally ``_saved_<name>`` attributes: what it saved for backward (PyTorch's naming). A saved
  tensor (or array) is drawn with its shape and dtype, anything else as text; reading one that raises
  ``RuntimeError`` (PyTorch's after backward freed it) is drawn as freed;
* optionally ``saved_versions``: ``{name: _version of that saved tensor when it was saved}``. A saved
  tensor whose ``_version`` has moved on since is drawn stale, in red, as the lab draws its own.

The walk uses an explicit stack (no recursion limit) and reads nothing else, so PyTorch's tensors are
drawn too. The records are those of :mod:`.snapshot`, so everything that draws a snapshot (the DOT
text, the widget, the outline) works unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .snapshot import SMALL, NodeRecord, SavedRecord, Snapshot, TensorRecord, drawn_name, summarize

__all__ = ["is_graph_like", "snapshot_graph_like"]

SAVED_PREFIX = "_saved_"


def is_graph_like(value: Any) -> bool:
    """Whether ``value`` can be drawn through the protocol: an instance (not a class) with a ``grad_fn``."""
    if isinstance(value, type):
        return False
    try:
        return hasattr(value, "grad_fn")
    except Exception:  # noqa: BLE001 - a property that raises: not drawable
        return False


def _array(value: Any) -> np.ndarray | None:
    """The values of an array, a protocol tensor (its ``data``) or a PyTorch tensor; None if unreadable."""
    try:
        if hasattr(value, "detach"):
            value = value.detach()
            return np.asarray(value.cpu().numpy() if hasattr(value, "cpu") else value)
        if isinstance(value, (np.ndarray, np.generic)):  # an array, or a NumPy scalar (a sum of all elements)
            return np.asarray(value)
        if hasattr(value, "grad_fn") and hasattr(value, "data"):
            return np.asarray(value.data)
        return None
    except Exception:  # noqa: BLE001 - any object may sit in a graph; draw what can be read
        return None


def _shape_dtype(value: Any) -> tuple[tuple, str]:
    array = _array(value)
    shape = getattr(value, "shape", None)
    if shape is None and array is not None:
        shape = array.shape
    dtype = getattr(value, "dtype", None)
    if dtype is None and array is not None:
        dtype = array.dtype
    return tuple(int(s) for s in (shape or ())), str(dtype) if dtype is not None else "?"


def _node_name(node: Any) -> str:
    name = getattr(node, "name", None)
    if callable(name):
        try:
            return drawn_name(str(name()))
        except Exception:  # noqa: BLE001 - fall back to the class name
            pass
    return type(node).__name__


def _saved_records(node: Any, small: int) -> list[SavedRecord]:
    versions = getattr(node, "saved_versions", None) or {}
    records = []
    for attr in sorted(a for a in dir(node) if a.startswith(SAVED_PREFIX) and a != SAVED_PREFIX):
        name = attr[len(SAVED_PREFIX):]
        try:
            value = getattr(node, attr)
        except RuntimeError:  # PyTorch: freed by backward
            records.append(SavedRecord(name, True, released=True))
            continue
        except Exception:  # noqa: BLE001 - unreadable: leave it out
            continue
        if callable(value) and not hasattr(value, "shape"):
            continue
        array = _array(value)
        if array is None:
            text = repr(value)
            records.append(SavedRecord(name, False, text=text if len(text) <= 80 else text[:77] + "..."))
            continue
        shape, dtype = _shape_dtype(value)
        current = getattr(value, "_version", None)
        saved_version = versions.get(name, current)
        records.append(SavedRecord(name, True, shape=shape, dtype=dtype,
                                   saved_version=None if saved_version is None else int(saved_version),
                                   current_version=None if current is None else int(current),
                                   value=summarize(array, small)))
    return records


class _ProtocolWalker:
    """Builds a Snapshot from protocol objects, with the same ids and walk order as the native snapshot."""

    def __init__(self, names: dict[int, str], small: int) -> None:
        self.names = names
        self.small = small
        self.node_ids: dict[int, str] = {}
        self.objects: dict[str, Any] = {}  # node id -> node, alive while walking so that no id() is reused
        self.tensor_ids: dict[int, str] = {}
        self.tensors: dict[str, TensorRecord] = {}
        self.nodes: dict[str, NodeRecord] = {}
        self.kept: list[Any] = []

    def tensor(self, value: Any, *, root: bool = False) -> str:
        tid = self.tensor_ids.get(id(value))
        if tid is None:
            tid = self.tensor_ids[id(value)] = f"t{len(self.tensor_ids)}"
            self.kept.append(value)
            shape, dtype = _shape_dtype(value)
            grad_fn = getattr(value, "grad_fn", None)
            reads_grad = grad_fn is None or bool(getattr(value, "retains_grad", False))  # PyTorch warns otherwise
            grad = getattr(value, "grad", None) if reads_grad else None
            grad_values = _array(grad) if grad is not None else None
            self.tensors[tid] = TensorRecord(
                tid, self.names.get(id(value)), shape, dtype,
                requires_grad=bool(getattr(value, "requires_grad", grad_fn is not None)), is_leaf=grad_fn is None,
                version=int(getattr(value, "_version", 0) or 0),
                grad=summarize(grad_values, self.small) if grad_values is not None else None)
        self.tensors[tid].is_root = self.tensors[tid].is_root or root
        return tid

    def _assign(self, node: Any) -> str:
        nid = self.node_ids.get(id(node))
        if nid is None:
            nid = self.node_ids[id(node)] = f"n{len(self.node_ids)}"
            self.objects[nid] = node
        return nid

    def walk(self, start: list[Any]) -> list[str]:
        """Depth-first with an explicit stack: node ids in walk order, each recorded on first visit."""
        order: list[str] = []
        stack = [(node, 0) for node in reversed(start)]
        for node, _ in stack:
            self._assign(node)
        while stack:
            node, depth = stack.pop()
            nid = self.node_ids[id(node)]
            if nid in self.nodes:
                continue
            edges = list(getattr(node, "next_functions", None) or ())
            self.nodes[nid] = self._record(node, nid, depth, edges)
            order.append(nid)
            for child, _ in reversed(edges):
                if child is not None and self._assign(child) not in self.nodes:
                    stack.append((child, depth + 1))
        return order

    def _record(self, node: Any, nid: str, depth: int, edges: list) -> NodeRecord:
        nexts = [(self._assign(child) if child is not None else None, int(nr)) for child, nr in edges]
        variable = getattr(node, "variable", None)
        record = NodeRecord(nid, _node_name(node), "leaf" if variable is not None else "op", depth, next=nexts)
        if variable is not None:
            record.variable = self.tensor(variable)
            self.tensors[record.variable].node = nid
            record.requires_grad = self.tensors[record.variable].requires_grad
        else:
            record.saved = _saved_records(node, self.small)
            shape = getattr(node, "shape", None)
            if shape is not None:
                record.outputs = [(tuple(int(s) for s in shape), "")]
        return record


def snapshot_graph_like(*tensors: Any, names: dict[str, Any] | None = None, small: int = SMALL) -> Snapshot:
    """A :class:`~.snapshot.Snapshot` of the graph behind protocol objects (see the module docstring)."""
    for value in tensors:
        if not is_graph_like(value):
            raise TypeError(f"lab.snapshot() takes tensors: autograd_lab's, or objects with a grad_fn whose nodes "
                            f"have next_functions (see autograd_lab.lab.protocol); got {type(value).__name__}")
    by_object = {id(value): name for name, value in (names or {}).items()}
    walker = _ProtocolWalker(by_object, small)
    roots = [walker.tensor(value, root=True) for value in tensors]
    starts = [getattr(value, "grad_fn", None) for value in tensors]
    order = walker.walk([node for node in starts if node is not None])
    for tid, node in zip(roots, starts):
        if node is not None:
            walker.tensors[tid].node = walker.node_ids[id(node)]
    for value in (names or {}).values():  # named intermediates whose grad_fn is in the graph
        node = getattr(value, "grad_fn", None) if is_graph_like(value) else None
        if node is not None and id(node) in walker.node_ids:
            walker.tensors[walker.tensor(value)].node = walker.node_ids[id(node)]
    snap = Snapshot(walker.nodes, walker.tensors, roots, order, dict(walker.node_ids))
    walker.objects.clear()
    walker.kept.clear()
    return snap
