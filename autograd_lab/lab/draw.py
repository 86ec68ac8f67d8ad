"""``draw(*tensors)``: the graph as an object that is a ``graphviz.Digraph`` and a notebook widget.

In a notebook with a kernel it shows as the interactive widget. Its output also carries the same
drawing as a static SVG (laid out in Python: no ``dot`` executable needed), as HTML (the SVG as an
image, for front ends that show only safe HTML, as JupyterLab does for a notebook not yet run), and
a plain-text outline of the graph, which is what nbval compares.
"""

from __future__ import annotations

import base64
import html

import graphviz

from ..i18n import join, msg
from ..nn.module import Module
from ..tensor import Tensor
from .dot import scene_to_dot
from .layout import Layout
from .names import caller_names, caller_scope, type_modules
from .protocol import is_graph_like
from .scene import DotOptions, Scene, build_scene, shape_text
from .snapshot import Snapshot, snapshot
from .svg import layout_scene, to_svg

__all__ = ["Drawing", "draw", "outline", "caller_names", "static_bundle"]

OUTLINE_LINES = 200


def _outline_text(snap: Snapshot, nid: str) -> str:
    node = snap.nodes[nid]
    text = node.name
    if node.variable is not None:
        leaf = snap.tensors[node.variable]
        grad = leaf.grad.text() if leaf.grad is not None else "None"
        text += f": {leaf.name or msg('lab.outline_leaf')} {shape_text(leaf.shape)} {leaf.dtype}, .grad={grad}"
    stale = [s.name for s in node.saved if s.stale]
    if stale:
        text += msg("lab.outline_stale", names=join(stale))
    return text


def outline(snap: Snapshot, max_lines: int = OUTLINE_LINES) -> str:
    """The graph as an indented text tree, outputs first (a node met twice is written once)."""
    lines: list[str] = []
    seen: set[str] = set()
    stack: list[tuple] = []  # ("text", line) or ("node", node id, prefix, prefix of its children)
    for tid in reversed(snap.roots):
        tensor = snap.tensors[tid]
        label = f"{tensor.name or msg('lab.tensor')} {shape_text(tensor.shape)} {tensor.dtype}"
        if tensor.node is None:
            stack.append(("text", label + msg("lab.outline_no_grad_fn")))
        else:
            stack.extend([("node", tensor.node, "└─ ", "   "), ("text", label)])
    while stack and len(lines) < max_lines:
        item = stack.pop()
        if item[0] == "text":
            lines.append(item[1])
            continue
        _, nid, prefix, child_prefix = item
        if nid in seen:
            lines.append(prefix + _outline_text(snap, nid) + msg("lab.outline_shown_above"))
            continue
        seen.add(nid)
        lines.append(prefix + _outline_text(snap, nid))
        children = snap.nodes[nid].next
        for position in range(len(children) - 1, -1, -1):
            child = children[position][0]
            branch, more = ("└─ ", "   ") if position == len(children) - 1 else ("├─ ", "│  ")
            if child is None:
                stack.append(("text", child_prefix + branch + msg("lab.outline_constant")))
            else:
                stack.append(("node", child, child_prefix + branch, child_prefix + more))
    if stack:
        lines.append(msg("lab.outline_cut", lines=max_lines, nodes=len(snap.nodes)))
    return "\n".join(lines)


