"""How Variables travel through the modern core: results of ops on Variables are Variables, and one
volatile input makes an op run without recording (2017's ``volatile``, today's ``no_grad``).

The core has no dispatch protocol, so the first ``Variable`` ever made wraps ``Op.apply`` and
``Function.apply`` (every differentiable op and custom Function goes through one of them). The wrap
costs one type check per input when no Variable is involved; programs that never make a Variable
never install it.
"""

from __future__ import annotations

import warnings

from ..autograd import grad_mode as _gm
from ..tensor import Tensor

_installed = False


def deprecated(message: str, stacklevel: int = 3) -> None:
    """Warn that a 2017 entry point is used; ``stacklevel`` 3 names the line calling our caller."""
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel)


def variable_class():
    from .variable import Variable
    return Variable


def is_volatile(value) -> bool:
    return isinstance(value, Tensor) and value.__dict__.get("_volatile", False)


def mark_outputs(result, volatile: bool, inputs: tuple):
    """Turn the fresh plain-Tensor results of an op into Variables (volatile if an input was).

    Objects that were inputs (in-place ops return ``self``) and Tensor subclasses (``Parameter``)
    are left as they are. The class is changed in place, so identity and graph links are kept.
    """
    variable = variable_class()
    for out in result if isinstance(result, (tuple, list)) else (result,):
        if type(out) is Tensor and not any(out is x for x in inputs):
            out.__class__ = variable
            if volatile:
                out._volatile = True
    return result


def call(function, args: tuple, kwargs: dict, inputs: tuple):
    """Run ``function(*args, **kwargs)`` as 2017 would on ``inputs``: without recording if one is volatile."""
    volatile = any(is_volatile(x) for x in inputs)
    if volatile:
        with _gm.no_grad():
            result = function(*args, **kwargs)
    else:
        result = function(*args, **kwargs)
    return mark_outputs(result, volatile, inputs)


def _dispatching(original):
    variable = variable_class()

    def apply(cls, *inputs, **params):
        for x in inputs:
            if isinstance(x, variable):
                return call(original, (cls, *inputs), params, inputs)
        return original(cls, *inputs, **params)

    apply.__doc__ = original.__doc__
    apply.__wrapped__ = original
    return classmethod(apply)


def ensure_installed() -> None:
    """Wrap ``Op.apply`` and ``Function.apply`` once, so that functions of the core (``F.relu``,
    ``model(x)``) give Variables for Variables and honour volatility."""
    global _installed
    if _installed:
        return
    from ..autograd.function import Function
    from ..ops._op import Op
    for owner in (Op, Function):
        owner.apply = _dispatching(owner.__dict__["apply"].__func__)
    _installed = True
