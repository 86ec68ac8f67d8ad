"""``float(t)`` of a tensor that requires grad warns, once per process, as PyTorch does (its TORCH_WARN_ONCE).

In-process tests turn ``set_warn_always`` on (in both libraries), so they see the warning whatever ran before them;
the once-per-process behaviour itself is checked in fresh interpreters, against torch's output.
"""

import math
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.warn_once import OnceWarning

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]
MESSAGE = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
           "Consider using tensor.detach() first.")


@pytest.fixture
def warn_always():
    before = al.is_warn_always_enabled(), torch.is_warn_always_enabled()
    al.set_warn_always(True)
    torch.set_warn_always(True)
    yield
    al.set_warn_always(before[0])
    torch.set_warn_always(before[1])


def _conversion_warnings(convert, lib):
    """The scalar-conversion warnings ``convert(lib)`` shows (message, category, file, line), and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = convert(lib)
    shown = [(str(w.message).split(" (Triggered internally")[0], w.category, w.filename, w.lineno)
             for w in caught if "requires_grad=True to a scalar" in str(w.message)]
    return shown, result


def _leaf(lib):
    return lib.tensor(1.5, requires_grad=True)


WARNS = {
    "float": lambda lib: float(_leaf(lib)),
    "complex": lambda lib: complex(_leaf(lib)),
    "math.exp": lambda lib: math.exp(_leaf(lib)),
    "math.floor": lambda lib: math.floor(_leaf(lib)),
    "numpy.float64": lambda lib: float(np.float64(_leaf(lib))),
    "percent-f": lambda lib: "%f" % _leaf(lib),
    "a non-leaf": lambda lib: float(_leaf(lib) * 2),
    "a view": lambda lib: float(_leaf(lib)[None][0]),
    "a one-element 2-d tensor": lambda lib: float(lib.ones(1, 1, requires_grad=True)),
}


@pytest.mark.parametrize("name", WARNS)
def test_these_conversions_warn_as_in_torch(warn_always, name):
    ours, value = _conversion_warnings(WARNS[name], al)
    theirs, expected = _conversion_warnings(WARNS[name], torch)
    assert value == expected
    assert len(ours) == len(theirs) == 1
    assert ours == theirs  # the text, UserWarning, and the line of this file that converted
    assert ours[0][0] == MESSAGE and ours[0][2] == __file__


QUIET = {
    "int": lambda lib: int(_leaf(lib)),
    "item": lambda lib: _leaf(lib).item(),
    "tolist": lambda lib: _leaf(lib).tolist(),
    "bool": lambda lib: bool(_leaf(lib)),
    "format spec": lambda lib: f"{_leaf(lib):.2f}",
    "str.format": lambda lib: "{:.3f}".format(_leaf(lib)),
    "percent-d": lambda lib: "%d" % _leaf(lib),
    "detached": lambda lib: float(_leaf(lib).detach()),
    "no grad required": lambda lib: float(lib.tensor(1.5)),
    "under no_grad": lambda lib: _under(lib.no_grad(), lambda: float(_leaf(lib))),
    "under inference_mode": lambda lib: _under(lib.inference_mode(), lambda: float(_leaf(lib))),
    "under set_grad_enabled(False)": lambda lib: _under(lib.set_grad_enabled(False), lambda: float(_leaf(lib))),
    "made under no_grad": lambda lib: float(_under(lib.no_grad(), lambda: _leaf(lib) * 2)),
}


def _under(mode, convert):
    with mode:
        return convert()


@pytest.mark.parametrize("name", QUIET)
def test_these_do_not_warn_as_in_torch(warn_always, name):
    ours, value = _conversion_warnings(QUIET[name], al)
    theirs, expected = _conversion_warnings(QUIET[name], torch)
    assert value == expected
    assert ours == theirs == []


# A tensor inside a list is read as a number, with float(), by tensor(), as_tensor(), new_tensor() and Tensor()
FROM_LISTS = {
    "tensor": lambda lib: lib.tensor([_leaf(lib), 2.0]).tolist(),
    "nested": lambda lib: lib.tensor([[_leaf(lib)], [_leaf(lib) * 2]]).tolist(),
    "float64": lambda lib: lib.tensor((_leaf(lib),), dtype=lib.float64).tolist(),
    "as_tensor": lambda lib: lib.as_tensor([_leaf(lib)]).tolist(),
    "new_tensor": lambda lib: lib.zeros(1).new_tensor([_leaf(lib)]).tolist(),
    "Tensor": lambda lib: lib.Tensor([_leaf(lib)]).tolist(),
    "under no_grad": lambda lib: _under(lib.no_grad(), lambda: lib.tensor([_leaf(lib)]).tolist()),
    "detached": lambda lib: lib.tensor([_leaf(lib).detach()]).tolist(),
}


@pytest.mark.parametrize("name", FROM_LISTS)
def test_tensors_in_a_list_warn_as_in_torch(warn_always, name):
    ours, value = _conversion_warnings(FROM_LISTS[name], al)
    theirs, expected = _conversion_warnings(FROM_LISTS[name], torch)
    assert value == expected
    assert ours == theirs  # one for each tensor that requires grad, at this file's line
    assert len(ours) == {"tensor": 1, "nested": 2, "under no_grad": 0, "detached": 0}.get(name, 1)


@pytest.mark.parametrize("convert", [float, int, complex])
def test_more_than_one_element_is_a_value_error_after_the_warning(warn_always, convert):
    errors = []
    for lib in (al, torch):
        with warnings.catch_warnings(record=True) as caught, pytest.raises(ValueError) as error:
            warnings.simplefilter("always")
            convert(lib.ones(2, requires_grad=True))
        errors.append((str(error.value), ["requires_grad=True to a scalar" in str(w.message) for w in caught]))
    assert errors[0] == errors[1]
    assert errors[0][0] == "only one element tensors can be converted to Python scalars"


def test_an_error_filter_raises_it(warn_always):
    for lib in (al, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(UserWarning, match="Consider using tensor.detach"):
                float(_leaf(lib))


def test_set_warn_always_is_what_it_was_set_to():
    before = al.is_warn_always_enabled()
    try:
        for flag in (True, False):
            al.set_warn_always(flag)
            assert al.is_warn_always_enabled() is flag
    finally:
        al.set_warn_always(before)


def test_a_once_warning_warns_the_first_time_only():
    once = OnceWarning("a lesson learnt")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            once.warn()
    assert [str(w.message) for w in caught] == ["a lesson learnt"]


# A fresh interpreter, for what "once per process" means. LIB is torch or autograd_lab; each line it prints is
# compared between the two.
ONCE_SCRIPT = """
import warnings
import LIB as lib

