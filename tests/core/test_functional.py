"""``autograd.functional`` against ``torch.autograd.functional`` and against finite differences.

Each test function is written once with methods both libraries share, and run on autograd_lab and on
PyTorch with the same float64 values: results, their tuple structure, whether they require grad,
and the errors (type and message) must agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograd_lab as al
from autograd_lab.autograd import functional as F

torch = pytest.importorskip("torch")
TF = torch.autograd.functional


# -- helpers -----------------------------------------------------------------------------------
def pair(array, requires_grad=False):
    """The same float64 values as an autograd_lab tensor and a torch tensor."""
    array = np.asarray(array, dtype=np.float64)
    return (al.tensor(array, dtype=al.float64, requires_grad=requires_grad),
            torch.tensor(array, dtype=torch.float64, requires_grad=requires_grad))


def pairs(*arrays, requires_grad=False):
    made = [pair(a, requires_grad) for a in arrays]
    return tuple(m[0] for m in made), tuple(m[1] for m in made)


def structure(value):
    """The nesting of a result (tuples and tensors) with each tensor's shape and requires_grad."""
    if isinstance(value, tuple):
        return tuple(structure(v) for v in value)
    return (tuple(value.shape), bool(value.requires_grad))


def assert_same(ours, theirs, rtol=1e-7, atol=1e-9):
    """Same nesting, shapes, requires_grad and values."""
    assert structure(ours) == structure(theirs)
    flat_ours, flat_theirs = flatten(ours), flatten(theirs)
    for a, b in zip(flat_ours, flat_theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def flatten(value):
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in flatten(v)]
    return [value]


def same_error(ours, theirs):
    """Both calls raise the same exception type with the same message."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert str(got.value) == str(expected.value).replace("torch.Size", "al.Size")


def tuplify(value):
    """PyTorch's forward-mode Jacobian comes back as lists (documented as tuples); compare it as tuples."""
    return tuple(tuplify(v) for v in value) if isinstance(value, (list, tuple)) else value


rng = np.random.default_rng(1234)
X3 = rng.uniform(-1, 1, 3)
M23 = rng.uniform(-1, 1, (2, 3))
M34 = rng.uniform(-1, 1, (3, 4))
X4 = rng.uniform(-1, 1, 4)

# name: (function of tensors in either library, input arrays); outputs may be tensors or tuples
FUNCTIONS = {
    "polynomial": (lambda x: x ** 3 * 2 - x ** 2 + 0.5 * x - 1, (X3,)),
    "polynomial_sum": (lambda x: (x ** 4 - 3 * x ** 2).sum(), (X3,)),
    "matmul_chain": (lambda w1, w2, x: w1 @ (w2 @ x).tanh(), (M23, M34, X4)),
    "softplus_like": (lambda x: x.exp().log1p() * 2 + (x * -1).exp().log1p(), (M23,)),
    "multi_in_out": (lambda a, b: (a * b.sum(), (a - b[:, 0]).exp().sum(), b.t() @ a), (X3[:2], M23)),
    "scalar_input": (lambda s: (s * s.sin()).reshape(1, 1), (np.array(0.7),)),
}
SCALAR_FUNCTIONS = {  # for hessian/hvp/vhp: one output element
    "polynomial": (lambda x: (x ** 3 * x[0] - x.sum() ** 2).sum(), (X3,)),
    "matmul_chain": (lambda w1, w2, x: (w1 @ (w2 @ x).tanh()).pow(2).sum(), (M23, M34, X4)),
    "softplus_like": (lambda x: (x.exp().log1p() * x).sum(), (M23,)),
    "two_inputs": (lambda a, b: (a.sin() * (b @ b.t()).sum() + a.prod()).sum(), (X3, M23)),
    "scalar_input": (lambda s: s.sin() * s ** 3, (np.array(0.7),)),
}


