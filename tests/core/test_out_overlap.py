"""``out=`` sharing memory with an input (``ops.out.write_out``), against PyTorch.

PyTorch writes ``out`` while it reads the inputs, so where the result would depend on the order of its writes it
refuses with its overlap error: the elementwise ops a partial overlap (``out`` the input itself is fine),
``cat``/``stack`` any overlap. The reductions and matrix products do not check (PyTorch then gives whatever its
kernel writes, sometimes not the clean result; ours compute out of place, as if the input were cloned), nor any
op layouts that are not dense (strided slices, broadcasts). Each case runs in both.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

TORCH_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                 "single memory location. Please clone() the tensor before performing the operation.")


def _y(m):
    return m.arange(10.0)


def _x(m):
    return m.arange(12.0).view(3, 4)


REFUSED = {
    "add partial": lambda m, y: m.add(y[2:7], 1, out=y[:5]),
    "add full first, partial second operand": lambda m, y: m.add(y[:5], y[1:6], out=y[:5]),
    "add same bytes, other strides": lambda m, y: m.add(y.view(2, 5).t(), 1, out=y.view(5, 2)),
    "add 0-dim element of out": lambda m, y: m.add(y, y[0], out=y),
    "add broadcast slice of out": lambda m, y: m.add(y, y[:1], out=y),
    "add out to be resized": lambda m, y: m.add(y[2:7], 1, out=y[:3]),
    "add partial, result dtype mismatch too": lambda m, y: (lambda z: m.add(z[2:7], 1.5, out=z[:5]))(y.long()),
    "sub partial": lambda m, y: m.sub(y[2:7], y[:5], out=y[:5]),
    "mul partial": lambda m, y: m.mul(y[:5], y[1:6], out=y[:5]),
    "div partial": lambda m, y: m.div(y[1:6], 2, out=y[:5]),
    "exp partial": lambda m, y: m.exp(y[1:6], out=y[:5]),
    "exp out containing the input": lambda m, y: m.exp(y[:5], out=y),
    "log partial": lambda m, y: m.log(y[1:6], out=y[:5]),
    "clamp partial": lambda m, y: m.clamp(y[1:6], 2, 4, out=y[:5]),
    "clamp tensor bound partial": lambda m, y: m.clamp(y[5:], y[3:8], out=y[5:]),
    "where partial": lambda m, y: m.where(y[:5] > 2, y[1:6], m.zeros(5), out=y[:5]),
    "cat partial": lambda m, y: m.cat([y[:3], y[3:5]], out=y[2:7]),
    "cat out is the input": lambda m, y: m.cat([y[:5]], out=y[:5]),
    "cat out to be resized": lambda m, y: m.cat([y[:3]], out=y[2:4]),
    "stack partial": lambda m, y: m.stack([y[:3], y[3:6]], out=y[2:8].view(2, 3)),
    "stack out is the input": lambda m, y: m.stack([y[:5]], out=y[:5].view(1, 5)),
}

# (result compared with torch's: True where torch's kernel gives the clean value)
ALLOWED = {
    "add out is the input": (lambda m, y: m.add(y, 1, out=y), True),
    "add out is the other operand": (lambda m, y: m.add(1.0 + y, y, out=y), True),
    "add same view of the elements": (lambda m, y: m.add(y[:5], 1, out=y[:5]), True),
    "add 2-d views alike": (lambda m, y: m.add(y.view(2, 5), y.view(2, 5), out=y.view(2, 5)), True),
    "add strided slices (not checked)": (lambda m, y: m.add(y[::2], 1, out=y[1::2]), True),
    "add strided, same elements": (lambda m, y: m.add(y.view(2, 5)[:, :2], 1, out=y.view(2, 5)[:, :2]), True),
    "mul disjoint halves": (lambda m, y: m.mul(y[:5], y[5:], out=y[5:]), True),
    "exp out is the input": (lambda m, y: m.exp(y, out=y), True),
    "clamp out is the input": (lambda m, y: m.clamp(y, 2, 4, out=y), True),
    "where out is the input": (lambda m, y: m.where(y > 2, y, m.zeros(10), out=y), True),
    "cat disjoint": (lambda m, y: m.cat([y[:3]], out=y[5:8]), True),
    "sum into a row of the input": (lambda m, y: m.sum(y.view(2, 5), 0, out=y[:5]), False),
    "sum of other rows into a row": (lambda m, y: m.sum(y.view(2, 5)[1:], 0, out=y[:5]), True),
    "sum over all into an element": (lambda m, y: m.sum(y, 0, out=y[0]), True),
    "mean into a row of the input": (lambda m, y: m.mean(y.view(2, 5), 0, out=y[:5]), False),
    "mm out is the first factor": (lambda m, y: m.mm(y[:4].view(2, 2), m.eye(2), out=y[:4].view(2, 2)), True),
    "mm out overlaps a factor": (lambda m, y: m.mm(y[:4].view(2, 2), m.eye(2), out=y[2:6].view(2, 2)), True),
    "bmm out is the input": (lambda m, y: m.bmm(y[:8].view(2, 2, 2), y[:8].view(2, 2, 2), out=y[:8].view(2, 2, 2)),
                             False),
    "matmul out is the vector": (lambda m, y: m.matmul(m.eye(4), y[:4], out=y[:4]), False),
}


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")  # (torch's cat resizes first)
@pytest.mark.parametrize("case", list(REFUSED))
def test_out_overlap_refused_as_in_torch(case):
    op = REFUSED[case]
    with pytest.raises(RuntimeError) as theirs:
        op(torch, _y(torch))
    assert str(theirs.value) == TORCH_MESSAGE
    y = _y(al)
    before = y.numpy().copy()
    with pytest.raises(RuntimeError) as ours:
        op(al, y)
    assert str(ours.value).startswith(TORCH_MESSAGE + " [autograd_lab] ")
    assert "(out=...)" in str(ours.value) and ".clone()" in str(ours.value)
    np.testing.assert_array_equal(y.numpy(), before)  # nothing written


@pytest.mark.parametrize("case", list(ALLOWED))
def test_out_overlap_allowed_as_in_torch(case):
    op, compare = ALLOWED[case]
    ty, y = _y(torch), _y(al)
    theirs = op(torch, ty)
    ours = op(al, y)
    if compare:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-6)


def test_unchecked_ops_compute_as_if_the_input_were_cloned():
    """Where PyTorch does not check (reductions), its kernel may read what it has already written; ours don't."""
    y = _y(al)
    al.sum(y.view(2, 5), 0, out=y[:5])
    np.testing.assert_array_equal(y[:5].numpy(), [5.0, 7.0, 9.0, 11.0, 13.0])


def test_hint_names_the_op_and_the_kind_of_overlap():
    y = _y(al)
    with pytest.raises(RuntimeError, match=r"add\(out=\.\.\.\) would write into out of shape \(5,\) while reading "
                                           r"an input of shape \(5,\) that shares part of its memory"):
        al.add(y[2:7], 1, out=y[:5])
    with pytest.raises(RuntimeError, match=r"cat\(out=\.\.\.\) was given an input of shape \(5,\) that is out "
                                           r"itself.*refuses any overlap"):
        al.cat([y[:5]], out=y[:5])


def test_grad_error_comes_before_the_overlap():
    for m in (torch, al):
        y = m.arange(10.0, requires_grad=True)
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
            m.add(y[2:7], 1, out=y.detach()[:5])

