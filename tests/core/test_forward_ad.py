"""Forward-mode AD (``autograd.forward_ad``) against PyTorch's: the tangents of a table of programs, the API's
behaviour and errors (levels, ``make_dual``, ``unpack_dual``, views, in-place ops, ``detach``, ``no_grad``), custom
Functions with ``jvp`` and ``save_for_forward``, forward over reverse, and the tangent in a dual tensor's repr."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")
fw = {al: al.autograd.forward_ad, torch: torch.autograd.forward_ad}
LIBS = [al, torch]


def _np(t):
    return None if t is None else t.detach().cpu().numpy()


def _functional(m):
    return m.nn.functional


# name -> (program of m, F and the inputs, shapes of the inputs). Every input gets a random tangent.
PROGRAMS = {
    "arithmetic": (lambda m, F, a, b: (a * b - a / (b.abs() + 1) + 2.0 ** a - 3 - a) ** 2, [(3, 4), (4,)]),
    "pointwise": (lambda m, F, a: a.exp() + a.sin() * a.cos() + a.tanh() + a.sigmoid() + a.abs().sqrt().log1p()
                  + a.relu() + a.abs().rsqrt() + a.erf() + (a * 0.5).tan(), [(2, 3)]),
    "clamp_where": (lambda m, F, a, b: m.where(a > 0, a, b).clamp(-0.5, 0.7) + a.clamp(min=b)
                    + m.maximum(a, b) - m.minimum(a, b), [(3, 3), (3, 3)]),
    "reductions": (lambda m, F, a: m.stack([a.sum(), a.mean(), a.prod(), a.var(), a.std(), a.max(), a.min(),
                                            a.logsumexp(0).sum(), a.amax(1).sum(), a.norm(), a.norm(3)]), [(3, 4)]),
    "reductions_dim": (lambda m, F, a: a.sum(0) + a.mean(0, keepdim=True).squeeze(0) + a.max(0).values
                       + a.prod(0) + a.var(0) + a.norm(1, 0), [(3, 4)]),
    "matmul": (lambda m, F, a, b, v: (a @ b) @ v + a.t().mv(v)[:3] + (a[0] @ b[:, 0])
               + m.addmm(v[:3], a, b[:, :3], beta=0.5, alpha=2.0).sum(0), [(3, 4), (4, 3), (3,)]),
    "bmm": (lambda m, F, a, b: a.bmm(b), [(2, 3, 4), (2, 4, 2)]),
    "views": (lambda m, F, a: a.view(6, 2).t().reshape(3, 4).permute(1, 0)[1:, ::2].unsqueeze(0).expand(2, 3, 2)
              .transpose(0, 2).flatten() + a.diagonal().sum() + a.T.reshape(-1).flip(0), [(3, 4)]),
    "split_unbind": (lambda m, F, a: m.cat([p * (i + 1) for i, p in enumerate(a.split(2, 1))], 1).sum(0)
                     + m.stack(a.unbind(1), 0).sum(1).repeat(1) * 0 + a.chunk(2, 1)[1].sum(), [(3, 4)]),
    "indexing": (lambda m, F, a: a[m.tensor([2, 0, 2])] * 2 + a[a > 0].sum() + a.index_select(1, m.tensor([3, 0, 0, 1]))
                 + a.gather(1, m.tensor([[0, 1, 2, 3], [1, 1, 0, 0], [3, 2, 1, 0]])), [(3, 4)]),
    "index_put_masked": (lambda m, F, a, b: a.index_put((m.tensor([0, 2]),), b) + a.masked_fill(a > 0, 1.0)
                         + a.masked_fill(a < 0, b[0, 0]) + a.scatter_add(0, m.tensor([[0, 1, 2, 0]]), b[:1]),
                         [(3, 4), (2, 4)]),
    "softmax_losses": (lambda m, F, a, b: m.stack([
        F.cross_entropy(a, m.tensor([0, 3, 1])), F.nll_loss(F.log_softmax(a, 1), m.tensor([1, 1, 2]), reduction="sum"),
        F.mse_loss(a, b), F.binary_cross_entropy(a.sigmoid(), b.sigmoid()),
        F.binary_cross_entropy_with_logits(a, b.sigmoid(), pos_weight=m.tensor([1.0, 2.0, 0.5, 1.0], dtype=m.float64)),
        F.softmax(a, 0).sum(1)[0], F.l1_loss(a, b)]), [(3, 4), (3, 4)]),
    "nn_layers": (lambda m, F, x, w, b: F.gelu(F.linear(x, w, b)) + F.gelu(F.linear(x, w), approximate="tanh")
                  + F.embedding(m.tensor([1, 0]), w)[:, :1], [(2, 3), (4, 3), (4,)]),
    "conv_pool": (lambda m, F, x, w, b: F.max_pool2d(F.conv2d(x, w, b, padding=1), 2)
                  + F.avg_pool2d(F.conv2d(x, w, stride=1, padding=1), 2) + F.adaptive_avg_pool2d(x, (2, 2))[:, :1],
                  [(1, 2, 4, 4), (3, 2, 3, 3), (3,)]),
    "batch_norm": (lambda m, F, x, w, b: F.batch_norm(x, None, None, w, b, training=True)
                   + F.batch_norm(x, m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64), w, b), [(4, 3), (3,), (3,)]),
    "padding": (lambda m, F, x: F.pad(x, (1, 2), value=3.0).sum() + F.pad(x, (1, 1, 1, 1), mode="reflect").sum(0)
                + F.pad(x, (1, 1, 1, 1), mode="replicate").sum(0), [(1, 3, 4)]),
    "inplace": (lambda m, F, a, b: _written(m, a, b), [(3, 4), (4,)]),
}


def _written(m, a, b):
    out = a.clone()
    out.mul_(b)
    out[0] = b * 2  # a view written in place: the base's tangent changes too
    out[1, 1:3].add_(b[:2])
    out.copy_(out.relu())
    return out.sum(0)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tangents_match_torch(name):
    program, shapes = PROGRAMS[name]
    rng = np.random.default_rng(7)
    values = [rng.uniform(-1.5, 1.5, s) for s in shapes]
    tangents = [rng.standard_normal(s) for s in shapes]
    got = []
    for m in LIBS:
        with fw[m].dual_level():
            duals = [fw[m].make_dual(m.tensor(v, dtype=m.float64), m.tensor(t, dtype=m.float64))
                     for v, t in zip(values, tangents)]
            out = program(m, _functional(m), *duals)
            primal, tangent = fw[m].unpack_dual(out)
            got.append((_np(primal), _np(tangent)))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-8, atol=1e-10)


# -- the API ------------------------------------------------------------------------------------------
def _outcome(action):
    try:
        return action()
    except (RuntimeError, ValueError, TypeError, NotImplementedError, IndexError) as exc:
        return f"{type(exc).__name__}: {str(exc).split(' [autograd_lab]')[0]}".replace("torch.", "al.")


def _errors(m):
    f = fw[m]
    x = m.tensor([1.0, 2.0])
    outcomes = [_outcome(lambda: f.make_dual(x, m.ones(2)))]  # no level open
    with f.dual_level():
        outcomes.append(_outcome(lambda: f.make_dual(x, m.ones(3))))
        outcomes.append(_outcome(lambda: f.make_dual(m.tensor([1, 2]), m.tensor([1, 2]))))
        outcomes.append(_outcome(lambda: f.enter_dual_level()))
        dual = f.make_dual(x, m.ones(2))
        outcomes.append(_outcome(lambda: f.make_dual(dual, m.ones(2))))
        outcomes.append(_outcome(lambda: f.make_dual(x, m.ones(2), level=3)))  # not the open level
        outcomes.append(_outcome(lambda: f.unpack_dual(dual, level=3)))
    level = f.enter_dual_level()
    outcomes.append(_outcome(lambda: f.exit_dual_level(level=level + 5)))
    f.exit_dual_level(level=level)
    return outcomes


def test_api_errors_match_torch():
    ours, theirs = _errors(al), _errors(torch)
    assert ours == theirs
    assert ours[0].startswith("RuntimeError: Trying to create a dual Tensor for forward AD but no level exists")


def test_make_dual_and_unpack_dual_match_torch():
    for m in LIBS:
        f = fw[m]
        x, t = m.tensor([1.0, 2.0, 3.0]), m.tensor([0.5, 0.0, -1.0])
        with f.dual_level() as level:
            assert level == 0
            dual = f.make_dual(x, t)
            assert dual is not x and dual._base is x and not dual.requires_grad
            unpacked = f.unpack_dual(dual)
            assert type(unpacked).__name__ == "UnpackedDualTensor" and unpacked._fields == ("primal", "tangent")
            assert unpacked.tangent is t and unpacked.primal is not dual and unpacked.primal.tolist() == x.tolist()
            assert f.unpack_dual(x).tangent is None and f.unpack_dual(x).primal._base is x  # (a view, in a level)
            assert f.unpack_dual(dual.detach()).tangent is None  # detach drops the tangent
            with m.no_grad():  # grad mode does not turn forward mode off
                assert f.unpack_dual(dual.exp()).tangent is not None
            assert f.unpack_dual(dual.argmax()).tangent is None and f.unpack_dual(dual > 0).tangent is None
            view = dual[1:]
            assert f.unpack_dual(view).tangent._base is t  # a view's tangent is the same view of the tangent
            y = dual * 2
        assert f.unpack_dual(dual).tangent is None and f.unpack_dual(y).tangent is None  # the level dropped them
        assert f.unpack_dual(x).primal is x


def test_in_place_ops_update_tangents_as_in_torch():
    got = []
    for m in LIBS:
        f = fw[m]
        with f.dual_level():
            base = f.make_dual(m.tensor([1.0, 2.0, 3.0]), m.tensor([1.0, 1.0, 1.0]))
            base.mul_(2)
            plain = m.tensor([1.0, 1.0, 1.0])
            plain.mul_(base)  # a tensor without tangent written with a dual value gets one
            window = plain[1:]
            window.add_(f.make_dual(m.tensor([1.0, 1.0]), m.tensor([10.0, 20.0])))
            fresh = m.zeros(2, 3)  # a view of a tensor without tangent written with a dual value: both get one
            fresh[:, 1].copy_(f.make_dual(m.tensor([5.0, 6.0]), m.tensor([1.0, 2.0])))  # (it raised TypeError)
            got.append([f.unpack_dual(t).tangent.tolist() for t in (base, plain, window, fresh)])
    assert got[0] == got[1]


def _views_made_before_their_base_had_a_tangent(m):
    f = fw[m]
    early = m.zeros(4)
    outside = early[1:]  # made before any level was open
    with f.dual_level():
        dual = f.make_dual(m.tensor([5.0, 6.0]), m.tensor([1.0, 2.0]))
        y = m.zeros(4)
        a, b, c = y[:2], y[1:3], y.view(2, 2).t()
        a.copy_(dual)  # y, and every view of it, now carry a tangent
        early[:2].copy_(dual)
        primal = f.unpack_dual(dual * 1).primal  # (this view never takes its base's tangent)
        return [f.unpack_dual(t).tangent.tolist() for t in (b, c, b * 2, outside.exp() * 0 + outside)] + \
            [f.unpack_dual(primal).tangent, f.unpack_dual(primal * 2).tangent]


def test_a_view_made_before_its_base_had_a_tangent_reads_the_bases_as_torch():
    ours, theirs = _views_made_before_their_base_had_a_tangent(al), _views_made_before_their_base_had_a_tangent(torch)
    assert ours == theirs
    assert ours[0] == [2.0, 0.0] and ours[-2:] == [None, None]


def test_the_repr_of_a_dual_tensor_shows_its_tangent_as_torch():
    reprs = []
    for m in LIBS:
        with fw[m].dual_level():
            dual = fw[m].make_dual(m.tensor([1.0, 2.0]), m.tensor([0.5, 0.25]))
            reprs.append([repr(dual), repr(fw[m].make_dual(m.arange(6.0).reshape(2, 3), m.ones(2, 3)))])
    assert reprs[0] == reprs[1]


# -- custom Functions ----------------------------------------------------------------------------------
def _functions(m):
    class Scale(m.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.k = k
            return x.sin() * k

        @staticmethod
        def jvp(ctx, x_t, k_t):
            (x,) = ctx.saved_tensors
            return x_t * x.cos() * ctx.k

    class NoJvp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class TwoOutputs(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    class Dirty(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)  # (forward's own ops carry no tangent)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, x_t):
            x_t.mul_(2)
            return x_t
    return Scale, NoJvp, TwoOutputs, Dirty


def _custom(m):
    f = fw[m]
    scale, no_jvp, two, dirty = _functions(m)
    with f.dual_level():
        x = f.make_dual(m.tensor([0.5, 1.0], dtype=m.float64), m.tensor([1.0, -2.0], dtype=m.float64))
        results = [f.unpack_dual(scale.apply(x, 3.0)).tangent.tolist()]
        results.append(f.unpack_dual(scale.apply(m.tensor([0.5, 1.0]), 3.0)).tangent)  # no tangent in: none out
        results.append(_outcome(lambda: no_jvp.apply(x)))
        results.append(_outcome(lambda: two.apply(x)))
        y = f.make_dual(m.ones(2), m.ones(2))
        results.append(f.unpack_dual(dirty.apply(y)).tangent.tolist())
    return results


def test_custom_function_jvp_matches_torch():
    ours, theirs = _custom(al), _custom(torch)
    assert ours == theirs
    assert ours[2] == "NotImplementedError: You must implement the jvp function for custom autograd.Function to use it " \
                      "with forward mode AD."


# -- forward over reverse, functional.jvp, jacobian by columns ----------------------------------------
@pytest.mark.parametrize("create_graph", [True, False], ids=["create_graph", "plain"])
@pytest.mark.parametrize("expr", ["t.exp().sum()", "(t.tanh() * t).sum()", "(t.sigmoid() ** 2).mean()",
                                  "F.softmax(t, 0)[0]", "F.log_softmax(t, 0).sum() * t[1]",
                                  "(t * t[:1]).sum()"])
def test_forward_over_reverse_gives_hessian_vector_products_as_torch_func(expr, create_graph):
    """With or without create_graph: the backward pass computes on tensors while a dual level is open, so the
    gradient carries its tangent (PyTorch's grad gives it either way; the last expression undoes a broadcast)."""
    x, v = np.array([0.5, -1.0, 2.0]), np.array([1.0, -1.0, 0.5])
    with fw[al].dual_level():
        dual = fw[al].make_dual(al.tensor(x, requires_grad=True), al.tensor(v))
        (g,) = al.autograd.grad(eval(expr, {"t": dual, "F": al.nn.functional}), dual,  # noqa: S307
                                create_graph=create_graph)
        ours = fw[al].unpack_dual(g).tangent
        assert g.requires_grad == create_graph
    from torch.func import grad, jvp
    _, theirs = jvp(grad(lambda t: eval(expr, {"t": t, "F": torch.nn.functional})), (torch.tensor(x),),  # noqa: S307
                    (torch.tensor(v),))
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-10)


