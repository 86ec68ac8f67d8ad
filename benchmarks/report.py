"""Tables and target verdicts for the driver: console text, Markdown (``results/latest.md``)."""

from __future__ import annotations

import os
import platform
import time


def machine_info(threads: int, samples: int) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:  # no /proc (not Linux): keep platform's processor name
        cpu = platform.processor() or platform.machine()
    versions = {}
    for name in ("numpy", "torch", "autograd_lab"):
        try:
            versions[name] = __import__(name).__version__
        except ImportError:
            versions[name] = None
    return {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "cpu": cpu, "cpus": os.cpu_count(),
            "load_start": os.getloadavg() if hasattr(os, "getloadavg") else None, "python": platform.python_version(),
            "platform": platform.platform(), "threads": threads, "samples": samples, "versions": versions}


# (case, ratio key or special, bound, what the issue asks): issue 20's lines, pure Python
TARGETS = [
    ("op_overhead_16", "autograd_lab/torch", 1.5, "at or below 1.5x PyTorch"),
    ("deep_chain_100k", "autograd_lab/torch", 1.0, "at or below 1.0x PyTorch"),
    # linear: the million-op chain's time over the 100k chain's, both run in the same process (micro.run_deep_chain):
    # 10 when time is linear in the length; up to 12 allows for the memory hierarchy's cost of a working set 10x
    # larger (PyTorch's own ratio is recorded beside ours). A walk that is not linear would read near 100.
    ("deep_chain_1m", "linear", 12.0, "1,000,000 completes in linear time (1M/100k time ratio in one process, "
     "linear = 10)"),
    ("scalar_mlp", "autograd_lab/torch", 1.5, "at or below 1.5x PyTorch"),
    ("mlp_train", "autograd_lab/numpy", 1.2, "within 1.2x of the NumPy floor"),
    ("cnn_train", "autograd_lab/numpy", 1.3, "within 1.3x of the NumPy floor"),
    ("memory_forward", "traced/numpy", 1.10, "forward with grad within 1.1x of the floor (tracemalloc)"),
    ("memory_no_grad", "traced/numpy", 1.10, "no_grad forward within 1.1x of the floor (tracemalloc)"),
    ("memory_after_backward", "traced_abs", 1.0, "nothing left beyond .grad after backward (< 1 MB, tracemalloc)"),
    ("lab_snapshot_dot_2000", "abs", 0.2, "2,000-node snapshot+DOT under 0.2 s"),
]


def _by_name(results: list) -> dict:
    return {r["name"]: r for r in results}


def target_lines(results: list) -> list[dict]:
    """One verdict per target of the issue whose case ran: the measured figure, the bound, met or not."""
    rows = _by_name(results)
    verdicts = []
    for name, key, bound, text in TARGETS:
        r = rows.get(name)
        if r is None:
            continue
        value = None
        if key == "linear":
            value = (r["metrics"].get("autograd_lab") or {}).get("linear_ratio")
        elif key == "abs":
            value = r["medians"].get("autograd_lab")
        elif key.startswith("traced"):
            al = (r["metrics"].get("autograd_lab") or {}).get("traced")
            floor = (r["metrics"].get("numpy") or {}).get("traced")
            if key == "traced_abs":
                value = al
            elif al is not None and floor:
                value = al / floor
        else:
            value = r["ratios"].get(key)
        verdicts.append({"case": name, "measure": key, "value": value, "bound": bound, "target": text,
                         "met": None if value is None else value <= bound})
    return verdicts


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}g}"


