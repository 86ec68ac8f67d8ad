"""Array namespaces, devices and dtypes: the one seam between autograd_lab and its array libraries.

Ops never import NumPy themselves: they receive ``xp``, the namespace that owns their input arrays
(NumPy for the ``cpu`` device, CuPy for ``cuda``). A device type other than ``cpu`` is served by an
:class:`ArrayBackend` registered for it; the CuPy one is imported the first time a ``cuda`` device is
asked for, never when autograd_lab is imported. Dtypes are small objects that print like PyTorch's (``al.float32``)
and carry the NumPy dtype they stand for. Type promotion follows PyTorch's rules, which differ from
NumPy's (``int64 + float32`` is ``float32``; a Python float never widens a float32 tensor).
"""

from __future__ import annotations

import abc
import re
import threading

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
    "device", "get_default_dtype", "set_default_dtype", "to_dtype", "namespace_of", "promote_types",
    "result_type", "ArrayBackend", "register_backend", "backend_for", "device_of", "namespace_for", "move",
    "get_default_device", "set_default_device",
]


class dtype:
    """A tensor element type (``al.float32``...). Compare with ``==`` or ``is``; both work."""

    __slots__ = ("name", "np_dtype", "is_floating_point", "is_signed", "itemsize", "_category", "_legacy_name")

    def __init__(self, name: str, np_dtype, category: int, legacy_name: str):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        self._category = category  # 0 bool, 1 integral, 2 floating: PyTorch's promotion categories
        self.is_floating_point = category == 2
        self.is_signed = self.np_dtype.kind in "if"
        self.itemsize = self.np_dtype.itemsize
        self._legacy_name = legacy_name

    def __repr__(self) -> str:
        return f"al.{self.name}"

    def __reduce__(self):
        return (to_dtype, (self.name,))


float16 = dtype("float16", np.float16, 2, "HalfTensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")
int8 = dtype("int8", np.int8, 1, "CharTensor")
int16 = dtype("int16", np.int16, 1, "ShortTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
bool_ = dtype("bool", np.bool_, 0, "BoolTensor")

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NP = {d.np_dtype: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
                 "short": int16, "bool_": bool_})


def to_dtype(spec) -> dtype:
    """Turn ``al.float32``, ``'float32'``, ``np.float32``, ``float``, ``int`` or ``bool`` into an ``al`` dtype."""
    if isinstance(spec, dtype):
        return spec
    if spec is float:
        return get_default_dtype()
    if spec is int:
        return int64
    if spec is bool:
        return bool_
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec]
    try:
        found = _BY_NP.get(np.dtype(spec))
    except TypeError:
        found = None
    if found is None:
        supported = ", ".join(d.name for d in _ALL)
        raise TypeError(f"dtype {spec!r} is not supported by autograd_lab; supported dtypes: {supported}")
    return found


def from_np(np_dtype) -> dtype:
    """The ``al`` dtype of a NumPy dtype; unsupported ones (complex, object...) raise a TypeError."""
    found = _BY_NP.get(np_dtype)
    if found is None:
        return to_dtype(np_dtype)
    return found


class _DefaultDtype(threading.local):
    value = float32


_default = _DefaultDtype()


def get_default_dtype() -> dtype:
    """The dtype a Python float becomes (``float32`` unless changed, as in PyTorch)."""
    return _default.value


def set_default_dtype(d) -> None:
    """Set the default floating dtype (``al.float32`` or ``al.float64``)."""
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    _default.value = d


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's promotion of two dtypes: a floating type beats any integral one, whatever their widths."""
    if a is b:
        return a
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high._category == 2 or low._category == 0:
            return high
    return from_np(np.promote_types(a.np_dtype, b.np_dtype))


def _scalar_dtype(value) -> dtype:
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    return get_default_dtype()


