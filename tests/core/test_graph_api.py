"""``autograd.graph``'s API around edges and hooks, each case run in both libraries and compared with
PyTorch: ``register_multi_grad_hook`` (both modes), ``allow_mutation_on_saved_tensors``,
``get_gradient_edge``/``GradientEdge`` in ``grad`` and ``backward``, ``increment_version``, and
``grad`` with a dict of inputs."""

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

LIBS = [al, torch]


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def _leaves(m):
    rng = np.random.default_rng(0)
    a = m.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = m.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    return a, b


# -- register_multi_grad_hook ----------------------------------------------------------------------
def _multi_all(m):
    G = m.autograd.graph
    a, b = _leaves(m)
    c, d = a * b, a * b
    calls = []
    handle = G.register_multi_grad_hook((a, b, c, d), lambda grads: calls.append(
        [None if g is None else _np(g).round(12).tolist() for g in grads]))
    c.sum().backward(retain_graph=True)  # d is not in this graph: ignored
    c.sum().backward(inputs=(a,), retain_graph=True)  # b is off the path to a: None
    (c.sum() + 2 * d.sum()).backward(retain_graph=True)  # all four
    handle.remove()
    c.sum().backward(retain_graph=True)  # removed: no call
    return calls


def test_multi_grad_hook_all_matches_torch():
    ours, theirs = _multi_all(al), _multi_all(torch)
    assert ours == theirs
    assert [[g is not None for g in call] for call in ours] == [
        [True, True, True, False], [True, False, True, False], [True, True, True, True]]


def _multi_any(m):
    G = m.autograd.graph
    a, b = _leaves(m)
    c = a * b
    seen = []
    handle = G.register_multi_grad_hook((a, b, c), lambda g: seen.append(_np(g).round(12).tolist()), mode="any")
    (3 * c.sum()).backward(retain_graph=True)  # c's gradient is computed first: the only call in this pass
    b.sum().backward(retain_graph=True)
    handle.remove()
    c.sum().backward()
    return seen


def test_multi_grad_hook_any_matches_torch():
    ours = _multi_any(al)
    assert ours == _multi_any(torch)
    assert ours == [[[3.0] * 3] * 2, [[1.0] * 3] * 2]


def test_multi_grad_hook_all_fires_once_per_pass_and_in_nested_passes():
    """A hook that itself runs a backward pass starts a new graph task; the outer one still completes."""
    for m in LIBS:
        a, b = _leaves(m)
        c = a * b
        log = []

        def fn(grads, m=m, log=log):
            log.append(sum(g is not None for g in grads))
            if len(log) == 1:
                x = m.ones(2, requires_grad=True)
                with m.enable_grad():  # (hooks run in the pass's grad mode: off without create_graph)
                    (x * 2).sum().backward()  # a separate pass, not through the hooked tensors

        m.autograd.graph.register_multi_grad_hook((a, b), fn)
        c.sum().backward(retain_graph=True)
        c.sum().backward()
        assert log == [2, 2], m.__name__


def test_multi_grad_hook_through_the_stepper():
    """The lab's stepper runs the same engine, one node at a time; the hook waits for the last tensor."""
    a, b = _leaves(al)
    c = a * b
    calls = []
    al.autograd.graph.register_multi_grad_hook((a, b), lambda grads: calls.append(len(grads)))
    steps = al.autograd.prepare_backward(c.sum())
    counts, fired = [], []
    for step in steps:
        counts.append(len(calls))
        fired += [fn.__qualname__ for _, fn in step.hooks_fired]
    assert calls == [2]
    assert counts[-1] == 1 and counts[0] == 0
    assert sorted(fired) == ["multi_grad_hook(test_multi_grad_hook_through_the_stepper.<locals>.<lambda>, tensor 0)",
                             "multi_grad_hook(test_multi_grad_hook_through_the_stepper.<locals>.<lambda>, tensor 1)"]


def test_multi_grad_hook_errors_match_torch():
    for m in LIBS:
        G = m.autograd.graph
        a, _ = _leaves(m)
        with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got some"):
            G.register_multi_grad_hook((a,), print, mode="some")
        with pytest.raises(AssertionError, match="Expected gradient function to be set"):
            G.register_multi_grad_hook((a, m.ones(2)), print)
        # "any" skips tensors that do not require grad
        G.register_multi_grad_hook((a, m.ones(2)), print, mode="any").remove()


def test_graph_task_id_outside_and_inside_backward():
    engine = al.autograd.engine
    assert engine.current_graph_task_id() == -1
    with pytest.raises(RuntimeError, match="during the backward pass"):
        engine.will_engine_execute_node(None)
    a, b = _leaves(al)
    ids = []
    a.register_hook(lambda g: ids.append(engine.current_graph_task_id()))
    (a * b).sum().backward()
    (a * b).sum().backward()
    assert len(ids) == 2 and ids[0] != ids[1] and min(ids) >= 0
    assert engine.current_graph_task_id() == -1


