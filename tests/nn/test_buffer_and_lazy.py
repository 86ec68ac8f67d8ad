"""``nn.Buffer`` (PyTorch >= 2.5: ``self.x = nn.Buffer(t)`` registers a buffer, ``persistent=`` respected) against
PyTorch: what it returns, what a module registers and saves, reassignment, and the errors."""

from __future__ import annotations

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
