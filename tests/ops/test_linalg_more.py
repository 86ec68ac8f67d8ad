"""More of ``torch.linalg`` against torch: the ``_ex`` functions and their ``info`` (inv_ex, solve_ex, cholesky_ex),
``matrix_exp``, ``cholesky_solve``, ``cholesky_inverse`` (ops: values, nodes, saved values, gradients, gradcheck,
gradgradcheck and forward mode), and the functions made of other ops (``matrix_rank``, ``cond``, ``diagonal``,
``vander``, ``tensorinv``, ``tensorsolve``, ``pinverse``), with the top-level names and Tensor methods."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

RNG = np.random.default_rng(7)
SQUARE = RNG.uniform(-0.5, 0.5, (2, 3, 3)) + np.diag([2.0, 3.0, 4.0])
WIDE = RNG.uniform(-1, 1, (2, 3, 4)) + np.eye(3, 4) * np.array([3.0, 2.0, 1.0, 0.0])
LOWER = np.tril(SQUARE) + np.eye(3)  # (Cholesky factors: a positive diagonal)
SPD = SQUARE @ SQUARE.swapaxes(1, 2) + np.eye(3)
RHS = RNG.standard_normal((2, 3, 2))
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
TALL = RNG.uniform(-1, 1, (2, 5, 3)) + np.eye(5, 3) * 2  # (full rank)
RHS_TALL = RNG.standard_normal((2, 5, 2))
TAU = RNG.uniform(0.5, 1.5, (2, 3))
SIX = RNG.uniform(-0.3, 0.3, (6, 6)) + 2 * np.eye(6)  # (a well-conditioned 6 x 6 matrix, read as tensors)

# name -> (arrays, function of (lib, *tensors), the node recorded: None for torch's, "" where it differs (PyTorch
# records its own nodes for some functions that are made of other ops here: cond, pinverse, tensorinv))
CASES = {
    "inv_ex": ([SQUARE], lambda lib, A: lib.linalg.inv_ex(A), "LinalgInvExBackward0"),
    "solve_ex": ([SQUARE, RHS], lambda lib, A, B: lib.linalg.solve_ex(A, B), "LinalgSolveExBackward0"),
    "solve_ex_right": ([SQUARE, RHS.swapaxes(1, 2)], lambda lib, A, B: lib.linalg.solve_ex(A, B, left=False), ""),
    "cholesky_ex": ([SPD], lambda lib, A: lib.linalg.cholesky_ex(A), "LinalgCholeskyExBackward0"),
    "cholesky_ex_upper": ([SPD], lambda lib, A: lib.linalg.cholesky_ex(A, upper=True), "LinalgCholeskyExBackward0"),
    "matrix_exp": ([SQUARE], lambda lib, A: lib.linalg.matrix_exp(A), "LinalgMatrixExpBackward0"),
    "matrix_exp_large": ([SQUARE * 3], lambda lib, A: lib.matrix_exp(A), "LinalgMatrixExpBackward0"),
    "matrix_exp_method": ([SQUARE[0] / 4], lambda lib, A: A.matrix_exp(), "LinalgMatrixExpBackward0"),
    "cholesky_solve": ([RHS, LOWER], lambda lib, B, L: lib.cholesky_solve(B, L.tril()), "CholeskySolveBackward0"),
    "cholesky_solve_upper": ([RHS, LOWER], lambda lib, B, L: B.cholesky_solve(L.mT.triu(), upper=True),
                             "CholeskySolveBackward0"),
    "cholesky_solve_broadcast": ([RHS, LOWER[0]], lambda lib, B, L: lib.cholesky_solve(B, L.tril()),
                                 "CholeskySolveBackward0"),
    "cholesky_inverse": ([LOWER], lambda lib, L: lib.cholesky_inverse(L.tril()), "CholeskyInverseBackward0"),
    "cholesky_inverse_upper": ([LOWER], lambda lib, L: L.mT.triu().cholesky_inverse(upper=True),
                               "CholeskyInverseBackward0"),
    "diagonal": ([WIDE], lambda lib, A: lib.linalg.diagonal(A, offset=1, dim1=0, dim2=2), "DiagonalBackward0"),
    "vander": ([WIDE[0, 0]], lambda lib, x: lib.linalg.vander(x), "CatBackward0"),
    "vander_N": ([WIDE[:, 0]], lambda lib, x: lib.linalg.vander(x, N=5), "CatBackward0"),
    "tensorinv": ([SIX.reshape(2, 3, 3, 2)], lambda lib, A: lib.linalg.tensorinv(A, ind=2), ""),
    "tensorsolve": ([SIX.reshape(3, 2, 6), RHS[0].T.copy()], lambda lib, A, B: lib.linalg.tensorsolve(A, B), None),
    "tensorsolve_dims": ([SIX.reshape(3, 2, 6).transpose(2, 0, 1).copy(), RHS[0].T.copy()],
                         lambda lib, A, B: lib.linalg.tensorsolve(A, B, dims=(0,)), None),
    "pinverse": ([WIDE], lambda lib, A: lib.pinverse(A), ""),
    "householder_product": ([TALL, TAU], lambda lib, A, tau: lib.linalg.householder_product(A, tau), ""),
    "orgqr": ([TALL[0], TAU[0, :2]], lambda lib, A, tau: A.orgqr(tau), ""),
    "ormqr": ([TALL, TAU, RHS_TALL], lambda lib, A, tau, C: lib.ormqr(A, tau, C), ""),
    "ormqr_right_transpose": ([TALL[0], TAU[0], RHS_TALL[0].T.copy()],
                              lambda lib, A, tau, C: A.ormqr(tau, C, left=False, transpose=True), ""),
}
for _driver in (None, "gels", "gelsy", "gelsd", "gelss"):
    CASES[f"lstsq_{_driver}"] = ([TALL, RHS_TALL], lambda lib, A, B, d=_driver: lib.linalg.lstsq(A, B, driver=d), "")
CASES.update({
    "lstsq_wide": ([WIDE, RHS], lambda lib, A, B: lib.linalg.lstsq(A, B, driver="gelsd"), ""),
    "lstsq_vector": ([TALL, RHS_TALL[..., 0]], lambda lib, A, B: lib.linalg.lstsq(A, B, driver="gels"), ""),
})
for _p in (None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
    CASES[f"cond_{_p}"] = ([SQUARE], lambda lib, A, p=_p: lib.linalg.cond(A, p), "")
_TORCH_CANNOT = {"cond_1", "cond_-1", "cond_inf", "cond_-inf", "cond_fro"}  # (torch 2.13's own backward raises
# there: its cond overwrites the inverse it saved, "modified by an inplace operation"; gradcheck proves ours)


_DEPRECATED = {  # (warned by PyTorch once per process: the messages are compared where torch still warns)
    "triangular_solve": ([RHS, SQUARE], lambda lib, B, A: lib.triangular_solve(B, A)),
    "triangular_solve_lower_transposed": ([RHS, SQUARE[0]], lambda lib, B, A: B.triangular_solve(A, upper=False,
                                                                                               transpose=True)),
}


@pytest.mark.parametrize("name", sorted(_DEPRECATED))
def test_deprecated_functions_warn_and_agree_with_torch(name):
    arrays, fn = _DEPRECATED[name]
    results, grads = [], []
    for lib in (al, torch):
        tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(lib, *tensors)
        assert lib is torch or any("is deprecated" in str(w.message) for w in caught)
        sum(((o * o).sum() for o in (out if isinstance(out, tuple) else (out,)))).backward()
        results.append(out if isinstance(out, tuple) else (out,))
        grads.append([t.grad for t in tensors])
    for o, t in zip(*results):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-10)
    for g, t in zip(*grads):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-9, atol=1e-9)


def test_geqrf_gives_lapacks_reflectors_and_householder_product_rebuilds_q():
    ours, theirs = al.geqrf(al.tensor(TALL)), torch.geqrf(torch.tensor(TALL))
    assert type(ours).__name__ == type(theirs).__name__ == "geqrf"
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)
    Q = al.linalg.householder_product(*ours)
    np.testing.assert_allclose((Q @ ours.a.triu()[..., :3, :]).numpy(), TALL, atol=1e-12)


def _differentiable(out):
    if not isinstance(out, tuple):
        return [out]
    return [out[0]] + ([out.residuals] if hasattr(out, "residuals") and out.residuals.numel() else [])


def _run(lib, fn, arrays):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *tensors)
    sum(((o * o).sum() for o in _differentiable(out))).backward()
    return out, [t.grad for t in tensors]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_nodes_and_gradients_match_torch(name):
    arrays, fn, node = CASES[name]
    out, grads = _run(al, fn, arrays)
    if name in _TORCH_CANNOT:
        t_out, t_grads = fn(torch, *[torch.tensor(a) for a in arrays]), grads
    else:
        t_out, t_grads = _run(torch, fn, arrays)
    outs, t_outs = (out, t_out) if isinstance(out, tuple) else ((out,), (t_out,))
    assert len(outs) == len(t_outs) and (not isinstance(out, tuple) or type(out).__name__ == type(t_out).__name__)
    for o, t in zip(outs, t_outs):
        assert str(o.dtype) == str(t.dtype).replace("torch.", "al.") and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-10)
    assert out[1].grad_fn is None if hasattr(out, "info") else True
    if node != "":
        assert type(outs[0].grad_fn).__name__ == (node or type(t_outs[0].grad_fn).__name__)
    for g, t_g in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t_g.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", sorted(n for n in CASES if n != "diagonal"))
def test_gradcheck_gradgradcheck_and_forward_mode(name):
    arrays, fn, _ = CASES[name]
    inputs = [al.tensor(a, requires_grad=True) for a in arrays]

    def differentiable(*tensors):
        if name.startswith("cholesky_ex"):  # (it reads one triangle: perturb both, as torch's tests do)
            tensors = ((tensors[0] + tensors[0].mT) / 2,)
        return tuple(_differentiable(fn(al, *tensors)))

    assert gradcheck(differentiable, inputs, check_forward_ad=True)
    assert gradgradcheck(differentiable, inputs)


@pytest.mark.parametrize("name", ["matrix_exp", "cholesky_solve", "cholesky_inverse"])
def test_the_node_saves_what_pytorch_saves(name):
    arrays, fn, _ = CASES[name]
    node = fn(al, *[al.tensor(a, requires_grad=True) for a in arrays]).grad_fn
    t_node = fn(torch, *[torch.tensor(a, requires_grad=True) for a in arrays]).grad_fn
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    assert names == sorted(n for n in dir(t_node) if n.startswith("_saved_"))
    for attr in names:
        ours, theirs = getattr(node, attr), getattr(t_node, attr)
        if isinstance(theirs, torch.Tensor):
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
        else:
            assert ours == theirs


@pytest.mark.parametrize("call", [
    lambda lib, A: lib.linalg.inv_ex(A), lambda lib, A: lib.linalg.solve_ex(A, lib.ones(2, dtype=A.dtype)),
    lambda lib, A: lib.linalg.cholesky_ex(A), lambda lib, A: lib.linalg.cholesky_ex(lib.stack([lib.eye(2, dtype=A.dtype), A])),
    lambda lib, A: lib.linalg.cond(A, 1), lambda lib, A: lib.linalg.cond(A), lambda lib, A: lib.linalg.matrix_rank(A),
    lambda lib, A: lib.linalg.matrix_rank(A, hermitian=True), lambda lib, A: lib.linalg.matrix_rank(A, 0.5),
    lambda lib, A: lib.linalg.matrix_rank(lib.stack([A, A]), atol=lib.tensor([0.1, 10.0], dtype=A.dtype)),
    lambda lib, A: lib.linalg.matrix_rank(A, atol=1.0, rtol=0.0), lambda lib, A: lib.linalg.vander(A.long()[0]),
    lambda lib, A: lib.linalg.lstsq(lib.cat([A, A]), lib.ones(4, 1, dtype=A.dtype), driver="gelsd")[1:]])
def test_singular_matrices_give_what_torch_gives(call):
    ours, theirs = call(al, al.tensor(SINGULAR)), call(torch, torch.tensor(SINGULAR))
    for o, t in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert str(o.dtype) == str(t.dtype).replace("torch.", "al.")
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-7)


def test_inv_ex_of_a_singular_batch_raises_with_check_errors_and_inv_still_raises():
    for call in (lambda: al.linalg.inv_ex(al.tensor([np.eye(2), SINGULAR]), check_errors=True),
                 lambda: al.linalg.inv(al.tensor(SINGULAR))):
        with pytest.raises(al.linalg.LinAlgError, match="is zero, the inversion could not be completed"):
            call()


def _factor(lib):
    return lib.linalg.cholesky(lib.eye(3) * 2)


ERRORS = {
    "cholesky_solve_vector": lambda lib: lib.cholesky_solve(lib.ones(3), _factor(lib)),
    "cholesky_solve_shapes": lambda lib: lib.cholesky_solve(lib.ones(4, 2), _factor(lib)),
    "cholesky_solve_not_square": lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(3, 2)),
    "cholesky_solve_dtypes": lambda lib: lib.cholesky_solve(lib.ones(3, 2, dtype=lib.float64), _factor(lib)),
    "cholesky_solve_integer": lambda lib: lib.cholesky_solve(lib.ones(3, 2, dtype=lib.long), _factor(lib).long()),
    "cholesky_solve_batches": lambda lib: lib.cholesky_solve(lib.ones(2, 3, 2), _factor(lib).expand(4, 3, 3)),
    "cholesky_inverse_vector": lambda lib: lib.cholesky_inverse(lib.ones(3)),
    "cholesky_inverse_not_square": lambda lib: lib.cholesky_inverse(lib.ones(3, 2)),
    "cholesky_inverse_integer": lambda lib: lib.cholesky_inverse(lib.eye(2, dtype=lib.long)),
    "matrix_exp_integer": lambda lib: lib.linalg.matrix_exp(lib.eye(2, dtype=lib.long)),
    "matrix_exp_not_square": lambda lib: lib.linalg.matrix_exp(lib.ones(2, 3)),
    "matrix_exp_vector": lambda lib: lib.linalg.matrix_exp(lib.ones(2)),
    "cond_p": lambda lib: lib.linalg.cond(lib.eye(2), 3),
    "cond_not_square": lambda lib: lib.linalg.cond(lib.ones(2, 3), 1),
    "cond_integer": lambda lib: lib.linalg.cond(lib.eye(2, dtype=lib.long)),
    "tensorinv_sizes": lambda lib: lib.linalg.tensorinv(lib.ones(4, 6, 8, 2), ind=2),
    "tensorinv_ind": lambda lib: lib.linalg.tensorinv(lib.ones(4, 4), ind=0),
    "tensorsolve_sizes": lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 5), lib.ones(2, 3)),
    "vander_N": lambda lib: lib.linalg.vander(lib.ones(2), N=1),
    "matrix_rank_integer": lambda lib: lib.linalg.matrix_rank(lib.ones(2, 2, dtype=lib.long)),
    "matrix_rank_vector": lambda lib: lib.linalg.matrix_rank(lib.ones(3)),
    "lstsq_driver": lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1), driver="foo"),
    "lstsq_rows": lambda lib: lib.linalg.lstsq(lib.ones(2, 4, 3), lib.ones(2, 3, 2)),
    "lstsq_dtypes": lambda lib: lib.linalg.lstsq(lib.ones(4, 3), lib.ones(4, 2, dtype=lib.float64)),
    "lstsq_integer": lambda lib: lib.linalg.lstsq(lib.ones(4, 3, dtype=lib.long), lib.ones(4, 2, dtype=lib.long)),
    "lstsq_vector": lambda lib: lib.linalg.lstsq(lib.ones(3), lib.ones(3, 2)),
    "householder_wide": lambda lib: lib.linalg.householder_product(lib.ones(3, 4), lib.ones(2)),
    "householder_tau": lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(4)),
    "householder_batch": lambda lib: lib.linalg.householder_product(lib.ones(2, 4, 3), lib.ones(3, 2)),
    "householder_dtypes": lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(2, dtype=lib.float64)),
    "householder_vector": lambda lib: lib.linalg.householder_product(lib.ones(4), lib.ones(2)),
    "ormqr_rows": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(3), lib.ones(3, 2)),
    "ormqr_right_columns": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(3), lib.ones(2, 3), left=False),
    "ormqr_tau": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(4), lib.ones(4, 2)),
    "ormqr_dtypes": lambda lib: lib.ormqr(lib.ones(4, 3), lib.ones(3), lib.ones(4, 2, dtype=lib.float64)),
    "geqrf_integer": lambda lib: lib.geqrf(lib.ones(2, 2, dtype=lib.long)),
    "geqrf_vector": lambda lib: lib.geqrf(lib.ones(2)),
    "triangular_solve_vector": lambda lib: lib.triangular_solve(lib.ones(3), lib.eye(3)),
    "triangular_solve_sizes": lambda lib: lib.triangular_solve(lib.ones(4, 2), lib.eye(3)),
    "inv_ex_check": lambda lib: lib.linalg.inv_ex(lib.tensor(SINGULAR), check_errors=True),
    "solve_ex_check": lambda lib: lib.linalg.solve_ex(lib.tensor(SINGULAR), lib.ones(2, dtype=lib.float64),
                                                      check_errors=True),
    "cholesky_ex_check": lambda lib: lib.linalg.cholesky_ex(lib.stack([lib.eye(2), -lib.eye(2)]), check_errors=True),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_read_like_torch(name):
    caught = []
    for lib in (al, torch):
        with pytest.raises(Exception) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ERRORS[name](lib)
        caught.append(info.value)
    ours, theirs = caught
    assert isinstance(ours, RuntimeError) == isinstance(theirs, RuntimeError), (ours, theirs)
    assert isinstance(ours, NotImplementedError) == isinstance(theirs, NotImplementedError), (ours, theirs)
    if isinstance(theirs, torch.linalg.LinAlgError):
        assert isinstance(ours, al.linalg.LinAlgError)
    assert str(ours).startswith(str(theirs).split("\n")[0]), (str(ours), str(theirs))


@pytest.mark.parametrize("call", [lambda m, A: m.cholesky(A), lambda m, A: A.cholesky(upper=True),
                                  lambda m, A: m.chain_matmul(A, A)], ids=["cholesky", "Tensor.cholesky", "chain_matmul"])
def test_cholesky_and_chain_matmul_warn_as_deprecated_and_agree_with_torch(call):
    spd = np.array([[4.0, 1.0], [1.0, 3.0]])
    outs = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outs.append(call(lib, lib.tensor(spd)).numpy())
        assert any("is deprecated" in str(w.message) and w.category is UserWarning for w in caught) or lib is torch
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)
