"""The Chinese edition of the course (``notebooks/zh/``) stays in step with the English one.

For every English notebook, the Chinese one at the same relative path exists and has the same code cells in the same
order: the same tags, the same folding (``jupyter.source_hidden``) and the same code once comments are removed (the
translators translate comments, nothing else). The one difference allowed is in the first code cell, which switches
the checkers and the lab to Chinese: it adds ``al.course.set_language("zh")``, and ``import autograd_lab as al`` where
the English cell does not import it. Every Chinese notebook links the glossary in its first cell, gives the same time
as the English one, and is stored with Chinese feedback from its checkers, never the English "Not yet" or "Correct!".
The style of each edition's markdown is checked in test_course_style.py; how to translate is in TRANSLATING.md.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import pytest
from course_notebooks import EDITIONS, course_notebooks, notebook_id, translation_of

ENGLISH = course_notebooks("en")
CHINESE = course_notebooks("zh")
SWITCH = 'al.course.set_language("zh")'
IMPORT = "import autograd_lab as al"
ENGLISH_FEEDBACK = re.compile(r"^(Not yet\.|Correct!)", re.MULTILINE)  # the English checkers' first words
TIME = {"en": re.compile(r"Time: about (\d+(?:[–-]\d+)?) minutes"), "zh": re.compile(r"用时：约 ?(\d+(?:[–-]\d+)?) ?分钟")}


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _code_cells(path: Path) -> list[dict]:
    return [cell for cell in _cells(path) if cell["cell_type"] == "code"]


def code_lines(source: str) -> list[str]:
    """The code of a cell without its comments: each line without its ``# ...`` (found by tokenize, so a ``#`` inside
    a string stays), trailing spaces dropped, and the lines left empty dropped."""
    lines = source.splitlines()
    try:
        comments = [token for token in tokenize.generate_tokens(io.StringIO(source).readline)
                    if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):  # not Python as a whole (a cell magic): whole-line comments only
        return [line.rstrip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    for token in reversed(comments):
        row, start = token.start
        lines[row - 1] = lines[row - 1][:start] + lines[row - 1][token.end[1]:]
    return [line.rstrip() for line in lines if line.strip()]


def _shape(cell: dict) -> tuple:
    """What must be the same in both editions besides the code: the tags and whether the source is folded."""
    metadata = cell.get("metadata", {})
    return tuple(metadata.get("tags", [])), metadata.get("jupyter", {}).get("source_hidden", False)


def _first_cell_problems(english: list[str], chinese: list[str]) -> list[str]:
    """The Chinese first code cell is the English one with the language switch (and the import it needs)."""
    if chinese.count(SWITCH) != 1:
        return [f"the first code cell should call {SWITCH} once (it calls it {chinese.count(SWITCH)} times)"]
    rest = list(chinese)
    rest.remove(SWITCH)
    if IMPORT not in english and IMPORT in rest:
        if rest.index(IMPORT) > chinese.index(SWITCH):
            return [f"the first code cell should import autograd_lab ({IMPORT}) before {SWITCH}"]
        rest.remove(IMPORT)
    elif IMPORT in english and chinese.index(SWITCH) < chinese.index(IMPORT):
        return [f"the first code cell should call {SWITCH} after {IMPORT}"]
    if rest != english:
        return ["the first code cell's code (comments aside) differs from the English one's beyond the language "
                f"switch:\n{_diff(english, rest)}"]
    return []


def _diff(english: list[str], chinese: list[str]) -> str:
    import difflib
    return "\n".join(difflib.unified_diff(english, chinese, "English", "Chinese", lineterm="", n=1))


def step_problems(english_path: Path, chinese_path: Path) -> list[str]:
    """What keeps the Chinese notebook from being in step with the English one (an empty list: nothing)."""
    english, chinese = _code_cells(english_path), _code_cells(chinese_path)
    if len(english) != len(chinese):
        return [f"{len(chinese)} code cells, the English notebook has {len(english)}"]
    problems = []
    for index, (en, zh) in enumerate(zip(english, chinese)):
        if _shape(en) != _shape(zh):
            problems.append(f"code cell {index}: tags and folding {_shape(zh)}, in English {_shape(en)}")
        en_code, zh_code = code_lines(_source(en)), code_lines(_source(zh))
        if index == 0:
            problems += [f"code cell 0: {problem}" for problem in _first_cell_problems(en_code, zh_code)]
        elif en_code != zh_code:
            problems.append(f"code cell {index}: the code (comments aside) differs:\n{_diff(en_code, zh_code)}")
    return problems


def _first_markdown(path: Path) -> str:
    return next((_source(cell) for cell in _cells(path) if cell["cell_type"] == "markdown"), "")


def _chinese(english: Path) -> Path:
    """The Chinese translation of ``english``, which must exist."""
    chinese = translation_of(english, "zh")
    assert chinese.exists(), f"{notebook_id(english)} has no Chinese edition: translate it into {notebook_id(chinese)}"
    return chinese


@pytest.mark.parametrize("english", ENGLISH, ids=notebook_id)
def test_the_chinese_edition_has_the_same_code(english):
    chinese = _chinese(english)
    problems = step_problems(english, chinese)
    assert not problems, f"{notebook_id(chinese)} is out of step with {notebook_id(english)}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("english", ENGLISH, ids=notebook_id)
def test_the_chinese_edition_takes_the_same_time(english):
    chinese = _chinese(english)
    said = TIME["en"].search(_first_markdown(english))
    if said is not None:
        found = TIME["zh"].search(_first_markdown(chinese))
        assert found is not None and found.group(1) == said.group(1), (
            f"{notebook_id(chinese)}: its first cell should say '用时：约 {said.group(1)} 分钟。' as the English says "
            f"'{said.group(0)}'")


def test_every_chinese_notebook_translates_an_english_one():
    orphans = [notebook_id(path) for path in CHINESE
               if not (EDITIONS["en"] / path.relative_to(EDITIONS["zh"])).exists()]
    assert orphans == [], "Chinese notebooks without an English one (renamed or removed in English?)"


@pytest.mark.parametrize("chinese", CHINESE, ids=notebook_id)
def test_a_chinese_notebook_switches_to_chinese_and_links_the_glossary(chinese):
    first_code = code_lines(_source(_code_cells(chinese)[0]))
    assert SWITCH in first_code, f"{notebook_id(chinese)}: its first code cell should call {SWITCH}"
    glossary = "glossary.md" if chinese.parent == EDITIONS["zh"] else "../glossary.md"
    assert f"[术语表]({glossary})" in _first_markdown(chinese), (
        f"{notebook_id(chinese)}: its first cell should link the glossary: 术语对照见[术语表]({glossary})。")
    assert (chinese.parent / glossary).resolve() == EDITIONS["zh"] / "glossary.md"


@pytest.mark.parametrize("chinese", CHINESE, ids=notebook_id)
def test_a_chinese_notebook_is_stored_with_chinese_feedback(chinese):
    english = []
    for index, cell in enumerate(_cells(chinese)):
        for output in cell.get("outputs", []):
            texts = [_source({"source": output.get("text", "")})]
            texts += [_source({"source": value}) for key, value in output.get("data", {}).items() if key == "text/plain"]
            english += [f"cell {index}: {match.group(0)}" for text in texts for match in ENGLISH_FEEDBACK.finditer(text)]
    assert english == [], (f"{notebook_id(chinese)} shows English feedback from its checkers: set_language('zh') in its "
                           f"first code cell, then store it again ({english})")


def test_the_glossary_is_there_and_pairs_english_with_chinese():
    glossary = (EDITIONS["zh"] / "glossary.md").read_text(encoding="utf-8")
    assert glossary.startswith("# 术语表")
    rows = [line for line in glossary.splitlines() if line.startswith("| ") and not line.startswith("| English")]
    assert len(rows) > 50 and all(re.search(r"[\u4e00-\u9fff]", row) for row in rows)


def test_comments_are_removed_and_nothing_else():
    source = 'x = "# not a comment"  # 注释\n# 整行注释\n\ny = x  # comment\n%watch y  # magic\n'
    assert code_lines(source) == ['x = "# not a comment"', "y = x", "%watch y"]
    assert _first_cell_problems([IMPORT, "x = 1"], [IMPORT, SWITCH, "x = 1"]) == []
    assert _first_cell_problems(["x = 1"], [IMPORT, SWITCH, "x = 1"]) == []
    assert _first_cell_problems([IMPORT, "x = 1"], [IMPORT, SWITCH, "x = 2"]) != []
    assert _first_cell_problems([IMPORT, "x = 1"], [IMPORT, "x = 1"]) != []
