"""Cases that once gave a wrong answer without a word (issue 21): each against PyTorch as the oracle.

Each program is written once, ``fn(m)`` with ``m`` either ``al`` or ``torch``, and both libraries must give
the same values (gradients included). Where the gradient is a formula, ``gradcheck`` proves it in float64.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

NAN = float("nan")


def _same(fn) -> None:
    """``fn(m)`` returns numbers, or lists of them (nested, of any shapes); both libraries must agree, NaNs
    included."""
    _assert_close(fn(al), fn(torch))


def _assert_close(ours, theirs) -> None:
    if isinstance(theirs, list) and any(isinstance(t, list) for t in theirs):
        assert isinstance(ours, list) and len(ours) == len(theirs), (ours, theirs)
        for a, t in zip(ours, theirs):
            _assert_close(a, t)
        return
    np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=1e-6,
                               atol=1e-12, equal_nan=True)


def _grad_of(m, values, fn, upstream=None):
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    out = fn(m, x)
    out.backward(None if upstream is None else m.tensor(upstream, dtype=m.float64))
    return x.grad.tolist()


# -- 1. amax/amin split the gradient evenly between tied extrema -----------------------------------
@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("values, dim", [([0.0] * 4, None), ([1.0, 3.0, 3.0, 0.0], 0), ([1.0, 0.0, 0.0, 3.0], 0),
                                         ([[2.0, 2.0], [1.0, 2.0]], 1), ([[2.0, 2.0], [1.0, 2.0]], None)])
def test_amax_amin_split_ties_evenly(op, values, dim):
    def fn(m, x):
        out = getattr(x, op)() if dim is None else getattr(x, op)(dim)
        return (out * m.arange(1.0, out.numel() + 1, dtype=m.float64).reshape(out.shape)).sum()
    _same(lambda m: _grad_of(m, values, fn))


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_ties_under_create_graph(op):
    def fn(m):
        x = m.tensor([1.0, 3.0, 3.0, 0.0, 0.0], dtype=m.float64, requires_grad=True)
        g, = m.autograd.grad((getattr(x, op)(0) * x).sum(), [x], create_graph=True)
        gg, = m.autograd.grad((g * m.arange(5.0, dtype=m.float64)).sum(), [x])
        return [g.tolist(), gg.tolist()]
    _same(fn)


# -- 2. std and var of equal values have a zero gradient -------------------------------------------
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_of_equal_values_have_zero_gradient(op):
    _same(lambda m: _grad_of(m, [1.0, 1.0, 1.0], lambda m, x: getattr(x, op)()))
    _same(lambda m: _grad_of(m, [[2.0, 2.0], [1.0, 3.0]], lambda m, x: getattr(x, op)(1).sum()))


def test_std_gradient_passes_gradcheck_away_from_zero():
    x = al.tensor([[1.0, 2.5, -0.5], [0.3, 0.1, 0.2]], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(lambda t: t.std(1), (x,))


# -- 3. masks stop NaN gradients, as PyTorch's where-style masks do ---------------------------------
@pytest.mark.parametrize("name, fn", [
    ("relu", lambda m, x: m.relu(x)),
    ("maximum", lambda m, x: m.maximum(x, m.tensor([0.0, 0.0, 0.0], dtype=m.float64))),
    ("minimum", lambda m, x: m.minimum(x, m.tensor([0.0, 0.0, 0.0], dtype=m.float64))),
    ("clamp", lambda m, x: x.clamp(-0.5, 0.5)),
    ("clamp_min", lambda m, x: x.clamp(min=0.0)),
])
def test_nan_upstream_gradient_is_masked(name, fn):
    _same(lambda m: _grad_of(m, [-1.0, 2.0, 0.25], fn, upstream=[NAN, NAN, NAN]))


def test_max_of_a_tensor_with_nan_sends_the_gradient_to_the_nan():
    _same(lambda m: _grad_of(m, [1.0, NAN, 2.0], lambda m, x: x.max()))
    _same(lambda m: _grad_of(m, [1.0, NAN, 2.0], lambda m, x: x.amax()))
    _same(lambda m: m.tensor([1.0, NAN, 2.0]).amax().item())


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")
def test_maximum_of_a_constant_and_a_nan_gradient():
    _same(lambda m: _grad_of(m, [-0.5], lambda m, x: m.maximum(m.tensor([0.7], dtype=m.float64), x).var()))


# -- 4. a hook on a view registered after its base was modified in place fires ---------------------
def test_hook_on_a_stale_view_fires_on_its_current_history():
    """PyTorch crashes on this program; by its documented semantics the hook belongs to the view's
    current ``grad_fn`` (rebuilt after the base's in-place change), so it must run."""
    x = al.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    e = b[:]
    b.add_(1.0)
    calls = []
    e.register_hook(lambda g: calls.append(g.tolist()) or g * 10)
    (e * 1).sum().backward()
    assert calls == [[1.0, 1.0]]
    assert x.grad.tolist() == [10.0, 10.0]
    assert e.grad_fn.name() == "AsStridedBackward0"


def test_retain_grad_on_a_stale_view_keeps_its_gradient():
    def fn(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        b = x * 1
        e = b[:1]
        b.mul_(3.0)
        e.retain_grad()
        (e * 5).sum().backward()
        return [e.grad.tolist(), x.grad.tolist()]
    _same(fn)


# -- 5. clamp_ writes into its tensor ---------------------------------------------------------------
def test_clamp_underscore_writes_in_place():
    def fn(m):
        a = m.tensor([-2.0, 0.0, 2.0])
        out = m.clamp_(a, -1.0, 1.0)
        assert out is a
        return a.tolist()
    _same(fn)


# -- 6. a hook's replacement gradient must keep the size and dtype -------------------------------
@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non_leaf"])
@pytest.mark.parametrize("returned, phrase", [
    (lambda g: g[:1], "hook '<lambda>' has changed the size of value"),
    (lambda g: g.to(torch.int64) if isinstance(g, torch.Tensor) else g.to(al.int64),
     "hook '<lambda>' has changed the type of value"),
])
def test_hook_changing_size_or_dtype_is_refused(leaf, returned, phrase):
    for m in (torch, al):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        t = a if leaf else a * 1
        t.register_hook(returned)
        with pytest.raises(RuntimeError) as info:
            (t * 2).sum().backward()
        assert phrase in str(info.value), (m.__name__, str(info.value))


# -- 7. a number that does not fit its dtype is PyTorch's error (or PyTorch's wrap), never NumPy's -----
def _same_outcome(src: str) -> None:
    """``src`` (written with ``m.``) gives the same values in both libraries, or both raise the same exception
    type and our message starts with PyTorch's (what we add after it begins with ``[autograd_lab]``)."""
    outcomes = []
    for m in (torch, al):
        try:
            out = eval(src, {"m": m, "np": np})  # noqa: S307  (the cases below)
            outcomes.append(("value", repr(out.dtype).split(".")[-1], repr(out.tolist())))  # (repr: nan == nan)
        except Exception as exc:  # noqa: BLE001  (the comparison is the point)
            outcomes.append(("raised", type(exc), str(exc)))
    theirs, ours = outcomes
    if theirs[0] == "raised":
        assert ours[0] == "raised" and ours[1] is theirs[1], (src, theirs, ours)
        assert ours[2].startswith(theirs[2]), (src, theirs[2], ours[2])
        assert ours[2] == theirs[2] or ours[2][len(theirs[2]):].lstrip(" ").startswith(("[autograd_lab]", "(got")), \
            (src, theirs[2], ours[2])
    else:
        assert ours == theirs, (src, theirs, ours)


@pytest.mark.parametrize("src", [
    "m.tensor([2**63])", "m.tensor(2**63)", "m.tensor([-2**63 - 1])", "m.tensor([1, 2**63])", "m.tensor([[1], [2**63]])",
    "m.tensor([2**64])", "m.as_tensor([2**63])", "m.LongTensor([2**63])", "m.tensor([True, 2**63])",
    "m.tensor([2**63], dtype=m.float32)", "m.tensor([1.5, 2**63])", "m.tensor([1.0, 10**400])",
    "m.tensor([300], dtype=m.uint8)", "m.tensor([-1], dtype=m.uint8)", "m.tensor([-255], dtype=m.uint8)",
    "m.tensor([-256], dtype=m.uint8)", "m.tensor([200], dtype=m.int8)", "m.tensor([-129], dtype=m.int8)",
    "m.tensor([2**40], dtype=m.int32)", "m.tensor([70000], dtype=m.int16)", "m.tensor([2.0**70], dtype=m.int64)",
    "m.tensor([float('nan')], dtype=m.int64)", "m.tensor([float('inf')], dtype=m.int32)",
    "m.tensor([200.0], dtype=m.int8)", "m.tensor([127.9], dtype=m.int8)", "m.tensor([-1.0], dtype=m.uint8)",
    "m.tensor([1.7, -1.7], dtype=m.int8)", "m.tensor([2, -1], dtype=m.bool)", "m.tensor([1e300], dtype=m.float32)",
    "m.as_tensor([300], dtype=m.uint8)",
])
def test_construction_from_python_numbers(src):
    _same_outcome(src)


@pytest.mark.parametrize("src", [
    "m.full((2,), 2**63)", "m.full((2,), 2**31, dtype=m.int32)", "m.full((2,), 2**15, dtype=m.int16)",
    "m.full((2,), 300, dtype=m.uint8)", "m.full((2,), -1, dtype=m.uint8)", "m.full((2,), -300, dtype=m.uint8)",
    "m.full((2,), float('nan'), dtype=m.int64)", "m.full((2,), 1.5, dtype=m.int64)", "m.full((2,), 2, dtype=m.bool)",
    "m.full((2,), 1e300, dtype=m.float32)", "m.full((2,), 2**64)",
    "m.zeros(2, dtype=m.uint8).fill_(300)", "m.zeros(2, dtype=m.uint8).fill_(-1)", "m.zeros(2, dtype=m.int32).fill_(2**40)",
    "m.zeros(2, dtype=m.uint8).fill_(-1.0)", "m.zeros(2, dtype=m.float16).fill_(1e10)", "m.zeros(2).fill_(1e300)",
    "m.zeros(2, dtype=m.int8).masked_fill(m.tensor([True, False]), 1000)",
    "m.zeros(2, dtype=m.int64).masked_fill(m.tensor([True, False]), 1.5)",
    "m.zeros(2, dtype=m.uint8).clamp(max=300)", "m.zeros(2, dtype=m.uint8).clamp(min=-1)",
    "m.zeros(2).clamp(max=1e300)", "m.tensor([1, 2]).clamp(max=1.5)",
    "m.where(m.tensor([True, False]), m.zeros(2, dtype=m.uint8), 300)",
    "m.arange(2**63, 2**63 + 2)", "m.arange(0, 2**63)",
])
def test_fills_check_the_number_against_the_dtype(src):
    _same_outcome(src)


@pytest.mark.parametrize("src", [
    "m.zeros(2, dtype=m.uint8) + 300", "m.zeros(2, dtype=m.int8) - 1000", "m.zeros(2, dtype=m.int8) * 1000",
    "m.zeros(2, dtype=m.int64) + 2**63", "m.zeros(2, dtype=m.int8) + 2**63", "m.zeros(2, dtype=m.int64) + 2**64",
    "m.zeros(2, dtype=m.uint8).add_(300)", "m.zeros(2, dtype=m.int8) < 1000", "m.zeros(2, dtype=m.int8) == 256",
    "m.zeros(2, dtype=m.int8) > -1000", "m.tensor([1, 2]) * 2**62 * 4", "m.zeros(2, dtype=m.int8) + 1.5",
])
def test_python_ints_beside_integer_tensors_wrap_as_in_pytorch(src):
    _same_outcome(src)


# -- 8. integer division by zero, random samples in integer dtypes, float indices ---------------------
@pytest.mark.parametrize("src", [
    "m.tensor([5]) // 0", "m.tensor([5]) % 0", "m.tensor([5]) // m.tensor([0])", "m.tensor([5, 1]) % m.tensor([1, 0])",
    "m.tensor([5], dtype=m.uint8) // 0", "m.tensor([5], dtype=m.int32) % 0", "5 // m.tensor([0])",
    "m.remainder(5, m.tensor([0]))", "m.floor_divide(m.tensor([5]), 0)",
    "m.div(m.tensor([5]), 0, rounding_mode='floor')", "m.div(m.tensor([5]), 0, rounding_mode='trunc')",
    "m.tensor([True]) // 0", "m.tensor([True]) % 0", "m.tensor([True]) // m.tensor([False])",
    "m.tensor([True]) % m.tensor([True])", "m.div(m.tensor([True]), m.tensor([True]), rounding_mode='trunc')",
    "m.tensor([5]).div(0)", "m.tensor([5.0]) // 0", "m.tensor([5.0]) % 0", "m.tensor([5]) % 0.0",
    "m.tensor([], dtype=m.int64) // 0", "m.tensor([True]) // 2",
    "m.div(m.tensor([2**62 + 1, -7, 7]), m.tensor([1, 2, -2]), rounding_mode='trunc')",
])
def test_integer_division_by_zero_raises(src):
    _same_outcome(src)


def test_integer_division_by_zero_in_place():
    for op in ("__ifloordiv__", "__imod__"):
        for m in (torch, al):
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                getattr(m.tensor([5]), op)(0)


@pytest.mark.parametrize("src", [
    "m.randn(2, dtype=m.int64)", "m.rand(2, dtype=m.int64)", "m.randn(2, dtype=m.int32)", "m.rand(2, dtype=m.bool)",
    "m.zeros(2, dtype=m.int64).normal_()", "m.zeros(2, dtype=m.uint8).uniform_()",
    "m.normal(0.0, 1.0, (2,), dtype=m.int64)", "m.randn_like(m.zeros(2, dtype=m.int16))",
    "m.rand_like(m.zeros(2, dtype=m.int8))",
])
def test_continuous_random_samples_need_a_floating_dtype(src):
    _same_outcome(src)


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")  # (PyTorch's, for the list keys)
@pytest.mark.parametrize("key", [
    "1.5", "(1, 1.5)", "(Ellipsis, 1.5)", "np.float64(1.0)", "np.bool_(True)", "object()", "{1}", "{1: 2}",
    "complex(1, 0)", "'a'", "(None, 'a')", "b'a'", "['a']", "slice(0.5, 2)", "slice(0, 2, 1.0)",
    "[1.5]", "[-1.7]", "[True, 1.5]", "np.array([1.5])", "np.int64(1)", "np.array(1)", "[]", "()", "range(2)",
    "m.tensor(1.0)", "m.tensor([])", "m.tensor([], dtype=m.int64)",
])
def test_index_keys_are_checked_as_pytorch_checks_them(key):
    _same_outcome(f"m.arange(6).reshape(3, 2)[{key}]")
    for m in (torch, al):  # the same key on the left of an assignment
        x = m.arange(6).reshape(3, 2)
        try:
            x[eval(key, {"m": m, "np": np})] = 7  # noqa: S307
            outcome = x.tolist()
        except Exception as exc:  # noqa: BLE001
            outcome = type(exc)
        if m is torch:
            expected = outcome
    assert outcome == expected, key


# -- 8. retain_grad of a tensor whose history an in-place op on its view rewrote ---------------------
def test_retained_grad_of_a_base_accumulates_through_a_double_backward():
    """The saved result of ``v.exp_()`` (v a view of y) unpacks with the view's new history, so the second
    ``grad`` flows through y's history and its retain_grad hook, as in PyTorch."""
    def fn(m):
        a = m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True)
        y = a * 1
        y.retain_grad()
        v = y[:, :1]
        v.exp_()
        gg, = m.autograd.grad((v * 3).sum(), [a], create_graph=True)
        first = y.grad.tolist()
        g2, = m.autograd.grad(gg.sum(), [a])
        return [first, y.grad.tolist(), gg.tolist(), g2.tolist()]
    _same(fn)


def test_double_backward_through_an_in_place_op_on_a_view_meets_the_base_hooks():
    def fn(m):
        a = m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True)
        y = a * 2
        v = y[:, 1:]
        v.sigmoid_()
        g, = m.autograd.grad((v * 3).sum(), [a], create_graph=True)
        seen = []
        y.register_hook(lambda g: seen.append(g.tolist()))
        g.sum().backward()
        return [seen, a.grad.tolist()]
    _same(fn)


def test_the_view_history_is_held_weakly_and_the_node_stands_in_when_it_is_gone():
    def fn(m):
        a = m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True)
        y = a * 1
        y.retain_grad()
        y[:, :1].exp_()  # the view dies at once
        gc.collect()
        gg, = m.autograd.grad((y * 3).sum(), [a], create_graph=True)
        g2, = m.autograd.grad(gg.sum(), [a])
        return [y.grad.tolist(), g2.tolist()]
    _same(fn)


def test_gradcheck_through_an_in_place_op_on_a_view_twice():
    def f(a):
        y = a * 1
        y[:, :1].exp_()
        return y * y
    a = al.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=al.float64, requires_grad=True)
    assert al.autograd.gradcheck(f, (a,))
    assert al.autograd.gradgradcheck(f, (a,))
