"""``al.backends``: PyTorch's ``torch.backends``, answering truthfully for autograd_lab.

Scripts written for PyTorch check and set backend flags before they train::

    device = "cuda" if al.cuda.is_available() else "mps" if al.backends.mps.is_available() else "cpu"
    al.backends.cudnn.benchmark = True

Each submodule exists so that such lines run unchanged, and says what is true here:

* :mod:`~autograd_lab.backends.cuda`: ``is_built()`` is whether the CuPy backend can be used at all
  (``al.cuda.is_available()`` implies it); ``matmul.allow_tf32`` and its siblings are settable.
* :mod:`~autograd_lab.backends.cudnn`, :mod:`~autograd_lab.backends.mkldnn`: autograd_lab calls neither
  library, so ``is_available()`` is ``False``; their flags (``enabled``, ``benchmark``, ``deterministic``...)
  are settable, checked as PyTorch checks them, and change nothing.
* :mod:`~autograd_lab.backends.mps`: no Apple GPU backend, ``is_available()`` and ``is_built()`` are ``False``.
* :mod:`~autograd_lab.backends.mkl`: whether NumPy's BLAS is Intel's MKL.
* :mod:`~autograd_lab.backends.opt_einsum`: whether the ``opt_einsum`` package is installed.

No flag changes a result: NumPy's float32 matrix products are plain float32 (never TF32), CuPy's are too
(autograd_lab leaves CuPy's ``CUPY_TF32`` off), and every op is deterministic on the CPU.
"""

from __future__ import annotations

import warnings

from . import cuda, cudnn, mkl, mkldnn, mps, opt_einsum

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "opt_einsum", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled"]

_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    """PyTorch's ``torch.set_float32_matmul_precision``: ``'highest'`` turns ``cuda.matmul.allow_tf32`` off,
    ``'high'`` and ``'medium'`` turn it on. It changes no result here (see the module docstring)."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    cuda.matmul.allow_tf32 = precision != "highest"
    cuda.matmul._precision = precision


def get_float32_matmul_precision() -> str:
    """The precision last set (``'highest'`` by default; ``'high'`` once ``cuda.matmul.allow_tf32`` is on)."""
    if not cuda.matmul.allow_tf32:
        return "highest"
    return cuda.matmul._precision if cuda.matmul._precision != "highest" else "high"


class _Determinism:
    mode = False
    warn_only = False


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """PyTorch's ``torch.use_deterministic_algorithms``: recorded, and true already; every op here has one
    algorithm, and on the CPU it gives the same bits on every run."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms expects a bool, but got {type(mode).__name__}")
    _Determinism.mode, _Determinism.warn_only = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """What ``use_deterministic_algorithms`` last set (``False`` by default, as in PyTorch)."""
    return _Determinism.mode
