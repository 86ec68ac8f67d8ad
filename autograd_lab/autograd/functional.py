"""``autograd.functional``: Jacobians, Hessians and their products with vectors, built on ``autograd.grad``.

Built on ``autograd.grad`` and on forward mode (:mod:`.forward_ad`):

* ``vjp``  v^T J: one backward pass seeded with ``v``.
* ``jvp``  J v: one forward-mode pass, the inputs carrying ``v`` as tangents (PyTorch's ``functional.jvp``
  uses the *double-backward trick* instead, which is kept here for ``strict=True`` and for functions using
  an op or Function without a forward derivative: the VJP u -> J^T u is linear in a dummy seed ``u``, so
  differentiating it with respect to ``u`` along ``v`` gives J v with a second backward pass).
* ``jacobian``: one VJP per output element (a row of J each), or with ``strategy="forward-mode"`` one JvP per
  input element (a column each); ``hessian``: the Jacobian of the gradient.
* ``vhp`` v^T H: the gradient of <grad f, v>; ``hvp`` H v: the double-backward trick on the gradient.

Each function takes a tensor or a tuple of tensors and returns results in the same form.
``create_graph=True`` keeps the results differentiable (gradients through Hessian-vector products);
``strict=True`` raises when an output does not depend on an input instead of returning zeros.
"""

from __future__ import annotations

from collections.abc import Callable

from . import forward_ad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


# -- turning arguments into tuples and back ----------------------------------------------------
def _as_tuple(value, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple); TypeError naming the argument otherwise."""
    from ..tensor import Tensor
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"value at index {i}" if was_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(item)}.")
    return was_tuple, items


def _unpack(results, *was_tuple: bool):
    """Undo ``_as_tuple``: one flag for a flat tuple, two (outer, inner) for a tuple of tuples."""
    if len(was_tuple) == 2:
        outer, inner = was_tuple
        if not inner:
            results = tuple(row[0] for row in results)
        return results if outer else results[0]
    return results if was_tuple[0] else results[0]


def _fresh_leaves(tensors: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects for the user's function to work on.

    With ``create_graph`` a tensor that requires grad is passed through a differentiable view, so the
    results stay connected to it; otherwise it is detached (and made to require grad if ``need_graph``).
    Always a new object, so that the user's function capturing the original tensor is not mistaken
    for it using the argument.
    """
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(results, create_graph: bool):
    """Detach results (nested tuples too) unless the caller asked for a differentiable graph."""
    if create_graph:
        return results
    return tuple(r.detach() if not isinstance(r, tuple) else _finish(r, False) for r in results)


def _check_v(v: tuple, like: tuple, like_is_tuple: bool) -> None:
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (vi, ref) in enumerate(zip(v, like)):
        if vi.shape != ref.shape:
            prefix = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {ref.size()!r} but got {vi.size()!r}.")


def _prepare_v(v, like: tuple, like_is_tuple: bool, create_graph: bool, fn_name: str, missing_message: str) -> tuple:
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(missing_message)
        return (None,)
    _, v = _as_tuple(v, "v", fn_name)
    v = _fresh_leaves(v, create_graph, need_graph=False)
    _check_v(v, like, like_is_tuple)
    return v


_V_FOR_OUTPUT = ("The vector v can only be None if the user-provided function returns a single Tensor with a "
                 "single element.")
_V_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor with "
                "a single element.")


# -- strict mode ---------------------------------------------------------------------------------
_NOT_REQUIRING_GRAD = {  # what it means when tensor i of each kind does not require grad (PyTorch's words)
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
               "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
               "and that the hessian depends on the inputs.",
}


def _strict_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every tensor of ``tensors`` must exist and require grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NOT_REQUIRING_GRAD[kind].format(i=i))