def convert(make, mode=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(mode or "always")
        try:
            float(make())
        except UserWarning as error:
            return "raised " + str(error).split(" (Triggered")[0].splitlines()[0]
    return [w.lineno for w in caught if "to a scalar" in str(w.message)]

leaf = lambda: lib.tensor(2.0, requires_grad=True)
print("under no_grad first:", lib.no_grad()(lambda: convert(leaf))())
print("as an error:", convert(leaf, "error"))
print("a second tensor:", convert(lambda: lib.ones(1, requires_grad=True) * 3))
lib.set_warn_always(True)
print("warn always:", convert(leaf), convert(leaf))
lib.set_warn_always(False)
print("after warn always:", convert(leaf))
"""


@pytest.mark.parametrize("first", ["an error", "a warning"])
def test_it_warns_once_per_process_as_torch(first):
    script = ONCE_SCRIPT if first == "an error" else ONCE_SCRIPT.replace('convert(leaf, "error")', "convert(leaf)")
    outputs = []
    for lib in ("torch", "autograd_lab"):
        done = subprocess.run([sys.executable, "-c", script.replace("LIB", lib)], capture_output=True, text=True,
                              cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    lines = outputs[1].splitlines()
    assert lines[0] == "under no_grad first: []"
    assert lines[1] == ("as an error: raised Converting a tensor with requires_grad=True to a scalar may lead to "
                        "unexpected behavior." if first == "an error" else "as an error: [9]")
    assert lines[2:] == ["a second tensor: []", "warn always: [9] [9]", "after warn always: []"]


def test_the_warning_points_at_the_users_line():
    """A plain script, default filters: the warning names the script's line, once."""
    script = "import autograd_lab as al\nt = al.tensor(1.0, requires_grad=True)\nfloat(t)\nfloat(t * 2)\n"
    done = subprocess.run([sys.executable, "-W", "default", "-c", script], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"<string>:3: UserWarning: {MESSAGE}\n"


# -- the library's own conversions: a warning only where PyTorch's code shows one ---------------------------------
def _lbfgs(lib):
    weight = lib.tensor([1.5, -0.5], requires_grad=True)
    optimizer = lib.optim.LBFGS([weight], max_iter=4, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = ((weight - 1) ** 2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return weight.detach().tolist()


def _plateau(lib):
    weight = lib.tensor([1.5], requires_grad=True)
    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(lib.optim.SGD([weight], lr=0.1), patience=0)
    for _ in range(3):
        scheduler.step((weight ** 2).sum())  # (PyTorch's step calls float(metrics): it warns too)
    return scheduler.get_last_lr()


@pytest.mark.parametrize("case, count", [(_lbfgs, 0), (_plateau, 3)])
def test_optimizers_warn_only_where_torch_does(warn_always, case, count):
    ours, value = _conversion_warnings(case, al)
    theirs, expected = _conversion_warnings(case, torch)
    assert np.allclose(value, expected)
    assert len(ours) == len(theirs) == count
    assert [w[:2] for w in ours] == [w[:2] for w in theirs]


def test_course_checkers_read_a_learners_loss_quietly(warn_always):
    from autograd_lab.course import as_number, check

    def penalty_times_six(critic, x):  # (a mistake whose hint compares the value with the expected one)
        x = x.requires_grad_()
        (g,) = al.autograd.grad(critic(x).sum(), x, create_graph=True)
        return ((g.norm(dim=1) - 1) ** 2).mean() * 6

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        feedback = check.ex_09_3(penalty_times_six)
        number = as_number(al.tensor([2.5], requires_grad=True) * 2)
    assert not feedback and "6 times the mean" in str(feedback)
    assert number == 5.0
    assert [str(w.message) for w in caught if "to a scalar" in str(w.message)] == []
