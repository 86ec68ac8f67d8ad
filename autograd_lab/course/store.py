"""Store a lesson notebook as a learner should first see it, and check that a stored one is clean.

``python -m autograd_lab.course.store NOTEBOOK...`` runs each notebook top to bottom in a fresh kernel (in its own
folder, as JupyterLab would) and writes it back with its outputs, after two touches:

- a progress bar (``tqdm.auto``) is a widget whose stored text is the one it had when it appeared, ``0%``; the bar is
  stored as its finished text instead (``100%|██████████| 60/60 [00:02<00:00, 28.1it/s]``), which JupyterLab and the
  docs site show until the cell runs again and the live bar takes over;
- the widgets' state that the run collected is dropped: the lab's drawings keep their picture and text outline,
  and redraw live when their cell runs.

``python -m autograd_lab.course.store --check NOTEBOOK...`` runs nothing: it lists what a stored notebook should not
contain (see :func:`problems`) and exits with status 1 if there is anything. Compare the stored outputs with a fresh
run with nbval: ``pytest --nbval --nbval-sanitize-with nbval_sanitize.cfg NOTEBOOK``. Running needs nbclient and
ipykernel, which the ``lab`` extra brings (Jupyter's).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path

__all__ = ["store", "finish_progress_bars", "problems", "main"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
UNFINISHED_BAR = re.compile(r"\b0%\|[^|\n]*\|\s*0/\d+")  # what a tqdm bar's text says when it appears
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,16}\b")  # <MulBackward0 object at 0x7f3a...>: differs at every run
ABSOLUTE_PATH = re.compile(r"(/home/[^/\s]+/|/Users/[^/\s]+/|/tmp/|/root/|[A-Za-z]:\\\\Users\\\\)")
GOALS = re.compile(r"you will be able to|you'll be able to|by the end|你将能够", re.IGNORECASE)  # (English, Chinese)


def store(path: str | Path, *, timeout: int = 600, kernel_name: str = "python3") -> None:
    """Run the notebook at ``path`` in a fresh kernel and write it back with finished progress bars and no widget
    state. A cell that raises stops the run with nbclient's error (a lesson stores no error output)."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=timeout, kernel_name=kernel_name, store_widget_state=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute()
    finish_progress_bars(notebook)
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)


def finish_progress_bars(notebook) -> int:
    """Replace each tqdm bar widget's output by the bar's last text, read from the widget state the run stored.

    A tqdm notebook bar is an HBox of three widgets: an HTML label (``'training: 100%'``), a FloatProgress and an HTML
    counter (``'60/60 [00:02<00:00, 28.1it/s]'``). Returns how many bars were finished.
    """
    state = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    finished = 0
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            text = _bar_text(state, view["model_id"]) if view else None
            if text is not None:
                output["data"] = {"text/plain": text}
                finished += 1
    return finished


def _bar_text(state: dict, model_id: str) -> str | None:
    """The text of the tqdm bar whose HBox is ``model_id``, or None if that model is not a tqdm bar."""
    box = state.get(model_id, {})
    children = box.get("state", {}).get("children", []) if box.get("model_name") == "HBoxModel" else []
    models = [state.get(child.removeprefix("IPY_MODEL_"), {}) for child in children]
    if [m.get("model_name") for m in models] != ["HTMLModel", "FloatProgressModel", "HTMLModel"]:
        return None
    left, progress, right = (m["state"] for m in models)
    total = progress.get("max") or 0
    fraction = min(max(progress.get("value", 0) / total, 0.0), 1.0) if total else 0.0

    def plain(value: str) -> str:
        return html.unescape(value).replace("\u2007", " ")  # tqdm pads with figure spaces in HTML

    from tqdm.std import Bar
    return f"{plain(left.get('value', ''))}|{Bar(fraction, 10):u}|{plain(right.get('value', ''))}"


def problems(path: str | Path) -> list[str]:
    """What a stored lesson notebook should not contain, one line each (an empty list: it is clean).

    Checked: it opens with a markdown cell saying what the learner will be able to do; its code cells ran top to
    bottom in one run (execution counts 1..n); no error outputs; no widget state; no unfinished progress bar; no
    memory address and no absolute path of the machine that ran it.
    """
    path = Path(path)
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook.get("cells", [])
    found = []
    if not cells or cells[0]["cell_type"] != "markdown" or not GOALS.search(_text(cells[0]["source"])):
        found.append("the first cell should be markdown saying what the learner will be able to do "
                     "('By the end you will be able to: ...'; in Chinese '学完本课，你将能够：...')")
    counts = [c.get("execution_count") for c in cells if c["cell_type"] == "code" and _text(c["source"]).strip()]
    if counts != list(range(1, len(counts) + 1)):
        found.append(f"execution counts {counts} are not 1..{len(counts)}: run it top to bottom in a fresh kernel "
                     "(python -m autograd_lab.course.store)")
    if WIDGET_STATE in notebook.get("metadata", {}).get("widgets", {}):
        found.append("it stores widget state in its metadata: store it with python -m autograd_lab.course.store")
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            found += [f"cell {index}: {what}" for what in _output_problems(output)]
    return found


def _output_problems(output: dict) -> list[str]:
    if output.get("output_type") == "error":
        return [f"an error output ({output.get('ename')}): an exercise placeholder should print its checker's "
                "message, not raise"]
    texts = [_text(output.get("text", ""))] + [_text(v) for k, v in output.get("data", {}).items()
                                               if k.startswith("text/")]
    found = []
    for text in texts:
        if UNFINISHED_BAR.search(text):
            found.append("a progress bar stored at 0%: store it with python -m autograd_lab.course.store")
        if ADDRESS.search(text):
            found.append(f"a memory address ({ADDRESS.search(text).group(0)}): print names (node.name()) or values "
                         "instead of objects' reprs")
        if ABSOLUTE_PATH.search(text):
            found.append(f"the absolute path {ABSOLUTE_PATH.search(text).group(0)!r} of the machine that ran it")
    return found


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograd_lab.course.store", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="run nothing; list what the stored notebooks should not "
                                                             "contain, exit 1 if anything")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (default 600)")
    args = parser.parse_args(argv)
    status = 0
    for path in args.notebooks:
        if not args.check:
            store(path, timeout=args.timeout)
        for line in problems(path):
            print(f"{path}: {line}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