def call_both(fn_name, fn, arrays, *, as_tuple, v_arrays=None, **kwargs):
    ours_in, theirs_in = pairs(*arrays)
    if not as_tuple:
        ours_in, theirs_in = ours_in[0], theirs_in[0]
    args_ours, args_theirs = [fn, ours_in], [fn, theirs_in]
    if v_arrays is not None:
        v_ours, v_theirs = pairs(*v_arrays)
        args_ours.append(v_ours if len(v_arrays) > 1 or as_tuple else v_ours[0])
        args_theirs.append(v_theirs if len(v_arrays) > 1 or as_tuple else v_theirs[0])
    return getattr(F, fn_name)(*args_ours, **kwargs), getattr(TF, fn_name)(*args_theirs, **kwargs)


def outputs_of(fn, arrays):
    out = fn(*pairs(*arrays)[1])
    return out if isinstance(out, tuple) else (out,)


# -- results against PyTorch -------------------------------------------------------------------
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobian(name, vectorize, create_graph):
    fn, arrays = FUNCTIONS[name]
    for as_tuple in ([True, False] if len(arrays) == 1 else [True]):
        ours, theirs = call_both("jacobian", fn, arrays, as_tuple=as_tuple, vectorize=vectorize,
                                 create_graph=create_graph)
        assert_same(ours, theirs)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobian_forward_mode(name):
    fn, arrays = FUNCTIONS[name]
    ours, theirs = call_both("jacobian", fn, arrays, as_tuple=True, vectorize=True, strategy="forward-mode")
    assert_same(ours, tuplify(theirs))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_vjp(name, create_graph):
    fn, arrays = FUNCTIONS[name]
    v = [rng.uniform(-1, 1, tuple(o.shape)) for o in outputs_of(fn, arrays)]
    for as_tuple in ([True, False] if len(arrays) == 1 else [True]):
        ours_in, theirs_in = pairs(*arrays)
        v_ours, v_theirs = pairs(*v)
        if len(v) == 1 and not isinstance(fn(*theirs_in), tuple):
            v_ours, v_theirs = v_ours[0], v_theirs[0]
        if not as_tuple:
            ours_in, theirs_in = ours_in[0], theirs_in[0]
        assert_same(F.vjp(fn, ours_in, v_ours, create_graph=create_graph),
                    TF.vjp(fn, theirs_in, v_theirs, create_graph=create_graph))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jvp(name, create_graph):
    fn, arrays = FUNCTIONS[name]
    v = [rng.uniform(-1, 1, np.shape(a)) for a in arrays]
    for as_tuple in ([True, False] if len(arrays) == 1 else [True]):
        ours, theirs = call_both("jvp", fn, arrays, as_tuple=as_tuple, v_arrays=v, create_graph=create_graph)
        assert_same(ours, theirs)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_hessian(name, vectorize, create_graph):
    fn, arrays = SCALAR_FUNCTIONS[name]
    for as_tuple in ([True, False] if len(arrays) == 1 else [True]):
        ours, theirs = call_both("hessian", fn, arrays, as_tuple=as_tuple, vectorize=vectorize,
                                 create_graph=create_graph)
        assert_same(ours, theirs)


@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_hessian_forward_over_reverse(name):
    fn, arrays = SCALAR_FUNCTIONS[name]
    ours, theirs = call_both("hessian", fn, arrays, as_tuple=True, vectorize=True,
                             outer_jacobian_strategy="forward-mode")
    # PyTorch's forward-over-reverse result keeps a grad_fn from its dual-number inputs although
    # create_graph=False; ours is detached, as every other create_graph=False result. Values must agree.
    theirs = tuplify(theirs)
    assert_same(ours, tuple(tuple(h.detach() for h in row) for row in theirs))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("fn_name", ["hvp", "vhp"])
@pytest.mark.parametrize("name", sorted(SCALAR_FUNCTIONS))
def test_hvp_vhp(name, fn_name, create_graph):
    fn, arrays = SCALAR_FUNCTIONS[name]
    v = [rng.uniform(-1, 1, np.shape(a)) for a in arrays]
    for as_tuple in ([True, False] if len(arrays) == 1 else [True]):
        ours, theirs = call_both(fn_name, fn, arrays, as_tuple=as_tuple, v_arrays=v, create_graph=create_graph)
        assert_same(ours, theirs)


