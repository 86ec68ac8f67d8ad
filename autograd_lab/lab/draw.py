"""``draw(*tensors)``: the graph as an object that is a ``graphviz.Digraph`` and a notebook widget.

In a notebook with a kernel it shows as the interactive widget (WebAssembly Graphviz in the page).
Where no widget can run (a notebook viewed without a kernel, a docs page) the same object offers a
static SVG, when the ``dot`` executable exists, and always a plain-text outline of the graph.
"""

from __future__ import annotations

import inspect
import shutil

import graphviz

from ..tensor import Tensor
from .dot import DotOptions, build_dot
from .protocol import is_graph_like
from .snapshot import Snapshot, snapshot

__all__ = ["Drawing", "draw", "outline", "caller_names"]

OUTLINE_LINES = 200


def caller_names(frames_up: int = 1) -> dict[str, Tensor]:
    """Tensors bound to names in the calling frame (its globals, then its locals), to label the drawing; also the
    objects that follow the graph protocol (:mod:`.protocol`)."""
    frame = inspect.currentframe()
    try:
        for _ in range(frames_up + 1):
            frame = frame.f_back
        found = {}
        for scope in (frame.f_globals, frame.f_locals):
            for name, value in scope.items():
                if (isinstance(value, Tensor) or is_graph_like(value)) and not name.startswith("_"):
                    found[name] = value
        return found
    finally:
        del frame


def _outline_text(snap: Snapshot, nid: str) -> str:
    node = snap.nodes[nid]
    text = node.name
    if node.variable is not None:
        leaf = snap.tensors[node.variable]
        grad = leaf.grad.text() if leaf.grad is not None else "None"
        text += f": {leaf.name or 'leaf'} {list(leaf.shape)} {leaf.dtype}, .grad={grad}"
    stale = [s.name for s in node.saved if s.stale]
    if stale:
        text += f"  ⚠ stale saved tensor(s) {', '.join(stale)}: the next backward raises"
    return text


def outline(snap: Snapshot, max_lines: int = OUTLINE_LINES) -> str:
    """The graph as an indented text tree, outputs first (a node met twice is written once)."""
    lines: list[str] = []
    seen: set[str] = set()
    stack: list[tuple] = []  # ("text", line) or ("node", node id, prefix, prefix of its children)
    for tid in reversed(snap.roots):
        tensor = snap.tensors[tid]
        label = f"{tensor.name or 'tensor'} {list(tensor.shape)} {tensor.dtype}"
        if tensor.node is None:
            stack.append(("text", label + "  (no grad_fn: nothing recorded)"))
        else:
            stack.extend([("node", tensor.node, "└─ ", "   "), ("text", label)])
    while stack and len(lines) < max_lines:
        item = stack.pop()
        if item[0] == "text":
            lines.append(item[1])
            continue
        _, nid, prefix, child_prefix = item
        if nid in seen:
            lines.append(prefix + _outline_text(snap, nid) + "  (shown above)")
            continue
        seen.add(nid)
        lines.append(prefix + _outline_text(snap, nid))
        children = snap.nodes[nid].next
        for position in range(len(children) - 1, -1, -1):
            child = children[position][0]
            branch, more = ("└─ ", "   ") if position == len(children) - 1 else ("├─ ", "│  ")
            if child is None:
                stack.append(("text", child_prefix + branch + "(an input that needs no grad)"))
            else:
                stack.append(("node", child, child_prefix + branch, child_prefix + more))
    if stack:
        lines.append(f"... (outline cut after {max_lines} lines; the graph has {len(snap.nodes)} nodes)")
    return "\n".join(lines)


class Drawing(graphviz.Digraph):
    """A drawing of a graph: a ``graphviz.Digraph`` (``.source``, ``.render()``) shown as a widget."""

    _snapshot: Snapshot | None = None
    _options: DotOptions | None = None
    _widget = None
    messages: list[str] = []

    def _setup(self, snap: Snapshot, options: DotOptions) -> Drawing:
        self._snapshot = snap
        self._options = options
        self.messages = build_dot(self, snap, options)
        return self

    @property
    def snapshot(self) -> Snapshot | None:
        return self._snapshot

    @property
    def widget(self):
        """The interactive widget (made on first use; needs ``anywidget``)."""
        if self._widget is None:
            from .widget import GraphWidget, node_details, stale_sentences
            snap = self._snapshot
            self._widget = GraphWidget(describe=lambda selected: node_details(snap, selected), dot=self.source,
                                       warnings=stale_sentences(snap), messages=list(self.messages))
        return self._widget

    def outline(self) -> str:
        return outline(self._snapshot) if self._snapshot is not None else self.source

    def static_svg(self) -> str | None:
        """SVG laid out by the system ``dot`` executable, or None where it is not installed."""
        if shutil.which("dot") is None:
            return None
        return self.pipe(format="svg", encoding="utf-8")

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs) -> dict:
        bundle = {}
        try:
            widget_bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        except ImportError:  # anywidget not installed: static output only
            widget_bundle = {}
        if isinstance(widget_bundle, tuple):  # (data, metadata)
            widget_bundle = widget_bundle[0]
        bundle.update(widget_bundle)
        svg = self.static_svg()
        if svg is not None:
            bundle["image/svg+xml"] = svg
        bundle["text/plain"] = self.outline()
        return bundle


def draw(*tensors: Tensor, names: dict[str, Tensor] | None = None, max_depth: int | None = None,
         modules: str | None = None, hide_constants: bool = False, max_nodes: int = 400, legend: bool = True) -> Drawing:
    """Draw the ``grad_fn`` graph of ``tensors`` (see :mod:`autograd_lab.lab`): autograd_lab tensors, or any objects
    with PyTorch-style introspection (a hand-written engine's, PyTorch's; see :mod:`.protocol`).

    ``names`` labels tensors (by default, the tensors bound to names where ``draw`` is called).
    ``max_depth`` folds nodes farther than that from the outputs; ``modules="cluster"`` boxes, and
    ``modules="collapse"`` folds, the nodes of each module (``node.metadata['module']``);
    ``hide_constants`` hides inputs that need no gradient; at most ``max_nodes`` nodes are drawn.
    """
    if names is None:
        names = caller_names()
    options = DotOptions(max_depth=max_depth, modules=modules, hide_constants=hide_constants, max_nodes=max_nodes,
                         legend=legend)
    return Drawing("autograd")._setup(snapshot(*tensors, names=names), options)
