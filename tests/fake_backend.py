"""A test double for the CUDA backend: an array type that is not NumPy's, posing as device ``cuda:0``.

``FakeArray`` wraps a NumPy array and behaves as a CuPy array does where autograd_lab could tell the
difference:

* its namespace (``__array_namespace__``, ``FAKE``) forwards to NumPy and wraps results again; 0-dim
  results are arrays, never NumPy scalars (as in CuPy);
* implicit conversion raises ``TypeError`` (``np.asarray(fake)``, as CuPy's ``__array__`` does), and so
  does handing a NumPy array (0-dim included) to its functions, operators or indexing;
* stricter than CuPy: NumPy functions called on it (``np.exp(fake)``) raise instead of dispatching, so
  an op that calls NumPy directly fails here rather than working by luck on a GPU;
* the only ways between host and device are explicit: ``FAKE.asarray(ndarray)`` and ``.get()``.

``fake_cuda()`` registers it as the backend of ``cuda`` (replacing CuPy, if loaded, until it exits), so
every CUDA code path of autograd_lab (``.cuda()``, ``.cpu()``, mixing devices, ``.numpy()``'s error,
gradients on the device, ``save_on_cpu``) runs in CI without a GPU. The ``device`` fixture runs a test
on the double and, where CuPy sees a GPU, on the real device too (those cases are marked ``cuda``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import operator
import types
import weakref

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab import backend, creation

IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array "
            "explicitly. [fake cuda backend]")


def _strict(value):
    """Unwrap FakeArrays (inside lists/tuples too); a NumPy array here is a host array reaching the device."""
    if type(value) is FakeArray:
        return value._a
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)} [fake cuda backend: a NumPy array was given to a device "
                        "operation; move it with xp.asarray or keep the data on the device]")
    if isinstance(value, (list, tuple)):
        return type(value)(_strict(v) for v in value)
    return value


def _wrap(value):
    """Wrap NumPy results: arrays and NumPy scalars become FakeArrays (CuPy returns 0-dim arrays)."""
    if isinstance(value, np.ndarray):
        return FakeArray(value)
    if isinstance(value, np.generic):
        return FakeArray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    if isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
        return [_wrap(v) for v in value]
    return value


class _Function:
    """A NumPy function or ufunc seen through the double: strict arguments, wrapped results."""

    __slots__ = ("_fn", "_transfers")

    def __init__(self, fn, transfers: bool = False) -> None:
        self._fn = fn
        self._transfers = transfers  # asarray/array: the explicit host -> device copy

    def __call__(self, *args, **kwargs):
        if self._transfers and args and isinstance(args[0], np.ndarray):
            args = (np.array(args[0]),) + tuple(_strict(a) for a in args[1:])
        else:
            args = tuple(_strict(a) for a in args)
        return _wrap(self._fn(*args, **{k: _strict(v) for k, v in kwargs.items()}))

    def __getattr__(self, name):  # ufunc methods (add.at, maximum.reduce) and attributes (nin)
        value = getattr(self._fn, name)
        return _Function(value) if callable(value) else value


class _Namespace:
    """NumPy (or one of its submodules) seen through the double."""

    _TRANSFERS = {"asarray", "array", "ascontiguousarray"}

    def __init__(self, module, name: str) -> None:
        self._module = module
        self.__name__ = name

    def __getattr__(self, name):
        if name == "ndarray":
            return FakeArray
        if name == "erf" and self._module is np:  # as cupyx.scipy.special.erf (NumPy has none)
            return lambda x: FakeArray(np.frompyfunc(math.erf, 1, 1)(_strict(x)).astype(x.dtype))
        if name == "as_strided":  # CuPy's signature: no subok / writeable
            return lambda x, shape=None, strides=None: FakeArray(
                np.lib.stride_tricks.as_strided(_strict(x), shape, strides))
        value = getattr(self._module, name)
        if isinstance(value, types.ModuleType):
            return _Namespace(value, f"{self.__name__}.{name}")
        if isinstance(value, type) or not callable(value):
            return value  # dtypes (FAKE.float64 is np.float64, as cupy.float64 is), constants
        return _Function(value, transfers=name in self._TRANSFERS)

    def __repr__(self) -> str:
        return f"<fake cuda namespace {self.__name__}>"


FAKE = _Namespace(np, "fake_cupy")


class _Device:
    id = 0

    def synchronize(self) -> None:
        """CuPy's ``Device.synchronize``: the double never queues work, so it returns at once."""


class _Pointer:
    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


# every FakeArray alive, by id (FakeArrays are unhashable, as CuPy's arrays are): the double's "device memory"
_LIVE: dict[int, weakref.ref] = {}


def _track(array) -> None:
    key = id(array)
    _LIVE[key] = weakref.ref(array, lambda _ref, key=key: _LIVE.pop(key, None))


def device_bytes() -> int:
    """Bytes of the memory blocks that live FakeArrays hold, each block once (views share their base's), as a
    memory pool counts what is in use."""
    blocks = {}
    for ref in list(_LIVE.values()):
        array = ref()
        if array is None:
            continue
        a = array._a
        while isinstance(a.base, np.ndarray):
            a = a.base
        blocks[id(a)] = a.nbytes
    return sum(blocks.values())


