"""Tutorial-style scripts of ``scripts/``, one per API item, written as a PyTorch user writes torch code with
``import autograd_lab as al``: each runs as it is, and again with ``autograd_lab`` replaced by ``torch``; both must
give the same results (floats to 1e-4: float32 arithmetic in another order)."""

from __future__ import annotations

import contextlib
import gc
import io
import math
import multiprocessing
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

SCRIPTS = Path(__file__).parent / "scripts"


def _run(name: str, library: str) -> dict:
    source = (SCRIPTS / name).read_text()
    if library == "torch":
        source = source.replace("autograd_lab", "torch")
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(SCRIPTS / name), "exec"), namespace)
    result = namespace["result"]
    namespace.clear()
    gc.collect()  # (a loader with persistent workers stops them when it is collected)
    return result


def _same(ours, theirs, where: str = "result") -> None:
    if isinstance(theirs, float) and not isinstance(theirs, bool):
        assert math.isclose(ours, theirs, rel_tol=1e-4, abs_tol=1e-4), f"{where}: {ours} != {theirs}"
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), where
        for key in theirs:
            _same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), f"{where}: {ours} != {theirs}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


@pytest.mark.parametrize("script", sorted(p.name for p in SCRIPTS.glob("*.py")))
def test_script_gives_torchs_results(script):
    ours = _run(script, "autograd_lab")
    theirs = _run(script, "torch")
    _same(ours, theirs)
    assert not multiprocessing.active_children()


def test_the_scripts_say_what_they_show():
    assert _run("checkpointing.py", "autograd_lab")["block runs"] == (5, 10)
    assert _run("dataloader_workers.py", "autograd_lab")["batches"] == 12
    assert len(_run("inference_mode_views.py", "autograd_lab")["errors"]) == 4