def test_hvp_equals_vhp_and_hessian_times_v():
    fn, arrays = SCALAR_FUNCTIONS["softplus_like"]
    x, _ = pair(arrays[0])
    v, _ = pair(rng.uniform(-1, 1, x.shape))
    h = F.hessian(fn, x).reshape(x.numel(), x.numel())
    expected = (h @ v.reshape(-1)).reshape(x.shape)
    assert F.hvp(fn, x, v)[1].allclose(expected) and F.vhp(fn, x, v)[1].allclose(expected)


@pytest.mark.parametrize("fn_name", ["vjp", "jvp", "hvp", "vhp"])
def test_v_may_be_omitted_for_one_element(fn_name):
    fn = (lambda x: (x ** 3).sum()) if fn_name != "jvp" else (lambda x: x.exp() * 2)
    ours, theirs = pair(np.array([0.3]))
    assert_same(getattr(F, fn_name)(fn, ours), getattr(TF, fn_name)(fn, theirs))


# -- finite differences (float64) ---------------------------------------------------------------
def numerical_jacobian(fn, array, eps=1e-6):
    """Central differences of a single-output NumPy-valued function of one array."""
    base = np.asarray(fn(array), dtype=np.float64)
    jac = np.zeros(base.shape + array.shape)
    for index in np.ndindex(array.shape):
        plus, minus = array.copy(), array.copy()
        plus[index] += eps
        minus[index] -= eps
        jac[(Ellipsis,) + index] = (np.asarray(fn(plus)) - np.asarray(fn(minus))) / (2 * eps)
    return jac


def as_numpy_function(fn):
    return lambda array: fn(al.tensor(array, dtype=al.float64)).numpy()


@pytest.mark.parametrize("name", ["polynomial", "softplus_like", "scalar_input"])
def test_jacobian_against_finite_differences(name):
    fn, (array,) = FUNCTIONS[name]
    expected = numerical_jacobian(as_numpy_function(fn), array)
    np.testing.assert_allclose(F.jacobian(fn, pair(array)[0]).numpy(), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["polynomial", "softplus_like"])
def test_hessian_against_finite_differences_of_the_gradient(name):
    fn, (array,) = SCALAR_FUNCTIONS[name]

    def gradient(values):
        x = al.tensor(values, dtype=al.float64, requires_grad=True)
        return al.autograd.grad(fn(x), x)[0].numpy()

    expected = numerical_jacobian(gradient, array)
    hess = F.hessian(fn, pair(array)[0])
    np.testing.assert_allclose(hess.numpy(), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(hess.numpy().reshape(array.size, -1), hess.numpy().reshape(array.size, -1).T)


def test_jvp_and_vjp_against_finite_differences():
    fn, arrays = FUNCTIONS["matmul_chain"]
    w1, w2, x = arrays
    v = rng.uniform(-1, 1, x.shape)
    eps = 1e-6
    as_np = lambda values: fn(*pairs(w1, w2, values)[0]).numpy()  # noqa: E731
    directional = (as_np(x + eps * v) - as_np(x - eps * v)) / (2 * eps)
    ins = pairs(w1, w2, x)[0]
    zero = (al.zeros(w1.shape, dtype=al.float64), al.zeros(w2.shape, dtype=al.float64))
    _, jv = F.jvp(fn, ins, zero + (pair(v)[0],))
    np.testing.assert_allclose(jv.numpy(), directional, rtol=1e-6, atol=1e-8)
    u = rng.uniform(-1, 1, directional.shape)
    _, (_, _, vj_x) = F.vjp(fn, ins, pair(u)[0])
    np.testing.assert_allclose(vj_x.numpy() @ v, u @ directional, rtol=1e-6)  # <u, J v> = <J^T u, v>


@settings(max_examples=15, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3), seed=st.integers(0, 2**32 - 1))
def test_jacobian_of_pointwise_function_on_any_shape(shape, seed):
    values = np.random.default_rng(seed).uniform(-1, 1, shape)
    ours, theirs = pair(values)
    fn = lambda x: x.sin() * x  # noqa: E731
    jac = F.jacobian(fn, ours)
    assert_same(jac, TF.jacobian(fn, theirs))
    n = values.size
    np.testing.assert_allclose(jac.numpy().reshape(n, n), np.diag((np.cos(values) * values + np.sin(values)).ravel()))


