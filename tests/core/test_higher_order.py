"""Gradients of gradients, beyond what ``test_ops_gradcheck.py`` covers.

That file runs ``gradcheck`` and ``gradgradcheck`` on every op on generated shapes. Here:

* third derivatives of every op family, against PyTorch and against finite differences of the
  second derivative (``gradgradcheck`` of the gradient map);
* ``create_graph`` through chains of views and through indexing, where the backward formulas are
  themselves views/scatters that must be differentiable;
* mixed second derivatives (d/dy of a gradient with respect to x) and gradients with respect to the
  incoming gradient (``grad_outputs``);
* Hessian-vector products, Newton steps and gradient penalties (the gradient of a norm of a gradient),
  against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import functional as F
from autograd_lab.autograd import gradgradcheck

torch = pytest.importorskip("torch")

rng = np.random.default_rng(2024)


def uniform(shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


def leaves(lib, arrays):
    if lib is al:
        return [al.tensor(a, dtype=al.float64, requires_grad=True) for a in arrays]
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]


def grad_or_zeros(lib, scalar, inputs, create_graph):
    """Gradients of ``scalar``; zeros where an input is unused or when ``scalar`` is a constant."""
    if not scalar.requires_grad:
        return [lib.zeros_like(t) for t in inputs]
    grads = lib.autograd.grad(scalar, inputs, create_graph=create_graph, allow_unused=True)
    return [lib.zeros_like(t) if g is None else g for g, t in zip(grads, inputs)]


def derivatives(lib, fn, arrays, weights, order=3):
    """First to ``order``-th directional derivatives: each order contracts the previous gradients
    with fixed weights, so d^k f is compared through ``sum_i <w_i, grad_i>``."""
    xs = leaves(lib, arrays)
    out = fn(*xs)
    scalar = (out * lib.tensor(weights[0], dtype=lib.float64)).sum()
    found = []
    for k in range(1, order + 1):
        grads = grad_or_zeros(lib, scalar, xs, create_graph=k < order)
        found.append([g.detach().numpy().copy() for g in grads])
        if k < order:
            scalar = sum((g * lib.tensor(w, dtype=lib.float64)).sum() for g, w in zip(grads, weights[k]))
    return found


def compare_with_torch(fn, arrays, order=3, rtol=1e-9, atol=1e-10):
    out_shape = fn(*leaves(torch, arrays)).shape
    weights = [uniform(tuple(out_shape))] + [[uniform(np.shape(a)) for a in arrays] for _ in range(order - 1)]
    ours = derivatives(al, fn, arrays, weights, order)
    theirs = derivatives(torch, fn, arrays, weights, order)
    for k, (mine, expected) in enumerate(zip(ours, theirs), start=1):
        for i, (a, b) in enumerate(zip(mine, expected)):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"derivative of order {k}, input {i}")


def positive(shape):
    return uniform(shape, 0.4, 2.0)


def distinct(shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.3 - n * 0.15 + rng.uniform(0, 0.03, n)).reshape(shape)


# name: (function written with methods both libraries share, input arrays)
POINTWISE = {
    "exp": (lambda x: x.exp(), [uniform((2, 3))]),
    "log": (lambda x: x.log(), [positive((2, 3))]),
    "log1p": (lambda x: x.log1p(), [positive((4,))]),
    "sqrt": (lambda x: x.sqrt(), [positive((4,))]),
    "rsqrt": (lambda x: x.rsqrt(), [positive((4,))]),
    "reciprocal": (lambda x: x.reciprocal(), [positive((4,))]),
    "sin_cos": (lambda x: x.sin() * x.cos(), [uniform((3,))]),
    "tan": (lambda x: x.tan(), [uniform((4,))]),
    "tanh": (lambda x: x.tanh(), [uniform((2, 2), -2, 2)]),
    "sigmoid": (lambda x: x.sigmoid(), [uniform((5,), -3, 3)]),
    "pow_scalar": (lambda x: x ** 3 + x ** 2.5 + x ** -1.5, [positive((4,))]),
    "pow_tensor": (lambda x, y: x ** y, [positive((3, 1)), uniform((4,), -2, 2)]),
    "scalar_base": (lambda x: 2.0 ** x, [uniform((3,))]),
    "div_broadcast": (lambda x, y: x / y, [uniform((2, 3)), positive((3,))]),
    "mul_add_sub": (lambda x, y: (x * y - y * 2 + x) * x, [uniform((3,)), uniform((2, 3))]),
    "abs_relu_clamp": (lambda x: x.abs() * x.relu() + x.clamp(-0.5, 0.5) ** 3 * x,  # values away from the kinks
                       [np.array([0.7, -0.8, 1.3, -1.4, 0.2, -0.3])]),
    "maximum_where": (lambda x, y: x.maximum(y) * x + y.minimum(x) ** 2, [uniform((4,), -1, -0.2), uniform((4,), 0.2, 1)]),
    "square_neg": (lambda x: (-x).square() * x, [uniform((3,))]),
}
REDUCTIONS = {
    "sum_mean": (lambda x: (x.sum(1) * x.mean(0).sum()) ** 2, [uniform((2, 3))]),
    "prod": (lambda x: x.prod(), [uniform((4,), 0.5, 1.5)]),
    "prod_dim": (lambda x: x.prod(1, keepdim=True) * x, [uniform((2, 3), 0.5, 1.5)]),
    "var_std": (lambda x: x.var(0) * x.std(1, keepdim=True), [uniform((3, 4))]),
    "logsumexp": (lambda x: x.logsumexp(1) ** 2, [uniform((2, 4), -2, 2)]),
    "norm": (lambda x: x.norm() * x.norm(dim=1).sum(), [uniform((2, 3))]),
    "max_min": (lambda x: x.max() * x ** 2 + x.min(1).values.exp().sum(), [distinct((2, 3))]),
    "amax": (lambda x: x.amax(0).sin(), [distinct((3, 2))]),
}
LINALG = {
    "matmul_chain": (lambda a, b, c: (a @ b).tanh() @ c, [uniform((2, 3)), uniform((3, 4)), uniform((4,))]),
    "batched_matmul": (lambda a, b: (a @ b).exp(), [uniform((2, 2, 3)), uniform((3, 2))]),
    "quadratic_form": (lambda a, x: (x @ (a @ x)).sin(), [uniform((3, 3)), uniform((3,))]),
    "mm_mv_dot_outer": (lambda a, x: (a.t().mm(a).mv(x).dot(x.exp()) * x.outer(x)).sin(),
                        [uniform((2, 3)), uniform((3,))]),
    "bmm": (lambda a, b: a.bmm(b).tanh(), [uniform((2, 2, 3)), uniform((2, 3, 2))]),
}
SHAPE = {
    "transpose_reshape": (lambda x: x.t().reshape(-1).exp() * x.reshape(6).flip(0), [uniform((2, 3))]),
    "permute_view": (lambda x: x.permute(2, 0, 1).contiguous().view(4, 3).sin() ** 2, [uniform((3, 2, 2))]),
    "expand_squeeze": (lambda x: x.unsqueeze(0).expand(3, 2, 1).squeeze(-1).tanh() * x.sum(), [uniform((2, 1))]),
    "cat": (lambda x, y: lib_of(x).cat([x * y.sum(), y.exp(), x]).tanh() ** 2, [uniform((3,)), uniform((2,))]),
    "stack": (lambda x, y: lib_of(x).stack([x * y, x.flip(0)], 1).sin() * y.sum(), [uniform((3,)), uniform((3,))]),
    "split_unbind": (lambda x: x.split(2, 1)[0].exp() * x.unbind(1)[2].unsqueeze(1) ** 2, [uniform((2, 3))]),
    "narrow_select_diagonal": (lambda x: x.narrow(0, 1, 2).sin() * x.select(1, 0) + x.diagonal().exp(),
                               [uniform((3, 3))]),
    "repeat": (lambda x: x.repeat(2, 1) ** 3, [uniform((1, 3))]),
    "chunk": (lambda x: x.chunk(2, 0)[1].exp() * x.chunk(2, 0)[0], [uniform((4, 2))]),
}
INDEXING = {
    "basic_slices": (lambda x: x[1:, ::2].exp() * x[0, :2].sin(), [uniform((3, 4))]),
    "none_ellipsis": (lambda x: x[None, ..., 1] ** 3, [uniform((2, 3))]),
    "repeated_indices": (lambda x: x[[0, 2, 2, 0]].exp() * x[[1, 1, 1, 0]], [uniform((3,))]),
    "two_arrays": (lambda x: x[[0, 1, 1], [2, 2, 0]].tanh() ** 2, [uniform((2, 3))]),
    "boolean_mask": (lambda x: x[x.detach() > 0] ** 3, [np.array([0.5, -0.3, 0.8, -0.9, 0.2])]),
    "gather": (lambda x: x.gather(1, IDX(x)).exp() * x.sum(), [uniform((2, 3))]),
    "scatter_add": (lambda x, s: x.scatter_add(1, IDX(x), s).sin(), [uniform((2, 3)), uniform((2, 3))]),
}


def lib_of(tensor):
    """``al`` or ``torch``, whichever made ``tensor`` (for functions such as cat that are not methods)."""
    return al if isinstance(tensor, al.Tensor) else torch


def IDX(like):
    """The same int64 index tensor in the library of ``like``."""
    return lib_of(like).tensor(np.array([[0, 2, 2], [1, 1, 0]]))


FAMILIES = {"pointwise": POINTWISE, "reductions": REDUCTIONS, "linalg": LINALG, "shape": SHAPE, "indexing": INDEXING}
CASES = [(family, name) for family, table in FAMILIES.items() for name in sorted(table)]


@pytest.mark.parametrize("family,name", CASES, ids=[f"{f}-{n}" for f, n in CASES])
def test_third_derivatives_match_torch(family, name):
    fn, arrays = FAMILIES[family][name]
    compare_with_torch(fn, arrays, order=3)


@pytest.mark.parametrize("family,name", CASES, ids=[f"{f}-{n}" for f, n in CASES])
def test_third_derivatives_against_finite_differences(family, name):
    """``gradgradcheck`` of the gradient map x -> grad <w, f(x)>: its second derivatives are f's third."""
    fn, arrays = FAMILIES[family][name]
    xs = leaves(al, arrays)
    weight = al.tensor(uniform(tuple(fn(*xs).shape)), dtype=al.float64)

    def gradient(*inputs):
        return al.autograd.grad((fn(*inputs) * weight).sum(), inputs, create_graph=True, allow_unused=True,
                                materialize_grads=True)

    assert gradgradcheck(gradient, xs)


