"""Views, in-place ops and version counters, with PyTorch as the oracle (issue 3).

Each program is one function ``fn(m, *leaves)`` written once for both libraries (``m`` is ``al`` or
``torch``). It returns the tensors to compare by name: their values, ``_version``, ``grad_fn`` name and
the names of ``next_functions`` two levels down must be PyTorch's; then a weighted sum of them is
backpropagated and every leaf's gradient must be PyTorch's. Errors must have PyTorch's type and text
(ours may add an explanation after " [autograd_lab]"); they, and known differences, are in
``test_inplace_errors.py``; random programs in ``test_inplace_property.py``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

RNG = np.random.default_rng(2024)


# -- helpers ---------------------------------------------------------------------------------------
def _values(*shape, domain: str = "any") -> np.ndarray:
    """float64 values away from 0 (``any``: both signs; ``pos``: positive), so no op sits on a kink."""
    magnitude = RNG.uniform(0.3, 1.5, shape)
    return magnitude if domain == "pos" else magnitude * RNG.choice([-1.0, 1.0], size=shape)


def _name(node) -> str | None:
    if node is None:
        return None
    return node.name()


def _tree(node, depth: int = 2):
    """The node's name and its next_functions' names (with output numbers), ``depth`` levels down."""
    if node is None or depth == 0:
        return _name(node)
    return (_name(node), tuple((_tree(n, depth - 1), nr) for n, nr in node.next_functions))


def _leaves(m, arrays):
    return [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]


def run_both(program, *arrays, backward: bool = True):
    """Run ``program(m, *leaves)`` in both libraries and compare what it returns (a dict of tensors),
    then the leaves' gradients through a randomly weighted sum of the returned tensors."""
    ours_in, theirs_in = _leaves(al, arrays), _leaves(torch, arrays)
    ours, theirs = program(al, *ours_in), program(torch, *theirs_in)
    assert ours.keys() == theirs.keys()
    rng = np.random.default_rng(0)
    loss_ours, loss_theirs = None, None
    for key, t in theirs.items():
        a = ours[key]
        assert tuple(a.shape) == tuple(t.shape), f"{key}: shape"
        np.testing.assert_allclose(a._data, t.detach().numpy(), rtol=1e-12, atol=1e-12, err_msg=f"{key}: values")
        assert a._version == t._version, f"{key}: _version {a._version} != torch's {t._version}"
        assert a.requires_grad == t.requires_grad, f"{key}: requires_grad"
        assert _tree(a.grad_fn) == _tree(t.grad_fn), f"{key}: grad_fn"
        if t.requires_grad:
            w = rng.standard_normal(tuple(t.shape))
            term_ours, term_theirs = (a * al.tensor(w)).sum(), (t * torch.tensor(w)).sum()
            loss_ours = term_ours if loss_ours is None else loss_ours + term_ours
            loss_theirs = term_theirs if loss_theirs is None else loss_theirs + term_theirs
    if not backward or loss_theirs is None:
        return ours, theirs
    loss_theirs.backward()
    loss_ours.backward()
    for k, (a, t) in enumerate(zip(ours_in, theirs_in)):
        if t.grad is None:
            assert a.grad is None, f"leaf {k}: torch has no gradient, we have {a.grad}"
            continue
        assert a.grad is not None, f"leaf {k}: no gradient, torch has {t.grad}"
        np.testing.assert_allclose(a.grad._data, t.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=f"grad of leaf {k}")
    return ours, theirs


def phrase(message: str) -> str:
    """PyTorch's part of one of our messages, spelled as PyTorch spells it."""
    return re.split(r"\s\[autograd_lab\]", message)[0].replace("al.", "torch.")


def same_error(program, *arrays) -> str:
    """Both libraries raise the same type with the same text; returns our full message."""
    with pytest.raises(Exception) as theirs:
        program(torch, *_leaves(torch, arrays))
    with pytest.raises(type(theirs.value)) as ours:
        program(al, *_leaves(al, arrays))
    assert phrase(str(ours.value)) == str(theirs.value)
    return str(ours.value)


# -- every in-place op, on non-leaves, views and views of views ----------------------------------
def _iadd(m, t, o):
    t += o
    return t


def _isub(m, t, o):
    t -= o
    return t


def _imul(m, t, o):
    t *= o
    return t


def _itruediv(m, t, o):
    t /= o
    return t


def _ipow(m, t, o):
    t **= 2
    return t


def _ipow_tensor(m, t, o):
    t **= o
    return t


