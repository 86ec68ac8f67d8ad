"""``gradcheck`` / ``gradgradcheck``: compare autograd's Jacobians with central finite differences, as PyTorch does.

Each input that requires grad is perturbed by ``±eps``, one element at a time, and the slope of every output
gives one row of the *numerical* Jacobian. The *analytical* one comes from autograd: from backward (one vJP per
output element; ``check_backward_ad``) and, with ``check_forward_ad``, from forward mode (one JvP per input
element). Entries agree when ``|analytical - numerical| <= atol + rtol * |numerical|``. A Jacobian is shown, as
PyTorch shows it, with one row per input element and one column per output element.

Besides the Jacobians, backward must give the same result twice (``nondet_tol``), give zeros for zero output
gradients, accept undefined (None) output gradients (``check_undefined_grad``), and with ``check_batched_grad``
agree with batched gradients (``autograd.grad(..., is_grads_batched=True)``); see :mod:`.gradcheck_checks`.
``fast_mode`` compares one random projection ``v^T J u`` instead of whole Jacobians. NumPy's warnings about
infinities and NaNs are silenced while it runs (finite differences probe the edges of a domain on purpose).
Checks run in float64 (a warning says so otherwise); on failure the error shows PyTorch's text and then, after
``[autograd_lab]``, which elements disagree, numeric beside analytic.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..backend import to_host
from . import gradcheck_checks as _checks

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical gradients disagree."""


_checks.GradcheckError = GradcheckError


# -- inputs and outputs -------------------------------------------------------------------------------
def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_tensor(x) -> bool:
    from ..tensor import Tensor
    return isinstance(x, Tensor)


def differentiable_inputs(inputs) -> list:
    """The inputs that require grad, in order: the Jacobians' "input k" counts these."""
    return [t for t in inputs if _is_tensor(t) and t.requires_grad]


def float_outputs(outputs) -> list:
    return [o for o in _as_tuple(outputs) if _is_tensor(o) and o.is_floating_point()]


def _check_inputs(inputs: tuple) -> None:
    any_requires_grad = False
    for i, t in enumerate(inputs):
        if not (_is_tensor(t) and t.requires_grad):
            continue
        any_requires_grad = True
        if t._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. This "
                          "check will likely fail if all the inputs are not of double precision floating point or "
                          "complex. ", UserWarning, stacklevel=3)
        if t._data.size and any(step == 0 and size > 1 for step, size in zip(t._data.strides, t._data.shape)):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                               "non-overlapping to be able to compute the numerical gradients correctly. You should "
                               "call .contiguous on the input before passing it to gradcheck.")
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def host64(t) -> np.ndarray:
    """A copy of a tensor's values as a flat float64 NumPy array (from its device if it has one)."""
    return np.array(to_host(t._data), dtype=np.float64).reshape(-1)  # a copy: the input is perturbed next


# -- Jacobians ---------------------------------------------------------------------------------------------
def numerical_jacobians(func, inputs: tuple, eps: float) -> list:
    """``J[k][m]`` of shape (input k's numel, output m's numel), by central differences on each element of
    differentiable input ``k`` (every floating-point output ``m``, differentiable or not)."""
    diff = differentiable_inputs(inputs)
    outs = float_outputs(func(*inputs))
    jac = [[np.zeros((t.numel(), o.numel())) for o in outs] for t in diff]
    for k, t in enumerate(diff):
        data = t._data
        for j, index in enumerate(np.ndindex(data.shape)):
            original = data[index].item()
            data[index] = original + eps
            plus = [host64(o) for o in float_outputs(func(*inputs))]
            data[index] = original - eps
            minus = [host64(o) for o in float_outputs(func(*inputs))]
            data[index] = original
            for m in range(len(outs)):
                jac[k][m][j, :] = (plus[m] - minus[m]) / (2 * eps)
    return jac