def test_grad_returns_a_grad_output_that_passes_straight_through_as_torch():
    for m in (al, torch):
        x, v = m.ones(2, requires_grad=True), m.full((2,), 3.0, requires_grad=True)
        y = x * 2
        (g,) = m.autograd.grad(y, y, v)
        assert g is v and g.requires_grad  # (no copy, no detach: as PyTorch's engine hands it back)


def test_functional_jvp_in_forward_mode_matches_torch_with_and_without_create_graph():
    def fn(m):
        return lambda a, b: (a.sin() * b, (a @ b.reshape(3, 1)).sum())
    for create_graph in (False, True):
        got = []
        for m in LIBS:
            a = m.tensor([[0.5, 1.0, -1.0]], dtype=m.float64, requires_grad=True)
            b = m.tensor([2.0, -0.5, 0.3], dtype=m.float64, requires_grad=True)
            va, vb = m.ones(1, 3, dtype=m.float64), m.tensor([0.1, 0.2, 0.3], dtype=m.float64)
            outputs, products = m.autograd.functional.jvp(fn(m), (a, b), (va, vb), create_graph=create_graph)
            assert all(p.requires_grad == create_graph for p in products)
            extra = m.autograd.grad(products[1], a)[0].tolist() if create_graph else None
            got.append(([_np(o) for o in outputs], [_np(p) for p in products], extra,
                        [type(o.grad_fn).__name__ for o in outputs]))  # (func's own outputs: MulBackward0, ...)
        for ours, theirs in zip(got[0][:2], got[1][:2]):
            for o, t in zip(ours, theirs):
                np.testing.assert_allclose(o, t, rtol=1e-12)
        if create_graph:
            np.testing.assert_allclose(got[0][2], got[1][2], rtol=1e-12)
        assert got[0][3] == got[1][3]