# (id, fn(m, target, operand), domain of the values): target and operand are (2, 4); operand requires grad
INPLACE = [
    ("add_", lambda m, t, o: t.add_(o, alpha=2.0), "any"),
    ("add_scalar", lambda m, t, o: t.add_(1.5), "any"),
    ("sub_", lambda m, t, o: t.sub_(o, alpha=0.5), "any"),
    ("mul_", lambda m, t, o: t.mul_(o), "any"),
    ("mul_scalar", lambda m, t, o: t.mul_(3.0), "any"),
    ("mul_broadcast", lambda m, t, o: t.mul_(o[0]), "any"),
    ("div_", lambda m, t, o: t.div_(o), "any"),
    ("div_floor", lambda m, t, o: t.div_(o, rounding_mode="floor"), "any"),
    ("div_trunc", lambda m, t, o: t.div_(o, rounding_mode="trunc"), "any"),
    ("pow_scalar", lambda m, t, o: t.pow_(3.0), "any"),
    ("pow_tensor", lambda m, t, o: t.pow_(o), "pos"),
    ("exp_", lambda m, t, o: t.exp_(), "any"),
    ("log_", lambda m, t, o: t.log_(), "pos"),
    ("sqrt_", lambda m, t, o: t.sqrt_(), "pos"),
    ("neg_", lambda m, t, o: t.neg_(), "any"),
    ("abs_", lambda m, t, o: t.abs_(), "any"),
    ("clamp_", lambda m, t, o: t.clamp_(-0.8, 0.8), "any"),
    ("clamp_min", lambda m, t, o: t.clamp_(min=0.0), "any"),
    ("clamp_tensor", lambda m, t, o: t.clamp_(min=o), "any"),
    ("relu_", lambda m, t, o: t.relu_(), "any"),
    ("sigmoid_", lambda m, t, o: t.sigmoid_(), "any"),
    ("tanh_", lambda m, t, o: t.tanh_(), "any"),
    ("zero_", lambda m, t, o: t.zero_(), "any"),
    ("fill_", lambda m, t, o: t.fill_(2.5), "any"),
    ("fill_tensor", lambda m, t, o: t.fill_(o.sum()), "any"),
    ("copy_", lambda m, t, o: t.copy_(o), "any"),
    ("copy_broadcast", lambda m, t, o: t.copy_(o[1]), "any"),
    ("copy_float32", lambda m, t, o: t.copy_(o.float()), "any"),
    ("masked_fill_", lambda m, t, o: t.masked_fill_(o > 0, 0.5), "any"),
    ("masked_fill_tensor", lambda m, t, o: t.masked_fill_(o > 0, o.sum()), "any"),
    ("index_put_", lambda m, t, o: t.index_put_((m.tensor([1, 0]),), o * 2), "any"),
    ("index_put_accumulate", lambda m, t, o: t.index_put_((m.tensor([0, 0, 1]),), o[0] * 0.5, accumulate=True),
     "any"),
    ("index_put_2d", lambda m, t, o: t.index_put_((m.tensor([0, 1, 1]), m.tensor([3, 0, 2])), o[0, :3]), "any"),
    ("iadd", _iadd, "any"),
    ("isub", _isub, "any"),
    ("imul", _imul, "any"),
    ("itruediv", _itruediv, "any"),
    ("ipow", _ipow, "any"),
    ("ipow_tensor", _ipow_tensor, "pos"),
]


def _nonleaf(op):
    def program(m, x, o):
        t = x.clone()
        out = op(m, t, o)
        assert out is t
        return {"t": t}
    return program, (2, 4)


def _view(op):
    def program(m, x, o):
        b = x.clone()
        v = b[1:3]
        assert op(m, v, o) is v
        return {"base": b, "view": v}
    return program, (4, 4)


def _view_of_view(op):
    def program(m, x, o):
        b = x.clone()
        mid = b[:, 1:]
        v = mid.t()[1:3]
        assert op(m, v, o) is v
        return {"base": b, "mid": mid, "view": v}
    return program, (4, 5)


def _select_view(op):
    def program(m, x, o):
        b = x.clone()
        v = b.select(1, 1)
        assert op(m, v, o) is v
        return {"base": b, "view": v}
    return program, (2, 3, 4)


@pytest.mark.parametrize("where", [_nonleaf, _view, _view_of_view, _select_view],
                         ids=["nonleaf", "view", "view_of_view", "select"])
