"""``repr`` of tensors, laid out as PyTorch prints them, so learners see the output their tutorials show.

The rules are PyTorch's (``torch/_tensor_str.py``), so ``tests/core/test_tensor_repr.py`` can compare
the two character for character:

* one width for every element: the widest of the *nonzero finite* values (so ``nan``, ``inf`` and zeros
  never widen a column), right-aligned;
* floats print with ``precision`` decimals (``0.1000``), as ``1.`` when every nonzero finite value is
  whole, and in scientific notation (``1.0000e-05``) when the largest magnitude is over 1000 times the
  smallest or above 1e8, or (not all whole) the smallest is below 1e-4;
* over ``threshold`` elements, only ``edgeitems`` rows at each end of every dim are shown, with ``...``
  between, and the formatting is decided by those shown values alone;
* rows hold as many elements as fit in ``linewidth``; the suffixes (``dtype=``, ``grad_fn=``...) go on a
  new line when the last line would pass it.

``set_printoptions`` changes the options, as ``torch.set_printoptions`` does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np

from . import backend

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "format_tensor"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()  # process-wide, as PyTorch's: printing is never on the op path

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    """Set how tensors print, as ``torch.set_printoptions``: ``precision`` (decimals, 4), ``threshold``
    (elements before summarising, 1000), ``edgeitems`` (rows kept at each end, 3), ``linewidth`` (80),
    ``profile`` (``'default'``, ``'short'`` or ``'full'``, then the others on top), ``sci_mode``
    (``True``/``False`` forces scientific notation on or off; ``None``, the default, chooses)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode  # (not given: back to automatic, as in PyTorch)


def get_printoptions() -> dict:
    """The current print options, as a dict that ``set_printoptions(**options)`` takes back."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """``with printoptions(precision=2): ...``: the options inside the block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# -- one width and one notation for every element ----------------------------------------------
class _Formatter:
    """How every element of one tensor prints: PyTorch's choice of notation, and one width for all."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max([len(self._plain(v)) for v in flat.tolist()], default=1)
            return
        shown = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if shown.size:
            magnitudes = np.abs(shown)
            low, high = float(magnitudes.min()), float(magnitudes.max())
            self.int_mode = bool(np.all(shown == np.ceil(shown)))
            automatic = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
            self.sci_mode = automatic if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode
            self.width = max(len(self._number(v)) for v in shown.tolist())

    @staticmethod
    def _plain(value) -> str:
        return str(value)

    def _number(self, value: float) -> str:
        """A float as this tensor's notation writes it, before padding."""
        if self.sci_mode:
            return f"{value:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            return f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        return f"{value:.{PRINT_OPTS.precision}f}"

    def format(self, value) -> str:
        text = self._number(value) if self.floating else self._plain(value)
        return text.rjust(self.width)


# -- the nested brackets -------------------------------------------------------------------------
def _summarized(values: np.ndarray) -> np.ndarray:
    """The elements a summarised repr shows: ``edgeitems`` at each end of every dim."""
    edge = PRINT_OPTS.edgeitems
    for axis in range(values.ndim):
        if values.shape[axis] > 2 * edge:
            keep = list(range(edge)) + list(range(values.shape[axis] - edge, values.shape[axis]))
            values = np.take(values, keep, axis=axis)
    return values


def _rows(length: int, summarize: bool) -> list:
    """The indices shown along a dim, ``None`` where ``...`` stands for the rest."""
    edge = PRINT_OPTS.edgeitems
    if summarize and length > 2 * edge:
        return [*range(edge), None, *range(length - edge, length)]
    return list(range(length))


def _vector(values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    per_line = max(1, (PRINT_OPTS.linewidth - indent) // (formatter.width + 2))
    if summarize and not PRINT_OPTS.edgeitems:
        items = ["..."]
    else:
        items = [" ..." if i is None else formatter.format(values[i].item()) for i in _rows(len(values), summarize)]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    parts = ["..." if i is None else _nested(values[i], indent + 1, summarize, formatter)
             for i in _rows(values.shape[0], summarize)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_array(values: np.ndarray, indent: int) -> str:
    """The bracketed body of a tensor's repr (without ``tensor(`` and the suffixes)."""
    if values.size == 0:
        return "[]"
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    summarize = values.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized(values) if summarize else values)
    return _nested(values, indent, summarize, formatter)


# -- tensor(...) with its suffixes ------------------------------------------------------------------
def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """``text, suffix, ...)``: a suffix that would pass the line width starts a new line.

    A suffix is measured as PyTorch's would be (``dtype=torch.float64`` is 3 characters longer than
    ``dtype=al.float64``), so that the lines break where they break in PyTorch's output."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        length = len(suffix) + suffix.count("al.") * (len("torch.") - len("al."))
        if last_line + length + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + length
        else:
            parts.append(", " + suffix)
            last_line += length + 2
    return "".join(parts) + ")"


def _device_suffix(tensor) -> list[str]:
    dev, default = tensor.device, backend.get_default_device()
    if dev.type != default.type or (dev.type == "cuda" and (dev.index or 0) != (default.index or 0)):
        return [f"device='{dev}'"]
    return []


def format_tensor(tensor, prefix: str = "tensor(") -> str:
    data = tensor._data
    host = data if type(data) is np.ndarray else data.get()
    indent = len(prefix)
    suffixes = _device_suffix(tensor)
    dt = backend.from_np(host.dtype)
    if host.size == 0:
        if host.ndim != 1:
            suffixes.append(f"size={tuple(host.shape)}")
        if dt is not backend.get_default_dtype():  # (no element to tell an int64 tensor from a float one)
            suffixes.append(f"dtype={dt!r}")
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(host.shape)}")
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
    if tensor._fw_grad is not None:  # a dual tensor (forward-mode AD): its tangent too
        suffixes.append(f"tangent={tensor._fw_grad!r}")
    return _with_suffixes(prefix + format_array(host, indent), suffixes, indent)
