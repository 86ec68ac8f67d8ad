"""Engine edge cases, each run in both libraries and compared with PyTorch: which hooks run for
``backward(inputs=)`` on a non-leaf, hooks that see ``None`` for outputs that got no gradient, what a second
backward without ``retain_graph`` refuses (exactly where PyTorch frees a saved value), ``.detach_()`` of a saved
tensor, a ``GradientEdge`` output without its gradient, a leaf changed after the graph recorded it, retain_grad on a
view given its history late, and pickling and copying tensors."""

import copy
import pickle

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

LIBS = [al, torch]


def _functional(m):
    return m.nn.functional


def _outcome(action) -> str:
    """What ``action()`` did: 'ok', or the error's type and the first sentence of its message (our advice after
    PyTorch's phrase is cut off, so that both libraries compare equal)."""
    try:
        action()
    except (RuntimeError, TypeError) as exc:
        return f"{type(exc).__name__}: {str(exc).split(' [autograd_lab]')[0]}"
    return "ok"


# -- backward(inputs=) on a non-leaf: which hooks run -------------------------------------------------
def _hooks_with_inputs(m, how):
    x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.exp()
    log = []
    y.register_hook(lambda g: log.append("tensor hook"))
    y.grad_fn.register_prehook(lambda g: log.append("node pre-hook"))
    y.grad_fn.register_hook(lambda gi, go: log.append("node post-hook"))
    z.grad_fn.register_prehook(lambda g: log.append("exp pre-hook"))
    if how == "backward":
        y.retain_grad()
        z.sum().backward(inputs=(y,))
        return log, y.grad.tolist(), x.grad
    (g,) = m.autograd.grad(z.sum(), y)
    return log, g.tolist(), x.grad


@pytest.mark.parametrize("how", ["backward", "grad"])
def test_hooks_that_run_for_a_non_leaf_input_match_torch(how):
    ours, theirs = (_hooks_with_inputs(m, how) for m in LIBS)
    assert ours[0] == theirs[0]  # backward: the input's node runs (its hooks fire); grad: only the tensor hook
    np.testing.assert_allclose(ours[1], theirs[1])
    assert ours[2] is None and theirs[2] is None  # nothing past the input


# -- hooks on outputs that got no gradient --------------------------------------------------------------
def _unused_outputs(m):
    x = m.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    parts = x.split(1)
    log = []
    parts[0].register_hook(lambda g: log.append(("used", tuple(g.shape))))
    parts[1].register_hook(lambda g: log.append(("unused", g)))
    parts[1].retain_grad()
    node = parts[0].grad_fn
    node.register_prehook(lambda go: log.append(("pre", [g is None for g in go])))
    node.register_hook(lambda gi, go: log.append(("post", [g is None for g in gi], [g is None for g in go])))
    (parts[0] * 2).sum().backward()
    return sorted(log, key=str), parts[1].grad, x.grad.tolist()


def test_hooks_of_unused_outputs_of_a_multi_output_node_see_none():
    ours, theirs = (_unused_outputs(m) for m in LIBS)
    assert ours[0] == theirs[0]
    assert ours[1] is None and theirs[1] is None
    assert ours[2] == theirs[2]


class _NoGradForSecond:
    """A custom Function whose backward gives its second input no gradient (PyTorch still runs that input's
    nodes, with None)."""

    @staticmethod
    def make(m):
        class NoGradForSecond(m.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, grad):
                return grad, None
        return NoGradForSecond


def _hooks_given_none(m):
    fn = _NoGradForSecond.make(m)
    a = m.tensor([1.0, 2.0], requires_grad=True)
    leaf = m.tensor([3.0, 4.0], requires_grad=True)
    log = []
    leaf.register_hook(lambda g: log.append(("leaf hook", g)))
    leaf.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", t.grad)))
    fn.apply(a, leaf).sum().backward()
    inner = leaf * 1
    inner.register_hook(lambda g: log.append(("non-leaf hook", g)))
    fn.apply(a, inner).sum().backward()
    return log, leaf.grad


def test_tensor_hooks_and_post_accumulate_hooks_are_called_with_none_as_in_torch():
    ours, theirs = (_hooks_given_none(m) for m in LIBS)
    assert ours == theirs


def test_a_hook_cannot_replace_a_none_gradient():
    def run(m):
        fn = _NoGradForSecond.make(m)
        inner = m.tensor([3.0, 4.0], requires_grad=True) * 1
        inner.register_hook(lambda g: m.ones(2))
        fn.apply(m.tensor([1.0, 2.0], requires_grad=True), inner).sum().backward()
    ours, theirs = (_outcome(lambda m=m: run(m)) for m in LIBS)
    assert ours == theirs == "RuntimeError: can't replace a None gradient with a non-None value"