# -- create_graph: differentiating through the results -----------------------------------------
def test_gradient_through_hessian_vector_product():
    fn, (array,) = SCALAR_FUNCTIONS["softplus_like"]
    v_values = rng.uniform(-1, 1, array.shape)
    x, tx = pair(array, requires_grad=True)
    v, tv = pair(v_values, requires_grad=True)
    for ours_fn, theirs_fn in [(F.hvp, TF.hvp), (F.vhp, TF.vhp)]:
        _, hv = ours_fn(fn, x, v, create_graph=True)
        _, thv = theirs_fn(fn, tx, tv, create_graph=True)
        assert hv.requires_grad and hv.grad_fn is not None
        grads = al.autograd.grad((hv ** 2).sum(), (x, v))
        tgrads = torch.autograd.grad((thv ** 2).sum(), (tx, tv))
        assert_same(grads, tgrads)


@pytest.mark.parametrize("fn_name", ["vjp", "jvp"])
def test_gradient_through_vjp_and_jvp_reaches_inputs_and_v(fn_name):
    fn, (w1, w2, x_values) = FUNCTIONS["matmul_chain"]
    v_values = rng.uniform(-1, 1, 2 if fn_name == "vjp" else 4)
    results = []
    for lib, module in ((al, F), (torch, TF)):
        w1_, w2_ = (lib.tensor(a, dtype=lib.float64) for a in (w1, w2))
        x = lib.tensor(x_values, dtype=lib.float64, requires_grad=True)
        v = lib.tensor(v_values, dtype=lib.float64, requires_grad=True)
        out, product = getattr(module, fn_name)(lambda t, a=w1_, b=w2_: fn(a, b, t), x, v, create_graph=True)
        assert out.requires_grad and product.requires_grad
        results.append(lib.autograd.grad((product.exp() * out.sum()).sum(), (x, v)))
    assert_same(*results)


def test_gradient_through_jacobian_and_hessian():
    x, tx = pair(X3, requires_grad=True)
    fn = lambda t: (t ** 3).sum() * t.exp().sum()  # noqa: E731
    hess = F.hessian(fn, x, create_graph=True)
    thess = TF.hessian(fn, tx, create_graph=True)
    assert_same(al.autograd.grad(hess.sum(), x), torch.autograd.grad(thess.sum(), tx))
    jac = F.jacobian(lambda t: t.tanh() * t.sum(), x, create_graph=True)
    tjac = TF.jacobian(lambda t: t.tanh() * t.sum(), tx, create_graph=True)
    assert_same(al.autograd.grad(jac.diagonal().sum(), x), torch.autograd.grad(tjac.diagonal().sum(), tx))


def test_create_graph_false_detaches_and_leaves_inputs_alone():
    x, _ = pair(X3, requires_grad=True)
    out, jv = F.jvp(lambda t: t.exp(), x, al.ones(3, dtype=al.float64))
    assert not out.requires_grad and not jv.requires_grad
    assert x.grad is None and x.requires_grad and x.is_leaf
    h = F.hessian(lambda t: (t ** 3).sum(), x)
    assert not h.requires_grad and x.grad is None


def test_works_inside_no_grad():
    x, tx = pair(X3)
    with al.no_grad():
        ours = F.hessian(lambda t: (t.sin() * t).sum(), x)
        vj = F.vjp(lambda t: t ** 2, x, x)
    with torch.no_grad():
        theirs = TF.hessian(lambda t: (t.sin() * t).sum(), tx)
        tvj = TF.vjp(lambda t: t ** 2, tx, tx)
    assert_same(ours, theirs)
    assert_same(vj, tvj)


def test_function_capturing_the_original_input_is_not_confused_with_the_argument():
    x, tx = pair(X3, requires_grad=True)
    ours = F.jacobian(lambda t: t * x, x)  # x captured: a constant for the Jacobian
    theirs = TF.jacobian(lambda t: t * tx, tx)
    assert_same(ours, theirs)