def test_functional_jvp_of_a_function_without_jvp_falls_back_to_double_backward():
    results = []
    for m in LIBS:
        _, no_jvp, _, _ = _functions(m)
        results.append(m.autograd.functional.jvp(no_jvp.apply, m.tensor([1.0, 2.0]), m.tensor([0.5, 1.0]))[1].tolist())
    assert results[0] == results[1] == [1.0, 2.0]


def test_jacobian_by_columns_uses_forward_mode_and_matches_torch():
    got = []
    for m in LIBS:
        x = m.tensor([0.5, 1.0, 2.0], dtype=m.float64)
        jac = m.autograd.functional.jacobian(lambda t: t.exp() * t[0], x, vectorize=True, strategy="forward-mode")
        hess = m.autograd.functional.hessian(lambda t: (t ** 3).sum() * t[1], x, vectorize=True,
                                             outer_jacobian_strategy="forward-mode")
        got.append((_np(jac), _np(hess)))
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


# -- is_grads_batched ----------------------------------------------------------------------------------------
def _batched(m):
    x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    z = m.tensor([1.0, 1.0, 1.0], requires_grad=True)
    y = x ** 2
    outcomes = [m.autograd.grad(y, x, m.eye(3), is_grads_batched=True, retain_graph=True)[0].tolist()]
    unused = m.autograd.grad(y, [x, z], m.eye(3)[:2], is_grads_batched=True, retain_graph=True, allow_unused=True)
    outcomes.append(unused[1])
    outcomes.append(m.autograd.grad(y, [x, z], m.eye(3), is_grads_batched=True, retain_graph=True,
                                    materialize_grads=True)[1].tolist())
    outcomes.append(m.autograd.grad(y.sum(), x, m.ones(4), is_grads_batched=True, retain_graph=True)[0].shape)
    outcomes.append(_outcome(lambda: m.autograd.grad(y, x, None, is_grads_batched=True, retain_graph=True)))
    outcomes.append(_outcome(lambda: m.autograd.grad(y.sum(), x, m.ones(()), is_grads_batched=True, retain_graph=True)))
    outcomes.append(_outcome(lambda: m.autograd.grad([y, y], x, [m.eye(3), m.eye(3)[:2]], is_grads_batched=True,
                                                     retain_graph=True)))
    mismatch = _outcome(lambda: m.autograd.grad(y, x, m.ones(2, 2), is_grads_batched=True, retain_graph=True))
    outcomes.append(mismatch.split(" but a mismatch was detected")[0])
    (first,) = m.autograd.grad(y, x, m.eye(3), is_grads_batched=True)  # retain_graph not given: the graph is freed
    outcomes.append(first.tolist())
    outcomes.append(_outcome(lambda: m.autograd.grad(y, x, m.eye(3), is_grads_batched=True)))
    return outcomes


def test_is_grads_batched_matches_torch():
    ours, theirs = _batched(al), _batched(torch)
    assert [tuple(o) if isinstance(o, tuple) else o for o in ours] == [tuple(o) if isinstance(o, tuple) else o
                                                                    for o in theirs]
