"""``al.backends.mkldnn``: PyTorch's oneDNN (MKL-DNN) switches. autograd_lab does not call oneDNN, so
``is_available()`` is ``False``; the flags are settable, checked as PyTorch checks them, and have no effect."""

from __future__ import annotations

import sys

from ._flags import make_flag_module, set_flags

__all__ = ["is_available", "flags", "enabled", "deterministic", "allow_tf32"]

enabled = True  # as PyTorch's defaults
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """``False``: autograd_lab does not use oneDNN."""
    return False


def flags(enabled: bool = False, deterministic: bool = False, allow_tf32: bool = True):
    """Set the flags inside a ``with`` block (PyTorch's defaults: each flag not given is set to them)."""
    return set_flags(sys.modules[__name__], enabled=enabled, deterministic=deterministic, allow_tf32=allow_tf32)


make_flag_module(__name__, "mkldnn", ("enabled", "deterministic", "allow_tf32"))
