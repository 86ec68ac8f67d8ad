"""Forward-mode AD for built-in ops: each op's forward derivative, read from its class and run by ``Op.apply``.

An op states how a tangent goes through it beside its backward formulas, in the same namespace
(:mod:`autograd_lab.ops.formulas`), as PyTorch's ``derivatives.yaml`` gives a ``result:`` line beside the
per-input ones. One of:

* ``f_<input>(tangent, <names>)`` per input: the output's tangent due to that input's tangent; the engine
  sums them over the inputs that have one. For an element-wise op the Jacobian is diagonal, so the forward
  derivative is the backward one with the tangent in place of the gradient: ``f_self = d_self``
  (PyTorch's ``auto_element_wise``).
* ``jvp(tangents, <names>)``: one rule for all inputs; ``tangents`` has one entry per input, zeros for a
  floating-point input without a tangent, ``None`` for the others.
* ``jvp = LINEAR``: the op is linear in its inputs, so its tangent is the op itself applied to the inputs'
  tangents, with the same settings (PyTorch's ``auto_linear``): shape ops, sums, indexing, padding... A view
  op (``is_view``) is linear and needs no rule: its tangent is the same view of the input's tangent.

The names after the tangent are bound by name, as for the backward formulas, but from everything the forward
has at hand: an input's value (``self``, ``other``...), ``result`` (the output; a tuple for several), a keyword
parameter of ``forward``, or an input's ``<input>_sym_sizes``/``_sym_strides``/``_sym_numel``. An unknown name
is an error when the class is defined. A rule returns a tensor (a tuple for an op with several outputs, ``None``
for an output without tangent); it is broadcast to the output's shape and cast to its dtype here, in one place.
The rules run with no dual level open, so what they compute carries no tangent of its own.
"""

from __future__ import annotations

import inspect
import re
from numbers import Number

from .. import backend
from ..autograd import forward_ad
from ..tensor import Tensor

__all__ = ["LINEAR", "read_forward_rule", "propagate", "after_inplace"]


class _Linear:
    """The marker ``jvp = LINEAR``: the op applied to the tangents is its forward derivative."""

    def __repr__(self) -> str:
        return "LINEAR"


LINEAR = _Linear()


# -- reading a rule (once, when the op's class is created) ------------------------------------------
def read_forward_rule(cls) -> None:
    """Set ``cls._forward_rule``: ``rule(tangents, inputs, params, result) -> output tangent(s)``, or None."""
    jvp = getattr(cls, "jvp", None)
    own = [name for name in cls._inputs if hasattr(cls, "f_" + name)]
    if jvp is LINEAR or (jvp is None and not own and cls.is_view):
        cls._forward_rule = _linear_rule(cls)
    elif jvp is not None:
        cls._forward_rule = _joint_rule(jvp, _getters(cls, jvp))
    elif own:
        missing = [name for name in cls._inputs if name not in own]
        if missing:
            raise TypeError(f"{cls.__name__} has no forward derivative for its input(s) {missing}: give one f_<input> "
                            "per input of forward, or a single jvp for all of them")
        formulas = [getattr(cls, "f_" + name) for name in cls._inputs]
        cls._forward_rule = _summed_rule([(fn, _getters(cls, fn)) for fn in formulas])
    else:
        cls._forward_rule = None


def _getters(cls, fn) -> list:
    """For each name a rule takes after the tangent(s): how to read it from ``(inputs, params, result)``."""
    params = inspect.signature(cls.forward).parameters
    keywords = {p.name: p.default for p in params.values() if p.kind is p.KEYWORD_ONLY}
    getters = []
    for name in list(inspect.signature(fn).parameters)[1:]:
        base, _, what = name.rpartition("_sym_")
        if name in cls._inputs:
            getters.append(lambda inputs, params, result, i=cls._inputs.index(name): inputs[i])
        elif name in cls.outputs:  # (``result``: the output, or all of them for an op that returns several)
            getters.append(_output_getter(cls.outputs.index(name), len(cls.outputs) > 1))
        elif name in keywords:
            default = keywords[name]
            getters.append(lambda inputs, params, result, name=name, default=default: params.get(name, default))
        elif what in ("sizes", "strides", "numel") and base in cls._inputs:
            getters.append(_size_getter(cls._inputs.index(base), what))
        else:
            raise TypeError(f"{cls.__name__}.{fn.__name__} takes '{name}', which is neither an input of forward, "
                            f"an output {cls.outputs}, a keyword parameter of forward nor an input's "
                            "_sym_sizes/_sym_strides/_sym_numel: "
                            "a forward rule's parameters after the tangent are bound by name")
    return getters


def _output_getter(i: int, named: bool):
    if named:  # one of the outputs named in ``outputs``
        return lambda inputs, params, result: result[i]
    return lambda inputs, params, result: result


def _size_getter(i: int, what: str):
    if what == "sizes":
        return lambda inputs, params, result: tuple(inputs[i].shape)
    if what == "numel":
        return lambda inputs, params, result: inputs[i].numel()
    return lambda inputs, params, result: tuple(inputs[i].stride())


