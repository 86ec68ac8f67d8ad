"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``; as context managers,
decorators (functions and generators), per thread, nested."""

from __future__ import annotations

import contextlib
import threading
import warnings

import pytest

import autograd_lab as al


@pytest.fixture(autouse=True)
def _restore_modes():
    yield
    # A failing test must not leave gradients off for the tests after it.
    al.set_grad_enabled(True)
    assert not al.is_inference_mode_enabled()


def _records(t) -> bool:
    return t.requires_grad and t.grad_fn is not None


# -- no_grad / enable_grad -------------------------------------------------------------------------
def test_no_grad_records_nothing():
    x = al.tensor([1.0], requires_grad=True)
    assert al.is_grad_enabled()
    with al.no_grad():
        assert not al.is_grad_enabled()
        y = x * 2
    assert al.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert _records(x * 2)


def test_no_grad_keeps_leaf_requires_grad():
    with al.no_grad():
        x = al.tensor([1.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf


def test_enable_grad_inside_no_grad():
    x = al.tensor([1.0], requires_grad=True)
    with al.no_grad():
        with al.enable_grad():
            assert al.is_grad_enabled()
            y = x * 2
        z = x * 2
    assert _records(y)
    assert not z.requires_grad


def test_no_grad_decorator():
    x = al.tensor([1.0], requires_grad=True)

    @al.no_grad()
    def f(t):
        """Doc kept."""
        return t * 2

    assert f.__name__ == "f" and f.__doc__ == "Doc kept."
    assert not f(x).requires_grad
    assert al.is_grad_enabled()


def test_enable_grad_decorator_inside_no_grad():
    x = al.tensor([1.0], requires_grad=True)

    @al.enable_grad()
    def f(t):
        return t * 2

    with al.no_grad():
        y = f(x)
        assert not al.is_grad_enabled()
    assert _records(y)


def test_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with al.no_grad():
            raise ValueError("boom")
    assert al.is_grad_enabled()


def _decorators(lib):
    """Every way PyTorch lets a mode decorate: (name, the decorator made on demand, the grad mode the decorated
    code sees). Made on demand: ``set_grad_enabled(False)`` switches gradients off until it decorates."""
    return [("no_grad", lambda: lib.no_grad, False), ("no_grad()", lambda: lib.no_grad(), False),
            ("enable_grad", lambda: lib.enable_grad, True), ("enable_grad()", lambda: lib.enable_grad(), True),
            ("inference_mode", lambda: lib.inference_mode, False),
            ("inference_mode()", lambda: lib.inference_mode(), False),
            ("set_grad_enabled(False)", lambda: lib.set_grad_enabled(False), False)]


def _decorate_a_class(lib, which: int) -> tuple:
    name, make, _ = _decorators(lib)[which]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @make()
        class Model:
            def __init__(self, scale):
                self.grad_enabled = lib.is_grad_enabled()
                self.scale = scale

    with lib.no_grad() if name.startswith("enable") else contextlib.nullcontext():
        made = Model(3)
    return (type(Model).__name__, made.grad_enabled, made.scale, lib.is_grad_enabled(),
            [(w.category, str(w.message)) for w in caught])


@pytest.mark.parametrize("which", range(7))
def test_decorating_a_class_warns_and_constructs_it_in_the_mode_as_torch(which):
    torch = pytest.importorskip("torch")
    expected, seen = _decorate_a_class(torch, which), _decorate_a_class(al, which)
    assert seen == expected
    assert seen[0] == "function" and seen[4][0][0] is FutureWarning
    assert "Decorating classes is deprecated" in seen[4][0][1]


def _decorate_functions(lib, which: int) -> tuple:
    name, make, expected = _decorators(lib)[which]
    x = lib.ones(2, requires_grad=True)

    def double(t):
        """Twice t."""
        return t * 2, lib.is_grad_enabled(), lib.is_inference_mode_enabled()

    def steps(t):
        yield lib.is_grad_enabled()
        yield (t * 3).requires_grad

    wrapped, gen = make()(double), make()(steps)
    with lib.no_grad() if name.startswith("enable") else contextlib.nullcontext():
        out, grad_on, inference = wrapped(x)
        items = list(gen(x))
    assert grad_on is expected
    return (out.requires_grad, out.is_inference(), grad_on, inference, items, wrapped.__name__, wrapped.__doc__,
            lib.is_grad_enabled())


@pytest.mark.parametrize("which", range(7))
def test_every_decorator_form_matches_torch_on_functions_and_generators(which):
    torch = pytest.importorskip("torch")
    assert _decorate_functions(al, which) == _decorate_functions(torch, which)


def test_bare_decorators_and_inference_mode_of_a_function():
    x = al.ones(1, requires_grad=True)

    @al.no_grad
    def f(t):
        return t * 2

    @al.inference_mode
    def g(t):
        return t * 2

    assert not f(x).requires_grad and g(x).is_inference()
    h = al.inference_mode(lambda t: t * 2)
    assert h(x).is_inference() and not al.is_inference_mode_enabled()
    assert isinstance(al.inference_mode(False), al.inference_mode) and isinstance(al.no_grad(), al.no_grad)


# -- set_grad_enabled ------------------------------------------------------------------------------
def test_set_grad_enabled_as_function():
    x = al.tensor([1.0], requires_grad=True)
    al.set_grad_enabled(False)
    try:
        assert not al.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        al.set_grad_enabled(True)
    assert al.is_grad_enabled()
    assert _records(x * 2)


def test_set_grad_enabled_as_context_manager():
    x = al.tensor([1.0], requires_grad=True)
    with al.set_grad_enabled(False):
        assert not (x * 2).requires_grad
        with al.set_grad_enabled(True):
            assert _records(x * 2)
        assert not al.is_grad_enabled()
    assert al.is_grad_enabled()


def test_set_grad_enabled_context_restores_previous_mode():
    with al.no_grad():
        with al.set_grad_enabled(True):
            assert al.is_grad_enabled()
        assert not al.is_grad_enabled()


def test_set_grad_enabled_as_decorator():
    x = al.tensor([1.0], requires_grad=True)

    @al.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert al.is_grad_enabled()  # creating the decorator does not leave gradients off
    assert not f(x).requires_grad
    assert al.is_grad_enabled()


def test_set_grad_enabled_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        seen = []

        @lib.set_grad_enabled(False)
        def f():
            seen.append(lib.is_grad_enabled())

        seen.append(lib.is_grad_enabled())
        f()
        seen.append(lib.is_grad_enabled())
        with lib.set_grad_enabled(False):
            seen.append(lib.is_grad_enabled())
        seen.append(lib.is_grad_enabled())
        lib.set_grad_enabled(False)
        seen.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)
        return seen

    states = [run(torch), run(al)]
    assert states[0] == states[1]


# -- generators ------------------------------------------------------------------------------------
def test_decorated_generator_runs_in_mode_but_caller_does_not():
    x = al.tensor([1.0], requires_grad=True)

    @al.no_grad()
    def gen():
        for i in range(3):
            yield x * i, al.is_grad_enabled()

    for y, enabled in gen():
        assert not enabled and not y.requires_grad
        assert al.is_grad_enabled()
        assert _records(x * 2)


def test_decorated_generator_send_and_close():
    closed = []

    @al.no_grad()
    def gen():
        try:
            received = yield al.is_grad_enabled()
            yield (received, al.is_grad_enabled())
        finally:
            closed.append(al.is_grad_enabled())

    g = gen()
    assert next(g) is False
    assert g.send("hi") == ("hi", False)
    g.close()
    assert closed == [False]
    assert al.is_grad_enabled()


def test_decorated_generator_throw_reaches_the_generator():
    caught = []

    @al.no_grad()
    def gen():
        while True:
            try:
                yield 1
            except KeyError as exc:
                caught.append((exc.args, al.is_grad_enabled()))

    g = gen()
    next(g)
    assert g.throw(KeyError("k")) == 1
    assert caught == [(("k",), False)]
    assert al.is_grad_enabled()
    g.close()


def test_decorated_generator_matches_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, al):
        @lib.no_grad()
        def gen(lib=lib):
            received = yield lib.is_grad_enabled()
            yield received
            return "done"

        g = gen()
        seen = [next(g), lib.is_grad_enabled(), g.send(5)]
        with pytest.raises(StopIteration) as stop:
            next(g)
        results.append(seen + [stop.value.value])
    assert results[0] == results[1] == [False, True, 5, "done"]


def test_decorated_generator_return_value():
    @al.no_grad()
    def gen():
        yield 1
        return "done"

    g = gen()
    next(g)
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "done"


# -- inference_mode --------------------------------------------------------------------------------
def test_inference_mode_makes_inference_tensors():
    x = al.tensor([1.0], requires_grad=True)
    with al.inference_mode():
        assert al.is_inference_mode_enabled()
        assert not al.is_grad_enabled()
        y = x * 2
        z = al.ones(2)
    assert not al.is_inference_mode_enabled()
    assert al.is_grad_enabled()
    assert y.is_inference() and z.is_inference()
    assert not y.requires_grad
    assert not x.is_inference()


def test_inference_tensor_cannot_be_saved_for_backward():
    with al.inference_mode():
        y = al.ones(2)
    x = al.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * y
    (x + y).sum().backward()  # add saves nothing: allowed, as in PyTorch
    assert x.grad.tolist() == [1.0, 1.0]
    clone = y.clone()
    assert not clone.is_inference()
    (x * clone).sum().backward()


def test_inference_tensor_version_raises():
    with al.inference_mode():
        y = al.ones(2)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        y._version  # noqa: B018


def test_inference_tensor_cannot_require_grad_outside():
    with al.inference_mode():
        y = al.ones(2)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        y.requires_grad_()


def test_inference_mode_false_inside_inference_mode():
    x = al.tensor([1.0], requires_grad=True)
    with al.inference_mode():
        with al.inference_mode(False):
            assert not al.is_inference_mode_enabled()
            assert al.is_grad_enabled()
            y = x * 2
        assert al.is_inference_mode_enabled()
    assert _records(y) and not y.is_inference()


def test_inference_mode_decorator():
    @al.inference_mode()
    def f():
        return al.ones(1), al.is_inference_mode_enabled()

    t, enabled = f()
    assert enabled and t.is_inference()
    assert not al.is_inference_mode_enabled()


def test_inference_mode_matches_torch():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, al):
        x = lib.tensor([1.0], requires_grad=True)
        with lib.inference_mode():
            y = x * 2
            flags = [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
            with lib.inference_mode(False):
                flags += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        flags += [y.is_inference(), y.requires_grad, lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        results.append(flags)
    assert results[0] == results[1]


def test_inference_tensor_saved_error_matches_torch():
    torch = pytest.importorskip("torch")
    with torch.inference_mode():
        ty = torch.ones(2)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward") as texc:
        torch.ones(2, requires_grad=True) * ty
    with al.inference_mode():
        ay = al.ones(2)
    with pytest.raises(type(texc.value), match="Inference tensors cannot be saved for backward"):
        al.ones(2, requires_grad=True) * ay


# -- nesting and threads ---------------------------------------------------------------------------
def test_nesting_restores_each_level():
    seen = []
    with al.no_grad():
        seen.append(al.is_grad_enabled())
        with al.enable_grad():
            seen.append(al.is_grad_enabled())
            with al.inference_mode():
                seen.append((al.is_grad_enabled(), al.is_inference_mode_enabled()))
            seen.append((al.is_grad_enabled(), al.is_inference_mode_enabled()))
        seen.append(al.is_grad_enabled())
    seen.append(al.is_grad_enabled())
    assert seen == [False, True, (False, True), (True, False), False, True]


def test_same_context_object_reused():
    ctx = al.no_grad()
    for _ in range(2):
        with ctx:
            assert not al.is_grad_enabled()
        assert al.is_grad_enabled()


def test_mode_is_per_thread():
    seen = {}
    entered = threading.Event()
    checked = threading.Event()

    def worker():
        with al.no_grad():
            entered.set()
            checked.wait(5)
            seen["worker"] = al.is_grad_enabled()

    thread = threading.Thread(target=worker)
    thread.start()
    assert entered.wait(5)
    seen["main"] = al.is_grad_enabled()
    x = al.tensor([1.0], requires_grad=True)
    seen["records"] = _records(x * 2)
    checked.set()
    thread.join(5)
    assert seen == {"worker": False, "main": True, "records": True}


def test_new_thread_starts_with_defaults():
    seen = []
    with al.no_grad(), al.inference_mode():
        thread = threading.Thread(target=lambda: seen.append((al.is_grad_enabled(), al.is_inference_mode_enabled())))
        thread.start()
        thread.join(5)
    assert seen == [(True, False)]


def test_set_grad_enabled_function_in_thread_is_local():
    seen = []

    def worker():
        al.set_grad_enabled(False)
        seen.append(al.is_grad_enabled())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(5)
    assert seen == [False]
    assert al.is_grad_enabled()


def test_backward_runs_in_the_calling_threads_mode_unaffected():
    x = al.tensor([2.0], requires_grad=True)
    y = (x * x).sum()
    with al.no_grad():
        y.backward()  # backward works under no_grad, as in PyTorch
        assert not al.is_grad_enabled()
    assert x.grad.tolist() == [4.0]
