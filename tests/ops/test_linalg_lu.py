"""Triangular solves and the LU factorization (``solve_triangular``, ``lu_factor(_ex)``, ``lu``, ``lu_solve``,
``lu_unpack``) against torch: values (LAPACK's own pivots: the same elimination), the nodes, what they save,
gradients in float64 and float32, single, batched and broadcast, square, tall and wide; gradcheck, gradgradcheck and
forward mode in float64; singular matrices; and the deprecated ``al.lu`` / ``al.lu_solve`` warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")


def _matrices(rng, shape):
    """Well-conditioned matrices with distinct entries (no ties for the pivots)."""
    X = rng.uniform(-1, 1, shape)
    return X + np.eye(shape[-2], shape[-1]) * 2.5


def _triangular(rng, shape):
    """Square matrices whose triangles are both well-conditioned (the diagonal away from 0)."""
    return rng.uniform(-0.5, 0.5, shape) + np.eye(shape[-1]) * (2 + np.arange(shape[-1]))


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _floats(out):
    """The outputs that take a gradient (not the pivots, info and P)."""
    if not isinstance(out, tuple):
        return [out]
    return [getattr(out, name) for name in ("LU", "L", "U") if hasattr(out, name)]


# name -> (make the inputs from rng and a batch shape, the function run with al or torch as lib)
CASES = {
    "solve_triangular_upper": (lambda r, b: [_triangular(r, b + (3, 3)), r.standard_normal(b + (3, 2))],
                               lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=True)),
    "solve_triangular_lower_unit": (lambda r, b: [_triangular(r, b + (3, 3)), r.standard_normal(b + (3, 2))],
                                    lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=False,
                                                                                  unitriangular=True)),
    "solve_triangular_right": (lambda r, b: [_triangular(r, b + (3, 3)), r.standard_normal(b + (4, 3))],
                               lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=False, left=False)),
    "solve_triangular_broadcast": (lambda r, b: [_triangular(r, (3, 3)), r.standard_normal(b + (3, 1))],
                                   lambda lib, A, B: lib.linalg.solve_triangular(A, B, upper=True, left=True)),
    "lu_factor": (lambda r, b: [_matrices(r, b + (4, 4))], lambda lib, A: lib.linalg.lu_factor(A)),
    "lu_factor_tall": (lambda r, b: [_matrices(r, b + (5, 3))], lambda lib, A: lib.linalg.lu_factor(A)),
    "lu_factor_wide": (lambda r, b: [_matrices(r, b + (3, 5))], lambda lib, A: lib.linalg.lu_factor(A)),
    "lu_factor_ex": (lambda r, b: [_matrices(r, b + (3, 3))], lambda lib, A: lib.linalg.lu_factor_ex(A)),
    "lu": (lambda r, b: [_matrices(r, b + (4, 4))], lambda lib, A: lib.linalg.lu(A)),
    "lu_tall": (lambda r, b: [_matrices(r, b + (4, 2))], lambda lib, A: lib.linalg.lu(A)),
    "lu_wide": (lambda r, b: [_matrices(r, b + (2, 4))], lambda lib, A: lib.linalg.lu(A)),
    "lu_unpack": (lambda r, b: [_matrices(r, b + (4, 3))], lambda lib, A: lib.lu_unpack(*lib.linalg.lu_factor(A))),
    "lu_unpack_wide": (lambda r, b: [_matrices(r, b + (2, 3))],
                       lambda lib, A: lib.lu_unpack(*lib.linalg.lu_factor(A))),
}
for _left in (True, False):
    for _adjoint in (True, False):
        CASES[f"lu_solve_left_{_left}_adjoint_{_adjoint}"] = (
            lambda r, b, left=_left: [_matrices(r, b + (3, 3)), r.standard_normal(b + ((3, 2) if left else (2, 3)))],
            lambda lib, A, B, left=_left, adjoint=_adjoint: lib.linalg.lu_solve(*lib.linalg.lu_factor(A), B, left=left,
                                                                                 adjoint=adjoint))
CASES["lu_solve_broadcast"] = (lambda r, b: [_matrices(r, (3, 3)), r.standard_normal(b + (3, 1))],
                               lambda lib, A, B: lib.linalg.lu_solve(*lib.linalg.lu_factor(A), B))


def _run(lib, fn, arrays, dtype):
    tensors = [lib.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = fn(lib, *tensors)
    loss = 0
    for o in _floats(out):
        weights = np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape))
        loss = loss + (o * o * lib.tensor(weights, dtype=dtype)).sum()
    loss.backward()
    return out, [t.grad for t in tensors]


@pytest.mark.parametrize("batch", [(), (2,), (2, 1)], ids=["single", "batch", "batch2"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_match_torch(name, dtype, batch):
    make, fn = CASES[name]
    arrays = make(np.random.default_rng(0), batch)
    out, grads = _run(al, fn, arrays, getattr(al, dtype))
    t_out, t_grads = _run(torch, fn, arrays, getattr(torch, dtype))
    tol = 1e-9 if dtype == "float64" else 2e-4
    outs, t_outs = (out, t_out) if isinstance(out, tuple) else ((out,), (t_out,))
    assert type(out).__name__ == type(t_out).__name__ and len(outs) == len(t_outs)
    for o, t in zip(outs, t_outs):
        assert str(o.dtype) == str(t.dtype).replace("torch.", "al.") and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__  # (NoneType for pivots, info and P)
        assert o.requires_grad == t.requires_grad
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_gradgradcheck_and_forward_mode(name):
    make, fn = CASES[name]
    inputs = [al.tensor(a, requires_grad=True) for a in make(np.random.default_rng(1), (2,))]

    def floats(*tensors):  # (P too would be taken for an output whose tangent is missing, in torch's gradcheck too)
        return tuple(_floats(fn(al, *tensors)))

    assert gradcheck(floats, inputs, check_forward_ad=True)
    assert gradgradcheck(floats, inputs)


@pytest.mark.parametrize("name", ["solve_triangular_upper", "lu_factor", "lu", "lu_unpack",
                                  "lu_solve_left_False_adjoint_True"])
def test_the_node_saves_what_pytorch_saves(name):
    make, fn = CASES[name]
    arrays = make(np.random.default_rng(2), ())
    node = _first(fn(al, *[al.tensor(a, requires_grad=True) for a in arrays])).grad_fn
    node = node or fn(al, *[al.tensor(a, requires_grad=True) for a in arrays])[1].grad_fn
    t_out = fn(torch, *[torch.tensor(a, requires_grad=True) for a in arrays])
    t_node = _first(t_out).grad_fn or t_out[1].grad_fn
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    assert names == sorted(n for n in dir(t_node) if n.startswith("_saved_"))
    for attr in names:
        ours, theirs = getattr(node, attr), getattr(t_node, attr)
        if isinstance(theirs, torch.Tensor):
            assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "al.")
            assert (ours.grad_fn is None) == (theirs.grad_fn is None)
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
        else:
            assert ours == theirs


SINGULAR = [np.array([[1.0, 2.0], [2.0, 4.0]]), np.zeros((3, 3)), np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]),
            np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]])]


@pytest.mark.parametrize("i", range(len(SINGULAR)))
def test_singular_matrices_factor_with_their_info_as_in_torch(i):
    ours = al.linalg.lu_factor_ex(al.tensor(SINGULAR[i]))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(SINGULAR[i]))
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.numpy(), t.numpy())
        assert str(o.dtype) == str(t.dtype).replace("torch.", "al.")
    P, L, U = al.linalg.lu(al.tensor(SINGULAR[i]))
    np.testing.assert_allclose((P @ L @ U).numpy(), SINGULAR[i])


def test_a_zero_on_the_diagonal_gives_inf_not_an_error_as_in_torch():
    A, B = np.triu(np.ones((2, 2))) - np.eye(2), np.ones((2, 1))
    ours = al.linalg.solve_triangular(al.tensor(A), al.tensor(B), upper=True)
    theirs = torch.linalg.solve_triangular(torch.tensor(A), torch.tensor(B), upper=True)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_solve_triangular_casts_B_to_the_dtype_of_A_as_torch_does():
    for a, b in (("float32", "float64"), ("float64", "float32")):
        ours = al.linalg.solve_triangular(al.eye(2, dtype=getattr(al, a)), al.ones(2, 2, dtype=getattr(al, b)),
                                          upper=True)
        assert ours.dtype is getattr(al, a)


def test_factor_once_solve_many():
    rng = np.random.default_rng(4)
    A, B = _matrices(rng, (3, 3)), rng.standard_normal((3, 5))
    LU, pivots = al.linalg.lu_factor(al.tensor(A))
    np.testing.assert_allclose(al.linalg.lu_solve(LU, pivots, al.tensor(B)).numpy(), np.linalg.solve(A, B))
    P, L, U = al.lu_unpack(LU, pivots)
    np.testing.assert_allclose((P @ L @ U).numpy(), A, atol=1e-12)


@pytest.mark.parametrize("call", [lambda lib, A, B: lib.lu(A), lambda lib, A, B: A.lu(get_infos=True),
                                  lambda lib, A, B: lib.lu_solve(B, *lib.linalg.lu_factor(A)),
                                  lambda lib, A, B: B.lu_solve(*lib.linalg.lu_factor(A))])
def test_the_deprecated_lu_and_lu_solve_warn_and_agree_with_torch(call):
    A, B = _matrices(np.random.default_rng(5), (3, 3)), np.ones((3, 2))
    results, messages = [], []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results.append(call(lib, lib.tensor(A), lib.tensor(B)))
        messages.append([str(w.message).split(" (Triggered internally")[0] for w in caught])
    assert messages[0] and (messages[0] == messages[1] or not messages[1])  # (torch warns once per process)
    for o, t in zip(*(r if isinstance(r, tuple) else (r,) for r in results)):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", ["row-major", "column-major", "sliced"])
@pytest.mark.parametrize("fn", ["det", "slogdet"])
def test_det_and_slogdet_keep_the_lu_factors_pytorch_keeps(fn, layout):
    """PyTorch factors a row-major A as A^T (what LAPACK reads in its memory), a column-major one as it is."""
    data = np.random.default_rng(6).standard_normal((2, 4, 4))
    views = {"row-major": lambda x: x, "column-major": lambda x: x.mT.contiguous().mT, "sliced": lambda x: x[:, :3, :3]}
    nodes = []
    for lib in (al, torch):
        out = getattr(lib.linalg, fn)(views[layout](lib.tensor(data, requires_grad=True)))
        nodes.append(_first(out).grad_fn)
    ours, theirs = nodes
    assert sorted(n for n in dir(ours) if n.startswith("_saved_")) == sorted(n for n in dir(theirs) if n.startswith("_saved_"))
    np.testing.assert_array_equal(ours._saved_pivots.numpy(), theirs._saved_pivots.numpy())
    assert ours._saved_pivots.dtype is al.int32 and ours._saved_LU.grad_fn is None
    np.testing.assert_allclose(ours._saved_LU.numpy(), theirs._saved_LU.numpy(), rtol=1e-12, atol=1e-12)


_LAYOUTS = {  # results laid out as LAPACK writes them and PyTorch returns them (by columns), or not (lu's P, L, U)
    "solve_triangular": lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True),
    "solve_triangular_right": lambda m, A, B: m.linalg.solve_triangular(A, B.mT, upper=False, left=False),
    "lu_factor": lambda m, A, B: m.linalg.lu_factor(A).LU,
    "lu": lambda m, A, B: m.linalg.lu(A).L,
    "lu_solve": lambda m, A, B: m.linalg.lu_solve(*m.linalg.lu_factor(A), B),
    "lu_unpack": lambda m, A, B: m.lu_unpack(*m.linalg.lu_factor(A)).U,
    "det_LU": lambda m, A, B: m.linalg.det(A.requires_grad_()).grad_fn._saved_LU,
    "inv_ex": lambda m, A, B: m.linalg.inv_ex(A).inverse,
    "cholesky_ex": lambda m, A, B: m.linalg.cholesky_ex(A @ A.mT).L,
    "matrix_exp": lambda m, A, B: m.linalg.matrix_exp(A),
    "cholesky_solve": lambda m, A, B: m.cholesky_solve(B, m.linalg.cholesky(A @ A.mT)),
    "cholesky_inverse": lambda m, A, B: m.cholesky_inverse(m.linalg.cholesky(A @ A.mT)),
    "geqrf": lambda m, A, B: m.geqrf(A).a,
}


@pytest.mark.parametrize("name", sorted(_LAYOUTS))
def test_results_are_laid_out_as_torch_lays_them_out(name):
    rng = np.random.default_rng(8)
    A, B = _matrices(rng, (2, 3, 3)), rng.standard_normal((2, 3, 2))
    ours, theirs = (_LAYOUTS[name](m, m.tensor(A), m.tensor(B)) for m in (al, torch))
    assert tuple(ours.stride()) == tuple(theirs.stride())


_EMPTY = {  # functions of matrices with no elements (0 x 0, or a batch of them), each with its gradient
    "det": lambda lib, A: lib.linalg.det(A),
    "slogdet": lambda lib, A: lib.linalg.slogdet(A).logabsdet,
    "logdet": lambda lib, A: lib.logdet(A),
    "lu_factor": lambda lib, A: lib.linalg.lu_factor(A).LU,
    "lu": lambda lib, A: lib.linalg.lu(A).U,
    "lu_unpack": lambda lib, A: lib.lu_unpack(*lib.linalg.lu_factor_ex(A)[:2]).L,
    "lu_solve": lambda lib, A: lib.linalg.lu_solve(*lib.linalg.lu_factor(A), A),
    "cholesky": lambda lib, A: lib.linalg.cholesky(A),
}


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 0, 0)])
@pytest.mark.parametrize("name", sorted(_EMPTY))
def test_matrices_with_no_elements_give_what_torch_gives(name, shape):
    """A 0 x 0 matrix has determinant 1 and an empty LU; ``reshape((-1, 0, 0))`` cannot count such a batch."""
    results = []
    for lib in (al, torch):
        A = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        out = _EMPTY[name](lib, A)
        (grad,) = (al if lib is al else torch).autograd.grad(out.sum(), A)
        results.append((out.detach().numpy(), grad.numpy()))
    for ours, theirs in zip(*results):
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)


NON_FINITE = [  # a NaN after the largest entry of its column, before it, first in it; an inf; both
    [[0.2, 1.6], [-0.3, -0.1], [0.8, -0.6], [np.nan, 1.0]],
    [[0.2, 1.6], [np.nan, -0.1], [0.8, -0.6]],
    [[np.nan, 1.6, 0.5], [0.3, -0.1, 2.0], [0.8, -0.6, 1.0]],
    [[0.2, -np.inf], [1.5, 1.5], [-2.0, -0.3], [-0.6, np.nan]],
    [[1.0, 2.0, 3.0], [4.0, np.inf, 6.0], [7.0, 8.0, np.nan]],
]


@pytest.mark.parametrize("i", range(len(NON_FINITE)))
def test_nan_and_inf_pivot_as_in_torch(i):
    """BLAS's idamax never takes a NaN for the largest entry (a comparison with NaN is false) unless it comes first;
    NumPy's argmax takes the first NaN anywhere, which changed the pivots and spread the NaN through LU."""
    A = np.array(NON_FINITE[i])
    for layout in (lambda x: x, lambda x: x.mT.contiguous().mT):
        ours = al.linalg.lu_factor_ex(layout(al.tensor(A)))
        theirs = torch.linalg.lu_factor_ex(layout(torch.tensor(A)))
        np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
        np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
        if A.shape[0] == A.shape[1]:
            np.testing.assert_allclose(al.linalg.det(layout(al.tensor(A))).numpy(),
                                       torch.linalg.det(layout(torch.tensor(A))).numpy(), rtol=1e-12)


