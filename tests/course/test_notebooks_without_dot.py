"""The course's nbval run passes on a machine without Graphviz's ``dot``: the lab draws its SVG in Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_nbval_passes_without_the_dot_executable(tmp_path):
    bin_dir = tmp_path / "bin"  # an empty PATH: no `dot` (the interpreter is called by its full path)
    bin_dir.mkdir()
    env = dict(os.environ, PATH=str(bin_dir))
    probe = subprocess.run([sys.executable, "-c", "import shutil; print(shutil.which('dot'))"],
                           env=env, capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "None"
    notebook = ROOT / "notebooks" / "03_how_history_is_encoded.ipynb"  # draws graphs in four cells
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(notebook), "--nbval", "--nbval-current-env",
         "--nbval-sanitize-with", str(ROOT / "notebooks" / "nbval_sanitize.cfg"), "-q", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