def _rows(report: dict) -> tuple[list[str], list[list[str]]]:
    libs = list(report["libs"])
    header = ["case", "unit"] + libs
    if "autograd_lab" in libs and "numpy" in libs:
        header.append("al / numpy")
    if "autograd_lab" in libs and "torch" in libs:
        header.append("al / torch")
    if "torch" in libs and "numpy" in libs:
        header.append("torch / numpy")
    header.append("same numbers")
    rows = []
    for r in report["results"]:
        row = [r["name"], r["unit"]]
        for lib in libs:
            error = r["errors"].get(lib)  # the full message is in latest.json
            row.append(("timed out" if "timed out" in error else "failed") if error else _fmt(r["medians"].get(lib)))
        for key, present in (("autograd_lab/numpy", "al / numpy"), ("autograd_lab/torch", "al / torch"),
                             ("torch/numpy", "torch / numpy")):
            if present in header:
                ratio = r["ratios"].get(key)
                row.append("-" if ratio is None else f"{ratio:.2f}x")
        check = r["check"]
        row.append("yes" if check["ok"] else "NO: " + ", ".join(f"{k} {v:.1e}" for k, v in check["max_rel_err"].items()))
        rows.append(row)
        if any("traced" in (m or {}) for m in r["metrics"].values()):
            traced = [r["name"] + " (tracemalloc)", "MB"]
            for lib in libs:
                traced.append(_fmt((r["metrics"].get(lib) or {}).get("traced")))
            al, floor = ((r["metrics"].get(x) or {}).get("traced") for x in ("autograd_lab", "numpy"))
            for present in header[2 + len(libs):-1]:
                traced.append(f"{al / floor:.2f}x" if present == "al / numpy" and al is not None and floor and floor > 0.5
                              else "-")
            traced.append("")
            rows.append(traced)
        if any("linear_ratio" in (m or {}) for m in r["metrics"].values()):  # the million-op chain's linearity
            linear = [r["name"] + " / 100k in one process", "ratio"]
            linear += [_fmt((r["metrics"].get(lib) or {}).get("linear_ratio")) for lib in libs]
            rows.append(linear + ["-"] * (len(header) - len(linear) - 1) + [""])
    return header, rows


def _load(value) -> str:
    """A load average triple, as ``uptime`` prints it (the JSON stores it as a list, a fresh run as a tuple)."""
    return "unknown" if value is None else ", ".join(f"{x:.2f}" for x in value)


def render_markdown(report: dict) -> str:
    header, rows = _rows(report)
    m = report["machine"]
    lines = [
        "# autograd_lab benchmarks: latest run",
        "",
        f"{m['date']}; {m['cpu']} ({m['cpus']} CPUs), load average {_load(m['load_start'])} at the start; "
        f"{m['threads']} BLAS thread(s); up to {m['samples']} rounds per case, each library in a fresh process per "
        f"round, interleaved; Python {m['python']}, " + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v) + ".",
        "Values are medians; ratios are medians of same-round ratios. `python -m benchmarks` regenerates this file.",
    ]
    for update in m.get("updated", []):  # (a rerun on another machine says which: its rows are that machine's)
        where = f" on {update['cpu']} ({update['cpus']} CPUs)" if update.get("cpu", m["cpu"]) != m["cpu"] else ""
        lines.append(f"Rerun on {update['date']}{where} (load {_load(update['load_start'])}): "
                     f"{', '.join(update['cases'])}.")
    lines += [
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if report["targets"]:
        lines += ["", "## Targets (issue 20)", "", "| case | target | measured | met |", "|---|---|---|---|"]
        for t in report["targets"]:
            met = "-" if t["met"] is None else ("yes" if t["met"] else "no")
            unit = "" if t["measure"] in ("abs", "traced_abs") else "x"
            lines.append(f"| {t['case']} | {t['target']} | {_fmt(t['value'])}{unit} | {met} |")
    return "\n".join(lines) + "\n"


def render_console(report: dict) -> str:
    header, rows = _rows(report)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths))]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in rows]
    for t in report["targets"]:
        met = "n/a" if t["met"] is None else ("met" if t["met"] else "MISSED")
        out.append(f"target {t['case']}: {t['target']}: {_fmt(t['value'])} -> {met}")
    return "\n".join(out)
