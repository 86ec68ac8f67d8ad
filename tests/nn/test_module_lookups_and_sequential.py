"""``Module.get_submodule`` / ``get_parameter`` / ``get_buffer`` and ``Sequential``'s operators (``+``, ``+=``, ``*``,
``*=``, ``pop``) against ``torch.nn``: what they return and the errors they raise."""

from __future__ import annotations

import re

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def model(m):
    nn = m.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 3)
            self.seq = nn.Sequential(nn.ReLU(), nn.Linear(3, 1, bias=False))
            self.register_buffer("stats", m.zeros(2))
            self.register_buffer("scratch", m.ones(1), persistent=False)
            self.p = nn.Parameter(m.ones(2))
    return Net()


def outcome(fn, m):
    try:
        return fn(m)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        message = str(error).split(" [autograd_lab]")[0]
        return type(error).__name__, re.sub(r"<class '[\w.]*\.(\w+)'>", r"<class \1>", message)  # (module paths differ)


LOOKUPS = {
    "submodule": lambda m: type(model(m).get_submodule("seq.1")).__name__,
    "submodule_self": lambda m: type(model(m).get_submodule("")).__name__,
    "submodule_missing": lambda m: model(m).get_submodule("seq.x"),
    "submodule_of_a_parameter": lambda m: model(m).get_submodule("p"),
    "parameter": lambda m: tuple(model(m).get_parameter("seq.1.weight").shape),
    "parameter_missing": lambda m: model(m).get_parameter("seq.1.nope"),
    "parameter_that_is_none": lambda m: model(m).get_parameter("seq.1.bias"),
    "parameter_that_is_a_buffer": lambda m: model(m).get_parameter("stats"),
    "buffer": lambda m: model(m).get_buffer("stats").tolist(),
    "buffer_not_persistent": lambda m: model(m).get_buffer("scratch").tolist(),
    "buffer_that_is_a_parameter": lambda m: model(m).get_buffer("p"),
    "buffer_missing": lambda m: model(m).get_buffer("a.nope"),
}


@pytest.mark.parametrize("name", sorted(LOOKUPS))
def test_lookups_by_dotted_path_as_torch(name):
    assert outcome(LOOKUPS[name], al) == outcome(LOOKUPS[name], torch)


def children(sequential):
    return [f"{name}:{type(module).__name__}" for name, module in sequential.named_children()]


def pair(m):
    return m.nn.Sequential(m.nn.ReLU(), m.nn.Tanh())


def in_place(operation):
    def run(m):
        s = pair(m)
        if operation == "add":
            s += pair(m)
        else:
            s *= 3
        return children(s)
    return run


SEQUENTIAL = {
    "add": lambda m: children(pair(m) + pair(m)),
    "add_in_place": in_place("add"),
    "times": lambda m: children(pair(m) * 3),
    "times_on_the_left": lambda m: children(2 * pair(m)),
    "times_in_place": in_place("mul"),
    "times_shares_the_modules": lambda m: len(list((m.nn.Sequential(m.nn.Linear(2, 2)) * 2).parameters())),
    "pop": lambda m: (lambda s: (type(s.pop(0)).__name__, children(s)))(pair(m)),
    "add_a_module": lambda m: pair(m) + m.nn.ReLU(),
    "index_out_of_range": lambda m: pair(m)[3],
}


@pytest.mark.parametrize("name", sorted(SEQUENTIAL))
def test_sequential_operators_as_torch(name):
    assert outcome(SEQUENTIAL[name], al) == outcome(SEQUENTIAL[name], torch)


@pytest.mark.parametrize("factor", [0, 1.5])
def test_sequential_refuses_a_bad_factor_as_torch(factor):
    assert outcome(lambda m: pair(m) * factor, al) == outcome(lambda m: pair(m) * factor, torch)
