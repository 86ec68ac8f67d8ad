"""NumPy scalars (``np.float64(0.5)``, ``np.int64(3)``, ``np.bool_``) are taken as the Python numbers they hold, as
PyTorch takes them: ``x / np.sqrt(d)`` keeps a float32 tensor float32. (To Python an ``np.float64`` is a
``float``, but NumPy promotes with it as with a float64 array.) Checked against torch: values and dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")

HALF, THREE, TRUE = np.float64(0.5), np.int64(3), np.bool_(True)

CASES = {
    "tensor / np.float64": lambda m, x: x / HALF,
    "np.float64 * tensor": lambda m, x: HALF * x,
    "np.float64 - tensor": lambda m, x: HALF - x,
    "tensor * np.int64": lambda m, x: x * THREE,
    "np.int64 + tensor": lambda m, x: THREE + x,
    "tensor * np.bool_": lambda m, x: x * TRUE,
    "tensor ** np.float64": lambda m, x: x ** HALF,
    "np.float64 ** tensor": lambda m, x: HALF ** x,
    "tensor + np.float32": lambda m, x: x + np.float32(1.5),
    "add alpha": lambda m, x: x.add(x, alpha=HALF),
    "sub alpha": lambda m, x: x.sub(HALF, alpha=HALF),
    "reflected sub": lambda m, x: x.__rsub__(HALF),
    "rsub": lambda m, x: m.rsub(x, HALF),
    "addcmul value": lambda m, x: m.addcmul(x, x, x, value=HALF),
    "addcdiv value": lambda m, x: m.addcdiv(x, x, x + 2, value=HALF),
    "mul_": lambda m, x: x.clone().mul_(HALF),
    "clamp": lambda m, x: m.clamp(x, HALF, np.float64(1.5)),
    "where": lambda m, x: m.where(x > 1, HALF, x),
    "lerp": lambda m, x: m.lerp(x, x * 2, HALF),
    "remainder": lambda m, x: x % HALF,
    "comparison": lambda m, x: x > HALF,
    "softplus beta": lambda m, x: m.nn.functional.softplus(x, beta=np.float64(2.0)),
    "scaled attention scores": lambda m, x: (x[:, None] @ x[None, :]) / np.sqrt(np.float64(x.shape[0])),
}


@pytest.mark.parametrize("name", CASES)
def test_numpy_scalars_act_as_python_numbers(name):
    data = np.array([0.25, 1.0, 2.5], dtype=np.float32)
    ours = CASES[name](al, al.tensor(data, requires_grad=True))
    theirs = CASES[name](torch, torch.tensor(data, requires_grad=True))
    assert str(ours.dtype).replace("al.", "torch.") == str(theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    if theirs.requires_grad:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
