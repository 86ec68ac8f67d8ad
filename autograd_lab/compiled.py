"""The compiled core: the hottest modules' own Python source, compiled by Cython when it can be.

autograd_lab is pure Python, and the Python source is what it teaches. The six modules every op and
every backward pass run through (``CORE_MODULES``: the tensor, grad mode, the graph, saved tensors, the
engine and ``Op.apply``) can also be compiled, unchanged, into C extensions by Cython. Compiled, they
take 10-30% off small-tensor work (benchmarks/NOTES.md has the figures); nothing else changes: the same
classes, the same behaviour, the same tracebacks pointing at the same ``.py`` lines.

- ``python -m autograd_lab.compiled build`` compiles them (Cython and a C compiler needed; the ``fast``
  and ``test`` extras bring Cython). The README's commands run it; it only rebuilds what changed.
- A built module is used only while its ``.py`` is byte for byte the source it was built from: edit
  ``engine.py`` and the next import runs your edited Python, the other five stay compiled.
- ``AUTOGRAD_LAB_PURE_PYTHON=1`` in the environment runs everything as Python (to step through the
  engine in a debugger, or to compare); ``python -m autograd_lab.compiled status`` says what is used.

The extensions live in ``autograd_lab/_compiled/``, named after the module and a hash of its source.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path

from ._compiled_core import (
    _SUFFIX,
    BUILD_DIR,
    CORE_MODULES,
    DIRECTIVES,
    PURE_PYTHON_VARIABLE,
    _built_path,
    _source,
    _why_python,
    pure_python_requested,
)

__all__ = ["CORE_MODULES", "PURE_PYTHON_VARIABLE", "BuildError", "build", "clean", "status"]


def status() -> dict[str, str]:
    """For each core module: ``"compiled"`` or ``"python: <why>"`` (for those imported so far; the others
    are listed as what the next import would do)."""
    result = {}
    for module in CORE_MODULES:
        loaded = sys.modules.get(module)
        if loaded is not None:
            compiled = isinstance(getattr(loaded.__spec__, "loader", None), importlib.machinery.ExtensionFileLoader)
            result[module] = "compiled" if compiled else f"python: {_why_python.get(module, 'imported as Python')}"
        elif pure_python_requested():
            result[module] = f"python: {PURE_PYTHON_VARIABLE} is set"
        else:
            result[module] = "compiled" if _built_path(module).exists() else "python: not built"
    return result


class BuildError(RuntimeError):
    """The compiled core could not be built (no Cython, no C compiler, a compile error)."""


def build(force: bool = False, log=print) -> list[str]:
    """Compile the core modules whose current source has no extension yet (all of them with ``force``).

    Returns the modules built. Raises ``BuildError`` saying what is missing when it cannot build.
    """
    todo = [m for m in CORE_MODULES if force or not _built_path(m).exists()]
    if not todo:
        return []
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
        from setuptools.dist import Distribution
    except ImportError as exc:
        raise BuildError(f"Cython and setuptools are needed ({exc}): pip install 'autograd-lab[fast]'") from None
    import tempfile

    try:
        BUILD_DIR.mkdir(exist_ok=True)
        probe = BUILD_DIR / ".writable"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise BuildError(f"cannot write the extensions into {BUILD_DIR} ({exc}): build as the user who installed "
                         "autograd_lab, or install it where you can write (a virtual environment)") from None
    with tempfile.TemporaryDirectory(prefix="autograd_lab_build_") as tmp:
        extensions = [Extension(m, [str(_source(m))]) for m in todo]
        log(f"compiling {len(todo)} core module(s) with Cython: {', '.join(m.split('.')[-1] for m in todo)}")
        try:
            extensions = cythonize(extensions, compiler_directives=DIRECTIVES, build_dir=tmp, quiet=True,
                                   force=True)
            dist = Distribution({"ext_modules": extensions, "script_name": "autograd_lab.compiled"})
            command = dist.get_command_obj("build_ext")
            command.build_lib, command.build_temp = os.path.join(tmp, "lib"), os.path.join(tmp, "temp")
            command.parallel = os.cpu_count() or 1
            command.ensure_finalized()
            command.run()
        except Exception as exc:  # compile errors, a missing compiler or Python headers: all say the same
            raise BuildError(f"compiling the core failed: {type(exc).__name__}: {exc}. A C compiler and Python's "
                             "headers are needed (Debian: apt-get install gcc python3-dev); autograd_lab runs as "
                             "pure Python meanwhile.") from exc
        for module in todo:
            produced = Path(command.get_ext_fullpath(module))
            for old in BUILD_DIR.glob(f"{module}-*{_SUFFIX}"):  # builds of older sources
                old.unlink()
            target = _built_path(module)
            os.replace(produced, target)
    return todo


def clean() -> int:
    """Delete every built extension; returns how many."""
    removed = 0
    for path in BUILD_DIR.glob(f"autograd_lab.*{_SUFFIX}") if BUILD_DIR.exists() else ():
        path.unlink()
        removed += 1
    return removed


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m autograd_lab.compiled", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    build_parser = sub.add_parser("build", help="compile the core modules whose source changed (the default)")
    build_parser.add_argument("--force", action="store_true", help="rebuild every module")
    build_parser.add_argument("--require", action="store_true",
                              help="fail (exit 1) when it cannot build, instead of falling back to pure Python")
    sub.add_parser("status", help="say, module by module, whether the compiled or the Python form is used")
    sub.add_parser("clean", help="delete the built extensions")
    args = parser.parse_args(argv)
    if args.command == "status":
        for module, state in status().items():
            print(f"{module:34} {state}")
        return 0
    if args.command == "clean":
        print(f"removed {clean()} extension(s) from {BUILD_DIR}")
        return 0
    try:
        built = build(force=getattr(args, "force", False))
    except BuildError as exc:
        print(f"autograd_lab.compiled: {exc}", file=sys.stderr)
        return 1 if getattr(args, "require", False) else 0
    print(f"compiled core: {len(built)} module(s) built, {len(CORE_MODULES) - len(built)} up to date" if built
          else "compiled core: up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
