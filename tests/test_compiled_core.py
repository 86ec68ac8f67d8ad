"""The compiled core (autograd_lab/compiled.py): the six hottest modules compiled by Cython from their own source.

The whole suite runs twice in ``make test``: with the compiled core, then with ``AUTOGRAD_LAB_PURE_PYTHON=1``
(pure Python), so every behaviour is checked in both forms. These tests check the mechanism itself: that
what was asked for is what got imported, that an edited source falls back to Python, that the variable
is honoured, and that tracebacks through compiled code still show the Python lines.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import autograd_lab as al
from autograd_lab import compiled
from autograd_lab._compiled_core import BUILD_DIR, CORE_MODULES, PURE_PYTHON_VARIABLE, _built_path, pure_python_requested

PURE = pure_python_requested()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(al.__file__)))


def _all_built() -> bool:
    return all(_built_path(m).exists() for m in CORE_MODULES)


needs_build = pytest.mark.skipif(not _all_built(), reason="the compiled core is not built here "
                                 "(python -m autograd_lab.compiled build; needs Cython and a C compiler)")


def _run(code: str, cwd: str = ROOT, pythonpath: str = ROOT, pure: bool = False) -> str:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    env.pop(PURE_PYTHON_VARIABLE, None)
    if pure:
        env[PURE_PYTHON_VARIABLE] = "1"
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_core_is_in_the_form_asked_for():
    """Pure Python when the variable says so; otherwise compiled wherever it was built (always in CI)."""
    states = compiled.status()
    assert set(states) == set(CORE_MODULES)
    for module in CORE_MODULES:
        loader = sys.modules[module].__spec__.loader
        is_compiled = isinstance(loader, importlib.machinery.ExtensionFileLoader)
        assert (states[module] == "compiled") == is_compiled
        if PURE:
            assert not is_compiled and PURE_PYTHON_VARIABLE in states[module]
        elif os.environ.get("CI") or _all_built():  # CI builds it (make test runs the build with --require)
            assert is_compiled, f"{module}: {states[module]}"


@needs_build
def test_the_variable_selects_pure_python():
    out = _run(f"""
        import importlib.machinery, sys, types
        import autograd_lab as al
        from autograd_lab import compiled
        assert all(s.startswith("python: {PURE_PYTHON_VARIABLE}") for s in compiled.status().values())
        assert not any(isinstance(sys.modules[m].__spec__.loader, importlib.machinery.ExtensionFileLoader)
                       for m in compiled.CORE_MODULES)
        assert isinstance(al.Tensor.backward, types.FunctionType)  # a plain Python function, as written
        x = al.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        print(x.grad.tolist())
    """, pure=True)
    assert out.strip() == "[2.0, 4.0]"


@needs_build
def test_an_edited_module_runs_as_python_and_the_others_stay_compiled(tmp_path):
    """A built module is used only with the exact source it was built from (a learner's edit takes effect)."""
    shutil.copytree(os.path.join(ROOT, "autograd_lab"), tmp_path / "autograd_lab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    engine = tmp_path / "autograd_lab" / "autograd" / "engine.py"
    engine.write_text(engine.read_text() + "\nEDITED_BY_A_LEARNER = True\n")
    out = _run("""
        import autograd_lab as al
        from autograd_lab import compiled
        from autograd_lab.autograd import engine
        assert engine.EDITED_BY_A_LEARNER
        for module, state in compiled.status().items():
            print(module, "|", state)
        x = al.tensor([3.0], dtype=al.float64, requires_grad=True)
        x.exp().sum().backward()
        assert abs(x.grad.item() - 20.085536923187668) < 1e-12
    """, cwd=str(tmp_path), pythonpath=str(tmp_path))
    states = dict(line.split(" | ") for line in out.strip().splitlines())
    assert states.pop("autograd_lab.autograd.engine").startswith("python: its source changed since it was built")
    assert set(states.values()) == {"compiled"}


@needs_build
def test_an_extension_that_does_not_load_falls_back_to_the_source(tmp_path):
    """A damaged build (or one made on another machine) must not stop ``import autograd_lab``."""
    shutil.copytree(os.path.join(ROOT, "autograd_lab"), tmp_path / "autograd_lab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    damaged = next((tmp_path / "autograd_lab" / "_compiled").glob("autograd_lab.autograd.graph-*"))
    damaged.write_bytes(b"not a shared object")  # the right name and hash, but dlopen refuses it
    out = _run("""
        import sys
        import autograd_lab as al
        from autograd_lab import compiled
        graph = sys.modules["autograd_lab.autograd.graph"]
        assert graph.__file__.endswith("graph.py"), graph.__file__
        print(compiled.status()["autograd_lab.autograd.graph"])
        x = al.tensor([2.0], dtype=al.float64, requires_grad=True)
        (x * x).sum().backward()
        assert x.grad.item() == 4.0
    """, cwd=str(tmp_path), pythonpath=str(tmp_path))
    assert out.startswith("python: its compiled form did not load") and "build --force" in out


@needs_build
def test_tracebacks_through_compiled_code_show_the_python_lines(tmp_path):
    """Cython names the file inside the package; the lines show from any working directory."""
    out = _run("""
        import traceback
        import autograd_lab as al
        x = al.ones(2, requires_grad=True)
        y = x * 1
        z = y.sin()
        y.mul_(2)
        try:
            z.sum().backward()
        except RuntimeError:
            print(traceback.format_exc())
    """, cwd=str(tmp_path))
    assert 'File "autograd_lab/autograd/saved.py"' in out  # the compiled unpack, where the version check fails
    assert "raise RuntimeError(self._version_error(node, current))" in out  # with its line of Python


@needs_build
def test_build_is_idempotent_and_keeps_one_extension_per_module():
    assert compiled.build(log=lambda msg: None) == []  # up to date: nothing to do
    for module in CORE_MODULES:
        assert len(list(BUILD_DIR.glob(f"{module}-*"))) == 1


def test_without_cython_the_build_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "Cython.Build", None)  # an import of it now raises ImportError
    before = sorted(BUILD_DIR.glob("*")) if BUILD_DIR.exists() else []
    with pytest.raises(compiled.BuildError, match=r"pip install 'autograd-lab\[fast\]'"):
        compiled.build(force=True, log=lambda msg: None)
    assert (sorted(BUILD_DIR.glob("*")) if BUILD_DIR.exists() else []) == before  # nothing removed


def test_a_read_only_install_says_why_it_cannot_build(tmp_path, monkeypatch):
    pytest.importorskip("Cython", reason="building needs Cython: pip install -e '.[fast]'")
    import autograd_lab.compiled as module
    blocked = tmp_path / "not_a_directory"
    blocked.write_text("")  # a file where the directory should go: mkdir fails as it would without permission
    monkeypatch.setattr(module, "BUILD_DIR", blocked / "_compiled")
    with pytest.raises(compiled.BuildError, match="cannot write the extensions into"):
        compiled.build(force=True, log=lambda msg: None)


def test_the_command_line_reports_each_module():
    proc = subprocess.run([sys.executable, "-m", "autograd_lab.compiled", "status"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr  # (no runpy warning: the package does not import it)
    assert [line.split()[0] for line in proc.stdout.strip().splitlines()] == list(CORE_MODULES)
