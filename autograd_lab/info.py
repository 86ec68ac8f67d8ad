"""What a dtype can hold (``al.finfo``, ``al.iinfo``, with PyTorch's fields) and the thread setting
(``al.get_num_threads``, ``al.set_num_threads``)."""

from __future__ import annotations

import ctypes
import functools
import os
import threading

import numpy as np

from . import backend

__all__ = ["finfo", "iinfo", "get_num_threads", "set_num_threads"]


def _dtype_of(kind: str, dtype):
    if dtype is None:
        if kind == "finfo":
            return backend.get_default_dtype()
        raise TypeError("iinfo() missing 1 required positional argument: 'type'")
    if not isinstance(dtype, backend.dtype):
        raise TypeError(f"{kind}(): argument 'type' (position 1) must be al.dtype, not {type(dtype).__name__}")
    return dtype


class finfo:
    """The limits of a floating dtype, as ``torch.finfo``: ``bits``, ``eps`` (the gap above 1), ``max``, ``min``,
    ``tiny`` and ``smallest_normal`` (the smallest positive normal number), ``resolution`` (10 to the minus the
    decimal digits the dtype keeps) and ``dtype`` (its name). Without a dtype: the default dtype's."""

    def __init__(self, type=None) -> None:  # noqa: A002 - PyTorch's parameter name
        dt = _dtype_of("finfo", type)
        if not dt.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            f"'torch.finfo' [autograd_lab] {dt!r} is an integer type: use al.iinfo({dt!r})")
        info = np.finfo(dt.np_dtype)
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = dt.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))


class iinfo:
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min`` and ``dtype`` (its name)."""

    def __init__(self, type) -> None:  # noqa: A002 - PyTorch's parameter name
        dt = _dtype_of("iinfo", type)
        if dt is backend.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo [autograd_lab] a bool holds False and True only")
        if dt.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            f"'torch.iinfo' [autograd_lab] {dt!r} is a floating type: use al.finfo({dt!r})")
        info = np.iinfo(dt.np_dtype)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), dt.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))


# -- threads -------------------------------------------------------------------------------------
_BLAS_NAMES = ("scipy_openblas_{}_num_threads64_", "scipy_openblas_{}_num_threads", "openblas_{}_num_threads64_",
               "openblas_{}_num_threads")


@functools.cache
def _openblas():
    """The ``(get, set)`` thread functions of the OpenBLAS that NumPy loaded, or None (another BLAS, not Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line})
    except OSError:
        return None
    for path in paths:
        lib = ctypes.CDLL(path)
        for name in _BLAS_NAMES:
            if hasattr(lib, name.format("get")) and hasattr(lib, name.format("set")):
                return getattr(lib, name.format("get")), getattr(lib, name.format("set"))
    return None


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on Linux)
        return os.cpu_count() or 1


_threads = {"count": None}  # the process-wide setting, as PyTorch's (None: not set)
_threads_lock = threading.Lock()


def get_num_threads() -> int:
    """The number of threads NumPy's math library (OpenBLAS) uses for the CPU's matrix products; where that cannot
    be asked, the number set with ``set_num_threads``, or the cores this process may run on."""
    blas = _openblas()
    with _threads_lock:
        return int(blas[0]()) if blas is not None else (_threads["count"] or _cores())


def set_num_threads(int) -> None:  # noqa: A002 - PyTorch's parameter name
    """Set the number of threads for the CPU's matrix products, for the whole process as in PyTorch (it sets the
    threads of the OpenBLAS NumPy loaded; the element-wise ops of NumPy run on one thread anyway)."""
    count = int
    if isinstance(count, bool) or not isinstance(count, (type(1), np.integer)):
        raise TypeError(f"set_num_threads(): argument 'int' (position 1) must be int, not {type(count).__name__}")
    if count <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer [autograd_lab] got {count}; pass 1 or more")
    blas = _openblas()
    with _threads_lock:
        _threads["count"] = type(1)(count)
        if blas is not None:
            blas[1](ctypes.c_int(_threads["count"]))
