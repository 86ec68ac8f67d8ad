"""``al.backends.opt_einsum``: PyTorch orders the contractions of ``einsum`` with the ``opt_einsum`` package
when it is installed. ``is_available()`` says whether it is; ``enabled`` and ``strategy`` are settable
(``enabled`` defaults to ``is_available()``, ``strategy`` to ``'auto'`` then, as in PyTorch) and do not
change results."""

from __future__ import annotations

import importlib.util
import sys

from ._flags import make_flag_module, set_flags

__all__ = ["is_available", "get_opt_einsum", "flags", "enabled", "strategy"]


def is_available() -> bool:
    """Whether the ``opt_einsum`` package can be imported."""
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The ``opt_einsum`` module if it is installed, else ``None``."""
    return importlib.import_module("opt_einsum") if is_available() else None


enabled = is_available()
strategy = "auto" if enabled else None


def flags(enabled: bool | None = None, strategy: str | None = None):
    """Set ``enabled`` and ``strategy`` inside a ``with`` block (``None`` leaves a flag as it is)."""
    return set_flags(sys.modules[__name__], enabled=enabled, strategy=strategy)


make_flag_module(__name__, "opt_einsum", ("enabled",))