def backward_jacobians(inputs: tuple, outputs: list, check_grad_dtypes: bool) -> list:
    """``J[k][m]`` from backward: one vJP per element of each differentiable output, the gradient checked to
    have its input's size (and with ``check_grad_dtypes`` its dtype)."""
    from ..creation import zeros_like
    from . import grad as autograd_grad
    diff = differentiable_inputs(inputs)
    jac = [[np.zeros((t.numel(), o.numel())) for o in outputs] for t in diff]
    for m, out in enumerate(outputs):
        for r in range(out.numel()):
            seed = zeros_like(out)
            seed._data.reshape(-1)[r] = 1
            grads = autograd_grad(out, diff, seed, retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is None:
                    continue
                if g.shape != diff[k].shape:
                    raise GradcheckError("Analytical gradient has incorrect size")
                if check_grad_dtypes and g.dtype is not diff[k].dtype:
                    raise GradcheckError("Gradient has dtype mismatch")
                jac[k][m][:, r] = host64(g)
    return jac


def forward_jacobians(func, inputs: tuple, check_grad_dtypes: bool) -> list:
    """``J[k][m]`` from forward-mode AD: one JvP per element of each differentiable input (a one-hot tangent),
    the function given detached dual inputs, as PyTorch's gradcheck gives them."""
    from ..creation import zeros_like
    from . import forward_ad as fw
    diff = differentiable_inputs(inputs)
    outs = float_outputs(func(*inputs))
    jac = [[np.zeros((t.numel(), o.numel())) for o in outs] for t in diff]
    with fw.dual_level():
        tangents = [zeros_like(t) for t in diff]
        duals = iter([fw.make_dual(t.detach(), tangent) for t, tangent in zip(diff, tangents)])
        dual_inputs = [next(duals) if _is_tensor(x) and x.requires_grad else x for x in inputs]
        for k, tangent in enumerate(tangents):
            flat = tangent._data.reshape(-1)
            for j in range(flat.size):
                flat[j] = 1
                for m, out in enumerate(float_outputs(func(*dual_inputs))):
                    out_t = fw.unpack_dual(out).tangent
                    if out_t is not None:
                        if check_grad_dtypes and out_t.dtype is not out.dtype:
                            raise GradcheckError("Forward AD gradient has dtype mismatch.")
                        jac[k][m][j, :] = host64(out_t)
                flat[j] = 0
    return jac


# -- comparing them ------------------------------------------------------------------------------------------
def _as_tensor(array: np.ndarray):
    from ..backend import float64
    from ..creation import tensor
    return tensor(array, dtype=float64)


def mismatch_message(numerical, analytical, m: int, k: int, atol: float, rtol: float, forward: bool) -> str:
    """PyTorch's message for a Jacobian mismatch, then the entries that disagree, numeric beside analytic."""
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {m} with respect to input {k},\n"
            f"numerical:{_as_tensor(numerical)}\nanalytical:{_as_tensor(analytical)}\n\n"
            f"[autograd_lab] where they disagree (atol={atol}, rtol={rtol}):\n"
            f"{_mismatch_report(numerical, analytical, atol, rtol)}")


def _mismatch_report(num, ana, atol, rtol, limit=8) -> str:
    bad = np.argwhere(~np.isclose(ana, num, rtol=rtol, atol=atol))
    lines = [f"  {len(bad)} of {num.size} Jacobian entries disagree (row = output element, col = input element):"]
    for row, col in bad[:limit]:
        lines.append(f"    [out {col}, in {row}]  numerical {num[row, col]: .6g}   analytical {ana[row, col]: .6g}")
    if len(bad) > limit:
        lines.append(f"    ... and {len(bad) - limit} more")
    return "\n".join(lines)


def _compare(numerical: list, analytical: list, outputs_kept: list, atol: float, rtol: float, forward: bool) -> None:
    """Raise at the first (output, input) whose Jacobians disagree; ``outputs_kept``: which numerical outputs
    are differentiable (the analytical Jacobians have those only)."""
    for k, per_output in enumerate(analytical):
        numeric = [n for n, kept in zip(numerical[k], outputs_kept) if kept]
        for m, (ana, num) in enumerate(zip(per_output, numeric)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                raise GradcheckError(mismatch_message(num, ana, m, k, atol, rtol, forward))


def _reentrant(first: list, second: list, nondet_tol: float) -> None:
    for row_a, row_b in zip(first, second):
        for a, b in zip(row_a, row_b):
            if a.size and np.abs(a - b).max() > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                    "times gives different values, although analytical gradient matches numerical gradient.The "
                    f"tolerance for nondeterminism was {nondet_tol}. [autograd_lab] a backward that reads a random "
                    "number, or state it changes, gives this; pass nondet_tol= to allow some difference")


def _no_differentiable_outputs(numerical: list) -> None:
    if any(np.any(jac != 0) for per_output in numerical for jac in per_output):
        raise GradcheckError("Numerical gradient for function expected to be zero [autograd_lab] none of the "
                             "function's outputs requires grad, yet they change when the inputs do: is the graph cut "
                             "(.detach(), .data, no_grad) somewhere?")


