"""The CUDA backend itself: invisible without a GPU, CuPy underneath with one.

Without CuPy (or a GPU) nothing changes for a learner: ``import autograd_lab`` does not import CuPy,
``al.cuda.is_available()`` is False, and asking for ``'cuda'`` says what to install. The tests marked
``cuda`` need CuPy and an NVIDIA GPU; they skip with the reason elsewhere (CI has no GPU and runs the
seam tests, tests/gpu/test_seam_*.py, through the test double instead).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from fake_backend import fake_cuda, use_real_cuda

import autograd_lab as al


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_and_cpu_work_never_import_cupy():
    code = ("import sys, autograd_lab as al\n"
            "x = al.randn(3, requires_grad=True); al.manual_seed(0); (x * 2).sum().backward()\n"
            "m = al.nn.Linear(2, 2).to('cpu'); m.cpu()\n"
            "print('cupy' in sys.modules)")
    assert _python(code) == "False"


def test_without_cupy_cuda_is_unavailable_and_says_what_to_install():
    code = ("import sys; sys.modules['cupy'] = None  # as if CuPy were not installed\n"
            "import autograd_lab as al\n"
            "print(al.cuda.is_available(), al.cuda.device_count())\n"
            "al.cuda.manual_seed(1); al.cuda.manual_seed_all(1)  # ignored, as in PyTorch\n"
            "try:\n    al.zeros(2, device='cuda')\nexcept RuntimeError as e:\n    print(e)\n"
            "try:\n    al.ones(2).cuda()\nexcept RuntimeError as e:\n    print('cuda():', e)\n")
    out = _python(code).splitlines()
    assert out[0] == "False 0"
    assert "needs CuPy" in out[1] and "autograd-lab[gpu]" in out[1] and "device='cpu'" in out[1]
    assert out[2].startswith("cuda(): the cuda device needs CuPy")


def test_device_objects_and_strings():
    d = al.device("cuda:1")
    assert (d.type, d.index) == ("cuda", 1) and str(d) == "cuda:1" and repr(d) == "device(type='cuda', index=1)"
    assert al.device("cpu") != al.device("cuda")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type at start of device string: tpu"):
        al.device("tpu")


_DEVICE_PAIRS = [("cuda", "cuda:0"), ("cuda:0", "cuda:0"), ("cuda:1", "cuda:0"), ("cpu", "cpu"), ("cpu", "cuda"),
                 (("cpu", 0), "cpu"), (("cuda", 0), "cuda:0"), ("cuda", "cuda")]


@pytest.mark.parametrize("a, b", _DEVICE_PAIRS)
def test_device_equality_is_pytorchs(a, b):
    """No index is not index 0 (a CUDA tensor's device always has one), as in torch; hashes agree with ==."""
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle: pip install -e '.[oracle]'")
    make = lambda m, spec: m.device(*spec) if isinstance(spec, tuple) else m.device(spec)
    expected = make(torch, a) == make(torch, b)
    assert (make(al, a) == make(al, b)) is expected and (make(al, a) != make(al, b)) is not expected
    if expected:
        assert hash(make(al, a)) == hash(make(al, b))


def test_a_device_never_equals_a_string():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle: pip install -e '.[oracle]'")
    assert (torch.device("cpu") == "cpu") is False and (al.device("cpu") == "cpu") is False
    assert (al.device("cpu") != "cpu") is True and ("cuda:0" == al.device("cuda:0")) is False
    assert al.zeros(1).device.type == "cpu" and str(al.zeros(1).device) == "cpu"  # what to compare instead
    assert {al.device("cpu"): 1}[al.device("cpu")] == 1


def test_the_double_is_gone_after_its_context():
    before = al.backend.loaded_backend("cuda")
    with fake_cuda():
        t = al.ones(2, device="cuda")
        assert al.cuda.is_available() and type(t._data).__name__ == "FakeArray"
    assert al.backend.loaded_backend("cuda") is before  # nothing, or CuPy's backend on a GPU machine


# -- real GPU ------------------------------------------------------------------------------------------
@pytest.mark.cuda
def test_cuda_tensors_hold_cupy_arrays():
    use_real_cuda()
    import cupy
    assert al.cuda.is_available() and al.cuda.device_count() >= 1
    x = al.randn(3, 4, device="cuda", requires_grad=True)
    assert isinstance(x._data, cupy.ndarray) and x.device == al.device("cuda:0")
    y = (x @ x.t()).relu().sum()
    y.backward()
    assert isinstance(x.grad._data, cupy.ndarray) and x.grad.device == x.device
    al.cuda.synchronize()
    xc = x.detach().cpu().requires_grad_()
    (xc @ xc.t()).relu().sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.detach().numpy()


@pytest.mark.cuda
def test_gpu_matmul_gradients_equal_cpu_float64_at_scale():
    use_real_cuda()
    rng = np.random.default_rng(0)
    a0, b0 = rng.standard_normal((64, 128)), rng.standard_normal((128, 32))
    grads = []
    for dev in ("cpu", "cuda"):
        a = al.tensor(a0, dtype=al.float64, device=dev, requires_grad=True)
        b = al.tensor(b0, dtype=al.float64, device=dev, requires_grad=True)
        ((a @ b).tanh() ** 2).mean().backward()
        grads.append((a.grad.cpu().numpy(), b.grad.cpu().numpy()))
    for cpu, gpu in zip(grads[0], grads[1]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-10, atol=1e-10)
