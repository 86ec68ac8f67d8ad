"""The checks ``gradcheck`` makes beyond comparing whole Jacobians, each as PyTorch's gradcheck makes it.

* ``fast_mode``: one random projection ``v^T J u`` per (output, input), numerical against analytical, with the
  tolerance scaled to the projection; on a mismatch the slow Jacobians are computed for the message.
* ``backward_multiplies_by_grad_output``: zero output gradients give zero input gradients, each of its input's
  dtype and size.
* ``undefined_backward_mode`` / ``undefined_forward_mode``: backward given undefined (None) output gradients,
  all of them or one at a time, gives None or zeros; forward mode gives the same tangents whether an input
  without a tangent is a plain tensor or carries zeros.
* ``batched_grad``: ``autograd.grad(..., is_grads_batched=True)`` agrees with one ``grad`` per row. PyTorch
  runs the batch through vmap; here ``is_grads_batched`` loops over it (one backward per row on the retained
  graph), so this checks that path: that backward, run again and again on one graph, gives each row's gradient.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..backend import namespace_of
from . import gradcheck as _gc
from .graph import Node, gradient_edge

GradcheckError = RuntimeError  # set to gradcheck.GradcheckError by that module (it imports this one)


# -- fast mode ------------------------------------------------------------------------------------------------
def _unit_vector(rng, size: int) -> np.ndarray:
    """A random direction with positive entries (PyTorch's: uniform in [0, 1), normalised)."""
    vec = rng.random(size)
    norm = np.linalg.norm(vec)
    return vec / norm if norm else vec


def fast_mode(func, inputs, outputs, eps, atol, rtol, nondet_tol, backward_ad: bool, forward_ad: bool) -> None:
    """Compare ``v^T (J u)`` (J u by finite differences along u) with ``(v^T J) u`` (backward) and ``J u`` with
    forward mode's JvP, for random u (per input) and v (per output), from a fixed seed."""
    rng = np.random.default_rng(0)  # (its own generator: the user's random state is left alone)
    diff = _gc.differentiable_inputs(inputs)
    all_outputs = _gc.float_outputs(func(*inputs))
    u = [_unit_vector(rng, t.numel()) for t in diff]
    v = [_unit_vector(rng, o.numel()) for o in outputs]
    numerical = [_directional(func, inputs, t, u_k, eps) for t, u_k in zip(diff, u)]  # [k][m] J_mk u_k
    kept = [o.requires_grad for o in all_outputs]
    numerical = [[jvp for jvp, keep in zip(per_output, kept) if keep] for per_output in numerical]
    if not outputs:
        if any(np.abs(jvp).max(initial=0) > nondet_tol for per_output in numerical for jvp in per_output):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    if backward_ad:
        first, second = (_backward_projections(inputs, outputs, v) for _ in range(2))
        _gc._reentrant(first, second, nondet_tol)
        for m, v_m in enumerate(v):
            for k, u_k in enumerate(u):
                ana, num = first[m][k] @ u_k, v_m @ numerical[k][m]
                if not abs(ana - num) <= atol * u_k.sum() * v_m.sum() + rtol * abs(num):
                    raise GradcheckError(_fast_message(func, inputs, outputs, num, ana, m, k, eps, atol, rtol, False))
    if forward_ad:
        analytical = _forward_projections(func, inputs, u)
        for k, u_k in enumerate(u):
            for m, (ana, num) in enumerate(zip(analytical[k], numerical[k])):
                if not np.allclose(ana, num, rtol=rtol, atol=atol * u_k.sum()):
                    raise GradcheckError(_fast_message(func, inputs, outputs, num, ana, m, k, eps, atol, rtol, True))


def _directional(func, inputs, t, direction, eps) -> list:
    """J u for each floating-point output: the central difference of the outputs along ``direction``."""
    data = t._data
    original = data.copy()
    step = namespace_of(data).asarray((direction * eps).reshape(data.shape), dtype=data.dtype)  # (on t's device)
    data[...] = original + step
    plus = [_gc.host64(o) for o in _gc.float_outputs(func(*inputs))]
    data[...] = original - step
    minus = [_gc.host64(o) for o in _gc.float_outputs(func(*inputs))]
    data[...] = original
    return [(p - q) / (2 * eps) for p, q in zip(plus, minus)]


def _backward_projections(inputs, outputs, v) -> list:
    """``v_m^T J_mk`` for each output m and input k: one backward per output, seeded with ``v_m``."""
    from ..creation import tensor
    from . import grad as autograd_grad
    diff = _gc.differentiable_inputs(inputs)
    rows = []
    for out, v_m in zip(outputs, v):
        seed = tensor(v_m.reshape(out.shape), dtype=out.dtype, device=out.device)
        grads = autograd_grad(out, diff, seed, retain_graph=True, allow_unused=True)
        rows.append([np.zeros(t.numel()) if g is None else _gc.host64(g) for g, t in zip(grads, diff)])
    return rows


def _forward_projections(func, inputs, u) -> list:
    """``J_mk u_k`` by forward mode: one pass per input, its tangent ``u_k``, the others zero."""
    from ..creation import tensor, zeros_like
    from . import forward_ad as fw
    diff = _gc.differentiable_inputs(inputs)
    result = []
    with fw.dual_level():
        for k, u_k in enumerate(u):
            duals = iter([fw.make_dual(t.detach(), tensor(u_k.reshape(t.shape), dtype=t.dtype, device=t.device)
                                       if i == k else zeros_like(t)) for i, t in enumerate(diff)])
            dual_inputs = [next(duals) if _gc._is_tensor(x) and x.requires_grad else x for x in inputs]
            outs = [o for o in _gc.float_outputs(func(*dual_inputs))]
            result.append([np.zeros(o.numel()) if fw.unpack_dual(o).tangent is None
                           else _gc.host64(fw.unpack_dual(o).tangent) for o in outs])
    kept = [o.requires_grad for o in _gc.float_outputs(func(*inputs))]
    return [[jvp for jvp, keep in zip(per_output, kept) if keep] for per_output in result]


def _fast_message(func, inputs, outputs, num, ana, m, k, eps, atol, rtol, forward: bool) -> str:
    """PyTorch's fast-mode message: the projections, then the Jacobians recomputed in slow mode."""
    numerical = _gc.numerical_jacobians(func, inputs, eps)[k]
    numerical = [n for n, o in zip(numerical, _gc.float_outputs(func(*inputs))) if o.requires_grad][m]
    analytical = (_gc.forward_jacobians(func, inputs, False) if forward
                  else _gc.backward_jacobians(inputs, outputs, False))[k][m]
    mode = "computed with forward mode " if forward else ""
    quantity = (lambda x: _gc._as_tensor(x)) if np.ndim(num) else float
    text = (f"Jacobian {mode}mismatch for output {m} with respect to input {k},\n"
            f"numerical:{quantity(num)}\nanalytical:{quantity(ana)}\n\n"
            "The above quantities relating the numerical and analytical jacobians are computed \nin fast mode. "
            "Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
            f"Numerical:\n {_gc._as_tensor(numerical)}\nAnalytical:\n{_gc._as_tensor(analytical)}\n\n"
            f"The max per-element difference (slow mode) is: {np.abs(numerical - analytical).max(initial=0)}.\n")
    if np.allclose(analytical, numerical, rtol=rtol, atol=atol):
        text += ("\nFast gradcheck failed but element-wise differences are small. This means that the test might've "
                 "passed in slow_mode! [autograd_lab] call gradcheck with fast_mode=False")
    return text


# -- zero output gradients ------------------------------------------------------------------------------------
def backward_multiplies_by_grad_output(inputs, outputs) -> None:
    from ..creation import zeros_like
    from . import grad as autograd_grad
    diff = _gc.differentiable_inputs(inputs)
    grads = autograd_grad(outputs, diff, [zeros_like(o) for o in outputs], allow_unused=True)
    for g, t in zip(grads, diff):
        if g is None:
            continue
        if bool((g._data != 0).any()):
            raise GradcheckError("backward not multiplied by grad_output [autograd_lab] output gradients of zero "
                                 "gave a non-zero input gradient: the backward must scale what it returns by them")
        if g.dtype is not t.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != t.shape:
            raise GradcheckError("grad is incorrect size")


# -- undefined output gradients ---------------------------------------------------------------------------
class UndefinedGrad(Node):
    """Stands between an output and its history and sends ``None`` back: the output's gradient is undefined."""

    __slots__ = ()

    def _backward(self, grad_outputs: tuple) -> list:
        return [None]


def _undefined(output):
    from ..tensor import Tensor
    node = UndefinedGrad((gradient_edge(output),), ((output._data.shape, output._data.dtype),))
    return Tensor._make(output._data, grad_fn=node)


def _warn_bc_breaking() -> None:
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by default, but "
                  "it may break existing callers of this function. If this is true for you, you can call this "
                  'function with "check_undefined_grad=False" to disable the feature', UserWarning, stacklevel=4)


