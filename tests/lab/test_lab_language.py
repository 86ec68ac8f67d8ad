"""The lab in Chinese: after ``al.course.set_language("zh")`` every word of a drawing, a stepper's caption, the
details panel and the widget's buttons comes from the Chinese catalogue, while code names, numbers and the learner's
own names stay exactly as they are (and escaped), and every box is wide enough for its Chinese text.

English stays the default: the other lab tests check the English words.
"""

from __future__ import annotations

import pathlib
import re
import xml.etree.ElementTree as ET

import pytest

import autograd_lab as al
from autograd_lab import i18n
from autograd_lab.lab import draw, step_backward
from autograd_lab.lab.layout import char_cells, clip_cells, text_cells
from autograd_lab.lab.svg import CHAR, PAD_X, ROW_LOOK, _wrap, box_size
from autograd_lab.lab.widget import GraphWidget, node_details, widget_texts

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = "<script>alert('权重')</script>&w"
STATIC_JS = pathlib.Path(al.__file__).parent / "lab" / "static" / "widget.js"
FRONTEND_JS = pathlib.Path(__file__).parents[2] / "lab-frontend" / "src" / "widget.js"


@pytest.fixture
def chinese():
    """The learner's switch, as a Chinese notebook's first cell has it; whatever was chosen before comes back after."""
    with i18n.language("en"):
        al.course.set_language("zh")
        yield


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(SVG + "text")]


def _graph():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    w = al.tensor(3.0, requires_grad=True)
    h = x * w
    y = (h * h).sum()
    h.add_(1)  # MulBackward0's saved tensors are now stale
    return x, w, h, y


def test_a_drawing_speaks_chinese_after_set_language(chinese):
    x, w, h, y = _graph()
    drawing = draw(y, names={"x": x, "w": w, "h": h, "y": y})
    bundle = drawing._repr_mimebundle_()
    texts = _texts(bundle["image/svg+xml"])
    assert texts[0].startswith("↓ 从顶部的输出往下读到叶子节点")
    assert any("⚠ 已过期" in t for t in texts)  # the stale saved tensor, flagged in Chinese
    assert "运算节点（一个 grad_fn）及其保存的张量" in texts  # the legend
    assert {"MulBackward0", "AccumulateGrad", "x", "w", "(2,) float32"} <= set(texts)  # code names stay
    assert "已过期：下一次反向传播会报错" in bundle["text/plain"]  # the outline nbval compares
    assert "<summary>同一个图的文字版</summary>" in bundle["text/html"]
    assert 'alt="y 的 autograd 计算图：' in bundle["text/html"]
    assert "<B>图例</B>" in drawing.source  # the DOT drawing's legend
    mul = next(n for n in drawing.snapshot.nodes.values() if n.name == "MulBackward0" and n.saved[0].stale)
    details = node_details(drawing.snapshot, mul.id)
    assert details["sections"][0]["rows"][0] == ["类别", "运算节点"]
    assert any("⚠ 已过期" in s["title"] for s in details["sections"])
    for word in ("Read from the output", "op node", "STALE", "stale saved", "The same graph", "Legend"):
        assert word not in bundle["image/svg+xml"] + bundle["text/plain"] + bundle["text/html"] + drawing.source


def test_a_stepper_caption_speaks_chinese(chinese):
    x = al.tensor([1.0, 2.0], requires_grad=True)
    z = (x.exp() * 3).sum()
    stepper = step_backward(z, names={"x": x})
    assert stepper.caption() == "反向传播之前：共有 4 个节点要运行。"
    assert stepper.widget.stepper["caption"] == "反向传播之前：共有 4 个节点要运行。请按“下一步”。"
    stepper.next()
    assert stepper.caption() == "第 1/4 步：SumBackward0 · 传入梯度 1 · 传出 [0] [1, 1]"
    stepper.run()
    assert stepper.caption().startswith("第 4/4 步：AccumulateGrad，累加进 x · 传入梯度 [8.155, 22.17]")
    assert stepper.caption().endswith(" · 反向传播完成")
    assert stepper.frames[2].freed == ["result"]  # the saved tensors' names are code: they stay
    assert any("已释放" in t for t in _texts(stepper.svg(static=True)))


