"""The drawing the widget and the notebooks show: SVG laid out in Python, read from the output at the top.

Checked here without a browser: user text is escaped, the output sits above its leaves, parameters carry
their names, values inside boxes are short, the stepper keeps every box in place, and a drawing's output
carries the same SVG (made without a ``dot`` executable), as HTML, and as a text outline.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import autograd_lab as al
from autograd_lab import nn
from autograd_lab.lab import draw, snapshot, step_backward
from autograd_lab.lab.scene import build_scene, short_value
from autograd_lab.lab.snapshot import summarize
from autograd_lab.lab.svg import to_svg

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ["<script>alert(1)</script>", 'say "hi" & {braces}', "]]><g onload='x'>", "two\nlines"]


def _boxes(svg: str) -> dict[str, ET.Element]:
    tree = ET.fromstring(svg)
    return {g.get("data-id"): g for g in tree.iter(SVG + "g") if "al-box" in (g.get("class") or "").split()}


def _texts(box: ET.Element) -> list[str]:
    return [t.text or "" for t in box.iter(SVG + "text")]


def _place(box: ET.Element) -> tuple[float, float, float, float]:
    rect = box.find(SVG + "rect")
    return tuple(float(rect.get(k)) for k in ("x", "y", "width", "height"))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, inputs):
        return self.fc2(self.fc1(inputs).relu())


@pytest.mark.parametrize("name", HOSTILE)
def test_user_text_is_escaped_everywhere(name):
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.grad_fn.metadata[name] = name
    bundle = draw(y, names={name: x, "y": y})._repr_mimebundle_()
    tree = ET.fromstring(bundle["image/svg+xml"])  # well-formed XML whatever the names hold
    assert not list(tree.iter(SVG + "script"))
    assert not [a for e in tree.iter() for a in e.attrib if a.lower().startswith("on")]  # no event handler
    texts = "\n".join(t.text or "" for t in tree.iter(SVG + "text"))
    assert name.split("\n")[0][:20] in texts
    page = bundle["text/html"]
    assert "<script" not in page and "onload='" not in page
    image = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", page).group(1)).decode()
    assert image == bundle["image/svg+xml"]


def test_output_on_top_and_every_arrow_runs_down_next_functions():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    w = al.tensor(3.0, requires_grad=True)
    y = (x * w + x).sum()
    drawing = draw(y)
    boxes = {k: _place(v) for k, v in _boxes(drawing.svg()).items()}
    snap = drawing.snapshot
    output = boxes[snap.roots[0]]
    assert all(output[1] < place[1] for key, place in boxes.items() if key != snap.roots[0])
    for node in snap.nodes.values():
        for child, _ in node.next:
            if child is not None:
                assert boxes[node.id][1] + boxes[node.id][3] < boxes[child][1]  # parent above child
    header = ET.fromstring(drawing.svg(static=True)).find(SVG + "g")
    assert "each arrow is an edge of next_functions" in " ".join(t.text for t in header.iter(SVG + "text"))


def test_parameters_named_from_the_module_or_the_variable():
    al.manual_seed(0)
    net = MLP()
    loss = net(al.randn(3, 4)).sum()
    auto = draw(loss)
    titles = {t for box in _boxes(auto.svg()).values() for t in _texts(box)}
    assert {"net.fc1.weight", "net.fc1.bias", "net.fc2.weight", "net.fc2.bias", "loss"} <= titles
    assert "module: fc1 (Linear)" in titles  # the module's class, found from the variable net
    given = draw(loss, model=net)
    titles = {t for box in _boxes(given.svg()).values() for t in _texts(box)}
    assert {"fc1.weight", "fc2.bias"} <= titles and "net.fc1.weight" not in titles
    assert draw(loss, net).outline() == given.outline()  # the module may also come among the tensors
    stepper = step_backward(loss, model=net).run()
    assert any(f.caption(stepper.total).startswith(f"step {f.index + 1}/{stepper.total}: AccumulateGrad into fc1.weight")
               for f in stepper.frames)
    with pytest.raises(TypeError, match="model= takes an nn.Module"):
        snapshot(loss, model="net")


def test_values_inside_boxes_are_short_and_full_in_the_details():
    assert short_value(summarize(al.tensor([1.3934, 1.21])._data)) == "[1.393, 1.21]"
    assert short_value(summarize(al.arange(16, dtype=al.float32)._data / 3)) == "[0, 0.333, …]"
    assert short_value(summarize(al.ones(10, 10)._data)) == "(norm 10)"
    x = al.arange(16, dtype=al.float32).requires_grad_()
    (x * x).sum().backward()
    drawing = draw(x * 1)
    rows = [t for box in _boxes(drawing.svg()).values() for t in _texts(box)]
    assert ".grad = [0, 2, …]" in rows
    assert max(_place(box)[2] for box in _boxes(drawing.svg()).values()) < 420
    from autograd_lab.lab.widget import node_details
    leaf = next(n for n in drawing.snapshot.nodes.values() if n.kind == "leaf")
    details = node_details(drawing.snapshot, leaf.id)
    assert [".grad", "[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]"] in details["sections"][1]["rows"]


def test_stepper_keeps_every_box_in_place_and_shows_one_grad_per_leaf():
    al.manual_seed(0)
    net = MLP()
    loss = ((net(al.randn(5, 4)) - 1) ** 2).mean()
    stepper = step_backward(loss)
    start = {k: _place(v)[:2] for k, v in _boxes(stepper.svg()).items()}
    for _ in range(stepper.total):
        stepper.next()
        boxes = _boxes(stepper.svg())
        assert {k: _place(v)[:2] for k, v in boxes.items()} == start
        current = [b for b in boxes.values() if "al-current" in b.get("class").split()]
        assert len(current) == 1
        grads = [t for t in _texts(current[0]) if t.startswith(".grad")]
        if "al-leaf" in current[0].get("class").split():
            assert len(grads) == 1 and grads[0].startswith(".grad ← ")
    assert "backward complete" in stepper.caption()


def test_zero_dim_shapes_are_written_out():
    from autograd_lab.lab.widget import node_details
    w = al.tensor(2.0, requires_grad=True)
    y = w * w
    snap = snapshot(y)
    mul = next(n for n in snap.nodes.values() if n.name == "MulBackward0")
    sections = {s["title"]: dict(s["rows"]) for s in node_details(snap, mul.id)["sections"]}
    assert sections["_saved_self"]["shape"] == "()"
    assert "self: () float32 v0" in [r.text for r in build_scene(snap).boxes[mul.id].rows]


def test_the_same_graph_draws_the_same_svg():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = (x * 2).exp()
    z = (h * h + h).sum()
    assert to_svg(build_scene(snapshot(z, names={"x": x, "h": h}))) == to_svg(build_scene(snapshot(z, names={"x": x, "h": h})))


def test_static_output_needs_no_dot_executable(tmp_path):
    script = ("import autograd_lab as al\nx = al.tensor([1.0, 2.0], requires_grad=True)\ny = (x * 3).sum()\n"
              "b = al.lab.draw(y)._repr_mimebundle_()\nassert b['image/svg+xml'].startswith('<svg')\n"
              "assert 'data:image/svg+xml;base64,' in b['text/html']\nprint(b['text/plain'])")
    env = {**os.environ, "PATH": str(tmp_path)}  # nothing to run on the PATH: no dot
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["y () float32", "└─ SumBackward0"]
