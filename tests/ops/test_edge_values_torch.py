"""Edge values the differential fuzzer (tests/fuzz) found where autograd_lab differed from PyTorch, fixed and
checked here against PyTorch itself: values and gradients bit for bit where it matters (the sign of a zero,
NaN against an infinity), on grids of 0, -0.0, infinities, NaN and ordinary numbers."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

NAN, INF = float("nan"), float("inf")
EDGES = [INF, -INF, NAN, 0.0, -0.0, 1.5, -1.5, 9.0, -0.3, 3.0, 0.7, 0.25]


def same_bits(ours, theirs) -> None:
    """Equal values, NaNs in the same places, zeros and infinities with the same sign."""
    a, b = np.asarray(ours.detach().tolist(), float), np.asarray(theirs.detach().tolist(), float)
    assert a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    both = ~np.isnan(a)
    np.testing.assert_array_equal(a[both], b[both])
    np.testing.assert_array_equal(np.signbit(a[both]), np.signbit(b[both]))


def in_both(fn, *values, requires_grad=True):
    """``fn(M, *tensors)`` in each library; returns the results and the gradients of their sum (ours first)."""
    out = []
    for m in (al, torch):
        xs = [m.tensor(v, dtype=m.float64, requires_grad=requires_grad) for v in values]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(m, *xs)
            grads = m.autograd.grad(y.sum(), xs, allow_unused=True) if requires_grad else ()
        out.append((y, grads))
    return out


def grid():
    pairs = list(itertools.product(EDGES, EDGES))
    return [a for a, _ in pairs], [b for _, b in pairs]


@pytest.mark.parametrize("name,fn", [
    ("floor_divide", lambda m, a, b: a // b),
    ("div floor", lambda m, a, b: a.div(b, rounding_mode="floor")),
    ("div trunc", lambda m, a, b: a.div(b, rounding_mode="trunc")),
    ("remainder", lambda m, a, b: a % b),
    ("fmod", lambda m, a, b: m.fmod(a, b)),
])
def test_rounded_division_and_remainder_match_torch_on_edge_values(name, fn):
    """9.0 // -0.3 is -31 (the quotient rounds up to -30.0), inf // 2 is NaN, -1.5 % 1.5 is -0.0."""
    (ours, _), (theirs, _) = in_both(fn, *grid(), requires_grad=False)
    same_bits(ours, theirs)


def test_the_remainder_gradient_matches_torch():
    (ours, our_grads), (theirs, their_grads) = in_both(lambda m, a, b: a % b, [9.0, -1.5, 5.0], [-0.3, 1.5, 0.7])
    same_bits(ours, theirs)
    for g, h in zip(our_grads, their_grads):
        same_bits(g, h)


def test_fmod_and_its_gradients_match_torch():
    """fmod keeps the dividend's sign (remainder takes the divisor's); d/d other is -trunc(self / other)."""
    (ours, our_grads), (theirs, their_grads) = in_both(lambda m, a, b: m.fmod(a, b), [9.0, -1.5, 5.0, -7.5],
                                                        [-0.3, 1.5, 0.7, 2.0])
    same_bits(ours, theirs)
    for g, h in zip(our_grads, their_grads):
        same_bits(g, h)
    for m in (al, torch):  # a number divisor: FmodBackward0, and an integer tensor turns float as in PyTorch
        x = m.tensor([-5.0, 5.0, 7.5], dtype=m.float64, requires_grad=True)
        y = x.fmod(-2.0)
        assert type(y.grad_fn).__name__ == "FmodBackward0"
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0] and y.tolist() == [-1.0, 1.0, 1.5]
        assert m.fmod(m.tensor([5, -5]), 2.5).dtype == m.float32


def test_integer_fmod_by_zero_raises_as_in_torch():
    for m in (al, torch):
        with pytest.raises((RuntimeError, ZeroDivisionError), match="ZeroDivisionError"):
            m.fmod(m.tensor([5, -5]), 0)


