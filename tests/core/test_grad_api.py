"""``autograd.grad`` and ``autograd.backward`` against PyTorch: the errors for a wrong number of gradients, inputs
that do not require grad (``grad`` checks the outputs first), an empty ``inputs``, the ``only_inputs``
deprecation warning; and ``requires_grad_``/``detach_`` messages that are PyTorch's up to our advice."""

from __future__ import annotations

import warnings

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _outcome(m, program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(m, m.tensor([1.0, 2.0], requires_grad=True))
            result = "ok"
        except (RuntimeError, TypeError, ValueError) as exc:
            result = f"{type(exc).__name__}: {str(exc).split(' [autograd_lab]')[0]}"
    return result, [(w.category, str(w.message).replace("al.", "torch.")) for w in caught if "jit" not in str(w.message)]


PROGRAMS = {
    "grad: fewer gradients than outputs": lambda m, x: m.autograd.grad([x.sum(), x.sum()], x, [None]),
    "backward: fewer gradients than outputs": lambda m, x: m.autograd.backward([x.sum(), x.sum()], [None]),
    "grad: neither output nor input requires grad": lambda m, x: m.autograd.grad(m.ones(2).sum(), m.ones(2)),
    "grad: the output does not require grad": lambda m, x: m.autograd.grad(m.ones(2).sum(), x),
    "grad: an input does not require grad": lambda m, x: m.autograd.grad(x.sum(), [x, m.ones(2)]),
    "backward: an input does not require grad": lambda m, x: x.sum().backward(inputs=[m.ones(2)]),
    "backward: empty inputs": lambda m, x: x.sum().backward(inputs=[]),
    "grad: only_inputs=False": lambda m, x: m.autograd.grad(x.sum(), x, only_inputs=False),
    "grad: only_inputs=True": lambda m, x: m.autograd.grad(x.sum(), x, only_inputs=True),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_errors_and_warnings_match_torch(name):
    assert _outcome(al, PROGRAMS[name]) == _outcome(torch, PROGRAMS[name])


def test_the_phrases_are_torchs():
    assert _outcome(al, PROGRAMS["grad: fewer gradients than outputs"])[0] == \
        "RuntimeError: got 2 tensors and 1 gradients"
    assert _outcome(al, PROGRAMS["grad: only_inputs=False"])[1][0][0] is FutureWarning


@pytest.mark.parametrize("program", [
    lambda m: m.tensor([1, 2]).requires_grad_(),
    lambda m: m.autograd.functional.jacobian(lambda x: x * 2, m.tensor([1, 2])),
    lambda m: (m.ones(2, requires_grad=True) * 1)[:1].detach_(),
], ids=["requires_grad_ of an integer tensor", "jacobian at an integer input", "detach_ of a view"])
def test_messages_are_torchs_up_to_our_advice(program):
    """Our advice comes after ' [autograd_lab]', never inside PyTorch's phrase (it did, in parentheses)."""
    with pytest.raises(RuntimeError) as theirs:
        program(torch)
    with pytest.raises(RuntimeError) as ours:
        program(al)
    assert str(ours.value).split(" [autograd_lab]")[0] == str(theirs.value)