class FakeArray:
    """A device array of the double (see the module doc); ``._a`` is the NumPy array it wraps."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100

    def __init__(self, a: np.ndarray) -> None:
        self._a = a
        _track(self)

    # -- what CuPy arrays have that NumPy's differ on -----------------------------------------
    device = _Device()

    @property
    def data(self) -> _Pointer:
        return _Pointer(self._a.__array_interface__["data"][0])

    def get(self) -> np.ndarray:
        return self._a.copy()

    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise TypeError(f"numpy.{ufunc.__name__} was called on a fake cuda array: call it through the array's "
                        "namespace (xp) instead")

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError(f"numpy.{func.__name__} was called on a fake cuda array: call it through the array's "
                        "namespace (xp) instead")

    def __array_namespace__(self, api_version=None):
        return FAKE

    # -- everything else forwards to NumPy ----------------------------------------------------
    def __getattr__(self, name):
        if name.startswith("__"):  # no __array_interface__ & co: NumPy must not read the memory behind our back
            raise AttributeError(name)
        value = getattr(self._a, name)
        return _Function(value) if callable(value) else _wrap(value)

    def __getitem__(self, key):
        return _wrap(self._a[_strict(key)])

    def __setitem__(self, key, value) -> None:
        self._a[_strict(key)] = _strict(value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        return (_wrap(row) for row in self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return operator.index(self._a)

    def __repr__(self) -> str:
        return f"fake_cuda({self._a!r})"

    __hash__ = None


def _op(name):
    return getattr(operator, name if hasattr(operator, name) else name + "_")  # operator.and_, operator.or_


def _binary(name):
    op = _op(name)
    return lambda self, other: _wrap(op(self._a, _strict(other)))


def _reflected(name):
    op = _op(name)
    return lambda self, other: _wrap(op(_strict(other), self._a))


def _inplace(name):
    op = _op(name)

    def method(self, other):
        op(self._a, _strict(other))
        return self
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
              "lshift", "rshift"):
    setattr(FakeArray, f"__{_name}__", _binary(_name))
    setattr(FakeArray, f"__r{_name}__", _reflected(_name))
    setattr(FakeArray, f"__i{_name}__", _inplace(f"i{_name}"))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(FakeArray, f"__{_name}__", _binary(_name))
for _name in ("neg", "pos", "abs", "invert"):
    setattr(FakeArray, f"__{_name}__", (lambda op: lambda self: _wrap(op(self._a)))(getattr(operator, _name)))


class _Sampler:
    """NumPy's Generator on the double: results on the device, a stream of its own (as a GPU's differs)."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng([int(seed), 1])

    def __getattr__(self, name):
        method = getattr(self._rng, name)
        return lambda *args, **kwargs: FakeArray(np.asarray(method(*args, **kwargs)))


class FakeCudaBackend(backend.ArrayBackend):
    """The double registered as the ``cuda`` backend: one device, ``cuda:0``."""

    type = "cuda"
    namespace = FAKE
    array_types = (FakeArray,)

    def index_of(self, array) -> int:
        return 0

    def to_device(self, host, index: int):
        return FakeArray(np.array(host, copy=True))

    def to_host(self, array):
        return array._a.copy()

    def rng(self, seed: int, index: int):
        return _Sampler(seed)

    def device_count(self) -> int:
        return 1

    def synchronize(self, index: int | None = None) -> None:
        """The double computes eagerly (NumPy underneath): nothing is ever queued, so nothing to wait for."""
        self.synchronized = getattr(self, "synchronized", 0) + 1  # counted, so a test can see timers wait

    def device_name(self, index: int) -> str:
        return "fake CUDA device (autograd_lab's test double)"

    def memory_allocated(self, index: int) -> int:
        return device_bytes()


def _forget_cuda_generators() -> None:
    for key in [k for k in creation._device_generators if k[0] == "cuda"]:
        del creation._device_generators[key]


@contextlib.contextmanager
def fake_cuda():
    """Within this context, ``cuda`` is the double (whatever was registered before comes back after)."""
    previous = backend.register_backend(FakeCudaBackend(), "cuda")
    _forget_cuda_generators()
    try:
        yield
    finally:
        backend.register_backend(previous, "cuda")
        _forget_cuda_generators()


def real_cuda_reason() -> str | None:
    """Why the real CUDA device cannot be used here (``None`` when CuPy sees a GPU)."""
    if importlib.util.find_spec("cupy") is None:
        return "CUDA is absent: CuPy is not installed (pip install 'autograd-lab[gpu]'); CI runs the seam tests instead"
    try:
        from autograd_lab._cupy_backend import load
        load()
    except RuntimeError as exc:
        return f"CUDA is absent: {exc}"
    return None


def use_real_cuda() -> None:
    """Skip (with the reason) unless a real GPU is usable; make sure CuPy, not the double, serves ``cuda``."""
    reason = real_cuda_reason()
    if reason is not None:
        pytest.skip(reason)
    loaded = backend.loaded_backend("cuda")
    if loaded is None or isinstance(loaded, FakeCudaBackend):
        from autograd_lab._cupy_backend import load
        backend.register_backend(load(), "cuda")
        _forget_cuda_generators()


@pytest.fixture(params=["fake", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request):
    """``cuda:0``: the double (always), and the real GPU (marked ``cuda``; skips where CUDA is absent)."""
    if request.param == "fake":
        with fake_cuda():
            yield al.device("cuda:0")
    else:
        use_real_cuda()
        yield al.device("cuda:0")
