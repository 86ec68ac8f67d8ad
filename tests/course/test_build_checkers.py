"""The checkers of the build track's notebooks B1 to B3: the notebooks' own solutions pass, and each typical mistake
gets feedback that names it. The engine is the one the notebooks build (tests/build_engine.py reads it from them)."""

from __future__ import annotations

import numpy as np
import pytest
from build_engine import load_engine

from autograd_lab.course import check


@pytest.fixture
def engine() -> dict:
    return load_engine()


def _fails(feedback, *phrases: str) -> None:
    assert not feedback, feedback
    assert " at 0x" not in feedback.message, "feedback shows an object address; the notebook output would vary"
    for phrase in phrases:
        assert phrase in feedback.message, f"{phrase!r} not in:\n{feedback.message}"


def test_the_checkers_are_found_by_name():
    names = dir(check)
    for notebook, count in ((1, 2), (2, 4), (3, 2), (4, 3), (5, 2), (6, 3)):
        for k in range(1, count + 1):
            assert f"ex_b{notebook}_{k}" in names
            assert callable(getattr(check, f"ex_b{notebook}_{k}"))


# -- B1 ------------------------------------------------------------------------------------------------------------
def test_b1_1_passes_the_notebook_solution(engine):
    assert check.ex_b1_1(engine["gradient_edge"], engine["Tensor"])


def test_b1_1_placeholders(engine):
    _fails(check.ex_b1_1(..., engine["Tensor"]), "Replace the `...`")
    _fails(check.ex_b1_1(lambda t: None, engine["Tensor"]), "should return a pair")


def test_b1_1_a_new_accumulator_every_time(engine):
    accumulate = engine["AccumulateGrad"]

    def fresh_node(t):
        if not t.requires_grad:
            return (None, 0)
        return (t.grad_fn, 0) if t.grad_fn is not None else (accumulate(t), 0)

    _fails(check.ex_b1_1(fresh_node, engine["Tensor"]), "two AccumulateGrad nodes", "t.accumulator")


def test_b1_1_a_node_for_a_constant_and_none_for_a_leaf(engine):
    edge = engine["gradient_edge"]

    def ignores_requires_grad(t):
        return (t.grad_fn, 0) if t.grad_fn is not None else (engine["AccumulateGrad"](t), 0)

    _fails(check.ex_b1_1(ignores_requires_grad, engine["Tensor"]), "does not require grad")
    _fails(check.ex_b1_1(lambda t: (t.grad_fn, 0), engine["Tensor"]), "AccumulateGrad node")
    _fails(check.ex_b1_1(lambda t: edge(t)[0], engine["Tensor"]), "pair")


def test_b1_2_passes_the_notebook_solution(engine):
    assert check.ex_b1_2(engine["record"], engine["Tensor"])


def _record_variant(engine: dict, *, always=False, reverse=False, shape=True, save=True, flag=True, give_back=True):
    edge = engine["gradient_edge"]

    def record(out, node, inputs, **saved):
        needed = any(t.requires_grad for t in inputs)
        if flag:
            out.requires_grad = needed
        if needed or always:
            edges = tuple(edge(t) for t in inputs)
            node.next_functions = edges[::-1] if reverse else edges
            if shape:
                node.shape = out.shape
            if save:
                for name, value in saved.items():
                    setattr(node, "_saved_" + name, value)
            out.grad_fn = node
        return out if give_back else None

    return record


@pytest.mark.parametrize(("mistake", "phrase"), [
    ({"give_back": False}, "should return out"),
    ({"flag": False}, "must too"),
    ({"reverse": True}, "order of the inputs"),
    ({"shape": False}, "node.shape"),
    ({"save": False}, "_saved_a"),
    ({"always": True}, "nothing should be recorded"),
])
def test_b1_2_typical_mistakes(engine, mistake, phrase):
    _fails(check.ex_b1_2(_record_variant(engine, **mistake), engine["Tensor"]), phrase)


# -- B2 ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["ex_b2_1", "ex_b2_2", "ex_b2_3", "ex_b2_4"])
def test_b2_passes_the_notebook_solutions(engine, name):
    assert getattr(check, name)(engine["Tensor"])


def _replace_backward(engine: dict, node_name: str, backward) -> None:
    """The engine with node_name's backward replaced (a subclass put in its place, as a learner's cell would)."""
    engine[node_name] = type(node_name, (engine["Node"],), {"backward": backward})


