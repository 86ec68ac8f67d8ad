"""``al.save`` / ``al.load``: tensors and (nested) containers of them, in a NumPy ``.npz`` without pickle.

``torch.save`` pickles, and unpickling an untrusted file can run any code. Here a file is a plain
``.npz`` (a zip of ``.npy`` arrays) read with ``allow_pickle=False``: one array per tensor, and a
JSON *manifest* (stored as an array of UTF-8 bytes under ``__manifest__``) describing the structure:
dicts, lists, tuples, ``None``, bools, ints, floats and strings, each tensor with its dtype, shape and
``requires_grad``. Loading builds only those types; it never imports or calls anything named by the file.

What is kept, as ``torch.save`` keeps it: values (byte for byte), dtypes, shapes, ``requires_grad``
(a saved tensor comes back as a leaf, without ``grad_fn`` and without ``.grad``), and identity (the
same tensor saved twice loads as one tensor), and ``nn.Parameter`` (it loads as a parameter). What is
not: memory sharing between *different* tensors (views load as separate copies), and other tensor
subclasses (they load as ``al.Tensor``).
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections import OrderedDict
from typing import Any, BinaryIO

import numpy as np

from . import backend
from .tensor import Tensor

__all__ = ["save", "load", "SerializationError"]

FORMAT = "autograd_lab.save"
VERSION = 1
_MANIFEST = "__manifest__"
_NODE_TYPES = ("tensor", "none", "bool", "int", "float", "str", "list", "tuple", "dict", "ordered_dict")
_MAX_DEPTH = 200  # nesting deeper than this is refused when loading (a crafted file cannot exhaust the stack)


class SerializationError(ValueError):
    """A file is not a valid ``al.save`` file, or is one this version cannot read."""


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
        node = {"type": "tensor", "array": name, "dtype": t.dtype.name, "shape": list(t.shape),
                "requires_grad": bool(t.requires_grad)}
        if type(t) is not Tensor:
            from .nn.parameter import Parameter
            if isinstance(t, Parameter):
                node["class"] = "Parameter"
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
class _Reader:
    """Rebuilds an object from manifest nodes, checking every node against what the format allows."""

    def __init__(self, archive, source: str, device=backend.CPU) -> None:
        self.archive = archive
        self.source = source
        self.device = device  # where loaded tensors go (map_location)
        self.tensors: dict[str, Tensor] = {}

    def fail(self, message: str) -> SerializationError:
        return SerializationError(f"al.load: {self.source} is not a valid al.save file: {message}")

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
        if kind in ("bool", "str"):
            value = node.get("value")
            if type(value) is not {"bool": bool, "str": str}[kind]:
                raise self.fail(f"a {kind} node holds {type(value).__name__}")
            return value
        if kind == "int":
            try:
                return int(node["value"])
            except (KeyError, TypeError, ValueError):
                raise self.fail(f"bad int node {node!r}") from None
        if kind == "float":
            value = node.get("value")
            if isinstance(value, str) and value in ("nan", "inf", "-inf"):
                return float(value)
            if type(value) not in (int, float):
                raise self.fail(f"bad float node {node!r}")
            return float(value)
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

    def array(self, name: str) -> np.ndarray:
        try:
            return self.archive[name]
        except ValueError as exc:  # NumPy refuses object arrays when allow_pickle=False
            raise SerializationError(
                f"al.load refused array {name!r} in {self.source}: {exc} (a pickled object array could run code "
                "when loaded; al.save never writes one, so this file was made by something else)") from None

    def tensor(self, node: dict) -> Tensor:
        name = node.get("array")
        if name in self.tensors:  # the same tensor saved twice: one object again
            return self.tensors[name]
        if not isinstance(name, str) or name == _MANIFEST or name not in self.archive.files:
            raise self.fail(f"tensor node names a missing array {name!r}")
        try:
            dtype = backend.to_dtype(node.get("dtype"))
        except TypeError:
            raise self.fail(f"unsupported dtype {node.get('dtype')!r}") from None
        array = self.array(name)
        shape = node.get("shape")
        if array.dtype != dtype.np_dtype or not isinstance(shape, list) or tuple(array.shape) != tuple(shape):
            raise self.fail(f"array {name!r} is {array.dtype} {tuple(array.shape)} but the manifest says "
                            f"{node.get('dtype')} {shape}")
        requires_grad = node.get("requires_grad", False)
        if not isinstance(requires_grad, bool) or (requires_grad and not dtype.is_floating_point):
            raise self.fail(f"bad requires_grad {requires_grad!r} for a {dtype.name} tensor")
        if node.get("class", "Tensor") not in ("Tensor", "Parameter"):
            raise self.fail(f"unknown tensor class {node.get('class')!r}")
        tensor = Tensor._make(array if self.device.type == "cpu" else backend.move(array, self.device))
        if node.get("class") == "Parameter":
            from .nn.parameter import Parameter
            tensor = Parameter(tensor, requires_grad=requires_grad)
        elif requires_grad:
            tensor.requires_grad_(True)
        self.tensors[name] = tensor
        return tensor


def load(f: str | os.PathLike | BinaryIO, map_location=None, *, weights_only: bool | None = None) -> Any:
    """Read what :func:`save` wrote. Safe on untrusted files: nothing in the file is executed.

    Tensors load on the CPU, wherever they were saved from, unless ``map_location`` names a device
    (``'cuda'``, ``al.device('cuda:0')``). ``weights_only`` is accepted for PyTorch compatibility; loading
    is always restricted to tensors and plain containers.
    """
    device = backend.CPU if map_location is None else backend.device(map_location)
    if device.type != "cpu":
        try:
            backend.backend_for(device.type)  # unavailable: say so before reading anything
        except RuntimeError as exc:
            raise RuntimeError(f"al.load: map_location={map_location!r} is not available: {exc}") from None
    source = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file object"
    try:
        archive = np.load(f, allow_pickle=False)
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise SerializationError(f"al.load: cannot read {source} as an al.save file (.npz): {exc}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise SerializationError(f"al.load: {source} is a single .npy array, not an al.save file; read it with "
                                 "numpy.load and wrap it with al.from_numpy")
    with archive:
        reader = _Reader(archive, source, device)
        if _MANIFEST not in archive.files:
            raise reader.fail("it has no __manifest__ entry (was it written by numpy.savez rather than al.save?)")
        manifest_bytes = reader.array(_MANIFEST)
        if manifest_bytes.dtype != np.uint8 or manifest_bytes.ndim != 1:
            raise reader.fail("the manifest is not a byte array")
        try:
            manifest = json.loads(manifest_bytes.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise reader.fail(f"the manifest is not valid JSON ({type(exc).__name__})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise reader.fail("the manifest does not name the al.save format")
        if manifest.get("version") != VERSION:
            raise SerializationError(f"al.load: {source} has format version {manifest.get('version')!r}; this "
                                     f"autograd_lab reads version {VERSION}")
        return reader.node(manifest.get("root"))