def test_the_learners_names_stay_as_written_and_escaped(chinese):
    权重w = al.tensor([1.0, 2.0], requires_grad=True)
    loss = (权重w * 2).sum()
    drawing = draw(loss, names={HOSTILE: 权重w, "权重w": loss})
    bundle = drawing._repr_mimebundle_()
    svg = bundle["image/svg+xml"]
    assert "<script" not in svg and "<script" not in bundle["text/html"]
    assert HOSTILE in _texts(svg)  # parsed back from the escaped SVG: the name, character for character
    assert "&lt;script&gt;" in svg
    assert 'alt="权重w 的 autograd 计算图' in bundle["text/html"]  # no space put inside the learner's name
    stepper = step_backward(loss, names={"权重w": 权重w})
    stepper.run()
    assert "累加进权重w" in stepper.caption()  # beside Chinese words, a Chinese name needs no space


def test_every_box_is_wide_enough_for_its_chinese_text(chinese):
    x, w, h, y = _graph()
    drawing = draw(y, names={"x": x, "w": w, "h": h, "y": y})
    for box in drawing.scene.boxes.values():
        width = box_size(box)[0]
        for row in box.rows:
            assert text_cells(row.text) * CHAR * ROW_LOOK[row.style].size + 2 * PAD_X <= width + 1e-9, row.text
    assert text_cells("中文ab，") == 8 and char_cells("⚠") == 2 and char_cells("é") == 1 and char_cells("\u0301") == 0
    assert clip_cells("从顶部的输出往下读", 7) == "从顶部…" and clip_cells("abcdef", 6) == "abcdef"


def test_chinese_lines_break_beside_characters_never_before_closing_punctuation():
    text = ("从顶部的输出往下读到叶子节点：每个箭头是 next_functions 中的一条边，也就是反向传播发送梯度的方向。"
            "（前向计算是从下往上进行的。）")
    lines = _wrap(text, 20 * CHAR * 11, 11)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "") and len(lines) > 4
    assert all(text_cells(line) <= 20 for line in lines if line != "next_functions")
    assert not any(line[0] in "，。：）" or line[-1] == "（" for line in lines)
    assert _wrap("each arrow is an edge of next_functions", 20 * CHAR * 11, 11) == [
        "each arrow is an", "edge of", "next_functions"]


def test_the_widget_takes_every_word_from_python(chinese):
    widget = GraphWidget()
    assert widget.texts == widget_texts() and widget.texts["next"] == "下一步 ▶" and widget.texts["legend"] == "图例"
    assert widget.direction.startswith("从顶部的输出")
    with i18n.language("en"):
        assert widget_texts()["next"] == "Next ▶"
        x = al.tensor([1.0], requires_grad=True)
        widget.show(draw((x * 2).sum()))  # a redraw after the language changed relabels the buttons
        assert widget.texts["next"] == "Next ▶" and widget.direction.startswith("Read from the output")
    source = FRONTEND_JS.read_text()
    named = set(re.findall(r'texts\.(?:label\([^,()]+, |text\()"(\w+)"', source))  # texts.label(el, "legend")...
    assert named and named <= set(widget_texts()), named - set(widget_texts())
    assert [key for key in widget_texts() if f'"{key}"' not in source] == []  # and the front end uses every one
    words = re.compile(r'["`]([^"`\n]*\b(?:Legend|graph as text|Close|whole graph|Actual size|Zoom|Reset|Back|Play|Pause|'
                       r'Next|backward step|could not be shown)\b[^"`\n]*)["`]')  # a string literal with English in it
    assert words.findall(source) == [] and words.findall(STATIC_JS.read_text()) == []  # no words of its own