def result_type(*operands) -> dtype:
    """The dtype of an op on tensors and Python scalars, by PyTorch's three-tier rule.

    Tensors with dimensions decide first; zero-dim tensors and then Python scalars only matter when
    they belong to a higher category (bool < integral < floating): ``float32 tensor * 2.5`` stays
    float32, ``int64 tensor * 2.5`` becomes the default float dtype.
    """
    tiers: list[dtype | None] = [None, None, None]  # dimensioned, zero-dim, scalars
    for op in operands:
        if hasattr(op, "_data"):
            d = from_np(op._data.dtype)
            tier = 0 if op._data.ndim else 1
        else:
            d = _scalar_dtype(op)
            tier = 2
        tiers[tier] = d if tiers[tier] is None else promote_types(tiers[tier], d)
    result = None
    for d in tiers:
        if d is None:
            continue
        if result is None:
            result = d
        elif d._category > result._category:
            result = promote_types(result, d)
    return result


# -- Python numbers becoming elements: PyTorch's overflow checks ------------------------------------
# PyTorch names a dtype three ways in its errors: the C type a kernel fills with (``full``, ``fill_``:
# "type uint8_t"), the ScalarType (``tensor()``: "type uint8"), and the kernel dispatch name ("'Byte'").
_C_TYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "float16": "c10::Half", "float32": "float", "float64": "double", "bool": "bool"}
_INT64_MIN, _UINT64_END = -(2 ** 63), 2 ** 64


def c_type_name(d: dtype) -> str:
    """The C type by which some of PyTorch's messages name a dtype (``float``, ``double``, ``int64_t``)."""
    return _C_TYPES[d.name]


def type_name(value) -> str:
    """A Python value's type as PyTorch's errors name it (``float``, ``NoneType``, ``numpy.ndarray``, ``Tensor``)."""
    kind = type(value)
    return kind.__name__ if not kind.__module__.startswith("numpy") else f"numpy.{kind.__name__}"


def kernel_type_name(d: dtype) -> str:
    """How PyTorch names a dtype in ``"..." not implemented for 'Long'``."""
    return d._legacy_name[: -len("Tensor")]


def _overflows(value, d: dtype) -> bool:
    """Whether a Python number does not fit in ``d``, by c10's ``overflows`` rule: an integer dtype holds
    its range (an unsigned one also the negatives down to minus its maximum, which wrap), and no NaN or
    infinity; a floating one holds any number up to its largest finite value, and inf and NaN."""
    if d is bool_:
        return False
    np_dtype = d.np_dtype
    if d._category == 2:
        return value == value and abs(value) != float("inf") and abs(value) > float(np.finfo(np_dtype).max)
    info = np.iinfo(np_dtype)
    if isinstance(value, float) and not np.isfinite(value):
        return True
    if np_dtype.kind == "u" and not isinstance(value, float):
        return value > info.max or -value > info.max
    return value < info.min or value > info.max


