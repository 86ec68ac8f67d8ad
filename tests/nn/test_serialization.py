"""``al.save`` / ``al.load``: round trips, what is kept (as ``torch.save`` keeps it), errors, and safety.

Choice tested here: ``requires_grad`` is saved for every tensor and restored on a leaf, as
``torch.save``/``torch.load`` do (a non-leaf comes back as a leaf that requires grad, without its
``grad_fn``); ``.grad`` is not saved (PyTorch does not save it either).
"""

from __future__ import annotations

import io
import json
import pathlib
import pickle
from collections import OrderedDict, namedtuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as al
from autograd_lab.serialization import SerializationError

torch = pytest.importorskip("torch")


def roundtrip(obj):
    buffer = io.BytesIO()
    al.save(obj, buffer)
    buffer.seek(0)
    return al.load(buffer)


def same_bytes(a: al.Tensor, b: al.Tensor) -> bool:
    return a.dtype is b.dtype and a.shape == b.shape and a.numpy().tobytes() == b.numpy().tobytes()


ALL_DTYPES = [al.float16, al.float32, al.float64, al.int8, al.int16, al.int32, al.int64, al.uint8, al.bool]


# -- round trips ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_any_shape_and_dtype_round_trips_byte_for_byte(dtype, data):
    """Arbitrary values of every dtype (NaN, infinities and -0.0 included), 0-d and empty shapes."""
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    t = al.from_numpy(data.draw(hnp.arrays(dtype=dtype.np_dtype, shape=shape)))
    assert same_bytes(roundtrip(t), t)


def test_special_float_values_keep_their_bits():
    values = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1.7976931348623157e308])
    for np_dtype in (np.float16, np.float32, np.float64):
        with np.errstate(over="ignore"):
            t = al.from_numpy(values.astype(np_dtype))
        assert same_bytes(roundtrip(t), t)


def test_zero_dim_empty_and_non_contiguous_tensors():
    scalar = al.tensor(3.5)
    empty = al.zeros(0, 3, dtype=al.int16)
    transposed = al.arange(12.0).reshape(3, 4).t()  # a non-contiguous view
    sliced = al.arange(10, dtype=al.int32)[::3]
    loaded = roundtrip([scalar, empty, transposed, sliced])
    assert loaded[0].shape == () and loaded[0].item() == 3.5 and loaded[0].dtype is al.float32
    assert loaded[1].shape == (0, 3) and loaded[1].dtype is al.int16
    assert loaded[2].equal(transposed) and loaded[2].is_contiguous()
    assert loaded[3].tolist() == [0, 3, 6, 9] and loaded[3].dtype is al.int32


def test_nested_structures_of_tensors_and_plain_values():
    w = al.randn(3, 2)
    obj = {
        "model": OrderedDict([("layer1.weight", w), ("layer1.bias", al.zeros(2)), ("steps", al.tensor(7))]),
        "optimizer": {"state": {0: {"momentum": al.ones(3, 2, dtype=al.float64)}}, "param_groups": [
            {"lr": 0.1, "betas": (0.9, 0.999), "nesterov": False, "params": [0], "name": None}]},
        "epoch": 12, "huge": 2 ** 80, "loss": float("nan"), "best": float("-inf"), "tiny": -0.0,
        "note": "entraînement ✓", (1, "a"): "tuple key", 2.5: "float key", None: [[], (), {}],
    }
    loaded = roundtrip(obj)
    assert list(loaded) == list(obj)
    assert type(loaded["model"]) is OrderedDict and list(loaded["model"]) == list(obj["model"])
    assert loaded["model"]["layer1.weight"].equal(w) and loaded["model"]["steps"].dtype is al.int64
    group = loaded["optimizer"]["param_groups"][0]
    assert group == {"lr": 0.1, "betas": (0.9, 0.999), "nesterov": False, "params": [0], "name": None}
    assert type(group["betas"]) is tuple and type(group["params"]) is list
    assert loaded["optimizer"]["state"][0]["momentum"].dtype is al.float64
    assert loaded["epoch"] == 12 and loaded["huge"] == 2 ** 80 and type(loaded["huge"]) is int
    assert np.isnan(loaded["loss"]) and loaded["best"] == float("-inf")
    assert str(loaded["tiny"]) == "-0.0"
    assert loaded["note"] == "entraînement ✓" and loaded[(1, "a")] == "tuple key" and loaded[2.5] == "float key"
    assert loaded[None] == [[], (), {}] and type(loaded[None][1]) is tuple