def test_b2_1_division_mistakes(engine):
    saved = engine["saved"]
    _replace_backward(engine, "DivBackward", lambda self, grad: (grad / saved(self, "b"),
                                                                  grad * saved(self, "a") / saved(self, "b") ** 2))
    _fails(check.ex_b2_1(engine["Tensor"]), "gradient for b", "wrong sign")
    _replace_backward(engine, "DivBackward", lambda self, grad: (1 / saved(self, "b"),
                                                                  -saved(self, "a") / saved(self, "b") ** 2))
    _fails(check.ex_b2_1(engine["Tensor"]), "gradient for a", "multiply by grad")
    _replace_backward(engine, "DivBackward", lambda self, grad: (grad / saved(self, "b"),))
    _fails(check.ex_b2_1(engine["Tensor"]), "returned 1 gradient(s)", "2 input(s)")
    _replace_backward(engine, "DivBackward", lambda self, grad: None)
    _fails(check.ex_b2_1(engine["Tensor"]), "returned None")


def test_b2_2_unary_mistakes(engine):
    saved = engine["saved"]
    _replace_backward(engine, "TanhBackward", lambda self, grad: (grad * (1 - saved(self, "result")),))
    _fails(check.ex_b2_2(engine["Tensor"]), "x.tanh()", "1 - tanh(x)²")
    _replace_backward(engine, "ExpBackward", lambda self, grad: grad * saved(self, "result"))
    _fails(check.ex_b2_2(engine["Tensor"]), "not a tuple", "comma")
    _replace_backward(engine, "ExpBackward", lambda self, grad: (grad * np.exp(saved(self, "x")),))
    _fails(check.ex_b2_2(engine["Tensor"]), "_saved_x", "passed to record")


def test_b2_3_and_4_shape_mistakes(engine):
    saved = engine["saved"]
    _replace_backward(engine, "MatmulBackward", lambda self, grad: (saved(self, "a").T @ grad,
                                                                     grad @ saved(self, "b").T))
    _fails(check.ex_b2_3(engine["Tensor"]), "a @ b", "shape (2, 3)")
    _replace_backward(engine, "SumBackward", lambda self, grad: (np.broadcast_to(grad, saved(self, "shape")),))
    _fails(check.ex_b2_4(engine["Tensor"]), "x.sum(axis=1)", "np.expand_dims")
    _replace_backward(engine, "SumBackward", lambda self, grad: (grad,))
    _fails(check.ex_b2_4(engine["Tensor"]), "x.sum()", "shape (2, 3)")


# -- B3 ------------------------------------------------------------------------------------------------------------
def test_b3_1_passes_the_notebook_solution(engine):
    assert check.ex_b3_1(engine["topological_order"])


def _recursive_order(root):
    order, seen = [], set()

    def visit(node):
        if node in seen:
            return
        seen.add(node)
        for child, _ in node.next_functions:
            if child is not None:
                visit(child)
        order.append(node)

    visit(root)
    return order[::-1]


def _breadth_first(root):
    order, seen, queue = [], {root}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def _without_visited_set(root):
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return order


@pytest.mark.parametrize(("order", "phrase"), [
    (_recursive_order, "stack"),
    (_breadth_first, "ReluBackward comes before MulBackward"),
    (_without_visited_set, "more than once"),
    (lambda root: _recursive_order(root)[::-1], "before all its gradients have arrived"),
    (lambda root: None, "should return a list"),
])
def test_b3_1_typical_mistakes(order, phrase):
    _fails(check.ex_b3_1(order), phrase)


def test_b3_2_passes_the_notebook_solution(engine):
    assert check.ex_b3_2(engine["backward"], engine["Tensor"])


def _backward_variant(engine: dict, *, add_up=True, scalar_check=True, from_grad_fn=False, per_path=False):
    order, edge = engine["topological_order"], engine["gradient_edge"]

    def send(node, grad):
        for (child, _), child_grad in zip(node.next_functions, node.backward(grad)):
            if child is not None:
                send(child, child_grad)

    def backward(tensor, gradient=None):
        if gradient is None:
            if scalar_check and tensor.data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            gradient = np.ones_like(tensor.data)
        root = tensor.grad_fn if from_grad_fn else edge(tensor)[0]
        if per_path:
            return send(root, gradient)
        grads = {root: np.asarray(gradient, dtype=np.float64)}
        for node in order(root):
            grad = grads.pop(node)
            for (child, _), child_grad in zip(node.next_functions, node.backward(grad)):
                if child is not None:
                    grads[child] = grads[child] + child_grad if (add_up and child in grads) else child_grad

    return backward


@pytest.mark.parametrize(("mistake", "phrase"), [
    ({"add_up": False}, "two paths"),
    ({"per_path": True}, "ran 3 times"),
    ({"scalar_check": False}, "grad can be implicitly created only for scalar outputs"),
    ({"from_grad_fn": True}, "start from gradient_edge(tensor)"),
])
def test_b3_2_typical_mistakes(engine, mistake, phrase):
    _fails(check.ex_b3_2(_backward_variant(engine, **mistake), engine["Tensor"]), phrase)
