"""What the nodes of ops with several outputs keep, as PyTorch's do: the decompositions save their factors under
PyTorch's names (``_saved_Q``, ``_saved_eigenvectors``, ``_saved_U``...), ``inv`` its ``inverse``, ``cholesky``
its ``L``, ``aminmax`` its ``min`` and ``max``; a factor changed in place before ``backward()`` is the same
version error; and a gradient of a gradient flows through the saved factors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(11)
_TALL = _RNG.standard_normal((4, 3))
_SPD = _TALL.T @ _TALL + np.eye(3)

CASES = {  # name: (what to run on a module, al or torch; the input)
    "qr": (lambda m, A: m.linalg.qr(A), _TALL),
    "qr_complete": (lambda m, A: m.linalg.qr(A.T, mode="complete"), _TALL),
    "eigh": (lambda m, A: m.linalg.eigh(A), _SPD),
    "eigvalsh": (lambda m, A: (m.linalg.eigvalsh(A),), _SPD),
    "svd": (lambda m, A: m.linalg.svd(A, full_matrices=False), _TALL),
    "svd_full": (lambda m, A: m.linalg.svd(A), _TALL),
    "inv": (lambda m, A: (m.linalg.inv(A),), _SPD),
    "cholesky": (lambda m, A: (m.linalg.cholesky(A),), _SPD),
    "cholesky_upper": (lambda m, A: (m.linalg.cholesky(A, upper=True),), _SPD),
    "aminmax": (lambda m, A: m.aminmax(A, dim=0), _TALL),
    "aminmax_all": (lambda m, A: m.aminmax(A), _TALL),
    "det": (lambda m, A: (m.linalg.det(A),), _SPD),  # (the LU factors and int32 pivots it was computed from)
    "slogdet": (lambda m, A: m.linalg.slogdet(-A), _SPD),
}
_OURS_ONLY = {"_saved_S_sym_argsize_minus_1"}  # (a symbolic size PyTorch keeps for its own bookkeeping)


def _saved_names(node) -> set:
    return {n for n in dir(node) if n.startswith("_saved_")}


@pytest.mark.parametrize("name", CASES)
def test_the_node_keeps_what_pytorch_keeps_under_its_names(name):
    run, data = CASES[name]
    ours = run(al, al.tensor(data, requires_grad=True))
    theirs = run(torch, torch.tensor(data, requires_grad=True))
    node, their_node = ours[0].grad_fn, theirs[0].grad_fn
    assert type(node).__name__ == type(their_node).__name__
    assert _saved_names(node) == _saved_names(their_node) - _OURS_ONLY
    for attr in _saved_names(node):
        value, expected = getattr(node, attr), getattr(their_node, attr)
        if isinstance(expected, torch.Tensor):  # (a factor: compared up to the signs LAPACK picked)
            assert value.shape == tuple(expected.shape)
            np.testing.assert_allclose(np.abs(value.detach().numpy()), np.abs(expected.detach().numpy()),
                                       rtol=1e-10, atol=1e-12)
        else:
            assert value == expected


@pytest.mark.parametrize("name, factor", [("qr", 0), ("qr", 1), ("eigh", 1), ("svd", 0), ("svd", 2), ("inv", 0),
                                          ("cholesky", 0), ("aminmax", 1)])
def test_a_saved_output_changed_in_place_is_the_same_error_as_in_pytorch(name, factor):
    run, data = CASES[name]
    messages = []
    for module in (al, torch):
        outputs = run(module, module.tensor(data, requires_grad=True))
        outputs[factor].mul_(2)
        with pytest.raises(RuntimeError) as caught:
            sum(out.sum() for out in outputs).backward()
        messages.append(str(caught.value).split(" Hint:")[0].replace("al.", "torch."))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["qr", "eigh", "svd", "cholesky", "inv"])
def test_gradgradcheck_through_the_saved_factors(name):
    run, data = CASES[name]

    def sign_free(A):  # (squares: the sign LAPACK gives a column does not matter)
        if name in ("eigh", "cholesky"):  # (they read one triangle; their gradient is the symmetric one)
            A = (A + A.mT) / 2
        return tuple(out ** 2 for out in run(al, A))

    A = al.tensor(data, requires_grad=True)
    assert al.autograd.gradcheck(sign_free, (A,))
    assert al.autograd.gradgradcheck(sign_free, (A,))
