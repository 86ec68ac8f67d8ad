"""The fuzzer's own checks: programs are reproducible, the comparison fails where it must, the repro runs,
and every entry of the known-differences table still describes a real difference."""

from __future__ import annotations

import types

import pytest

import autograd_lab as al

from .known import EXAMPLES, KNOWN
from .programs import generate
from .runner import AL_RAISES, FAILURES, MATCH, SILENT, TORCH_RAISES, program_of, report, run
from .runner import KNOWN as KNOWN_OUTCOME

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def test_a_seed_gives_the_same_program_every_time():
    assert generate(7, torch).source() == generate(7, torch).source()
    assert generate(7, torch).source() != generate(8, torch).source()
    assert "import torch as M" in generate(7, torch).source("torch")


def skewed(**overrides) -> types.ModuleType:
    """autograd_lab with some functions replaced: a library that is wrong on purpose."""
    module = types.ModuleType("skewed_autograd_lab")
    module.__getattr__ = lambda name: getattr(al, name)
    module.__dict__.update(overrides)
    return module


PROGRAM = """
x = M.tensor([0.5, -1.0, 2.0], dtype=M.float64, requires_grad=True)
y = M.exp(x) * 2
loss = y.sum()
loss.backward()
"""


def test_a_correct_library_matches():
    assert run(program_of(PROGRAM), al, torch).kind == MATCH


def test_a_wrong_value_is_a_silent_difference_at_its_line():
    wrong = skewed(exp=lambda t: al.exp(t) * (1 + 1e-7))
    outcome = run(program_of(PROGRAM), wrong, torch)
    assert outcome.kind == SILENT and outcome.line == 1 and "y: values differ" in outcome.detail


def test_a_wrong_gradient_is_a_silent_difference_at_the_end():
    class WrongExp(al.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return al.exp(t)

        @staticmethod
        def backward(ctx, grad):
            (t,) = ctx.saved_tensors
            return grad * al.exp(t) * 1.001

    outcome = run(program_of(PROGRAM), skewed(exp=WrongExp.apply), torch)
    assert outcome.kind == SILENT and outcome.line is None and "x.grad" in outcome.detail


def test_an_error_in_one_library_only_is_a_failure():
    def refuses(t):
        raise RuntimeError("not here")
    assert run(program_of(PROGRAM), skewed(exp=refuses), torch).kind == AL_RAISES
    assert run(program_of("y = M.ones(2) + M.ones(3)"), skewed(ones=lambda *s: al.ones(1)), torch).kind == TORCH_RAISES


def test_the_report_holds_the_seed_and_a_shrunk_program_that_runs_in_both():
    wrong = skewed(exp=lambda t: al.exp(t) * (1 + 1e-7))
    program = program_of("c = M.ones(2)\n" + PROGRAM, seed=1234)
    text = report(program, run(program, wrong, torch), wrong, torch)
    assert "seed 1234" in text and "AUTOGRAD_LAB_FUZZ_SEED=1234" in text
    source = text.split("---\n", 1)[1]
    assert "c = M.ones(2)" not in source and "y = M.exp(x) * 2" in source  # shrunk to what differs
    for library in (al, torch):
        exec(source.replace("import autograd_lab as M", ""), {"M": library})


@pytest.mark.parametrize("entry", KNOWN, ids=lambda entry: entry.name)
def test_every_known_difference_is_described_and_still_differs(entry):
    assert entry.reason and entry.status and (entry.avoid is None) != (entry.explains is None)
    assert entry.difference == ("not generated" if entry.avoid else entry.difference)
    example = EXAMPLES[entry.name]
    if example is None:
        assert "PyTorch crashes" in entry.status
        return
    outcome = run(program_of(example), al, torch)
    if entry.explains is not None:
        assert outcome.kind == KNOWN_OUTCOME and outcome.known is entry, outcome.detail
    else:
        assert outcome.kind in FAILURES, f"{entry.name!r} no longer differs ({outcome.kind}): remove it from the table"
