"""The lab's DOT export and text outline: escaping, the reading direction, folding, the size cap.

(The SVG that the widget and the notebooks show is tested in ``test_lab_svg.py``; the DOT text says the
same, from the same scene, for those who render it with Graphviz.)"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import graphviz
import pytest

import autograd_lab as al
from autograd_lab.lab import DotOptions, draw, outline, snapshot, to_dot

HOSTILE = ["<script>alert(1)</script>", 'say "hi" & {braces}', "two\nlines", "]>}]; digraph x {"]
SVG = "{http://www.w3.org/2000/svg}"


def _svg_tree(graph: graphviz.Digraph) -> ET.Element:
    if shutil.which("dot") is None:  # (in CI, where everything is installed, a skip fails: tests/conftest.py)
        pytest.skip("Graphviz's `dot` is not installed: apt-get install graphviz (brew install graphviz)")
    return ET.fromstring(graph.pipe(format="svg", encoding="utf-8"))


def _texts(tree: ET.Element) -> str:
    return "\n".join(t.text or "" for t in tree.iter(SVG + "text"))


def _node_ids(tree: ET.Element) -> list[str]:
    return [g.get("id") for g in tree.iter(SVG + "g") if g.get("class", "").split()[0:1] == ["node"]]


def _simple():
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = al.tensor([0.5, 0.5, 0.5], requires_grad=True)
    y = (x * w).sum()
    return x, w, y


@pytest.mark.parametrize("name", HOSTILE)
def test_user_text_is_escaped_and_renders_as_text(name):
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    y = h.sum()
    y.grad_fn.metadata[name] = name
    graph = to_dot(snapshot(y, names={name: x, "h" + name: h}))
    assert "<script" not in graph.source
    tree = _svg_tree(graph)
    assert not list(tree.iter(SVG + "script"))
    texts = _texts(tree)
    for line in name.split("\n"):
        assert line in texts
    assert len(_node_ids(tree)) == 5 + 1  # Sum, Exp, AccumulateGrad, the named h, the output y; the legend


def test_dot_edges_follow_next_functions_from_the_output_down():
    x, w, y = _simple()
    snap = snapshot(y, names={"x": x, "w": w, "y": y})
    source = to_dot(snap).source
    by_name = {n.name if n.kind == "op" else snap.tensors[n.variable].name: n.id for n in snap.nodes.values()}
    assert f"{by_name['SumBackward0']} -> {by_name['MulBackward0']}" in source
    assert f"{by_name['MulBackward0']} -> {by_name['x']}" in source and f"{by_name['MulBackward0']} -> {by_name['w']}" in source
    assert f"t0 -> {by_name['SumBackward0']}" in source  # the output to its grad_fn


def test_drawing_is_a_digraph_with_nodes_edges_and_legend(tmp_path):
    x, w, y = _simple()
    drawing = draw(y)
    assert isinstance(drawing, graphviz.Digraph)
    tree = _svg_tree(drawing)
    ids = _node_ids(tree)
    assert sorted(ids) == sorted(["legend", "t0"] + list(drawing.snapshot.nodes))
    edges = [g for g in tree.iter(SVG + "g") if g.get("class") == "edge"]
    assert len(edges) == 3 + 1  # y -> Sum, Sum -> Mul, Mul -> x and w
    texts = _texts(tree)
    assert "Legend" in texts and "MulBackward0" in texts and "x" in texts.split("\n") and "w" in texts.split("\n")
    out = drawing.render(tmp_path / "graph", format="svg")
    assert out.endswith(".svg") and (tmp_path / "graph.svg").read_text().startswith("<?xml")


def test_outline_is_a_tree_with_leaves_and_shared_nodes():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    text = outline(snapshot(y, names={"x": x, "y": y}))
    assert text.splitlines() == [
        "y () float32",
        "└─ SumBackward0",
        "   └─ MulBackward0",
        "      ├─ AccumulateGrad: x (2,) float32, .grad=None",
        "      └─ AccumulateGrad: x (2,) float32, .grad=None  (shown above)",
    ]


def test_stale_saved_tensor_is_red_in_dot_and_outline():
    assert hasattr(al.Tensor, "mul_"), "Tensor.mul_ does not exist yet: in-place ops are being added by the lead"
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y.sum()
    y.mul_(2)
    snap = snapshot(z)
    source = to_dot(snap).source
    assert "v0→v1 ⚠ STALE" in source and "#c62828" in source
    assert "stale saved tensor(s) result: the next backward raises" in outline(snap)


def test_constants_shown_or_hidden():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x * al.tensor([3.0, 4.0])).sum()
    snap = snapshot(y)
    assert "_none1" in to_dot(snap).source and "None in next_functions" in to_dot(snap).source
    assert "_none1" not in to_dot(snap, DotOptions(hide_constants=True)).source


def test_fold_by_depth():
    x = al.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(10):
        y = y.sin()
    snap = snapshot(y)
    source = to_dot(snap, DotOptions(max_depth=3)).source
    assert source.count("SinBackward0") == 4
    assert "⋯ 7 more nodes" in source
    assert "7 nodes deeper than max_depth=3 are folded into one box." in source
    source = to_dot(snapshot(y), DotOptions(max_depth=9)).source
    assert "⋯ 1 more node<" in source and "1 node deeper than max_depth=9 is folded into one box." in source


def test_modules_as_clusters_or_folded():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    h2 = h.sin()
    y = h2.sum()
    for node in (h.grad_fn, h2.grad_fn):
        node.metadata["module"] = "encoder.0"
    snap = snapshot(y)
    clustered = to_dot(snap, DotOptions(modules="cluster")).source
    assert "subgraph cluster_module0" in clustered and "encoder.0" in clustered and "ExpBackward0" in clustered
    folded = to_dot(snap, DotOptions(modules="collapse")).source
    assert "2 ops: ExpBackward0, SinBackward0" in folded and "encoder.0" in folded
    assert "<B>ExpBackward0</B>" not in folded


def test_size_cap_draws_nearest_nodes_and_says_so():
    x = al.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    snap = snapshot(y)
    graph = to_dot(snap, DotOptions(max_nodes=50))
    assert graph.source.count("MulBackward0") == 50
    assert "This graph has 100001 nodes; only the 50 nearest the output are drawn" in graph.source
    assert "99951 more nodes" in graph.source


def test_graph_without_history():
    x = al.tensor([1.0, 2.0])
    drawing = draw(x)
    assert drawing.snapshot.nodes == {}
    assert "requires_grad=False: no graph" in drawing.source
    assert drawing.outline() == "x (2,) float32  (no grad_fn: nothing recorded)"
