"""The notebook widget: an SVG drawn in Python, shown in the page with zoom, pan, details and a stepper.

:class:`GraphWidget` is an ``anywidget`` whose front end (``static/widget.js``, built from
``lab-frontend/`` by ``make lab-bundle``) puts the drawing's SVG in the page, restyles it for
JupyterLab's light or dark theme, fits it to the cell, and sends node clicks (``selected``) and stepper
buttons (custom messages) back to Python. The Python side keeps the snapshot and answers a click
with the node's details. Every text the front end shows comes from Python (the ``texts``, ``direction``, ``legend``
and ``details`` traits), in the language of :mod:`autograd_lab.i18n`: the front end has no words of its own.
"""

from __future__ import annotations

import pathlib

import anywidget
import traitlets

from ..i18n import catalogue, msg
from .scene import direction, hook_kind, module_title, shape_text
from .snapshot import NodeRecord, Snapshot

__all__ = ["GraphWidget", "node_details", "stale_sentences", "widget_texts"]

_STATIC = pathlib.Path(__file__).parent / "static"


class GraphWidget(anywidget.AnyWidget):
    """Shows a drawing's SVG; ``selected`` is the id of the last clicked box, ``details`` what to show for it."""

    _esm = _STATIC / "widget.js"
    svg = traitlets.Unicode("").tag(sync=True)
    direction = traitlets.Unicode("").tag(sync=True)
    texts = traitlets.Dict().tag(sync=True)  # the front end's button labels and titles (widget_texts())
    legend = traitlets.List().tag(sync=True)  # [key, text] pairs
    outline = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    details = traitlets.Dict().tag(sync=True)
    warnings = traitlets.List(traitlets.Unicode()).tag(sync=True)
    messages = traitlets.List(traitlets.Unicode()).tag(sync=True)
    stepper = traitlets.Dict({"enabled": False}).tag(sync=True)

    def __init__(self, describe=None, on_action=None, **kwargs) -> None:
        kwargs.setdefault("direction", direction())
        kwargs.setdefault("texts", widget_texts())
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
            self.direction, self.texts = direction(), widget_texts()  # the language may have changed since
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


def widget_texts() -> dict[str, str]:
    """The front end's labels (buttons, their titles, the legend's and outline's headings), by key: the ``widget.*``
    messages of the catalogue, without the prefix."""
    return {key.removeprefix("widget."): msg(key) for key in catalogue("en") if key.startswith("widget.")}


def stale_sentences(snap: Snapshot) -> list[str]:
    """One sentence per saved tensor changed in place since saved: what the next backward will do, and why."""
    return [msg("lab.stale_sentence", node=node.name, name=saved.name, saved=saved.saved_version,
                now=saved.current_version) for node, saved in snap.stale()]


def _saved_rows(node: NodeRecord) -> list[dict]:
    sections = []
    for saved in node.saved:
        if not saved.is_tensor:
            text = msg("lab.python_scalar", value=saved.text) if saved.python_scalar else saved.text
            sections.append({"title": f"_saved_{saved.name}", "rows": [[msg("lab.detail.value"), text]]})
            continue
        rows = [["shape", shape_text(saved.shape)], ["dtype", saved.dtype or "?"],
                [msg("lab.detail.version_at_save"), saved.saved_version],
                [msg("lab.detail.version_now"), saved.current_version], [msg("lab.detail.is_output"), saved.is_output]]
        if saved.released:
            rows.append([msg("lab.detail.state"), msg("lab.detail.freed")])
        elif saved.packed:
            rows.append([msg("lab.detail.value"), msg("lab.detail.packed")])
        elif saved.value is not None:
            rows.append([msg("lab.detail.value"), saved.value.text()])
        title = f"_saved_{saved.name}" + (msg("lab.detail.stale_title") if saved.stale else "")
        sections.append({"title": title, "rows": rows, "stale": saved.stale})
    return sections


def node_details(snap: Snapshot, selected: str, extra: dict | None = None) -> dict:
    """What to show for a clicked node or tensor: saved tensors with values, versions, hooks, grads."""
    if selected in snap.nodes:
        node = snap.nodes[selected]
        kind = msg("lab.detail.leaf_node") if node.kind == "leaf" else msg("lab.detail.op_node")
        general = [[msg("lab.detail.kind"), kind], [msg("lab.detail.inputs"), len(node.next)],
                   [msg("lab.detail.outputs"), ", ".join(f"{shape_text(shape)} {dtype}" for shape, dtype in node.outputs)]]
        if node.wraps:
            general.append([msg("lab.detail.wraps"), node.wraps])
        if node.freed:
            general.append([msg("lab.detail.state"), msg("lab.detail.freed")])
        for hook, names in node.hooks.items():
            general.append([hook_kind(hook), ", ".join(names)])
        for key, value in node.metadata.items():
            general.append([f"metadata[{key!r}]", module_title(snap, value) if key == "module" else value])
        sections = [{"title": "", "rows": general}]
        title = node.name
        if node.variable is not None:
            leaf = snap.tensors[node.variable]
            title = msg("lab.detail.into", node=node.name, leaf=leaf.name or msg("lab.detail.an_unnamed_leaf"))
            sections.append({"title": msg("lab.detail.leaf"), "rows": [
                [msg("lab.detail.name"), leaf.name or msg("lab.detail.unnamed")], ["shape", shape_text(leaf.shape)],
                ["dtype", leaf.dtype],
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
            rows.append([msg("lab.detail.view_of"), snap.tensors[tensor.base].name or msg("lab.a_tensor")])
        return {"title": tensor.name or msg("lab.tensor"), "sections": [{"title": "", "rows": rows}]}
    return {}