def _summed_rule(formulas: list):
    def rule(tangents, inputs, params, result):
        total = None
        for tangent, (fn, getters) in zip(tangents, formulas):
            if tangent is not None:
                part = fn(tangent, *[get(inputs, params, result) for get in getters])
                total = part if total is None else _add(total, part)
        return total
    return rule


def _joint_rule(fn, getters: list):
    def rule(tangents, inputs, params, result):
        tangents = tuple(t if t is not None else _zero_tangent(x, False) for t, x in zip(tangents, inputs))
        return fn(tangents, *[get(inputs, params, result) for get in getters])
    return rule


def _linear_rule(cls):
    def rule(tangents, inputs, params, result):
        return cls.apply(*[t if t is not None else _zero_tangent(x, True) for t, x in zip(tangents, inputs)], **params)
    return rule


def _zero_tangent(value, keep_constants: bool):
    """The tangent of an input that has none: zeros for a number or a floating-point tensor; a mask (a boolean
    tensor, ``where``'s condition) is kept as it is where the op itself is applied (``keep_constants``)."""
    if isinstance(value, Tensor):
        if value._data.dtype.kind == "b":
            return value if keep_constants else None
        if value._data.dtype.kind != "f" and not keep_constants:
            return None
        return _zeros_like(value)
    if isinstance(value, Number):
        return 0.0 if isinstance(value, float) else 0
    return value


def _zeros_like(tensor: Tensor) -> Tensor:
    data = tensor._data
    return Tensor._make(backend.namespace_of(data).zeros(data.shape, dtype=data.dtype))


def _add(a, b):
    if isinstance(a, tuple):
        return tuple(y if x is None else x if y is None else x + y for x, y in zip(a, b))
    return a + b


# -- running it (Op.apply, when a dual level is open) --------------------------------------------------
def propagate(cls, inputs: tuple, params: dict, outputs: list) -> None:
    """Give ``outputs`` their tangents, computed from those of ``inputs`` by the op's forward rule."""
    tangents = [forward_ad.tangent_of(x) if isinstance(x, Tensor) else None for x in inputs]
    if all(t is None for t in tangents):
        return
    rule = cls._forward_rule
    if rule is None:
        raise forward_ad.missing_rule(
            f"Trying to use forward AD with {_forward_name(cls)} that does not support it because it has not been "
            "implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?"
            "template=feature-request.yml so that we can prioritize its implementation or submit a PR adding the "
            f"implementation to derivatives.yaml [autograd_lab] {cls.__name__} has no forward rule (f_<input> or jvp "
            "beside its backward formulas); compute this derivative in reverse mode (backward, autograd.grad)")
    with forward_ad.without_tangents():
        out_tangents = rule(tangents, inputs, params, outputs[0] if len(outputs) == 1 else tuple(outputs))
    if out_tangents.__class__ is not tuple:
        out_tangents = (out_tangents,)
    for out, tangent in zip(outputs, out_tangents):
        if tangent is not None and out._data.dtype.kind == "f":
            forward_ad.set_tangent(out, fitted(tangent, out))
    node = next((out._grad_fn for out in outputs if out._grad_fn is not None), None)  # (lu's P has none)
    if node.__class__ is cls and any(name in cls.outputs for name in cls.saves):  # (its backward rebuilds a saved
        # output from its values: it needs the tangent too)
        forward_ad.remember_output_tangents(node, tuple(out._fw_grad for out in outputs))


def fitted(tangent, out) -> Tensor:
    """A tangent made to fit its output: broadcast to its shape, in its dtype."""
    if not isinstance(tangent, Tensor):  # a number (a rule of constants)
        tangent = Tensor._make(_zeros_like(out)._data + tangent)
    if tangent._data.shape != out._data.shape:
        tangent = tangent.expand(out.shape)
    if tangent._data.dtype != out._data.dtype:
        tangent = tangent.to(out.dtype)
    return tangent


def _forward_name(cls) -> str:
    """The op's name without the node's ``Backward<n>`` suffix (``MulBackward0``: ``Mul``)."""
    return re.sub(r"Backward\d*$", "", cls.__name__)


def after_inplace(tensor: Tensor, result: Tensor) -> None:
    """``tensor`` was overwritten in place with ``result``: its tangent becomes ``result``'s. A view's tangent is
    the same view of its base's tangent (made of zeros if the base had none), so the base's tangent changes too."""
    tangent = result._fw_grad
    if tangent is None:
        return
    base = tensor._base
    if tensor._fw_grad is None and base is not None:
        from .view_history import replay_view
        if base._fw_grad is None:
            forward_ad.set_tangent(base, _zeros_like(base))
        with forward_ad.without_tangents():  # (set_tangent needs the open level: only the replay runs without it)
            view_tangent = replay_view(base._fw_grad, tensor._view_chain)
        forward_ad.set_tangent(tensor, view_tangent)
    forward_ad.write_tangent(tensor, tangent)
