"""``gradcheck`` and ``gradgradcheck`` against PyTorch's: the same verdicts and error phrases for wrong backward and
forward derivatives, in slow and fast mode, and for each of the other checks (reentrancy with ``nondet_tol``,
undefined output gradients, zero output gradients, batched gradients, functions without differentiable outputs);
hooks inside the checked function; no NumPy warnings; anomaly mode's report."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")
LIBS = [al, torch]


def _input(m, values=(0.3, -1.2, 0.8)):
    return m.tensor(list(values), dtype=m.float64, requires_grad=True)


def _verdict(check):
    """True, False, or the error's type and text (our advice after PyTorch's text cut off, torch's names as ours)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return check()
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            text = str(exc).split("[autograd_lab]")[0].rstrip()
            return f"{type(exc).__name__}: {text}".replace("torch.", "al.")


def _function(m, forward, backward, jvp=None, materialize=True):
    class Fn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            ctx.set_materialize_grads(materialize)
            return forward(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return backward(x, grad)

        @staticmethod
        def jvp(ctx, x_t):
            (x,) = ctx.saved_tensors
            return jvp(x, x_t)
    return Fn


def _wrong_square(m):  # the derivative of x * x is 2x, not 3x
    return _function(m, lambda x: x * x, lambda x, g: g * 3 * x, lambda x, t: t * 3 * x)


def _both(check):
    return [_verdict(lambda m=m: check(m)) for m in LIBS]


def test_a_wrong_backward_fails_with_torchs_message():
    ours, theirs = _both(lambda m: m.autograd.gradcheck(_wrong_square(m).apply, (_input(m),)))
    assert ours == theirs
    assert ours.startswith("GradcheckError: Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor(")


def test_raise_exception_false_returns_false():
    assert _both(lambda m: m.autograd.gradcheck(_wrong_square(m).apply, (_input(m),), raise_exception=False)) == \
        [False, False]


def test_fast_mode_fails_on_a_wrong_backward_and_shows_the_slow_jacobians():
    ours, theirs = _both(lambda m: m.autograd.gradcheck(_wrong_square(m).apply, (_input(m),), fast_mode=True))
    for text in (ours, theirs):
        assert text.startswith("GradcheckError: Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
        assert "Below, we recompute numerical and analytical jacobians in slow mode:" in text
    slow = [text.split("Numerical:")[1].split("The max per-element")[0] for text in (ours, theirs)]
    assert slow[0] == slow[1]  # (the random projections differ; the Jacobians recomputed in slow mode do not)


def test_a_wrong_forward_derivative_fails_with_torchs_message():
    def check(m):
        fn = _function(m, lambda x: x.sin(), lambda x, g: g * x.cos(), lambda x, t: t * x.sin())
        return m.autograd.gradcheck(fn.apply, (_input(m),), check_forward_ad=True)
    ours, theirs = _both(check)
    assert ours == theirs
    assert ours.startswith("GradcheckError: Jacobian computed with forward mode mismatch for output 0 with respect to "
                           "input 0,\nnumerical:")


@pytest.mark.parametrize("fast_mode", [False, True])
def test_correct_derivatives_pass_every_check(fast_mode):
    def check(m):
        fn = _function(m, lambda x: x.sin() * x, lambda x, g: g * (x.cos() * x + x.sin()),
                       lambda x, t: t * (x.cos() * x + x.sin()))
        a, b = _input(m), m.tensor([[0.5, -0.7, 1.1]], dtype=m.float64, requires_grad=True)
        return (m.autograd.gradcheck(lambda a, b: (fn.apply(a) * b, (a @ b.t()).exp()), (a, b), fast_mode=fast_mode,
                                     check_forward_ad=True, check_batched_grad=True)
                and m.autograd.gradgradcheck(lambda a: (a.tanh() * a).sum(0), (a,), fast_mode=fast_mode,
                                             check_fwd_over_rev=True, check_batched_grad=True,
                                             gen_non_contig_grad_outputs=True))
    assert _both(check) == [True, True]


def test_backward_must_be_reentrant_up_to_nondet_tol():
    def check(m, tol):
        rng = np.random.default_rng(0)
        noisy = _function(m, lambda x: x * 2, lambda x, g: g * (2 + m.tensor(rng.normal(0, 1e-9, 3), dtype=m.float64)))
        return m.autograd.gradcheck(noisy.apply, (_input(m),), nondet_tol=tol, check_undefined_grad=False)
    ours, theirs = _both(lambda m: check(m, 0.0))  # (then each adds its own advice)
    phrase = ("GradcheckError: Backward is not reentrant, i.e., running backward with same input and grad_output "
              "multiple times gives different values, although analytical gradient matches numerical gradient.The "
              "tolerance for nondeterminism was 0.0.")
    assert ours.startswith(phrase) and theirs.startswith(phrase)
    assert _both(lambda m: check(m, 1e-6)) == [True, True]


@pytest.mark.parametrize("case", ["raises on None", "invents a gradient", "handles None"])
def test_backward_with_undefined_output_gradients_as_in_torch(case):
    def backward(m):
        def run(x, g):
            if g is None:
                if case == "raises on None":
                    raise RuntimeError("no gradient")
                return m.ones(3, dtype=m.float64) if case == "invents a gradient" else None
            return g * 2
        return run

    def check(m):
        fn = _function(m, lambda x: x * 2, backward(m), materialize=False)
        return m.autograd.gradcheck(fn.apply, (_input(m),))
    ours, theirs = _both(check)  # (each adds its own advice after PyTorch's phrase)
    expected = {"raises on None": "GradcheckError: Expected backward function to handle undefined output grads.",
                "invents a gradient": "GradcheckError: Expected all input grads to be undefined or zero when all "
                                      "output grads are undefined or zero.",
                "handles None": True}[case]
    if expected is True:
        assert ours is True and theirs is True
    else:
        assert ours.startswith(expected) and theirs.startswith(expected)
    if case != "handles None":
        fn = _function(al, lambda x: x * 2, backward(al), materialize=False)
        assert al.autograd.gradcheck(fn.apply, (_input(al),), check_undefined_grad=False)


def test_backward_must_scale_by_the_output_gradient():
    ours, theirs = _both(lambda m: m.autograd.gradcheck(  # (a sum's Jacobian is ones: only the zero check fails)
        _function(m, lambda x: x.sum(), lambda x, g: m.ones(3, dtype=m.float64)).apply, (_input(m),),
        check_undefined_grad=False))
    assert ours == theirs == "GradcheckError: backward not multiplied by grad_output"


def test_outputs_that_need_no_gradient_must_not_change_with_the_inputs():
    assert _both(lambda m: m.autograd.gradcheck(lambda x: x.detach() * 2, (_input(m),))) == \
        ["GradcheckError: Numerical gradient for function expected to be zero"] * 2
    assert _both(lambda m: m.autograd.gradcheck(lambda x: (x > 0).double(), (_input(m),))) == [True, True]


def test_a_hook_registered_inside_the_checked_function_works():
    calls = {al: 0, torch: 0}

    def check(m):
        def fn(x):
            y = x * 2
            y.register_hook(lambda g: calls.__setitem__(m, calls[m] + 1))
            return y.sin()
        return m.autograd.gradcheck(fn, (_input(m),))
    assert _both(check) == [True, True]
    assert calls[al] > 0 and calls[torch] > 0


def test_argument_errors_match_torch():
    assert _both(lambda m: m.autograd.gradcheck(lambda x: x, (m.tensor([1.0], dtype=m.float64),)))[0] == \
        _both(lambda m: m.autograd.gradcheck(lambda x: x, (m.tensor([1.0], dtype=m.float64),)))[1]
    ours, theirs = _both(lambda m: m.autograd.gradcheck(lambda x: x * 2, (_input(m)[:1].expand(3),)))
    assert ours == theirs and "has a dimension with stride 0" in ours
    ours, theirs = _both(lambda m: m.autograd.gradcheck(lambda x: x, (_input(m),), check_backward_ad=False))
    assert ours == theirs == "AssertionError: Expected at least one of check_forward_ad or check_backward_ad to be True"
    with pytest.raises(NotImplementedError, match="check_batched_forward_grad=True is not supported by autograd_lab"):
        al.autograd.gradcheck(lambda x: x, (_input(al),), check_forward_ad=True, check_batched_forward_grad=True)


def test_gradcheck_leaks_no_numpy_warnings():
    x = al.tensor([0.0, 1.0], dtype=al.float64, requires_grad=True)  # log(0 - eps) is nan: finite differences probe it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert al.autograd.gradcheck(lambda t: t.log(), (x,), raise_exception=False) is False


def test_anomaly_mode_warns_and_carries_the_forward_traceback_as_torch_warns_it():
    reports = []
    for m in LIBS:
        x = m.tensor([-1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():  # (a forward op's own NumPy warning is not anomaly mode's)
            warnings.simplefilter("ignore")
            with m.autograd.detect_anomaly():
                y = x.sqrt().sum()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with m.autograd.detect_anomaly():
                with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values in its 0th output"):
                    y.backward()
        messages = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
        assert len(messages) == 1 and "y = x.sqrt().sum()" in messages[0]
        assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
        reports.append(messages[0].split("\n")[0])
    assert reports[0] == reports[1] == "Error detected in SqrtBackward0. Traceback of forward call that caused the error:"
