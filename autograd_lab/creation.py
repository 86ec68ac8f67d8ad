"""Creating tensors: from data, filled, ranges, random; the ``*_like`` variants; ``manual_seed``.

Python floats become the default dtype (float32), Python ints int64, bools bool; NumPy arrays keep
their dtype, as in PyTorch. Every factory takes ``device=`` (default: ``al.get_default_device()``,
``cpu`` unless changed); each device has its own random generator, and ``manual_seed`` seeds them all.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from . import backend
from .autograd import grad_mode as _gm
from .creation_nested import holds_arrays, read_nested
from .ops._args import checked
from .ops.out import factory_out
from .tensor import Size, Tensor
from .warn_once import SCALAR_CONVERSION, user_stacklevel

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange", "linspace", "eye",
           "rand", "randn", "randint", "randperm", "normal", "zeros_like", "ones_like", "full_like", "empty_like",
           "rand_like", "randn_like", "randint_like", "manual_seed", "seed", "initial_seed", "Generator",
           "get_rng_state", "set_rng_state"]


def _sizes(size, negative: str | None = None) -> tuple:
    """The sizes given as ``f(2, 3)`` or ``f((2, 3))``; a negative one raises PyTorch's error (``negative``:
    a function's own words for it, as ``zeros`` has)."""
    sizes = tuple(operator.index(s) for s in (size[0] if len(size) == 1 and not isinstance(size[0], int) else size))
    for s in sizes:
        if s < 0:
            raise RuntimeError(negative or f"Trying to create tensor with negative dimension {s}: {list(sizes)}")
    return sizes


def _resolve(dtype, device, default):
    dt = backend.to_dtype(dtype) if dtype is not None else default
    dev = backend.device(device) if device is not None else backend.get_default_device()
    return dt, dev, backend.namespace_for(dev)


def _on(array, dev, xp):
    """A host array built by NumPy, copied to ``dev`` when that is not the CPU."""
    return array if xp is np else backend.move(array, dev)


def _finish(data, requires_grad: bool) -> Tensor:
    if not isinstance(requires_grad, (bool, np.bool_)):
        raise TypeError(f"argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
    t = Tensor._make(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients "
                f"(asked for a tensor of {t.dtype!r}; pass dtype=al.float32, or float data such as 1.0)"
            )
        t.requires_grad_(True)
    return t


def _infer_array(data, dtype=None):
    """A NumPy array for nested Python data, with PyTorch's dtype inference and its overflow checks.

    ``dtype`` (an explicit dtype follows, or ``None``): Python floats stay float64 so that the final cast
    rounds once, as ``torch.tensor([0.3], dtype=torch.float64)`` does; Python data that does not fit an
    integer ``dtype`` is PyTorch's error, never a wrapped value.
    """
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)) and holds_arrays(data):  # (tensors or NumPy values among the items)
        _warn_for_grad_tensors(data, dtype)
        return read_nested(data, dtype)
    try:
        array = np.asarray(data)
    except ValueError:  # (not rectangular: PyTorch's reading names the first item that does not fit)
        try:
            read_nested(data)
        except ValueError as exc:
            raise ValueError(f"{exc} [autograd_lab] tensor(): nested sequences must be rectangular, every row the "
                             "same length") from None
        raise
    python = not isinstance(data, (np.ndarray, np.generic))
    if python and array.dtype.kind in "USO":
        _check_items(data)
    if python and (array.dtype == object or array.dtype == np.uint64 or _has_huge(array)):
        array = _wide_ints(data, array, dtype)
    if array.dtype == object:
        raise TypeError(f"could not build a tensor from data of type {type(data).__name__}: expected numbers or "
                        "(nested) sequences of numbers")
    if python and array.dtype.kind == "f" and dtype is None:
        array = array.astype(backend.get_default_dtype().np_dtype)
    if python and array.dtype.kind in "iu":
        array = array.astype(np.int64)
    if python and dtype is not None:
        backend.check_data(array, dtype)
    return array


def _warn_for_grad_tensors(data, dtype) -> None:
    """PyTorch reads each tensor in a list (``al.tensor([loss1, loss2])``) as a number with ``float()``: it warns as
    ``float(t)`` does for each that requires grad, in grad mode, when the new tensor is floating."""
    if _gm._state.grad_enabled and (dtype is None or dtype.is_floating_point):
        for item in _flat(data):
            if isinstance(item, Tensor) and item.requires_grad:
                SCALAR_CONVERSION.warn(stacklevel=user_stacklevel())


def _check_items(data) -> None:
    """PyTorch's errors for data that holds something other than numbers: a string, or an object of no dtype."""
    for item in _flat(data):
        if isinstance(item, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(item).__name__}' [autograd_lab] tensor() takes numbers "
                            f"(or nested lists of them), not the {type(item).__name__} {item!r}")
        if not isinstance(item, (int, float, complex, np.number, np.bool_)):
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__} [autograd_lab] tensor() takes numbers "
                               "(or nested lists of them)")


