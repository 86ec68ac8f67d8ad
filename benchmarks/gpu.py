"""The GPU section (issue 8): ``python -m benchmarks.gpu [--samples N] [--batch-sizes 256,4096] [--only mlp|cnn]``.

Two training steps, the MLP of ``mlp_train`` and the CNN of ``cnn_train`` (``train.py``), at large batch
sizes, each run by autograd_lab and PyTorch on the CPU and on CUDA. As in the main suite, every sample of
every row is a fresh process, the rows run in an order rotated from round to round, all four start from the
same NumPy weights and batches, and their first losses are compared before any time is reported. Results go
to ``results/gpu.json`` and ``results/gpu.md``. Without CUDA the CPU rows run alone and the report says
that the CUDA rows need a GPU (``--require-cuda`` makes that an error).
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
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
ROWS = (("autograd_lab", "cpu"), ("autograd_lab", "cuda"), ("torch", "cpu"), ("torch", "cuda"))
WORKLOADS = ("mlp", "cnn")
CHECK_STEPS = 4
# The check values: the float32 losses of the first CHECK_STEPS steps and, per parameter, the squared norm
# of the first step's gradient (at lr 0.01 the MLP's losses move by only ~1e-4 relative over those steps,
# so the losses alone would not notice a wrong gradient), each relative to autograd_lab on the CPU. CPU
# rows use the suite's float32 tolerance. CUDA rows get a looser one: cuBLAS, cuDNN and CuPy add in other
# orders than CPU BLAS (split-K GEMMs, tree reductions, atomics in weight gradients, not always the same
# from run to run), and the momentum steps carry those last-bit differences into the later losses. TF32 is
# switched off for PyTorch so that both libraries do IEEE float32 arithmetic; a wrong gradient is off by
# far more than either tolerance.
RTOL = {"cpu": 1e-4, "cuda": 1e-3}
RATIOS = (("al_cuda/torch_cuda", "autograd_lab/cuda", "torch/cuda"),
          ("al_cuda/al_cpu", "autograd_lab/cuda", "autograd_lab/cpu"),
          ("torch_cuda/torch_cpu", "torch/cuda", "torch/cpu"),
          ("al_cpu/torch_cpu", "autograd_lab/cpu", "torch/cpu"))


def row_name(lib: str, device: str) -> str:
    return f"{lib}/{device}"


# -- one sample (in the worker process, or in-process for tests) -----------------------------------------
def _full_float32(torch) -> str:
    """Turn TF32 off in PyTorch (cuDNN convolutions use it by default); returns the setting now in force."""
    if hasattr(torch.backends, "fp32_precision"):  # the API from PyTorch 2.9 on
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        return "fp32_precision=ieee (matmul, cudnn.conv)"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return "allow_tf32=False (matmul, cudnn)"


def _library(lib: str, device: str):
    """The module (``autograd_lab`` or ``torch``), a device-wide wait, and notes on the library's setup."""
    notes: dict = {}
    if lib == "torch":
        import torch
        if "OMP_NUM_THREADS" in os.environ:  # set by the driver for its workers
            torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        if device == "cuda":
            notes["tf32"] = _full_float32(torch)
            return torch, torch.cuda.synchronize, notes
        return torch, lambda: None, notes
    import autograd_lab as al
    return al, (al.cuda.synchronize if device == "cuda" else lambda: None), notes


def _model(T, workload: str):
    """The model of ``mlp_train`` or ``cnn_train`` with the suite's NumPy weights (``train.py``)."""
    import numpy as np

    from . import train
    from .common import init_linear
    rng = np.random.default_rng(7)
    if workload == "mlp":
        sizes = train.MLP_SIZES
        return train._mlp_tensors(T, [init_linear(rng, a, b, np.float32) for a, b in zip(sizes, sizes[1:])])
    return train._cnn_tensors(T, rng)