def static_bundle(svg: str, text: str, what: str) -> dict:
    """The outputs a front end without the widget can show: the SVG, the SVG as an image in HTML with the
    outline under it (JupyterLab shows HTML, not SVG, in a notebook not yet run), and the outline as text."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    page = (f'<div class="al-static"><img alt="{html.escape(what, quote=True)}" style="max-width: 100%" '
            f'src="data:image/svg+xml;base64,{data}"/><details><summary>{html.escape(msg("lab.same_graph_as_text"))}</summary>'
            f"<pre>{html.escape(text)}</pre></details></div>")
    return {"image/svg+xml": svg, "text/html": page, "text/plain": text}


class Drawing(graphviz.Digraph):
    """A drawing of a graph: a ``graphviz.Digraph`` (``.source``, ``.render()``) shown as a widget."""

    _snapshot: Snapshot | None = None
    _options: DotOptions | None = None
    _scene: Scene | None = None
    _layout: Layout | None = None
    _widget = None
    messages: list[str] = []

    def _setup(self, snap: Snapshot, options: DotOptions) -> Drawing:
        self._snapshot = snap
        self._options = options
        self._scene = build_scene(snap, options)
        scene_to_dot(self, self._scene, options)
        self.messages = list(self._scene.messages)
        return self

    @property
    def snapshot(self) -> Snapshot | None:
        return self._snapshot

    @property
    def scene(self) -> Scene | None:
        return self._scene

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            self._layout = layout_scene(self._scene)
        return self._layout

    def svg(self, static: bool = True) -> str:
        """The drawing as SVG text; ``static`` adds the reading direction, messages and legend to the image."""
        self._scene.messages = list(self.messages)
        return to_svg(self._scene, self.layout, static=static)

    @property
    def widget(self):
        """The interactive widget (made on first use; needs ``anywidget``)."""
        if self._widget is None:
            from .widget import GraphWidget
            self._widget = GraphWidget()
            self._widget.show(self)
        return self._widget

    def outline(self) -> str:
        return outline(self._snapshot) if self._snapshot is not None else self.source

    def describe(self) -> str:
        """One line saying what is drawn (the image's alternative text)."""
        snap = self._snapshot
        roots = join(snap.tensors[t].name or msg("lab.a_tensor") for t in snap.roots) or msg("lab.nothing")
        return msg("lab.describe", roots=roots, nodes=len(snap.nodes))

    def static_svg(self) -> str:
        """The SVG stored in the notebook for front ends without the widget (no ``dot`` executable needed)."""
        return self.svg(static=True)

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs) -> dict:
        bundle = {}
        try:
            widget_bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        except ImportError:  # anywidget not installed: static output only
            widget_bundle = {}
        if isinstance(widget_bundle, tuple):  # (data, metadata)
            widget_bundle = widget_bundle[0]
        bundle.update(widget_bundle)
        bundle.update(static_bundle(self.static_svg(), self.outline(), self.describe()))
        return bundle


def _split_models(items: tuple, model: Module | None) -> tuple[list[Tensor], Module | None]:
    tensors = []
    for item in items:
        if isinstance(item, Module):
            if model is not None and model is not item:
                raise TypeError("draw() takes one model: pass it positionally or as model=, not two different ones")
            model = item
        elif isinstance(item, Tensor) or is_graph_like(item):  # a graph of another engine: see .protocol
            tensors.append(item)
        else:
            raise TypeError(f"draw() takes Tensors (and an nn.Module to name parameters), got {type(item).__name__}")
    return tensors, model


def draw(*tensors: Tensor, names: dict[str, Tensor] | None = None, model: Module | None = None,
         max_depth: int | None = None, modules: str | None = None, hide_constants: bool = False,
         max_nodes: int = 400, legend: bool = True) -> Drawing:
    """Draw the ``grad_fn`` graph of ``tensors`` (see :mod:`autograd_lab.lab`): autograd_lab tensors, or any objects
    with PyTorch-style introspection (a hand-written engine's, PyTorch's; see :mod:`.protocol`).

    ``names`` labels tensors (by default, each tensor bound to a name where ``draw`` is called is
    labelled with that name, and each parameter of a module bound to a name ``net`` with
    ``net.fc1.weight``). ``model`` (an ``nn.Module``, also accepted among ``tensors``) labels its
    parameters with their ``named_parameters()`` names (``fc1.weight``) and its modules with their
    classes. ``max_depth`` folds nodes farther than that from the outputs; ``modules="cluster"``
    boxes, and ``modules="collapse"`` folds, the nodes of each module (``node.metadata['module']``);
    ``hide_constants`` hides the ``None`` of inputs that need no gradient; at most ``max_nodes``
    nodes are drawn.
    """
    tensors, model = _split_models(tensors, model)
    found = {}
    if names is None:
        names, found = caller_scope(modules=model is None)
    snap = snapshot(*tensors, names=names, model=model)
    type_modules(snap, found)
    options = DotOptions(max_depth=max_depth, modules=modules, hide_constants=hide_constants, max_nodes=max_nodes,
                         legend=legend)
    return Drawing("autograd")._setup(snap, options)
