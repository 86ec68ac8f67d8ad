"""The docs site: it builds with warnings as errors, renders every notebook of both editions of the course from its
stored outputs (nothing is executed), the English ones listed on the course page and the Chinese ones in the Chinese
section (``docs/zh/``) with their glossary, and its API reference covers the public packages. Needs the ``docs``
extra."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from course_notebooks import all_course_notebooks, language_of, notebook_id

pytest.importorskip("sphinx", reason="the docs build needs the docs extra: pip install -e '.[docs]'")
pytest.importorskip("myst_nb", reason="the docs build needs the docs extra: pip install -e '.[docs]'")
pytest.importorskip("furo", reason="the docs build needs the docs extra: pip install -e '.[docs]'")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = all_course_notebooks()  # English, then Chinese (notebooks/zh/)
LISTED_ON = {"en": ("course.html", "notebooks/"), "zh": ("zh/index.html", "../notebooks/")}  # page, its link prefix
REMOVED = {"remove-cell", "remove-output", "remove_cell", "remove_output"}  # tags that hide a cell's output

API_MODULES = [
    "autograd_lab", "autograd_lab.tensor", "autograd_lab.creation",
    "autograd_lab.autograd", "autograd_lab.autograd.graph", "autograd_lab.autograd.engine",
    "autograd_lab.autograd.function", "autograd_lab.autograd.functional", "autograd_lab.autograd.saved",
    "autograd_lab.autograd.gradcheck", "autograd_lab.autograd.anomaly", "autograd_lab.autograd.grad_mode",
    "autograd_lab.nn", "autograd_lab.nn.module", "autograd_lab.nn.functional", "autograd_lab.optim",
    "autograd_lab.data", "autograd_lab.lab", "autograd_lab.lab.stepper", "autograd_lab.lab.protocol", "autograd_lab.models",
    "autograd_lab.course", "autograd_lab.course.check", "autograd_lab.i18n", "autograd_lab.legacy",
    "autograd_lab.legacy.variable", "autograd_lab.linalg",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Build the HTML once, into a temporary directory, with every warning an error."""
    out = tmp_path_factory.mktemp("docs")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
               "-d", str(out / "doctrees"), str(ROOT / "docs"), str(out / "html")]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    problems = proc.stderr.strip()
    assert proc.returncode == 0 and not problems, (
        f"the docs build failed or warned (run `make docs` to reproduce):\n{problems}\n{proc.stdout[-3000:]}")
    return out / "html"


def test_pages_are_built(site):
    for page in ["index", "getting-started", "course", "teachers", "design/engine", "design/lab", "design/performance",
                 "api/index", "zh/index", "notebooks/zh/glossary"]:
        assert (site / f"{page}.html").is_file(), page


def test_performance_page_shows_the_latest_benchmark_table(site):
    table = (ROOT / "benchmarks" / "results" / "latest.md").read_text(encoding="utf-8")
    first_case = re.search(r"^\| (op_overhead_16) \| us/op \| ([\d.]+) \|", table, re.M)
    assert first_case, "benchmarks/results/latest.md has no op_overhead_16 row"
    page = (site / "design" / "performance.html").read_text(encoding="utf-8")
    assert f"<td><p>{first_case.group(1)}</p></td>" in page and f"<td><p>{first_case.group(2)}</p></td>" in page
    assert "im2col" in page


def test_every_notebook_is_rendered_with_its_stored_outputs(site):
    assert NOTEBOOKS, "notebooks/ holds no notebook to render"
    for path in NOTEBOOKS:
        name = notebook_id(path).removesuffix(".ipynb") + ".html"  # e.g. build_it/b1_....html, zh/03_....html
        page = site / "notebooks" / name
        assert page.is_file(), f"{notebook_id(path)} was not rendered"
        listing, prefix = LISTED_ON[language_of(path)]
        assert f'href="{prefix}{name}"' in (site / listing).read_text(encoding="utf-8"), (
            f"{notebook_id(path)} is not listed on {listing}")
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        with_outputs = sum(1 for c in cells if c["cell_type"] == "code" and c.get("outputs")
                           and not REMOVED & set(c.get("metadata", {}).get("tags", [])))
        shown = len(re.findall(r'class="cell_output\b', page.read_text(encoding="utf-8")))
        assert shown == with_outputs, f"{notebook_id(path)}: {with_outputs} cells have stored outputs, the page shows {shown}"


