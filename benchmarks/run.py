"""The driver: ``python -m benchmarks [--samples N] [--full] [--only CASE,...] [--threads T]``.

For each case, ``samples`` rounds; in each round every library runs once in a fresh process
(``worker.py``), in an order rotated from round to round so no library always goes first. A ratio is
the median over rounds of the two libraries' values from the same round: load on a shared machine
hits both sides of a ratio alike. Before any number is reported, each library's check values (losses,
gradients) are compared with the NumPy floor's; a mismatch is printed and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .common import THREAD_VARS
from .report import machine_info, render_console, render_markdown, target_lines

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
ALL_LIBS = ("numpy", "autograd_lab", "torch")


@dataclass
class Case:
    """One row of the results: a workload with its parameters, unit and repetitions per process."""

    name: str
    workload: str
    params: dict
    unit: str
    scale: float  # seconds (or MB) -> unit
    reps: int
    warmup: int
    rtol: float = 1e-9
    atol: float = 0.0
    libs: tuple = ALL_LIBS
    full_only: bool = False
    timeout: float = 600.0
    metrics: tuple = ()  # extra metrics a worker reports beside its times (memory: tracemalloc)
    samples: int | None = None  # rounds, when the default is too many for this case


def cases() -> list[Case]:
    mem = dict(workload="memory", unit="MB", scale=1.0, reps=1, warmup=0, rtol=1e-4, atol=1e-6, metrics=("traced",),
               samples=3)
    return [
        Case("op_overhead_16", "op_overhead", {"n": 16}, "us/op", 1e6, reps=60, warmup=20),
        Case("op_overhead_1", "op_overhead", {"n": 1}, "us/op", 1e6, reps=60, warmup=20),
        Case("mlp_train", "mlp_train", {}, "ms/step", 1e3, reps=20, warmup=8, rtol=1e-4, atol=1e-6),
        Case("cnn_train", "cnn_train", {}, "ms/step", 1e3, reps=20, warmup=8, rtol=1e-4, atol=1e-6),
        Case("deep_chain_10k", "deep_chain", {"n": 10_000}, "s", 1.0, reps=3, warmup=1),
        Case("deep_chain_100k", "deep_chain", {"n": 100_000}, "s", 1.0, reps=1, warmup=0, samples=3),
        Case("deep_chain_1m", "deep_chain", {"n": 1_000_000, "reference_n": 100_000}, "s", 1.0, reps=1, warmup=0,
             full_only=True, samples=1, metrics=("linear_ratio",)),
        Case("scalar_mlp", "scalar_mlp", {}, "ms", 1e3, reps=100, warmup=20, atol=1e-12),
        Case(name="memory_forward", params={"phase": "forward"}, **mem),
        Case(name="memory_backward", params={"phase": "backward"}, **mem),
        Case(name="memory_after_backward", params={"phase": "after"}, **mem),
        Case(name="memory_no_grad", params={"phase": "no_grad"}, **mem),
        Case("lab_snapshot_dot_2000", "lab", {"part": "snapshot_dot"}, "s", 1.0, reps=5, warmup=1,
             libs=("autograd_lab",), rtol=0),
        Case("lab_live_redraw_2000", "lab", {"part": "redraw"}, "s", 1.0, reps=3, warmup=1,
             libs=("autograd_lab",), rtol=0),
    ]


@dataclass
class Outcome:
    """What the rounds of one case gave, per library."""

    values: dict = field(default_factory=dict)  # lib -> [per-round value in the case's unit, or None]
    metrics: dict = field(default_factory=dict)  # lib -> metric -> [per-round value]
    checks: dict = field(default_factory=dict)  # lib -> check values (first round)
    errors: dict = field(default_factory=dict)  # lib -> message


def worker_env(threads: int, workload: str, lib: str = "autograd_lab") -> dict:
    """The worker's environment: ``threads`` BLAS threads; for the memory workload only, glibc's mmap
    threshold at 64 KB, so that freed arrays leave the RSS at once. Timed workloads keep the default
    allocator: with the threshold every array over 64 KB is a fresh mmap with page faults, which made
    ``cnn_train`` read 12 ms against 6.6 ms (and the floor 8.7 against 7.0)."""
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = str(threads)
    if workload == "memory":
        env["MALLOC_MMAP_THRESHOLD_"] = "65536"
    else:
        env.pop("MALLOC_MMAP_THRESHOLD_", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_one(case: Case, lib: str, threads: int) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.worker", case.workload, lib, str(case.reps), str(case.warmup),
           json.dumps(case.params), str(threads)]
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=worker_env(threads, case.workload, lib), capture_output=True, text=True,
                              timeout=case.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {case.timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"exit {proc.returncode}: {' | '.join(tail)}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_case(case: Case, libs: tuple, rounds: int, threads: int, log) -> Outcome:
    outcome = Outcome()
    for r in range(rounds):
        order = libs[r % len(libs):] + libs[:r % len(libs)]
        for lib in order:
            if lib in outcome.errors:
                continue
            res = run_one(case, lib, threads)
            if "error" in res:
                outcome.errors[lib] = res["error"]
                log(f"  {case.name} [{lib}]: {res['error']}")
                continue
            times = [t for t in res["times"] if t is not None]
            value = statistics.median(times) * case.scale if times else None
            outcome.values.setdefault(lib, []).append(value)
            for metric in case.metrics:
                outcome.metrics.setdefault(lib, {}).setdefault(metric, []).append((res["extra"] or {}).get(metric))
            outcome.checks.setdefault(lib, res["check"])
        log(f"  {case.name} round {r + 1}/{rounds}: " + ", ".join(
            f"{lib} {outcome.values[lib][-1]:.4g}" for lib in libs if outcome.values.get(lib) and
            outcome.values[lib][-1] is not None))
    return outcome


def compare_checks(case: Case, outcome: Outcome) -> dict:
    """Each library's check values against the reference's (the floor, else the first library)."""
    ref_lib = next((lib for lib in ("numpy",) + tuple(outcome.checks) if lib in outcome.checks), None)
    result = {"reference": ref_lib, "ok": True, "max_rel_err": {}}
    if ref_lib is None:
        return result
    ref = outcome.checks[ref_lib]
    for lib, vals in outcome.checks.items():
        if len(vals) != len(ref):
            result["ok"] = False
            result["max_rel_err"][lib] = float("inf")
            continue
        err = max((abs(a - b) / max(abs(b), 1e-300) for a, b in zip(vals, ref) if abs(a - b) > case.atol), default=0.0)
        result["max_rel_err"][lib] = err
        if err > case.rtol:
            result["ok"] = False
    return result


def paired_ratio(a: list, b: list) -> float | None:
    """Median over rounds of a[i] / b[i] (rounds where both ran and b is not ~0)."""
    pairs = [x / y for x, y in zip(a, b) if x is not None and y is not None and abs(y) > 1e-9]
    return statistics.median(pairs) if pairs else None


def summarize(case: Case, outcome: Outcome) -> dict:
    medians = {lib: statistics.median([v for v in vals if v is not None]) for lib, vals in outcome.values.items()
               if any(v is not None for v in vals)}
    ratios = {}
    for lib in outcome.values:
        for ref in ("numpy", "torch"):
            if ref != lib and ref in outcome.values:
                ratios[f"{lib}/{ref}"] = paired_ratio(outcome.values[lib], outcome.values[ref])
    metrics = {lib: {m: statistics.median([v for v in vals if v is not None]) if any(v is not None for v in vals) else None
                     for m, vals in per.items()} for lib, per in outcome.metrics.items()}
    return {"name": case.name, "workload": case.workload, "params": case.params, "unit": case.unit,
            "reps_per_process": case.reps, "warmup": case.warmup, "rounds": {lib: len(v) for lib, v in outcome.values.items()},
            "samples": outcome.values, "medians": medians, "ratios": ratios, "metrics": metrics,
            "check": compare_checks(case, outcome), "errors": outcome.errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5, help="rounds per case (fresh processes per library)")
    parser.add_argument("--full", action="store_true", help="also run the million-op deep_chain")
    parser.add_argument("--only", default="", help="comma-separated case names or prefixes (e.g. op_overhead,memory)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads in each worker (default 1)")
    parser.add_argument("--libs", default=",".join(ALL_LIBS), help="libraries to run (numpy is the floor)")
    parser.add_argument("--out", default=str(RESULTS), help="where latest.json and latest.md go")
    parser.add_argument("--update", action="store_true",
                        help="replace only the cases run now in the existing latest.json (rerun one workload)")
    args = parser.parse_args(argv)

    libs = tuple(lib for lib in args.libs.split(",") if lib)
    if "torch" in libs and importlib.util.find_spec("torch") is None:
        print("PyTorch is not installed: comparing with the NumPy floor only (pip install -e '.[oracle]' to add it)")
        libs = tuple(lib for lib in libs if lib != "torch")
    wanted = [w for w in args.only.split(",") if w]
    selected = [c for c in cases() if (args.full or not c.full_only)
                and (not wanted or any(c.name == w or c.name.startswith(w + "_") for w in wanted))]
    info = machine_info(args.threads, args.samples)
    print(f"autograd_lab benchmarks: {len(selected)} cases, {args.samples} rounds, {args.threads} thread(s), "
          f"libraries {', '.join(libs)}; {info['cpu']} x{info['cpus']}, load {info['load_start']}")
    start = time.perf_counter()
    results = []
    for case in selected:
        case_libs = tuple(lib for lib in libs if lib in case.libs)
        rounds = min(args.samples, case.samples) if case.samples else args.samples
        outcome = run_case(case, case_libs, rounds, args.threads, lambda msg: print(msg, flush=True))
        results.append(summarize(case, outcome))
    info["load_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    info["wall_s"] = round(time.perf_counter() - start, 1)
    out = Path(args.out)
    if args.update and (out / "latest.json").exists():
        previous = json.loads((out / "latest.json").read_text())
        libs = tuple(dict.fromkeys(tuple(previous["libs"]) + libs))  # (the first run's columns, and any new one)
        fresh = {r["name"] for r in results}
        order = [c.name for c in cases()]
        results = sorted([r for r in previous["results"] if r["name"] not in fresh] + results,
                         key=lambda r: order.index(r["name"]) if r["name"] in order else len(order))
        info = dict(previous["machine"], updated=previous["machine"].get("updated", []) + [
            {"date": info["date"], "cases": sorted(fresh), "load_start": info["load_start"], "cpu": info["cpu"],
             "cpus": info["cpus"]}])
    report = {"machine": info, "libs": libs, "results": results, "targets": target_lines(results)}

    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps(report, indent=1) + "\n")
    (out / "latest.md").write_text(render_markdown(report))
    print(render_console(report))
    print(f"wrote {out / 'latest.json'} and {out / 'latest.md'}")
    return 0 if all(r["check"]["ok"] and not r["errors"] for r in results) else 1
