"""``al.autograd.profiler``: time every op, every backward node and every ``record_function`` block.

::

    with al.autograd.profiler.profile(record_shapes=True) as prof:
        with al.autograd.profiler.record_function("forward"):
            loss = model(x).pow(2).mean()
        loss.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))

What is timed, on the thread that opened the profiler: each differentiable op's forward (``Op.apply``, named
as PyTorch names the op: ``aten::mul``, ``aten::addmm``; an in-place ``x.mul_(y)`` runs and shows as
``aten::mul``), each backward node the engine runs (``MulBackward0``, ``AccumulateGrad``: the node's hooks and
its derivative formulas), and each ``record_function`` block. Tensor factories (``al.randn``...) are not ops
and are not timed. Times are the host's wall clock (``time.perf_counter_ns``); on a GPU the ops only queue
their kernels, so synchronize before reading much into them. ``profile_memory=True`` adds the bytes of the
arrays each op or node created (its outputs; a view creates none): allocations only, frees are not tracked.
A range's memory is that of the ranges inside it. ``with_stack``, ``with_flops`` and ``with_modules`` are
accepted and add nothing.

**How it hooks in.** The profiler open in a thread is that thread's ``_state.active`` (per-thread state, as
grad mode is). ``Op.apply`` and the engine's loop read it once per op and per node: ``None`` (no profiler)
costs that one read and nothing else, so the op path stays one path. When it is set, ``Op.apply`` hands the
call to the recorder, which opens an event, clears ``active`` while the op runs through ``Op.apply`` again
(no op runs inside another op's forward, so nothing is lost), and closes the event; the engine hands each
node to the recorder the same way, leaving ``active`` set, so that the ops a node records under
``create_graph=True`` nest inside it.
"""

from __future__ import annotations

import functools
import re
import threading
import time

from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg", "op_name",
           "record_op_names"]


class _State(threading.local):
    active = None  # the recorder of the profiler open in this thread (read by Op.apply and the engine's loop)


_state = _State()


def op_name(cls) -> str:
    """The name PyTorch's profiler gives an op: ``MulBackward0`` -> ``aten::mul``, ``LogSoftmaxBackward0`` ->
    ``aten::log_softmax``, ``MaxPool2DWithIndicesBackward0`` -> ``aten::max_pool2d_with_indices``."""
    base = re.sub(r"Backwards?\d*$", "", cls.__name__)
    return "aten::" + re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z0-9])(?=[A-Z][a-z])", "_", base).lower()


