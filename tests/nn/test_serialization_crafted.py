"""``al.load`` on crafted files: pickles that would run code, manifests built to crash a careless reader.

A pickle's ``GLOBAL`` opcode names any importable callable (``os.system``, ``builtins.exec``...) and ``REDUCE``
calls it; ``al.load`` never unpickles, so such a payload is refused wherever it sits: as the whole file, inside
a ``torch.save``-style zip, as an object array, as the manifest. Each test proves the payload works when
unpickled, then that loading it leaves no trace. Manifests with unhashable names, huge numbers, deep nesting
or node types that are not data are refused with ``SerializationError`` too, never a raw ``TypeError``,
``OverflowError`` or ``RecursionError``.
"""

from __future__ import annotations

import io
import json
import pickle
import sys

import numpy as np
import pytest
from crafted_files import load, manifest, npy, npy_header, tensor_node, zip_of

import autograd_lab as al
from autograd_lab.serialization import SerializationError


def touch_payload(path) -> bytes:
    """Protocol-0 pickle: GLOBAL builtins.exec, then REDUCE with code that creates ``path``."""
    code = f"open({str(path)!r}, 'w').close()"
    return b"cbuiltins\nexec\n(V" + code.encode() + b"\ntR."


def system_payload(path) -> bytes:
    """GLOBAL os.system (posix.system where pickle resolves it so), REDUCE with a shell command touching ``path``."""
    return b"cos\nsystem\n(V" + f"touch {path}".encode() + b"\ntR."


def popen_payload(path) -> bytes:
    """Protocol-2 form: subprocess.Popen(['touch', path]) through STACK_GLOBAL and REDUCE."""
    return pickle.dumps(_PopenCall(str(path)), protocol=2)


class _PopenCall:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        import subprocess
        return (subprocess.call, (["touch", self.path],))


PAYLOADS = {"exec": touch_payload, "os.system": system_payload, "subprocess": popen_payload}


@pytest.mark.skipif(sys.platform == "win32", reason="the payloads use touch")
@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_payloads_work_when_unpickled(payload, tmp_path):
    marker = tmp_path / "ran"
    pickle.loads(PAYLOADS[payload](marker))
    assert marker.exists()


def placements(data: bytes, object_array_npy: bytes) -> dict[str, bytes]:
    return {
        "the whole file": data,
        "a torch.save-style zip": zip_of({"archive/data.pkl": data, "archive/version": b"3\n"}),
        "an object array": zip_of({"__manifest__.npy": manifest(tensor_node()), "tensor0.npy": object_array_npy}),
        "the manifest": zip_of({"__manifest__.npy": object_array_npy}),
        "a member beside the manifest": zip_of({"__manifest__.npy": manifest(None), "data.pkl": data}),
    }


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_pickle_payload_is_never_run_wherever_it_sits(payload, tmp_path):
    marker = tmp_path / "ran"
    data = PAYLOADS[payload](marker)
    object_array = npy_header((1,), "|O") + data  # what np.save writes for an object array
    for where, file in placements(data, object_array).items():
        try:
            result = load(file)
        except SerializationError:
            result = "refused"
        assert not marker.exists(), f"the payload ran from {where}"
        assert result == "refused" or where == "a member beside the manifest" and result is None


def test_an_object_array_is_refused_by_its_dtype_before_its_data_is_read(tmp_path):
    file = zip_of({"__manifest__.npy": manifest(tensor_node()), "tensor0.npy": npy(np.array([1, "x"], object))})
    with pytest.raises(SerializationError, match="holds Python objects or records .*pickled object array"):
        load(file)


def test_a_real_torch_save_file_is_refused_without_unpickling(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(2), "evil": Evil()}, path)
    with pytest.raises(SerializationError, match="torch.save file .* does not unpickle"):
        al.load(path)
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)  # a plain state dict is refused the same way
    with pytest.raises(SerializationError, match="torch.save file"):
        al.load(path)
    assert not marker.exists()


