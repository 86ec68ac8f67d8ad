"""``python -m fuzz`` (run from ``tests/``, or with ``tests`` on ``PYTHONPATH``): many programs, and the figures.

    PYTHONPATH=.:tests python -m fuzz --programs 5000 --seed 0 [--show 3] [--seeds 17 42]

Prints the count of each outcome, the time per program, the pairs of exception types where both raise
differently, and a shrunk repro of the first ``--show`` failures (silent differences, one-side errors)."""

from __future__ import annotations

import argparse
import collections
import sys
import time

import torch

import autograd_lab as al

from .programs import generate
from .runner import BOTH_RAISE, FAILURES, report, run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the first seed; program i has seed SEED + i")
    parser.add_argument("--seeds", type=int, nargs="*", help="run exactly these seeds")
    parser.add_argument("--show", type=int, default=3, help="print a shrunk repro of this many failures")
    args = parser.parse_args(argv)
    seeds = args.seeds or range(args.seed, args.seed + args.programs)
    counts: collections.Counter = collections.Counter()
    error_pairs: collections.Counter = collections.Counter()
    failures = []
    start = time.perf_counter()
    for seed in seeds:
        program = generate(seed, torch)
        outcome = run(program, al, torch)
        counts[outcome.kind] += 1
        if outcome.kind == BOTH_RAISE and outcome.error_types:
            error_pairs[outcome.error_types] += 1
        if outcome.kind in FAILURES:
            failures.append((program, outcome))
            print(f"seed {seed}: {outcome.kind}: {outcome.detail.splitlines()[0][:150]}", flush=True)
    elapsed = time.perf_counter() - start
    print(f"\n{len(seeds)} programs in {elapsed:.1f} s ({1000 * elapsed / max(len(seeds), 1):.1f} ms each)")
    for kind, n in counts.most_common():
        print(f"  {kind}: {n}")
    for (al_type, torch_type), n in error_pairs.most_common():
        print(f"  both raise, autograd_lab {al_type} / PyTorch {torch_type}: {n}")
    for program, outcome in failures[:args.show]:
        print("\n" + report(program, outcome, al, torch))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