# -- allow_mutation_on_saved_tensors -----------------------------------------------------------------
def _mutation_case(m, case):
    rng = np.random.default_rng(1)
    x0 = rng.uniform(0.5, 1.5, (2, 3))
    with m.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        x = m.tensor(x0, requires_grad=True)
        if case == "input":  # b is saved by pow, then changed
            b = x.clone()
            out = (b ** 2).sum()
            b.sin_()
        elif case == "result":  # exp saves its result, which is then changed
            y = x.exp()
            out = (y * 1.0).sum() + y.sum()
            y.mul_(3)
        elif case == "view":  # a view of the saved tensor is written into
            b = x.clone()
            out = (b ** 3).sum()
            b[0].zero_()
        elif case == "twice":  # saved at two versions by two nodes, changed after each save
            b = x.clone()
            out1 = (b ** 2).sum()
            b.add_(1)
            out2 = (b * b).sum()
            b.mul_(2)
            out = out1 + out2
        elif case == "unchanged":
            b = x.clone()
            out = (b ** 2).sum()
        out.backward()
        assert ctx is not None
    return _np(x.grad)


@pytest.mark.parametrize("case", ["input", "result", "view", "twice", "unchanged"])
def test_allow_mutation_on_saved_tensors_matches_torch(case):
    ours, theirs = _mutation_case(al, case), _mutation_case(torch, case)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)


def test_allow_mutation_keeps_the_checks_outside_and_its_own_errors():
    for m in LIBS:
        G = m.autograd.graph
        x = m.ones(3, requires_grad=True)
        with G.allow_mutation_on_saved_tensors():
            b = x.clone()
            out = (b ** 2).sum()
            with pytest.raises(RuntimeError, match="allow_mutation_on_saved_tensors contexts cannot be nested"):
                with G.allow_mutation_on_saved_tensors():
                    pytest.fail("a nested allow_mutation_on_saved_tensors was entered")
        with pytest.raises(AssertionError, match="Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                                                 "context"):
            out.backward()
        # outside the context, the version check is back
        b = x.clone()
        out = (b ** 2).sum()
        b.sin_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


def test_allow_mutation_covers_optimizer_steps():
    """An optimizer writes into parameters through ``writable_array``, not a tensor method: the saved
    parameter is copied first there too (PyTorch's mode sees the optimizer's in-place kernels)."""
    results = []
    for m in LIBS:
        w = m.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        x = m.tensor([[1.0, 2.0]])
        opt = m.optim.SGD([w], lr=0.5)
        with m.autograd.graph.allow_mutation_on_saved_tensors():
            out = (x @ w).pow(2).sum()
            w.grad = m.ones_like(w)
            opt.step()  # w changes between forward and backward
            w.grad = None
            out.backward()
        results.append(_np(w.grad))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


# -- GradientEdge ---------------------------------------------------------------------------------
def test_gradient_edge_in_grad_and_backward_matches_torch():
    got = []
    for m in LIBS:
        G = m.autograd.graph
        a, b = _leaves(m)
        h = a * b
        loss = (h.tanh() * 3).sum()
        edge = G.get_gradient_edge(h)
        assert isinstance(edge, G.GradientEdge) and edge.output_nr == 0
        assert edge.node is h.grad_fn and edge.node.name() == "MulBackward0"
        leaf_edge = G.get_gradient_edge(a)
        assert leaf_edge.node.name() == "torch::autograd::AccumulateGrad"
        (g_h,) = m.autograd.grad(loss, edge, retain_graph=True)
        (g_h2,) = m.autograd.grad(loss, h, retain_graph=True)
        # split backward: from the edge onwards with the gradient computed above
        (g_a,) = m.autograd.grad(edge, a, grad_outputs=g_h, retain_graph=True)
        loss.backward(inputs=[leaf_edge])
        got.append([_np(g_h), _np(g_h2), _np(g_a), _np(a.grad)])
        assert b.grad is None
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_gradient_edge_errors():
    for m in LIBS:
        G = m.autograd.graph
        a, b = _leaves(m)
        c = a * b
        unused = a * 2
        with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge for a Tensor that does "
                                               "not require gradients"):
            G.get_gradient_edge(m.ones(2))
        with pytest.raises(RuntimeError, match="materialize_grads cannot be used when the given input is a GradientEdge"):
            m.autograd.grad(c.sum(), G.get_gradient_edge(unused), materialize_grads=True)
        with pytest.raises(RuntimeError, match="Mismatch in shape"):
            m.autograd.grad(G.get_gradient_edge(c), a, grad_outputs=m.ones(3))
        # a GradientEdge output with more than one element needs its gradient (ones are made for one element)
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
            m.autograd.grad(G.get_gradient_edge(c), a)


