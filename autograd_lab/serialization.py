"""``al.save`` / ``al.load``: tensors and (nested) containers of them, in a NumPy ``.npz`` without pickle.

``torch.save`` pickles, and unpickling an untrusted file can run any code. Here a file is a plain
``.npz`` (a zip of ``.npy`` arrays) read with ``allow_pickle=False``: one array per tensor, and a
JSON *manifest* (stored as an array of UTF-8 bytes under ``__manifest__``) describing the structure:
dicts, lists, tuples, ``None``, bools, ints, floats and strings, each tensor with its dtype, shape and
``requires_grad``. Loading builds only those types; it never imports or calls anything named by the file.

What is kept, as ``torch.save`` keeps it: values (byte for byte), dtypes, shapes, ``requires_grad``
(a saved tensor comes back as a leaf, without ``grad_fn`` and without ``.grad``), and identity (the
same tensor saved twice loads as one tensor), and ``nn.Parameter`` (it loads as a parameter; a lazy layer's
``nn.UninitializedParameter``, with its dtype and no values, loads as one). What is not: memory sharing
between *different* tensors (views load as separate copies), and other tensor subclasses (they load as
``al.Tensor``).
"""

from __future__ import annotations

import json
import math
import os
import pickle
import zipfile
import zlib
from collections import OrderedDict
from typing import Any, BinaryIO

import numpy as np

from . import backend
from .tensor import Tensor

__all__ = ["save", "load", "SerializationError", "DEFAULT_MAX_BYTES"]

FORMAT = "autograd_lab.save"
VERSION = 1
_MANIFEST = "__manifest__"
_NODE_TYPES = ("tensor", "none", "bool", "int", "float", "str", "list", "tuple", "dict", "ordered_dict")
_MAX_DEPTH = 200  # nesting deeper than this is refused when loading (a crafted file cannot exhaust the stack)


# What al.load reads at most, in bytes, unless its max_bytes says otherwise: the file's .npy members (the arrays
# and the manifest) as they are once decompressed. Sizes are checked against it before anything is allocated.
DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB


class SerializationError(pickle.UnpicklingError, RuntimeError, ValueError):
    """``al.load`` refuses a file: it is not an ``al.save`` file (a pickle, a ``torch.save`` file), it is
    truncated or corrupted, it is crafted (a pickled object, a size that does not match its data, a structure
    nested too deep), or it would expand past ``max_bytes``. The message says which.

    It is a ``pickle.UnpicklingError``, as what ``torch.load(weights_only=True)`` raises when it refuses a
    file, a ``RuntimeError``, as what ``torch.load`` raises for a damaged archive, and a ``ValueError``, as
    it was before: code written for any of them catches it.
    """


# -- saving -----------------------------------------------------------------------------------------
def _path_str(path: tuple) -> str:
    return "obj" + "".join(f"[{p!r}]" for p in path)