@pytest.mark.parametrize("op_id, op, domain", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_op_matches_torch(where, op_id, op, domain):
    program, shape = where(op)
    run_both(program, _values(*shape, domain=domain), _values(2, 4, domain=domain))


def test_versions_are_shared_by_base_and_all_its_views():
    def program(m, x):
        b = x.clone()
        v, w, d = b[0], b.t(), b.diagonal()
        v.mul_(2)
        w.add_(1)
        d.sub_(0.5)
        b.exp_()
        assert v._base is b and w._base is b and d._base is b and b._base is None
        assert v._is_view() and not b._is_view()
        return {"b": b, "v": v, "w": w, "d": d}
    ours, _ = run_both(program, _values(3, 3))
    assert ours["b"]._version == 4


# -- views that went stale -----------------------------------------------------------------------
def test_view_taken_before_the_base_changed_rebuilds_its_history():
    def program(m, x, o):
        b = x.clone()
        row, col = b[0], b[:, 2]
        b.mul_(o)  # row and col are stale: their grad_fn becomes AsStridedBackward0 of MulBackward0
        y = row * col
        return {"b": b, "row": row, "col": col, "y": y}
    run_both(program, _values(3, 3), _values(3, 3))


def test_sibling_view_modified_updates_other_views_and_base():
    def program(m, x, o):
        b = x.clone()
        first, rest = b[:, 0], b[:, 1:]
        rest.mul_(o)
        first.add_(rest.sum(1))  # reads a view whose history was just rewritten, writes its sibling
        z = (b * b).sum(0)
        return {"b": b, "first": first, "rest": rest, "z": z}
    run_both(program, _values(3, 4), _values(3, 3))


def test_stale_view_used_as_operand_of_another_inplace_op():
    def program(m, x, o):
        b = x.clone()
        v = b[1]
        b.sigmoid_()
        c = o.clone()
        c.mul_(v)
        return {"b": b, "v": v, "c": c}
    run_both(program, _values(2, 3), _values(3))


def test_view_of_view_of_stale_view():
    def program(m, x):
        b = x.clone()
        v = b.t()
        b[0].mul_(2)
        w = v.unsqueeze(0)[0, 1:]  # a view taken from a view whose base changed
        w.mul_(3)
        return {"b": b, "v": v, "w": w}
    run_both(program, _values(3, 3))


# -- tensor[key] = value --------------------------------------------------------------------------
KEYS = {
    "int": lambda m: 1,
    "negative_int": lambda m: -1,
    "slice": lambda m: slice(1, 3),
    "step_slice": lambda m: (slice(None), slice(0, 5, 2)),
    "none": lambda m: (None, 1),
    "ellipsis": lambda m: (Ellipsis, 2),
    "int_slice": lambda m: (2, slice(1, 4)),
    "index_tensor": lambda m: m.tensor([0, 2]),
    "index_list": lambda m: [3, 1],
    "mask": lambda m: m.tensor([True, False, True, False]),
    "mask_2d": lambda m: m.arange(20).reshape(4, 5) % 3 == 0,
    "mixed_slice_index": lambda m: (slice(1, None), m.tensor([0, 2])),
    "mixed_index_int": lambda m: (m.tensor([0, 1]), 2),
    "mixed_ellipsis_index": lambda m: (Ellipsis, m.tensor([1, 3])),
    "two_indices": lambda m: (m.tensor([0, 3, 1]), m.tensor([4, 0, 2])),
    "zero_dim_index": lambda m: m.tensor(2),
}


@pytest.mark.parametrize("value_kind", ["tensor", "broadcast_tensor", "scalar"])
@pytest.mark.parametrize("key", KEYS.values(), ids=KEYS.keys())
def test_setitem_matches_torch(key, value_kind):
    region = tuple(torch.zeros(4, 5)[key(torch)].shape)
    value_shape = {"tensor": region, "broadcast_tensor": region[-1:], "scalar": (1,)}[value_kind]

    def program(m, x, o):
        b = x.clone()
        view = b[1:]  # writing through the base must keep this view's gradient right too
        b[key(m)] = 0.75 if value_kind == "scalar" else o * 2
        return {"b": b, "view": view}

    run_both(program, _values(4, 5), _values(*value_shape))


@pytest.mark.parametrize("key", [KEYS["slice"], KEYS["index_tensor"], KEYS["mixed_slice_index"]],
                         ids=["slice", "index_tensor", "mixed"])
def test_setitem_on_a_view(key):
    def program(m, x, o):
        b = x.clone()
        v = b.t()
        v[key(m)] = o.sum() * 0.5
        return {"b": b, "v": v}
    run_both(program, _values(5, 4), _values(2))


# -- what in-place nodes save ----------------------------------------------------------------------
@pytest.mark.parametrize("op, attr", [
    (lambda t, o: t.mul_(o), "_saved_self"),
    (lambda t, o: t.pow_(2.0), "_saved_self"),
    (lambda t, o: t.log_(), "_saved_self"),
    (lambda t, o: t.div_(o), "_saved_self"),
    (lambda t, o: t.clamp_(-0.8, 0.8), "_saved_self"),
], ids=["mul_", "pow_", "log_", "div_", "clamp_"])
def test_saved_self_is_a_copy_with_the_old_history(op, attr):
    saved = {}
    for m in (al, torch):
        x = m.tensor(_values(2, 3, domain="pos"), requires_grad=True) if m is al else \
            torch.tensor(saved[al]["x"], requires_grad=True)
        o = m.tensor(np.full((2, 3), 1.25), requires_grad=True)
        t = x * 1.5
        old = t.detach().clone()
        op(t, o)
        value = getattr(t.grad_fn, attr)
        saved[m] = dict(x=x.detach().numpy() if m is torch else x._data, value=value, t=t, old=old)
    for m in (al, torch):
        value, t = saved[m]["value"], saved[m]["t"]
        data = value._data if m is al else value.detach().numpy()
        np.testing.assert_array_equal(data, saved[m]["old"]._data if m is al else saved[m]["old"].numpy())
        assert value is not t
    ours, theirs = saved[al]["value"], saved[torch]["value"]
    assert ours._version == theirs._version == 0
    assert _tree(ours.grad_fn) == _tree(theirs.grad_fn)  # a recorded clone of the old history
    assert _name(ours.grad_fn.next_functions[0][0]) == "MulBackward0"
    assert ours.requires_grad == theirs.requires_grad


@pytest.mark.parametrize("op, node", [
    (lambda t: t.sigmoid_(), "SigmoidBackward0"),
    (lambda t: t.exp_(), "ExpBackward0"),
    (lambda t: t.tanh_(), "TanhBackward0"),
    (lambda t: t.sqrt_(), "SqrtBackward0"),
    (lambda t: t.relu_(), "ReluBackward0"),
], ids=["sigmoid_", "exp_", "tanh_", "sqrt_", "relu_"])
def test_saved_result_is_the_modified_tensor(op, node):
    values = _values(2, 3, domain="pos")
    for m in (al, torch):
        x = m.tensor(values, requires_grad=True)
        t = x * 1.0
        op(t)
        assert t.grad_fn.name() == node
        result = t.grad_fn._saved_result
        assert result._version == t._version == 1
        assert result.grad_fn is t.grad_fn
        np.testing.assert_array_equal(result.detach().numpy() if m is torch else result._data,
                                      t.detach().numpy() if m is torch else t._data)
    # modifying the output again makes the saved result unusable, in both libraries
    def modified_again(m, x):
        t = x * 1.0
        op(t)
        t.mul_(2)
        return t.grad_fn.next_functions[0][0]._saved_result
    message = same_error(modified_again, values)
    assert f"saved as 'result' by {node}" in message and "mul_" in message


# -- retain_grad and hooks -------------------------------------------------------------------------
def test_retain_grad_and_hooks_across_inplace_ops():
    grads = {}
    for m in (al, torch):
        x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        seen = []
        a = x * 1.0
        a.retain_grad()
        a.register_hook(lambda g, seen=seen: seen.append(("before", g.clone())))
        a.mul_(2)
        a.register_hook(lambda g, seen=seen: seen.append(("after", g.clone())))
        a.pow_(2)
        (a * m.tensor([1.0, 10.0, 100.0], dtype=m.float64)).sum().backward()
        grads[m] = (a.grad, seen, x.grad)
    ours, theirs = grads[al], grads[torch]
    np.testing.assert_allclose(ours[0]._data, theirs[0].numpy())
    assert [k for k, _ in ours[1]] == [k for k, _ in theirs[1]]
    for (_, a), (_, t) in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a._data, t.numpy())
    np.testing.assert_allclose(ours[2]._data, theirs[2].numpy())


