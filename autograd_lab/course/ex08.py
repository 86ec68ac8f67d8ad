"""Checkers for ``08_custom_functions.ipynb``: custom ``autograd.Function`` classes run through ``gradcheck``
(the feedback lists the Jacobian entries that disagree), ``needs_input_grad`` and ``mark_non_differentiable``."""

from __future__ import annotations

import numpy as np

import autograd_lab as al
from autograd_lab.autograd import Function, GradcheckError, gradcheck

from ..i18n import msg
from ._feedback import Feedback, compare_arrays, failed, is_placeholder, not_answered, passed

__all__ = ["ex_08_1", "ex_08_2", "ex_08_3", "gradcheck_feedback"]


def _is_function_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, Function)


def _not_a_function(cls, what: str) -> Feedback | None:
    if is_placeholder(cls):
        return not_answered(what)
    if not _is_function_class(cls):
        return failed(msg("ex08.not_a_function_class", type=type(cls).__name__))
    return None


def _apply(cls, *args) -> tuple:
    """``cls.apply(*args)``, or the feedback naming the learner's exception."""
    try:
        result = cls.apply(*args)
    except Exception as error:  # noqa: BLE001 - the learner's forward raised
        return None, failed(msg("ex08.forward_raised", cls=cls.__name__, type=type(error).__name__, error=error))
    if result is None:
        return None, failed(msg("ex08.forward_none", cls=cls.__name__))
    return result, None


def gradcheck_feedback(fn, inputs: tuple, what: str) -> Feedback | None:
    """Runs ``gradcheck``; on a mismatch, feedback listing the wrong Jacobian entries (numerical beside analytical)."""
    try:
        gradcheck(fn, inputs)
    except GradcheckError as error:
        text = str(error)
        detail = text.split("[autograd_lab]", 1)[-1].strip()
        head = text.splitlines()[0]
        return failed(msg("ex08.gradcheck_failed", what=what, head=head, detail=detail))
    except Exception as error:  # noqa: BLE001 - the learner's backward raised
        return failed(msg("ex08.backward_of_raised", what=what, type=type(error).__name__, error=error))
    return None


# -- exercise 1: Softplus --------------------------------------------------------------------------------
def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0.0, -x))  # 1 / (1 + exp(-x)) without overflow


def _slope(out: al.Tensor, x: al.Tensor, scale: float) -> tuple:
    """d out / d x for ``grad_output = scale``, or the feedback naming why the learner's backward gave none."""
    try:
        (slope,) = al.autograd.grad(out, x, al.full_like(out, scale), retain_graph=True, allow_unused=True)
    except Exception as error:  # noqa: BLE001 - the learner's backward raised
        return None, failed(msg("feedback.backward_raised", type=type(error).__name__, error=error))
    if slope is None:
        return None, failed(msg("ex08.slope_none"))
    return slope, None


def ex_08_1(Softplus) -> Feedback:  # noqa: N803 - the learner's class
    """``Softplus.apply(x)`` is ``log(1 + exp(x))``, finite for large x in float32; it saves its input with
    save_for_backward; its backward multiplies ``grad_output`` by the sigmoid; gradcheck passes."""
    problem = _not_a_function(Softplus, msg("ex08.your_class", cls="Softplus"))
    if problem is not None:
        return problem
    x = al.tensor([-3.0, -1.0, 0.0, 0.5, 2.0, 4.0], dtype=al.float64, requires_grad=True)
    out, problem = _apply(Softplus, x)
    if problem is not None:
        return problem
    if not isinstance(out, al.Tensor):
        return failed(msg("ex08.not_a_tensor", type=type(out).__name__))
    value = compare_arrays("Softplus.apply(x)", out, np.logaddexp(0.0, x.detach().numpy()), reference="log(1 + exp(x))")
    if not value:
        return value
    if out.grad_fn is None or not out.grad_fn.saved_tensors:
        return failed(msg("ex08.nothing_saved"))
    slope, problem = _slope(out, x, 1.0)
    if problem is not None:
        return problem
    derivative = compare_arrays("d Softplus(x) / dx", slope, _sigmoid(x.detach().numpy()), reference="sigmoid(x)")
    if not derivative:
        return derivative
    doubled, problem = _slope(out, x, 2.0)
    if problem is not None:
        return problem
    if np.allclose(doubled.numpy(), slope.numpy()):
        return failed(msg("ex08.ignores_grad_output"))
    problem = gradcheck_feedback(Softplus.apply, (x,), "Softplus")
    if problem is not None:
        return problem
    return _stable(Softplus)


