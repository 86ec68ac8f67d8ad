"""``repr`` of tensors, laid out as PyTorch prints them, so learners see familiar output.

Floats print with 4 decimals (``0.1000``), as ``1.`` when every value is whole, and in scientific
notation when magnitudes span more than 1000x, exceed 1e8 or fall below 1e-4. Large tensors are
summarised with ``...``; lines wrap at 80 characters.
"""

from __future__ import annotations

import numpy as np

from . import backend

LINE_WIDTH = 80
THRESHOLD = 1000
EDGE_ITEMS = 3
PRECISION = 4


def _float_formatter(values: np.ndarray):
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    int_mode = bool(np.all(finite == np.ceil(finite))) if finite.size else True
    sci_mode = False
    if nonzero.size:
        low, high = float(nonzero.min()), float(nonzero.max())
        ratio_large = high / low > 1000.0 or high > 1.0e8
        sci_mode = ratio_large if int_mode else (ratio_large or low < 1.0e-4)

    def fmt(v: float) -> str:
        if not np.isfinite(v):
            return str(float(v))  # nan, inf, -inf
        if sci_mode:
            return f"{v:.{PRECISION}e}"
        if int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    return fmt


def _formatter(values: np.ndarray):
    kind = values.dtype.kind
    if kind == "f":
        base = _float_formatter(values.astype(np.float64))
    elif kind == "b":
        base = str
    else:
        base = lambda v: str(int(v))  # noqa: E731
    shown = _summarised(values)
    width = max((len(base(v)) for v in shown.ravel()), default=1)
    return lambda v: base(v).rjust(width)


def _summarised(values: np.ndarray) -> np.ndarray:
    """The elements that will actually be printed (edges only for large tensors)."""
    if values.size <= THRESHOLD:
        return values
    for axis in range(values.ndim):
        if values.shape[axis] > 2 * EDGE_ITEMS:
            head = np.take(values, range(EDGE_ITEMS), axis=axis)
            tail = np.take(values, range(values.shape[axis] - EDGE_ITEMS, values.shape[axis]), axis=axis)
            values = np.concatenate([head, tail], axis=axis)
    return values


def format_array(values: np.ndarray, prefix: str) -> str:
    """The bracketed body of a tensor's repr (without ``tensor(`` and the suffixes)."""
    if values.size == 0:
        return "[]"
    if values.ndim == 0:
        return _formatter(values.reshape(1))(values.item())
    fmt = _formatter(values)
    width = max(len(fmt(v)) for v in _summarised(values).ravel())
    return _nested(values, fmt, width, len(prefix), values.size > THRESHOLD)


def _nested(values: np.ndarray, fmt, width: int, indent: int, summarize: bool) -> str:
    """PyTorch's layout: a fixed number of elements per line, `` ...`` and ``...`` where rows are left out."""
    cut = summarize and values.shape[0] > 2 * EDGE_ITEMS
    rows = [*range(EDGE_ITEMS), None, *range(values.shape[0] - EDGE_ITEMS, values.shape[0])] if cut else \
        range(values.shape[0])
    if values.ndim == 1:
        per_line = max(1, (LINE_WIDTH - indent) // (width + 2))
        items = [" ..." if i is None else fmt(values[i]) for i in rows]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i is None else _nested(values[i], fmt, width, indent + 1, summarize) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_tensor(tensor, prefix: str = "tensor(") -> str:
    data = tensor._data
    host = data if type(data) is np.ndarray else data.get()
    body = format_array(host, prefix)
    suffixes = []
    if host.size == 0 and host.shape != (0,):
        suffixes.append(f"size={tuple(host.shape)}")
    dev = tensor.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    dt = backend.from_np(host.dtype)
    if dt not in (backend.get_default_dtype(), backend.int64, backend.bool_):
        suffixes.append(f"dtype={dt!r}")
    try:
        grad_fn = tensor.grad_fn
    except RuntimeError:  # a view whose history can no longer be rebuilt (PyTorch prints the same)
        suffixes.append("grad_fn=<Invalid>")
        grad_fn = None
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
    elif tensor._requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body + "".join(", " + s for s in suffixes)
    if tensor._fw_grad is not None:  # a dual tensor (forward-mode AD): its tangent, on a line of its own if long
        tangent = f"tangent={tensor._fw_grad!r}"
        last_line = len(text) - text.rfind("\n") + 1
        text += (",\n" + " " * len(prefix) if last_line + len(tangent) + 2 > LINE_WIDTH else ", ") + tangent
    return text + ")"
