"""How Variables travel through the modern core: results of ops on Variables are Variables, and one
volatile input makes an op run without recording (2017's ``volatile``, today's ``no_grad``).

The core is not changed for this. It hands every op and custom Function whose argument is an instance of
a Tensor subclass defining ``__torch_function__`` to that method (PyTorch's protocol,
:mod:`autograd_lab.overrides`), and ``Variable.__torch_function__`` calls :func:`call` here.
"""

from __future__ import annotations

import warnings
import weakref

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
    A result that shares an input Variable's storage (a view, or ``mark_shared_storage``) is
    counted with it for 2017's in-place rule (:func:`check_storage_not_shared`).
    """
    variable = variable_class()
    for out in result if isinstance(result, (tuple, list)) else (result,):
        if type(out) is Tensor and not any(out is x for x in inputs):
            out.__class__ = variable
            if volatile:
                out._volatile = True
            for x in inputs:
                if isinstance(x, variable) and x._version_counter is not None and out._version_counter is x._version_counter:
                    _share_storage(x, out)
    return result


# -- 2017's rule: no in-place op on a Variable whose storage another Variable references ------------------------
_NOT_IN_PLACE = {"requires_grad_", "detach_", "retain_grad", "share_memory_"}
_IN_PLACE_OPERATORS = {"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
                       "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"}


def modifies_in_place(name: str) -> bool:
    """Whether the Tensor method ``name`` writes into its tensor (``add_``, ``__setitem__``, ``__iadd__``...)."""
    return name in _IN_PLACE_OPERATORS or (name.endswith("_") and not name.startswith("_") and name not in _NOT_IN_PLACE)


def _share_storage(source, view) -> None:
    """Count ``view`` among the live Variables sharing ``source``'s storage (one weak set for all of them)."""
    sharers = source.__dict__.get("_storage_sharers")
    if sharers is None:
        sharers = source._storage_sharers = weakref.WeakSet([source])
    sharers.add(view)
    view._storage_sharers = sharers


def check_storage_not_shared(variable) -> None:
    """2017 refused an in-place op on a Variable while any other live Variable shared its storage (a view of it, a
    tensor it is a view of, or a ``mark_shared_storage`` output): it could not rewrite all their histories."""
    sharers = variable.__dict__.get("_storage_sharers")
    count = len(sharers) if sharers is not None else 1
    if count > 1:
        raise RuntimeError(
            "in-place operations can be only used on variables that don't share storage with any other variables, "
            f"but detected that there are {count} objects sharing it [autograd_lab] this is 2017's rule, kept by the "
            "legacy layer; today's autograd allows it (a view and its base share a version counter, and the base's "
            "history is rewritten). Here: delete the other Variables (views) first, or work on a .clone()")


def call(function, args: tuple, kwargs: dict, inputs: tuple):
    """Run ``function(*args, **kwargs)`` as 2017 would on ``inputs``: without recording if one is volatile."""
    volatile = any(is_volatile(x) for x in inputs)
    if volatile:
        with _gm.no_grad():
            result = function(*args, **kwargs)
    else:
        result = function(*args, **kwargs)
    return mark_outputs(result, volatile, inputs)
