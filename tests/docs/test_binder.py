"""binder/ describes an environment that installs from nothing and imports the lab.

A fresh venv gets what repo2docker would install (``pip install -r binder/requirements.txt`` from the
repository's root, then ``binder/postBuild`` if there is one), with "." pointing at a copy of this checkout.
Nothing is started: the test imports the lab and checks that what the notebooks import is there.
Dependencies come from the package index (pip's cache makes later runs quick).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"

pytestmark = pytest.mark.slow


def _notebook_imports() -> set[str]:
    """Top-level modules the notebooks import that are neither the standard library nor autograd_lab."""
    names: set[str] = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "autograd_lab"}


def _run(command: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{' '.join(command)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def test_binder_environment_installs_and_imports_the_lab(tmp_path):
    assert (BINDER / "requirements.txt").is_file(), "binder/requirements.txt is missing"
    # repo2docker builds from the repository; a copy keeps pip's build files out of this checkout
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "_compiled")
    repo.mkdir()
    for name in ["pyproject.toml", "README.md"]:
        shutil.copy2(ROOT / name, repo / name)
    shutil.copytree(ROOT / "autograd_lab", repo / "autograd_lab", ignore=ignore)
    shutil.copytree(BINDER, repo / "binder", ignore=ignore)

    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt"], repo, env)
    post_build = repo / "binder" / "postBuild"
    if post_build.exists():
        _run(["bash", str(post_build)], repo, env)

    check = f"""
import importlib, pathlib, sys
import autograd_lab, autograd_lab.lab
assert pathlib.Path(autograd_lab.__file__).is_relative_to(sys.prefix), autograd_lab.__file__
assert "export" in (pathlib.Path(autograd_lab.lab.__file__).parent / "static" / "widget.js").read_text()
assert (pathlib.Path(sys.prefix) / "share/jupyter/labextensions/anywidget/package.json").is_file()
for name in {sorted(_notebook_imports() | {"jupyterlab", "anywidget", "graphviz"})!r}:
    importlib.import_module(name)
print("ok")
"""
    # run from an empty directory, so the import can only find the installed package
    proc = _run([python, "-c", check], tmp_path, env)
    assert proc.stdout.strip() == "ok"