def test_single_values_and_empty_containers():
    for obj in (None, 0, True, 1.25, "", [], (), {}, OrderedDict()):
        loaded = roundtrip(obj)
        assert loaded == obj and type(loaded) is type(obj)


def test_the_same_tensor_twice_loads_as_one_object():
    shared, twin = al.ones(2), al.ones(2)
    loaded = roundtrip({"a": shared, "b": [shared, twin]})
    assert loaded["a"] is loaded["b"][0]
    assert loaded["b"][1] is not loaded["a"]


def test_views_of_one_tensor_load_as_separate_copies():
    base = al.arange(6.0)
    loaded = roundtrip([base, base[2:4]])
    assert loaded[1].tolist() == [2.0, 3.0] and loaded[1]._base is None


# -- requires_grad, as torch.save keeps it ---------------------------------------------------------
def torch_roundtrip(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer)


def test_requires_grad_is_kept_as_torch_keeps_it():
    leaf = al.tensor([1.0, 2.0], requires_grad=True)
    plain = al.tensor([1.0, 2.0])
    computed = leaf * 2
    leaf.grad = al.ones(2)
    ours = roundtrip([leaf, plain, computed])
    tleaf = torch.tensor([1.0, 2.0], requires_grad=True)
    tleaf.grad = torch.ones(2)
    theirs = torch_roundtrip([tleaf, torch.tensor([1.0, 2.0]), tleaf * 2])
    for a, b in zip(ours, theirs):
        assert (a.requires_grad, a.is_leaf, a.grad_fn is None, a.grad is None) == \
            (b.requires_grad, b.is_leaf, b.grad_fn is None, b.grad is None)
    assert ours[0].requires_grad and ours[2].requires_grad and ours[2].is_leaf and ours[0].grad is None
    assert not ours[1].requires_grad


def test_loaded_tensors_train_like_fresh_leaves():
    w = roundtrip({"w": al.tensor([1.0, -2.0], requires_grad=True)})["w"]
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, -4.0]