def test_derivatives_of_sin_cycle_to_the_sixth_order():
    x = al.tensor([0.3, -1.2, 2.0], dtype=al.float64, requires_grad=True)
    value = x.sin().sum()
    expected = [np.cos, lambda v: -np.sin(v), lambda v: -np.cos(v), np.sin, np.cos, lambda v: -np.sin(v)]
    for order, formula in enumerate(expected, start=1):
        (g,) = al.autograd.grad(value, x, create_graph=True)
        np.testing.assert_allclose(g.detach().numpy(), formula(x.detach().numpy()), rtol=1e-12, err_msg=f"order {order}")
        value = g.sum()


def test_polynomial_derivatives_end_in_constants():
    """d^k/dx^k x^5 = 5!/(5-k)! x^(5-k); the fifth is the constant 120."""
    x = al.tensor(1.5, dtype=al.float64, requires_grad=True)
    value = x ** 5
    for k in range(1, 6):
        (value,) = al.autograd.grad(value, x, create_graph=True)
        coefficient = np.prod(range(5 - k + 1, 6))
        assert value.item() == pytest.approx(coefficient * 1.5 ** (5 - k), rel=1e-12)
    assert value.item() == 120.0


# -- create_graph through views and indexing -------------------------------------------------
VIEW_CHAINS = {  # each output is a view (or an index) of a function of x; its backward must be differentiable
    "view_of_view": lambda x: (x ** 3).t()[1:].reshape(-1)[::2],
    "diagonal_of_transpose": lambda x: (x.exp() * x).transpose(0, 1).diagonal(1),
    "select_narrow_unsqueeze": lambda x: (x.sin() * x).narrow(1, 1, 2).select(0, 1).unsqueeze(0),
    "expand_then_index": lambda x: (x ** 2)[:, :1].expand(3, 4)[[0, 2, 2]],
    "unbind_split": lambda x: (x.tanh() * x).unbind(0)[2].split(3)[0],
    "advanced_then_basic": lambda x: (x ** 3)[[2, 0, 2]][:, 1:3].t(),
    "mask_then_view": lambda x: (x.exp() * x)[x.detach() > 0].reshape(1, -1),
}
X34 = np.array([[0.5, -0.4, 0.9, 0.2], [-0.7, 0.3, 0.6, -0.1], [0.8, 0.25, -0.35, 0.45]])


