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
from ..tensor import Tensor
from .dot import DotOptions, StepOverlay, build_dot
from .draw import Drawing, caller_names
from .snapshot import Snapshot, snapshot, summarize
from .snapshot import _hook_name as hook_name

__all__ = ["Frame", "Stepper", "step_backward"]


def _text(grad) -> str:
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

    def caption(self, total: int) -> str:
        title = self.name if self.leaf is None else f"{self.name} into {self.leaf}"
        parts = [f"step {self.index + 1}/{total}: {title}", "grad in " + ", ".join(self.grads_in)]
        if self.grads_out:
            parts.append("out " + ", ".join(f"[{i}] {g}" for i, g in sorted(self.grads_out.items())))
        if self.accumulated:
            parts.append(f".grad {self.accumulated[0]} → {self.accumulated[1]}")
        if self.hooks:
            parts.append("hooks fired: " + ", ".join(self.hooks))
        if self.freed:
            parts.append("freed: " + ", ".join(self.freed))
        return " · ".join(parts)


class Stepper:
    """A backward pass taken one node at a time (see the module docstring)."""

    def __init__(self, loss: Tensor, gradient=None, retain_graph: bool = False, *, names=None,
                 options: DotOptions | None = None, interval_ms: int = 700) -> None:
        self.loss = loss
        self.snapshot: Snapshot = snapshot(loss, names=names)  # the graph as it was before backward
        self._steps = prepare_backward((loss,), None if gradient is None else (gradient,), retain_graph=retain_graph,
                                       trace=True)
        self.total = len(self.snapshot.nodes)
        self.frames: list[Frame] = []
        self.index = 0  # frames shown: 0 is before backward, k is after the k-th step
        self.options = options or DotOptions()
        self.interval_ms = interval_ms
        self._widget = None

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
        grads_out = {i: _text(g) for i, g in enumerate(step.grad_inputs) if node.next[i][0] is not None}
        self.frames.append(Frame(len(self.frames), nid, node.name, [_text(g) for g in step.grad_outputs], grads_out,
                                 [f"{kind} {hook_name(fn)}" for kind, fn in step.hooks_fired], accumulated,
                                 list(step.freed), step.executed, leaf=self._leaf_label(node)))
        return True

    def _leaf_label(self, node) -> str | None:
        """How the caption names an ``AccumulateGrad``'s leaf: its variable name, else its shape and dtype."""
        record = self.snapshot.tensors.get(node.variable) if node.kind == "leaf" and node.variable else None
        if record is None:
            return None
        return record.name or f"leaf {record.shape} {record.dtype}"

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
        if self.index == 0:
            return f"before backward: {self.total} nodes to run. Press Next."
        text = self.frames[self.index - 1].caption(self.total)
        return text + (" · backward complete" if self.done else "")

    def dot(self) -> str:
        graph = Drawing("autograd")
        build_dot(graph, self.snapshot, self.options, self.overlay())
        return graph.source

    def _details(self, selected: str) -> dict:
        from .widget import node_details
        extra: dict = {}
        for frame in self.frames[:self.index]:
            rows = [["grad in", ", ".join(frame.grads_in)]]
            rows += [[f"grad out [{i}]", g] for i, g in sorted(frame.grads_out.items())]
            if frame.accumulated:
                rows += [[".grad before", frame.accumulated[0]], [".grad after", frame.accumulated[1]]]
            rows += [["hook fired", h] for h in frame.hooks] + [["freed", f] for f in frame.freed]
            extra.setdefault(frame.node, []).append((f"at step {frame.index + 1}", rows))
        return node_details(self.snapshot, selected, extra)

    def _state(self) -> dict:
        return {"enabled": True, "index": self.index, "total": self.total, "caption": self.caption(),
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
            from .widget import GraphWidget
            self._widget = GraphWidget(describe=self._details, on_action=self._on_action, dot=self.dot(),
                                       stepper=self._state())
        return self._widget

    def _refresh(self) -> None:
        if self._widget is not None:
            self._widget.dot = self.dot()
            self._widget.stepper = self._state()
            if self._widget.selected:
                self._widget.details = self._details(self._widget.selected)

    def __repr__(self) -> str:
        return f"<Stepper {self.caption()}>"

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs) -> dict:
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        return {**bundle, "text/plain": repr(self)}


def step_backward(loss: Tensor, gradient=None, retain_graph: bool = False, *, names=None, max_depth: int | None = None,
                  max_nodes: int = 400, interval_ms: int = 700) -> Stepper:
    """A stepper over ``loss.backward(gradient, retain_graph)``: Next, Back, Play/Pause, Reset and a slider."""
    if names is None:
        names = caller_names()
    return Stepper(loss, gradient, retain_graph, names=names, options=DotOptions(max_depth=max_depth, max_nodes=max_nodes),
                   interval_ms=interval_ms)
