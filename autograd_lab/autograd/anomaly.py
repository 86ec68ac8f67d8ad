"""Anomaly mode: find the forward operation behind a failing backward.

While enabled, every recorded node keeps the traceback of the forward call that created it. During
backward, a node whose gradients contain NaN raises, and any error raised inside a node's backward
carries that forward traceback *in the exception itself* (PyTorch only warns it, a warning that is easy to
miss; it is warned here too), so the learner sees which line of their code built the failing node.
"""

from __future__ import annotations

import functools
import os
import threading
import traceback
import warnings

from ..backend import namespace_of, np

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _AnomalyState(threading.local):
    """Per thread: whether anomaly detection is on, and whether it checks for NaN."""

    enabled = False
    check_nan = True


_state = _AnomalyState()


def is_anomaly_enabled() -> bool:
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _state.check_nan


class detect_anomaly:
    """Context manager and decorator that enables anomaly detection (see the module doc)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.", UserWarning, stacklevel=2,
        )

    def __enter__(self) -> None:
        self._previous = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = True, bool(self.check_nan)

    def __exit__(self, *exc) -> None:
        _state.enabled, _state.check_nan = self._previous

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off, as a call or as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        for position, (name, value) in enumerate((("enabled", mode), ("check_nan", check_nan)), 1):
            if not isinstance(value, bool):
                raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {position}) must be bool, not "
                                f"{type(value).__name__} [autograd_lab] pass True or False")
        self._previous = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = mode, check_nan

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        _state.enabled, _state.check_nan = self._previous


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_forward_trace(node) -> None:
    """Remember where in the user's code ``node`` was created (called by ops in anomaly mode)."""
    frames = [f for f in traceback.extract_stack() if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR)]
    node._get_extras().anomaly_trace = "".join(traceback.format_list(frames))


def forward_trace(node) -> str | None:
    extras = node._extras
    return None if extras is None else extras.anomaly_trace


def run_backward(node, grads: tuple, checked) -> list:
    """A node's backward in anomaly mode (``checked`` is the engine's check of what it returns): its gradients
    checked for NaN, NumPy's warnings about them silenced (the check reports them, as an error), and an error
    raised in it carrying the traceback of the forward call that made the node."""
    try:
        with np.errstate(all="ignore"):
            grad_inputs = checked(node, node._backward(grads))
        if _state.check_nan:
            check_nan(node, grad_inputs)
    except Exception as exc:
        annotate_error(exc, node)
        raise
    return grad_inputs


def annotate_error(exc: BaseException, node) -> None:
    """Attach the forward traceback of ``node`` to an error raised during its backward; warn it too, as PyTorch
    does (its only report): the error itself carries it here, where it cannot be missed."""
    trace = forward_trace(node)
    message = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
    message += trace if trace else "  (no traceback recorded: the node was created before anomaly mode was enabled)\n"
    warnings.warn(message, UserWarning, stacklevel=2)
    if hasattr(exc, "add_note"):  # Python >= 3.11: shown under the error
        exc.add_note(message)
    elif exc.args and isinstance(exc.args[0], str):
        exc.args = (f"{exc.args[0]}\n{message}",) + exc.args[1:]


def check_nan(node, grads) -> None:
    """Raise if any gradient ``node`` produced contains NaN (anomaly mode with ``check_nan``)."""
    for i, g in enumerate(grads):
        if g is not None and g._data.dtype.kind == "f":
            if bool(namespace_of(g._data).isnan(g._data).any()):
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