@pytest.mark.parametrize("name", sorted(VIEW_CHAINS))
def test_create_graph_through_views_and_indexing(name):
    compare_with_torch(VIEW_CHAINS[name], [X34], order=3)


@pytest.mark.parametrize("name", sorted(VIEW_CHAINS))
def test_gradient_with_respect_to_grad_outputs_through_views(name):
    """The gradient is linear in the incoming gradient v: d/dv <grad(<f, v>), u> matches PyTorch."""
    fn = VIEW_CHAINS[name]
    results = []
    u = uniform(X34.shape)
    v_values = uniform(tuple(fn(leaves(torch, [X34])[0]).shape))
    for lib in (al, torch):
        (x,) = leaves(lib, [X34])
        (v,) = leaves(lib, [v_values])
        (g,) = lib.autograd.grad(fn(x), x, v, create_graph=True)
        dv, dx = lib.autograd.grad((g * lib.tensor(u, dtype=lib.float64)).sum(), (v, x), allow_unused=True)
        results.append((dv.numpy(), None if dx is None else dx.numpy()))
    (ours_dv, ours_dx), (theirs_dv, theirs_dx) = results
    np.testing.assert_allclose(ours_dv, theirs_dv, rtol=1e-12)
    if theirs_dx is None:
        assert ours_dx is None or not ours_dx.any()
    else:
        np.testing.assert_allclose(ours_dx, theirs_dx, rtol=1e-12)