# -- files ----------------------------------------------------------------------------------------
def test_paths_are_written_exactly_as_given(tmp_path):
    for target in (str(tmp_path / "model.pt"), tmp_path / "weights.bin"):
        al.save({"w": al.ones(3)}, target)
        assert pathlib.Path(target).exists()
        assert al.load(target)["w"].tolist() == [1.0, 1.0, 1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt", "weights.bin"]  # no ".npz" appended


def test_the_file_is_a_plain_npz_numpy_can_read(tmp_path):
    path = tmp_path / "t.npz"
    al.save({"x": al.arange(3, dtype=al.int64)}, path)
    with np.load(path, allow_pickle=False) as archive:
        manifest = json.loads(archive["__manifest__"].tobytes().decode("utf-8"))
        node = manifest["root"]["items"][0][1]
        assert node["dtype"] == "int64" and node["shape"] == [3]
        assert archive[node["array"]].tolist() == [0, 1, 2]


def test_map_location(tmp_path):
    path = tmp_path / "t.pt"
    al.save(al.ones(1), path)
    assert al.load(path, map_location="cpu").tolist() == [1.0]
    assert al.load(path, weights_only=True).tolist() == [1.0]
    with pytest.raises(RuntimeError, match="map_location='cuda'"):
        al.load(path, map_location="cuda")


# -- unsupported objects: errors that name the key path and the type --------------------------------
Point = namedtuple("Point", "x y")


@pytest.mark.parametrize("obj,path,type_name", [
    ({"layers": [{"w": al.ones(1)}, {"w": np.ones(2)}]}, "obj['layers'][1]['w']", "numpy.ndarray"),
    ([1, {2, 3}], "obj[1]", "builtins.set"),
    ({"f": lambda x: x}, "obj['f']", "function"),
    ({"scale": np.float32(2.0)}, "obj['scale']", "numpy.float32"),
    (object(), "obj", "builtins.object"),
    ({"p": Point(1, 2)}, "obj['p']", "Point"),
])
def test_unsupported_objects_name_the_path_and_type(obj, path, type_name):
    with pytest.raises(TypeError) as info:
        roundtrip(obj)
    message = str(info.value)
    assert path in message and type_name in message


def test_unsupported_dict_keys():
    with pytest.raises(TypeError, match=r"dict key of type Tensor in obj\['outer'\]"):
        roundtrip({"outer": {al.ones(1): 1}})
    with pytest.raises(TypeError, match="dict key of type frozenset"):
        roundtrip({frozenset(): 1})


def test_reference_cycles_are_refused():
    loop = [al.ones(1)]
    loop.append(loop)
    with pytest.raises(ValueError, match=r"obj\[1\] contains itself"):
        roundtrip(loop)


# -- untrusted files: nothing executes ------------------------------------------------------------
EXECUTED: list = []


def mark_executed():
    EXECUTED.append(True)
    return "pwned"


class Payload:
    """Unpickling this calls ``mark_executed``: a stand-in for arbitrary code in a malicious file."""

    def __reduce__(self):
        return (mark_executed, ())


def manifest_bytes(manifest) -> np.ndarray:
    return np.frombuffer(json.dumps(manifest).encode("utf-8"), dtype=np.uint8)


def crafted(**arrays) -> io.BytesIO:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # np.savez pickles object arrays: exactly what an attacker would write
    buffer.seek(0)
    return buffer


def tensor_manifest(array="tensor0", dtype="float32", shape=(1,), **extra):
    node = {"type": "tensor", "array": array, "dtype": dtype, "shape": list(shape), "requires_grad": False}
    node.update(extra)
    return {"format": "autograd_lab.save", "version": 1, "root": node}


def test_a_pickled_object_array_is_refused_without_running_it():
    EXECUTED.clear()
    assert pickle.loads(pickle.dumps(Payload())) == "pwned" and EXECUTED  # the payload works when unpickled
    EXECUTED.clear()
    evil = np.array([Payload()], dtype=object)
    with pytest.raises(SerializationError, match="pickled object array"):
        al.load(crafted(__manifest__=manifest_bytes(tensor_manifest()), tensor0=evil))
    with pytest.raises(SerializationError, match="pickled object array"):
        al.load(crafted(__manifest__=evil))
    assert not EXECUTED


def test_a_pickle_file_is_refused_without_running_it(tmp_path):
    EXECUTED.clear()
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"w": Payload()}))
    with pytest.raises(SerializationError, match="cannot read"):
        al.load(path)
    torch.save({"w": torch.ones(1)}, tmp_path / "torch.pt")  # a torch.save file is a zip of pickles
    with pytest.raises(SerializationError):
        al.load(tmp_path / "torch.pt")
    assert not EXECUTED


