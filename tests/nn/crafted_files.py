"""Files for al.load's tests, built byte by byte: ``.npy`` members and headers, manifests, zips (honest, or
lying about a member's size), so that tests can hand ``al.load`` exactly the bytes an attacker would."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import numpy as np

import autograd_lab as al


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def npy_header(shape, descr: str = "<f8", fortran: bool = False) -> bytes:
    """A version 1.0 ``.npy`` header declaring ``shape`` and ``descr``, padded as NumPy pads it."""
    text = repr({"descr": descr, "fortran_order": fortran, "shape": tuple(shape)}) + " "
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


def manifest(root) -> bytes:
    return npy(np.frombuffer(json.dumps({"format": "autograd_lab.save", "version": 1, "root": root}).encode(),
                             np.uint8))


def tensor_node(array="tensor0", dtype="float64", shape=(1,)):
    return {"type": "tensor", "array": array, "dtype": dtype, "shape": list(shape), "requires_grad": False}


def zip_of(members: dict[str, bytes], deflate: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def declare_size(data: bytes, member: str, size: int) -> bytes:
    """The zip with ``member``'s uncompressed size in the central directory replaced by ``size`` (a lie)."""
    data = bytearray(data)
    entry = data.find(b"PK\x01\x02")
    while entry != -1:
        name_length = struct.unpack_from("<H", data, entry + 28)[0]
        if data[entry + 46:entry + 46 + name_length].decode() == member:
            struct.pack_into("<I", data, entry + 24, size)
        entry = data.find(b"PK\x01\x02", entry + 4)
    return bytes(data)


def load(data: bytes, **kwargs):
    return al.load(io.BytesIO(data), **kwargs)


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    al.save(obj, buffer)
    return buffer.getvalue()


