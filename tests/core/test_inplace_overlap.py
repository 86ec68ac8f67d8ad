"""In-place ops whose other tensors share memory with the tensor written (``ops.inplace.check_sources``).

PyTorch reads and writes element by element, so it refuses, with its overlap error, what would depend on its
order: most ops a partial overlap (``assert_no_partial_overlap``; the very same memory laid out alike is fine),
the scatter and index ops any overlap (``assert_no_overlap``). Ours compute out of place, so they used to give a
value silently. Layouts PyTorch finds "too hard" (not dense: strided slices, broadcasts) it does not check, nor
some ops at all (``masked_scatter_``, ``ldexp_``, ``addmm_``...); those stay allowed here. Each case runs in both.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

TORCH_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                 "single memory location. Please clone() the tensor before performing the operation.")


def _y(m):
    return m.arange(1.0, 11.0, dtype=m.float64)


def _ints(m):
    return m.tensor([0, 1, 2, 0, 0])


def _bools(m):
    return m.tensor([True, False, True, True, False, True, False, True])


def _idx(m, *values):
    return m.tensor(list(values))


def _setitem(t, key, value):
    t[key] = value
    return t


# (op named in the hint, program): PyTorch refuses each
REFUSED = {
    "scatter_reduce_ itself": ("scatter_reduce_", lambda m: (lambda y: y.scatter_reduce_(
        0, _idx(m, 0, 0, 1, 1, 2), y, "sum"))(m.arange(5.0))),
    "scatter_add_ itself": ("scatter_add_", lambda m: (lambda y: y.scatter_add_(0, _idx(m, 0, 0, 1, 1, 2), y))(
        m.arange(5.0))),
    "scatter_add_ partial": ("scatter_add_", lambda m: (lambda y: y[:5].scatter_add_(
        0, _idx(m, 0, 0, 1, 1, 2), y[2:7]))(_y(m))),
    "scatter_ same elements": ("scatter_", lambda m: (lambda y: y[:5].scatter_(0, _idx(m, 4, 3, 2, 1, 0), y[:5]))(
        _y(m))),
    "scatter_ index": ("scatter_", lambda m: (lambda y: y[:3].scatter_(0, y[1:4], m.arange(3)))(_ints(m))),
    "index_add_ same elements": ("index_add_", lambda m: (lambda y: y[:5].index_add_(
        0, _idx(m, 4, 3, 2, 1, 0), y[:5]))(_y(m))),
    "index_add_ index": ("index_add_", lambda m: (lambda y: y[:3].index_add_(0, y[1:4], m.tensor([5, 5, 5])))(
        _ints(m))),
    "index_copy_ partial": ("index_copy_", lambda m: (lambda y: y[:5].index_copy_(
        0, _idx(m, 4, 3, 2, 1, 0), y[2:7]))(_y(m))),
    "index_reduce_ itself": ("index_reduce_", lambda m: (lambda y: y.index_reduce_(0, m.arange(10), y, "amax"))(
        _y(m))),
    "index_fill_ index": ("index_fill_", lambda m: (lambda y: y[:3].index_fill_(0, y[1:4], 7))(_ints(m))),
    "index_put_ same elements": ("index_put_", lambda m: (lambda y: y[:5].index_put_(
        (_idx(m, 4, 3, 2, 1, 0),), y[:5]))(_y(m))),
    "index_put_ accumulate partial": ("index_put_", lambda m: (lambda y: y[:5].index_put_(
        (_idx(m, 4, 3, 2, 1, 0),), y[2:7], accumulate=True))(_y(m))),
    "index_put_ 0-dim value": ("index_put_", lambda m: (lambda y: y[:5].index_put_((_idx(m, 1, 2),), y[3]))(_y(m))),
    "index_put_ index": ("index_put_", lambda m: (lambda y: y[:3].index_put_((y[1:4],), m.tensor([5, 5, 5])))(
        _ints(m))),
    "setitem index": ("index_put_", lambda m: (lambda y: _setitem(y[:5], _idx(m, 4, 3, 2, 1, 0), y[2:7]))(_y(m))),
    "setitem mask": ("index_put_", lambda m: (lambda y: _setitem(y[:5], m.tensor([True, False, True, True, False]),
                                                                y[1:4]))(_y(m))),
    "setitem index tensor": ("index_put_", lambda m: (lambda y: _setitem(y[:3], y[1:4], m.tensor([5, 5, 5])))(
        _ints(m))),
    "setitem slice": ("copy_", lambda m: (lambda y: _setitem(y[:5], slice(None), y[2:7]))(_y(m))),
    "copy_ partial": ("copy_", lambda m: (lambda y: y[:5].copy_(y[2:7]))(_y(m))),
    "copy_ transposed": ("copy_", lambda m: (lambda y: y.copy_(y.t()))(m.arange(4.0).reshape(2, 2))),
    "copy_ broadcast element": ("copy_", lambda m: (lambda y: y[2:5].copy_(y[2]))(_y(m))),
    "add_ partial": ("add_", lambda m: (lambda y: y[:5].add_(y[2:7]))(_y(m))),
    "add_ first element": ("add_", lambda m: (lambda y: y.add_(y[0]))(_y(m))),
    "add_ first row": ("add_", lambda m: (lambda y: y.add_(y[0]))(m.arange(6.0).reshape(2, 3))),
    "add_ other number of dims": ("add_", lambda m: (lambda y: y.view(1, 10).add_(y))(_y(m))),
    "mul_ partial": ("mul_", lambda m: (lambda y: y[:5].mul_(y[2:7]))(_y(m))),
    "iadd partial": ("add_", lambda m: (lambda y: y[:5].__iadd__(y[2:7]))(_y(m))),
    "pow_ 0-dim exponent": ("pow_", lambda m: (lambda y: y.pow_(y[0]))(_y(m))),
    "lerp_ weight": ("lerp_", lambda m: (lambda y: y[:5].lerp_(m.ones(5, dtype=m.float64), y[2:7]))(_y(m))),
    "addcmul_ partial": ("addcmul_", lambda m: (lambda y: y[:5].addcmul_(m.ones(5, dtype=m.float64), y[2:7]))(
        _y(m))),
    "addr_ partial": ("addr_", lambda m: (lambda y: y[:4].view(2, 2).addr_(y[1:3], m.ones(2, dtype=m.float64)))(
        _y(m))),
    "clamp_ bounds": ("clamp_", lambda m: (lambda y: y[:4].clamp_(y[:4], y[1:5]))(_y(m))),
    "masked_fill_ mask": ("masked_fill_", lambda m: (lambda y: y[:5].masked_fill_(y[2:7], True))(_bools(m))),
    "logical_and_ partial": ("logical_and_", lambda m: (lambda y: y[:5].logical_and_(y[2:7]))(_bools(m))),
    "bernoulli_ p": ("bernoulli_", lambda m: (lambda y: y[:5].bernoulli_(y[2:7]))(m.full((10,), 0.5))),
}

# PyTorch allows each, with values that do not depend on its order
ALLOWED = {
    "add_ itself": lambda m: (lambda y: y.add_(y))(_y(m)),
    "add_ same elements": lambda m: (lambda y: y[:5].add_(y[:5]))(_y(m)),
    "mul_ same elements 2-D": lambda m: (lambda y: y.mul_(y.view(2, 5)))(_y(m).view(2, 5)),
    "copy_ itself": lambda m: (lambda y: y.copy_(y))(_y(m)),
    "copy_ same elements": lambda m: (lambda y: y.copy_(y[:]))(_y(m)),
    "lerp_ itself": lambda m: (lambda y: y.lerp_(y, y))(_y(m)),
    "masked_fill_ mask itself": lambda m: (lambda y: y.masked_fill_(y, False))(_bools(m)),
    "fill_ 0-dim element": lambda m: (lambda y: y[:5].fill_(y[3]))(_y(m)),
    "index_fill_ 0-dim value": lambda m: (lambda y: y[:5].index_fill_(0, _idx(m, 1, 4), y[3]))(_y(m)),
    "masked_fill_ 0-dim value": lambda m: (lambda y: y[:5].masked_fill_(
        m.tensor([True, False, False, True, True]), y[3]))(_y(m)),
    "setitem slice 0-dim value": lambda m: (lambda y: _setitem(y, slice(2, 5), y[2]))(_y(m)),
    "setitem mask no overlap": lambda m: (lambda y: _setitem(y[:5], m.tensor([True, False, True, True, False]),
                                                             y[5:8]))(_y(m)),
    "setitem bool index itself": lambda m: (lambda y: _setitem(y, y[:], False))(_bools(m)),
    "index_put_ bool index itself": lambda m: (lambda y: y.index_put_((y[:],), m.tensor(False)))(_bools(m)),
    "scatter_ other half": lambda m: (lambda y: y[:5].scatter_(0, _idx(m, 4, 3, 2, 1, 0), y[5:]))(_y(m)),
    "scatter_ value": lambda m: (lambda y: y[:5].scatter_(0, _idx(m, 0, 1), 7.0))(_y(m)),
    "index_add_ other half": lambda m: (lambda y: y[:5].index_add_(0, _idx(m, 4, 3, 2, 1, 0), y[5:]))(_y(m)),
    "index_copy_ columns apart": lambda m: (lambda y: y[:, :2].index_copy_(1, _idx(m, 1, 0), y[:, 1:3]))(
        m.arange(6.0).reshape(2, 3)),
    "add_ strided (not checked)": lambda m: (lambda y: y[:5].add_(y[::2]))(_y(m)),
    "ldexp_ partial (not checked)": lambda m: (lambda y: y[:5].ldexp_(y[2:7]))(_y(m)),
    "addmm_ partial (not checked)": lambda m: (lambda y: y[:4].view(2, 2).addmm_(
        y[2:6].view(2, 2), m.ones(2, 2, dtype=m.float64)))(_y(m)),
    "masked_scatter_ partial (not checked)": lambda m: (lambda y: y[:5].masked_scatter_(
        m.tensor([True, False, True, True, False]), y[2:7]))(_y(m)),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_overlap_refused_as_in_torch(case):
    op, program = REFUSED[case]
    with pytest.raises(RuntimeError) as theirs:
        program(torch)
    assert str(theirs.value) == TORCH_MESSAGE
    with pytest.raises(RuntimeError) as ours:
        program(al)
    message = str(ours.value)
    assert message.startswith(TORCH_MESSAGE + " [autograd_lab] " + op + " ")
    assert "clone()" in message.split("[autograd_lab]")[1]


@pytest.mark.parametrize("case", list(ALLOWED))
def test_overlap_allowed_as_in_torch(case):
    theirs, ours = ALLOWED[case](torch), ALLOWED[case](al)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_refused_write_changes_nothing():
    """The refusal comes before the write: the values and the version counter stay."""
    y = al.arange(5.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        y.scatter_add_(0, al.tensor([0, 0, 1, 1, 2]), y)
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and y._version == 0


def test_refused_under_no_grad_and_with_history():
    """The check does not depend on grad mode; a recorded op is refused the same way."""
    x = al.arange(1.0, 11.0, dtype=al.float64, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=r"\[autograd_lab\] index_add_"):
        y[:5].index_add_(0, al.tensor([4, 3, 2, 1, 0]), y[3:8])
    with al.no_grad(), pytest.raises(RuntimeError, match=r"\[autograd_lab\] copy_"):
        y[:5].copy_(y[1:6])


def test_wrong_arguments_are_refused_before_the_overlap():
    """PyTorch checks the arguments first: a wrong one gets its own error, not the overlap error."""
    for m in (torch, al):
        y = m.arange(10)
        with pytest.raises((RuntimeError, TypeError, IndexError)) as info:
            y[:5].scatter_(0, m.tensor([0, 1]), y[:5].float())
        assert "single memory location" not in str(info.value)