def _stable(Softplus) -> Feedback:  # noqa: N803 - the learner's class
    """Softplus in float32 at x = -100 and 100: finite values (0 and 100) and slopes (0 and 1)."""
    far = al.tensor([-100.0, 100.0], requires_grad=True)
    out, problem = _apply(Softplus, far)
    if problem is not None:
        return problem
    values = out.detach().numpy()
    if not np.all(np.isfinite(values)):
        return failed(msg("ex08.overflow", values=values.tolist()))
    result = compare_arrays(msg("ex08.far_value"), values, [0.0, 100.0], reference=msg("ex08.softplus_stable"))
    if not result:
        return result
    slope, problem = _slope(out, far, 1.0)
    if problem is not None:
        return problem
    if not np.all(np.isfinite(slope.numpy())):
        return failed(msg("ex08.slope_overflow", slope=slope.numpy().tolist()))
    return passed(msg("ex08.softplus_passed"))


# -- exercise 2: a Linear layer with needs_input_grad --------------------------------------------------------
def _linear_inputs(*, x_grad: bool) -> tuple:
    gen = al.Generator().manual_seed(8)
    x = al.randn(4, 3, dtype=al.float64, generator=gen).requires_grad_(x_grad)
    weight = al.randn(2, 3, dtype=al.float64, generator=gen).requires_grad_()
    bias = al.randn(2, dtype=al.float64, generator=gen).requires_grad_()
    return x, weight, bias


def ex_08_2(Linear) -> Feedback:  # noqa: N803 - the learner's class
    """``Linear.apply(x, weight, bias)`` is ``x @ weight.T + bias``; backward skips gradients nobody needs."""
    problem = _not_a_function(Linear, msg("ex08.your_class", cls="Linear"))
    if problem is not None:
        return problem
    x, weight, bias = _linear_inputs(x_grad=True)
    out, problem = _apply(Linear, x, weight, bias)
    if problem is not None:
        return problem
    value = compare_arrays("Linear.apply(x, weight, bias)", out, x.detach().numpy() @ weight.detach().numpy().T
                           + bias.detach().numpy(), reference="x @ weight.T + bias")
    if not value:
        return value
    problem = gradcheck_feedback(Linear.apply, (x, weight, bias), msg("ex08.linear_inputs"))
    if problem is not None:
        return problem
    x, weight, bias = _linear_inputs(x_grad=False)
    node = Linear.apply(x, weight, bias).grad_fn
    try:
        returned = Linear.backward(node, al.ones(4, 2, dtype=al.float64))
    except Exception as error:  # noqa: BLE001 - the learner's backward raised
        return failed(msg("ex08.no_x_grad_raised", type=type(error).__name__, error=error))
    if not isinstance(returned, tuple) or len(returned) != 3:
        return failed(msg("ex08.three_grads"))
    if returned[0] is not None:
        return failed(msg("ex08.needless_grad", needs=node.needs_input_grad))
    if returned[1] is None or returned[2] is None:
        return failed(msg("ex08.missing_grad"))
    return passed(msg("ex08.linear_passed"))


# -- exercise 3: ReLU that also returns its mask -------------------------------------------------------
def ex_08_3(ReluWithMask) -> Feedback:  # noqa: N803 - the learner's class
    """``out, mask = ReluWithMask.apply(x)``: ``mask`` is 1.0 where x > 0, else 0.0, marked non-differentiable."""
    problem = _not_a_function(ReluWithMask, msg("ex08.your_class", cls="ReluWithMask"))
    if problem is not None:
        return problem
    x = al.tensor([0.3, -1.2, 2.5, -0.4, 1.7], dtype=al.float64, requires_grad=True)
    result, problem = _apply(ReluWithMask, x)
    if problem is not None:
        return problem
    if not isinstance(result, tuple) or len(result) != 2:
        return failed(msg("ex08.two_outputs"))
    out, mask = result
    values = x.detach().numpy()
    checked = compare_arrays("out", out, np.maximum(values, 0.0), reference="relu(x)")
    if checked:
        checked = compare_arrays("mask", mask, (values > 0).astype(np.float64), reference=msg("ex08.mask_values"))
    if not checked:
        return checked
    if not mask.is_floating_point():
        return failed(msg("ex08.mask_dtype", dtype=mask.dtype))
    if mask.requires_grad:
        return failed(msg("ex08.mask_requires_grad"))
    if not out.requires_grad:
        return failed(msg("ex08.out_no_grad"))
    problem = gradcheck_feedback(lambda t: ReluWithMask.apply(t)[0], (x,), msg("ex08.first_output"))
    return problem if problem is not None else passed(msg("ex08.mask_passed"))
