"""``al.load`` on hostile files: crafted, truncated, corrupted, or built to expand past memory.

Every such file is refused with ``SerializationError`` (a ``pickle.UnpicklingError``, ``RuntimeError`` and
``ValueError``), whose message says what is wrong; nothing in a file is ever executed, and no size a file
declares is allocated before it is checked against ``max_bytes``. The files are real: zips and ``.npy``
members written byte by byte here, pickles with ``GLOBAL``/``REDUCE`` opcodes, and ``torch.save`` files.
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest
from crafted_files import declare_size, load, manifest, npy, npy_header, saved, tensor_node, zip_of

import autograd_lab as al
from autograd_lab.serialization import DEFAULT_MAX_BYTES, SerializationError


def test_the_error_is_what_torch_load_callers_catch():
    assert issubclass(SerializationError, pickle.UnpicklingError)
    assert issubclass(SerializationError, RuntimeError) and issubclass(SerializationError, ValueError)


# -- sizes: refused before anything is allocated ------------------------------------------------------------
def peak_bytes_of_refusing(data: bytes, **kwargs) -> int:
    """The most memory (Python's and NumPy's allocations) that loading ``data`` took before it was refused."""
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError):
            load(data, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_zip_bomb_is_refused_past_max_bytes_before_it_is_read():
    zeros = np.zeros(4 << 20)  # 32 MiB of zeros, about 32 KiB once deflated
    bomb = zip_of({"__manifest__.npy": manifest(tensor_node(shape=zeros.shape)), "tensor0.npy": npy(zeros)},
                  deflate=True)
    assert len(bomb) < 100_000
    with pytest.raises(SerializationError, match=r"'tensor0' expands to \d+ bytes, past the 1048576 bytes"):
        load(bomb, max_bytes=1 << 20)
    assert peak_bytes_of_refusing(bomb, max_bytes=1 << 20) < 1 << 20
    assert load(bomb, max_bytes=64 << 20).shape == zeros.shape  # a file within the limit loads


def test_a_zip_declaring_gigabytes_is_refused_with_the_default_limit():
    """The issue's case: a small file that would expand to 1.4 GB. Its zip says so; the default limit refuses."""
    honest = zip_of({"__manifest__.npy": manifest(tensor_node(shape=(175_000_000,))),
                     "tensor0.npy": npy_header((175_000_000,)) + b"\0" * 64}, deflate=True)
    lying = declare_size(honest, "tensor0.npy", 1_400_000_128)
    assert DEFAULT_MAX_BYTES == 1 << 30
    with pytest.raises(SerializationError, match="expands to 1400000128 bytes, past the 1073741824 bytes"):
        load(lying)
    with pytest.raises(SerializationError, match=r"declares float64 \(175000000,\) \(1400000000 bytes\) but holds 64"):
        load(honest)
    assert peak_bytes_of_refusing(honest) < 1 << 20 and peak_bytes_of_refusing(lying) < 1 << 20


def test_a_member_that_expands_past_its_declared_size_fails_its_checksum():
    data = np.arange(1000.0)
    honest = zip_of({"__manifest__.npy": manifest(tensor_node(shape=(10,))),
                     "tensor0.npy": npy_header((10,)) + data.tobytes()}, deflate=True)
    lying = declare_size(honest, "tensor0.npy", len(npy_header((10,))) + 80)
    with pytest.raises(SerializationError, match="'tensor0' is damaged: BadZipFile: Bad CRC-32"):
        load(lying)


@pytest.mark.parametrize("shape", [(10 ** 12,), (2 ** 40, 2 ** 40), (-1,), (3.5,)], ids=str)
def test_a_header_declaring_a_huge_or_bad_shape_is_refused(shape):
    crafted = zip_of({"__manifest__.npy": manifest(tensor_node(shape=(1,))),
                      "tensor0.npy": npy_header(shape) + b"\0" * 8})
    with pytest.raises(SerializationError, match="'tensor0' (declares|is damaged)"):
        load(crafted)