@pytest.mark.parametrize("returned", ["int", "tensor"])
def test_a_post_accumulate_grad_hook_returning_a_value_is_refused_as_in_torch(returned):
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: 5 if returned == "int" else m.ones(2))
        (x * 2).sum().backward()
    ours, theirs = (_outcome(lambda m=m: run(m)) for m in LIBS)
    assert ours == theirs != "ok"


# -- a second backward without retain_graph --------------------------------------------------------------
SECOND_BACKWARD = {  # expression of x (4, 3, requires grad), c (4, 3), w (3, 3, requires grad), idx
    "index_tensor": "x[idx]", "index_mask": "x[x.detach() > 0]", "slice": "x[1:3]", "select": "x[1]",
    "view": "x.view(-1)", "expand": "x[:1].expand(3, 3)", "sum": "x.sum(0)", "mean": "x.mean()",
    "add_number": "x + 1", "mul_number": "x * 3", "div_number": "x / 3", "rsub": "2.0 - x", "mul": "x * c",
    "exp": "x.exp()", "clone": "x.clone()", "index_select": "x.index_select(0, idx)", "cat": "m.cat([x, x])",
    "split": "x.split(2)[0]", "max_dim": "x.max(0).values", "max": "x.max()", "masked_fill": "x.masked_fill(c > 0, 0.0)",
    "embedding": "F.embedding(idx, x)", "pad": "F.pad(x, (1, 1))", "floor": "x.floor()", "to": "x.to(m.float64)",
    "where": "m.where(c > 0, x, w[0])", "adaptive_pool": "F.adaptive_avg_pool2d(x.reshape(1, 1, 4, 3), (2, 1))",
    "avg_pool": "F.avg_pool2d(x.reshape(1, 1, 4, 3), 2)", "max_pool": "F.max_pool2d(x.reshape(1, 1, 4, 3), 2)",
    "scatter_add_constant_src": "x.scatter_add(0, idx.reshape(2, 1).expand(2, 3), c[:2])",
    "scatter_add_src": "c.scatter_add(0, idx.reshape(2, 1).expand(2, 3), w[:2])", "zero_": "(x * 1).zero_()",
    "fill_": "(x + 1).fill_(2.0)", "div_floor": "x.div(c, rounding_mode='floor')",
    "div_floor_other": "c.div(w[0], rounding_mode='floor')", "sub_alpha": "m.sub(x, c, alpha=2)",
    "remainder": "x % 0.7", "copy_": "m.zeros(4, 3).copy_(x)", "unsqueeze": "x.unsqueeze(0)", "mm": "x @ w",
    "nll": "F.nll_loss(x, m.tensor([0, 1, 2, 0]))", "softmax": "F.softmax(x, 1)",
}


@pytest.mark.parametrize("name", sorted(SECOND_BACKWARD))
def test_a_second_backward_raises_exactly_where_torch_frees_a_saved_value(name):
    outcomes = []
    for m in LIBS:
        rng = np.random.default_rng(0)
        env = {"m": m, "F": _functional(m), "x": m.tensor(rng.standard_normal((4, 3)), requires_grad=True),
               "c": m.tensor(rng.uniform(0.5, 2.0, (4, 3))), "w": m.tensor(rng.standard_normal((3, 3)), requires_grad=True),
               "idx": m.tensor([0, 2])}
        y = eval(SECOND_BACKWARD[name], env)  # noqa: S307  (the table above)
        y.sum().backward()
        outcomes.append(_outcome(lambda y=y: y.sum().backward()))
    assert outcomes[0] == outcomes[1]


def test_a_python_number_operand_is_freed_like_a_saved_tensor():
    for m in LIBS:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        assert float(y.grad_fn._saved_other) == 3.0
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            getattr(y.grad_fn, "_saved_other")  # noqa: B009  (the attribute read is what raises)


def test_indices_returned_by_max_and_max_pool_are_version_checked_as_in_torch():
    for m in LIBS:
        x = m.tensor(np.arange(12.0).reshape(1, 1, 4, 3), requires_grad=True)
        values, indices = x.max(2)
        indices.add_(0)
        out, pool_indices = _functional(m).max_pool2d(x, 2, return_indices=True)
        pool_indices.add_(0)
        for y in (values, out):
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                y.sum().backward()


# -- detach_() of a saved tensor -----------------------------------------------------------------------
@pytest.mark.parametrize("case", ["non-leaf saved", "non-leaf not saved", "saved output"])
def test_detach_in_place_of_a_saved_tensor_matches_torch(case):
    def run(m):
        x = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        if case == "non-leaf saved":
            y = x * 1
            z = y.sin()  # saves y
        elif case == "non-leaf not saved":
            y = x.exp()
            z = y * 2  # saves the number 2 only
        else:
            y = x.exp()  # saves its result
            z = y * 1
        y.detach_()
        z.sum().backward()
    ours, theirs = (_outcome(lambda m=m: run(m)) for m in LIBS)
    assert ours == theirs


