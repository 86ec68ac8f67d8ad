"""The lab's layered layout: boxes never overlap, every edge runs downward, and the same graph always gets
the same positions (which is what keeps the stepper's nodes in place)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_lab.lab.layout import NODE_GAP, layered

# A random DAG: box i may point to any box after it (so there is no cycle), with a random size.
graphs = st.integers(1, 14).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(40, 260), st.integers(20, 90)), min_size=n, max_size=n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from([-0.3, 0.0, 0.3])), max_size=3 * n),
))


def _build(spec):
    sizes, raw = spec
    boxes = {f"b{i}": (float(w), float(h)) for i, (w, h) in enumerate(sizes)}
    edges = sorted({(f"b{min(a, b)}", f"b{max(a, b)}", port) for a, b, port in raw if a != b})
    return boxes, edges


@settings(max_examples=60, deadline=None)
@given(graphs)
def test_boxes_never_overlap_and_edges_run_down(spec):
    sizes, edges = _build(spec)
    layout = layered(sizes, edges)
    by_rank = {}
    for box, rank in layout.rank.items():
        by_rank.setdefault(rank, []).append(layout.boxes[box])
    for placed in by_rank.values():
        placed.sort()
        for (x1, _, w1, _), (x2, _, w2, _) in zip(placed, placed[1:]):
            assert x2 - w2 / 2 - (x1 + w1 / 2) >= NODE_GAP - 1e-6
    for (src, dst, port), route in zip(edges, layout.routes):
        assert layout.rank[src] < layout.rank[dst]
        sx, sy, sw, sh = layout.boxes[src]
        dx, dy, dw, dh = layout.boxes[dst]
        assert route[0] == (sx + port * sw, sy + sh / 2)  # leaves the bottom of its source, at its port
        assert route[-1][1] == dy - dh / 2 and abs(route[-1][0] - dx) <= dw / 2  # arrives on its target's top
        assert all(a[1] <= b[1] for a, b in zip(route, route[1:]))
    assert all(x - w / 2 >= 0 and x + w / 2 <= layout.width for x, _, w, _ in layout.boxes.values())


@settings(max_examples=20, deadline=None)
@given(graphs)
def test_same_graph_same_positions(spec):
    sizes, edges = _build(spec)
    assert layered(sizes, edges) == layered(dict(sizes), list(edges))


def test_a_box_without_parent_sits_just_above_its_child():
    sizes = {"out": (60.0, 30.0), "a": (60.0, 30.0), "b": (60.0, 30.0), "c": (60.0, 30.0), "named": (60.0, 30.0)}
    edges = [("out", "a", 0.0), ("a", "b", 0.0), ("b", "c", 0.0), ("named", "c", 0.0)]
    layout = layered(sizes, edges)
    assert [layout.rank[v] for v in ("out", "a", "b", "c")] == [0, 1, 2, 3]
    assert layout.rank["named"] == 2  # beside b, not at the top with a long edge down


def test_inputs_keep_their_order_left_to_right():
    sizes = {"mul": (80.0, 30.0), "x": (50.0, 30.0), "w": (50.0, 30.0)}
    layout = layered(sizes, [("mul", "x", -0.2), ("mul", "w", 0.2)])
    assert layout.boxes["x"][0] < layout.boxes["w"][0]
