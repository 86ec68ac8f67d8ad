"""Every op on a device that is not NumPy's: values, gradients and nodes equal CPU float64 ones to 1e-10.

The ``device`` fixture (tests/fake_backend.py) gives ``cuda:0`` served by a test double whose arrays are
not ``numpy.ndarray`` and refuse NumPy (CI, no GPU), and, where CuPy sees a GPU, the real device (those
cases are marked ``cuda``). The op cases are the tables of test_ops_torch.py and test_ops_gradcheck.py,
so an op added there is checked on the device too: an op that calls NumPy directly on its data fails here.
"""

from __future__ import annotations

import numpy as np
import pytest
from fake_backend import device  # noqa: F401  (the fixture)
from ops.test_ops_gradcheck import BINARY, SCALAR_OPERANDS, UNARY
from ops.test_ops_torch import CASES

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab.autograd import gradcheck, gradgradcheck

TOL = 1e-10


def _outputs(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def host(t: al.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def run(fn, arrays, dev, wrap=lambda m: m):
    """Run ``fn(m, *leaves)`` with float64 leaves on ``dev`` (factories inside ``fn`` also create there);
    backward a fixed random weighting of the outputs; return leaves and outputs."""
    with al.device(dev):
        leaves = [al.tensor(a, dtype=al.float64, requires_grad=True) for a in arrays]
        outs = _outputs(fn(wrap(al), *leaves))
        rng = np.random.default_rng(0)
        loss = None
        for out in outs:
            if out.grad_fn is None:
                continue
            term = (out * al.tensor(rng.standard_normal(tuple(out.shape)), dtype=al.float64)).sum()
            loss = term if loss is None else loss + term
        if loss is not None:
            loss.backward()
    return leaves, outs


def assert_same(fn, arrays, dev):
    """Values, grad_fn names and gradients on ``dev`` equal the CPU's; everything lives on ``dev``."""
    cpu_in, cpu_out = run(fn, arrays, al.device("cpu"))
    dev_in, dev_out = run(fn, arrays, dev)
    assert len(cpu_out) == len(dev_out)
    for i, (c, d) in enumerate(zip(cpu_out, dev_out)):
        assert d.device == dev, f"output {i} is on {d.device}, not {dev}"
        assert d.dtype is c.dtype and d.shape == c.shape
        np.testing.assert_allclose(host(d), host(c), rtol=TOL, atol=TOL, err_msg=f"output {i}")
        assert (d.grad_fn is None) == (c.grad_fn is None)
        if c.grad_fn is not None:
            assert d.grad_fn.name() == c.grad_fn.name()
    for k, (c, d) in enumerate(zip(cpu_in, dev_in)):
        assert (c.grad is None) == (d.grad is None), f"input {k}"
        if c.grad is not None:
            assert d.grad.device == dev, f"the gradient of input {k} is on {d.grad.device}, not {dev}"
            np.testing.assert_allclose(host(d.grad), host(c.grad), rtol=TOL, atol=TOL, err_msg=f"gradient {k}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_torch_cases_on_device_equal_cpu(case, device):  # noqa: F811
    fn, *arrays = CASES[case]
    assert_same(fn, arrays, device)


def _leaf(array, dev):
    return al.tensor(np.asarray(array, dtype=np.float64), dtype=al.float64, device=dev, requires_grad=True)


RNG = np.random.default_rng(7)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck_on_device(name, device):  # noqa: F811
    a = RNG.uniform(-1, 1, (3, 1))
    b = RNG.choice([-1.0, 1.0], (4,)) * RNG.uniform(1.3, 2.0, (4,))
    fn = BINARY[name]
    assert gradcheck(fn, (_leaf(a, device), _leaf(b, device)))
    assert gradgradcheck(fn, (_leaf(a, device), _leaf(b, device)))
    assert_same(lambda m, x, y: fn(x, y), [a, b], device)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck_on_device(name, device):  # noqa: F811
    fn, values = UNARY[name]
    x = values(np.random.default_rng(3), (2, 3))
    assert gradcheck(fn, (_leaf(x, device),))
    assert gradgradcheck(fn, (_leaf(x, device),))
    assert_same(lambda m, t: fn(t), [x], device)


@pytest.mark.parametrize("name", sorted(SCALAR_OPERANDS))
def test_python_number_operands_on_device(name, device):  # noqa: F811
    x = RNG.choice([-1.0, 1.0], (2, 3)) * RNG.uniform(0.2, 1.5, (2, 3))
    assert gradgradcheck(SCALAR_OPERANDS[name], (_leaf(x, device),))
    assert_same(lambda m, t: SCALAR_OPERANDS[name](t), [x], device)


def r(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


NN_CASES = {  # the nn functional ops, each a function of float64 leaves
    "conv2d": (lambda m, x, w, b: F.conv2d(x, w, b, stride=2, padding=1), r(2, 3, 6, 5), r(4, 3, 3, 3), r(4)),
    "conv2d_dilated_groups": (lambda m, x, w: F.conv2d(x, w, dilation=2, groups=2), r(1, 4, 7, 7), r(2, 2, 3, 3)),
    "max_pool2d": (lambda m, x: F.max_pool2d(x, 2), np.arange(2 * 3 * 4 * 4.0).reshape(2, 3, 4, 4) * 0.1),
    "avg_pool2d": (lambda m, x: F.avg_pool2d(x, 3, stride=2, padding=1), r(2, 2, 5, 5)),
    "adaptive_avg_pool2d": (lambda m, x: F.adaptive_avg_pool2d(x, (2, 3)), r(1, 2, 5, 7)),
    "softmax": (lambda m, x: F.softmax(x, dim=1), r(3, 4)),
    "log_softmax": (lambda m, x: F.log_softmax(x, dim=-1), r(2, 3, 4)),
    "gelu": (lambda m, x: F.gelu(x), r(3, 4)),
    "gelu_tanh": (lambda m, x: F.gelu(x, approximate="tanh"), r(3, 4)),
    "linear": (lambda m, x, w, b: F.linear(x, w, b), r(5, 3), r(4, 3), r(4)),
    "embedding": (lambda m, w: F.embedding(m.tensor([[0, 2], [2, 3]]), w, padding_idx=3), r(4, 3)),
    "batch_norm_training": (lambda m, x, w, b: F.batch_norm(x, None, None, w, b, training=True), r(6, 3), r(3), r(3)),
    "cross_entropy": (lambda m, x: F.cross_entropy(x, m.tensor([0, 2, 1])), r(3, 4)),
    "cross_entropy_smoothing": (lambda m, x: F.cross_entropy(x, m.tensor([0, 2, 1]), label_smoothing=0.1), r(3, 4)),
    "nll_loss_weighted": (lambda m, x: F.nll_loss(x, m.tensor([1, 0, 1]), weight=m.tensor([0.3, 2.0],
                                                                                            dtype=m.float64)), r(3, 2)),
    "mse_loss": (lambda m, x, y: F.mse_loss(x, y), r(3, 4), r(3, 4)),
    "binary_cross_entropy": (lambda m, x: F.binary_cross_entropy(x, m.tensor([[0.0, 1.0], [1.0, 0.5]],
                                                                               dtype=m.float64)), r(2, 2, low=0.1, high=0.9)),
    "bce_with_logits": (lambda m, x: F.binary_cross_entropy_with_logits(x, m.tensor([0.0, 1.0, 1.0], dtype=m.float64)),
                        r(3)),
    "relu": (lambda m, x: F.relu(x), np.array([-1.0, 0.5, 2.0])),
    # more convolutions, pools and channel shuffles
    "conv_transpose2d": (lambda m, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
                         r(2, 4, 3, 3), r(4, 2, 3, 3), r(4)),
    "conv3d": (lambda m, x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=1), r(1, 2, 3, 4, 3), r(3, 2, 2, 2, 2)),
    "conv1d": (lambda m, x, w: F.conv1d(x, w, padding=1, dilation=2), r(2, 3, 6), r(2, 3, 3)),
    "unfold": (lambda m, x: F.unfold(x, (2, 3), padding=1, stride=2), r(2, 2, 5, 4)),
    "fold": (lambda m, x: F.fold(x, (4, 5), 2), r(2, 8, 12)),
    "max_pool1d": (lambda m, x: F.max_pool1d(x, 3, 2, 1), np.arange(2 * 3 * 7.0).reshape(2, 3, 7) * 0.1),
    "adaptive_max_pool2d": (lambda m, x: F.adaptive_max_pool2d(x, (2, 3)),
                            np.random.default_rng(4).permutation(40).reshape(1, 2, 5, 4) * 0.1),
    "max_unpool2d": (lambda m, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=(5, 4)),
                     np.random.default_rng(5).permutation(40).reshape(1, 2, 5, 4) * 0.1),
    "lp_pool2d": (lambda m, x: F.lp_pool2d(x, 2, 2), r(1, 2, 4, 4, low=0.1)),
    # pools over volumes
    "max_pool3d": (lambda m, x: F.max_pool3d(x, (2, 3, 2), (1, 2, 1), 1, (2, 1, 1), True, True),
                   np.random.default_rng(6).permutation(2 * 3 * 4 * 5 * 3).reshape(2, 3, 4, 5, 3) * 0.1),
    "avg_pool3d": (lambda m, x: F.avg_pool3d(x, 3, 2, 1, True, False), r(2, 2, 4, 5, 3)),
    "adaptive_avg_pool3d": (lambda m, x: F.adaptive_avg_pool3d(x, (2, 3, 2)), r(1, 2, 3, 5, 4)),
    "adaptive_max_pool3d": (lambda m, x: F.adaptive_max_pool3d(x, (2, 3, 2), True),
                            np.random.default_rng(7).permutation(40).reshape(1, 2, 2, 5, 2) * 0.1),
    "max_unpool3d": (lambda m, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(3, 5, 4)),
                     np.random.default_rng(8).permutation(120).reshape(1, 2, 3, 5, 4) * 0.1),
    "lp_pool3d": (lambda m, x: F.lp_pool3d(x, 2, 2), r(1, 2, 4, 4, 2, low=0.1)),
    "pixel_shuffle": (lambda m, x: F.pixel_unshuffle(F.pixel_shuffle(x, 2) * 2, 2), r(1, 8, 2, 3)),
    "channel_shuffle": (lambda m, x: F.channel_shuffle(x, 2), r(2, 4, 3)),
    "local_response_norm": (lambda m, x: F.local_response_norm(x, 3), r(2, 5, 3, 2)),
}


@pytest.mark.parametrize("case", sorted(NN_CASES))
def test_nn_functional_on_device_equal_cpu(case, device):  # noqa: F811
    fn, *arrays = NN_CASES[case]
    assert_same(fn, arrays, device)


def test_conv2d_gradcheck_on_device(device):  # noqa: F811
    x, w = _leaf(r(1, 2, 4, 4), device), _leaf(r(2, 2, 3, 3), device)
    assert gradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x, w))


def test_indexing_with_cpu_index_tensors_on_device(device):  # noqa: F811
    """As in PyTorch, CPU index tensors may index a device tensor; the result stays on the device."""
    x = _leaf(r(4, 3), device)
    y = x[al.tensor([3, 1, 1])]
    z = x[al.tensor([True, False, True, False])]
    (y.sum() + z.sum()).backward()
    assert y.device == device and z.device == device and x.grad.device == device
    assert host(x.grad).tolist() == [[1.0] * 3, [2.0] * 3, [1.0] * 3, [1.0] * 3]
