"""Turn a :class:`~autograd_lab.lab.snapshot.Snapshot` into Graphviz DOT with the ``graphviz`` source API.

Edges point the way data flowed forward (inputs above, the output below); backward runs against
them. Every label is an HTML-like label whose user text (tensor names, metadata, hook names,
values) goes through :func:`escape`, so a tensor named ``<script>`` or holding quotes, braces or
newlines is drawn as text. Big graphs stay readable: fold nodes deeper than ``max_depth``, fold each
``nn.Module`` (``node.metadata['module']``) into one node or a cluster, hide inputs that need no
gradient, and draw at most ``max_nodes`` nodes, saying so in the graph's title.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import graphviz

from .snapshot import NodeRecord, SavedRecord, Snapshot, TensorRecord

__all__ = ["DotOptions", "StepOverlay", "escape", "to_dot", "build_dot", "LEGEND"]

COLORS = {"op": "#dbe9f6", "leaf": "#d7f0d2", "tensor": "#fff4c2", "freed": "#e6e6e6", "off": "#f2f2f2",
          "stale": "#c62828", "current": "#ef6c00", "done": "#f5f5f5", "module": "#ede7f6"}

LEGEND = [
    ("op node (a grad_fn), with the tensors it saved", COLORS["op"], "solid"),
    ("AccumulateGrad: adds into a leaf's .grad", COLORS["leaf"], "solid"),
    ("a tensor you named or asked for", COLORS["tensor"], "rounded"),
    ("freed after backward (saved tensors released)", COLORS["freed"], "dashed"),
    ("leaf that no longer requires grad", COLORS["off"], "dotted"),
]


def escape(text) -> str:
    """User text made safe inside an HTML-like DOT label (and so in the SVG and the page)."""
    escaped = html.escape(str(text), quote=True)
    return escaped.replace("\r\n", "\n").replace("\n", '<BR ALIGN="LEFT"/>')


@dataclass
class DotOptions:
    """How to draw: folding, hiding and the size cap (see the module docstring)."""

    max_depth: int | None = None
    modules: str | None = None  # None, "cluster" (a box around each module) or "collapse" (one node each)
    hide_constants: bool = False
    max_nodes: int = 400
    legend: bool = True
    rankdir: str = "TB"


@dataclass
class StepOverlay:
    """What the backward stepper adds to a drawing at one step."""

    current: str | None = None
    done: set = field(default_factory=set)
    edge_grads: dict = field(default_factory=dict)  # (parent id, input index) -> text
    grads_in: dict = field(default_factory=dict)  # node id -> text of the gradients that flowed in
    freed: dict = field(default_factory=dict)  # node id -> names released so far
    hooks: dict = field(default_factory=dict)  # node id -> hook names fired
    accumulated: dict = field(default_factory=dict)  # node id -> (before text, after text)


def _row(text: str, color: str | None = None, bold: bool = False, size: int | None = None) -> str:
    inner = f"<B>{text}</B>" if bold else text
    if color or size:
        attrs = (f' COLOR="{color}"' if color else "") + (f' POINT-SIZE="{size}"' if size else "")
        inner = f"<FONT{attrs}>{inner}</FONT>"
    return f'<TR><TD ALIGN="LEFT" BALIGN="LEFT">{inner}</TD></TR>'


def _table(rows: list[str], fill: str, border_color: str = "#555555", border: int = 1, style: str | None = None) -> str:
    style_attr = f' STYLE="{style}"' if style else ""
    return (f'<<TABLE BORDER="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3" BGCOLOR="{fill}" '
            f'COLOR="{border_color}"{style_attr}>{"".join(rows)}</TABLE>>')


def _shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _saved_row(node: NodeRecord, saved: SavedRecord, freed_now: set) -> str:
    if not saved.is_tensor:
        return _row(escape(f"{saved.name} = {saved.text}"), "#444444", size=10)
    parts = [f"{saved.name}: {_shape(saved.shape) if saved.shape is not None else '?'} {saved.dtype or ''}".rstrip()]
    if saved.is_output:
        parts.append("(output)")
    if saved.released or saved.name in freed_now:
        return _row(escape(" ".join(parts) + " · freed"), "#888888", size=10)
    parts.append(f"v{saved.saved_version}" + (f"→v{saved.current_version}" if saved.stale else ""))
    if saved.stale:
        return _row(escape(" ".join(parts) + " ⚠ STALE: next backward raises"), COLORS["stale"], bold=True, size=10)
    return _row(escape(" ".join(parts)), "#333333", size=10)


def _grad_text(summary) -> str:
    return summary.text() if summary is not None else "None"


def _leaf_rows(snap: Snapshot, node: NodeRecord) -> list[str]:
    leaf = snap.tensors[node.variable]
    title = leaf.name if leaf.name else "leaf"
    rows = [_row(escape(title), bold=True),
            _row(escape(f"{_shape(leaf.shape)} {leaf.dtype} · requires_grad={leaf.requires_grad}"), size=10),
            _row(escape(f".grad = {_grad_text(leaf.grad)}"), "#1b5e20", size=10)]
    for kind, names in node.hooks.items():
        rows.append(_row(escape(f"{kind}: {', '.join(names)}"), "#6a1b9a", size=10))
    return rows


def _node_label(snap: Snapshot, node: NodeRecord, overlay: StepOverlay | None) -> str:
    freed_now = set(overlay.freed.get(node.id, ())) if overlay else set()
    if node.kind == "leaf":
        rows = [_row("AccumulateGrad", "#2e7d32", size=9)] + _leaf_rows(snap, node)
    else:
        rows = [_row(escape(node.name), bold=True)]
        if node.wraps:
            rows.append(_row(escape(f"wraps {node.wraps}"), "#444444", size=10))
        rows.extend(_saved_row(node, s, freed_now) for s in node.saved)
        for kind, names in node.hooks.items():
            rows.append(_row(escape(f"{kind}: {', '.join(names)}"), "#6a1b9a", size=10))
        if node.retain_grad_outputs:
            outs = ", ".join(str(i) for i in node.retain_grad_outputs)
            rows.append(_row(escape(f"retain_grad on output {outs}"), "#6a1b9a", size=10))
        for key, value in node.metadata.items():
            rows.append(_row(escape(f"{key}: {value}"), "#555555", size=10))
    if overlay is not None:
        if node.id in overlay.grads_in:
            rows.append(_row(escape(f"grad in: {overlay.grads_in[node.id]}"), "#0d47a1", size=10))
        if node.id in overlay.accumulated:
            before, after = overlay.accumulated[node.id]
            rows.append(_row(escape(f".grad: {before} → {after}"), "#0d47a1", bold=True, size=10))
        if overlay.hooks.get(node.id):
            rows.append(_row(escape("fired: " + ", ".join(overlay.hooks[node.id])), "#6a1b9a", size=10))
    fill, style = COLORS["leaf" if node.kind == "leaf" else "op"], None
    if node.freed or freed_now:
        fill, style = COLORS["freed"], "dashed"
    if not node.requires_grad:
        fill, style = COLORS["off"], "dotted"
    border, border_color = 1, "#555555"
    if overlay is not None and node.id == overlay.current:
        border, border_color = 4, COLORS["current"]
    elif overlay is not None and node.id in overlay.done:
        fill = COLORS["done"]
    return _table(rows, fill, border_color, border, style)


def _tensor_label(tensor: TensorRecord) -> str:
    title = tensor.name or ("output" if tensor.is_root else "tensor")
    rows = [_row(escape(title), bold=True),
            _row(escape(f"{_shape(tensor.shape)} {tensor.dtype} · version {tensor.version}"), size=10)]
    if tensor.retains_grad:
        rows.append(_row("retain_grad()", "#6a1b9a", size=10))
    if tensor.retains_grad or (tensor.is_leaf and tensor.requires_grad):
        rows.append(_row(escape(f".grad = {_grad_text(tensor.grad)}"), "#1b5e20", size=10))
    if not tensor.requires_grad:
        rows.append(_row("requires_grad=False: no graph", "#888888", size=10))
    return _table(rows, COLORS["tensor"], style="rounded")


def _legend_label() -> str:
    rows = ['<TR><TD COLSPAN="2" ALIGN="LEFT"><B>Legend</B></TD></TR>']
    for text, color, style in LEGEND:
        rows.append(f'<TR><TD BGCOLOR="{color}" BORDER="1" STYLE="{style}" WIDTH="24"> </TD>'
                    f'<TD ALIGN="LEFT"><FONT POINT-SIZE="10">{escape(text)}</FONT></TD></TR>')
    rows.append(f'<TR><TD WIDTH="24"><FONT COLOR="{COLORS["stale"]}">⚠</FONT></TD><TD ALIGN="LEFT">'
                f'<FONT POINT-SIZE="10" COLOR="{COLORS["stale"]}">saved tensor changed in place: backward will raise'
                '</FONT></TD></TR>')
    rows.append('<TR><TD WIDTH="24">- - →</TD><TD ALIGN="LEFT"><FONT POINT-SIZE="10">view of its base</FONT></TD></TR>')
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">{"".join(rows)}</TABLE>>'


def _plan(snap: Snapshot, options: DotOptions) -> tuple[dict[str, str], list[str]]:
    """Which drawn node stands for each graph node (itself, a module, or a fold), and messages."""
    messages: list[str] = []
    target = {nid: nid for nid in snap.order}
    if options.max_depth is not None:
        deep = [nid for nid in snap.order if snap.nodes[nid].depth > options.max_depth]
        for nid in deep:
            target[nid] = "folded"
        if deep:
            messages.append(f"{len(deep)} nodes deeper than max_depth={options.max_depth} are folded into one node.")
    if options.modules == "collapse":
        modules: dict[str, str] = {}
        for nid in snap.order:
            module = snap.nodes[nid].module
            if module is not None and target[nid] == nid:
                target[nid] = modules.setdefault(module, f"module{len(modules)}")
    drawn = [nid for nid in snap.order if target[nid] == nid]
    if len(drawn) > options.max_nodes:
        keep = sorted(drawn, key=lambda nid: snap.nodes[nid].depth)[:options.max_nodes]
        kept = set(keep)
        for nid in drawn:
            if nid not in kept:
                target[nid] = "folded"
        messages.append(
            f"This graph has {len(drawn)} nodes; only the {options.max_nodes} nearest the output are drawn and the "
            f"rest are folded into one node. Pass max_nodes= to draw more, or max_depth= to fold by depth."
        )
    return target, messages


def build_dot(graph: graphviz.Digraph, snap: Snapshot, options: DotOptions | None = None,
              overlay: StepOverlay | None = None) -> list[str]:
    """Add the drawing of ``snap`` to ``graph``; returns the messages about what was folded."""
    options = options or DotOptions()
    target, messages = _plan(snap, options)  # node id -> the id it is drawn as (itself, or its fold)
    graph.attr(rankdir=options.rankdir, nodesep="0.25", ranksep="0.35", fontname="Helvetica")
    graph.attr("node", shape="plaintext", fontname="Helvetica", margin="0")
    graph.attr("edge", fontname="Helvetica", fontsize="10", color="#555555", arrowsize="0.7")
    if messages:
        graph.attr(label="<" + escape(" ".join(messages)) + ">", labelloc="t", fontcolor="#b71c1c", fontsize="12")
    _draw_nodes(graph, snap, target, options, overlay)
    _draw_folds(graph, snap, target)
    _draw_edges(graph, snap, target, options, overlay)
    _draw_tensors(graph, snap, target)
    if options.legend:
        with graph.subgraph(name="cluster_legend") as sub:
            sub.attr(label="", style="rounded", color="#bbbbbb")
            sub.node("legend", id="legend", label=_legend_label())
    return messages


def _draw_nodes(graph, snap: Snapshot, target: dict, options: DotOptions, overlay) -> None:
    """The nodes drawn as themselves; with ``modules='cluster'``, each module's inside a box of its own."""
    clusters: dict[str, list[str]] = {}
    for nid in snap.order:
        if target[nid] != nid:
            continue
        node = snap.nodes[nid]
        if options.modules == "cluster" and node.module is not None:
            clusters.setdefault(node.module, []).append(nid)
        else:
            graph.node(nid, **_node_attrs(snap, nid, overlay))
    for index, (module, members) in enumerate(clusters.items()):
        with graph.subgraph(name=f"cluster_module{index}") as sub:
            sub.attr(label="<" + escape(module) + ">", style="rounded,filled", fillcolor=COLORS["module"], color="#9575cd")
            for nid in members:
                sub.node(nid, **_node_attrs(snap, nid, overlay))