def check_scalar(value, d: dtype, op: str):
    """``value`` (a Python number that an op writes into a tensor of dtype ``d``: ``full``, ``fill_``,
    ``masked_fill``, ``clamp``'s bounds), checked as PyTorch checks it; returned as ``d`` holds it."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64_MIN <= value < _UINT64_END:
        raise OverflowError(f"int too big to convert [autograd_lab] {op}: {value} fits in no 64-bit integer "
                            "(write it as a float, e.g. 1e30)")
    if isinstance(value, (int, float)) and _overflows(value, d):
        raise RuntimeError(f"value cannot be converted to type {c_type_name(d)} without overflow [autograd_lab] "
                           f"{op}: {value!r} is outside the range of {d!r}; use a wider dtype")
    if value.__class__ is int and d._category == 1:
        return wrap_int(value, d, op)  # (a negative one for an unsigned dtype: -1 fills uint8 with 255)
    return value


def check_data(array, d: dtype) -> None:
    """The elements of Python data (an int64, float64 or bool array) about to become a tensor of an integer
    dtype ``d``, checked as ``torch.tensor`` checks them (it names the dtype its own way)."""
    if d._category != 1 or array.size == 0 or array.dtype == d.np_dtype:
        return
    info = np.iinfo(d.np_dtype)
    if array.dtype.kind == "f":
        bad = ~np.isfinite(array) | (array < info.min) | (array > float(info.max))
    else:
        low = -int(info.max) if d.np_dtype.kind == "u" else info.min
        bad = (array < low) | (array > info.max)
    if bad.any():
        first = array[bad].flat[0].item()
        raise RuntimeError(f"value cannot be converted to type {d.name} without overflow [autograd_lab] tensor(): "
                           f"{first!r} is outside the range of {d!r}; use a wider dtype")


def wrap_int(value: int, d: dtype, op: str) -> int:
    """A Python int operand of an op on an integer tensor of dtype ``d``, cast into ``d`` as PyTorch casts it
    (two's complement wrap: ``uint8 tensor + 300`` adds 44), where NumPy would raise."""
    info = np.iinfo(d.np_dtype)
    if info.min <= value <= info.max:
        return value
    if not _INT64_MIN <= value < _UINT64_END:
        raise OverflowError(f"int too big to convert [autograd_lab] {op}: {value} fits in no 64-bit integer")
    span = 1 << (8 * d.itemsize)
    return (value - info.min) % span + info.min


_DEVICE_STRING = re.compile(r"(cpu|cuda)(?::(0|[1-9][0-9]*))?")


class device:
    """Where a tensor's data lives: ``al.device('cpu')``, or ``'cuda'`` with the optional CuPy backend."""

    __slots__ = ("type", "index")

    def __init__(self, spec="cpu", index: int | None = None):
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        if isinstance(spec, int) and not isinstance(spec, bool):  # an index alone: an accelerator's, as in PyTorch
            spec, index = "cuda", spec if index is None else index
        text = str(spec)
        match = _DEVICE_STRING.fullmatch(text)
        if match is None:
            kind = text.partition(":")[0]
            if kind.isalpha() and kind not in ("cpu", "cuda"):
                raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {spec}")
            raise RuntimeError(f"Invalid device string: '{text}' [autograd_lab] write 'cpu', 'cuda' or 'cuda:N'")
        kind, idx = match.group(1), match.group(2)
        if idx is not None and index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {text}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = kind
        self.index = int(idx) if idx is not None else index

    def __eq__(self, other) -> bool:
        """Same type and same index, as in PyTorch: ``device('cuda') != device('cuda:0')`` (no index is not
        index 0, though a CUDA tensor's ``.device`` always has one), and a device never equals a string
        (``x.device == 'cpu'`` is False: compare ``x.device.type == 'cpu'`` or ``str(x.device)``)."""
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __enter__(self) -> device:
        """``with al.device('cuda'):`` makes factory functions (``zeros``, ``randn``...) create on this device."""
        _default_device.stack.append(_default_device.value)
        _default_device.value = self
        return self

    def __exit__(self, *exc) -> None:
        _default_device.value = _default_device.stack.pop()


CPU = device("cpu")


class _DefaultDevice(threading.local):
    def __init__(self) -> None:
        self.value = CPU
        self.stack: list = []


_default_device = _DefaultDevice()


def get_default_device() -> device:
    """The device factory functions use when given none (``cpu`` unless changed). As in PyTorch, it is
    the device a tensor made there reports: ``set_default_device('cuda')`` reads back as ``cuda:0``
    (the current GPU's index), which is what ``al.zeros(1).device`` compares equal to."""
    dev = _default_device.value
    return dev if dev.index is not None or dev.type == "cpu" else resolve_device(dev)


def set_default_device(dev) -> None:
    """Make factory functions create tensors on ``dev`` by default (``None`` restores ``cpu``), as in PyTorch."""
    _default_device.value = CPU if dev is None else device(dev)


# -- array backends ------------------------------------------------------------------------------
class ArrayBackend(abc.ABC):
    """What autograd_lab asks of the array library behind one device type (CuPy for ``cuda``).

    ``namespace`` is the ``xp`` that ops receive; ``array_types`` are the array classes it makes. The
    methods move data between host and device, draw random numbers, and report devices. A test double
    registered with :func:`register_backend` proves the seam without a GPU (see ``tests/fake_backend.py``).
    """

    type = "cuda"
    namespace = None
    array_types: tuple = ()

    @abc.abstractmethod
    def index_of(self, array) -> int:
        """The device index an array lives on."""

    @abc.abstractmethod
    def to_device(self, host, index: int):
        """A copy of the NumPy array ``host`` on device ``index``."""

    @abc.abstractmethod
    def to_host(self, array):
        """A NumPy copy of a device array."""

    @abc.abstractmethod
    def rng(self, seed: int, index: int):
        """A random generator on device ``index`` with NumPy ``Generator`` method names
        (``random``, ``standard_normal``, ``integers``, ``permutation``, ``normal``, ``uniform``)."""

    @abc.abstractmethod
    def device_count(self) -> int:
        """How many devices of this type there are."""

    def current_device(self) -> int:
        """The index ``'cuda'`` without an index means."""
        return 0

    @abc.abstractmethod
    def synchronize(self, index: int | None = None) -> None:
        """Wait until the work queued on the device is done (timers must, as kernels run asynchronously)."""

    @abc.abstractmethod
    def device_name(self, index: int) -> str:
        """The name of device ``index``, as its driver reports it (``al.cuda.get_device_name``)."""

    @abc.abstractmethod
    def memory_allocated(self, index: int) -> int:
        """Bytes held by live arrays on device ``index`` now (``al.cuda.memory_allocated``)."""


_BACKENDS: dict[str, ArrayBackend] = {}
_BY_ARRAY_TYPE: dict[type, ArrayBackend] = {}


def register_backend(entry: ArrayBackend | None, device_type: str = "cuda") -> ArrayBackend | None:
    """Serve ``device_type`` with ``entry`` (``None`` unregisters); returns the backend it replaces."""
    previous = _BACKENDS.pop(device_type, None)
    if previous is not None:
        for t in previous.array_types:
            _BY_ARRAY_TYPE.pop(t, None)
    if entry is not None:
        _BACKENDS[device_type] = entry
        for t in entry.array_types:
            _BY_ARRAY_TYPE[t] = entry
    return previous


def backend_for(device_type: str) -> ArrayBackend:
    """The backend of a device type; for ``cuda`` with none registered, CuPy is imported now (only now)."""
    entry = _BACKENDS.get(device_type)
    if entry is None and device_type == "cuda":
        from ._cupy_backend import load
        entry = load()
        register_backend(entry, "cuda")
    if entry is None:
        raise RuntimeError(f"no array backend is registered for device type '{device_type}'")
    return entry


def loaded_backend(device_type: str) -> ArrayBackend | None:
    """The backend of a device type if one is registered already (never imports anything)."""
    return _BACKENDS.get(device_type)


def namespace_of(array):
    """The array namespace (``numpy``, or ``cupy`` for CUDA arrays) that owns ``array``."""
    if type(array) is np.ndarray:
        return np
    entry = _BY_ARRAY_TYPE.get(type(array))
    if entry is not None:
        return entry.namespace
    get_ns = getattr(array, "__array_namespace__", None)
    if get_ns is not None:
        return get_ns()
    return np


def device_of(array) -> device:
    """The device an array lives on."""
    if type(array) is np.ndarray:
        return CPU
    entry = _BY_ARRAY_TYPE.get(type(array))
    if entry is not None:
        return device(entry.type, entry.index_of(array))
    return CPU


def namespace_for(dev: device):
    """The namespace that creates arrays on ``dev`` (for ``cuda``: CuPy, imported on first use)."""
    if dev.type == "cpu":
        return np
    return backend_for(dev.type).namespace


def to_host(array):
    """``array`` as a NumPy array (a copy when it lives on a device)."""
    if type(array) is np.ndarray:
        return array
    entry = _BY_ARRAY_TYPE.get(type(array))
    return array if entry is None else entry.to_host(array)


def resolve_device(dev) -> device:
    """``dev`` as a tensor there reports it: an accelerator without an index gets the current one's
    (``'cuda'`` is ``cuda:0`` unless another GPU was made current); ``cpu`` stays without one."""
    dev = device(dev)
    if dev.type != "cpu" and dev.index is None:
        return device(dev.type, backend_for(dev.type).current_device())
    return dev


def move(array, dev: device):
    """``array`` on device ``dev``: itself when it is there already, else a copy."""
    dev = resolve_device(dev)
    if device_of(array) == dev:
        return array
    host = to_host(array)
    if dev.type == "cpu":
        return host
    return backend_for(dev.type).to_device(host, dev.index)
