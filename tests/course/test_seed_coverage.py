"""Every section of the documents the course covers is taught by notebook cells that run.

The documents (PyTorch's autograd notes and ``torch.autograd`` reference, 2017 and today) live beside the repository,
in ``../shared/seeds/`` (or where ``AUTOGRAD_LAB_SEEDS`` points). ``SEED_SECTIONS`` maps each section of each of them to
the cells that teach it: a notebook (by its number) and a piece of code one of its code cells contains. A section
with no cell, a cell that cannot be found or was never run, and a section of the documents missing from the map all
fail. The map holds titles and code only; the documents' prose stays in the documents.

The map points into the English notebooks only: the Chinese edition (``notebooks/zh/``) runs the same code cells,
which ``test_editions.py`` checks, so it teaches the same sections.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

Cells = tuple[tuple[str, str], ...]  # (notebook number, code that a code cell of it contains)

MECHANICS: Cells = (("00", "y.backward()"), ("03", "al.lab.draw(y)"))
EXCLUDING: Cells = (("01", "(x * w).requires_grad"), ("01", "model.requires_grad_(False)"))
REQUIRES_GRAD: Cells = (("01", "(x * w).requires_grad"), ("01", "model.fc = nn.Linear(model.fc.in_features, 2)"))
VOLATILE: Cells = (("02", "volatile=True"), ("11", "Variable(legacy.ones(3), volatile=True)"))
HISTORY: Cells = (("03", "next_functions"), ("03", "collatz_ish(a)"), ("11", "y.creator.previous_functions"))
IN_PLACE: Cells = (("07", "w.add_(1)"), ("11", "y.log_()"), ("11", "view.mul_(10)"))
CORRECTNESS: Cells = (("07", "saved.saved_version"), ("08", "h.add_(1)  # Cube saved h"))
NOTES_2017 = {
    "Excluding subgraphs from backward": EXCLUDING,
    "requires_grad": REQUIRES_GRAD,
    "volatile": VOLATILE,
    "How autograd encodes the history": HISTORY,
    "In-place operations on Variables": IN_PLACE,
    "In-place correctness checks": CORRECTNESS,
}

SEED_SECTIONS: dict[str, dict[str, Cells]] = {
    "autograd_notes_2017.rst": {"Autograd mechanics": MECHANICS, **NOTES_2017},
    "autograd_notes_2017_zh_en.md": {"Autograd机制的原理": MECHANICS, **NOTES_2017},
    "autograd_notes_today.md": {
        "AUTOGRAD MECHANICS": MECHANICS,
        "Excluding subgraphs from the backward": EXCLUDING,
        "requires_grad": REQUIRES_GRAD,
        "How autograd encodes the history": HISTORY,
        "In-place operations with autograd": IN_PLACE,
        "In-place correctness checks": CORRECTNESS,
    },
    "autograd_notes_today_saved_tensors.md": {
        "How autograd encodes the history": HISTORY,
        "Saved tensors": (("04", "y.grad_fn._saved_self is x"), ("04", "e.grad_fn._saved_result is e"),
                          ("04", "s.grad_fn._saved_self is e"), ("04", "saved_tensors_hooks(pack_log, unpack_log)"),
                          ("08", "ctx.save_for_backward(x)")),
    },
    "autograd_api_2017_zh.md": {
        "Automatic differentiation package - torch.autograd": (("11", "Variable(legacy.ones(2, 2), requires_grad=True)"),
                                                               ("00", "y.backward()")),
        "torch.autograd.backward(variables, grad_variables, retain_variables=False)": (
            ("11", "legacy.autograd.backward([sample], [None])"), ("05", "y.backward(gradient=v)"),
            ("11", "y.backward(retain_variables=True)")),
        "Variable": (("11", "Variable(legacy.ones(2, 2), requires_grad=True)"), ("11", "x = al.ones(2, 2, requires_grad=True)")),
        "API 兼容性": (("11", "y = (x + 2).mean()"),),
        "In-place operations on Variables": IN_PLACE,
        "In-place 正确性检查": CORRECTNESS,
        "class torch.autograd.Variable": (("11", "type(x.grad).__name__"), ("11", "y.creator.previous_functions"),
                                          ("11", "out.volatile"), ("01", "y.requires_grad = False")),
        "backward(gradient=None, retain_variables=False)": (("11", "y.backward(retain_variables=True)"),
                                                            ("05", "y.backward(gradient=v)")),
        "detach()": (("02", "target = (x * 2).detach()"), ("02", "b = a.detach()")),
        "detach_()": (("02", "y.detach_()"),),
        "register_hook(hook)": (("06", "y.register_hook(lambda grad: print"), ("06", "handle.remove()")),
        "reinforce(reward)": (("11", "sample.reinforce(2.0)"), ("11", "loss = -(2.0 * (probs / probs.sum()).log()[k])")),
        "class torch.autograd.Function": (("08", "class Cube(Function)"), ("08", "ctx.needs_input_grad"),
                                          ("11", "relu(x)   # a second call of the same instance")),
        "backward(* grad_output)": (("08", "def backward(ctx, grad_output):"), ("11", "def backward(self, grad_output):")),
        "forward(* input)": (("08", "def forward(ctx, x):"), ("11", "def forward(self, input):")),
        "mark_dirty(* args)": (("08", "ctx.mark_dirty(x)"),),
        "mark_non_differentiable(* args)": (("08", "ctx.mark_non_differentiable(where)"),
                                            ("11", "self.mark_non_differentiable(mask)")),
        "mark_shared_storage(* pairs)": (("11", "self.mark_shared_storage((input, row))"),),
        "save_for_backward(* tensors)": (("08", "ctx.save_for_backward(x)"), ("11", "self.save_for_backward(input)")),
    },
}


def _seed_dir() -> Path | None:
    configured = os.environ.get("AUTOGRAD_LAB_SEEDS")
    for candidate in ([Path(configured)] if configured else []) + [ROOT.parent / "shared" / "seeds"]:
        if candidate.is_dir():
            return candidate
    return None


_UNDERLINE = re.compile(r"^\s*([=^~\-])\1{2,}\s*$")


def seed_headings(path: Path) -> list[str]:
    """The section titles of a seed document: Markdown ``#`` headings outside code fences, and reStructuredText titles
    (a line underlined with ``=``, ``^``, ``~`` or ``-``), without backticks, escapes and ``[source]``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    headings, fenced = [], False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        markdown = re.match(r"^#{1,6}\s+(.*\S)\s*$", line) if path.suffix == ".md" else None
        if markdown:
            headings.append(markdown.group(1))
        elif i + 1 < len(lines) and line.strip() and not _UNDERLINE.match(line) and _UNDERLINE.match(lines[i + 1]):
            headings.append(line.strip())
    return [re.sub(r"\\([_()])", r"\1", h).replace("`", "").replace("[source]", "").strip() for h in headings]


