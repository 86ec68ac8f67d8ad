"""``al.backends.mps``: Apple's Metal GPUs. autograd_lab has no Metal backend (its devices are the CPU,
through NumPy, and NVIDIA GPUs, through CuPy), so both answers are ``False`` on every machine, and the usual
device line picks ``cuda`` or ``cpu``::

    device = "cuda" if al.cuda.is_available() else "mps" if al.backends.mps.is_available() else "cpu"
"""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether tensors can be put on ``'mps'``: never here."""
    return False


def is_built() -> bool:
    """Whether autograd_lab was built with a Metal backend: it was not."""
    return False
