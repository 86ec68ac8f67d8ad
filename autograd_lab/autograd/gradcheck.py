"""``gradcheck`` / ``gradgradcheck``: compare autograd's Jacobians with central finite differences.

Checks run in float64 (a warning says so otherwise). On failure the error shows, beyond PyTorch's
numerical and analytical Jacobians, which input and which elements disagree, numeric beside analytic.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..backend import namespace_of, to_host

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical gradients disagree."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_inputs(inputs):
    from ..tensor import Tensor
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _outputs(func, inputs):
    from ..tensor import Tensor
    out = _as_tuple(func(*inputs))
    return [o for o in out if isinstance(o, Tensor) and o.is_floating_point()]


def _numerical_jacobians(func, inputs, eps):
    """J[out][inp] of shape (out.numel, inp.numel), by central differences on each input element."""
    from .grad_mode import no_grad
    with no_grad():
        outs = _outputs(func, inputs)
        jac = [[np.zeros((o.numel(), t.numel())) for _, t in _differentiable_inputs(inputs)] for o in outs]
        for k, (_, t) in enumerate(_differentiable_inputs(inputs)):
            flat = t._data.reshape(-1) if t._data.flags["C_CONTIGUOUS"] else None
            if flat is None or (flat.size and not namespace_of(flat).shares_memory(flat, t._data)):  # empty: nothing to perturb
                raise GradcheckError("gradcheck needs contiguous inputs; call .contiguous() on them first")
            for j in range(flat.size):
                original = flat[j].item()
                flat[j] = original + eps
                plus = [_host64(o) for o in _outputs(func, inputs)]
                flat[j] = original - eps
                minus = [_host64(o) for o in _outputs(func, inputs)]
                flat[j] = original
                for m in range(len(outs)):
                    jac[m][k][:, j] = (plus[m] - minus[m]) / (2 * eps)
    return jac


def _analytical_jacobians(func, inputs):
    from ..creation import zeros_like
    from . import grad as autograd_grad
    diff = _differentiable_inputs(inputs)
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o.numel(), t.numel())) for _, t in diff] for o in outs]
    for m, out in enumerate(outs):
        if not out.requires_grad:
            continue
        for r in range(out.numel()):
            seed = zeros_like(out)
            seed._data.reshape(-1)[r] = 1
            grads = autograd_grad(out, [t for _, t in diff], seed, retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    jac[m][k][r, :] = _host64(g)
    return jac


def _host64(t):
    """A copy of a tensor's values as a flat float64 NumPy array (from its device if it has one)."""
    return np.array(to_host(t._data), dtype=np.float64).reshape(-1)  # a copy: the input is perturbed next


def _mismatch_report(num, ana, atol, rtol, limit=8) -> str:
    bad = np.argwhere(~np.isclose(ana, num, rtol=rtol, atol=atol))
    lines = [f"  {len(bad)} of {num.size} Jacobian entries disagree (row = output element, col = input element):"]
    for row, col in bad[:limit]:
        lines.append(f"    [out {row}, in {col}]  numerical {num[row, col]: .6g}   analytical {ana[row, col]: .6g}")
    if len(bad) > limit:
        lines.append(f"    ... and {len(bad) - limit} more")
    return "\n".join(lines)


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              fast_mode: bool = False, **_ignored) -> bool:
    """Check ``func``'s gradients against finite differences at ``inputs``; True when they agree.

    Every input with ``requires_grad=True`` is perturbed element by element by ``±eps``. Entries
    agree when ``|numerical - analytical| <= atol + rtol * |numerical|``.
    """
    from .. import creation
    from ..tensor import Tensor
    inputs = _as_tuple(inputs)
    diff = _differentiable_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i, t in diff:
        if t.dtype is not creation.backend.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. This check will likely "
                "fail if all the inputs are not of double precision floating point. ", UserWarning, stacklevel=2)
    outputs = _outputs(func, inputs)
    numerical = _numerical_jacobians(func, inputs, eps)
    if not any(isinstance(o, Tensor) and o.requires_grad for o in outputs):
        # no differentiable output (as PyTorch checks it): the function must then not depend on its inputs
        if any(np.any(jac != 0) for per_output in numerical for jac in per_output):
            message = ("Numerical gradient for function expected to be zero [autograd_lab] none of the function's "
                       "outputs requires grad, yet they change when the inputs do: is the graph cut (.detach(), "
                       ".data, no_grad) somewhere?")
            if raise_exception:
                raise GradcheckError(message)
            return False
        return True
    analytical = _analytical_jacobians(func, inputs)
    for m in range(len(numerical)):
        for k, (i, _) in enumerate(diff):
            num, ana = numerical[m][k], analytical[m][k]
            if not np.allclose(num, ana, rtol=rtol, atol=atol, equal_nan=False):
                message = (
                    f"Jacobian mismatch for output {m} with respect to input {i},\n"
                    f"numerical:{creation.tensor(num, dtype=creation.backend.float64)}\n"
                    f"analytical:{creation.tensor(ana, dtype=creation.backend.float64)}\n\n"
                    f"[autograd_lab] where they disagree (atol={atol}, rtol={rtol}):\n"
                    f"{_mismatch_report(num, ana, atol, rtol)}"
                )
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, **_ignored) -> bool:
    """Check second derivatives: ``gradcheck`` of the map (inputs, v) -> vJP(func)(inputs, v)."""
    from .. import creation
    from . import grad as autograd_grad
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, _ in _differentiable_inputs(inputs)]
    if grad_outputs is None:
        outs = _outputs(func, inputs)
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            creation.tensor(rng.standard_normal(o.shape), dtype=o.dtype, device=o.device, requires_grad=True)
            for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def vjp(*args):
        from .grad_mode import enable_grad
        ins, gouts = args[:n_in], args[n_in:]
        with enable_grad():  # the numerical pass runs under no_grad; the vJP itself needs a graph
            outs = _outputs(func, ins)
            grads = autograd_grad(outs, [ins[i] for i in diff_idx], gouts, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
