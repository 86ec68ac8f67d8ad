"""The drawing as Graphviz DOT, for those who want ``dot`` itself (``draw(...).source``, ``.render()``).

The notebook widget and the static image do not need it (they use :mod:`~autograd_lab.lab.svg`, laid
out in Python). The DOT text says the same as the SVG: it is written from the same
:class:`~autograd_lab.lab.scene.Scene`, with the same reading direction (the output at the top, each
arrow an edge of ``next_functions``, down to the leaves) and the same colours. Every label is an
HTML-like label whose text goes through :func:`escape`, so a tensor named ``<script>`` or holding
quotes, braces or newlines is drawn as text.
"""

from __future__ import annotations

import html

import graphviz

from ..i18n import msg
from .scene import Box, DotOptions, Scene, StepOverlay, build_scene
from .snapshot import Snapshot
from .svg import BOX_LOOK, LINK_LOOK, ROW_LOOK

__all__ = ["escape", "to_dot", "build_dot", "scene_to_dot"]  # DotOptions and StepOverlay: from .scene


def escape(text) -> str:
    """User text made safe inside an HTML-like DOT label (and so in the SVG and the page)."""
    escaped = html.escape(str(text), quote=True)
    return escaped.replace("\r\n", "\n").replace("\n", '<BR ALIGN="LEFT"/>')


def _label(box: Box) -> str:
    fill, stroke, dash, width = BOX_LOOK[box.kind]
    for cls in box.classes:
        look = BOX_LOOK.get(cls)
        if look is not None:
            fill, stroke, dash, width = look[0] or fill, look[1], look[2] or dash, look[3]
    rows = []
    for row in box.rows:
        look = ROW_LOOK[row.style]
        text = f"<B>{escape(row.text)}</B>" if look.bold else escape(row.text)
        rows.append(f'<TR><TD ALIGN="LEFT" BALIGN="LEFT"><FONT COLOR="{look.color}" POINT-SIZE="{look.size}">{text}'
                    "</FONT></TD></TR>")
    style = ' STYLE="dashed"' if dash else (' STYLE="rounded"' if box.kind == "tensor" else "")
    border = 0 if box.kind == "const" else max(1, round(width))
    bgcolor = f' BGCOLOR="{fill}"' if fill != "none" else ""
    return (f'<<TABLE BORDER="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3"{bgcolor} COLOR="{stroke}"'
            f'{style}>{"".join(rows)}</TABLE>>')


def scene_to_dot(graph: graphviz.Digraph, scene: Scene, options: DotOptions) -> None:
    """Add ``scene`` to ``graph``: boxes as HTML-like labels, each module's boxes in a cluster."""
    graph.attr(rankdir=options.rankdir, nodesep="0.25", ranksep="0.4", fontname="Helvetica")
    graph.attr("node", shape="plaintext", fontname="Helvetica", margin="0")
    graph.attr("edge", fontname="Helvetica", fontsize="10", arrowsize="0.7")
    if scene.messages:
        graph.attr(label="<" + escape(" ".join(scene.messages)) + ">", labelloc="t", fontcolor="#b71c1c", fontsize="12")
    clusters: dict[str, list[Box]] = {}
    for box in scene.boxes.values():
        if box.cluster is not None:
            clusters.setdefault(box.cluster, []).append(box)
            continue
        graph.node(box.id, id=box.id, label=_label(box), **({"class": "current"} if "current" in box.classes else {}))
    for index, (name, boxes) in enumerate(clusters.items()):
        with graph.subgraph(name=f"cluster_module{index}") as sub:
            sub.attr(label="<" + escape(scene.clusters[name]) + ">", style="rounded,filled", fillcolor="#f3effa",
                     color="#9575cd")
            for box in boxes:
                sub.node(box.id, id=box.id, label=_label(box), **({"class": "current"} if "current" in box.classes else {}))
    for link in scene.links:
        color, dash, width = LINK_LOOK["step" if link.step else link.kind]
        attrs = {"color": color, "penwidth": str(width)}
        if dash:
            attrs["style"] = "dashed" if link.kind == "view" else "dotted"
        if link.kind == "view":
            attrs["constraint"] = "false"
        if link.label:
            attrs.update(label="<" + escape(link.label) + ">", fontcolor=color)
        graph.edge(link.src, link.dst, **attrs)
    if scene.legend:
        rows = "".join(f'<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="10">{escape(text)}</FONT></TD></TR>'
                       for _, text in scene.legend)
        title = escape(msg("lab.legend_title"))
        graph.node("legend", id="legend",
                   label=f'<<TABLE BORDER="1" COLOR="#bbbbbb" CELLBORDER="0"><TR><TD ALIGN="LEFT"><B>{title}</B></TD></TR>'
                         f"{rows}</TABLE>>")


def build_dot(graph: graphviz.Digraph, snap: Snapshot, options: DotOptions | None = None,
              overlay: StepOverlay | None = None) -> list[str]:
    """Add the drawing of ``snap`` to ``graph``; returns the messages about what was folded."""
    options = options or DotOptions()
    scene = build_scene(snap, options, overlay)
    scene_to_dot(graph, scene, options)
    return scene.messages


def to_dot(snap: Snapshot, options: DotOptions | None = None, overlay: StepOverlay | None = None) -> graphviz.Digraph:
    """A new ``graphviz.Digraph`` drawing ``snap`` (``.source`` is the DOT text)."""
    graph = graphviz.Digraph("autograd")
    build_dot(graph, snap, options, overlay)
    return graph
