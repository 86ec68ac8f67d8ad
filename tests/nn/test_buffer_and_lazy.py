"""``nn.Buffer`` (PyTorch >= 2.5: ``self.x = nn.Buffer(t)`` registers a buffer, ``persistent=`` respected) and the
lazy ``nn.LazyLinear`` and ``nn.LazyConv*d`` / ``nn.LazyConvTranspose*d`` with ``nn.UninitializedParameter``, against
PyTorch: what a module registers and saves, reprs before and after the first call, initialisation, state_dict
loading and saving, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def _both(fn):
    """``fn(m)`` for torch and autograd_lab: (theirs, ours)."""
    return fn(torch), fn(al)


def _module(m):
    class Model(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.running = m.nn.Buffer(m.ones(2))
            self.scratch = m.nn.Buffer(m.zeros(3), persistent=False)
            self.weight = m.nn.Parameter(m.ones(1))
    return Model()


def test_assigning_a_buffer_registers_it_with_its_persistence():
    def seen(m):
        model = _module(m)
        return (list(model.state_dict()), list(dict(model.named_buffers())), sorted(model._non_persistent_buffers_set),
                [name for name, _ in model.named_parameters()])
    theirs, ours = _both(seen)
    assert ours == theirs == (["weight", "running"], ["running", "scratch"], ["scratch"], ["weight"])


def test_a_buffer_is_the_tensor_detached_and_marked():
    def made(m):
        data = m.ones(3, requires_grad=True)
        buffer = m.nn.Buffer(data)
        with m.no_grad():
            data.add_(1)  # (the same memory)
        return (buffer.requires_grad, buffer.persistent, buffer.grad_fn, isinstance(buffer, m.nn.Buffer),
                isinstance(m.ones(1), m.nn.Buffer), type(buffer).__name__, buffer.tolist(),
                m.nn.Buffer(m.ones(1), persistent=False).persistent, tuple(m.nn.Buffer().shape))
    theirs, ours = _both(made)
    assert ours == theirs


def test_reassigning_buffers_keeps_or_changes_persistence_as_torch_does():
    def states(m):
        model = _module(m)
        out = []
        model.running = m.nn.Buffer(m.zeros(2), persistent=False)  # a Buffer brings its own persistence
        out.append(sorted(model.state_dict()))
        model.scratch = m.ones(5)  # a plain tensor keeps the name's
        out.append((sorted(model.state_dict()), model.scratch.tolist()))
        model.scratch = m.nn.Buffer(m.ones(1))
        out.append(sorted(model.state_dict()))
        model.to(m.float64)
        out.append(str(model.scratch.dtype).split(".")[-1])
        return out
    theirs, ours = _both(states)
    assert ours == theirs


@pytest.mark.parametrize("case", ["before_init", "plain_attribute", "over_parameter", "not_a_tensor"])
def test_buffer_errors_are_torchs(case):
    def fail(m):
        if case == "before_init":
            class Early(m.nn.Module):
                def __init__(self):
                    self.x = m.nn.Buffer(m.ones(2))
            Early()
        model = _module(m)
        if case == "plain_attribute":
            model.note = 5
            model.note = m.nn.Buffer(m.ones(1))
        if case == "over_parameter":
            model.weight = m.nn.Buffer(m.ones(1))
        if case == "not_a_tensor":
            m.nn.Buffer([1.0, 2.0])
    error = {"before_init": AttributeError, "plain_attribute": KeyError, "over_parameter": TypeError,
             "not_a_tensor": AttributeError}[case]
    with pytest.raises(error) as theirs:
        fail(torch)
    with pytest.raises(error) as ours:
        fail(al)
    phrase = str(theirs.value).replace("torch.FloatTensor", "al.FloatTensor").replace("torch.nn", "al.nn")
    assert phrase.split(" (")[0] in str(ours.value), (str(theirs.value), str(ours.value))


def test_lazy_linear_before_and_after_its_first_call():
    def seen(m):
        layer = m.nn.LazyLinear(3)
        before = (repr(layer), repr(layer.weight), type(layer.weight).__name__, layer.in_features,
                  layer.has_uninitialized_params(), [(k, repr(v)) for k, v in layer.state_dict().items()],
                  [type(p).__name__ for p in layer.parameters()], isinstance(layer.weight, m.nn.Parameter))
        out = layer(m.randn(2, 5))
        after = (repr(layer), type(layer).__name__, tuple(layer.weight.shape), tuple(layer.bias.shape),
                 type(layer.weight).__name__, type(out.grad_fn).__name__, tuple(out.shape), len(layer._forward_pre_hooks))
        return before, after
    theirs, ours = _both(seen)
    assert ours == theirs


def test_lazy_linear_initialises_as_linear_and_trains_with_an_optimizer_made_before():
    layer = al.nn.LazyLinear(40, dtype=al.float64)
    optimizer = al.optim.SGD(layer.parameters(), lr=0.1)  # (the same Parameter objects, materialized in place)
    x = al.randn(8, 16, dtype=al.float64)
    layer(x).pow(2).sum().backward()
    bound = 1 / 16 ** 0.5
    for p in (layer.weight, layer.bias):
        values = p.detach().numpy()
        assert values.dtype.name == "float64" and values.min() >= -bound and values.max() <= bound
        assert values.max() - values.min() > bound  # (drawn, not left at zero)
    before = layer.weight.detach().numpy().copy()
    optimizer.step()
    assert not (layer.weight.detach().numpy() == before).all()


def test_lazy_layers_in_a_sequential_converted_before_their_first_call():
    def seen(m):
        model = m.nn.Sequential(m.nn.LazyLinear(4), m.nn.ReLU(), m.nn.LazyLinear(2, bias=False)).to(m.float64)
        early = repr(model)
        out = model(m.randn(5, 7, dtype=m.float64))
        return early, repr(model), str(out.dtype).split(".")[-1], str(model[2].weight.dtype).split(".")[-1]
    theirs, ours = _both(seen)
    assert ours == theirs


def test_loading_a_state_dict_materializes_a_lazy_layer():
    def seen(m):
        layer = m.nn.LazyLinear(3)
        source = m.nn.Linear(4, 3)
        layer.load_state_dict(source.state_dict())
        loaded = (repr(layer), type(layer).__name__, tuple(layer.weight.shape),
                  bool((layer.weight == source.weight).all()))
        layer(m.randn(1, 4))
        return loaded, repr(layer)
    theirs, ours = _both(seen)
    assert ours == theirs
    layer = al.nn.LazyLinear(3)
    layer.load_state_dict(al.nn.Linear(4, 3).state_dict())
    with pytest.raises(AssertionError, match="The in_features inferred from input: 5 is not equal to in_features from "
                                             "self.weight: 4"):
        layer(al.randn(1, 5))


def test_uninitialized_parameter_refuses_shape_and_ops_and_materializes():
    for m in (torch, al):
        param = m.nn.UninitializedParameter()
        assert repr(param) == "<UninitializedParameter>" and param.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            param.shape  # noqa: B018
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            param + 1
        param.materialize((2, 3))
        assert type(param).__name__ == "Parameter" and tuple(param.shape) == (2, 3) and param.requires_grad


def test_an_uninitialized_state_dict_saves_loads_and_loads_into_a_lazy_layer(tmp_path):
    path = tmp_path / "lazy.pt"
    al.save(al.nn.LazyLinear(2, dtype=al.float64).state_dict(), path)
    state = al.load(path)
    assert [(k, repr(v), v.dtype, v.requires_grad) for k, v in state.items()] == [
        ("weight", "<UninitializedParameter>", al.float64, True), ("bias", "<UninitializedParameter>", al.float64, True)]

    def loaded(m, saved):
        layer = m.nn.LazyLinear(2)
        layer.load_state_dict(saved)  # (nothing to load: still lazy)
        return repr(layer), layer.has_uninitialized_params()
    assert loaded(al, state) == loaded(torch, torch.nn.LazyLinear(2).state_dict())
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        al.nn.Linear(3, 2).load_state_dict(state)  # (as PyTorch: an initialized layer cannot take a lazy one's)


_LAZY_CONVS = [("LazyConv1d", dict(kernel_size=3), (2, 4, 9)),
               ("LazyConv2d", dict(kernel_size=3, padding=1, groups=2, bias=False), (2, 4, 6, 5)),
               ("LazyConv3d", dict(kernel_size=(1, 2, 2), stride=2), (3, 2, 4, 4)),
               ("LazyConvTranspose1d", dict(kernel_size=2, stride=2), (2, 3, 5)),
               ("LazyConvTranspose2d", dict(kernel_size=3, groups=3, output_padding=1, stride=2), (1, 3, 4, 4)),
               ("LazyConvTranspose3d", dict(kernel_size=2), (1, 2, 3, 3, 3)),
               ("LazyConv2d", dict(kernel_size=3, padding_mode="reflect", padding=1), (4, 6, 5))]  # (unbatched)


@pytest.mark.parametrize("name, settings, shape", _LAZY_CONVS)
def test_lazy_convolutions_take_in_channels_from_their_first_input(name, settings, shape):
    def seen(m):
        layer = getattr(m.nn, name)(6, **settings)
        before = repr(layer)
        out = layer(m.randn(*shape))
        return (before, repr(layer), type(layer).__name__, tuple(layer.weight.shape),
                None if layer.bias is None else tuple(layer.bias.shape), tuple(out.shape), type(out.grad_fn).__name__)
    theirs, ours = _both(seen)
    assert ours == theirs
    layer = getattr(al.nn, name)(6, **settings)
    layer(al.randn(*shape))
    fan_in = layer.weight.shape[1] * int(np.prod(layer.weight.shape[2:]))
    assert float(layer.weight.abs().max()) <= 1 / fan_in ** 0.5 < float(layer.weight.abs().max()) * 10


@pytest.mark.parametrize("build, shape, error", [(lambda m: m.nn.LazyConv2d(4, 3, groups=3), (1, 4, 5, 5), ValueError),
                                                 (lambda m: m.nn.LazyConv2d(4, 3), (5, 5), RuntimeError)])
def test_lazy_convolution_errors_are_torchs(build, shape, error):
    with pytest.raises(error) as theirs:
        build(torch)(torch.randn(*shape))
    with pytest.raises(error) as ours:
        build(al)(al.randn(*shape))
    assert str(theirs.value).replace("torch.Size", "Size") == str(ours.value).replace("al.Size", "Size")
