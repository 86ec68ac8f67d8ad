"""``al.backends.cudnn``: PyTorch's cuDNN switches. autograd_lab never calls cuDNN (its convolutions are
array code, on NumPy or CuPy), so ``is_available()`` is ``False`` and ``version()`` is ``None``; the flags
are settable, checked as PyTorch checks them, and have no effect.

``benchmark`` (PyTorch: try several convolution algorithms and keep the fastest) and ``deterministic``
(PyTorch: only deterministic algorithms) would change nothing here anyway: there is one algorithm per op,
and it is deterministic.
"""

from __future__ import annotations

import sys

from ._flags import make_flag_module, set_flags

__all__ = ["is_available", "version", "is_acceptable", "flags", "enabled", "benchmark", "deterministic", "allow_tf32",
           "benchmark_limit"]

enabled = True  # as PyTorch's defaults
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    """``False``: autograd_lab does not use cuDNN."""
    return False


def version() -> None:
    """cuDNN's version: ``None``, as PyTorch answers without cuDNN."""
    return None


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take ``tensor``: never, here."""
    return False


def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
          allow_tf32: bool = True):
    """Set the flags inside a ``with`` block (PyTorch's defaults: each flag not given is set to them)."""
    return set_flags(sys.modules[__name__], enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
                     deterministic=deterministic, allow_tf32=allow_tf32)


make_flag_module(__name__, "cudnn", ("enabled", "benchmark", "deterministic", "allow_tf32"))
