"""The lab: the ``grad_fn`` graph drawn live in a notebook, and a backward pass taken one node at a time.

* ``draw(*tensors)``: the graph (op nodes with PyTorch's names, leaves, ``AccumulateGrad``, saved
  tensors with their version at save time beside the current one, hooks, ``retain_grad`` marks,
  ``.grad`` values). The result is a ``graphviz.Digraph`` (``.source``, ``.render()`` where ``dot``
  exists) that shows as an interactive widget; without a kernel, a static SVG or a text outline.
* ``watch(*tensors_or_names)`` and ``%load_ext autograd_lab`` / ``%watch NAME``: redrawn after
  every cell; stale saved tensors are flagged in red with why the next backward will raise.
* ``step_backward(loss, gradient=None, retain_graph=False)``: Next / Back / Play / Pause / Reset and
  a slider over the engine's own step generator; run to the end, the ``.grad`` values equal
  ``backward()``'s.
* ``snapshot`` (graph -> plain records) and ``to_dot`` (records -> DOT) underneath.

Why this front end: an ``anywidget`` of our own whose ES module bundles ``@viz-js/viz`` (Graphviz
compiled to WebAssembly, inlined in the bundle). ``pip install`` alone is enough (no ``dot``
executable, no network, no CDN: it works offline and on Binder), and, unlike ``graphviz-anywidget``,
which renders well but sends nothing back, our module sends node clicks and stepper buttons to
Python, which answers with the node's details and the next step's drawing. Stepping re-lays out the
whole graph each time; for graphs of a lesson's size that takes milliseconds in the browser, so no
animation library is needed. The bundle's source is ``lab-frontend/`` and ``make lab-bundle``
rebuilds ``static/widget.js`` with pinned versions.

The lab uses only the core's public introspection and the engine's step generator; the core never
imports it.
"""

from __future__ import annotations

from .dot import DotOptions, StepOverlay, escape, to_dot
from .draw import Drawing, draw, outline
from .live import Watch, load_ipython_extension, unwatch, watch
from .snapshot import NodeRecord, SavedRecord, Snapshot, TensorRecord, snapshot
from .stepper import Stepper, step_backward

__all__ = ["draw", "watch", "unwatch", "step_backward", "snapshot", "to_dot", "outline", "escape", "Drawing",
           "Watch", "Stepper", "Snapshot", "NodeRecord", "SavedRecord", "TensorRecord", "DotOptions", "StepOverlay",
           "load_ipython_extension"]
