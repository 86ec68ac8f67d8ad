"""Walk the ``grad_fn`` graph of some tensors into plain records (no references to the graph).

Everything the lab draws comes from a :class:`Snapshot`: op nodes, ``AccumulateGrad`` nodes with
their leaves, the tensors each node saved (shape, dtype, version at save time beside the current
version), hooks, ``retain_grad`` marks and ``.grad`` values. The walk uses an explicit stack, so a
graph of any depth is walked without ``RecursionError``. It reads public introspection only
(``name()``, ``next_functions``, ``type(node).saves`` with ``_raw_saved_<name>``, a custom
``Function`` node's ``_raw_saved_tensors``, the ``SavedTensor`` records' read-only properties,
``metadata``, ``AccumulateGrad.variable``, ``_version``, ``_base``, ``grad``), so nodes of any kind
(built-in ops, custom ``Function`` nodes, ``CopySlices``...) are handled the same way.

Importing the lab turns on module tagging (``autograd_lab.nn.module.set_module_tagging``): from then
on each node made inside an ``nn.Module``'s forward carries ``metadata['module']``, the module's
qualified name, which ``NodeRecord.module`` reads and the DOT options use to box or fold modules.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from ..autograd.graph import AccumulateGrad, Node, gradient_edge
from ..autograd.saved import SavedTensor
from ..i18n import msg
from ..nn.module import Module, set_module_tagging
from ..tensor import Tensor

__all__ = ["Snapshot", "NodeRecord", "SavedRecord", "TensorRecord", "ValueSummary", "snapshot", "summarize", "model_names"]

SMALL = 16  # tensors with at most this many elements are recorded with their values

set_module_tagging(True)  # a lab is in use: tag the nodes each module makes, for grouping by module


@dataclass
class ValueSummary:
    """A tensor's value: every element when small, otherwise shape and norm only."""

    shape: tuple
    dtype: str
    values: Any = None  # nested lists, for small tensors
    norm: float | None = None  # for large tensors

    def text(self) -> str:
        if self.values is not None:
            return _format_values(self.values)
        return msg("lab.shape_norm", shape=list(self.shape), norm=self.norm)


@dataclass
class SavedRecord:
    """One value a node saved for backward (``type(node).saves``)."""

    name: str  # the attribute: ``_saved_<name>``
    is_tensor: bool
    shape: tuple | None = None
    dtype: str | None = None
    saved_version: int | None = None
    current_version: int | None = None
    is_output: bool = False
    released: bool = False
    packed: bool = False  # went through saved_tensors_hooks (value not shown: unpacking runs the hook)
    value: ValueSummary | None = None
    text: str | None = None  # non-tensor values (dims, sizes...), as repr
    python_scalar: bool = False  # a 0-d tensor that does not require grad, saved as the number it holds

    @property
    def stale(self) -> bool:
        """Modified in place after it was saved: the next backward through its node raises."""
        return self.is_tensor and not self.released and self.saved_version != self.current_version


@dataclass
class TensorRecord:
    """A tensor the lab knows by name or by role (a watched output, a leaf, a view's base)."""

    id: str
    name: str | None
    shape: tuple
    dtype: str
    requires_grad: bool
    is_leaf: bool
    version: int
    retains_grad: bool = False
    grad: ValueSummary | None = None
    node: str | None = None  # the graph node it is the output of (its grad_fn, or its AccumulateGrad)
    output_nr: int = 0
    base: str | None = None  # the TensorRecord id of the tensor it is a view of
    is_root: bool = False
    hooks: list[str] = field(default_factory=list)  # leaf tensor hooks and post-accumulate-grad hooks


@dataclass
class NodeRecord:
    """One node of the backward graph."""

    id: str
    name: str
    kind: str  # "op", or "leaf" for AccumulateGrad
    depth: int  # edges from the nearest root
    next: list[tuple[str | None, int]] = field(default_factory=list)  # (node id or None, output_nr) per input
    outputs: list[tuple[tuple, str]] = field(default_factory=list)  # (shape, dtype) per output
    saved: list[SavedRecord] = field(default_factory=list)
    hooks: dict[str, list[str]] = field(default_factory=dict)  # kind -> hook names
    retain_grad_outputs: list[int] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    freed: bool = False
    wraps: str | None = None  # e.g. CopySlices wraps the in-place op node it replays
    variable: str | None = None  # AccumulateGrad: TensorRecord id of its leaf
    requires_grad: bool = True  # False for an AccumulateGrad whose leaf stopped requiring grad

    @property
    def module(self) -> str | None:
        return self.metadata.get("module")