# -- mixed derivatives -----------------------------------------------------------------------------
def test_mixed_second_derivatives_match_torch_and_are_symmetric():
    """d/dy (df/dx . u) equals d/dx (df/dy . w) contracted the other way (Schwarz), and PyTorch's values."""
    x_values, y_values = uniform((3,)), uniform((2, 3))
    u, w = uniform((3,)), uniform((2, 3))

    def f(x, y):
        return ((y @ x).tanh() * (y * x).exp().sum(1)).sum() + (x ** 2).prod() * y.sum()

    found = {}
    for lib in (al, torch):
        x, y = leaves(lib, [x_values, y_values])
        gx, gy = lib.autograd.grad(f(x, y), (x, y), create_graph=True)
        (d_y_of_gx,) = lib.autograd.grad((gx * lib.tensor(u, dtype=lib.float64)).sum(), y, retain_graph=True)
        (d_x_of_gy,) = lib.autograd.grad((gy * lib.tensor(w, dtype=lib.float64)).sum(), x)
        found[lib.__name__] = (d_y_of_gx.numpy(), d_x_of_gy.numpy())
    ours, theirs = found["autograd_lab"], found["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)
    # <w, d_y(<u, g_x>)> and <u, d_x(<w, g_y>)> are both u^T (d2f/dxdy) w
    assert np.sum(ours[0] * w) == pytest.approx(np.sum(ours[1] * u), rel=1e-10)


def test_mixed_block_of_the_hessian_equals_nested_grads():
    x_values, y_values = uniform((2,)), uniform((3,))

    def f(x, y):
        return (x.outer(y).sin() * y).sum() * x.exp().sum()

    x, y = leaves(al, [x_values, y_values])
    hxy = F.hessian(f, (x.detach(), y.detach()))[0][1]
    (gx,) = al.autograd.grad(f(x, y), x, create_graph=True)
    rows = [al.autograd.grad(gx[i], y, retain_graph=True)[0] for i in range(2)]
    np.testing.assert_allclose(hxy.numpy(), al.stack(rows).numpy(), rtol=1e-12)


# -- Hessian-vector products and Newton's method ------------------------------------------------
def mlp_loss(w1, w2, x, target):
    hidden = (x @ w1).tanh()
    return ((hidden @ w2 - target) ** 2).mean()


def test_hessian_vector_product_by_double_backward_matches_torch():
    arrays = [uniform((3, 4)), uniform((4, 2))]
    data = [uniform((5, 3)), uniform((5, 2))]
    vectors = [uniform((3, 4)), uniform((4, 2))]
    found = []
    for lib in (al, torch):
        params = leaves(lib, arrays)
        x, target = (lib.tensor(d, dtype=lib.float64) for d in data)
        grads = lib.autograd.grad(mlp_loss(*params, x, target), params, create_graph=True)
        dot = sum((g * lib.tensor(v, dtype=lib.float64)).sum() for g, v in zip(grads, vectors))
        found.append([h.numpy() for h in lib.autograd.grad(dot, params)])
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    # the same through autograd.functional.hvp
    inputs = tuple(al.tensor(a, dtype=al.float64) for a in arrays)
    x, target = (al.tensor(d, dtype=al.float64) for d in data)
    _, hv = F.hvp(lambda a, b: mlp_loss(a, b, x, target), inputs, tuple(al.tensor(v, dtype=al.float64) for v in vectors))
    for ours, theirs in zip(hv, found[1]):
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-10, atol=1e-12)