def test_retain_grad_of_a_base_and_view_across_view_inplace():
    grads = {}
    for m in (al, torch):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64, requires_grad=True)
        b = x * 1.0
        v = b[0]
        b.retain_grad()
        v.retain_grad()
        v.mul_(3)
        (b * b).sum().backward()
        grads[m] = (b.grad, v.grad, x.grad)
    for a, t in zip(grads[al], grads[torch]):
        assert (a is None) == (t is None)
        if t is not None:
            np.testing.assert_allclose(a._data, t.numpy())


def test_grad_zero_after_backward():
    for m in (al, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        (x * x).sum().backward()
        before = x.grad._version
        x.grad.zero_()
        assert x.grad._version == before + 1 and not x.grad.numpy().any() if m is torch else not x.grad._data.any()
        (x * 3).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy() if m is torch else x.grad._data, [3.0, 3.0])


def test_grad_zero_of_an_expanded_gradient():
    results = {}
    for m in (al, torch):
        z = m.tensor([2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([1.0, 4.0], dtype=m.float64, requires_grad=True)
        z.expand(3).sum().backward()
        w.expand(3, 2).sum().backward()  # the gradient of w comes out of the expand's backward
        z.grad.zero_()
        w.grad.mul_(2)
        z.expand(3).sum().backward()
        results[m] = [z.grad.detach().clone(), w.grad.detach().clone()]
    for a, t in zip(results[al], results[torch]):
        np.testing.assert_array_equal(a._data, t.numpy())


# -- diagonal views, requires_grad propagation -----------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda b: b.diagonal(),
    lambda b: b.diagonal(1),
    lambda b: b.diagonal(-1),
    lambda b: b.t().diagonal(),
    lambda b: b[1:].diagonal(),
], ids=["main", "offset1", "offset-1", "transposed", "sliced"])
def test_writable_diagonal_views(make):
    def program(m, x, o):
        b = x.clone()
        d = make(b)
        d.mul_(o[: d.shape[0]])
        d.add_(1)
        return {"b": b, "d": d}
    run_both(program, _values(4, 4), _values(4))


