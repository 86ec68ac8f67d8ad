"""``al.profiler``: PyTorch's ``torch.profiler`` on autograd_lab's recorder (:mod:`autograd_lab.autograd.profiler`).

::

    from autograd_lab.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

A ``schedule`` with ``prof.step()`` records some steps of a training loop and hands each recorded cycle to
``on_trace_ready`` (``tensorboard_trace_handler(dir)`` writes it as a Chrome trace file). What is timed, and
how the recorder hooks into the op path at the cost of one per-thread read, is explained in
:mod:`autograd_lab.autograd.profiler`. ``ProfilerActivity.CUDA`` is accepted: the host's time is measured, not
the device's.
"""

from __future__ import annotations

import enum
import os
import socket
import time

from ..autograd.profiler import _Session, record_function
from ..autograd.profiler_util import EventList

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 2
    XPU = 3
    MTIA = 4
    HPU = 5
    PrivateUse1 = 6


class ProfilerAction(enum.Enum):
    """What the profiler does at a step of a ``schedule``."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0):
    """PyTorch's schedule: after ``skip_first`` steps, cycles of ``wait`` idle steps, ``warmup`` steps (not
    recorded) and ``active`` recorded steps, the last of which hands the cycle to ``on_trace_ready``;
    ``repeat`` cycles (0: until the profiler stops)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("Invalid profiler schedule arguments")

    def schedule_fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """PyTorch's ``torch.profiler.profile``: records while open (or, with a ``schedule``, at the steps it
    chooses: call ``prof.step()`` once per training step). ``key_averages()``, ``events()`` and
    ``export_chrome_trace()`` read the last recorded cycle."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None) -> None:
        self.activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self._session = _Session(record_shapes, profile_memory)
        self._events = None

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        self.current_action = self.schedule(self.step_num)
        if self.current_action in _RECORDING:
            self._session.start()

    def stop(self) -> None:
        if self._session.recorder is not None:
            self._finish_cycle()
        self.current_action = ProfilerAction.NONE

    def step(self) -> None:
        """Mark the end of a training step: the schedule decides what the next step does."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE and self._session.recorder is not None:
            self._finish_cycle()
        if self.current_action in _RECORDING and self._session.recorder is None:
            self._session.start()
        elif self.current_action not in _RECORDING and self._session.recorder is not None:
            self._events = self._session.stop()  # the cycle stopped early (a schedule that never saves)

    def _finish_cycle(self) -> None:
        self._events = self._session.stop()
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def events(self) -> EventList:
        if self._events is None:
            raise RuntimeError("Profiler didn't finish running [autograd_lab] read the events after the `with` block, "
                               "or after a step the schedule recorded")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path: str) -> None:
        self.events().export_chrome_trace(path)


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False):
    """An ``on_trace_ready`` that writes each recorded cycle to ``dir_name`` as
    ``<worker_name>.<time in ms>.pt.trace.json`` (TensorBoard's profiler plugin and Perfetto read it)."""
    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{int(time.time() * 1000)}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip
            with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as out:
                out.write(f.read())
            os.remove(path)
    return handler
