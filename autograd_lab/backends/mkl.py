"""``al.backends.mkl``: whether the BLAS that does autograd_lab's matrix products (NumPy's) is Intel's MKL."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """Whether NumPy was built against MKL (wheels from PyPI use OpenBLAS: ``False``)."""
    import numpy
    config = getattr(numpy, "__config__", None)
    try:
        blas = config.CONFIG["Build Dependencies"]["blas"]["name"]
    except (AttributeError, KeyError, TypeError):
        return False
    return "mkl" in str(blas).lower()
