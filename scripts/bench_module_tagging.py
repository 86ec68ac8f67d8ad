"""What tagging graph nodes with their module costs a forward pass (``set_module_tagging``).

    .venv/bin/python scripts/bench_module_tagging.py

Times ``Linear(64, 32)`` on a (16, 64) batch and the pretrained ``small_cnn`` on 32 digits three ways:
the forward body alone (``_call_impl``), a module call with tagging off (the default without the lab),
and with tagging on (after ``import autograd_lab.lab``). Rounds are interleaved and the best of each is
kept, so a busy machine disturbs the comparison less.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import autograd_lab as al  # noqa: E402
from autograd_lab.nn.module import set_module_tagging  # noqa: E402


def measure(module: al.nn.Module, x: al.Tensor, number: int, rounds: int = 25) -> dict[str, float]:
    """Best time per call in microseconds: ``body`` (forward and hooks only), ``off`` and ``on``."""
    best = {"body": float("inf"), "off": float("inf"), "on": float("inf")}
    previous = set_module_tagging(False)
    try:
        for _ in range(rounds):
            for key, tagging, call in (("body", False, lambda: module._call_impl(x)), ("off", False, lambda: module(x)),
                                       ("on", True, lambda: module(x))):
                set_module_tagging(tagging)
                best[key] = min(best[key], timeit.timeit(call, number=number) / number * 1e6)
    finally:
        set_module_tagging(previous)
    return best


def main() -> int:
    al.manual_seed(0)
    cases = [("Linear(64, 32), batch 16", al.nn.Linear(64, 32), al.randn(16, 64), 2000),
             ("small_cnn, batch 32", al.models.small_cnn(pretrained=True), al.randn(32, 1, 8, 8), 20)]
    for title, module, x, number in cases:
        best = measure(module, x, number)
        body = best["body"]
        print(f"{title}: body {body:.1f} us, tagging off {best['off']:.1f} us ({best['off'] / body - 1:+.1%}), "
              f"tagging on {best['on']:.1f} us ({best['on'] / body - 1:+.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
