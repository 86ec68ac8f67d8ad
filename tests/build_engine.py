"""The engine of the build-your-own track, read from its notebooks (``notebooks/build_it/b*.ipynb``).

Each notebook's code cells are tagged: ``engine`` (engine code the notebook gives), ``solution`` (a worked
solution: definitions, then the checker call), ``exercise`` (the learner's placeholder) and ``engine-so-far``
(the first code cell of notebooks 2 to 6: everything the earlier notebooks defined, in its latest version, so
that a notebook runs on its own). This module assembles that code, for the tests (the reference engine the
checkers are tested with is exactly the notebooks' code) and for keeping the ``engine-so-far`` cells in step:

    PYTHONPATH=$PWD python tests/build_engine.py --write   # after editing a notebook's engine or solution cells

then re-execute the notebooks that changed.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACK = ROOT / "notebooks" / "build_it"
SO_FAR = "engine-so-far"


def notebooks() -> list[Path]:
    return sorted(TRACK.glob("b[0-9]_*.ipynb"))


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _key(statement: ast.stmt) -> str:
    """What a top-level statement defines: a function's or class's name, an import's text, an assignment's target."""
    if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        return statement.name
    if isinstance(statement, ast.Assign):
        return "=" + ast.unparse(statement.targets[0])
    return ast.unparse(statement)


def definitions(path: Path) -> list[tuple[str, str]]:
    """``(key, source)`` of every top-level definition in the notebook's own engine and solution cells, in order.
    Bare expressions (a checker call, a drawing) are not engine code and are left out."""
    found = []
    for cell in _cells(path):
        if cell["cell_type"] != "code" or not ({"engine", "solution"} & _tags(cell)) or SO_FAR in _tags(cell):
            continue
        source = _source(cell)
        lines = source.splitlines()
        for statement in ast.parse(source).body:
            if isinstance(statement, ast.Expr):
                continue
            start = statement.lineno - 1 - len(getattr(statement, "decorator_list", []))
            found.append((_key(statement), "\n".join(lines[start:statement.end_lineno])))
    return found


def engine_before(index: int) -> str:
    """The engine as the notebooks before ``notebooks()[index]`` leave it: each name's latest definition, placed
    where it was first defined, imports first."""
    latest: dict[str, str] = {}
    for path in notebooks()[:index]:
        for key, source in definitions(path):
            latest[key] = source  # a later notebook's version replaces an earlier one, in the first one's place
    imports = [source for key, source in latest.items() if key.startswith(("import ", "from "))]
    rest = [source for key, source in latest.items() if not key.startswith(("import ", "from "))]
    return "\n".join(imports) + "\n\n\n" + "\n\n\n".join(rest) + "\n"


def so_far_cell(path: Path) -> dict | None:
    return next((cell for cell in _cells(path) if SO_FAR in _tags(cell)), None)


def load_engine(upto: int | None = None) -> dict:
    """A fresh namespace holding the engine after notebook ``upto`` (1-based; the whole track by default)."""
    paths = notebooks()
    upto = len(paths) if upto is None else upto
    namespace: dict = {"__name__": "learner_engine"}
    exec(compile(engine_before(upto), f"<engine after b{upto}>", "exec"), namespace)  # noqa: S102 - our notebooks
    return namespace


def write() -> list[str]:
    """Rewrites the ``engine-so-far`` cell of each notebook from the notebooks before it; returns those changed."""
    import nbformat

    changed = []
    for index, path in enumerate(notebooks()):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if SO_FAR in cell.metadata.get("tags", []):
                text = cell.source.split("\n", 1)[0] + "\n" + engine_before(index).rstrip("\n")
                if cell.source != text:
                    cell.source = text
                    changed.append(path.name)
        if path.name in changed:
            nbformat.write(nb, path)
    return changed


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/build_engine.py --write")
    print("updated:", ", ".join(write()) or "nothing")