def _node_attrs(snap: Snapshot, nid: str, overlay) -> dict:
    attrs = {"id": nid, "label": _node_label(snap, snap.nodes[nid], overlay)}
    if overlay is not None and nid == overlay.current:
        attrs["class"] = "current"
    return attrs


def _draw_folds(graph, snap: Snapshot, target: dict) -> None:
    """One box for each group of folded nodes: a module's ops, or the nodes past the size limit."""
    folded: dict = {}
    for nid, drawn in target.items():
        if drawn != nid:
            folded.setdefault(drawn, []).append(nid)
    for drawn, members in folded.items():
        if drawn == "folded":
            text = f"⋯ {len(members)} more nodes folded"
        else:
            module = snap.nodes[members[0]].module
            names = sorted({snap.nodes[m].name for m in members})
            ops = f"{len(members)} op{'s' if len(members) != 1 else ''}"
            text = f"{module}: {ops} ({', '.join(names[:4])}{', ...' if len(names) > 4 else ''})"
        graph.node(drawn, id=drawn, label=_table([_row(escape(text), bold=True)], COLORS["module"], style="rounded"))


def _draw_edges(graph, snap: Snapshot, target: dict, options: DotOptions, overlay) -> None:
    """The edges between drawn nodes (once each; with the stepper's overlay, the gradient sent along them),
    and the dotted "no grad" stubs of inputs that need no gradient."""
    seen_edges = set()
    for parent, child, nr, index in snap.edges():
        src, dst = target[child], target[parent]
        if src == dst:
            continue
        key = (src, dst, nr, index) if overlay is not None else (src, dst)
        if key in seen_edges:
            continue
        seen_edges.add(key)
        attrs = {}
        if overlay is not None and (parent, index) in overlay.edge_grads:
            attrs.update(label="<" + escape(overlay.edge_grads[(parent, index)]) + ">", color="#0d47a1", fontcolor="#0d47a1",
                         penwidth="2")
        graph.edge(src, dst, **attrs)
    if options.hide_constants:
        return
    for nid in snap.order:
        if target[nid] != nid:
            continue
        for index, (child, _) in enumerate(snap.nodes[nid].next):
            if child is None:
                cid = f"{nid}_const{index}"
                graph.node(cid, id=cid, label="<<FONT POINT-SIZE=\"9\" COLOR=\"#888888\">no grad</FONT>>",
                           shape="plaintext")
                graph.edge(cid, nid, style="dotted", color="#aaaaaa", arrowhead="none")


