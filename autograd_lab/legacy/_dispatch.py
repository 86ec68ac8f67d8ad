"""How Variables travel through the modern core: results of ops on Variables are Variables, and one
volatile input makes an op run without recording (2017's ``volatile``, today's ``no_grad``).

The core is not changed for this. It hands every op and custom Function whose argument is an instance of
a Tensor subclass defining ``__torch_function__`` to that method (PyTorch's protocol,
:mod:`autograd_lab.overrides`), and ``Variable.__torch_function__`` calls :func:`call` here.
"""

from __future__ import annotations

import warnings

from ..autograd import grad_mode as _gm
from ..tensor import Tensor


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