@pytest.mark.parametrize("arrays,match", [
    (lambda: {"tensor0": np.ones(1, np.float32)}, "no __manifest__"),
    (lambda: {"__manifest__": np.ones(3)}, "not a byte array"),
    (lambda: {"__manifest__": np.frombuffer(b"{not json", dtype=np.uint8)}, "not valid JSON"),
    (lambda: {"__manifest__": manifest_bytes({"format": "other", "version": 1, "root": None})}, "format"),
    (lambda: {"__manifest__": manifest_bytes({"format": "autograd_lab.save", "version": 99, "root": None})},
     "version 99"),
    (lambda: {"__manifest__": manifest_bytes({"format": "autograd_lab.save", "version": 1,
                                              "root": {"type": "module", "class": "os.system"}})}, "unknown node type"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest(array="missing"))}, "missing array"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest(array="__manifest__"))}, "missing array"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest(dtype="float64")), "tensor0": np.ones(1, np.float32)},
     "manifest says float64"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest(shape=(2,))), "tensor0": np.ones(1, np.float32)},
     "manifest says"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest()), "tensor0": np.ones(1, ">f4")}, "manifest says"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest(dtype="complex64")), "tensor0": np.ones(1, np.complex64)},
     "unsupported dtype"),
    (lambda: {"__manifest__": manifest_bytes(tensor_manifest(dtype="int64", requires_grad=True)),
              "tensor0": np.ones(1, np.int64)}, "requires_grad"),
    (lambda: {"__manifest__": manifest_bytes({"format": "autograd_lab.save", "version": 1,
                                              "root": {"type": "dict", "items": [[{"type": "list", "items": []},
                                                                                  {"type": "none"}]]}})}, "dict key"),
    (lambda: {"__manifest__": manifest_bytes({"format": "autograd_lab.save", "version": 1,
                                              "root": {"type": "int", "value": "12; import os"}})}, "bad int"),
    (lambda: {"__manifest__": manifest_bytes({"format": "autograd_lab.save", "version": 1, "root": nested(300)})},
     "nested deeper"),
])
def test_malformed_files_are_refused_with_a_clear_error(arrays, match):
    with pytest.raises(SerializationError, match=match):
        al.load(crafted(**arrays()))


def nested(depth: int) -> dict:
    node: dict = {"type": "none"}
    for _ in range(depth):
        node = {"type": "list", "items": [node]}
    return node


def test_a_single_npy_array_is_refused(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.ones(2))
    with pytest.raises(SerializationError, match="single .npy array"):
        al.load(path)


def test_exported_like_torch():
    from autograd_lab import serialization
    assert al.save is serialization.save and al.load is serialization.load


# -- modules -----------------------------------------------------------------------------------------
def test_parameters_load_as_parameters_as_in_torch():
    param = al.nn.Parameter(al.randn(2, 3))
    frozen = al.nn.Parameter(al.ones(2), requires_grad=False)
    loaded = roundtrip({"p": param, "frozen": frozen, "plain": param.detach()})
    tparam = torch_roundtrip(torch.nn.Parameter(torch.randn(2, 3)))
    assert type(loaded["p"]) is al.nn.Parameter and type(tparam) is torch.nn.Parameter
    assert loaded["p"].requires_grad and loaded["p"].equal(param) and loaded["p"].is_leaf
    assert type(loaded["frozen"]) is al.nn.Parameter and not loaded["frozen"].requires_grad
    assert type(loaded["plain"]) is al.Tensor


def test_a_module_state_dict_round_trips_through_a_file(tmp_path):
    al.manual_seed(0)
    model = al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 2))
    al.save(model.state_dict(), tmp_path / "model.pt")
    fresh = al.nn.Sequential(al.nn.Linear(3, 4), al.nn.Tanh(), al.nn.Linear(4, 2))
    x = al.randn(5, 3)
    assert not fresh(x).equal(model(x))
    fresh.load_state_dict(al.load(tmp_path / "model.pt"))
    assert fresh(x).equal(model(x))
    assert list(al.load(tmp_path / "model.pt")) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_an_unknown_tensor_class_in_a_file_is_refused():
    manifest = tensor_manifest(**{"class": "os.system"})
    with pytest.raises(SerializationError, match="unknown tensor class 'os.system'"):
        al.load(crafted(__manifest__=manifest_bytes(manifest), tensor0=np.ones(1, np.float32)))