def undefined_backward_mode(func, inputs) -> None:
    """Backward given undefined output gradients (all at once, then one at a time) gives None or zeros."""
    from ..creation import zeros_like
    from . import grad as autograd_grad
    diff = _gc.differentiable_inputs(inputs)
    count = len([o for o in _gc.float_outputs(func(*inputs)) if o.requires_grad])
    cases = [None] + (list(range(count)) if count > 1 else [])  # None: every output undefined
    for undefined in cases:
        outputs = [o for o in _gc.float_outputs(func(*inputs)) if o.requires_grad]
        outputs = [_undefined(o) if undefined in (None, m) else o for m, o in enumerate(outputs)]
        try:
            grads = autograd_grad(outputs, diff, [zeros_like(o) for o in outputs], allow_unused=True)
        except RuntimeError as exc:
            _warn_bc_breaking()
            raise GradcheckError("Expected backward function to handle undefined output grads. [autograd_lab] a "
                                 "backward given None for an output's gradient (a custom Function after "
                                 f"ctx.set_materialize_grads(False)) must treat it as zeros; it raised: {exc}") from exc
        if any(g is not None and bool((g._data != 0).any()) for g in grads):
            _warn_bc_breaking()
            raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are undefined "
                                 "or zero.")


def undefined_forward_mode(func, inputs) -> None:
    """Forward mode gives each output the same tangent whether an input without one carries zeros or is plain."""
    from ..creation import zeros_like
    from . import forward_ad as fw
    rng = np.random.default_rng(1)
    diff_positions = [i for i, x in enumerate(inputs) if _gc._is_tensor(x) and x.requires_grad]
    with fw.dual_level():
        duals = {i: fw.make_dual(inputs[i].detach(), _random_like(rng, inputs[i])) for i in diff_positions}
        for i in diff_positions:
            args = [duals.get(j, x) for j, x in enumerate(inputs)]
            args[i] = fw.make_dual(inputs[i].detach(), zeros_like(inputs[i]))
            with_zeros = _gc.float_outputs(func(*args))
            args[i] = inputs[i].detach()
            without = _gc.float_outputs(func(*args))
            for m, (a, b) in enumerate(zip(with_zeros, without)):
                ta, tb = fw.unpack_dual(a).tangent, fw.unpack_dual(b).tangent
                if ta is not None and tb is not None and not np.allclose(_gc.host64(ta), _gc.host64(tb)):
                    raise GradcheckError(f"Mismatch in tangent values for output with index: {m} when input: "
                                         f"{inputs[i]} has an undefined tangent value. Got: {ta} but expected: {tb}")


