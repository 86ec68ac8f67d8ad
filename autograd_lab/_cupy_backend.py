"""The CUDA backend: CuPy behind :class:`~autograd_lab.backend.ArrayBackend`.

This module is imported only when a ``cuda`` device is first asked for (``al.zeros(3, device='cuda')``,
``t.cuda()``, ``al.cuda.is_available()``), so that ``import autograd_lab`` never imports CuPy. CuPy's
arrays refuse implicit conversion to NumPy (``__array__`` raises ``TypeError``) and its functions refuse
NumPy arrays, so every move between host and device below is an explicit copy.
"""

from __future__ import annotations

from .backend import ArrayBackend

INSTALL_HINT = ("install CuPy with the 'gpu' extra: pip install 'autograd-lab[gpu]' (CUDA 12; see the README for "
                "other CUDA versions)")


class _Sampler:
    """A ``cupy.random.RandomState`` answering to NumPy ``Generator`` method names (what creation.py calls)."""

    __slots__ = ("_state",)

    def __init__(self, state) -> None:
        self._state = state

    def random(self, size):
        return self._state.random_sample(size)

    def standard_normal(self, size):
        return self._state.standard_normal(size)

    def normal(self, loc, scale, size):
        return self._state.normal(loc, scale, size)

    def uniform(self, low, high, size):
        return self._state.uniform(low, high, size)

    def integers(self, low, high, size):
        return self._state.randint(low, high, size)

    def permutation(self, n):
        return self._state.permutation(n)

    def poisson(self, lam, size):
        return self._state.poisson(lam, size)


class CupyBackend(ArrayBackend):
    """CUDA devices through CuPy (``cupy.ndarray`` data; ``.get()`` copies to the host)."""

    type = "cuda"

    def __init__(self, cupy) -> None:
        self.cupy = cupy
        self.namespace = cupy
        self.array_types = (cupy.ndarray,)

    def index_of(self, array) -> int:
        return array.device.id

    def to_device(self, host, index: int):
        with self.cupy.cuda.Device(index):
            return self.cupy.asarray(host)

    def to_host(self, array):
        return array.get()

    def rng(self, seed: int, index: int):
        with self.cupy.cuda.Device(index):
            return _Sampler(self.cupy.random.RandomState(seed))

    def device_count(self) -> int:
        return int(self.cupy.cuda.runtime.getDeviceCount())

    def current_device(self) -> int:
        return int(self.cupy.cuda.runtime.getDevice())

    def synchronize(self, index: int | None = None) -> None:
        self.cupy.cuda.Device(self.current_device() if index is None else index).synchronize()

    def device_name(self, index: int) -> str:
        name = self.cupy.cuda.runtime.getDeviceProperties(index)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def memory_allocated(self, index: int) -> int:
        with self.cupy.cuda.Device(index):  # the default pool keeps one account per device
            return int(self.cupy.get_default_memory_pool().used_bytes())


def load() -> CupyBackend:
    """Import CuPy and check that it sees a GPU; a RuntimeError says what is missing."""
    try:
        import cupy
    except ImportError as exc:
        raise RuntimeError(f"the cuda device needs CuPy, which is not installed ({exc}): {INSTALL_HINT}. "
                           "Use device='cpu' meanwhile.") from None
    entry = CupyBackend(cupy)
    try:
        count = entry.device_count()
    except Exception as exc:  # CUDARuntimeError without a driver or a device
        raise RuntimeError(f"CuPy is installed but found no usable NVIDIA GPU ({exc}); use device='cpu'.") from None
    if count == 0:
        raise RuntimeError("CuPy is installed but found no NVIDIA GPU; use device='cpu'.")
    return entry