def test_newton_steps_match_torch_and_reach_the_minimum():
    """Newton's method on a smooth convex function, with the Hessian from autograd_lab."""
    def f(z):
        return (z[0] - 1) ** 4 + (z[0] - 1) ** 2 + (z[1] + 0.5) ** 2 + (z[0] * z[1]).exp()

    points = {}
    for lib in (al, torch):
        z = lib.tensor([0.3, 0.2], dtype=lib.float64)
        functional = F if lib is al else torch.autograd.functional
        for _ in range(8):
            g = functional.jacobian(f, z)
            h = functional.hessian(f, z)
            step = np.linalg.solve(h.numpy(), g.numpy())
            z = z - lib.tensor(step, dtype=lib.float64)
        points[lib.__name__] = z.numpy()
    np.testing.assert_allclose(points["autograd_lab"], points["torch"], rtol=1e-10)
    z = al.tensor(points["autograd_lab"], dtype=al.float64)
    assert np.abs(F.jacobian(f, z).numpy()).max() < 1e-10


# -- gradient penalties ---------------------------------------------------------------------------
def critic(w1, w2, x):
    return (x @ w1).tanh() @ w2


def test_gradient_penalty_matches_torch():
    """WGAN-GP: penalise ||d critic / d x|| - 1 per sample, and train the weights through that gradient."""
    weights, samples = [uniform((3, 5)), uniform((5, 1))], uniform((4, 3))
    found = []
    for lib in (al, torch):
        w1, w2 = leaves(lib, weights)
        x = lib.tensor(samples, dtype=lib.float64, requires_grad=True)
        (gx,) = lib.autograd.grad(critic(w1, w2, x).sum(), x, create_graph=True)
        penalty = ((gx.norm(dim=1) - 1) ** 2).mean()
        grads = lib.autograd.grad(penalty, (w1, w2, x))
        found.append([penalty.item()] + [g.numpy() for g in grads])
    assert found[0][0] == pytest.approx(found[1][0], rel=1e-12)
    for ours, theirs in zip(found[0][1:], found[1][1:]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_gradient_penalty_with_backward_create_graph_matches_torch():
    """The same through ``.backward(create_graph=True)`` and ``x.grad`` (with PyTorch's warning)."""
    weights, samples = [uniform((3, 2)), uniform((2, 1))], uniform((3, 3))
    found = []
    for lib in (al, torch):
        w1, w2 = leaves(lib, weights)
        x = lib.tensor(samples, dtype=lib.float64, requires_grad=True)
        with pytest.warns(UserWarning, match="create_graph=True"):
            critic(w1, w2, x).sum().backward(create_graph=True)
        assert x.grad.requires_grad
        gx = x.grad
        for t in (w1, w2, x):
            t.grad = None  # break the parameter <-> gradient cycle before the second backward
        (gx.pow(2).sum(1).sqrt().sum()).backward()
        found.append([t.grad.numpy() for t in (w1, w2, x)])
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_gradient_of_the_gradient_norm_via_hvp_identity():
    """d/dx ||grad f||^2 / 2 = H grad f: a gradient penalty is a Hessian-vector product."""
    x_values = uniform((4,))

    def f(x):
        return (x.sin() * x.flip(0) + x.exp().sum() * x).sum()

    (x,) = leaves(al, [x_values])
    (g,) = al.autograd.grad(f(x), x, create_graph=True)
    (penalty_grad,) = al.autograd.grad((g ** 2).sum() / 2, x)
    _, hv = F.hvp(f, x.detach(), g.detach())
    np.testing.assert_allclose(penalty_grad.numpy(), hv.numpy(), rtol=1e-12)
