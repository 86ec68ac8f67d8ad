"""Warnings shown once per process, as PyTorch shows the ones its C++ raises with ``TORCH_WARN_ONCE``.

Such a warning is shown the first time its situation arises in the process, wherever that is, and never
again: Python's own filters (which dedupe per line of code) are not what stops the second one. The first
one is gone even when a filter ignored it or turned it into an error. ``al.set_warn_always(True)``, as
``torch.set_warn_always(True)``, shows every one of them each time instead (and uses up no "once"), which
is also how a test sees the warning whatever ran before it in the process::

    al.set_warn_always(True)
    try:
        ...  # each float() of a tensor that requires grad warns here
    finally:
        al.set_warn_always(False)
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

__all__ = ["set_warn_always", "is_warn_always_enabled", "OnceWarning", "SCALAR_CONVERSION", "user_stacklevel"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class _Always:
    enabled = False  # (the process's setting, as PyTorch's: one flag for every thread)


def set_warn_always(b: bool) -> None:
    """``True``: show every once-per-process warning each time its situation arises; ``False`` (the default):
    once per process. As ``torch.set_warn_always``."""
    _Always.enabled = bool(b)


def is_warn_always_enabled() -> bool:
    """What ``set_warn_always`` last set (``False`` by default)."""
    return _Always.enabled


def user_stacklevel() -> int:
    """The ``stacklevel`` of a warning that points at the first caller outside autograd_lab (the user's
    ``backward()``, module call or ``al.tensor([...])``, however deep the library's own frames are)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class OnceWarning:
    """One warning, shown the first time ``warn`` is called in the process (each time with ``set_warn_always``)."""

    def __init__(self, message: str, category: type[Warning] = UserWarning):
        self.message, self.category = message, category
        self._lock = threading.Lock()  # (two threads converting at once: one of them warns)
        self._shown = False

    def warn(self, stacklevel: int = 1) -> None:
        """Warn, if this is the first time in the process; ``stacklevel`` as ``warnings.warn`` counts it, from
        the caller of ``warn``."""
        if not _Always.enabled:
            with self._lock:
                if self._shown:
                    return
                self._shown = True
        warnings.warn(self.message, self.category, stacklevel=stacklevel + 1)


SCALAR_CONVERSION = OnceWarning(
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first.")
"""``float(t)`` (and so ``complex(t)``, ``math.exp(t)``, ``'%f' % t``, ``al.tensor([t])``) of a tensor that requires
grad, in grad mode. The number is cut off from the graph: what is computed from it is a constant to ``backward``. ``t.item()``,
``int(t)``, ``bool(t)``, ``t.tolist()`` and ``f'{t:.2f}'`` do not warn, as in PyTorch, nor does anything
under ``no_grad``."""