def _random_like(rng, t):
    from ..creation import tensor
    return tensor(rng.standard_normal(t.shape), dtype=t.dtype, device=t.device)


# -- batched gradients ----------------------------------------------------------------------------------------
_BATCHED_EXPLANATION = ("gradcheck or gradgradcheck failed while testing batched gradient computation. "
                        "[autograd_lab] autograd.grad(..., is_grads_batched=True) runs one backward per row of the "
                        "batched output gradient, on the retained graph: a backward that changes its saved state or "
                        "depends on earlier runs gives rows that differ from one gradient at a time. Pass "
                        "check_batched_grad=False to skip this check.")


def batched_grad(inputs, output, m: int) -> None:
    """Two random output gradients, batched (``is_grads_batched``), against one ``grad`` each."""
    from ..creation import zeros
    from ..ops.join import stack
    from . import grad as autograd_grad
    diff = _gc.differentiable_inputs(inputs)
    rng = np.random.default_rng(2)

    def vjp(v):
        grads = autograd_grad(output, diff, v, retain_graph=True, allow_unused=True, is_grads_batched=v.ndim > output.ndim)
        return [zeros(t.shape, dtype=t.dtype, device=t.device) if g is None else g for g, t in zip(grads, diff)]
    seeds = [_random_like(rng, output) for _ in range(2)]
    expected = [stack(rows) for rows in zip(*[vjp(v) for v in seeds])]
    try:
        result = vjp(stack(seeds))
    except RuntimeError as exc:
        raise GradcheckError(f"While computing batched gradients, got: {exc}\n\n{_BATCHED_EXPLANATION}") from exc
    for k, (got, want) in enumerate(zip(result, expected)):
        if got.shape != want.shape or not np.allclose(_gc.host64(got), _gc.host64(want)):
            raise GradcheckError(f"For output {m} and input {k}:\n\n{_BATCHED_EXPLANATION}\n\nGot:\n{got}\n\n"
                                 f"Expected:\n{want}")


# -- gradgradcheck's output gradients --------------------------------------------------------------------------
def random_grad_outputs(outputs, non_contiguous: bool) -> tuple:
    """One random gradient per output (uniform in [-1, 1), a fixed seed), requiring grad; with ``non_contiguous``
    each is a strided view (every other element of a larger array), as PyTorch's ``noncontiguous`` makes them."""
    from ..creation import tensor
    rng = np.random.default_rng(0)
    result = []
    for o in outputs:
        values = rng.uniform(-1, 1, o.shape)
        g = tensor(values, dtype=o.dtype, device=o.device)
        if non_contiguous and o.numel() > 1:
            wide = tensor(np.stack([values, np.zeros_like(values)], axis=-1), dtype=o.dtype, device=o.device)
            g = wide[..., 0]
        result.append(g.requires_grad_())
    return tuple(result)