# -- independent inputs: zeros, or errors in strict mode --------------------------------------
INDEPENDENT = {  # name: call(module, lib, strict, **kw); each has an input some output does not use
    "jacobian_unused_input": lambda M, lib, s: M.jacobian(lambda a, b: a * 2, pairs_for(lib, X3, X3), strict=s),
    "jacobian_constant_output": lambda M, lib, s: M.jacobian(lambda a: lib.ones(3, dtype=lib.float64),
                                                            pairs_for(lib, X3)[0], strict=s),
    "jacobian_create_graph_linear": lambda M, lib, s: M.jacobian(lambda a: a * 2, pairs_for(lib, X3)[0], strict=s,
                                                                create_graph=True),
    "vjp_unused_input": lambda M, lib, s: M.vjp(lambda a, b: a.exp(), pairs_for(lib, X3, X3),
                                                pairs_for(lib, X3)[0], strict=s),
    "vjp_constant_output": lambda M, lib, s: M.vjp(lambda a: a.detach() * 2, pairs_for(lib, X3)[0],
                                                   pairs_for(lib, X3)[0], strict=s),
    "jvp_unused_input": lambda M, lib, s: M.jvp(lambda a, b: a.exp(), pairs_for(lib, X3, X3),
                                                pairs_for(lib, X3, X3), strict=s),
    "jvp_create_graph_linear": lambda M, lib, s: M.jvp(lambda a: a * 3, pairs_for(lib, X3)[0],
                                                       pairs_for(lib, X3)[0], strict=s, create_graph=True),
    "hessian_linear": lambda M, lib, s: M.hessian(lambda a: (a * 2).sum(), pairs_for(lib, X3)[0], strict=s),
    "hessian_unused_input": lambda M, lib, s: M.hessian(lambda a, b: (a ** 3).sum(), pairs_for(lib, X3, X3),
                                                        strict=s),
    "hessian_quadratic_create_graph": lambda M, lib, s: M.hessian(lambda a: (a ** 2).sum(), pairs_for(lib, X3)[0],
                                                                  strict=s, create_graph=True),
    "vhp_linear": lambda M, lib, s: M.vhp(lambda a: (a * 2).sum(), pairs_for(lib, X3)[0], pairs_for(lib, X3)[0],
                                          strict=s),
    "vhp_unused_input": lambda M, lib, s: M.vhp(lambda a, b: (a ** 3).sum(), pairs_for(lib, X3, X3),
                                                pairs_for(lib, X3, X3), strict=s),
    "hvp_linear": lambda M, lib, s: M.hvp(lambda a: (a * 2).sum(), pairs_for(lib, X3)[0], pairs_for(lib, X3)[0],
                                          strict=s),
    "hvp_quadratic": lambda M, lib, s: M.hvp(lambda a: (a ** 2).sum(), pairs_for(lib, X3)[0],
                                             pairs_for(lib, X3)[0], strict=s),
    "hvp_quadratic_create_graph": lambda M, lib, s: M.hvp(lambda a: (a ** 2).sum(), pairs_for(lib, X3)[0],
                                                          pairs_for(lib, X3)[0], strict=s, create_graph=True),
}


def pairs_for(lib, *arrays):
    ours, theirs = pairs(*arrays)
    return ours if lib is al else theirs


@pytest.mark.parametrize("name", sorted(INDEPENDENT))
def test_independent_inputs_give_zeros_when_not_strict(name):
    call = INDEPENDENT[name]
    assert_same(call(F, al, False), call(TF, torch, False))


@pytest.mark.parametrize("name", sorted(INDEPENDENT))
def test_strict_mode_raises_as_pytorch(name):
    call = INDEPENDENT[name]
    try:
        expected = call(TF, torch, True)
    except RuntimeError:
        same_error(lambda: call(F, al, True), lambda: call(TF, torch, True))
    else:  # strict accepts it in PyTorch too (e.g. a quadratic's Hessian is constant but present)
        assert_same(call(F, al, True), expected)


