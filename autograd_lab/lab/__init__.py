"""The lab: the ``grad_fn`` graph drawn live in a notebook, and a backward pass taken one node at a time.

* ``draw(*tensors, model=None)``: the graph (op nodes with PyTorch's names, leaves, ``AccumulateGrad``,
  saved tensors with their version at save time beside the current one, hooks, ``retain_grad`` marks,
  ``.grad`` values). One reading direction everywhere: the output at the top, each arrow an edge of
  ``next_functions`` (the way backward sends gradients), the leaves at the bottom. Tensors carry their
  variable names, and parameters their paths (``net.fc1.weight``, or ``fc1.weight`` with ``model=net``).
  The result is a ``graphviz.Digraph`` (``.source``, ``.render()`` where ``dot`` exists) that shows as
  an interactive widget, and carries a static SVG, HTML and a text outline for where no widget runs.
* ``watch(*tensors_or_names)`` and ``%load_ext autograd_lab`` / ``%watch NAME``: redrawn after
  every cell; stale saved tensors are flagged in red with why the next backward will raise.
* ``step_backward(loss, gradient=None, retain_graph=False)``: Next / Back / Play / Pause / Reset and
  a slider over the engine's own step generator; run to the end, the ``.grad`` values equal
  ``backward()``'s. Every node keeps its place from one step to the next.
* Underneath: ``snapshot`` (graph -> plain records), ``scene`` (records -> what the drawing says),
  ``layout`` and ``svg`` (a layered layout in pure Python, written as SVG), ``dot`` (the same as DOT).

Why this front end: an ``anywidget`` of our own. Python lays the graph out and writes the SVG, so the
widget, the image stored in a notebook and the docs show the same drawing, no ``dot`` executable is
needed, and the stepper can keep every node in place. The widget's small ES module (no network, no
CDN) fits the SVG to the cell with zoom and pan, restyles it for JupyterLab's light and dark themes,
keeps the stepper's current node in view, and sends node clicks and stepper buttons back to Python,
which answers with the node's details and the next step's drawing. Its source is ``lab-frontend/``;
``make lab-bundle`` rebuilds ``static/widget.js``.

Every word a drawing, caption, legend, details panel or button shows comes from the message catalogue
(:mod:`autograd_lab.i18n`): ``set_language("zh")`` (here, or ``al.course.set_language``) makes the lab speak Chinese.

The lab uses only the core's public introspection and the engine's step generator; the core never
imports it.
"""

from __future__ import annotations

from ..i18n import get_language, set_language
from .dot import escape, to_dot
from .draw import Drawing, draw, outline
from .live import Watch, load_ipython_extension, unwatch, watch
from .scene import DotOptions, Scene, StepOverlay, build_scene
from .snapshot import NodeRecord, SavedRecord, Snapshot, TensorRecord, snapshot
from .stepper import Stepper, step_backward
from .svg import to_svg

__all__ = ["draw", "watch", "unwatch", "step_backward", "snapshot", "to_dot", "outline", "escape", "Drawing",
           "Watch", "Stepper", "Snapshot", "NodeRecord", "SavedRecord", "TensorRecord", "DotOptions", "StepOverlay",
           "Scene", "build_scene", "to_svg", "load_ipython_extension", "set_language", "get_language"]