def test_requires_grad_propagates_into_untracked_tensor():
    def program(m, o):
        a = m.zeros(3, 4, dtype=m.float64)
        c = m.zeros(4, dtype=m.float64)
        assert not a.requires_grad
        a[1] = o
        c.copy_(o * 2)
        d = m.ones(4, dtype=m.float64)
        d.mul_(o)
        assert a.requires_grad and not a.is_leaf and c.grad_fn is not None
        return {"a": a, "c": c, "d": d}
    run_both(program, _values(4))

    def through_view(m, o):
        a = m.zeros(3, 4, dtype=m.float64)
        v = a[:, 1]
        v.add_(o)
        return {"a": a, "v": v}
    run_both(through_view, _values(3))


def test_untracked_operand_keeps_no_history():
    def program(m, x):
        a = m.ones(3, dtype=m.float64)
        a.mul_(2)
        a[0] = 5.0
        assert a.grad_fn is None and a.is_leaf
        return {"a": a, "y": a * x}
    run_both(program, _values(3))


# -- gradcheck and double backward through in-place graphs ---------------------------------------
def _through_copyslices(m, x, o):
    b = x.clone()
    b[1:3].mul_(o)
    b[:, 0] = o[0] * o[1]
    b.pow_(2)
    b.diagonal().sigmoid_()  # saves its result, a view of b: b must not change after this
    return b


def test_gradcheck_through_inplace_graphs():
    x = al.tensor(_values(4, 4), requires_grad=True)
    o = al.tensor(_values(2, 4), requires_grad=True)
    assert al.autograd.gradcheck(lambda x, o: _through_copyslices(al, x, o), (x, o))
    assert al.autograd.gradgradcheck(lambda x, o: _through_copyslices(al, x, o), (x, o))

    def masked(x, o):
        t = x * 1
        t.masked_fill_(x > 0, 0.0)
        t.index_put_((al.tensor([0, 0]),), o[:2, :1].squeeze(1), accumulate=True)
        t /= o[0, 0]
        return t
    assert al.autograd.gradcheck(masked, (al.tensor(_values(4), requires_grad=True), o))


def test_double_backward_through_copyslices_matches_torch():
    xs, os_ = _values(4, 4), _values(2, 4)
    results = {}
    for m in (al, torch):
        x, o = _leaves(m, (xs, os_))
        b = _through_copyslices(m, x, o)
        gx, go = m.autograd.grad((b * b).sum(), (x, o), create_graph=True)
        (gx.sum() + (go * go).sum()).backward()
        results[m] = (gx, go, x.grad, o.grad)
    for a, t in zip(results[al], results[torch]):
        np.testing.assert_allclose(a._data, t.detach().numpy(), rtol=1e-10, atol=1e-12)