def run_sample(workload: str, lib: str, device: str, batch: int, reps: int, warmup: int,
               budget_s: float = 3.0) -> dict:
    """Train ``workload`` at ``batch`` with ``lib`` on ``device``: the first losses, then per-step times.

    The data and the model are put on the device before any timing. Each timer starts after the queue is
    drained and stops after ``synchronize()``, so a step's time includes its kernels. The timed steps never
    read the loss back (no hidden device-to-host wait). After ``reps`` steps or ``budget_s`` seconds of them
    (at least 3 steps), whichever comes first, the sample ends.
    """
    from . import train
    from .common import as_tensor
    T, sync, notes = _library(lib, device)
    shape = (batch, 784) if workload == "mlp" else (batch, 1, 28, 28)
    data = [(as_tensor(T, x).to(device), as_tensor(T, y).to(device)) for x, y in train._batches(shape, 10)]
    model = _model(T, workload).to(device)
    opt = T.optim.SGD(model.parameters(), lr=train.LR, momentum=train.MOMENTUM)
    count = [0]

    def step():
        x, labels = data[count[0] % len(data)]
        count[0] += 1
        opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        return loss

    losses = [float(step().item())]  # from the shared initial weights
    grads = [float((p.grad * p.grad).sum().item()) for p in model.parameters()]  # the first step's gradients
    losses += [float(step().item()) for _ in range(CHECK_STEPS - 1)]
    for _ in range(warmup):
        step()
    sync()
    times: list[float] = []
    while len(times) < reps and (len(times) < 3 or sum(times) < budget_s):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return {"times": times, "check": losses + grads, "env": {**notes, **device_info(lib, device)}}


def device_info(lib: str, device: str) -> dict:
    """The GPU and the versions behind a CUDA row (empty for CPU rows)."""
    if device != "cuda":
        return {}
    if lib == "torch":
        import torch
        return {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "torch_cuda": torch.version.cuda,
                "cudnn": torch.backends.cudnn.version()}
    from autograd_lab import backend
    entry = backend.backend_for("cuda")
    cupy = getattr(entry, "cupy", None)
    if cupy is None:  # a test double standing in for CuPy
        return {"gpu": f"{type(entry).__name__} (no GPU)"}
    runtime = cupy.cuda.runtime
    name = runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())["name"]
    return {"gpu": name.decode() if isinstance(name, bytes) else str(name), "cupy": cupy.__version__,
            "cuda_driver": runtime.driverGetVersion(), "cuda_runtime": runtime.runtimeGetVersion()}


# -- what this machine can run ---------------------------------------------------------------------------
def probe() -> dict:
    """Which rows can run here, and why not where one cannot (imports torch/CuPy only to ask)."""
    import autograd_lab as al
    found = {"autograd_lab/cpu": None, "autograd_lab/cuda": None, "torch/cpu": None, "torch/cuda": None}
    if not al.cuda.is_available():
        try:
            from autograd_lab._cupy_backend import load
            load()
            found["autograd_lab/cuda"] = "al.cuda.is_available() is False"
        except RuntimeError as exc:
            found["autograd_lab/cuda"] = str(exc)
    if importlib.util.find_spec("torch") is None:
        found["torch/cpu"] = found["torch/cuda"] = "PyTorch is not installed (pip install -e '.[oracle]')"
    else:
        import torch
        if not torch.cuda.is_available():
            found["torch/cuda"] = f"torch {torch.__version__} sees no CUDA device"
    return found  # row -> None (runs) or the reason it cannot


# -- the driver ------------------------------------------------------------------------------------------
def subprocess_runner(threads: int):
    """Run one sample in a fresh process (``--worker``) with ``threads`` BLAS/OpenMP threads."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    from .common import THREAD_VARS
    env.update({var: str(threads) for var in THREAD_VARS})

    def run(spec: dict) -> dict:
        cmd = [sys.executable, "-m", "benchmarks.gpu", "--worker", json.dumps(spec)]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return {"error": "timed out after 600 s"}
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return {"error": f"exit {proc.returncode}: {' | '.join(tail)}"}
        return json.loads(proc.stdout.strip().splitlines()[-1])
    return run


def run_case(workload: str, batch: int, rows: list, rounds: int, run, reps: int, warmup: dict, log) -> dict:
    """``rounds`` rounds of every row (rotated order); per row the per-round medians (ms) and first losses."""
    values: dict = {r: [] for r in rows}
    checks: dict = {}
    errors: dict = {}
    env: dict = {}
    for k in range(rounds):
        order = rows[k % len(rows):] + rows[:k % len(rows)]
        for row in order:
            if row in errors:
                continue
            lib, device = row.split("/")
            res = run({"workload": workload, "lib": lib, "device": device, "batch": batch, "reps": reps,
                       "warmup": warmup[device]})
            if "error" in res:
                errors[row] = res["error"]
                log(f"  {workload}_{batch} [{row}]: {res['error']}")
                continue
            values[row].append(statistics.median(res["times"]) * 1e3)
            checks.setdefault(row, res["check"])
            env.update({f"{row}:{key}": val for key, val in res.get("env", {}).items()})
        log(f"  {workload}_{batch} round {k + 1}/{rounds}: " + ", ".join(
            f"{r} {values[r][-1]:.4g} ms" for r in rows if len(values[r]) == k + 1))
    return {"values": values, "checks": checks, "errors": errors, "env": env}


def compare_checks(checks: dict) -> dict:
    """Each row's first losses against autograd_lab on the CPU (else the first row that ran)."""
    ref_row = "autograd_lab/cpu" if "autograd_lab/cpu" in checks else next(iter(checks), None)
    out = {"reference": ref_row, "ok": ref_row is not None, "max_rel_err": {}, "rtol": {}}
    for row, vals in checks.items():
        ref = checks[ref_row]
        rtol = RTOL[row.split("/")[1]] if row != ref_row else 0.0
        err = max((abs(a - b) / max(abs(b), 1e-30) for a, b in zip(vals, ref)), default=0.0)
        if len(vals) != len(ref):
            err = float("inf")
        out["max_rel_err"][row], out["rtol"][row] = err, RTOL[row.split("/")[1]]
        out["ok"] = out["ok"] and err <= rtol
    return out