def test_max_bytes_counts_the_manifest_and_every_array():
    data = saved({"a": al.zeros(100, dtype=al.float64), "b": al.zeros(100, dtype=al.float64)})
    assert load(data, max_bytes=3000)["a"].shape == (100,)  # each array is 928 bytes with its header
    with pytest.raises(SerializationError, match=r"'tensor1' expands to 928 bytes, past the 2000 bytes this load may "
                                                 r"read \(max_bytes; \d+ read before it\)"):
        load(data, max_bytes=2000)
    with pytest.raises(TypeError, match="max_bytes must be a non-negative int"):
        load(data, max_bytes=-1)


# -- damaged files --------------------------------------------------------------------------------------------
ORIGINAL = {"w": al.arange(12.0).reshape(3, 4), "steps": al.tensor([1, 2, 3]), "note": "ok", "lr": 0.5}


def same(a, b) -> bool:
    return a.keys() == b.keys() and all(a[k].equal(b[k]) if al.is_tensor(a[k]) else a[k] == b[k] for k in a)


def test_every_truncation_is_refused():
    data = saved(ORIGINAL)
    for cut in range(0, len(data), 7):
        with pytest.raises(SerializationError):
            load(data[:cut])


def test_bit_flips_load_the_original_or_are_refused():
    """A flipped bit in the data fails a CRC-32; one in a zip field may be harmless (a date): then the file
    must still load exactly what was saved. No flip may raise anything but SerializationError."""
    data = saved(ORIGINAL)
    rng = np.random.default_rng(21)
    outcomes = {"refused": 0, "same": 0}
    for position in rng.choice(len(data) * 8, 300, replace=False):
        flipped = bytearray(data)
        flipped[position // 8] ^= 1 << (position % 8)
        try:
            loaded = load(bytes(flipped))
        except SerializationError:
            outcomes["refused"] += 1
            continue
        assert same(loaded, ORIGINAL), f"bit {position} changed what loads"
        outcomes["same"] += 1
    assert outcomes["refused"] > 100


@pytest.mark.parametrize("data,match", [
    (b"", "cannot read"),
    (b"GARBAGE" * 20, "cannot read"),
    (b"PK\x03\x04" + b"\0" * 60, "cannot read"),
    (zip_of({"__manifest__.npy": b"\x93NUMPX\x01\x00" + b"\0" * 60}), "damaged"),
    (zip_of({"__manifest__.npy": npy_header((3,), "|u1") + b"{}"}), "declares uint8 \\(3,\\) \\(3 bytes\\) but holds 2"),
    (zip_of({"__manifest__.npy": manifest(tensor_node(shape=(3,))), "tensor0.npy": npy_header((3,), "<f4") + b"\0" * 8}),
     "declares float32 \\(3,\\) \\(12 bytes\\) but holds 8"),
    (zip_of({"__manifest__.npy": manifest(tensor_node(shape=(1,))), "tensor0.npy": npy_header((1,)) + b"\0" * 16}),
     "declares float64 \\(1,\\) \\(8 bytes\\) but holds 16"),
    (zip_of({"__manifest__.npy": manifest(tensor_node(shape=(1,))), "tensor0.npy": npy_header((1,), "<i8") + b"\0" * 8}),
     "is int64 \\(1,\\) but the manifest says float64"),
    (zip_of({"data.npy": npy(np.ones(2))}), "no __manifest__"),
], ids=["empty", "garbage", "zip-header-only", "bad-npy-magic", "manifest-short", "short-data", "long-data",
        "dtype-mismatch", "no-manifest"])
def test_wrong_magic_and_mismatched_sizes_are_refused(data, match):
    with pytest.raises(SerializationError, match=match):
        load(data)


def test_a_missing_path_raises_what_open_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        al.load(tmp_path / "absent.pt")


def test_an_encrypted_or_unknown_compression_member_is_refused():
    data = bytearray(saved({"w": al.ones(2)}))
    encrypted, unknown = bytearray(data), bytearray(data)
    for signature, flags_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        at = data.find(signature)
        while at != -1:
            encrypted[at + flags_at] |= 1  # the "encrypted" flag bit
            unknown[at + method_at] = 99  # AES, which zipfile cannot read
            at = data.find(signature, at + 4)
    for damaged, match in ((encrypted, "encrypted"), (unknown, "compression method")):
        with pytest.raises(SerializationError, match=match):
            load(bytes(damaged))
