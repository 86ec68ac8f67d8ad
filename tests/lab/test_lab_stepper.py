"""The backward stepper: it drives the engine's generator, and its final grads equal backward()'s."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import autograd_lab as al
from autograd_lab.lab import step_backward

# Every op maps 3x3 tensors to a 3x3 tensor (broadcasting inside), so any program is valid.
UNARY = [lambda a: a.tanh(), lambda a: a.tanh(), lambda a: a.sin(), lambda a: a * a, lambda a: a.sum(0, keepdim=True) * a,
         lambda a: a.t(), lambda a: a[:, :2].sum(1, keepdim=True) + a, lambda a: a.sigmoid() * 3]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b, lambda a, b: a @ b.t()]

# A random graph over three leaves: (unary or binary, which op, operand indices into the tensors so far).
ops = st.lists(st.tuples(st.sampled_from(["u", "b"]), st.integers(0, 7), st.integers(0, 50), st.integers(0, 50)),
               min_size=1, max_size=12)


def _build(program, leaves):
    pool = list(leaves)
    for kind, op, i, j in program:
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        pool.append(UNARY[op](a) if kind == "u" else BINARY[op % len(BINARY)](a, b))
    return sum(t.sum() for t in pool[len(leaves):])


def _leaves(seed):
    rng = np.random.default_rng(seed)
    return [al.tensor(rng.standard_normal((3, 3)), dtype=al.float64, requires_grad=True) for _ in range(3)]


@given(ops, st.integers(0, 1000), st.booleans())
def test_stepper_final_grads_equal_backward(program, seed, twice):
    expected_leaves = _leaves(seed)
    stepped_leaves = _leaves(seed)
    for _ in range(2 if twice else 1):  # the second pass shows accumulation into existing .grad
        _build(program, expected_leaves).backward()
        stepper = step_backward(_build(program, stepped_leaves))
        while not stepper.done:
            stepper.next()
    for want, got in zip(expected_leaves, stepped_leaves):
        if want.grad is None:
            assert got.grad is None
        else:
            assert np.array_equal(want.grad.numpy(), got.grad.numpy())


def test_frames_show_grads_hooks_accumulation_and_freed_buffers():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    x.grad = al.tensor([10.0, 10.0])
    fired = []
    x.register_hook(lambda g: fired.append("leaf") or None)
    y = x.exp()
    z = (y * 3).sum()
    stepper = step_backward(z, names={"x": x})
    assert stepper.total == 4 and stepper.caption().startswith("before backward: 4 nodes")
    stepper.next()
    sum_frame = stepper.frames[0]
    assert (sum_frame.name, sum_frame.grads_in, sum_frame.grads_out) == ("SumBackward0", ["1"], {0: "[1, 1]"})
    assert stepper.overlay().current == sum_frame.node
    stepper.seek(4)
    names = [f.name for f in stepper.frames]
    assert names == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad"]
    assert stepper.frames[2].freed == ["result"]
    last = stepper.frames[3]
    assert last.accumulated[0] == "[10, 10]"
    assert last.accumulated[1] == f"[{10 + 3 * np.exp(1):.4g}, {10 + 3 * np.exp(2):.4g}]"
    assert len(last.hooks) == 1 and last.hooks[0].startswith("tensor ") and last.hooks[0].endswith("<lambda>")
    assert fired == ["leaf"]
    assert last.leaf == "x" and last.caption(4).startswith("step 4/4: AccumulateGrad into x · ")
    assert stepper.frames[0].leaf is None
    assert stepper.done and stepper.caption().endswith("backward complete")
    # Back and Reset move through the record; the engine does not run again
    stepper.back()
    assert stepper.overlay().current == stepper.frames[2].node
    stepper.reset()
    assert stepper.index == 0 and stepper.overlay().current is None
    stepper.seek(4)
    np.testing.assert_allclose(x.grad.numpy(), 10 + 3 * np.exp([1.0, 2.0]), rtol=1e-6)
    assert fired == ["leaf"]


def test_caption_names_an_unnamed_leaf_by_shape_and_dtype():
    w = al.ones(2, 3, requires_grad=True)
    stepper = step_backward(w.sum(), names={})
    stepper.seek(2)
    assert stepper.frames[1].leaf == "leaf (2, 3) float32"
    assert "AccumulateGrad into leaf (2, 3) float32" in stepper.frames[1].caption(2)


def test_gradient_and_retain_graph_arguments():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    step_backward(y, gradient=al.tensor([1.0, 0.5]), retain_graph=True).run()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    step_backward(y, gradient=al.tensor([1.0, 0.5])).run()  # the graph was retained
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])


def test_widget_buttons_and_clicks_reach_python():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    stepper = step_backward(y)
    widget = stepper.widget
    assert widget.stepper["enabled"] and widget.stepper["index"] == 0 and widget.stepper["total"] == 3
    widget._message(widget, {"action": "next"}, [])
    first = widget.stepper["current"]
    assert widget.stepper["index"] == 1 and "al-current" in widget.svg and "class=current" in stepper.dot()
    widget._message(widget, {"action": "next"}, [])
    assert widget.stepper["current"] != first
    widget.selected = first
    assert widget.details["title"] == "SumBackward0"
    assert ["grad in", "1"] in widget.details["sections"][-1]["rows"]
    widget._message(widget, {"action": "seek", "index": 3}, [])
    assert widget.stepper["index"] == 3 and "backward complete" in widget.stepper["caption"]
    widget._message(widget, {"action": "reset"}, [])
    assert widget.stepper["index"] == 0


def test_only_the_widget_tells_the_reader_to_press_next():
    """The stored text of a stepper is read where no kernel runs (the docs site): it names no button there alone."""
    x = al.tensor([1.0, 2.0], requires_grad=True)
    stepper = step_backward((x * 2).sum())
    assert stepper.widget.stepper["caption"] == "before backward: 3 nodes to run. Press Next."
    assert repr(stepper) == "<Stepper before backward: 3 nodes to run. Next (in JupyterLab) or .next() runs one.>"
    bundle = stepper._repr_mimebundle_()
    assert "Press Next" not in bundle["text/plain"] and "Press Next" not in bundle["text/html"]
    stepper.next()
    assert repr(stepper).startswith("<Stepper step 1/3: SumBackward0") and "Press Next" not in repr(stepper)
