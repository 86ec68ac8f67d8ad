"""What a drawing says: a :class:`Scene` of boxes (nodes, tensors, folds) and links, built from a snapshot.

The scene is the one place that decides the content of a drawing: which nodes are drawn, folded or
grouped by module, the rows of text in each box (values abbreviated, stale saved tensors flagged),
the links between boxes and what the stepper adds at each step. :mod:`~autograd_lab.lab.svg` lays a
scene out and writes SVG (the widget and the static image); :mod:`~autograd_lab.lab.dot` writes the
same scene as Graphviz DOT. The text here is plain: each renderer escapes it.

One reading direction everywhere: the output at the top, its ``grad_fn`` below it, and every arrow
an edge of ``next_functions``, the way backward sends gradients, down to the leaves' ``AccumulateGrad``
nodes at the bottom. The forward computation ran the other way, from the bottom up.

Every word a drawing shows comes from the message catalogue (:mod:`autograd_lab.i18n`, keys ``lab.*``), in the
language in use when the scene is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..i18n import join, msg, msg_n
from .layout import clip_cells, text_cells
from .snapshot import NodeRecord, SavedRecord, Snapshot, TensorRecord, ValueSummary

__all__ = ["direction", "LEGEND", "legend_text", "hook_kind", "DotOptions", "StepOverlay", "Row", "Box", "Link", "Scene",
           "build_scene", "plan", "shape_text", "short_value"]


def direction() -> str:
    """The reading direction, said in words above every drawing."""
    return msg("lab.direction")


# the key of each legend entry, in the order the legend lists them; a drawing lists only the keys it uses
LEGEND = ("op", "leaf", "tensor", "fold", "const", "view", "freed", "off", "stale", "current", "done")


def legend_text(key: str) -> str:
    """What the legend says for ``key`` (a box kind, a class or a link kind)."""
    return msg(f"lab.legend.{key}")


_TENSOR_HOOK = re.compile(r"tensor hook \(output (\d+)\)")


def hook_kind(kind: str) -> str:
    """A snapshot's hook kind (``prehook``, ``hook``, ``leaf hook``, ``tensor hook (output 0)``) as a drawing says it."""
    tensor = _TENSOR_HOOK.fullmatch(kind)
    if tensor:
        return msg("lab.hook_kind.tensor", output=tensor.group(1))
    return {"prehook": msg("lab.hook_kind.prehook"), "hook": msg("lab.hook_kind.hook"),
            "leaf hook": msg("lab.hook_kind.leaf")}.get(kind, kind)

SHORT_VALUES = 3  # numbers shown inside a box (two and "…" when there are more); the details panel shows them all
NOTE_CHARS = 36  # longest non-tensor saved value or metadata shown inside a box


@dataclass
class DotOptions:
    """How to draw: folding, hiding and the size cap (the name is kept from when DOT was the only output)."""

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


@dataclass
class Row:
    """One line of text in a box. ``style``: title, kind, info, grad, step, hook, meta, stale or freed."""

    text: str
    style: str = "info"


@dataclass
class Box:
    """A drawn box: a graph node, a tensor, a fold, or a ``None`` stub of next_functions."""

    id: str
    kind: str  # op, leaf, tensor, fold or const
    rows: list[Row]
    classes: list[str] = field(default_factory=list)  # freed, off, stale, current, done
    cluster: str | None = None  # the module whose box it is drawn in (modules="cluster")
    reserve: int = 0  # cells (layout.text_cells) to reserve in width, for text the stepper fills in later


@dataclass
class Link:
    """An arrow between boxes: ``next`` (an edge of next_functions), ``grad_fn`` (a tensor to the node
    that made it), ``const`` (to a None stub) or ``view`` (a view to its base)."""

    src: str
    dst: str
    kind: str = "next"
    port: int = 0  # which input of ``src`` (next_functions index), for the order the arrows leave in
    ports: int = 1
    label: str | None = None  # the gradient the stepper sent along it, or a multi-output node's output index
    step: bool = False  # carries the stepper's gradient at this step