def test_rounded_division_has_a_zero_gradient_even_where_the_incoming_one_is_not_finite():
    for mode in ("floor", "trunc"):
        grads = []
        for m in (al, torch):
            x = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
            c = m.tensor([0.5, 0.5, 0.5], dtype=m.float64, requires_grad=True)
            x.div(c, rounding_mode=mode).backward(m.tensor([INF, NAN, 1.0], dtype=m.float64))
            grads.append((x.grad, c.grad))
        same_bits(grads[0][0], grads[1][0])
        same_bits(grads[0][1], grads[1][1])


@pytest.mark.parametrize("exponent", [0.5, -0.5, 1.5, 2, 3, -1, -2])
def test_pow_with_a_number_exponent_matches_torch_at_infinities_and_zeros(exponent):
    """PyTorch computes x ** -0.5 as rsqrt (NaN at -inf), as x ** 0.5 is sqrt."""
    values = [-INF, -4.0, -0.0, 0.0, 4.0, INF, NAN]
    (ours, (g,)), (theirs, (h,)) = in_both(lambda m, x: x.pow(exponent), values)
    same_bits(ours, theirs)
    same_bits(g, h)


@pytest.mark.parametrize("exponent", [0.5, 1.5, -0.5, [0.5] * 7])
def test_pow_with_a_tensor_exponent_is_c_pow_even_for_one_value_of_one_half(exponent):
    values = [-INF, -4.0, -0.0, 0.0, 4.0, INF, 2.0]
    (ours, grads), (theirs, their_grads) = in_both(lambda m, x, e: x ** e, values, exponent)
    same_bits(ours, theirs)
    same_bits(grads[0], their_grads[0])