def _has_huge(array) -> bool:
    """Whether a float array NumPy made of Python data may hold an int beyond int64 (``[1, 2**63]``)."""
    return array.dtype.kind == "f" and array.size > 0 and bool(np.abs(array).max() >= 2.0 ** 63)


def _wide_ints(data, array, dtype):
    """Python data with an int beyond int64: floats where the tensor will be floating (``[1.5, 2**63]``, or a
    floating ``dtype``), else PyTorch's error, as it reads every int of integer data as a C ``long long``."""
    items = list(_flat(data))
    if not all(isinstance(x, (int, float, np.number)) for x in items):
        return array  # (not numbers: the caller's TypeError)
    floating = dtype.is_floating_point if dtype is not None else any(isinstance(x, float) for x in items)
    if not floating:
        big = next((x for x in items if isinstance(x, int) and not -(2 ** 63) <= x < 2 ** 63), None)
        if big is not None:
            raise ValueError(f"Overflow when unpacking long long [autograd_lab] tensor(): {big} does not fit in "
                             "int64, the dtype of integer data; pass dtype=al.float64 to keep it as a float")
    return array.astype(np.float64)


def _flat(data):
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            yield item


def tensor(data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (numbers, nested lists, NumPy arrays, tensors)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
            "sourceTensor.clone().detach().requires_grad_(True), rather than al.tensor(sourceTensor).",
            UserWarning, stacklevel=2)
        data = data.detach()._data
    if isinstance(data, Tensor) or hasattr(data, "__array_namespace__"):
        array = backend.to_host(data.detach()._data if isinstance(data, Tensor) else data)
    else:
        array = _infer_array(data, backend.to_dtype(dtype) if dtype is not None else None)
    dt, dev, xp = _resolve(dtype, device, backend.from_np(array.dtype))
    host = np.array(array, dtype=dt.np_dtype, copy=True)
    return _finish(_on(host, dev, xp), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like :func:`tensor`, but shares memory with ``data`` when it is already a suitable array/tensor."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    array = _infer_array(data, backend.to_dtype(dtype) if dtype is not None else None)
    dt, dev, xp = _resolve(dtype, device, backend.from_np(array.dtype))
    return Tensor._make(_on(np.asarray(array, dtype=dt.np_dtype), dev, xp))


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (same dtype; writes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    backend.from_np(array.dtype)  # raises for unsupported dtypes
    return Tensor._make(array)


def _filled(fill, size, dtype, device, requires_grad, default=None, negative=None):
    dt, dev, xp = _resolve(dtype, device, default or backend.get_default_dtype())
    fill = backend.check_scalar(fill, dt, "full")
    return _finish(xp.full(_sizes(size, negative), fill, dtype=dt.np_dtype), requires_grad)


@checked
def zeros(*size, out=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if out is not None:
        return factory_out("zeros", out, lambda **kw: zeros(*size, **kw), dtype, device, requires_grad)
    return _filled(0, size, dtype, device, requires_grad, negative="zeros: Dimension size must be non-negative.")


@checked
def ones(*size, out=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if out is not None:
        return factory_out("ones", out, lambda **kw: ones(*size, **kw), dtype, device, requires_grad)
    return _filled(1, size, dtype, device, requires_grad)


@checked
def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uninitialised in PyTorch; here filled with zeros so results never depend on leftover memory."""
    return _filled(0, size, dtype, device, requires_grad)


@checked(kinds={"fill_value": "number"})
def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    default = backend._scalar_dtype(fill_value)
    return _filled(fill_value, (size,) if isinstance(size, int) else tuple(size), dtype, device, requires_grad,
                   default)


@checked(kinds={"start": "number", "end": "number?", "step": "number"})
def arange(start, end=None, step=1, *, out=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` (default 0) up to but excluding ``end``, ``step`` apart."""
    if out is not None:
        return factory_out("arange", out, lambda **kw: arange(start, end, step, **kw), dtype, device, requires_grad)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    floating = any(isinstance(v, float) for v in (start, end, step))
    default = backend.get_default_dtype() if floating else backend.int64
    dt, dev, xp = _resolve(dtype, device, default)
    for v in (start, end, step):  # (PyTorch computes integer ranges in int64)
        backend.check_scalar(v, backend.float64 if dt.is_floating_point else backend.int64, "arange")
    return _finish(_on(np.arange(start, end, step).astype(dt.np_dtype), dev, xp), requires_grad)


@checked(kinds={"start": "number", "end": "number", "steps": "int"})
def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev, xp = _resolve(dtype, device, backend.get_default_dtype())
    return _finish(_on(np.linspace(start, end, steps).astype(dt.np_dtype), dev, xp), requires_grad)


@checked(kinds={"n": "int", "m": "int?"})
def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev, xp = _resolve(dtype, device, backend.get_default_dtype())
    return _finish(xp.eye(n, m, dtype=dt.np_dtype), requires_grad)


def _like(fn, input, dtype, device, kwargs):
    return fn(input.shape, dtype=dtype if dtype is not None else input.dtype,
              device=device if device is not None else input.device, **kwargs)


@checked
def zeros_like(input, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(zeros, input, dtype, device, {"requires_grad": requires_grad})


@checked
def ones_like(input, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(ones, input, dtype, device, {"requires_grad": requires_grad})


@checked
def empty_like(input, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(empty, input, dtype, device, {"requires_grad": requires_grad})


@checked(kinds={"fill_value": "number"})
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(lambda size, **kw: full(size, fill_value, **kw), input, dtype, device, {"requires_grad": requires_grad})


# -- random numbers ---------------------------------------------------------------------------
_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, for every device


class Generator:
    """A random number generator of one device: NumPy's PCG64 on the CPU, the device library's elsewhere
    (CuPy's cuRAND for ``cuda``). ``manual_seed`` reseeds it."""

    def __init__(self, device="cpu") -> None:
        self.device = backend.device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        if self.device.type == "cpu":
            self._rng = np.random.default_rng(self._seed)
        else:
            self._rng = backend.backend_for(self.device.type).rng(self._seed, self.device.index or 0)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        self.manual_seed(int(np.random.SeedSequence().entropy % (2 ** 63)))
        return self._seed

    def get_state(self) -> dict:
        if self.device.type != "cpu":
            raise RuntimeError(f"get_state is supported for cpu generators only (this one is on {self.device}); "
                               "reseed device generators with manual_seed instead")
        return self._rng.bit_generator.state

    def set_state(self, state: dict) -> Generator:
        self._rng.bit_generator.state = state
        return self


default_generator = Generator()
_device_generators: dict = {}  # device -> Generator, made on first use (making one for cuda imports CuPy)
_pending_seed = [_DEFAULT_SEED]  # the seed a device generator made later starts from


def default_generator_for(dev) -> Generator:
    """The default generator of a device (``cuda:1`` has its own, as in PyTorch)."""
    dev = backend.device(dev)
    if dev.type == "cpu":
        return default_generator
    key = (dev.type, dev.index or 0)
    gen = _device_generators.get(key)
    if gen is None:
        gen = _device_generators[key] = Generator(backend.device(dev.type, dev.index or 0)).manual_seed(_pending_seed[0])
    return gen


def manual_seed(seed: int) -> Generator:
    """Seed the generators of every device: the same seed gives the same random tensors.

    Device generators not made yet start from this seed when first used, so seeding never imports CuPy.
    """
    _pending_seed[0] = int(seed)
    for gen in _device_generators.values():
        gen.manual_seed(seed)
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> dict:
    return default_generator.get_state()


def set_rng_state(state: dict) -> None:
    default_generator.set_state(state)


def check_floating_sample(dt, kernel: str, dev) -> None:
    """PyTorch's error for continuous random samples asked for in an integer or bool dtype (``kernel``:
    ``normal_kernel`` or ``check_uniform_bounds``, the names PyTorch's error gives)."""
    if not dt.is_floating_point:
        name = f"{kernel}_{backend.device(dev).type}" if kernel == "normal_kernel" else kernel
        raise NotImplementedError(f'"{name}" not implemented for \'{backend.kernel_type_name(dt)}\' [autograd_lab] '
                                  f"samples of a continuous distribution need a floating dtype, not {dt!r}; draw "
                                  "them as floats (dtype=al.float32) and convert, or use al.randint for integers")


def _random(sample, size, dtype, device, requires_grad, generator, default=None, kernel=None):
    dt, dev, xp = _resolve(dtype, device, default or backend.get_default_dtype())
    if kernel is not None:
        check_floating_sample(dt, kernel, dev)
    if generator is None:
        generator = default_generator_for(dev)
    elif generator.device.type != dev.type:
        raise RuntimeError(f"Expected a '{dev.type}' device type for generator but found '{generator.device.type}' "
                           f"[autograd_lab] pass a generator made with al.Generator(device='{dev}'), or none")
    data = xp.asarray(sample(generator._rng, _sizes(size)))
    return _finish(data if data.dtype == dt.np_dtype else data.astype(dt.np_dtype), requires_grad)


@checked
def rand(*size, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    """Uniform samples in [0, 1)."""
    return _random(lambda r, s: r.random(s), size, dtype, device, requires_grad, generator,
                   kernel="check_uniform_bounds")


@checked
def randn(*size, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    """Standard normal samples."""
    return _random(lambda r, s: r.standard_normal(s), size, dtype, device, requires_grad, generator,
                   kernel="normal_kernel")


@checked(kinds={"low": "int", "high": "int?", "size": "ints"})
def randint(low, high=None, size=None, *, dtype=None, device=None, requires_grad: bool = False,
            generator=None) -> Tensor:
    """Integers drawn uniformly from [low, high) (``randint(high, size)`` also works)."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing 1 required positional argument: 'size'")
    return _random(lambda r, s: r.integers(low, high, s), (tuple(size),), dtype, device, requires_grad, generator,
                   backend.int64)


@checked(kinds={"n": "int"})
def randperm(n: int, *, dtype=None, device=None, generator=None) -> Tensor:
    """A random permutation of ``0 .. n-1``."""
    return _random(lambda r, s: r.permutation(n), ((n,),), dtype, device, False, generator, backend.int64)


@checked(kinds={"mean": "number", "std": "number", "size": "ints"})
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None) -> Tensor:
    if size is None:
        raise TypeError("normal() with float mean and std needs size=")
    return _random(lambda r, s: r.normal(mean, std, s), (tuple(size),), dtype, device, False, generator,
                   kernel="normal_kernel")


@checked
def rand_like(input, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return rand(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@checked
def randn_like(input, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return randn(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@checked(kinds={"low": "int", "high": "int?"})
def randint_like(input, low, high=None, *, dtype=None, device=None) -> Tensor:
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype, device=device or input.device)


def _legacy_constructor(self: Tensor, args: tuple, dtype, device) -> None:
    """``Tensor(data)`` or ``Tensor(*sizes)``: PyTorch's legacy constructor (default dtype, zeros for sizes)."""
    dt = backend.to_dtype(dtype) if dtype is not None else backend.get_default_dtype()
    dev = backend.device(device) if device is not None else backend.get_default_device()
    xp = backend.namespace_for(dev)
    if len(args) == 1 and not isinstance(args[0], int):
        data = _on(np.array(_infer_array(args[0], dt), dtype=dt.np_dtype), dev, xp)
    else:
        data = xp.zeros(_sizes(args), dtype=dt.np_dtype)
    template = Tensor._make(data)
    for slot in ("_data", "_grad_fn", "_requires_grad", "_version_counter", "_output_nr", "_grad"):
        setattr(self, slot, getattr(template, slot))


# -- Tensor.new_*: new tensors with this tensor's dtype and device ------------------------------------------
def _options(self: Tensor, dtype, device) -> dict:
    return dict(dtype=self.dtype if dtype is None else dtype, device=self.device if device is None else device)


def new_tensor(self: Tensor, data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A copy of ``data`` as a new leaf, with this tensor's dtype and device unless given."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        data = data.detach()._data
    return tensor(data, requires_grad=requires_grad, **_options(self, dtype, device))


def new_zeros(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Zeros of ``size``, with this tensor's dtype and device unless given."""
    return zeros(*size, requires_grad=requires_grad, **_options(self, dtype, device))


def new_ones(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Ones of ``size``, with this tensor's dtype and device unless given."""
    return ones(*size, requires_grad=requires_grad, **_options(self, dtype, device))


def new_empty(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` (zeros here, uninitialised in PyTorch), with this tensor's dtype and device."""
    return empty(*size, requires_grad=requires_grad, **_options(self, dtype, device))


def new_full(self: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` everywhere in ``size``, with this tensor's dtype and device unless given."""
    return full(size, fill_value, requires_grad=requires_grad, **_options(self, dtype, device))


def new(self: Tensor, *args, device=None) -> Tensor:
    """PyTorch's legacy ``x.new(...)``, with ``x``'s dtype: ``x.new(2, 3)`` or ``x.new(al.Size([2, 3]))`` a tensor
    of that shape (zeros here), ``x.new([1, 2])`` one holding the data, ``x.new()`` an empty one, ``x.new(t)``
    a tensor sharing ``t``'s memory (``t`` must have ``x``'s dtype)."""
    options = _options(self, None, device)
    if not args:
        return empty(0, **options)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not self.dtype:
            raise TypeError(f"expected TensorOptions(dtype={self.dtype.name}) (got TensorOptions(dtype="
                            f"{args[0].dtype.name})) [autograd_lab] x.new(t) wants t of x's dtype: t.to(x.dtype)")
        return Tensor._make(args[0]._data)
    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        return tensor(args[0], **options)
    return empty(*args, **options)


Tensor.new_tensor, Tensor.new_zeros, Tensor.new_ones = new_tensor, new_zeros, new_ones
Tensor.new_empty, Tensor.new_full, Tensor.new = new_empty, new_full, new