@pytest.mark.parametrize("fn", ["det", "slogdet"])
def test_det_of_inf_and_huge_entries_is_quiet_as_in_torch(fn):
    """inf * 0 and an overflowing product give nan and inf without NumPy's RuntimeWarning (torch says nothing)."""
    for A in ([[np.inf, 1.0], [0.0, 0.0]], [[np.inf, 0.0], [0.0, -np.inf]], np.diag([1e200, 1e200])):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ours = getattr(al.linalg, fn)(al.tensor(A))
        theirs = getattr(torch.linalg, fn)(torch.tensor(A))
        for o, t in zip(*((x,) if fn == "det" else tuple(x) for x in (ours, theirs))):
            np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("left", [True, False])
def test_a_singular_lu_solves_to_the_infs_torch_gives(left, adjoint):
    """LAPACK's getrs moves B's rows (laswp) where the permutation goes; a product with P put its zeros times an inf
    in every row, so that the whole result read nan where torch has inf and nan in some rows only."""
    A = np.array([[-1.0, 2.0, 0.0], [-2.0, -2.0, 0.0], [-2.0, 0.0, 0.0]])
    B = np.array([[1.0, 1.0], [-2.0, -2.0], [2.0, -1.0]])
    B = B if left else B.T
    ours, theirs = (lib.linalg.lu_solve(*lib.linalg.lu_factor_ex(lib.tensor(A))[:2], lib.tensor(B), left=left,
                                        adjoint=adjoint).numpy() for lib in (al, torch))
    np.testing.assert_array_equal(ours, theirs)
    singular = np.stack([np.eye(3), A])  # inv of a batch with a singular matrix: the same solve, of A X = I
    np.testing.assert_array_equal(al.linalg.inv_ex(al.tensor(singular)).inverse.numpy(),
                                  torch.linalg.inv_ex(torch.tensor(singular)).inverse.numpy())