class _Writer:
    """Walks the object, collecting one array per distinct tensor and returning the manifest nodes."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.tensor_keys: dict[int, str] = {}  # id(tensor) -> array name: a tensor saved twice is stored once
        self.keep_alive: list = []  # ids must stay unique while we walk
        self.open_containers: set[int] = set()

    def node(self, obj: Any, path: tuple) -> dict:
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if obj is None:
            return {"type": "none"}
        if isinstance(obj, bool):
            return {"type": "bool", "value": obj}
        if isinstance(obj, int):
            return {"type": "int", "value": str(obj)}  # any size, exactly
        if isinstance(obj, float):
            return {"type": "float", "value": obj if math.isfinite(obj) else repr(obj)}
        if isinstance(obj, str):
            return {"type": "str", "value": obj}
        if isinstance(obj, (dict, list, tuple)):
            if id(obj) in self.open_containers:
                raise ValueError(f"al.save: {_path_str(path)} contains itself (a reference cycle); save a structure "
                                 "without cycles")
            self.open_containers.add(id(obj))
            try:
                return self.container(obj, path)
            finally:
                self.open_containers.discard(id(obj))
        raise TypeError(
            f"al.save cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__} at "
            f"{_path_str(path)}: only tensors, dicts, lists, tuples, None, bool, int, float and str can be saved "
            "(a file that stores arbitrary objects needs pickle, which al.save avoids on purpose). Convert it first, "
            "e.g. a NumPy array with al.from_numpy(array), a NumPy scalar with .item(), a module with "
            "module.state_dict()."
        )

    def container(self, obj, path: tuple) -> dict:
        if isinstance(obj, dict):
            items = []
            for key, value in obj.items():
                items.append([self.key(key, path), self.node(value, path + (key,))])
            return {"type": "ordered_dict" if isinstance(obj, OrderedDict) else "dict", "items": items}
        if type(obj) not in (list, tuple):  # namedtuples and other subclasses would load as something else
            raise TypeError(f"al.save cannot store an object of type {type(obj).__qualname__} at {_path_str(path)}: "
                            "only plain lists and tuples are supported; convert it with list(...) or tuple(...)")
        return {"type": type(obj).__name__, "items": [self.node(v, path + (i,)) for i, v in enumerate(obj)]}

    def key(self, key, path: tuple) -> dict:
        if not _plain_key(key):
            raise TypeError(f"al.save cannot store a dict key of type {type(key).__qualname__} in {_path_str(path)}: "
                            "keys must be str, int, float, bool, None or tuples of those")
        return self.node(key, path + ("<key>",))

    def tensor(self, t: Tensor) -> dict:
        name = self.tensor_keys.get(id(t))
        if name is None:
            name = f"tensor{len(self.arrays)}"
            self.tensor_keys[id(t)] = name
            self.keep_alive.append(t)
            array = backend.to_host(t._data)
            self.arrays[name] = array if array.flags.c_contiguous else np.ascontiguousarray(array)  # loads C-ordered
        node = {"type": "tensor", "array": name, "dtype": t.dtype.name, "shape": list(t._data.shape),
                "requires_grad": bool(t.requires_grad)}
        if type(t) is not Tensor:
            from .nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter
            if isinstance(t, (Parameter, UninitializedBuffer)):  # (a lazy module's tensors before its first call: no
                node["class"] = type(t).__name__ if isinstance(t, (UninitializedParameter, UninitializedBuffer)) \
                    else "Parameter"  # values, no shape yet)
        return node


def _plain_key(key) -> bool:
    if isinstance(key, tuple) and type(key) is tuple:
        return all(_plain_key(k) for k in key)
    return key is None or type(key) in (str, int, float, bool)


def save(obj: Any, f: str | os.PathLike | BinaryIO) -> None:
    """Write ``obj`` (a tensor, or dicts/lists/tuples of tensors and plain values) to ``f``.

    ``f`` is a path (written as given; no suffix is added) or a binary file object. The result is an
    ``.npz`` that NumPy alone can open; see the module docstring for what is kept.
    """
    writer = _Writer()
    manifest = {"format": FORMAT, "version": VERSION, "root": writer.node(obj, ())}
    text = json.dumps(manifest, allow_nan=False, ensure_ascii=False)
    arrays = dict(writer.arrays)
    arrays[_MANIFEST] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            np.savez(handle, **arrays)
    else:
        np.savez(f, **arrays)


# -- loading ----------------------------------------------------------------------------------------
_CHUNK = 1 << 20  # an array's data is read into its own memory a MiB at a time


class _Archive:
    """The ``.npy`` members of an ``al.save`` zip, read against a budget of bytes.

    NumPy's ``np.load`` allocates what a ``.npy`` header declares before it reads the data, and takes the zip's
    word for how far a member expands; here every size is checked first: the member's declared size against
    what is left of ``max_bytes``, the header's shape and dtype against that size, and the data against the
    zip's checksum. Nothing is unpickled: headers are parsed by NumPy's literal-only parser and object dtypes
    are refused.
    """

    def __init__(self, handle, source: str, max_bytes: int) -> None:
        self.source = source
        self.left = max_bytes
        self.max_bytes = max_bytes
        try:
            self.zip = zipfile.ZipFile(handle)
            self.members = {info.filename: info for info in self.zip.infolist()}
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
            raise SerializationError(f"al.load: cannot read {source} as an al.save file (.npz, a zip of .npy "
                                     f"arrays): {exc} (a torch.save or pickle file is not read: it could run code)"
                                     ) from None
        self.files = [name[:-4] for name in self.members if name.endswith(".npy")]

    def fail(self, message: str) -> SerializationError:
        return SerializationError(f"al.load: {self.source} is not a valid al.save file: {message}")

    def array(self, name: str) -> np.ndarray:
        info = self.members.get(name + ".npy")
        if info is None:
            raise self.fail(f"it has no array {name!r}")
        if info.file_size > self.left:
            raise self._too_big(name, info.file_size)
        try:
            with self.zip.open(info) as member:
                return self._read(name, info, member)
        except SerializationError:
            raise
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
            # (RuntimeError: an encrypted member; NotImplementedError: a compression method zipfile lacks)
            raise self.fail(f"array {name!r} is damaged: {type(exc).__name__}: {exc}") from None

    def _too_big(self, name: str, size: int) -> SerializationError:
        read = self.max_bytes - self.left
        return SerializationError(
            f"al.load refused {self.source}: array {name!r} expands to {size} bytes, past the {self.max_bytes} bytes "
            f"this load may read (max_bytes{f'; {read} read before it' if read else ''}); if you trust the file, "
            "pass a larger max_bytes to al.load")

    def _read(self, name: str, info: zipfile.ZipInfo, member) -> np.ndarray:
        version = np.lib.format.read_magic(member)
        if version not in ((1, 0), (2, 0)):
            raise self.fail(f"array {name!r} has .npy format version {version}, which al.save never writes")
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran_order, dtype = read_header(member)
        if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None:
            raise SerializationError(
                f"al.load refused array {name!r} in {self.source}: its dtype {dtype} holds Python objects or "
                "records (a pickled object array could run code when loaded; al.save never writes one, so this file "
                "was made by something else)")
        if not all(isinstance(n, int) and n >= 0 for n in shape):
            raise self.fail(f"array {name!r} declares the shape {shape!r}")
        nbytes = math.prod(shape) * dtype.itemsize
        held = info.file_size - member.tell()
        if nbytes != held:
            raise self.fail(f"array {name!r} declares {dtype} {tuple(shape)} ({nbytes} bytes) but holds {held} bytes")
        self.left -= info.file_size  # (the member, header included, as it is once decompressed)
        out = np.empty(shape[::-1] if fortran_order else shape, dtype)
        view = memoryview(out).cast("B") if nbytes else memoryview(b"")
        for start in range(0, nbytes, _CHUNK):
            chunk = member.read(min(_CHUNK, nbytes - start))
            if not chunk:
                raise self.fail(f"array {name!r} is truncated")
            view[start:start + len(chunk)] = chunk
        if member.read(1):  # (reading to the end also checks the member's CRC-32)
            raise self.fail(f"array {name!r} holds more than it declares")
        return out.T if fortran_order else out


class _Reader:
    """Rebuilds an object from manifest nodes, checking every node against what the format allows."""

    def __init__(self, archive: _Archive, source: str, device=backend.CPU) -> None:
        self.archive = archive
        self.source = source
        self.device = device  # where loaded tensors go (map_location)
        self.tensors: dict[str, Tensor] = {}

    def fail(self, message: str) -> SerializationError:
        return self.archive.fail(message)

    def node(self, node, depth: int = 0):
        if depth > _MAX_DEPTH:
            raise self.fail(f"structure nested deeper than {_MAX_DEPTH} levels")
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            raise self.fail(f"expected an object with a 'type', found {type(node).__name__}")
        kind = node["type"]
        if kind not in _NODE_TYPES:
            raise self.fail(f"unknown node type {kind!r}")
        if kind == "tensor":
            return self.tensor(node)
        if kind == "none":
            return None
        if kind in ("bool", "str", "int", "float"):
            return self.scalar(kind, node)
        items = node.get("items")
        if not isinstance(items, list):
            raise self.fail(f"a {kind!r} node without a list of items")
        if kind in ("list", "tuple"):
            values = [self.node(item, depth + 1) for item in items]
            return values if kind == "list" else tuple(values)
        result = OrderedDict() if kind == "ordered_dict" else {}  # the remaining kinds: dict, ordered_dict
        for pair in items:
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.fail("a dict item that is not a [key, value] pair")
            key = self.node(pair[0], depth + 1)
            if not _plain_key(key):
                raise self.fail(f"a dict key of type {type(key).__name__}")
            result[key] = self.node(pair[1], depth + 1)
        return result

    def scalar(self, kind: str, node: dict):
        value = node.get("value")
        if kind in ("bool", "str"):
            if type(value) is not {"bool": bool, "str": str}[kind]:
                raise self.fail(f"a {kind} node holds {type(value).__name__}")
            return value
        try:
            if kind == "int" and isinstance(value, str):
                return int(value)  # (ValueError past Python's limit of 4300 digits, which al.save cannot write either)
            if kind == "float" and (type(value) in (int, float) or value in ("nan", "inf", "-inf")):
                return float(value)  # (OverflowError for an int too large for a float)
        except (ValueError, OverflowError):
            pass
        raise self.fail(f"bad {kind} node {str(value)[:80]}")

    def tensor(self, node: dict) -> Tensor:
        name = node.get("array")
        if not isinstance(name, str) or name == _MANIFEST or name not in self.archive.files:
            raise self.fail(f"tensor node names a missing array {str(name)[:80]!r}")
        if name in self.tensors:  # the same tensor saved twice: one object again
            return self.tensors[name]
        dtype_name = node.get("dtype")
        try:
            dtype = backend.to_dtype(dtype_name) if isinstance(dtype_name, str) else None
        except TypeError:
            dtype = None
        if dtype is None:
            raise self.fail(f"unsupported dtype {str(dtype_name)[:80]!r}")
        array = self.archive.array(name)
        shape = node.get("shape")
        if array.dtype != dtype.np_dtype or not isinstance(shape, list) or tuple(array.shape) != tuple(shape):
            raise self.fail(f"array {name!r} is {array.dtype} {tuple(array.shape)} but the manifest says "
                            f"{dtype_name} {str(shape)[:80]}")
        requires_grad = node.get("requires_grad", False)
        if not isinstance(requires_grad, bool) or (requires_grad and not dtype.is_floating_point):
            raise self.fail(f"bad requires_grad {str(requires_grad)[:80]} for a {dtype.name} tensor")
        if node.get("class", "Tensor") not in ("Tensor", "Parameter", "UninitializedParameter", "UninitializedBuffer"):
            raise self.fail(f"unknown tensor class {str(node.get('class'))[:80]!r}")
        tensor = Tensor._make(array if self.device.type == "cpu" else backend.move(array, self.device))
        if node.get("class") == "Parameter":
            from .nn.parameter import Parameter
            tensor = Parameter(tensor, requires_grad=requires_grad)
        elif node.get("class") in ("UninitializedParameter", "UninitializedBuffer"):
            from .nn import parameter
            tensor = getattr(parameter, node["class"])(requires_grad, device=self.device, dtype=dtype)
        elif requires_grad:
            tensor.requires_grad_(True)
        self.tensors[name] = tensor
        return tensor


def _manifest(archive: _Archive, source: str) -> dict:
    if _MANIFEST not in archive.files:
        if "data.pkl" in {name.rsplit("/", 1)[-1] for name in archive.members}:
            raise archive.fail("it is a torch.save file (a zip of pickles), which al.load does not unpickle: "
                               "unpickling can run any code. Load it with torch.load(weights_only=True) and save "
                               "the tensors with al.save")
        raise archive.fail("it has no __manifest__ entry (was it written by numpy.savez rather than al.save?)")
    manifest_bytes = archive.array(_MANIFEST)
    if manifest_bytes.dtype != np.uint8 or manifest_bytes.ndim != 1:
        raise archive.fail("the manifest is not a byte array")
    try:
        manifest = json.loads(manifest_bytes.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # (ValueError: JSON's, and ints past 4300 digits)
        raise archive.fail(f"the manifest is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise archive.fail("the manifest does not name the al.save format")
    if manifest.get("version") != VERSION:
        raise SerializationError(f"al.load: {source} has format version {str(manifest.get('version'))[:40]}; this "
                                 f"autograd_lab reads version {VERSION}")
    return manifest


def load(f: str | os.PathLike | BinaryIO, map_location=None, *, weights_only: bool | None = None,
         max_bytes: int | None = None) -> Any:
    """Read what :func:`save` wrote. Safe on untrusted files: nothing in the file is executed.

    Tensors load on the CPU, wherever they were saved from, unless ``map_location`` names a device
    (``'cuda'``, ``al.device('cuda:0')``). ``weights_only`` is accepted for PyTorch compatibility; loading
    is always restricted to tensors and plain containers.

    ``max_bytes`` bounds what the load reads, decompressed (the ``.npy`` members: arrays and manifest); it defaults
    to ``DEFAULT_MAX_BYTES`` (1 GiB). Every size is checked against it before memory is allocated, so a
    small crafted file cannot make the load allocate gigabytes (a zip bomb, a header declaring a huge
    shape); pass a larger ``max_bytes`` for a larger file you trust.

    A file that is not an ``al.save`` file, or is truncated, corrupted or crafted, raises
    :class:`SerializationError`, whose message says what is wrong. A path that cannot be opened raises
    the ``OSError`` that ``open`` raises (``FileNotFoundError``...), as ``torch.load`` does.
    """
    max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
        raise TypeError(f"al.load: max_bytes must be a non-negative int, got {max_bytes!r}")
    device = backend.CPU if map_location is None else backend.device(map_location)
    if device.type != "cpu":
        try:
            backend.backend_for(device.type)  # unavailable: say so before reading anything
        except RuntimeError as exc:
            raise RuntimeError(f"al.load: map_location={map_location!r} is not available: {exc}") from None
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            return _load(handle, repr(os.fspath(f)), device, max_bytes)
    return _load(f, "the file object", device, max_bytes)


def _load(handle, source: str, device, max_bytes: int) -> Any:
    start = handle.tell()
    if handle.read(6) == b"\x93NUMPY":
        raise SerializationError(f"al.load: {source} is a single .npy array, not an al.save file; read it with "
                                 "numpy.load and wrap it with al.from_numpy")
    handle.seek(start)
    archive = _Archive(handle, source, max_bytes)
    with archive.zip:
        manifest = _manifest(archive, source)
        try:
            return _Reader(archive, source, device).node(manifest.get("root"))
        except RecursionError:
            raise archive.fail("its structure is nested too deep") from None
