"""Sphinx configuration of the autograd_lab docs: MyST pages, the course notebooks and the API reference.

Build with ``make docs`` (HTML in ``docs/_build/html``); ``tests/docs/test_docs.py`` builds with warnings as errors.
The notebooks are rendered from the outputs stored in them (``docs/notebooks`` links to ``../notebooks``):
nothing is executed, so the build is fast and shows exactly what nbval checks.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document the checkout, even where the package is not installed
import autograd_lab  # noqa: E402

project = "autograd_lab"
author = "the autograd_lab authors"
copyright = "the autograd_lab authors"
release = version = autograd_lab.__version__

extensions = [
    "myst_nb",  # MyST Markdown pages and .ipynb notebooks (it brings myst_parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
]

# notebooks/PENDING_*.md: notes to the maintainers on notebooks about to change, not pages of the course
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store", "notebooks/PENDING_*.md"]

# -- notebooks: show the stored outputs, never execute ---------------------------------------------
nb_execution_mode = "off"
# The lab's drawings carry an interactive widget view, a static SVG and a text outline. A docs page has no
# kernel to drive the widget (and the notebooks keep no widget state), so pages show the SVG, or the text.
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "application/vnd.jupyter.widget-state+json", None),
]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# -- links between notebooks ----------------------------------------------------------------------
# docs/notebooks links to ../notebooks, and Sphinx resolves a relative link's path through that link: a notebook's
# [术语表](glossary.md) would point outside the docs. In the notebooks' pages, such a link (to a .md or .ipynb file
# beside the notebook) is read as a {doc} reference to that page instead: the same link, in Sphinx's terms.
_RELATIVE_LINK = re.compile(r"\[([^\]`]+)\]\(([\w./-]+)\.(?:md|ipynb)\)")


def _link_notebook_pages(app, docname: str, source: list[str]) -> None:
    if not docname.startswith("notebooks/"):
        return
    here = posixpath.dirname(docname)

    def as_doc(match: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(here, match.group(2)))
        return f"{{doc}}`{match.group(1)} </{target}>`"

    source[0] = _RELATIVE_LINK.sub(as_doc, source[0])


def setup(app) -> None:
    app.connect("source-read", _link_notebook_pages)


# -- API reference -------------------------------------------------------------------------------
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"autograd_lab {release}"