# -- manifests built to crash the reader -------------------------------------------------------------------
def crafted(root, **arrays) -> bytes:
    return zip_of({"__manifest__.npy": manifest(root), **{f"{k}.npy": npy(v) for k, v in arrays.items()}})


def raw_manifest(text: str) -> bytes:
    return zip_of({"__manifest__.npy": npy(np.frombuffer(text.encode(), np.uint8))})


ONE = {"tensor0": np.ones(1)}


@pytest.mark.parametrize("file,match", [
    (crafted(tensor_node(array=["tensor0"]), **ONE), "missing array"),  # was TypeError: unhashable type: 'list'
    (crafted(tensor_node(array={"a": 1}), **ONE), "missing array"),
    (crafted({"type": ["tensor"]}), "expected an object with a 'type'"),
    (crafted(tensor_node(dtype=["float64"]), **ONE), "unsupported dtype"),
    (crafted(tensor_node(shape={"0": 1}), **ONE), "but the manifest says"),
    (crafted({"type": "dict", "items": [[{"type": "list", "items": []}, {"type": "none"}]]}), "dict key of type list"),
    (crafted({"type": "float", "value": 10 ** 400}), "bad float node"),  # was OverflowError
    (crafted({"type": "int", "value": "9" * 5000}), "bad int node"),
    (crafted({"type": "int", "value": 12}), "bad int node"),
    (raw_manifest('{"format": "autograd_lab.save", "version": 1, "root": ' + "9" * 5000 + "}"), "not valid JSON"),
    (raw_manifest('{"format": "autograd_lab.save", "version": 1, "root": ' + "[" * 100_000 + "]" * 100_000 + "}"),
     "not valid JSON"),
    (crafted({"type": "module", "class": "os.system", "args": ["touch /tmp/x"]}), "unknown node type 'module'"),
    (crafted({**tensor_node(), "class": "builtins.eval"}, **ONE), "unknown tensor class 'builtins.eval'"),
    (crafted({"type": "tuple", "items": None}), "without a list of items"),
    (crafted({"type": "str", "value": 3}), "a str node holds int"),
], ids=["array-list", "array-dict", "type-list", "dtype-list", "shape-dict", "key-list", "float-10e400",
        "int-5000-digits", "int-not-string", "json-int-5000-digits", "json-100000-deep", "module-node",
        "tensor-class", "items-none", "str-not-string"])
def test_crafted_manifests_are_refused(file, match):
    with pytest.raises(SerializationError, match=match):
        load(file)


def test_a_structure_nested_past_the_limit_is_refused():
    node: dict = {"type": "none"}
    for _ in range(250):
        node = {"type": "list", "items": [node]}
    with pytest.raises(SerializationError, match="nested deeper than 200 levels"):
        load(crafted(node))


def test_one_array_named_a_million_times_loads_once():
    root = {"type": "list", "items": [tensor_node() for _ in range(10_000)]}
    loaded = load(crafted(root, **ONE))
    assert len(loaded) == 10_000 and all(t is loaded[0] for t in loaded)


def test_a_fortran_ordered_array_loads_as_saved():
    array = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    loaded = load(crafted(tensor_node(shape=(2, 3)), tensor0=array))
    assert loaded.tolist() == array.tolist()


def test_files_written_by_al_save_still_load(tmp_path):
    obj = {"w": al.randn(3, 2), "b": [al.tensor(1), (al.zeros(0, 2),)], "meta": {"epoch": 3, "lr": 1e-3}}
    al.save(obj, tmp_path / "x.pt")
    loaded = al.load(tmp_path / "x.pt")
    assert loaded["w"].equal(obj["w"]) and loaded["b"][1][0].shape == (0, 2) and loaded["meta"] == obj["meta"]
    assert json.loads(json.dumps(loaded["meta"])) == {"epoch": 3, "lr": 1e-3}
    assert al.models.small_cnn(pretrained=True) is not None  # the shipped weights load through al.load


def test_a_pickle_of_tensors_is_refused(tmp_path):
    buffer = io.BytesIO(pickle.dumps({"w": np.ones(2)}))
    with pytest.raises(SerializationError, match="cannot read"):
        al.load(buffer)