def test_grad_with_a_dict_of_inputs_matches_torch():
    got = []
    for m in LIBS:
        a, b = _leaves(m)
        out = m.autograd.grad(((a * b) ** 2).sum(), {"first": a, "second": b})
        assert type(out) is dict and list(out) == ["first", "second"]
        got.append([_np(v) for v in out.values()])
        with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty."):
            m.autograd.grad((a * b).sum(), [])
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_materialized_grads_require_grad_under_create_graph():
    for m in LIBS:
        a, b = _leaves(m)
        _, gb = m.autograd.grad((a * 2).sum(), (a, b), create_graph=True, materialize_grads=True)
        assert gb.requires_grad and float(gb.detach().abs().sum()) == 0.0
        _, gb = m.autograd.grad((a * 2).sum(), (a, b), materialize_grads=True)
        assert not gb.requires_grad


# -- increment_version ----------------------------------------------------------------------------
def test_increment_version_matches_torch():
    for m in LIBS:
        x = m.ones(3, requires_grad=True)
        b = x.clone()
        v = b[1:]
        out = (b ** 2).sum()
        m.autograd.graph.increment_version(b)
        m.autograd.graph.increment_version([b, v])
        assert b._version == 3 and v._version == 3
        with pytest.raises(RuntimeError, match="is at version 3; expected version 0 instead"):
            out.backward()
        with m.inference_mode():
            t = m.ones(2)
        m.autograd.graph.increment_version(t)  # no version counter: nothing to do


def _per_pass_records(multi_handle):
    """The dict a multi-grad hook keeps its per-pass records in (one entry per pass still running)."""
    return [multi_handle._records]


def test_multi_grad_hooks_keep_no_state_from_finished_passes():
    a, b = _leaves(al)
    c = a * b
    seen, calls = [], []
    any_handle = al.autograd.graph.register_multi_grad_hook((a, b), lambda g: seen.append(1), mode="any")
    all_handle = al.autograd.graph.register_multi_grad_hook((a, c), lambda grads: calls.append(1))
    for _ in range(50):
        c.sum().backward(retain_graph=True)
    assert len(seen) == 50 and len(calls) == 50
    any_records, all_records = _per_pass_records(any_handle), _per_pass_records(all_handle)
    assert any_records and all_records
    assert all(len(r) <= 1 for r in any_records)  # only the last pass's mark is left
    assert all(len(r) == 0 for r in all_records)  # completed passes are removed at once
    # a pass that stops early (an error in a later node) does not leave its record behind for good
    boom = a * 1.0
    boom.register_hook(lambda g: (_ for _ in ()).throw(ValueError("stop")))
    for _ in range(3):
        with pytest.raises(ValueError, match="stop"):
            (c.sum() + boom.sum()).backward(retain_graph=True)
    c.sum().backward(retain_graph=True)
    assert all(len(r) == 0 for r in _per_pass_records(all_handle))


def test_add_without_alpha_saves_its_default_as_torch():
    a, b = al.ones(2, requires_grad=True), al.ones(2, requires_grad=True)
    ta, tb = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert (a + b).grad_fn._saved_alpha == (ta + tb).grad_fn._saved_alpha == 1
    assert al.add(a, b, alpha=2).grad_fn._saved_alpha == torch.add(ta, tb, alpha=2).grad_fn._saved_alpha == 2
    al.add(a, b, alpha=2).sum().backward()
    assert b.grad.tolist() == [2.0, 2.0] and a.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("expr", ["x * 0.5", "x + 0.5", "x - 0.5", "x / 4.0", "x ** 2.0"])
def test_a_tensor_and_a_number_record_one_edge_and_an_empty_one(expr):
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = eval(expr, {}, {"x": x})  # noqa: S307  (the cases above)
    edges = y.grad_fn.next_functions
    assert type(edges[0][0]).__name__ == "AccumulateGrad" and edges[0][0].variable is x and edges[0][1] == 0
    assert all(e == (None, 0) for e in edges[1:])
    z = eval(expr, {}, {"x": y})  # noqa: S307  (a non-leaf input: its node, at its output number)
    assert z.grad_fn.next_functions[0] == (y.grad_fn, 0)
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    assert len(eval(expr, {}, {"x": tx}).grad_fn.next_functions) == len(edges)  # noqa: S307


def test_calling_a_node_returns_what_torchs_returns():
    """One gradient for a node with one input, a tuple (None for an input without gradient) otherwise."""
    results = []
    for m in (al, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
        grad = m.ones(2, dtype=m.float64)
        exp, by_two, mul = x.exp().grad_fn(grad), (x * 2).grad_fn(grad), (x * y).grad_fn(grad)
        results.append([type(exp).__name__, np.round(exp.tolist(), 12).tolist(), type(by_two).__name__,
                        by_two[0].tolist(), by_two[1], type(mul).__name__, [g.tolist() for g in mul]])
    assert results[0] == results[1]
