"""The examples of the README and of the docs' hand-written pages run, and print what the pages say they print.

They are written as interactive sessions in ```` ```pycon ```` blocks, so :mod:`doctest` runs each page's blocks in
order, in one namespace, and compares every output; ``...`` stands for what varies (addresses, the rest of a long
message).
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "index.md", ROOT / "docs" / "getting-started.md", ROOT / "docs" / "zh" / "index.md"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_print_what_the_page_says(page):
    blocks = re.findall(r"^```pycon\n(.*?)^```", page.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page.name, str(page), 0)
    assert test.examples, f"{page.name} has no >>> examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
