"""What a profiler recorded: events, their averages per name, the table and the Chrome trace.

An event is one timed range: an op's forward (``aten::mul``), a backward node (``MulBackward0``) or a
``record_function`` block. Events nest (an op inside a ``record_function`` block, the ops a backward node
records under ``create_graph``), so each has a *total* time (start to end) and a *self* time (the total
less its children's totals). ``key_averages()`` groups events by name (and input shapes, if asked), and
``table()`` prints them with PyTorch's columns.
"""

from __future__ import annotations

import json
import os

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList"]


class FunctionEvent:
    """One timed range: ``name``, ``start_us``/``end_us`` (microseconds since the profiler started),
    ``input_shapes``, ``cpu_memory_usage`` (bytes of the arrays it created), its ``cpu_children`` and
    ``cpu_parent``."""

    def __init__(self, id: int, name: str, start_us: float, thread: int, input_shapes=None,
                 is_user_annotation: bool = False, sequence_nr: int = -1) -> None:
        self.id = id
        self.name = name
        self.start_us = start_us
        self.end_us = start_us
        self.thread = thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.is_user_annotation = is_user_annotation
        self.sequence_nr = sequence_nr
        self.cpu_memory_usage = 0
        self.cpu_children: list = []
        self.cpu_parent = None
        self.count = 1

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        """Microseconds from start to end, children included."""
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        """Microseconds in this range itself: the total less the totals of the ranges nested in it."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(child.cpu_memory_usage for child in self.cpu_children)

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg:
    """The events of one name (and input shapes, when grouped by them) added up: ``count``,
    ``cpu_time_total``, ``self_cpu_time_total``, ``cpu_time`` (the average total), memory."""

    def __init__(self, key: str = "", input_shapes=None) -> None:
        self.key = key
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.is_user_annotation = False

    def add(self, event) -> FunctionEventAvg:
        if not self.key:
            self.key, self.input_shapes = event.key, event.input_shapes
        self.is_user_annotation = event.is_user_annotation
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        return self

    @property
    def cpu_time(self) -> float:
        """The average total time of one call, in microseconds."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events (or of averages) with PyTorch's ``key_averages``, ``table``, ``total_average`` and
    ``export_chrome_trace``."""

    def __init__(self, events=(), profile_memory: bool = False) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        """One :class:`FunctionEventAvg` per name (per name and input shapes with ``group_by_input_shape``),
        in the order the names first occur."""
        groups: dict = {}
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shape else event.key
            if key not in groups:  # (the shapes show only where they group: averages over shapes have none)
                groups[key] = FunctionEventAvg(event.key, event.input_shapes if group_by_input_shape else [])
            groups[key].add(event)
        return EventList(groups.values(), self._profile_memory)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for event in self:
            total.count += event.count
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The events as PyTorch prints them: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        (with ``profile_memory``) CPU Mem and Self CPU Mem, # of Calls, (with recorded shapes) Input Shapes.
        ``sort_by`` names a column's attribute (``"self_cpu_time_total"``, ``"cpu_time_total"``, ``"count"``...)."""
        events = [e for e in self if not top_level_events_only or getattr(e, "cpu_parent", None) is None]
        return _build_table(events, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
                            self._profile_memory, time_unit)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (JSON): open it at ``chrome://tracing`` or https://ui.perfetto.dev."""
        trace = [{"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.name,
                  "pid": os.getpid(), "tid": e.thread, "ts": e.start_us, "dur": e.cpu_time_total,
                  "args": {"Input Dims": e.input_shapes, "Sequence number": e.sequence_nr}} for e in self]
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace,
                       "traceName": os.fspath(path)}, f)


# -- the table -------------------------------------------------------------------------------------
def _format_time(us: float, unit: str | None = None) -> str:
    if unit == "s" or (unit is None and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _format_memory(nbytes: int) -> str:
    for size, unit in ((1024 ** 3, "GB"), (1024 ** 2, "MB"), (1024, "KB")):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _build_table(events, sort_by, row_limit, max_name_width, max_shapes_width, header, profile_memory,
                 time_unit) -> str:
    if not events:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by), reverse=True)
    total = sum(e.self_cpu_time_total for e in events)
    with_shapes = any(e.input_shapes for e in events)
    name_width = min(max(len(e.key) for e in events) + 4, max_name_width)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_width)
    columns = [("Name", name_width), ("Self CPU %", 12), ("Self CPU", 12), ("CPU total %", 12), ("CPU total", 12),
               ("CPU time avg", 12)]
    columns += [("CPU Mem", 12), ("Self CPU Mem", 12)] if profile_memory else []
    columns += [("# of Calls", 12)] + ([("Input Shapes", shapes_width)] if with_shapes else [])
    line = "  ".join("-" * width for _, width in columns) + "  "
    out = [] if header is None else ["=" * len(line), header]
    out += [line, "  ".join(title.rjust(width) for title, width in columns) + "  ", line]

    def percent(us: float) -> str:
        return f"{100 * us / total:.2f}%" if total > 0 else "0.00%"

    for event in events[:row_limit] if row_limit is not None and row_limit > 0 else events:
        cells = [_truncate(event.key, max_name_width), percent(event.self_cpu_time_total),
                 _format_time(event.self_cpu_time_total, time_unit), percent(event.cpu_time_total),
                 _format_time(event.cpu_time_total, time_unit),
                 _format_time(event.cpu_time_total / max(event.count, 1), time_unit)]
        if profile_memory:
            cells += [_format_memory(event.cpu_memory_usage), _format_memory(event.self_cpu_memory_usage)]
        cells.append(str(event.count))
        if with_shapes:
            cells.append(str(event.input_shapes)[:shapes_width])
        out.append("  ".join(cell.rjust(width) for cell, (_, width) in zip(cells, columns)) + "  ")
    out += [line, f"Self CPU time total: {_format_time(total, time_unit)}", ""]
    return "\n".join(out)


def _truncate(name: str, max_width: int) -> str:
    return name if len(name) < max_width - 3 else name[:max_width - 3] + "..."
