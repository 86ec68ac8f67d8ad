"""Forward-mode AD and gradcheck's checks on a device that is not NumPy's (the ``device`` fixture of
tests/fake_backend.py: the CUDA test double in CI, the real GPU where CuPy sees one), compared with the CPU."""

from __future__ import annotations

import numpy as np
from fake_backend import device  # noqa: F401  (the fixture)

import autograd_lab as al
import autograd_lab.autograd.forward_ad as fwAD
import autograd_lab.nn.functional as F


def _program(x, w):
    return (F.softmax(x @ w, 1) * x.sin().sum(0)).relu().sum(1) + F.conv2d(x.reshape(1, 1, 2, 3), w[:2].reshape(1, 1, 2, 3))


def test_tangents_on_the_device_equal_the_cpus(device):  # noqa: F811
    rng = np.random.default_rng(0)
    values = [rng.standard_normal((2, 3)), rng.standard_normal((3, 3))]
    tangents = [rng.standard_normal((2, 3)), rng.standard_normal((3, 3))]
    got = []
    for dev in ("cpu", device):
        with fwAD.dual_level():
            duals = [fwAD.make_dual(al.tensor(v, dtype=al.float64, device=dev), al.tensor(t, dtype=al.float64, device=dev))
                     for v, t in zip(values, tangents)]
            tangent = fwAD.unpack_dual(_program(*duals)).tangent
            assert tangent.device == duals[0].device
            got.append(tangent.detach().cpu().numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-10, atol=1e-12)


def test_gradcheck_with_every_check_on_the_device(device):  # noqa: F811
    x = al.tensor([[0.3, -0.5, 0.9], [1.1, 0.2, -0.7]], dtype=al.float64, device=device, requires_grad=True)
    w = al.tensor(np.random.default_rng(1).standard_normal((3, 3)), dtype=al.float64, device=device, requires_grad=True)
    for fast_mode in (False, True):
        assert al.autograd.gradcheck(_program, (x, w), check_forward_ad=True, check_batched_grad=True,
                                     fast_mode=fast_mode)
    assert al.autograd.gradgradcheck(lambda a: (a.tanh() * a).sum(0), (x,), check_fwd_over_rev=True)