@dataclass
class Snapshot:
    """The graph of some tensors at one moment, as plain data (see the module docstring)."""

    nodes: dict[str, NodeRecord]
    tensors: dict[str, TensorRecord]
    roots: list[str]  # TensorRecord ids of the tensors asked for
    order: list[str] = field(default_factory=list)  # node ids, roots first (walk order)
    # id() of each node object -> its record id; valid while the graph is alive (the stepper maps steps with it)
    ids_by_object: dict[int, str] = field(default_factory=dict, repr=False)
    module_types: dict[str, str] = field(default_factory=dict)  # module name (as tagged) -> its class name

    def edges(self):
        """``(parent id, child id, output_nr, input index)`` for every edge to a node."""
        for node in self.nodes.values():
            for index, (child, nr) in enumerate(node.next):
                if child is not None:
                    yield node.id, child, nr, index

    def stale(self) -> list[tuple[NodeRecord, SavedRecord]]:
        """Saved tensors modified in place since they were saved."""
        return [(n, s) for n in self.nodes.values() for s in n.saved if s.stale]

    def to_dict(self) -> dict:
        return {"nodes": {k: asdict(v) for k, v in self.nodes.items()},
                "tensors": {k: asdict(v) for k, v in self.tensors.items()}, "roots": list(self.roots)}


def _format_values(values) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_format_values(v) for v in values) + "]"
    if isinstance(values, float):
        return f"{values:.4g}"
    return str(values)


def summarize(array, small: int = SMALL) -> ValueSummary:
    """Values of a small array, or shape and norm of a large one."""
    shape = tuple(int(s) for s in array.shape)
    dtype = str(array.dtype)
    if array.size <= small:
        return ValueSummary(shape, dtype, values=array.tolist())
    if array.dtype.kind in "fc":
        norm = float(math.sqrt(float((abs(array) ** 2).sum())))
    else:
        norm = float(math.sqrt(float((array.astype("float64") ** 2).sum())))
    return ValueSummary(shape, dtype, norm=norm)


def _dtype_name(tensor: Tensor) -> str:
    return repr(tensor.dtype).replace("autograd_lab.", "").replace("al.", "")


def _hook_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _saved_entries(node: Node) -> list[tuple[str, Any]]:
    """``(name, raw value)`` for what ``node`` saved: ``type(node).saves`` read through ``_raw_saved_<name>``
    (or ``_saved_<name>`` for non-tensors), or, for a custom ``Function`` node, its ``_raw_saved_tensors``
    named ``saved_tensors[i]``. A value that cannot be read is left out."""
    saves = getattr(type(node), "saves", ()) or ()
    if not saves:
        try:
            raw_tensors = getattr(node, "_raw_saved_tensors", None)
        except RuntimeError:
            raw_tensors = None
        return [(f"saved_tensors[{i}]", raw) for i, raw in enumerate(raw_tensors or ())]
    entries = []
    for name in saves:
        try:
            raw = getattr(node, "_raw_saved_" + name)
        except AttributeError:
            raw = None
        except RuntimeError:
            continue
        if not isinstance(raw, SavedTensor):
            try:
                raw = _Plain(getattr(node, "_saved_" + name))
            except (AttributeError, RuntimeError):
                continue
        entries.append((name, raw))
    return entries


@dataclass
class _Plain:
    """A saved value that is not a ``SavedTensor`` record (a size, a dim, a scalar, ``None``)."""

    value: Any


def _saved_records(node: Node, small: int) -> list[SavedRecord]:
    records = []
    for name, raw in _saved_entries(node):
        if not isinstance(raw, SavedTensor):
            value = raw.value if isinstance(raw, _Plain) else raw
            if isinstance(value, Tensor) and value.dim() == 0 and not value.requires_grad:
                records.append(SavedRecord(name, False, text=repr(value.item()), python_scalar=True))
            elif isinstance(value, Tensor):
                records.append(SavedRecord(name, True, tuple(value.shape), _dtype_name(value),
                                           value=summarize(value._data, small)))
            else:
                text = repr(value)
                records.append(SavedRecord(name, False, text=text if len(text) <= 80 else text[:77] + "..."))
            continue
        data = raw.data
        rec = SavedRecord(
            name, True,
            shape=raw.shape,
            dtype=_dtype_name(data) if data is not None else None,
            saved_version=int(raw.saved_version),
            current_version=int(raw.current_version),
            is_output=bool(raw.is_output),
            released=raw.is_released,
            packed=raw.has_hooks,
        )
        if data is not None and not raw.has_hooks:
            rec.value = summarize(data._data, small)
        records.append(rec)
    return records


