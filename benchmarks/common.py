"""What every workload shares: thread settings, identical initial weights, timing, and the adapters
that let one piece of code drive both autograd_lab and PyTorch (``import autograd_lab as al`` reads
like ``import torch``)."""

from __future__ import annotations

import os
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
               "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS")


def limit_threads(threads: int) -> None:
    """Set the BLAS/OpenMP thread count; only effective before NumPy (or torch) is first imported."""
    for var in THREAD_VARS:
        os.environ[var] = str(threads)


def timed(fn, reps: int, warmup: int) -> list[float]:
    """Seconds taken by each of ``reps`` calls of ``fn()``, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def init_linear(rng, fan_in: int, fan_out: int, dtype) -> tuple:
    """PyTorch's default Linear init, drawn from NumPy so every library starts from the same numbers."""
    bound = 1.0 / fan_in ** 0.5
    weight = rng.uniform(-bound, bound, size=(fan_out, fan_in)).astype(dtype)
    bias = rng.uniform(-bound, bound, size=(fan_out,)).astype(dtype)
    return weight, bias


def init_conv(rng, c_in: int, c_out: int, k: int, dtype) -> tuple:
    bound = 1.0 / (c_in * k * k) ** 0.5
    weight = rng.uniform(-bound, bound, size=(c_out, c_in, k, k)).astype(dtype)
    bias = rng.uniform(-bound, bound, size=(c_out,)).astype(dtype)
    return weight, bias


def import_lib(name: str):
    """The module a workload drives: ``autograd_lab`` or ``torch`` (single-threaded), or ``None`` for numpy."""
    if name == "torch":
        import torch
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        return torch
    if name == "autograd_lab":
        import autograd_lab
        return autograd_lab
    return None


def as_tensor(T, array, requires_grad: bool = False):
    """A tensor of library ``T`` holding a copy of ``array`` (same dtype)."""
    t = T.tensor(array)
    return t.requires_grad_() if requires_grad else t


def to_numpy(t):
    """A tensor of either library as a NumPy array."""
    return t.detach().numpy()
