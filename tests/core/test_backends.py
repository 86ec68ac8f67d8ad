"""``al.backends``: the flags PyTorch scripts set exist, answer truthfully, and are checked as PyTorch checks them."""

from __future__ import annotations

import importlib.util
import warnings

import pytest

import autograd_lab as al
import autograd_lab.backends.cudnn as cudnn

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _restore_flags():
    saved = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, al.backends.cuda.matmul.allow_tf32,
             al.backends.mkldnn.enabled, al.get_float32_matmul_precision())
    yield
    cudnn.enabled, cudnn.benchmark, cudnn.deterministic, al.backends.cuda.matmul.allow_tf32 = saved[:4]
    al.backends.mkldnn.enabled = saved[4]
    al.set_float32_matmul_precision(saved[5])


def test_the_usual_device_line_picks_cpu_here():
    device = "cuda" if al.cuda.is_available() else "mps" if al.backends.mps.is_available() else "cpu"
    assert device == ("cuda" if al.cuda.is_available() else "cpu")
    assert al.backends.mps.is_built() is False
    assert al.zeros(2, device=device).device.type == device


def test_cuda_backend_agrees_with_al_cuda():
    # a GPU that can be used implies a backend that is built; without CuPy neither is
    if al.cuda.is_available():
        assert al.backends.cuda.is_built()
    assert al.backends.cuda.is_built() == (importlib.util.find_spec("cupy") is not None
                                          or al.backend.loaded_backend("cuda") is not None)


def test_cuda_built_with_a_registered_backend():
    from fake_backend import fake_cuda
    with fake_cuda():
        assert al.cuda.is_available() and al.backends.cuda.is_built()


def test_libraries_autograd_lab_does_not_call_are_not_available():
    assert cudnn.is_available() is False and cudnn.version() is None
    assert cudnn.is_acceptable(al.ones(1)) is False
    assert al.backends.mkldnn.is_available() is False
    assert al.backends.opt_einsum.is_available() == (importlib.util.find_spec("opt_einsum") is not None)
    assert al.backends.opt_einsum.enabled == al.backends.opt_einsum.is_available()


def test_flag_defaults_are_pytorchs():
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit"):
        assert getattr(cudnn, name) == getattr(torch.backends.cudnn, name) or name == "benchmark_limit"
    assert al.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
    assert al.backends.mkldnn.enabled == torch.backends.mkldnn.enabled
    assert al.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()


def test_flags_are_settable_and_change_no_result():
    x = al.randn(4, 4, generator=al.Generator().manual_seed(0))
    before = (x @ x).numpy().copy()
    cudnn.benchmark = True
    cudnn.deterministic = True
    al.backends.cuda.matmul.allow_tf32 = True
    assert cudnn.benchmark and cudnn.deterministic and al.backends.cuda.matmul.allow_tf32
    assert ((x @ x).numpy() == before).all()


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_a_flag_refuses_a_non_bool(lib):
    module = cudnn if lib == "al" else torch.backends.cudnn
    with pytest.raises(RuntimeError, match="set_benchmark_cudnn expects a bool, but got int"):
        module.benchmark = 1
    matmul = al.backends.cuda.matmul if lib == "al" else torch.backends.cuda.matmul
    with pytest.raises(AttributeError, match="Unknown attribute allow_tf33"):
        matmul.allow_tf33 = True
    with pytest.raises(RuntimeError, match="set_allow_tf32_cublas expects a bool"):
        matmul.allow_tf32 = 1


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_flags_context_sets_every_flag_and_restores(lib):
    module = cudnn if lib == "al" else torch.backends.cudnn
    with module.flags(enabled=False, benchmark=True):
        inside = (module.enabled, module.benchmark, module.deterministic)
    assert inside == (False, True, False)
    assert (module.enabled, module.benchmark) == (True, False)


@pytest.mark.parametrize("lib", ["al", "torch"])
def test_float32_matmul_precision_drives_allow_tf32(lib):
    mod = al if lib == "al" else torch
    matmul = al.backends.cuda.matmul if lib == "al" else torch.backends.cuda.matmul
    try:
        mod.set_float32_matmul_precision("high")
        assert matmul.allow_tf32 and mod.get_float32_matmul_precision() == "high"
        mod.set_float32_matmul_precision("highest")
        assert not matmul.allow_tf32 and mod.get_float32_matmul_precision() == "highest"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mod.set_float32_matmul_precision("fastest")
        assert "is not one of 'highest', 'high', or 'medium'" in str(caught[0].message)
    finally:
        torch.set_float32_matmul_precision("highest")


def test_deterministic_algorithms_are_recorded():
    al.use_deterministic_algorithms(True)
    try:
        assert al.are_deterministic_algorithms_enabled()
    finally:
        al.use_deterministic_algorithms(False)
    with pytest.raises(TypeError):
        al.use_deterministic_algorithms("yes")