def summarize(workload: str, batch: int, outcome: dict) -> dict:
    values = outcome["values"]
    medians = {r: statistics.median(v) for r, v in values.items() if v}
    ratios = {}
    for name, a, b in RATIOS:  # paired by round, as in the main suite: load hits both sides alike
        pairs = [x / y for x, y in zip(values.get(a, []), values.get(b, [])) if y > 0]
        ratios[name] = statistics.median(pairs) if pairs else None
    return {"name": f"{workload}_{batch}", "workload": workload, "batch": batch, "unit": "ms/step",
            "samples": values, "medians": medians, "ratios": ratios, "check": compare_checks(outcome["checks"]),
            "losses": outcome["checks"], "errors": outcome["errors"]}


def _fmt(x, suffix: str = "") -> str:
    return "-" if x is None else f"{x:.3g}{suffix}"


def render_markdown(report: dict) -> str:
    m = report["machine"]
    lines = ["# GPU section: training steps on CPU and CUDA (issue 8)", "",
             f"{m['date']}; GPU: **{report['gpu'] or 'none'}**; CPU: {m['cpu']} x{m['cpus']}, {m['threads']} "
             f"thread(s); {m['samples']} round(s) of fresh processes; versions: "
             + ", ".join(f"{k} {v}" for k, v in sorted(report["versions"].items()) if v is not None) + ".", ""]
    for row, why in report["skipped"].items():
        lines.append(f"- **{row} not run**: {why}")
    if not report["cuda"]:
        lines += ["", "**The CUDA rows need a GPU**: only the CPU rows ran here. Run `make bench-gpu` on a machine "
                  "with an NVIDIA GPU, CuPy and a CUDA build of PyTorch to fill them in."]
    lines += ["", "ms per step (median over rounds); ratios are medians of same-round ratios, below 1 = the first "
              "is faster.", "",
              "| case | al CPU | al CUDA | torch CPU | torch CUDA | al CUDA / torch CUDA | al CUDA / al CPU "
              "| torch CUDA / torch CPU | al CPU / torch CPU | same numbers |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["results"]:
        med, rat = r["medians"], r["ratios"]
        check = "yes" if r["check"]["ok"] else "**NO**"
        lines.append(f"| {r['name']} | " + " | ".join(_fmt(med.get(row_name(*row))) for row in ROWS) + " | "
                     + " | ".join(_fmt(rat[name], "x") for name, _, _ in RATIOS) + f" | {check} |")
    lines += ["", "Same numbers: the first 4 losses and the first step's squared gradient norm of every parameter, for "
              "every row against autograd_lab on the CPU, rtol "
              f"{RTOL['cpu']:g} for CPU rows and {RTOL['cuda']:g} for CUDA rows (other summation orders on the GPU; "
              "PyTorch's TF32 is off). Largest relative differences:", ""]
    for r in report["results"]:
        errs = ", ".join(f"{row} {err:.1e}" for row, err in r["check"]["max_rel_err"].items())
        lines.append(f"- {r['name']}: {errs or '-'}" + "".join(f"; {row} failed: {e}" for row, e in r["errors"].items()))
    if report["env"]:
        lines += ["", "CUDA rows ran with: " + ", ".join(f"{k} = {v}" for k, v in sorted(report["env"].items())) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, run=None, rows_found: dict | None = None) -> int:
    """The driver. ``run`` (a sample runner) and ``rows_found`` (``probe()``'s answer) are for tests."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu", description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5, help="rounds (a fresh process per row in each)")
    parser.add_argument("--batch-sizes", default="256,4096", help="comma-separated batch sizes")
    parser.add_argument("--only", choices=WORKLOADS, help="one workload: mlp or cnn")
    parser.add_argument("--require-cuda", action="store_true", help="exit 1 when the CUDA rows cannot run")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP threads in each process (default 1, as the main suite; e.g. 16 for a multi-core CPU)")
    parser.add_argument("--reps", type=int, default=20, help="timed steps per process at most (3 s budget)")
    parser.add_argument("--warmup", type=int, help="untimed steps after the check steps (default 2 on CPU, 10 on CUDA)")
    parser.add_argument("--out", default=str(RESULTS), help="where gpu.json and gpu.md go")
    parser.add_argument("--update", action="store_true",
                        help="keep the cases of the existing gpu.json that are not run now (run mlp and cnn separately)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        print(json.dumps(run_sample(**spec)))
        return 0

    found = probe() if rows_found is None else rows_found
    skipped = {row: why for row, why in found.items() if why is not None}
    cuda = found["autograd_lab/cuda"] is None
    if not cuda:
        print(f"CUDA is absent here ({found['autograd_lab/cuda']}): the CUDA rows need a GPU; "
              "running the CPU rows only.", flush=True)
        if args.require_cuda:
            print("--require-cuda: stopping (exit status 1).")
            return 1
    from .report import machine_info
    info = machine_info(args.threads, args.samples)
    rows = [row_name(*r) for r in ROWS if row_name(*r) not in skipped]
    run = run or subprocess_runner(args.threads)
    workloads = (args.only,) if args.only else WORKLOADS
    batches = [int(b) for b in args.batch_sizes.split(",") if b]
    warmup = {"cpu": 2, "cuda": 10}  # CUDA: kernel compilation/loading, cuBLAS/cuDNN handles, memory pools
    if args.warmup is not None:
        warmup = {"cpu": args.warmup, "cuda": args.warmup}
    print(f"GPU section: {', '.join(workloads)} at batch {', '.join(map(str, batches))}; rows {', '.join(rows)}; "
          f"{args.samples} round(s), {args.threads} CPU thread(s)", flush=True)
    start = time.perf_counter()
    results, env = [], {}
    for workload in workloads:
        for batch in batches:
            outcome = run_case(workload, batch, rows, args.samples, run, args.reps, warmup,
                               lambda msg: print(msg, flush=True))
            env.update(outcome["env"])
            results.append(summarize(workload, batch, outcome))
    info["wall_s"] = round(time.perf_counter() - start, 1)
    gpu = next((v for k, v in env.items() if k.endswith(":gpu")), None)
    versions = dict(info["versions"], **{k.split(":")[1]: v for k, v in env.items()
                                          if k.split(":")[1] in ("cupy", "torch_cuda", "cudnn", "cuda_driver",
                                                                 "cuda_runtime")})
    out = Path(args.out)
    if args.update and (out / "gpu.json").exists():
        previous = json.loads((out / "gpu.json").read_text())
        fresh = {r["name"] for r in results}
        results[:0] = [r for r in previous["results"] if r["name"] not in fresh]
        env = {**previous.get("env", {}), **env}
        gpu = gpu or previous.get("gpu")
        versions = {**previous.get("versions", {}), **versions}
    report = {"machine": info, "gpu": gpu, "cuda": cuda, "skipped": skipped, "versions": versions, "env": env,
              "rtol": RTOL, "check_steps": CHECK_STEPS, "warmup_steps": warmup, "results": results}
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu.json").write_text(json.dumps(report, indent=1) + "\n")
    markdown = render_markdown(report)
    (out / "gpu.md").write_text(markdown)
    print(markdown)
    print(f"wrote {out / 'gpu.json'} and {out / 'gpu.md'}")
    ok = all(r["check"]["ok"] and not r["errors"] for r in results)
    return 0 if ok and (cuda or not args.require_cuda) else 1


if __name__ == "__main__":  # the thread variables come from the driver's environment, set before NumPy loads
    raise SystemExit(main())