def _code_cells(prefix: str) -> tuple[str, list[dict]]:
    matches = sorted(NOTEBOOKS.glob(f"{prefix}_*.ipynb"))
    assert len(matches) == 1, f"notebook {prefix}_*.ipynb: found {[m.name for m in matches]}"
    cells = json.loads(matches[0].read_text(encoding="utf-8"))["cells"]
    return matches[0].name, [c for c in cells if c["cell_type"] == "code"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


SECTIONS = [(document, section) for document, sections in SEED_SECTIONS.items() for section in sections]


@pytest.mark.parametrize("document, section", SECTIONS, ids=[f"{d}::{s}" for d, s in SECTIONS])
def test_section_is_taught_by_cells_that_ran(document, section):
    cells = SEED_SECTIONS[document][section]
    assert cells, f"{document}: section '{section}' is taught by no notebook cell"
    for prefix, code in cells:
        name, code_cells = _code_cells(prefix)
        found = [c for c in code_cells if code in _source(c)]
        assert found, f"{document} '{section}': no code cell of {name} contains {code!r}"
        assert any(c.get("execution_count") for c in found), f"{name}: the cell with {code!r} was never run"


def test_the_map_has_every_section_of_the_seed_documents():
    seeds = _seed_dir()
    if seeds is None:
        pytest.skip("the seed documents are not in ../shared/seeds: set AUTOGRAD_LAB_SEEDS to their folder")
    documents = sorted(p.name for p in seeds.iterdir() if p.suffix in (".md", ".rst") and p.name != "README.md")
    assert documents == sorted(SEED_SECTIONS), "the seed documents and the map's documents differ"
    for document in documents:
        headings = seed_headings(seeds / document)
        missing = [h for h in headings if h not in SEED_SECTIONS[document]]
        assert not missing, f"{document}: sections with no cells in SEED_SECTIONS: {missing}"
        stale = [s for s in SEED_SECTIONS[document] if s not in headings]
        assert not stale, f"{document}: SEED_SECTIONS lists sections the document does not have: {stale}"