@dataclass
class Scene:
    """The content of one drawing (see the module docstring)."""

    boxes: dict[str, Box]
    links: list[Link]
    clusters: dict[str, str] = field(default_factory=dict)  # cluster name -> its title
    messages: list[str] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)


def shape_text(shape) -> str:
    """``(2, 3)``, ``(3,)``, or ``()`` for a 0-d tensor; ``?`` when unknown."""
    if shape is None:
        return "?"
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _number(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _short_number(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _flat(values) -> list:
    out, stack = [], [values]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def short_value(summary: ValueSummary | None) -> str:
    """A value short enough for a box: three numbers at most (``[0.5, 1, 2]``; ``[0.1, 0.2, …]`` when
    there are more), or the norm of a large tensor. Small whole values keep four digits (``1.393``)."""
    if summary is None:
        return "None"
    if summary.values is None:
        return msg("lab.norm_short", norm=summary.norm)
    if not isinstance(summary.values, list):
        return _number(summary.values)
    flat = _flat(summary.values)
    if len(flat) > SHORT_VALUES:
        return "[" + ", ".join(_short_number(v) for v in flat[:SHORT_VALUES - 1]) + ", …]"
    return "[" + ", ".join(_number(v) for v in flat) + "]"


def _clip(text: str, limit: int = NOTE_CHARS) -> str:
    return clip_cells(text, limit)


def plan(snap: Snapshot, options: DotOptions) -> tuple[dict[str, str], list[str]]:
    """Which drawn box stands for each graph node (itself, its module, or the fold), and messages."""
    messages: list[str] = []
    target = {nid: nid for nid in snap.order}
    if options.max_depth is not None:
        deep = [nid for nid in snap.order if snap.nodes[nid].depth > options.max_depth]
        for nid in deep:
            target[nid] = "folded"
        if deep:
            messages.append(msg_n("lab.folded_by_depth", len(deep), depth=options.max_depth))
    if options.modules == "collapse":
        modules: dict[str, str] = {}
        for nid in snap.order:
            module = snap.nodes[nid].module
            if module is not None and target[nid] == nid:
                target[nid] = modules.setdefault(module, f"module{len(modules)}")
    drawn = [nid for nid in snap.order if target[nid] == nid]
    if len(drawn) > options.max_nodes:
        kept = set(sorted(drawn, key=lambda nid: snap.nodes[nid].depth)[:options.max_nodes])
        for nid in drawn:
            if nid not in kept:
                target[nid] = "folded"
        messages.append(msg("lab.too_many_nodes", count=len(drawn), limit=options.max_nodes))
    return target, messages


def module_title(snap: Snapshot, module: str) -> str:
    kind = snap.module_types.get(module)
    return f"{module} ({kind})" if kind and kind != module else module


def _settings_row(saved: list[SavedRecord]) -> list[Row]:
    """The non-tensor values a node saved (sizes, dims, scalars), on one clipped row."""
    plain = [f"{s.name}={s.text or ''}" for s in saved if not s.is_tensor]
    return [Row(_clip(", ".join(plain), 44), "meta")] if plain else []


def _saved_row(saved: SavedRecord, freed_now: set) -> Row:
    text = f"{saved.name}: {shape_text(saved.shape)} {saved.dtype or ''}".rstrip()
    if saved.is_output:
        text += msg("lab.saved_output")
    if saved.released or saved.name in freed_now:
        return Row(text + msg("lab.saved_freed"), "freed")
    if saved.stale:
        return Row(f"{text} v{saved.saved_version}→v{saved.current_version}" + msg("lab.saved_stale"), "stale")
    return Row(f"{text} v{saved.saved_version}", "info")


def _hook_rows(node: NodeRecord) -> list[Row]:
    return [Row(_clip(msg("lab.hook_row", kind=hook_kind(kind), names=", ".join(names)), 2 * NOTE_CHARS), "hook")
            for kind, names in node.hooks.items()]


def _grad_row(leaf: TensorRecord, node_id: str, overlay: StepOverlay | None) -> Row:
    """The leaf's ``.grad``: its value before backward, or, with the stepper, the value at this step."""
    if overlay is not None and node_id in overlay.accumulated:
        before, after = overlay.accumulated[node_id]
        if node_id == overlay.current:
            return Row(f".grad ← {after}", "step")
        return Row(f".grad = {after}", "grad")
    return Row(f".grad = {short_value(leaf.grad)}", "grad")


def _leaf_rows(snap: Snapshot, node: NodeRecord, overlay: StepOverlay | None) -> list[Row]:
    leaf = snap.tensors[node.variable]
    info = f"{shape_text(leaf.shape)} {leaf.dtype}" + ("" if leaf.requires_grad else " · requires_grad=False")
    rows = [Row("AccumulateGrad", "kind"), Row(leaf.name or msg("lab.unnamed_leaf"), "title"), Row(info, "info"),
            _grad_row(leaf, node.id, overlay)]
    return rows + _hook_rows(node)


def _op_rows(snap: Snapshot, node: NodeRecord, freed_now: set) -> list[Row]:
    rows = [Row(node.name, "title")]
    if node.wraps:
        rows.append(Row(msg("lab.wraps", name=node.wraps), "meta"))
    rows.extend(_saved_row(s, freed_now) for s in node.saved if s.is_tensor)
    rows.extend(_settings_row(node.saved))
    rows.extend(_hook_rows(node))
    if node.retain_grad_outputs:
        rows.append(Row(msg("lab.retain_grad_on", outputs=join(node.retain_grad_outputs)), "hook"))
    for key, value in node.metadata.items():
        shown = module_title(snap, value) if key == "module" else value
        rows.append(Row(_clip(f"{key}: {shown}"), "meta"))
    return rows


def node_box(snap: Snapshot, node: NodeRecord, overlay: StepOverlay | None = None) -> Box:
    freed_now = set(overlay.freed.get(node.id, ())) if overlay else set()
    if node.kind == "leaf":
        # with the stepper, room for the .grad it will write (so that no box moves between steps)
        box = Box(node.id, "leaf", _leaf_rows(snap, node, overlay), reserve=32 if overlay is not None else 0)
    else:
        box = Box(node.id, "op", _op_rows(snap, node, freed_now))
        if overlay is not None:  # room for the rows' "· freed" once backward has run the node
            box.reserve = max(text_cells(row.text) for row in _op_rows(snap, node, {s.name for s in node.saved}))
    if node.freed or freed_now:
        box.classes.append("freed")
    if not node.requires_grad:
        box.classes.append("off")
    if any(s.stale for s in node.saved):
        box.classes.append("stale")
    if overlay is not None and node.id == overlay.current:
        box.classes.append("current")
    elif overlay is not None and node.id in overlay.done:
        box.classes.append("done")
    return box


def tensor_box(tensor: TensorRecord) -> Box:
    title = tensor.name or (msg("lab.output") if tensor.is_root else msg("lab.tensor"))
    info = f"{shape_text(tensor.shape)} {tensor.dtype}" + (f" · _version {tensor.version}" if tensor.version else "")
    rows = [Row(title, "title"), Row(info, "info")]
    if tensor.retains_grad:
        rows.append(Row("retain_grad()", "hook"))
    if tensor.retains_grad or (tensor.is_leaf and tensor.requires_grad):
        rows.append(Row(f".grad = {short_value(tensor.grad)}", "grad"))
    if not tensor.requires_grad:
        rows.append(Row(msg("lab.no_graph"), "freed"))
    return Box(tensor.id, "tensor", rows)


def _fold_boxes(snap: Snapshot, target: dict) -> list[Box]:
    """One box for each group of folded nodes: a module's ops, or the nodes past the size limit."""
    folded: dict = {}
    for nid, drawn in target.items():
        if drawn != nid:
            folded.setdefault(drawn, []).append(nid)
    boxes = []
    for drawn, members in folded.items():
        if drawn == "folded":
            rows = [Row(msg_n("lab.more_nodes", len(members)), "title"), Row(msg("lab.folded_why"), "meta")]
        else:
            names = sorted({snap.nodes[m].name for m in members})
            listed = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
            rows = [Row(module_title(snap, snap.nodes[members[0]].module), "title"),
                    Row(msg_n("lab.module_ops", len(members), names=listed), "meta")]
        boxes.append(Box(drawn, "fold", rows))
    return boxes


def _next_links(snap: Snapshot, target: dict, options: DotOptions, overlay) -> tuple[list[Link], list[Box]]:
    """Edges of next_functions between drawn boxes (once each, or once per input with the stepper's
    gradients), and the ``None`` stubs of inputs that need no gradient."""
    links, stubs, seen = [], [], {}
    for nid in snap.order:
        node = snap.nodes[nid]
        src = target[nid]
        for index, (child, _) in enumerate(node.next):
            if child is None:
                if src == nid and not options.hide_constants:
                    stub = f"{nid}_none{index}"
                    stubs.append(Box(stub, "const", [Row("None", "meta")]))
                    links.append(Link(src, stub, "const", index, len(node.next)))
                continue
            dst = target[child]
            if src == dst:
                continue
            grad = overlay.edge_grads.get((nid, index)) if overlay is not None else None
            if (src, dst) in seen:  # one arrow per pair of boxes; the stepper lists every gradient on it
                if grad is not None:
                    link = seen[(src, dst)]
                    link.label = grad if link.label is None else f"{link.label} + {grad}"
                    link.step = True
                continue
            port, ports = (index, len(node.next)) if src == nid else (0, 1)
            seen[(src, dst)] = Link(src, dst, "next", port, ports, label=grad, step=grad is not None)
            links.append(seen[(src, dst)])
    return links, stubs


def _tensor_links(snap: Snapshot, target: dict) -> tuple[list[Link], list[Box]]:
    """The tensors asked for or named, each linked to the node that made it, and each view to its base."""
    links, boxes, drawn = [], [], set()
    viewed = {t.base for t in snap.tensors.values() if t.base is not None}
    for tensor in snap.tensors.values():
        node = snap.nodes.get(tensor.node) if tensor.node else None
        if node is not None and node.kind == "leaf":
            continue  # a leaf is drawn inside its AccumulateGrad box
        if node is None and not tensor.is_root and tensor.id not in viewed:
            continue
        boxes.append(tensor_box(tensor))
        drawn.add(tensor.id)
        if node is not None:
            label = msg("lab.output_n", output=tensor.output_nr) if len(node.outputs) > 1 else None
            links.append(Link(tensor.id, target[node.id], "grad_fn", label=label))
    for tensor in snap.tensors.values():
        if tensor.base is None or tensor.id not in drawn:
            continue
        base = snap.tensors[tensor.base]
        base_node = snap.nodes.get(base.node) if base.node else None
        dst = target[base_node.id] if base_node is not None and base_node.kind == "leaf" else base.id
        links.append(Link(tensor.id, dst, "view", label=msg("lab.view_of")))
    return links, boxes


def _legend(boxes: dict[str, Box], links: list[Link]) -> list[tuple[str, str]]:
    used = {b.kind for b in boxes.values()} | {c for b in boxes.values() for c in b.classes}
    used |= {"view" for link in links if link.kind == "view"}
    return [(key, legend_text(key)) for key in LEGEND if key in used]


def build_scene(snap: Snapshot, options: DotOptions | None = None, overlay: StepOverlay | None = None) -> Scene:
    """The scene of ``snap`` (see the module docstring); ``overlay`` adds one step of the stepper."""
    options = options or DotOptions()
    target, messages = plan(snap, options)
    boxes: dict[str, Box] = {}
    clusters: dict[str, str] = {}
    tensor_links, tensor_boxes = _tensor_links(snap, target)
    for box in tensor_boxes:
        boxes[box.id] = box
    for nid in snap.order:
        if target[nid] == nid:
            box = node_box(snap, snap.nodes[nid], overlay)
            module = snap.nodes[nid].module
            if options.modules == "cluster" and module is not None:
                box.cluster = module
                clusters.setdefault(module, module_title(snap, module))
            boxes[nid] = box
    for box in _fold_boxes(snap, target):
        boxes[box.id] = box
    next_links, stubs = _next_links(snap, target, options, overlay)
    for box in stubs:
        boxes[box.id] = box
    links = tensor_links + next_links
    legend = _legend(boxes, links) if options.legend else []
    return Scene(boxes, links, clusters, messages, legend)