def _slow_mode(func, inputs, outputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, backward_ad, forward_ad) -> None:
    numerical = numerical_jacobians(func, inputs, eps)
    kept = [o.requires_grad for o in float_outputs(func(*inputs))]
    if not outputs:
        _no_differentiable_outputs(numerical)
        return
    if backward_ad:
        analytical = backward_jacobians(inputs, outputs, check_grad_dtypes)
        _compare(numerical, analytical, kept, atol, rtol, forward=False)
        _reentrant(analytical, backward_jacobians(inputs, outputs, check_grad_dtypes), nondet_tol)
    if forward_ad:
        _compare(numerical, forward_jacobians(func, inputs, check_grad_dtypes), kept, atol, rtol, forward=True)


# -- the public functions ------------------------------------------------------------------------------------
def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
              nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True, fast_mode: bool = False,
              masked: bool | None = None) -> bool:
    """Check ``func``'s derivatives at ``inputs`` against finite differences; True when they agree.

    ``check_backward_ad`` (backward, the default) and ``check_forward_ad`` (forward mode) choose what is checked;
    ``nondet_tol`` how much two runs of backward may differ; ``check_undefined_grad`` that backward accepts None
    output gradients; ``check_batched_grad`` that ``is_grads_batched`` agrees with one gradient at a time;
    ``fast_mode`` compares random projections instead of whole Jacobians. With ``raise_exception=False`` a
    failure returns False instead of raising ``GradcheckError``. ``masked`` is accepted for PyTorch's signature
    (it concerns sparse tensors, which autograd_lab does not have).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_batched_forward_grad:
        raise NotImplementedError("check_batched_forward_grad=True is not supported by autograd_lab: it checks "
                                  "forward-mode AD under vmap, and autograd_lab has no vmap (nor a batched form of "
                                  "forward mode to compare with). Leave it False, the default; check_forward_ad=True "
                                  "checks the forward-mode derivatives themselves")
    try:
        with np.errstate(all="ignore"):
            return _gradcheck(func, _as_tuple(inputs), eps, atol, rtol, nondet_tol, check_undefined_grad,
                              check_grad_dtypes, check_batched_grad, check_forward_ad, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes, check_batched_grad,
               check_forward_ad, check_backward_ad, fast_mode) -> bool:
    _check_inputs(inputs)
    outputs = [o for o in float_outputs(func(*inputs)) if o.requires_grad]
    if fast_mode:
        _checks.fast_mode(func, inputs, outputs, eps, atol, rtol, nondet_tol, check_backward_ad, check_forward_ad)
    else:
        _slow_mode(func, inputs, outputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, check_backward_ad,
                   check_forward_ad)
    if check_forward_ad and check_undefined_grad:
        _checks.undefined_forward_mode(func, inputs)
    if check_backward_ad:
        if check_batched_grad:
            for m, out in enumerate(outputs):
                _checks.batched_grad(inputs, out, m)
        if outputs:
            _checks.backward_multiplies_by_grad_output(inputs, outputs)
        if check_undefined_grad and outputs:
            _checks.undefined_backward_mode(func, inputs)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives: ``gradcheck`` of the map (inputs, v) -> vJP(func)(inputs, v), differentiated by
    backward (``check_rev_over_rev``) and/or by forward mode (``check_fwd_over_rev``). Without ``grad_outputs``,
    the v are random (uniform in [-1, 1), fixed seed), non-contiguous with ``gen_non_contig_grad_outputs``."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = [o for o in float_outputs(func(*inputs)) if o.requires_grad]
        grad_outputs = _checks.random_grad_outputs(outputs, gen_non_contig_grad_outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_positions = [i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    differentiated_v = [_is_tensor(g) and g.requires_grad for g in grad_outputs]

    def vjp(*args):
        from .grad_mode import enable_grad
        # (forward mode gives detached duals: the vJP needs them, and the v it differentiates, to require grad)
        ins = tuple(x.requires_grad_() if i in diff_positions else x for i, x in enumerate(args[:n_in]))
        gouts = tuple(g.requires_grad_() if wanted else g for g, wanted in zip(args[n_in:], differentiated_v))
        with enable_grad():
            outs = [o for o in float_outputs(func(*ins)) if o.requires_grad]
            grads = _autograd_grad(outs, [ins[i] for i in diff_positions], gouts)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                     nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, fast_mode=fast_mode)


def _autograd_grad(outputs, inputs, grad_outputs):
    from . import grad as autograd_grad
    return autograd_grad(outputs, inputs, grad_outputs, create_graph=True, allow_unused=True)
