"""Profile of the per-op path: ``python -m benchmarks.profile_ops [--n 16] [--iters 300] [--top 25]``.

Runs op_overhead's 200-op chain (forward + backward) under cProfile and prints the functions that
take the time, by own time (``tottime``) and by cumulative time, plus a split of forward/backward.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

from .common import limit_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16, help="elements per tensor")
    parser.add_argument("--iters", type=int, default=300, help="chains to run under the profiler")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    limit_threads(1)
    import numpy as np

    import autograd_lab as al

    from .micro import CHAIN_OPS, _op_chain_tensors
    x0 = np.random.default_rng(0).uniform(-1, 1, size=args.n)
    for _ in range(50):
        _op_chain_tensors(al, x0)

    # forward and backward timed apart, without the profiler
    fwd = bwd = 0.0
    for _ in range(args.iters):
        x = al.tensor(x0, requires_grad=True)
        t0 = time.perf_counter()
        y = x
        for i in range(CHAIN_OPS):
            y = _one(y, i)
        out = y.sum()
        t1 = time.perf_counter()
        out.backward()
        t2 = time.perf_counter()
        fwd, bwd = fwd + t1 - t0, bwd + t2 - t1
    per = 1e6 / (args.iters * CHAIN_OPS)
    print(f"per op: forward {fwd * per:.2f} us, backward {bwd * per:.2f} us (no profiler, {args.n} elements)")

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.iters):
        _op_chain_tensors(al, x0)
    profiler.disable()
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(key).print_stats(args.top)
        print(f"--- by {key} ---")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip()
                        and not line.startswith(("   Ordered by", "   List reduced"))))


def _one(y, i: int):
    kind = i % 5
    if kind == 0:
        return y * 0.9
    if kind == 1:
        return y + 0.1
    if kind == 2:
        return y.tanh()
    if kind == 3:
        return y.exp()
    return y.log()


if __name__ == "__main__":
    main()
