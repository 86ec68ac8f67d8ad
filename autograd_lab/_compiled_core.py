"""How a core module is imported from its compiled form (``autograd_lab.compiled`` builds them).

Imported first by ``autograd_lab/__init__``: it puts a finder on ``sys.meta_path`` that, for the six core
modules, loads the extension built from the module's current source, if there is one, and otherwise lets
the normal import load the ``.py``. Kept apart from ``compiled`` (the build and its command line) so that
``python -m autograd_lab.compiled`` does not run a module the package has already imported.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import linecache
import os
import sys
from pathlib import Path

CORE_MODULES = (
    "autograd_lab.tensor",
    "autograd_lab.autograd.grad_mode",
    "autograd_lab.autograd.graph",
    "autograd_lab.autograd.saved",
    "autograd_lab.autograd.engine",
    "autograd_lab.ops._op",
)
PURE_PYTHON_VARIABLE = "AUTOGRAD_LAB_PURE_PYTHON"
# Cython's settings. ``annotation_typing`` off: type hints stay hints (Cython would otherwise refuse an
# OrderedDict where a hint says dict); ``binding``: functions keep their signatures and introspection.
DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}
_RECIPE = "cython-directives:" + ",".join(f"{k}={v}" for k, v in sorted(DIRECTIVES.items()))
_PACKAGE_DIR = Path(__file__).resolve().parent
BUILD_DIR = _PACKAGE_DIR / "_compiled"
_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # e.g. .cpython-311-x86_64-linux-gnu.so: this interpreter's ABI

_why_python: dict[str, str] = {}  # module -> why it was imported as Python (filled by the finder)


def pure_python_requested() -> bool:
    """Whether ``AUTOGRAD_LAB_PURE_PYTHON`` asks for pure Python (any value but empty, 0, false or no)."""
    return os.environ.get(PURE_PYTHON_VARIABLE, "").strip().lower() not in ("", "0", "false", "no")


def _source(module: str) -> Path:
    return _PACKAGE_DIR.joinpath(*module.split(".")[1:]).with_suffix(".py")


def _built_path(module: str) -> Path:
    """Where the extension built from the module's current source is (or would be)."""
    digest = hashlib.sha256(_RECIPE.encode() + b"\0" + _source(module).read_bytes()).hexdigest()[:16]
    return BUILD_DIR / f"{module}-{digest}{_SUFFIX}"


class _CompiledCoreFinder(importlib.abc.MetaPathFinder):
    """Imports a core module from its extension when one was built from its current source."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in CORE_MODULES:
            return None
        try:
            built = _built_path(fullname)
        except OSError as exc:  # the source cannot be read: let the normal import report it
            _why_python[fullname] = f"its source could not be read ({exc})"
            return None
        if not built.exists():
            stale = any(BUILD_DIR.glob(f"{fullname}-*{_SUFFIX}"))
            _why_python[fullname] = ("its source changed since it was built" if stale else "not built") + \
                " (python -m autograd_lab.compiled build)"
            return None
        loader = _ExtensionOrSourceLoader(fullname, str(built))
        _show_source_lines(fullname)
        return importlib.util.spec_from_file_location(fullname, str(built), loader=loader)


class _ExtensionOrSourceLoader(importlib.machinery.ExtensionFileLoader):
    """Loads the extension; if it does not load (a damaged file, one built for another machine), the
    module's Python source instead, recording why: importing autograd_lab never fails on a bad build."""

    def create_module(self, spec):
        try:
            return super().create_module(spec)
        except (ImportError, OSError) as exc:
            _why_python[spec.name] = (f"its compiled form did not load ({exc}); rebuild it with "
                                      "python -m autograd_lab.compiled build --force")
            source = str(_source(spec.name))
            spec.loader = importlib.machinery.SourceFileLoader(spec.name, source)  # (importlib runs it next)
            spec.origin = source
            spec.cached = importlib.util.cache_from_source(source)
            return None


def _show_source_lines(module: str) -> None:
    """Let tracebacks through a compiled module show its Python lines from any working directory.

    Cython names a compiled function's file by its path inside the package (``autograd_lab/tensor.py``),
    which ``linecache`` finds only from the repository's root; a lazy entry reads the source instead.
    """
    source = _source(module)
    linecache.cache.setdefault("/".join(module.split(".")) + ".py", (source.read_text,))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (``autograd_lab/__init__`` calls this before any core import),
    unless ``AUTOGRAD_LAB_PURE_PYTHON`` asks for pure Python."""
    if pure_python_requested():
        for module in CORE_MODULES:
            _why_python[module] = f"{PURE_PYTHON_VARIABLE} is set"
        return
    if not any(isinstance(f, _CompiledCoreFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _CompiledCoreFinder())


def is_function(value) -> bool:
    """``inspect.isfunction`` that also accepts the functions of a compiled module (Cython's cyfunction)."""
    return isinstance(value, type(is_function)) or type(value).__name__ == "cython_function_or_method"
