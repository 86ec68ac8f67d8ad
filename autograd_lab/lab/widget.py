"""The notebook widget: an SVG drawn in Python, shown in the page with zoom, pan, details and a stepper.

:class:`GraphWidget` is an ``anywidget`` whose front end (``static/widget.js``, built from
``lab-frontend/`` by ``make lab-bundle``) puts the drawing's SVG in the page, restyles it for
JupyterLab's light or dark theme, fits it to the cell, and sends node clicks (``selected``) and stepper
buttons (custom messages) back to Python. The Python side keeps the snapshot and answers a click
with the node's details.
"""

from __future__ import annotations

import pathlib

import anywidget
import traitlets

from .scene import DIRECTION, module_title, shape_text
from .snapshot import NodeRecord, Snapshot

__all__ = ["GraphWidget", "node_details", "stale_sentences"]

_STATIC = pathlib.Path(__file__).parent / "static"


class GraphWidget(anywidget.AnyWidget):
    """Shows a drawing's SVG; ``selected`` is the id of the last clicked box, ``details`` what to show for it."""

    _esm = _STATIC / "widget.js"
    svg = traitlets.Unicode("").tag(sync=True)
    direction = traitlets.Unicode(DIRECTION).tag(sync=True)
    legend = traitlets.List().tag(sync=True)  # [key, text] pairs
    outline = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    details = traitlets.Dict().tag(sync=True)
    warnings = traitlets.List(traitlets.Unicode()).tag(sync=True)
    messages = traitlets.List(traitlets.Unicode()).tag(sync=True)
    stepper = traitlets.Dict({"enabled": False}).tag(sync=True)

    def __init__(self, describe=None, on_action=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._describe = describe  # selected id -> details dict
        self._on_action = on_action  # stepper buttons: fn(message dict)
        self.edges = 0
        self.observe(self._on_selected, names="selected")
        self.on_msg(self._message)

    def show(self, drawing, svg: str | None = None) -> None:
        """Show ``drawing`` (a :class:`~autograd_lab.lab.draw.Drawing`), or its snapshot with ``svg``."""
        snap = drawing.snapshot
        self._describe = lambda selected: node_details(snap, selected)
        with self.hold_sync():
            self.svg = svg if svg is not None else drawing.svg(static=False)
            self.legend = [list(item) for item in drawing.scene.legend]
            self.outline = drawing.outline()
            self.warnings = stale_sentences(snap)
            self.messages = list(drawing.messages)
            self.edges = len(drawing.scene.links)
            if self.selected:
                self.details = node_details(snap, self.selected)

    def _on_selected(self, change) -> None:
        if self._describe is not None:
            self.details = self._describe(change["new"]) or {}

    def _message(self, widget, content, buffers) -> None:
        if self._on_action is not None and isinstance(content, dict) and "action" in content:
            self._on_action(content)

    def __repr__(self) -> str:
        # Deterministic text for nbval and for front ends that cannot show widgets.
        return f"<autograd_lab graph widget: {self.edges} edges>"


def stale_sentences(snap: Snapshot) -> list[str]:
    """One sentence per saved tensor changed in place since saved: what the next backward will do, and why."""
    sentences = []
    for node, saved in snap.stale():
        sentences.append(
            f"{node.name} saved '{saved.name}' at version {saved.saved_version}, but it is now at version "
            f"{saved.current_version}: the next backward through {node.name} will raise, because an in-place "
            "operation changed a tensor that its gradient formula needs. Use an out-of-place op, or .clone() "
            "before modifying it."
        )
    return sentences


def _saved_rows(node: NodeRecord) -> list[dict]:
    sections = []
    for saved in node.saved:
        if not saved.is_tensor:
            sections.append({"title": f"_saved_{saved.name}", "rows": [["value", saved.text]]})
            continue
        rows = [["shape", shape_text(saved.shape)], ["dtype", saved.dtype or "?"],
                ["version at save", saved.saved_version], ["version now", saved.current_version],
                ["is the node's output", saved.is_output]]
        if saved.released:
            rows.append(["state", "freed after backward"])
        elif saved.packed:
            rows.append(["value", "held by saved_tensors_hooks (not unpacked here)"])
        elif saved.value is not None:
            rows.append(["value", saved.value.text()])
        title = f"_saved_{saved.name}" + ("  ⚠ STALE: the next backward raises" if saved.stale else "")
        sections.append({"title": title, "rows": rows, "stale": saved.stale})
    return sections


def node_details(snap: Snapshot, selected: str, extra: dict | None = None) -> dict:
    """What to show for a clicked node or tensor: saved tensors with values, versions, hooks, grads."""
    if selected in snap.nodes:
        node = snap.nodes[selected]
        general = [["kind", "AccumulateGrad (leaf)" if node.kind == "leaf" else "op node"],
                   ["inputs", len(node.next)],
                   ["outputs", ", ".join(f"{shape_text(shape)} {dtype}" for shape, dtype in node.outputs)]]
        if node.wraps:
            general.append(["wraps", node.wraps])
        if node.freed:
            general.append(["state", "freed after backward"])
        for kind, names in node.hooks.items():
            general.append([kind, ", ".join(names)])
        for key, value in node.metadata.items():
            general.append([f"metadata[{key!r}]", module_title(snap, value) if key == "module" else value])
        sections = [{"title": "", "rows": general}]
        title = node.name
        if node.variable is not None:
            leaf = snap.tensors[node.variable]
            title = f"{node.name} into {leaf.name or 'an unnamed leaf'}"
            sections.append({"title": "leaf", "rows": [
                ["name", leaf.name or "(unnamed)"], ["shape", shape_text(leaf.shape)], ["dtype", leaf.dtype],
                ["requires_grad", leaf.requires_grad], [".grad", leaf.grad.text() if leaf.grad else "None"]]})
        sections.extend(_saved_rows(node))
        for heading, rows in (extra or {}).get(selected, []):
            sections.append({"title": heading, "rows": rows})
        return {"title": title, "sections": sections}
    if selected in snap.tensors:
        tensor = snap.tensors[selected]
        rows = [["shape", shape_text(tensor.shape)], ["dtype", tensor.dtype], ["requires_grad", tensor.requires_grad],
                ["is_leaf", tensor.is_leaf], ["_version", tensor.version], ["retains_grad", tensor.retains_grad]]
        if tensor.retains_grad or tensor.is_leaf:
            rows.append([".grad", tensor.grad.text() if tensor.grad else "None"])
        if tensor.base is not None:
            rows.append(["view of", snap.tensors[tensor.base].name or "a tensor"])
        return {"title": tensor.name or "tensor", "sections": [{"title": "", "rows": rows}]}
    return {}
