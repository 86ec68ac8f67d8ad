"""``al.cuda``: what PyTorch's ``torch.cuda`` offers for the optional CuPy backend.

Nothing here imports CuPy until a function is called; without CuPy, or without an NVIDIA GPU,
``is_available()`` is ``False`` (it never raises) and ``device_count()`` is 0.
"""

from __future__ import annotations

from . import backend, creation

__all__ = ["is_available", "device_count", "current_device", "get_device_name", "memory_allocated", "synchronize",
           "manual_seed", "manual_seed_all"]


def _backend():
    return backend.backend_for("cuda")


def is_available() -> bool:
    """Whether tensors can be put on ``'cuda'``: CuPy is installed and sees at least one GPU."""
    try:
        return _backend().device_count() > 0
    except Exception:  # CuPy missing or broken, no driver, no device: all mean "not available"
        return False


def device_count() -> int:
    """How many CUDA devices there are (0 without CuPy or a GPU)."""
    return _backend().device_count() if is_available() else 0


def current_device() -> int:
    """The index of the device ``'cuda'`` means (``'cuda'`` without an index is ``cuda:<this>``)."""
    return _backend().current_device()


def _index(device) -> int:
    """The device index ``device`` names (an int, ``'cuda:1'``, a ``device``); the current one's for ``None``
    or ``'cuda'``."""
    if isinstance(device, int):
        return device
    if device is not None:
        dev = backend.device(device)
        if dev.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {dev} [autograd_lab] al.cuda: pass 'cuda', 'cuda:N' or N")
        if dev.index is not None:
            return dev.index
    return current_device()


def get_device_name(device=None) -> str:
    """The GPU's name, as its driver reports it (``'NVIDIA H100 80GB HBM3'``); the current device's by default."""
    return _backend().device_name(_index(device))


def memory_allocated(device=None) -> int:
    """Bytes of GPU memory held by arrays now (tensors' data, saved tensors included), on the current device by
    default. CuPy keeps freed blocks in its memory pool for reuse; those are not counted, as PyTorch's caching
    allocator's are not, so ``nvidia-smi`` shows more."""
    return _backend().memory_allocated(_index(device))


def synchronize(device=None) -> None:
    """Wait until the work queued on a CUDA device is done (for timing: kernels run asynchronously)."""
    _backend().synchronize(_index(device))


def manual_seed(seed: int) -> None:
    """Seed the generator of the current CUDA device (ignored, as in PyTorch, when CUDA is absent)."""
    if is_available():
        creation.default_generator_for(backend.device("cuda", current_device())).manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed the generators of every CUDA device (ignored when CUDA is absent)."""
    for index in range(device_count()):
        creation.default_generator_for(backend.device("cuda", index)).manual_seed(seed)
