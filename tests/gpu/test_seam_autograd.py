"""The rest of the library on a device that is not NumPy's: moving tensors, mixing devices, the engine,
in-place checks, custom Functions, hooks, saved-tensor hooks, nn, optim, random numbers, save/load, the lab.

The ``device`` fixture (tests/fake_backend.py) is ``cuda:0`` served by the test double (CI) and, where
CuPy sees a GPU, by the real device (marked ``cuda``). Results are compared with the CPU in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
from fake_backend import device  # noqa: F401  (the fixture)

import autograd_lab as al
import autograd_lab.nn.functional as F
from autograd_lab import nn, optim

TOL = 1e-10


def host(t: al.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def close(a: al.Tensor, b: al.Tensor) -> None:
    np.testing.assert_allclose(host(a), host(b), rtol=TOL, atol=TOL)


# -- creating and moving tensors -------------------------------------------------------------------
def test_factories_create_on_the_device(device):  # noqa: F811
    made = [al.zeros(2, 3, device=device), al.ones(2, device=device), al.full((2,), 1.5, device=device),
            al.empty(3, device=device), al.eye(2, device=device), al.arange(5, device=device),
            al.linspace(0, 1, 4, device=device), al.rand(3, device=device), al.randn(2, 2, device=device),
            al.randint(0, 5, (4,), device=device), al.randperm(4, device=device),
            al.tensor([1.0, 2.0], device=device), al.as_tensor([1, 2], device=device)]
    x = al.zeros(2, 2, device=device)
    made += [al.zeros_like(x), al.ones_like(x), al.full_like(x, 2.0), al.empty_like(x), al.rand_like(x),
             al.randn_like(x), al.randint_like(x, 3)]
    assert all(t.device == device and t.is_cuda for t in made)
    assert host(al.eye(2, device=device)).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert host(al.arange(5, device=device)).tolist() == [0, 1, 2, 3, 4]
    assert sorted(host(al.randperm(6, device=device)).tolist()) == list(range(6))
    assert al.zeros_like(x, device="cpu").device == al.device("cpu")
    with al.device(device):  # torch's `with torch.device(...)`: factories default to it
        assert al.zeros(1).device == device and al.tensor(3.0).device == device
    for unindexed in ("cuda", al.device("cuda")):  # torch: the default reads back with the current GPU's index
        with al.device(unindexed):
            assert al.get_default_device() == al.device("cuda", 0) == al.zeros(1).device
        al.set_default_device(unindexed)
        try:
            assert al.get_default_device() == al.device("cuda:0") and al.get_default_device().index == 0
        finally:
            al.set_default_device(None)
    assert al.zeros(1).device == al.device("cpu")
    al.set_default_device(device)
    try:
        assert al.randn(2).device == device and al.get_default_device() == device
    finally:
        al.set_default_device(None)
    assert al.get_default_device() == al.device("cpu")


def test_moving_is_differentiable_and_gradients_go_back(device):  # noqa: F811
    x = al.tensor([1.0, -2.0, 3.0], dtype=al.float64, requires_grad=True)
    y = x.cuda()
    assert y.device == device and y.grad_fn.name() == "ToCopyBackward0"
    assert y.cuda() is y and y.to(device) is y and x.cpu() is x
    (y * y).sum().backward()
    assert x.grad.device == al.device("cpu")
    assert host(x.grad).tolist() == [2.0, -4.0, 6.0]
    w = al.tensor([0.5, 1.5], dtype=al.float64, device=device, requires_grad=True)
    back = w.cpu()
    assert back.device == al.device("cpu") and back.grad_fn.name() == "ToCopyBackward0"
    (back.exp() * 2).sum().backward()
    assert w.grad.device == device
    np.testing.assert_allclose(host(w.grad), 2 * np.exp([0.5, 1.5]), rtol=TOL)
    z = al.zeros(2, dtype=al.float32)
    moved = x.to(al.zeros(1, device=device))  # .to(other): other's dtype and device
    assert moved.device == device and moved.dtype is al.float32
    assert z.to(device, al.float64).dtype is al.float64 and z.to("cuda").device == device
    assert z.to("cuda:0", copy=True).device == device
    on = z.to("cuda")
    # a CUDA tensor's device has its index, so it is not device('cuda'), as in PyTorch; moving there again is a no-op
    assert on.device == al.device("cuda:0") and on.device != al.device("cuda") and on.device.type == "cuda"
    assert on.to("cuda") is on and on.to(al.device("cuda")) is on and on.cuda() is on
    assert al.tensor([1.0], device="cuda").device == al.device("cuda", 0)


def test_repr_numpy_and_conversions(device):  # noqa: F811
    t = al.tensor([1.5, 2.0], device=device)
    assert repr(t) == "tensor([1.5000, 2.0000], device='cuda:0')"
    assert repr(al.tensor([1.0], dtype=al.float64, device=device, requires_grad=True)) == \
        "tensor([1.], device='cuda:0', dtype=al.float64, requires_grad=True)"
    assert str(t.device) == "cuda:0" and t.is_cuda and not al.zeros(1).is_cuda
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. Use Tensor\.cpu\(\) to "
                                        r"copy the tensor to host memory first\."):
        t.numpy()
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        np.asarray(t)
    assert t.numpy(force=True).tolist() == [1.5, 2.0]  # force: a host copy, as in PyTorch
    assert t.cpu().numpy().tolist() == [1.5, 2.0] and t.tolist() == [1.5, 2.0]
    assert t[1].item() == 2.0 and float(t[0]) == 1.5 and bool(t[0] > 1)
    assert t.sum().item() == 3.5 and t.equal(al.tensor([1.5, 2.0], device=device))


def test_mixing_devices_names_both_devices_and_the_op(device):  # noqa: F811
    a, b = al.ones(3, device=device), al.ones(3)
    cases = {"add": lambda: a + b, "mul": lambda: b * a, "dot": lambda: a @ b, "cat": lambda: al.cat([a, b]),
             "where": lambda: al.where(a > 0, a, b), "maximum": lambda: al.maximum(b, a)}
    for op, fn in cases.items():
        with pytest.raises(RuntimeError) as info:
            fn()
        message = str(info.value)
        assert message.startswith("Expected all tensors to be on the same device, but found at least two devices, "
                                  "cuda:0 and cpu!"), message
        assert f"{op} got tensors on cuda:0 and cpu" in message and ".to('cuda:0')" in message


def test_zero_dim_cpu_tensors_and_numbers_join_device_ops(device):  # noqa: F811
    """PyTorch lets a 0-dim CPU tensor (like a Python number) join an op on another device."""
    x = al.tensor([1.0, 2.0], dtype=al.float64, device=device, requires_grad=True)
    s = al.tensor(3.0, dtype=al.float64, requires_grad=True)
    out = (x * s + 2.5 - x / 4) ** 2
    assert out.device == device
    out.sum().backward()
    assert x.grad.device == device and s.grad.device == al.device("cpu")
    xs, ss = np.array([1.0, 2.0]), 3.0
    inner = xs * ss + 2.5 - xs / 4
    np.testing.assert_allclose(host(x.grad), 2 * inner * (ss - 0.25), rtol=TOL)
    np.testing.assert_allclose(host(s.grad), [np.sum(2 * inner * xs)], rtol=TOL)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        al.tensor(1.0).add_(x.sum().detach())  # but not as the tensor written in place


# -- the engine, in-place checks, Functions, hooks ----------------------------------------------------
def _mlp_loss(m, w, x):
    return (m.tanh(x @ w).exp() * x.sum()).logsumexp(0).sum()


def test_backward_grad_and_double_backward_on_device(device):  # noqa: F811
    rng = np.random.default_rng(0)
    w0, x0 = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    results = {}
    for dev in (al.device("cpu"), device):
        w = al.tensor(w0, dtype=al.float64, device=dev, requires_grad=True)
        x = al.tensor(x0, dtype=al.float64, device=dev)
        loss = _mlp_loss(al, w, x)
        loss.backward(al.tensor(2.0, dtype=al.float64, device=dev), retain_graph=True)
        (g,) = al.autograd.grad(loss, [w], create_graph=True)
        (hv,) = al.autograd.grad((g * g).sum(), [w])
        assert g.device == dev and hv.device == dev and w.grad.device == dev
        results[dev.type] = (g, hv, w.grad)
    for ours, cpu in zip(results["cuda"], results["cpu"]):
        close(ours, cpu)


def test_inplace_version_counter_on_device(device):  # noqa: F811
    x = al.tensor([1.0, 2.0], dtype=al.float64, device=device, requires_grad=True)
    a = x.clone()
    b = a.sin()  # saves a
    assert a._version == 0
    a.mul_(2)
    assert a._version == 1 and a.device == device
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()
    y = x * 1
    y[0] = 5.0
    y.add_(al.tensor(1.0))  # a 0-dim CPU tensor written into a device tensor
    (y * y).sum().backward()
    assert host(y).tolist() == [6.0, 3.0] and host(x.grad).tolist() == [0.0, 6.0]


class Cube(al.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


def test_custom_function_and_hooks_on_device(device):  # noqa: F811
    seen = []
    x = al.tensor([0.5, -1.0], dtype=al.float64, device=device, requires_grad=True)
    y = Cube.apply(x)
    y.register_hook(lambda g: seen.append(g.device) or g * 2)
    y.retain_grad()
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.device))
    y.sum().backward()
    assert seen == [device, device] and y.grad.device == device
    np.testing.assert_allclose(host(x.grad), 2 * 3 * np.array([0.25, 1.0]), rtol=TOL)
    assert al.autograd.gradcheck(Cube.apply, (al.tensor([0.3, 0.7], dtype=al.float64, device=device,
                                                        requires_grad=True),))


def test_saved_tensor_hooks_and_save_on_cpu_on_device(device):  # noqa: F811
    packed = []

    def pack(t):
        packed.append(t.device)
        return t

    x = al.tensor([0.5, 1.5], dtype=al.float64, device=device, requires_grad=True)
    with al.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        (x.sin() * x).sum().backward()
    assert packed and all(d == device for d in packed)
    expected = host(x.grad).copy()
    x.grad = None
    with al.autograd.graph.save_on_cpu():
        y = x.sin() * x
    records = [r for r in y.grad_fn._saved if r is not None]
    assert records and all(r._packed[1].device == al.device("cpu") for r in records)  # really in host memory
    y.sum().backward()
    assert x.grad.device == device
    np.testing.assert_allclose(host(x.grad), expected, rtol=TOL)


# -- nn and optim ------------------------------------------------------------------------------------
def _mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def _cnn():
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(4 * 3 * 3, 3))


@pytest.mark.parametrize("make,shape", [(_mlp, (6, 4)), (_cnn, (5, 2, 6, 6))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_training_steps_on_device_equal_cpu(make, shape, opt, device):  # noqa: F811
    al.manual_seed(0)
    cpu_model = make().double()
    dev_model = make().double()
    dev_model.load_state_dict(cpu_model.state_dict())
    params_before = [p for p in dev_model.parameters()]
    assert dev_model.cuda() is dev_model and all(p.device == device for p in dev_model.parameters())
    assert [p for p in dev_model.parameters()] == params_before  # moved in place: the same Parameter objects
    assert all(b.device == device for b in dev_model.buffers())
    rng = np.random.default_rng(1)
    data, target = rng.standard_normal((3,) + shape), rng.integers(0, 3, (3, shape[0]))
    for model, dev in ((cpu_model, al.device("cpu")), (dev_model, device)):
        make_opt = {"sgd": lambda p: optim.SGD(p, lr=0.1, momentum=0.9), "adam": lambda p: optim.Adam(p, lr=0.01)}
        optimizer = make_opt[opt](model.parameters())
        for step in range(3):
            optimizer.zero_grad()
            x = al.tensor(data[step], dtype=al.float64, device=dev)
            loss = F.cross_entropy(model(x), al.tensor(target[step], device=dev))
            loss.backward()
            optimizer.step()
        assert loss.device == dev
    for (name, p_cpu), p_dev in zip(cpu_model.named_parameters(), dev_model.parameters()):
        assert p_dev.device == device and p_dev.grad.device == device, name
        close(p_dev, p_cpu)
        close(p_dev.grad, p_cpu.grad)
    for b_cpu, b_dev in zip(cpu_model.buffers(), dev_model.buffers()):
        close(b_dev, b_cpu)
    assert dev_model.cpu() is dev_model and all(p.device == al.device("cpu") for p in dev_model.parameters())


def test_modules_built_on_the_device_and_dropout(device):  # noqa: F811
    layer = nn.Linear(3, 2, device=device)
    assert layer.weight.device == device and layer.bias.device == device
    x = al.ones(200, device=device, requires_grad=True)
    y = F.dropout(x, 0.5, training=True)
    y.sum().backward()
    kept = host(y) != 0
    assert y.device == device and 40 < kept.sum() < 160
    assert np.array_equal(host(x.grad), np.where(kept, 2.0, 0.0))
    nn.init.normal_(layer.weight)
    nn.init.uniform_(layer.bias, -0.1, 0.1)
    assert layer.weight.device == device and np.all(np.abs(host(layer.bias)) <= 0.1)


# -- random numbers, save/load, the lab, al.cuda ----------------------------------------------------------
def test_random_numbers_per_device_and_manual_seed_seeds_all(device):  # noqa: F811
    al.manual_seed(123)
    a_dev, a_cpu = al.randn(4, device=device), al.randn(4)
    al.manual_seed(123)
    b_cpu = al.randn(4)  # the CPU stream does not depend on what the device drew
    b_dev = al.randn(4, device=device)
    assert host(a_dev).tolist() == host(b_dev).tolist() and host(a_cpu).tolist() == host(b_cpu).tolist()
    assert host(a_dev).tolist() != host(a_cpu).tolist()  # a stream of its own
    al.cuda.manual_seed(7)
    c = al.rand(3, device=device)
    al.cuda.manual_seed_all(7)
    assert host(al.rand(3, device=device)).tolist() == host(c).tolist()
    gen = al.Generator(device=device).manual_seed(5)
    first = al.randn(3, device=device, generator=gen)
    assert host(al.randn(3, device=device, generator=gen.manual_seed(5))).tolist() == host(first).tolist()
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
        al.randn(3, generator=gen)


def test_save_loads_on_cpu_unless_mapped(device, tmp_path):  # noqa: F811
    path = tmp_path / "t.al"
    model = nn.Linear(2, 2).to(device)
    al.save({"w": al.tensor([1.0, 2.0], device=device), "state": model.state_dict()}, path)
    loaded = al.load(path)
    assert loaded["w"].device == al.device("cpu") and loaded["w"].tolist() == [1.0, 2.0]
    assert loaded["state"]["weight"].device == al.device("cpu")
    mapped = al.load(path, map_location=device)
    assert mapped["w"].device == device and mapped["state"]["bias"].device == device


def test_lab_snapshot_and_dot_on_device(device):  # noqa: F811
    lab = pytest.importorskip("autograd_lab.lab", reason="the lab needs graphviz: pip install -e '.[lab]'")
    sources = {}
    for dev in (al.device("cpu"), device):
        w = al.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=al.float64, device=dev, requires_grad=True)
        loss = (w.exp() * w).sum()
        loss.backward(retain_graph=True)
        snap = lab.snapshot(loss, names={"w": w, "loss": loss})
        sources[dev.type] = lab.to_dot(snap).source
        assert "MulBackward0" in sources[dev.type] and "ExpBackward0" in sources[dev.type]
    assert sources["cuda"] == sources["cpu"]


def test_al_cuda_reports_the_device(device):  # noqa: F811
    assert al.cuda.is_available() and al.cuda.device_count() >= 1 and al.cuda.current_device() == 0
    al.cuda.synchronize()
    al.cuda.synchronize(device)
    name = al.cuda.get_device_name()
    assert isinstance(name, str) and name and al.cuda.get_device_name(0) == al.cuda.get_device_name(device) == name
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        al.cuda.synchronize("cpu")


def test_memory_allocated_counts_tensors_and_what_graphs_save(device):  # noqa: F811
    n = 1 << 17  # float64: 1 MiB, a whole number of any pool's blocks
    al.cuda.synchronize()
    before = al.cuda.memory_allocated()
    x = al.ones(n, dtype=al.float64, device=device, requires_grad=True)
    assert al.cuda.memory_allocated(device) - before == 8 * n
    baseline = al.cuda.memory_allocated()
    loss = (x.sin() * x).sum()  # mul saves sin(x): a second MiB held by the graph
    held = al.cuda.memory_allocated() - baseline
    assert 8 * n <= held < 8 * n + 4096
    loss.backward()  # frees what was saved; x.grad is the new MiB
    assert 8 * n <= al.cuda.memory_allocated() - baseline < 8 * n + 4096
    x.grad = None
    with al.autograd.graph.save_on_cpu():  # what is saved goes to host memory instead
        loss = (x.sin() * x).sum()
    assert al.cuda.memory_allocated() - baseline < 4096
    loss.backward()
    assert x.grad.device == device
    del x, loss
    assert al.cuda.memory_allocated() - before <= 8 * n  # x is gone; its .grad went with it