def test_pow_exponent_gradient_keeps_a_nan_arriving_where_the_base_is_zero():
    """PyTorch multiplies the gradient by the masked factor, so 0 * NaN stays NaN; and so does the second
    derivative at x = 0 of sum(x ** p) with respect to p."""
    for base_is_tensor in (True, False):
        grads = []
        for m in (al, torch):
            e = m.tensor([0.0, 2.0, -1.0], dtype=m.float64, requires_grad=True)
            x = m.tensor([0.0, 0.0, 2.0], dtype=m.float64, requires_grad=True)
            y = x ** e if base_is_tensor else 0.0 ** e
            y.backward(m.tensor([NAN, 1.0, 1.0], dtype=m.float64))
            grads.append(e.grad)
        same_bits(*grads)
    second = []
    for m in (al, torch):
        x = m.tensor([0.0, 2.0], dtype=m.float64, requires_grad=True)
        p = m.tensor(3.0, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad((x ** p).sum(), [p], create_graph=True)
        second.append(m.autograd.grad(g, [p])[0])
    same_bits(*second)


def test_division_gradient_for_the_divisor_is_torchs_formula_at_infinity():
    """-grad * ((self / other) / other): no other * other, whose derivative at inf multiplies 0 by inf."""
    results = []
    for m in (al, torch):
        a = m.tensor([2.0, 3.0], dtype=m.float64, requires_grad=True)
        b = m.tensor([INF, 1e200], dtype=m.float64, requires_grad=True)
        (gb,) = m.autograd.grad((a / b).sum(), [b], create_graph=True)
        results.append((gb, m.autograd.grad(gb.sum(), [b])[0]))
    same_bits(results[0][0], results[1][0])
    same_bits(results[0][1], results[1][1])


def test_sign_of_nan_is_zero_and_abs_has_a_zero_gradient_there():
    (ours, (g,)), (theirs, (h,)) = in_both(lambda m, x: x.sign() + x.abs(), [NAN, -0.0, 0.0, -2.0, 3.0])
    same_bits(ours, theirs)
    same_bits(g, h)
    assert al.sign(al.tensor([True, False])).tolist() == torch.sign(torch.tensor([True, False])).tolist()


@pytest.mark.parametrize("values", [[0.0, 0.25, 0.0, NAN, 2.0, INF], [0.0, 0.25, NAN, 2.0], [1.0, -2.0, 0.5], 0.0, NAN])
def test_prod_gradient_matches_torch_with_zeros_nans_and_0_dim(values):
    """Two zeros or more: every other-product holds a zero, so the gradient is 0 whatever else is there (outside
    create_graph, as PyTorch); a 0-dim input's gradient is the incoming one."""
    (ours, (g,)), (theirs, (h,)) = in_both(lambda m, x: x.prod(), values)
    same_bits(ours, theirs)
    same_bits(g, h)
    (_, (g,)), (_, (h,)) = in_both(lambda m, x: x.prod(0), values)
    same_bits(g, h)


def test_transpose_of_a_0_dim_tensor_is_itself():
    (ours, (g,)), (theirs, (h,)) = in_both(lambda m, x: x.transpose(0, -1) * 3, 2.0)
    same_bits(ours, theirs)
    same_bits(g, h)


def test_a_product_of_one_element_pair_is_plus_zero():
    (ours, _), (theirs, _) = in_both(lambda m, a, b: m.dot(a, b), [0.0], [-1.5])
    same_bits(ours, theirs)


@pytest.mark.parametrize("left,right", [((3,), (3, 2)), ((3,), (2, 3, 2))])
def test_matmul_of_a_vector_returns_no_view_and_keeps_its_hooks(left, right):
    """The result is matmul's own tensor: its _base is None, and a hook registered on it before an in-place
    write still scales the gradient of its old value, as in PyTorch."""
    grads = []
    for m in (al, torch):
        x = m.tensor(np.arange(1.0, 1.0 + np.prod(left)).reshape(left).tolist(), dtype=m.float64, requires_grad=True)
        y = m.matmul(x, m.ones(right, dtype=m.float64))
        assert y._base is None
        y.register_hook(lambda g: g * 0.5)
        y[0] = m.tensor(5.0, dtype=m.float64)
        (y * 3).sum().backward()
        grads.append(x.grad)
    same_bits(*grads)


@pytest.mark.parametrize("fn", [
    lambda m, x: x.clamp(min=0.0), lambda m, x: x.clamp(max=-0.0), lambda m, x: x.clamp(-0.0, 0.0),
    lambda m, x: m.clamp(x, min=m.zeros(3, dtype=m.float64)), lambda m, x: m.clamp(x, max=-m.zeros(3, dtype=m.float64)),
])
def test_clamp_keeps_the_input_on_a_tie_so_a_negative_zero_stays(fn):
    (ours, _), (theirs, _) = in_both(fn, [-0.0, 0.0, NAN], requires_grad=False)
    same_bits(ours, theirs)


@pytest.mark.parametrize("m,k,n", [(3, 1, 1), (1, 1, 3), (1, 1, 1), (3, 2, 1), (4, 1, 2)])
@pytest.mark.parametrize("special", [NAN, INF])
def test_a_nan_or_inf_times_zero_in_a_matrix_product_is_nan(m, k, n, special):
    """OpenBLAS's dot with an inner size of 1 scales by the 1x1 side and skips it when it is 0, which drops
    0 * NaN and 0 * inf; mm keeps them NaN, as PyTorch does, in the forward and in the gradients."""
    for zeros_left in (True, False):
        left, right = np.ones((m, k)), np.ones((k, n))
        (left if zeros_left else right)[...] = 0.0
        (right if zeros_left else left)[0, 0] = special
        for fn in (lambda M, a, b: a.mm(b), lambda M, a, b: M.addmm(M.zeros(n, dtype=M.float64) + 0.5, a, b)):
            (ours, grads), (theirs, their_grads) = in_both(fn, left.tolist(), right.tolist())
            same_bits(ours, theirs)
            for g, h in zip(grads, their_grads):
                same_bits(g, h)


@pytest.mark.parametrize("join", [lambda m, xs: m.cat(xs, 0), lambda m, xs: m.cat(xs, 1), lambda m, xs: m.stack(xs)])
def test_cat_and_stack_of_transposed_tensors_are_contiguous_as_in_torch(join):
    """NumPy keeps the column-major layout of transposed inputs; PyTorch's result is contiguous, so view works."""
    results = []
    for m in (al, torch):
        x = m.arange(6.0, dtype=m.float64).reshape(2, 3).t()
        out = join(m, [x, x * 2])
        results.append((out.is_contiguous(), out.view(-1).tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize("op", [lambda m, x: x.masked_fill(x > 2, 0.0),
                                lambda m, x: x.masked_fill(x > 2, m.tensor(0.5, dtype=m.float64)),
                                lambda m, x: x.softmax(0), lambda m, x: x.log_softmax(1)],
                         ids=["masked_fill", "masked_fill_tensor", "softmax", "log_softmax"])
def test_ops_whose_torch_kernel_makes_a_contiguous_result_do_so_here(op):
    """masked_fill clones its input contiguous and softmax runs on a contiguous copy in PyTorch: a view of the result
    (flatten) then shares its memory, and an in-place change through it reaches the result (the fuzzer found ours
    following the transposed input's layout, where flatten copied: seed 10016722)."""
    results = []
    for m in (al, torch):
        x = m.arange(6.0, dtype=m.float64).reshape(2, 3).t()
        out = op(m, x)
        flat = out.flatten()
        flat.mul_(2.0)
        results.append((out.is_contiguous(), flat._base is out, np.array(out.tolist())))
    (*ours, values), (*theirs, their_values) = results
    assert ours == theirs
    np.testing.assert_allclose(values, their_values, rtol=1e-15)



@pytest.mark.parametrize("op", ["relu", "exp", "neg"])
def test_an_op_on_an_expanded_input_gives_a_row_major_result_as_torch(op):
    """(relu's zeros took NumPy's zeros_like layout, column-major for a zero stride: view then failed where PyTorch's
    succeeds, fuzzer seed 11087671)"""
    results = []
    for m in (al, torch):
        out = getattr(m.tensor([-1.5, 2.0, -0.5], dtype=m.float64).expand(2, 3), op)()
        results.append((out.is_contiguous(), out.view(6).tolist()))
    assert results[0] == results[1]

def test_those_ops_keep_a_0_dim_input_0_dim():
    for m in (al, torch):
        x = m.tensor(1.0, dtype=m.float64)
        assert x.masked_fill(m.tensor(True), 0.5).shape == () and x.softmax(0).shape == ()
        assert x.clone().masked_fill_(m.tensor(True), 0.5).tolist() == 0.5

@pytest.mark.parametrize("left,right", [((3,), (2, 3, 2)), ((2, 3), (2, 3, 2)), ((1, 3), (2, 3, 3))], ids=str)
@pytest.mark.parametrize("grads", [(True, False), (False, True), (True, True)], ids=str)
def test_matmul_folds_a_batch_when_torch_does(left, right, grads):
    """PyTorch folds other's batch into rows of its transpose when the smaller input needs grad (should_fold):
    the same nodes are recorded, the result is a view where PyTorch's is, and a write into other after the
    product raises where PyTorch's saved other does (and not where it saved a folded copy)."""
    seen = []
    for m in (al, torch):
        x = m.ones(left, dtype=m.float64, requires_grad=grads[0])
        y = m.ones(right, dtype=m.float64, requires_grad=grads[1])
        z = m.matmul(x, y)
        with m.no_grad():
            y.mul_(2.0)
        try:
            z.sum().backward()
            raised = False
        except RuntimeError:
            raised = True
        seen.append((z.grad_fn.name(), z._base is not None, raised))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("fn", [lambda m, x: x.std(1), lambda m, x: x.var(1), lambda m, x: m.std_mean(x, 1)[0],
                                lambda m, x: x.std(1, correction=0)])
def test_a_group_of_equal_values_has_a_variance_of_exactly_zero_and_std_a_zero_gradient(fn):
    """About the rounded mean, [1.48, 1.48, 1.48] has a variance of 5e-32, and std's gradient there was noise;
    PyTorch's is exactly 0 (and std's gradient 0)."""
    values = [[1.48, 1.48, 1.48], [0.1, 0.2, 0.7], [-0.3, -0.3, -0.3]]
    (ours, (g,)), (theirs, (h,)) = in_both(fn, values)
    same_bits(ours[::2], theirs[::2])
    np.testing.assert_allclose(ours.tolist(), theirs.tolist(), rtol=1e-12)
    np.testing.assert_allclose(g.tolist(), h.tolist(), rtol=1e-12, atol=1e-15)