# -- argument errors -----------------------------------------------------------------------------
ARGUMENT_ERRORS = {
    "inputs_not_tensors": lambda M, lib: M.jacobian(lambda a: a, [pairs_for(lib, X3)[0]]),
    "tuple_with_number": lambda M, lib: M.vjp(lambda a, b: a, (pairs_for(lib, X3)[0], 2.0)),
    "output_not_tensor": lambda M, lib: M.jacobian(lambda a: 3.0, pairs_for(lib, X3)[0]),
    "v_missing_for_vector_output": lambda M, lib: M.vjp(lambda a: a * 2, pairs_for(lib, X3)[0]),
    "v_missing_for_vector_input": lambda M, lib: M.jvp(lambda a: a * 2, pairs_for(lib, X3)[0]),
    "v_missing_hvp": lambda M, lib: M.hvp(lambda a: a.sum(), pairs_for(lib, X3)[0]),
    "v_wrong_size": lambda M, lib: M.vjp(lambda a: a * 2, pairs_for(lib, X3)[0], pairs_for(lib, X4)[0]),
    "v_wrong_size_tuple": lambda M, lib: M.jvp(lambda a, b: a * b, pairs_for(lib, X3, X3), pairs_for(lib, X3, X4)),
    "v_wrong_length": lambda M, lib: M.jvp(lambda a, b: a * b, pairs_for(lib, X3, X3), pairs_for(lib, X3)),
    "v_too_many": lambda M, lib: M.vjp(lambda a: a * 2, pairs_for(lib, X3)[0], pairs_for(lib, X3, X3)),
    "v_not_tensor": lambda M, lib: M.vhp(lambda a: a.sum(), pairs_for(lib, X3)[0], [1.0, 2.0, 3.0]),
    "hessian_vector_output": lambda M, lib: M.hessian(lambda a: a * 2, pairs_for(lib, X3)[0]),
    "hessian_tuple_output": lambda M, lib: M.hessian(lambda a: (a.sum(), a.sum()), pairs_for(lib, X3)[0]),
    "hvp_vector_output": lambda M, lib: M.hvp(lambda a: a * 2, pairs_for(lib, X3)[0], pairs_for(lib, X3)[0]),
    "vhp_tuple_output": lambda M, lib: M.vhp(lambda a: (a.sum(),), pairs_for(lib, X3)[0], pairs_for(lib, X3)[0]),
    "strategy_unknown": lambda M, lib: M.jacobian(lambda a: a, pairs_for(lib, X3)[0], strategy="sideways"),
    "outer_strategy_unknown": lambda M, lib: M.hessian(lambda a: a.sum(), pairs_for(lib, X3)[0],
                                                       outer_jacobian_strategy="sideways"),
    "forward_mode_needs_vectorize": lambda M, lib: M.jacobian(lambda a: a, pairs_for(lib, X3)[0],
                                                              strategy="forward-mode"),
    "forward_mode_strict": lambda M, lib: M.jacobian(lambda a: a, pairs_for(lib, X3)[0], strategy="forward-mode",
                                                     vectorize=True, strict=True),
    "forward_mode_create_graph": lambda M, lib: M.jacobian(lambda a: a, pairs_for(lib, X3)[0], vectorize=True,
                                                           strategy="forward-mode", create_graph=True),
    "vectorize_strict": lambda M, lib: M.jacobian(lambda a: a * 2, pairs_for(lib, X3)[0], vectorize=True, strict=True),
}


@pytest.mark.parametrize("name", sorted(ARGUMENT_ERRORS))
def test_argument_errors_as_pytorch(name):
    call = ARGUMENT_ERRORS[name]
    same_error(lambda: call(F, al), lambda: call(TF, torch))


def test_exposed_as_al_autograd_functional():
    assert al.autograd.functional is F
    assert sorted(F.__all__) == sorted(["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"])


def test_dtype_follows_inputs_and_outputs():
    x32 = al.tensor(X3, dtype=al.float32)
    fn = lambda t: t.double() * 2  # noqa: E731  (float32 in, float64 out)
    assert F.jacobian(fn, x32).dtype is al.float32  # reverse mode: the input's dtype, as PyTorch
    assert F.jacobian(fn, x32, vectorize=True, strategy="forward-mode").dtype is al.float64  # the output's
    assert TF.jacobian(fn, torch.tensor(X3, dtype=torch.float32)).dtype is torch.float32


def test_empty_output_has_an_empty_jacobian():
    """PyTorch raises here ('stack expects a non-empty TensorList'); the Jacobian of no outputs is empty."""
    jac = F.jacobian(lambda t: t[:0] * 2, pair(X3)[0])
    assert jac.shape == (0, 3)
