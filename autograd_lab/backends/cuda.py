"""``al.backends.cuda``: PyTorch's CUDA switches, for the optional CuPy backend.

``is_built()`` is whether that backend can be used at all (CuPy is installed, or a CUDA backend is
registered): ``al.cuda.is_available()`` (a GPU is there too) implies it. ``matmul.allow_tf32`` and its
siblings are settable and checked as PyTorch checks them; they change nothing, because the CuPy backend's
float32 matrix products never use TF32 (autograd_lab leaves CuPy's ``CUPY_TF32`` off).
"""

from __future__ import annotations

import importlib.util

from .. import backend as _backend

__all__ = ["is_built", "matmul", "cuBLASModule"]


def is_built() -> bool:
    """Whether the CUDA backend can be used: CuPy is installed, or a ``cuda`` backend is registered."""
    return _backend.loaded_backend("cuda") is not None or importlib.util.find_spec("cupy") is not None


class cuBLASModule:
    """``al.backends.cuda.matmul``: the cuBLAS flags (``allow_tf32``...). An unknown name is an error, as in
    PyTorch, so that a misspelt flag does not pass silently."""

    _bool_names = ("allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self) -> None:
        object.__setattr__(self, "allow_tf32", False)
        object.__setattr__(self, "allow_fp16_reduced_precision_reduction", True)
        object.__setattr__(self, "allow_bf16_reduced_precision_reduction", True)
        object.__setattr__(self, "_precision", "highest")

    def __setattr__(self, name: str, value) -> None:
        if name not in self._bool_names and name != "_precision":
            raise AttributeError(f"Unknown attribute {name}")
        if name == "allow_tf32" and not isinstance(value, bool):
            raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__} [autograd_lab] "
                               "write True or False")
        if name.endswith("reduced_precision_reduction") and not isinstance(value, bool):
            raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str):
        raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()