_INDEPENDENT = {  # a gradient came back None at this stage of a computation
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _zeros_for_missing(grads: tuple, like: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Replace ``None`` gradients by zeros (the mathematical value), or raise in strict mode."""
    from ..creation import zeros_like
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        result.append(g)
    return tuple(result)


# -- the one primitive ---------------------------------------------------------------------------
def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False,
          retain_graph: bool | None = None) -> tuple:
    """``autograd.grad`` that skips outputs which are ``None`` or need no grad, and gives ``None`` for unused inputs."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    outs, seeds = zip(*kept)
    return grad(outs, inputs, seeds, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)


# -- vector products -----------------------------------------------------------------------------
def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``, shaped like the inputs.

    ``v`` is shaped like ``func``'s output (optional when that output has one element).
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh_leaves(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _strict_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, create_graph, "vjp", _V_FOR_OUTPUT)
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        products = _zeros_for_missing(_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict,
                                      create_graph, "back")
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(products, create_graph), inputs_tuple)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``, shaped like the outputs.

    Computed in forward mode: one pass of ``func`` on dual inputs whose tangents are ``v``. With ``strict=True``,
    inside a dual level, or when ``func`` uses an op or custom Function without a forward derivative, it is computed
    as PyTorch's ``functional.jvp`` computes it, with two backward passes (the double-backward trick): ``g(u) = J^T u``
    is linear in a dummy ``u``, so the gradient of ``<g(u), v>`` with respect to ``u`` is J v. Same values.
    """
    if not strict and forward_ad._state.level is None:
        try:
            return _forward_jvp(func, inputs, v, create_graph)
        except NotImplementedError as exc:
            if not getattr(exc, "forward_rule_missing", False):
                raise  # (else an op without a forward derivative: by two backward passes instead)
    return _double_backward_jvp(func, inputs, v, create_graph, strict)


def _forward_jvp(func: Callable, inputs, v, create_graph: bool):
    from ..creation import ones_like, zeros_like
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs = _fresh_leaves(inputs, create_graph, need_graph=True)  # (func may differentiate its inputs itself)
    v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_FOR_INPUT)
    v = tuple(ones_like(x) if t is None else t for t, x in zip(v, inputs))
    with forward_ad.dual_level(), enable_grad():
        duals = tuple(forward_ad.make_dual(x, t) for x, t in zip(inputs, v))
        outputs_tuple, outputs = _as_tuple(func(*duals), "outputs of the user-provided function", "jvp")
        tangents = [forward_ad.unpack_dual(out).tangent for out in outputs]
    # (the outputs are func's own, as in PyTorch: closing the level took their tangents off)
    products = tuple(zeros_like(out) if t is None else t for out, t in zip(outputs, tangents))
    return _unpack(_finish(outputs, create_graph), outputs_tuple), _unpack(_finish(products, create_graph), outputs_tuple)


def _double_backward_jvp(func: Callable, inputs, v, create_graph: bool, strict: bool):
    from ..creation import zeros_like
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh_leaves(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_FOR_INPUT)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _strict_requires_grad(outputs, "outputs", strict)
        # the value of u never matters (the VJP is linear in it); zeros keep inf/nan out of the graph
        dummy = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        vjp_of_dummy = _grad(outputs, inputs, dummy, create_graph=True)
        _strict_requires_grad(vjp_of_dummy, "grad_inputs", strict)
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        products = _zeros_for_missing(_grad(vjp_of_dummy, dummy, v, create_graph=create_graph), outputs, strict,
                                      create_graph, "back_trick")
    outputs, products = _finish(outputs, create_graph), _finish(products, create_graph)
    return _unpack(outputs, outputs_tuple), _unpack(products, outputs_tuple)


def _scalar_output(func: Callable, inputs: tuple, strict: bool, fn_name: str):
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _strict_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outputs


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)`` for a scalar ``func``: the gradient of ``<grad func, v>``."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _fresh_leaves(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "vhp", _V_FOR_INPUT)
        outputs = _scalar_output(func, inputs, strict, "vhp")
        gradient = _grad(outputs, inputs, create_graph=True)
        _strict_requires_grad(gradient, "jacobian", strict)
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        products = _zeros_for_missing(_grad(gradient, inputs, v, create_graph=create_graph), inputs, strict,
                                      create_graph, "double_back")
    return _finish(outputs, create_graph)[0], _unpack(_finish(products, create_graph), inputs_tuple)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)`` for a scalar ``func``, by the double-backward trick on its gradient.

    Equal to ``vhp`` when ``func`` is twice continuously differentiable (H is then symmetric), and slower.
    """
    from ..creation import zeros_like
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _fresh_leaves(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "hvp", _V_FOR_INPUT)
        outputs = _scalar_output(func, inputs, strict, "hvp")
        gradient = _grad(outputs, inputs, create_graph=True)
        _strict_requires_grad(gradient, "jacobian", strict)
        dummy = tuple(zeros_like(t, requires_grad=True) for t in inputs)
        h_transpose_dummy = _grad(gradient, inputs, dummy, create_graph=True)
        _strict_requires_grad(gradient, "hessian", strict)  # as PyTorch: checks the gradient again
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        products = _zeros_for_missing(_grad(h_transpose_dummy, dummy, v, create_graph=create_graph), inputs, strict,
                                      create_graph, "double_back_trick")
    return _finish(outputs, create_graph)[0], _unpack(_finish(products, create_graph), inputs_tuple)


# -- full matrices -------------------------------------------------------------------------------
def _reverse_jacobian(outputs: tuple, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """J[i][j] of shape out_i.shape + in_j.shape, one backward pass per output element (a row each)."""
    from ..creation import zeros_like
    from ..ops.join import stack
    jac = []
    for i, out in enumerate(outputs):
        rows: list[list] = [[] for _ in inputs]
        flat = out.reshape(-1)
        for k in range(out.numel()):
            row = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (g, inp) in enumerate(zip(row, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    g = zeros_like(inp)
                elif strict and create_graph and not g.requires_grad:  # PyTorch's message numbers the output here
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                       "This is not allowed in strict mode when create_graph=True.")
                rows[j].append(g)
        jac.append(tuple(_stack_rows(r, out.shape + inp.shape, inp, stack) for r, inp in zip(rows, inputs)))
    return tuple(jac)


def _stack_rows(rows: list, shape: tuple, like, stack):
    from ..creation import zeros
    if not rows:  # an output without elements has an empty Jacobian (PyTorch fails on an empty stack here)
        return zeros(shape, dtype=like.dtype)
    return stack(rows, 0).view(shape)


def _forward_jacobian(func: Callable, inputs, strict: bool, vectorize: bool):
    """The Jacobian by columns: one J v per input element, by forward-mode AD (dual numbers), as PyTorch builds
    them (where ``func`` uses an op without a forward derivative, by ``jvp``'s double-backward trick)."""
    from ..ops.join import stack
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                           'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # PyTorch's text, word for word (its missing space included), as the oracle test compares it
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    inputs = _fresh_leaves(inputs, create_graph=False, need_graph=True)  # (func may differentiate them: a Hessian)
    try:
        outputs_tuple, columns = _forward_columns(func, inputs)
    except NotImplementedError as exc:
        if not getattr(exc, "forward_rule_missing", False):
            raise
        outputs_tuple, columns = _double_backward_columns(func, inputs)
    jac = [[None] * len(inputs) for _ in columns]
    for i, per_input in enumerate(columns):
        for j, (inp, (out_shape, dtype, cols)) in enumerate(zip(inputs, per_input)):
            shape = tuple(out_shape) + tuple(inp.shape)
            jac[i][j] = stack(cols, -1).reshape(shape) if cols else _zeros(shape, dtype)
    return _unpack(tuple(tuple(row) for row in jac), outputs_tuple, inputs_tuple)


def _zeros(shape, dtype):
    from ..creation import zeros
    return zeros(shape, dtype=dtype)


def _basis(inp, k: int):
    """The k-th one-hot tensor shaped like ``inp``."""
    from ..creation import zeros
    basis = zeros(inp.numel(), dtype=inp.dtype)
    basis._data[k] = 1
    return basis.view(inp.shape)


def _forward_columns(func: Callable, inputs: tuple):
    """``(outputs were a tuple, [output][input] -> (shape, dtype, columns))``: one forward pass per input element."""
    from ..creation import zeros_like
    columns = None
    for j, inp in enumerate(inputs):
        for k in range(inp.numel()):
            with forward_ad.dual_level(), enable_grad():
                duals = [forward_ad.make_dual(x, _basis(x, k) if i == j else zeros_like(x)) for i, x in enumerate(inputs)]
                outputs_tuple, outputs = _as_tuple(func(*duals), "outputs", "jacobian")
                if columns is None:
                    columns = [[(out.shape, out.dtype, []) for _ in inputs] for out in outputs]
                for i, out in enumerate(outputs):
                    tangent = forward_ad.unpack_dual(out).tangent
                    columns[i][j][2].append(zeros_like(out) if tangent is None else tangent.detach())
    if columns is None:  # no input has an element: the outputs' shapes from one plain call
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs", "jacobian")
        columns = [[(out.shape, out.dtype, []) for _ in inputs] for out in outputs]
    return outputs_tuple, columns


def _double_backward_columns(func: Callable, inputs: tuple):
    """As ``_forward_columns``, each column by ``jvp``'s double-backward trick."""
    from ..creation import zeros_like
    with enable_grad():
        inputs = _fresh_leaves(inputs, create_graph=False, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs", "jacobian")
        dummy = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        vjp_of_dummy = _grad(outputs, inputs, dummy, create_graph=True)
    columns = [[(out.shape, out.dtype, []) for _ in inputs] for out in outputs]
    for j, (inp, g) in enumerate(zip(inputs, vjp_of_dummy)):
        for k in range(inp.numel()):
            column = _grad((g,), dummy, (_basis(inp, k),), retain_graph=True)
            for i, (c, out) in enumerate(zip(column, outputs)):
                columns[i][j][2].append(c if c is not None else zeros_like(out))
    return outputs_tuple, columns


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``.

    A single tensor when both inputs and outputs are single tensors, a tuple when one of them is a tuple,
    a tuple of tuples when both are. ``vectorize=True`` gives the same values as the row-by-row loop
    (autograd_lab has no vmap, so it runs the loop). ``strategy="forward-mode"`` (with ``vectorize=True``,
    as PyTorch requires) builds J column by column instead, which needs fewer passes for wide outputs.
    """
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        return _forward_jacobian(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh_leaves(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = _reverse_jacobian(outputs, inputs, create_graph, strict)
    return _unpack(_finish(jac, create_graph), outputs_tuple, inputs_tuple)


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar ``func`` at ``inputs``: the Jacobian of its gradient.

    One input: a tensor of shape ``input.shape + input.shape``; a tuple of inputs: ``H[i][j]`` of shape
    ``inputs[i].shape + inputs[j].shape``. The inner gradient is always reverse mode;
    ``outer_jacobian_strategy`` picks how the outer Jacobian is taken (see :func:`jacobian`).
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args):
        return _scalar_output(func, args, strict, "hessian")[0].squeeze()

    def gradient(*args):
        grads = jacobian(scalar_func, args, create_graph=True)
        _strict_requires_grad(grads, "jacobian", strict)
        return grads

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack(result, inputs_tuple, inputs_tuple)
