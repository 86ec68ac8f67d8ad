"""The differential fuzzer in the suite: random programs, the same in autograd_lab and in PyTorch (float64).

Each program is drawn from a seed (``fuzz.programs``) and run in both libraries in lockstep
(``fuzz.runner``). A silent difference (values, dtypes, shapes, gradients), or an error in one library only
that the known-differences table (``fuzz.known``) does not explain, fails with the seed and a shrunk repro
that runs as is with either library. The suite runs ``AUTOGRAD_LAB_FUZZ_PROGRAMS`` programs (15000 by
default: about a minute on two cores), from seed ``AUTOGRAD_LAB_FUZZ_SEED`` (0 by default, so CI is reproducible):

    AUTOGRAD_LAB_FUZZ_PROGRAMS=20000 AUTOGRAD_LAB_FUZZ_SEED=100000 python -m pytest tests/fuzz

(``python -m fuzz`` from ``tests/`` prints the counts of every outcome instead; docs/testing.md).
"""

from __future__ import annotations

import os

import pytest

import autograd_lab as al

from .programs import generate
from .runner import FAILURES, report, run

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

PROGRAMS = int(os.environ.get("AUTOGRAD_LAB_FUZZ_PROGRAMS", "15000"))
FIRST_SEED = int(os.environ.get("AUTOGRAD_LAB_FUZZ_SEED", "0"))
CHUNK = 250
SHOWN = 3  # failures shown with a shrunk repro, per chunk


@pytest.mark.parametrize("start", range(FIRST_SEED, FIRST_SEED + PROGRAMS, CHUNK),
                         ids=lambda start: f"seeds-{start}")
def test_programs_agree_with_pytorch(start):
    failures = []
    for seed in range(start, min(start + CHUNK, FIRST_SEED + PROGRAMS)):
        program = generate(seed, torch)
        outcome = run(program, al, torch)
        if outcome.kind in FAILURES:
            failures.append((program, outcome))
    if failures:
        seeds = ", ".join(str(program.seed) for program, _ in failures)
        shown = "\n\n".join(report(program, outcome, al, torch) for program, outcome in failures[:SHOWN])
        pytest.fail(f"{len(failures)} program(s) differ from PyTorch (seeds {seeds}):\n\n{shown}", pytrace=False)