# -- a GradientEdge as output ------------------------------------------------------------------------
def test_a_gradient_edge_output_without_its_gradient_matches_torch():
    for m in LIBS:
        G = m.autograd.graph
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (g,) = m.autograd.grad(G.get_gradient_edge((x * 2).sum()), x)  # one element: ones, as for a tensor
        assert g.tolist() == [2.0, 2.0, 2.0]
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
            m.autograd.grad(G.get_gradient_edge(x * 2), x)


def _leaf_changes_after_recording(m, change: str):
    """A leaf recorded in a graph, then changed before backward; returns what backward did and the leaf's gradient."""
    base = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64)
    leaf = base.t()
    leaf += 1  # (nothing requires grad: allowed; the view's history is stale from now on)
    leaf.requires_grad_()
    loss = (leaf * leaf).sum()
    if change == "stops requiring grad":
        leaf.requires_grad_(False)
    else:  # its base comes to require grad: the view gets a history, it is a leaf no more
        base.requires_grad_()
    outcome = _outcome(loss.backward)
    return outcome, None if leaf.grad_fn is not None else leaf.grad


@pytest.mark.parametrize("change", ["stops requiring grad", "moves into the graph interior"])
def test_a_leaf_changed_after_the_graph_recorded_it_matches_torch(change):
    """PyTorch's AccumulateGrad gives nothing to a leaf that stopped requiring grad, and refuses one that has a grad_fn
    now (found by the differential fuzzer, seed 7100438: ours accumulated into both)."""
    (ours, our_grad), (theirs, their_grad) = (_leaf_changes_after_recording(m, change) for m in LIBS)
    assert ours == theirs
    assert our_grad is None and their_grad is None
    if change != "stops requiring grad":
        assert theirs == "RuntimeError: leaf variable has been moved into the graph interior"


def _retain_on_a_view_given_history_late(m, look_first: bool):
    x = m.tensor([-2.0, 0.5, -2.5], dtype=m.float64)
    view = x.movedim(0, -1)
    x.exp_()
    x.requires_grad_()  # (the view gets its history, AsStridedBackward0, when it is first asked for it)
    if look_first:
        view.grad_fn  # noqa: B018
    view.retain_grad()
    retains = view.retains_grad
    (view * 2).sum().backward()
    return retains, None if view.grad is None else view.grad.tolist(), x.grad.tolist()


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("look_first", [False, True])
def test_retain_grad_on_a_view_whose_history_is_not_rebuilt_yet_matches_torch(look_first):
    """PyTorch's retain_grad reads the view's grad_fn without rebuilding it: a view that has none yet is taken for a
    leaf and nothing is retained, unless something asked for its grad_fn first (fuzzer seed 9026791)."""
    ours, theirs = (_retain_on_a_view_given_history_late(m, look_first) for m in LIBS)
    assert ours == theirs
    assert theirs[0] == look_first


# -- pickle and copy --------------------------------------------------------------------------------------
@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_tensors_pickle_with_every_protocol_as_in_torch(protocol):
    for m in LIBS:
        leaf = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64, requires_grad=True)
        leaf.grad = m.ones(2, 2, dtype=m.float64)
        plain = m.tensor([1, 2, 3])
        plain.note = "kept"
        for t in (leaf, leaf * 2, leaf[1:], plain):
            back = pickle.loads(pickle.dumps(t, protocol=protocol))
            assert back.tolist() == t.tolist() and back.dtype == t.dtype
            assert back.requires_grad == t.requires_grad and back.grad_fn is None and back.grad is None
        assert pickle.loads(pickle.dumps(plain, protocol=protocol)).note == "kept"


def test_copy_and_deepcopy_match_torch():
    for m in LIBS:
        leaf = m.tensor([1.0, 2.0], requires_grad=True)
        leaf.grad = m.ones(2)
        leaf.note = [1]
        shallow = copy.copy(leaf)
        assert shallow is not leaf and shallow.requires_grad and shallow.grad is None and shallow.note is leaf.note
        with m.no_grad():
            shallow[0] = 7.0  # copy.copy shares the values' memory
        assert leaf[0].item() == 7.0
        deep = copy.deepcopy(leaf)
        assert deep.requires_grad and deep.grad.tolist() == [1.0, 1.0] and deep.note == [1] and deep.note is not leaf.note
        with m.no_grad():
            view = leaf[1:]
        assert copy.deepcopy(view).tolist() == [2.0]
    ours, theirs = (_outcome(lambda m=m: copy.deepcopy(m.tensor([1.0], requires_grad=True)[0:])) for m in LIBS)
    assert ours == theirs and ours.startswith("RuntimeError: Only Tensors created explicitly by the user (graph leaves)")
