"""The lab draws graphs it did not record: any tensor with a grad_fn whose nodes have next_functions and name()
(autograd_lab/lab/protocol.py), such as the engine a learner writes in the build track, or PyTorch's."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.lab import draw, snapshot, to_dot


class Leaf:
    """A hand-made tensor: the protocol's required grad_fn, and the optional data, grad and _version."""

    def __init__(self, values, requires_grad=True):
        self.data = np.asarray(values, dtype=np.float64)
        self.requires_grad = requires_grad
        self.grad_fn = None
        self.grad = None
        self._version = 0


class Accumulate:
    """Only next_functions and variable: no name(), so the class name is the label."""

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()


class Op:
    def __init__(self, label, *edges, **saved):
        self.label = label
        self.next_functions = tuple((node, 0) for node in edges)
        self.saved_versions = {}
        for name, value in saved.items():
            setattr(self, "_saved_" + name, value)
            if hasattr(value, "_version"):
                self.saved_versions[name] = value._version

    def name(self):
        return self.label


def _result(node, values):
    out = Leaf(values)
    out.grad_fn = node
    return out


def _graph():
    """y = (x * c + x).sum(axis=0) with x a leaf that requires grad and c a constant."""
    x, c = Leaf([1.0, 2.0]), Leaf([3.0, 4.0], requires_grad=False)
    accumulate = Accumulate(x)
    mul = Op("MulBackward", accumulate, None, a=x, b=c)
    add = Op("AddBackward", mul, accumulate)
    total = Op("SumBackward", add, axis=0, keepdims=False)
    return x, c, _result(total, 10.0)


def test_nodes_edges_leaves_and_saved_values():
    x, c, y = _graph()
    snap = snapshot(y, names={"x": x, "y": y})
    assert sorted(node.name for node in snap.nodes.values()) == ["Accumulate", "AddBackward", "MulBackward",
                                                                 "SumBackward"]
    assert snap.tensors[snap.roots[0]].name == "y" and snap.nodes[snap.order[0]].name == "SumBackward"
    leaf_node = next(node for node in snap.nodes.values() if node.kind == "leaf")
    assert snap.tensors[leaf_node.variable].name == "x" and snap.tensors[leaf_node.variable].shape == (2,)
    mul = next(node for node in snap.nodes.values() if node.name == "MulBackward")
    assert mul.next[0][0] == leaf_node.id and mul.next[1] == (None, 0)
    assert {s.name: (s.is_tensor, s.shape, s.saved_version, s.stale) for s in mul.saved} == {
        "a": (True, (2,), 0, False), "b": (True, (2,), 0, False)}
    total = snap.nodes[snap.order[0]]
    assert {s.name: s.text for s in total.saved} == {"axis": "0", "keepdims": "False"}
    add = next(node for node in snap.nodes.values() if node.name == "AddBackward")
    assert add.next[1][0] == leaf_node.id, "a leaf reached twice is one node"


def test_a_saved_tensor_changed_in_place_is_stale():
    x, c, y = _graph()
    c._version += 1
    snap = snapshot(y)
    assert [(node.name, saved.name) for node, saved in snap.stale()] == [("MulBackward", "b")]
    assert "STALE" in to_dot(snap).source
    assert "stale saved tensor(s) b" in draw(y).outline()


def test_draw_labels_with_the_callers_names_and_shows_grads():
    x, c, y = _graph()
    x.grad = np.array([4.0, 1.0])
    text = draw(y).outline()
    assert text.splitlines()[0] == "y () float64"
    assert "Accumulate: x (2,) float64, .grad=[4, 1]" in text and "(an input that needs no grad)" in text
    assert "(shown above)" in text


def test_a_deep_graph_is_walked_without_recursion():
    node = Accumulate(Leaf([1.0]))
    for i in range(5 * sys.getrecursionlimit()):
        node = Op(f"TanhBackward{i}", node)
    snap = snapshot(_result(node, [0.0]))
    assert len(snap.nodes) == 5 * sys.getrecursionlimit() + 1


def test_user_text_is_escaped():
    x = Leaf([1.0])
    y = _result(Op("<script>alert(1)</script>", Accumulate(x)), [1.0])
    source = to_dot(snapshot(y)).source
    assert "<script>" not in source and "&lt;script&gt;" in source


def test_objects_without_a_grad_fn_are_refused_with_the_protocol_named():
    with pytest.raises(TypeError, match="objects with a grad_fn whose nodes have next_functions"):
        snapshot(np.ones(3))
    with pytest.raises(TypeError, match="protocol"):
        snapshot(al.tensor(1.0), "not a tensor")


def test_autograd_lab_tensors_still_take_the_native_walk():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    snap = snapshot((x.exp() * 2).sum())
    exp = next(node for node in snap.nodes.values() if node.name == "ExpBackward0")
    assert [s.name for s in exp.saved] == ["result"] and exp.saved[0].is_output


def test_pytorch_graphs_are_drawn_through_the_same_protocol():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x.exp()).sum()
    snap = snapshot(y, names={"x": x})
    names = sorted(node.name for node in snap.nodes.values())
    assert names == ["AccumulateGrad", "ExpBackward0", "MulBackward0", "SumBackward0"]  # (drawn without "torch::autograd::")
    mul = next(node for node in snap.nodes.values() if node.name == "MulBackward0")
    assert {s.name for s in mul.saved} == {"self", "other"} and all(not s.released for s in mul.saved)
    y.backward()
    after = snapshot(y, names={"x": x})
    mul = next(node for node in after.nodes.values() if node.name == "MulBackward0")
    assert all(s.released for s in mul.saved), "PyTorch frees saved tensors in backward: drawn as freed"
    leaf = next(node for node in after.nodes.values() if node.kind == "leaf")
    np.testing.assert_allclose(after.tensors[leaf.variable].grad.values, x.grad.numpy())