def test_solutions_are_folded_behind_a_toggle(site):
    """Every worked solution (a cell tagged solution and hide-input) is rendered with its source inside a closed
    <details> ("Show code cell source"), and its checker's output outside it, shown."""
    folded = re.compile(r'<div class="cell (?=[^"]*\btag_solution\b)(?=[^"]*\btag_hide-input\b)[^"]*">\s*'
                        r'<details class="[^"]*\bhide above-input\b[^"]*">.*?Show code cell source.*?</details>\s*'
                        r'<div class="cell_output', re.S)
    total = 0
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        solutions = sum(1 for c in cells if "solution" in c.get("metadata", {}).get("tags", []))
        page = (site / "notebooks" / (notebook_id(path).removesuffix(".ipynb") + ".html")).read_text(encoding="utf-8")
        assert len(folded.findall(page)) == solutions, f"{notebook_id(path)}: {solutions} solutions, not all shown folded"
        total += solutions
    assert total >= 40, f"expected the course's solutions (over 40), found {total}"


def test_the_chinese_section_is_linked_and_links_its_glossary(site):
    """The main page links the Chinese section; each Chinese notebook's page links the glossary page (the notebooks'
    own relative link, made a page link by docs/conf.py)."""
    assert 'href="zh/index.html"' in (site / "index.html").read_text(encoding="utf-8")
    assert 'href="../notebooks/zh/glossary.html"' in (site / "zh" / "index.html").read_text(encoding="utf-8")
    for path in (p for p in NOTEBOOKS if language_of(p) == "zh"):
        page = site / "notebooks" / (notebook_id(path).removesuffix(".ipynb") + ".html")
        glossary = "glossary.html" if path.parent.name == "zh" else "../glossary.html"
        assert f'href="{glossary}"><span class="doc">术语表' in page.read_text(encoding="utf-8"), notebook_id(path)


def test_no_page_embeds_a_widget_view_it_cannot_run(site):
    for page in (site / "notebooks").glob("**/*.html"):
        assert "application/vnd.jupyter.widget-view+json" not in page.read_text(encoding="utf-8"), page.name


def test_progress_bars_are_shown_finished(site):
    """A tqdm bar is stored as its last text (autograd_lab.course.store), so a page never shows one stuck at 0%."""
    bars = 0
    for page in (site / "notebooks").glob("**/*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\b0%\|[^|]*\|\s*0/\d+", text), f"{page.name} shows a progress bar at 0%"
        bars += len(re.findall(r"100%\|[^|]*\|\s*(\d+)/\1", text))
    assert bars >= 3, f"expected the finished bars of notebooks 01 and 10, found {bars}"


def test_api_reference_covers_the_public_modules(site):
    index = (site / "py-modindex.html").read_text(encoding="utf-8")
    listed = set(re.findall(r'<code class="xref">([\w.]+)</code>', index))
    missing = [m for m in API_MODULES if m not in listed]
    assert not missing, f"modules missing from the API reference: {missing}"
    tensor = (site / "api" / "autograd_lab.html").read_text(encoding="utf-8")
    for method in ["backward", "register_hook", "retain_grad", "detach"]:
        assert f'id="autograd_lab.tensor.Tensor.{method}"' in tensor, f"Tensor.{method} is not documented"


def test_design_pages_link_every_api_name_they_mention(site):
    """A {func}/{class}/{mod} reference on a hand-written page must resolve (Sphinx only warns with -n)."""
    for page in [site / "getting-started.html", site / "teachers.html", *sorted((site / "design").glob("*.html"))]:
        text = page.read_text(encoding="utf-8")
        mentioned = re.findall(r'<code class="xref py[^"]*"><span class="pre">([^<]*)', text)
        linked = re.findall(r'<a class="reference internal"[^>]*><code class="xref py[^"]*"><span class="pre">([^<]*)', text)
        assert sorted(mentioned) == sorted(linked), f"{page.name}: unresolved {sorted(set(mentioned) - set(linked))}"


def test_the_core_is_documented_with_its_source(site):
    """The engine, the op definitions and the formulas each have a viewcode "[source]" page."""
    for module in ("autograd_lab.tensor", "autograd_lab.autograd.engine", "autograd_lab.autograd.graph",
                   "autograd_lab.autograd.saved", "autograd_lab.ops._op", "autograd_lab.ops.formulas"):
        assert (site / "_modules" / (module.replace(".", "/") + ".html")).is_file(), module