def drawn_name(name: str) -> str:
    """A node's name as the drawings show it: without the C++ namespace that PyTorch's ``name()`` gives the nodes it
    writes by hand (``AccumulateGrad`` for ``torch::autograd::AccumulateGrad``: the class name, as torchviz draws it)."""
    return name.removeprefix("torch::autograd::")


def _node_hooks(node: Node) -> tuple[dict[str, list[str]], list[int], dict[str, str]]:
    extras = getattr(node, "_extras", None)
    if extras is None:
        return {}, [], {}
    hooks: dict[str, list[str]] = {}
    if extras.pre_hooks:
        hooks["prehook"] = [_hook_name(f) for f in extras.pre_hooks.values()]
    if extras.post_hooks:
        hooks["hook"] = [_hook_name(f) for f in extras.post_hooks.values()]
    for nr, table in extras.tensor_pre_hooks.items():
        if table:
            hooks[f"tensor hook (output {nr})"] = [_hook_name(f) for f in table.values()]
    metadata = {str(k): (v if isinstance(v, str) else repr(v)) for k, v in extras.metadata.items()}
    return hooks, sorted(extras.retain_grad_hooks), metadata


class _Walker:
    """Builds a Snapshot; keeps the id maps while walking."""

    def __init__(self, names: dict[int, str], small: int) -> None:
        self.names = names
        self.small = small
        self.node_ids: dict[int, str] = {}
        self.tensor_ids: dict[int, str] = {}
        self.nodes: dict[str, NodeRecord] = {}
        self.tensors: dict[str, TensorRecord] = {}
        self.objects: list[Node] = []  # node objects by id number (n0, n1...), alive while walking

    def tensor(self, t: Tensor, *, root: bool = False) -> str:
        """The record id of ``t``, recording it (and the base it is a view of) on first sight."""
        chain = []
        current = t
        while current is not None and id(current) not in self.tensor_ids:
            chain.append(current)
            current = current._base
        for item in reversed(chain):  # bases first, so that a view can point to its base's id
            tid = f"t{len(self.tensor_ids)}"
            self.tensor_ids[id(item)] = tid
            self.tensors[tid] = self._tensor_record(item, tid)
        rec = self.tensors[self.tensor_ids[id(t)]]
        rec.is_root = rec.is_root or root
        return rec.id

    def _tensor_record(self, t: Tensor, tid: str) -> TensorRecord:
        is_leaf = t.grad_fn is None
        retains = bool(t.retains_grad)
        grad = t.grad if (is_leaf or retains) else None
        hooks = []
        if is_leaf:
            for table in (t._backward_hooks, t._post_acc_hooks):
                hooks.extend(_hook_name(f) for f in (table or {}).values())
        version = t._version if not t.is_inference() else 0
        base = self.tensor_ids.get(id(t._base)) if t._base is not None else None
        return TensorRecord(tid, self.names.get(id(t)), tuple(int(s) for s in t.shape), _dtype_name(t),
                            bool(t.requires_grad), is_leaf, int(version), retains,
                            summarize(grad._data, self.small) if grad is not None else None,
                            output_nr=int(t._output_nr), base=base, hooks=hooks)

    def walk(self, start: list[Node]) -> tuple[list[str], dict[str, int]]:
        """Depth-first from ``start`` with an explicit stack: node ids in walk order, and each one's depth."""
        order: list[str] = []
        stack = [(n, 0) for n in reversed(start)]
        for node, _ in stack:
            self._assign(node)
        depth: dict[str, int] = {}
        while stack:
            node, d = stack.pop()
            nid = self.node_ids[id(node)]
            if nid in depth:
                continue
            depth[nid] = d
            order.append(nid)
            for child, _ in node.next_functions:
                if child is not None and self._assign(child) not in depth:
                    stack.append((child, d + 1))
        return order, depth

    def _assign(self, node: Node) -> str:
        nid = self.node_ids.get(id(node))
        if nid is None:
            nid = self.node_ids[id(node)] = f"n{len(self.node_ids)}"
            self.objects.append(node)  # kept alive while walking, so that no id() is reused
        return nid

    def record_nodes(self, order: list[str], depth: dict[str, int]) -> None:
        for nid in order:
            node = self.objects[int(nid[1:])]
            is_leaf_node = isinstance(node, AccumulateGrad)
            hooks, retained, metadata = _node_hooks(node)
            rec = NodeRecord(
                nid, drawn_name(node.name()), "leaf" if is_leaf_node else "op", depth[nid],
                next=[(self.node_ids[id(c)] if c is not None else None, int(nr)) for c, nr in node.next_functions],
                outputs=[(tuple(int(s) for s in shape), str(dtype)) for shape, dtype in getattr(node, "_output_meta", ())],
                saved=_saved_records(node, self.small), hooks=hooks, retain_grad_outputs=retained,
                metadata=metadata,
            )
            rec.freed = bool(getattr(node, "_released", False)) or any(s.released for s in rec.saved)
            inner = getattr(node, "fn", None)
            if isinstance(inner, Node):
                rec.wraps = drawn_name(inner.name())
                for s in _saved_records(inner, self.small):
                    s.name = "fn." + s.name
                    rec.saved.append(s)
            if is_leaf_node:
                variable = node.variable
                rec.variable = self.tensor(variable)
                self.tensors[rec.variable].node = nid
                rec.requires_grad = bool(variable.requires_grad)
                rec.hooks.update({"leaf hook": self.tensors[rec.variable].hooks} if self.tensors[rec.variable].hooks else {})
            self.nodes[nid] = rec