def _draw_tensors(graph, snap: Snapshot, target: dict) -> None:
    """The watched tensors beside the nodes that made them, and a dashed edge from each view's base."""
    for tensor in snap.tensors.values():
        node = snap.nodes.get(tensor.node) if tensor.node else None
        if node is not None and node.kind == "leaf":
            continue  # leaves are drawn inside their AccumulateGrad node
        if node is None and not tensor.is_root and not any(t.base == tensor.id for t in snap.tensors.values()):
            continue
        graph.node(tensor.id, id=tensor.id, label=_tensor_label(tensor))
        if node is not None:
            attrs = {"taillabel": str(tensor.output_nr)} if len(node.outputs) > 1 else {}
            graph.edge(target[node.id], tensor.id, **attrs)
    for tensor in snap.tensors.values():
        if tensor.base is not None:
            base = snap.tensors[tensor.base]
            base_node = snap.nodes.get(base.node) if base.node else None
            src = target[base_node.id] if base_node is not None and base_node.kind == "leaf" else base.id
            graph.edge(src, tensor.id, style="dashed", color="#7b1fa2", label="<view>", fontcolor="#7b1fa2")


def to_dot(snap: Snapshot, options: DotOptions | None = None, overlay: StepOverlay | None = None) -> graphviz.Digraph:
    """A new ``graphviz.Digraph`` drawing ``snap`` (``.source`` is the DOT text)."""
    graph = graphviz.Digraph("autograd")
    build_dot(graph, snap, options, overlay)
    return graph