class _Recorder:
    """The events of one profiling session in one thread, and the stack of those still open."""

    def __init__(self, record_shapes: bool, profile_memory: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.events: list = []
        self.open_events: list = []
        self.thread = threading.get_ident()
        self.origin = time.perf_counter_ns()

    def _now(self) -> float:
        return (time.perf_counter_ns() - self.origin) / 1000

    def begin(self, name: str, input_shapes=None, user: bool = False, sequence_nr: int = -1) -> FunctionEvent:
        event = FunctionEvent(len(self.events), name, self._now(), self.thread, input_shapes, user, sequence_nr)
        if self.open_events:
            event.cpu_parent = self.open_events[-1]
            event.cpu_parent.cpu_children.append(event)
        self.open_events.append(event)
        self.events.append(event)
        return event

    def end(self, event: FunctionEvent, nbytes: int = 0) -> None:
        """Close ``event`` (and any range an exception left open inside it). ``nbytes``: what it allocated
        itself, when nothing timed inside it did (the ranges inside count their own)."""
        now = self._now()
        while self.open_events:
            top = self.open_events.pop()
            top.end_us = now
            top.cpu_memory_usage = sum(child.cpu_memory_usage for child in top.cpu_children)
            if top is event:
                break
        if not event.cpu_children:
            event.cpu_memory_usage = nbytes

    def op(self, cls, inputs: tuple, params: dict):
        """``cls.apply(*inputs, **params)``, timed (``Op.apply`` calls this while the recorder is active)."""
        event = self.begin(op_name(cls), _shapes(inputs) if self.record_shapes else None)
        _state.active = None  # the op runs through Op.apply once more, unobserved
        result = None
        try:
            result = cls.apply(*inputs, **params)
            return result
        finally:
            _state.active = self
            self.end(event, _created_bytes(result, cls.is_view) if self.profile_memory else 0)

    def node(self, run_node, node, *args):
        """The engine's ``run_node(node, *args)``, timed; ops recorded inside (``create_graph``) nest in it."""
        event = self.begin(node.name(), sequence_nr=node._sequence_nr if node._sequence_nr != float("inf") else -1)
        step = None
        try:
            step = run_node(node, *args)
            return step
        finally:
            self.end(event, _created_bytes(step.grad_inputs, False) if self.profile_memory and step else 0)

    def finish(self) -> list:
        while self.open_events:
            self.end(self.open_events[-1])
        return self.events


def _shapes(inputs) -> list:
    return [list(x._data.shape) if hasattr(x, "_data") else [] for x in inputs]


def _created_bytes(result, is_view: bool) -> int:
    if is_view or result is None:
        return 0
    items = result if isinstance(result, (tuple, list)) else (result,)
    return sum(int(x._data.nbytes) for x in items if hasattr(x, "_data"))


class _Session:
    """Starts recording in this thread and stops it; what PyTorch's two ``profile`` classes share."""

    def __init__(self, record_shapes: bool, profile_memory: bool) -> None:
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.recorder = None

    def start(self) -> None:
        if _state.active is not None:
            raise RuntimeError("Profiler is already enabled on this thread [autograd_lab] one profiler at a time per "
                               "thread: close the open one first")
        self.recorder = _state.active = _Recorder(self.record_shapes, self.profile_memory)

    def stop(self) -> EventList:
        recorder, self.recorder = self.recorder, None
        if _state.active is recorder:
            _state.active = None
        return EventList(recorder.finish(), self.profile_memory)


class profile:
    """PyTorch's ``torch.autograd.profiler.profile``: a context manager that records what runs inside it (see the
    module docstring). ``enabled=False`` records nothing; ``use_cuda``/``use_device`` are accepted (host time
    only is measured)."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True, experimental_config=None,
                 acc_events: bool = False, custom_trace_id_callback=None) -> None:
        self.enabled = enabled
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self._session = _Session(record_shapes, profile_memory)
        self.function_events = None

    def __enter__(self) -> profile:
        if self.enabled:
            self._session.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self.function_events = self._session.stop()

    def _check_finished(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self) -> EventList:
        """Every event recorded, in the order they started."""
        return self._check_finished()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """The events averaged per name (per name and input shapes with ``group_by_input_shape``)."""
        return self._check_finished().key_averages(group_by_input_shape)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs) -> str:
        return self._check_finished().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        return self._check_finished().total_average()

    def export_chrome_trace(self, path: str) -> None:
        self._check_finished().export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finished().self_cpu_time_total

    def __str__(self) -> str:
        return self.table()


class record_function:
    """A named range in the profile: ``with record_function("attention"): ...`` (or as a decorator). Its total
    time is the block's; its self time excludes the ops timed inside it. Without a profiler open in this thread,
    it does nothing."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._recorder = self._event = None

    def __enter__(self) -> record_function:
        recorder = _state.active
        if recorder is not None:
            self._recorder, self._event = recorder, recorder.begin(self.name, user=True)
        return self

    def __exit__(self, *exc) -> None:
        if self._event is not None:
            self._recorder.end(self._event)
            self._recorder = self._event = None

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return func(*args, **kwargs)
        return wrapper


class _NameRecorder:
    """Appends the name of each op and node to a list, and hands them on to the recorder it replaced (if any)."""

    def __init__(self, names: list, outer) -> None:
        self.names, self.outer = names, outer

    def op(self, cls, inputs: tuple, params: dict):
        self.names.append(op_name(cls))
        _state.active = self.outer
        try:
            return self.outer.op(cls, inputs, params) if self.outer is not None else cls.apply(*inputs, **params)
        finally:
            _state.active = self

    def node(self, run_node, node, *args):
        self.names.append(node.name())
        return self.outer.node(run_node, node, *args) if self.outer is not None else run_node(node, *args)

    def begin(self, name: str, *args, **kwargs):
        return self.outer.begin(name, *args, **kwargs) if self.outer is not None else None

    def end(self, event, nbytes: int = 0) -> None:
        if self.outer is not None and event is not None:
            self.outer.end(event, nbytes)


class record_op_names:
    """Within this context, the names of the ops and nodes run in this thread are appended to ``names`` (a
    profiler open around it still sees them). ``checkpoint(debug=True)`` lists them in its errors."""

    def __init__(self, names: list) -> None:
        self.names = names

    def __enter__(self) -> list:
        self._outer = _state.active
        _state.active = _NameRecorder(self.names, self._outer)
        return self.names

    def __exit__(self, *exc) -> None:
        _state.active = self._outer