def model_names(model: Module | None) -> tuple[dict[str, Tensor], dict[str, str]]:
    """``model``'s parameters by their ``named_parameters()`` names (``fc1.weight``), and the class of
    each of its modules by the name module tagging gives it (``fc1`` -> ``Linear``)."""
    if model is None:
        return {}, {}
    if not isinstance(model, Module):
        raise TypeError(f"model= takes an nn.Module, got {type(model).__name__}")
    params = dict(model.named_parameters())
    types = {name or type(module).__name__: type(module).__name__ for name, module in model.named_modules()}
    return params, types


def snapshot(*tensors: Tensor, names: dict[str, Tensor] | None = None, small: int = SMALL,
             model: Module | None = None) -> Snapshot:
    """Record the graph that produced ``tensors`` (see the module docstring).

    ``names`` maps variable names to tensors: those tensors are labelled with their names, and a
    named tensor whose ``grad_fn`` is in the graph is drawn beside that node (with its ``.grad`` if it
    retains it). ``model``: an ``nn.Module`` whose parameters are labelled with their
    ``named_parameters()`` names (``names`` wins where both name a tensor), and whose modules' classes
    are recorded in ``Snapshot.module_types``. ``small``: tensors with at most this many elements are
    recorded with their values. Objects that are not autograd_lab tensors but expose PyTorch-style
    introspection (``grad_fn``, ``next_functions``) are walked by :func:`.protocol.snapshot_graph_like`.
    """
    if not all(isinstance(t, Tensor) for t in tensors):  # a graph autograd_lab did not record: the protocol
        from .protocol import snapshot_graph_like
        return snapshot_graph_like(*tensors, names=names, small=small)
    params, module_types = model_names(model)
    names = {**params, **dict(names or {})}
    by_object = {id(t): n for n, t in names.items() if isinstance(t, Tensor)}
    walker = _Walker(by_object, small)
    roots = [walker.tensor(t, root=True) for t in tensors]
    start = [gradient_edge(t)[0] for t in tensors]  # grad_fn, or a leaf's AccumulateGrad
    order, depth = walker.walk([n for n in start if n is not None])
    walker.record_nodes(order, depth)
    for tid, node in zip(roots, start):
        if node is not None:
            walker.tensors[tid].node = walker.node_ids[id(node)]
    for t in names.values():  # named intermediates that are outputs of nodes in this graph
        if isinstance(t, Tensor) and t.grad_fn is not None and id(t.grad_fn) in walker.node_ids:
            tid = walker.tensor(t)
            walker.tensors[tid].node = walker.node_ids[id(t.grad_fn)]
    walker.objects.clear()
    return Snapshot(walker.nodes, walker.tensors, roots, order, dict(walker.node_ids), module_types)
