"""``step_backward(loss)``: walk a backward pass one node at a time, driving the engine's own generator.

Each Next pulls one :class:`~autograd_lab.autograd.engine.BackwardStep` from
``autograd_lab.autograd.prepare_backward(..., trace=True)``, the same generator that ``backward()``
drains, so running the stepper to the end leaves exactly the ``.grad`` values ``backward()`` would.
Every step is recorded as a :class:`Frame`; Back, Reset and the slider move through the recorded
frames (the engine itself never runs a node twice), and moving past the last recorded frame pulls
more steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..autograd import prepare_backward
from ..i18n import join, msg
from ..nn.module import Module
from ..tensor import Tensor
from .dot import scene_to_dot
from .draw import Drawing
from .names import caller_scope, type_modules
from .scene import DotOptions, StepOverlay, build_scene, short_value
from .snapshot import Snapshot, snapshot, summarize
from .snapshot import _hook_name as hook_name
from .svg import layout_scene, to_svg

__all__ = ["Frame", "Stepper", "step_backward"]


def _text(grad) -> str:
    """A gradient as the drawing and the caption show it: at most three numbers."""
    return "None" if grad is None else short_value(summarize(grad._data))


def _full(grad) -> str:
    """A gradient as the details panel shows it: every value of a small tensor, or shape and norm."""
    return "None" if grad is None else summarize(grad._data).text()


@dataclass
class Frame:
    """What one backward step did, as plain text ready to show."""

    index: int
    node: str  # snapshot node id
    name: str
    grads_in: list[str]
    grads_out: dict[int, str]  # input index -> gradient sent along that edge
    hooks: list[str]
    accumulated: tuple[str, str] | None  # leaf .grad (before, after)
    freed: list[str]
    executed: bool = True
    edges: list = field(default_factory=list)
    leaf: str | None = None  # AccumulateGrad: the leaf it accumulates into ("w", or "leaf (3,) float32")
    rows: list = field(default_factory=list)  # [label, full value] rows for the details panel

    def caption(self, total: int) -> str:
        title = self.name if self.leaf is None else msg("lab.detail.into", node=self.name, leaf=self.leaf)
        parts = [msg("lab.step.title", index=self.index + 1, total=total, title=title),
                 msg("lab.step.grad_in", grads=", ".join(self.grads_in))]
        if self.grads_out:
            parts.append(msg("lab.step.out", grads=", ".join(f"[{i}] {g}" for i, g in sorted(self.grads_out.items()))))
        if self.accumulated:
            parts.append(msg("lab.step.accumulated", before=self.accumulated[0], after=self.accumulated[1]))
        if self.hooks:
            parts.append(msg("lab.step.hooks_fired", hooks=join(self.hooks)))
        if self.freed:
            parts.append(msg("lab.step.freed", names=join(self.freed)))
        return msg("lab.step.separator").join(parts)


class Stepper:
    """A backward pass taken one node at a time (see the module docstring)."""

    def __init__(self, loss: Tensor, gradient=None, retain_graph: bool = False, *, names=None,
                 options: DotOptions | None = None, interval_ms: int = 700, model: Module | None = None) -> None:
        self.loss = loss
        self.snapshot: Snapshot = snapshot(loss, names=names, model=model)  # the graph as it was before backward
        self._steps = prepare_backward((loss,), None if gradient is None else (gradient,), retain_graph=retain_graph,
                                       trace=True)
        self.total = len(self.snapshot.nodes)
        self.frames: list[Frame] = []
        self.index = 0  # frames shown: 0 is before backward, k is after the k-th step
        self.options = options or DotOptions()
        self.interval_ms = interval_ms
        self._widget = None
        self._layout = None

    # -- driving the engine -----------------------------------------------------------------------
    def _pull(self) -> bool:
        """Run the engine one more node; False once backward is complete."""
        try:
            step = next(self._steps)
        except StopIteration:
            self.total = len(self.frames)
            return False
        nid = self.snapshot.ids_by_object[id(step.node)]
        node = self.snapshot.nodes[nid]
        accumulated = None
        if step.accumulated is not None:
            _, before, after = step.accumulated
            accumulated = (_text(before), _text(after))
        sent = [i for i in range(len(step.grad_inputs)) if node.next[i][0] is not None]
        grads_out = {i: _text(step.grad_inputs[i]) for i in sent}
        hooks = [f"{msg(f'lab.step.fired.{kind}')} {hook_name(fn)}" for kind, fn in step.hooks_fired]
        rows = [[msg("lab.step.row.grad_in"), ", ".join(_full(g) for g in step.grad_outputs)]]
        rows += [[msg("lab.step.row.grad_out", index=i), _full(step.grad_inputs[i])] for i in sent]
        if step.accumulated is not None:
            rows += [[msg("lab.step.row.grad_before"), _full(step.accumulated[1])],
                     [msg("lab.step.row.grad_after"), _full(step.accumulated[2])]]
        rows += [[msg("lab.step.row.hook_fired"), h] for h in hooks]
        rows += [[msg("lab.step.row.freed"), f] for f in step.freed]
        self.frames.append(Frame(len(self.frames), nid, node.name, [_text(g) for g in step.grad_outputs], grads_out,
                                 hooks, accumulated, list(step.freed), step.executed, leaf=self._leaf_label(node),
                                 rows=rows))
        return True

    def _leaf_label(self, node) -> str | None:
        """How the caption names an ``AccumulateGrad``'s leaf: its variable name, else its shape and dtype."""
        record = self.snapshot.tensors.get(node.variable) if node.kind == "leaf" and node.variable else None
        if record is None:
            return None
        return record.name or msg("lab.step.leaf_label", shape=record.shape, dtype=record.dtype)  # shape as (3,)

    def seek(self, index: int) -> int:
        """Show the state after ``index`` steps, running the engine as far as needed."""
        index = max(0, int(index))
        while len(self.frames) < index and self._pull():
            pass
        self.index = min(index, len(self.frames))
        self._refresh()
        return self.index

    def next(self) -> int:
        return self.seek(self.index + 1)

    def back(self) -> int:
        return self.seek(self.index - 1)

    def reset(self) -> int:
        """Show the start again (the recorded steps replay; backward does not run twice)."""
        return self.seek(0)

    def run(self) -> Stepper:
        """Run backward to the end (the same result as ``loss.backward()``)."""
        while self._pull():
            pass
        self.index = len(self.frames)
        self._refresh()
        return self

    @property
    def done(self) -> bool:
        return self.index >= self.total and self.index == len(self.frames)

    # -- showing ----------------------------------------------------------------------------------
    def overlay(self) -> StepOverlay:
        """The highlights of the current frame: its node, its gradients, what was freed so far."""
        overlay = StepOverlay()
        shown = self.frames[:self.index]
        for frame in shown:
            overlay.done.add(frame.node)
            if frame.freed:
                overlay.freed.setdefault(frame.node, []).extend(frame.freed)
            if frame.accumulated:
                overlay.accumulated[frame.node] = frame.accumulated
        if shown:
            current = shown[-1]
            overlay.current = current.node
            overlay.grads_in[current.node] = ", ".join(current.grads_in)
            overlay.edge_grads = {(current.node, i): g for i, g in current.grads_out.items()}
            overlay.hooks[current.node] = current.hooks
        return overlay

    def caption(self) -> str:
        """What the current step did (before the first: how many nodes there are), true wherever it is read."""
        if self.index == 0:
            return msg("lab.step.before", total=self.total)
        text = self.frames[self.index - 1].caption(self.total)
        return text + (msg("lab.step.complete") if self.done else "")

    def dot(self) -> str:
        """The drawing at this step as DOT text (for Graphviz users; the widget shows :meth:`svg`)."""
        graph = Drawing("autograd")
        scene_to_dot(graph, build_scene(self.snapshot, self.options, self.overlay()), self.options)
        return graph.source

    @property
    def layout(self):
        """The positions of every box, computed once: no node moves from one step to the next."""
        if self._layout is None:
            self._layout = layout_scene(build_scene(self.snapshot, self.options, StepOverlay()))
        return self._layout

    def svg(self, static: bool = False) -> str:
        """The drawing at this step as SVG, on the stepper's fixed layout."""
        return to_svg(build_scene(self.snapshot, self.options, self.overlay()), self.layout, static=static)

    def _details(self, selected: str) -> dict:
        from .widget import node_details
        extra: dict = {}
        for frame in self.frames[:self.index]:
            extra.setdefault(frame.node, []).append((msg("lab.step.at_step", index=frame.index + 1), frame.rows))
        return node_details(self.snapshot, selected, extra)

    def _state(self) -> dict:
        # the widget shows its caption beside its buttons: only there can the reader press Next
        caption = self.caption() + (msg("lab.step.press_next") if self.index == 0 else "")
        return {"enabled": True, "index": self.index, "total": self.total, "caption": caption,
                "current": self.frames[self.index - 1].node if self.index else "", "interval_ms": self.interval_ms}

    def _on_action(self, message: dict) -> None:
        action = message.get("action")
        if action == "next":
            self.next()
        elif action == "back":
            self.back()
        elif action == "reset":
            self.reset()
        elif action == "seek":
            self.seek(int(message.get("index", 0)))

    @property
    def widget(self):
        if self._widget is None:
            from .draw import outline
            from .widget import GraphWidget
            scene = build_scene(self.snapshot, self.options, self.overlay())
            self._widget = GraphWidget(describe=self._details, on_action=self._on_action, svg=self.svg(),
                                       stepper=self._state(), outline=outline(self.snapshot),
                                       legend=[[key, text] for key, text in scene.legend], messages=scene.messages)
            self._widget.edges = len(scene.links)
        return self._widget

    def _refresh(self) -> None:
        if self._widget is not None:
            with self._widget.hold_sync():
                self._widget.svg = self.svg()
                self._widget.stepper = self._state()
                if self._widget.selected:
                    self._widget.details = self._details(self._widget.selected)

    def __repr__(self) -> str:
        # also the text of a stored notebook, read where no kernel runs (the docs site): no button to point at
        how = msg("lab.step.how_to_run") if self.index == 0 else ""
        return f"<Stepper {self.caption()}{how}>"

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs) -> dict:
        from .draw import outline, static_bundle
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        text = repr(self) + "\n" + outline(self.snapshot)
        return {**bundle, **static_bundle(self.svg(static=True), text, msg("lab.describe_stepper", caption=self.caption()))}


def step_backward(loss: Tensor, gradient=None, retain_graph: bool = False, *, names=None, model: Module | None = None,
                  max_depth: int | None = None, max_nodes: int = 400, interval_ms: int = 700) -> Stepper:
    """A stepper over ``loss.backward(gradient, retain_graph)``: Next, Back, Play/Pause, Reset and a slider.

    Tensors and parameters are named as :func:`~autograd_lab.lab.draw` names them (``names``, ``model``,
    or the variables where it is called), and the captions use those names.
    """
    found = {}
    if names is None:
        names, found = caller_scope(modules=model is None)
    stepper = Stepper(loss, gradient, retain_graph, names=names, model=model, interval_ms=interval_ms,
                      options=DotOptions(max_depth=max_depth, max_nodes=max_nodes))
    type_modules(stepper.snapshot, found)
    return stepper
