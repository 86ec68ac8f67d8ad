"""An argument of the wrong kind given to a public function: PyTorch's TypeError, naming the function, the
argument and both types, then what to do.

Public functions that read their arguments before an op runs are wrapped once with :func:`checked`. The
check runs only after the function failed (an AttributeError because a list has no ``_data``, NumPy's
TypeError about its ufunc loops, ...): a call that succeeds costs one more frame, nothing else. The kind each
argument must have comes from its parameter's name, as PyTorch's signatures name them (``input`` is a tensor,
``dim`` an int or a tuple of ints, ``keepdim`` a bool, ``size`` ints...), and the first argument of the wrong
kind is the error. When every argument has the right kind the function's own error stands, except an
AttributeError or a KeyError, which says nothing a user can act on: it becomes PyTorch's "received an
invalid combination of arguments".
"""

from __future__ import annotations

import functools
import inspect
from numbers import Integral, Number

from .. import backend
from ..backend import type_name
from ..tensor import Tensor

__all__ = ["checked", "type_name"]


def _is_int(v) -> bool:
    return isinstance(v, Integral) or isinstance(v, Tensor) and v.ndim == 0 and v._data.dtype.kind in "iu"


def _ints(v) -> str | None:
    """Why ``v`` is not a tuple of ints (``None`` if it is one)."""
    if not isinstance(v, (tuple, list)):
        return f"not {type_name(v)}"
    for i, item in enumerate(v):
        if not _is_int(item):
            return f"but found element of type {type_name(item)} at pos {i}"
    return None


def _tensors(v) -> str | None:
    if not isinstance(v, (tuple, list)):
        return f"not {type_name(v)}"
    for i, item in enumerate(v):
        if not isinstance(item, Tensor):
            return f"but found element of type {type_name(item)} at pos {i}"
    return None


def _number(v) -> bool:
    return isinstance(v, Number) or isinstance(v, Tensor) and v.numel() == 1


def _dtype(v) -> bool:
    try:
        backend.to_dtype(v)
    except TypeError:
        return False
    return True


def _device(v) -> bool:
    return isinstance(v, (str, backend.device)) or _is_int(v)


# kind: (what PyTorch calls it, the check: True/None when the value fits, else False or why not)
_CHECKS = {
    "Tensor": ("Tensor", lambda v: isinstance(v, Tensor)),
    "Tensor?": ("Tensor", lambda v: v is None or isinstance(v, Tensor)),
    "Tensor|Number": ("Tensor", lambda v: v is None or isinstance(v, (Tensor, Number))),
    "int": ("int", _is_int),
    "int?": ("int", lambda v: v is None or _is_int(v)),
    "dims": ("tuple of ints", lambda v: v is None or _is_int(v) or _ints(v) is None),
    "ints": ("tuple of ints", lambda v: _is_int(v) or _ints(v) is None),
    "Tensors": ("tuple of Tensors", lambda v: _tensors(v) is None),
    "bool": ("bool", lambda v: isinstance(v, (bool, backend.np.bool_))),
    "bool?": ("bool", lambda v: v is None or isinstance(v, (bool, backend.np.bool_))),
    "number": ("Number", _number),
    "number?": ("Number", lambda v: v is None or _number(v)),
    "dtype?": ("al.dtype", lambda v: v is None or _dtype(v)),
    "device?": ("al.device", lambda v: v is None or _device(v)),
}

# The kind of each parameter, by its name (PyTorch's names for the same arguments)
_KINDS = {
    **dict.fromkeys(("input", "self", "mat1", "mat2", "vec", "vec1", "vec2", "batch1", "batch2", "tensor",
                     "condition", "index", "src", "target", "mask"), "Tensor"),
    **dict.fromkeys(("weight", "bias", "running_mean", "running_var", "pos_weight"), "Tensor?"),
    **dict.fromkeys(("other", "exponent", "min", "max", "value"), "Tensor|Number"),
    **dict.fromkeys(("dim0", "dim1", "dim2", "start_dim", "end_dim", "chunks", "num_classes", "length", "source",
                     "destination"), "int"),
    **dict.fromkeys(("diagonal", "offset"), "int?"),
    "dim": "dims", **dict.fromkeys(("size", "shape", "sizes", "dims", "repeats"), "ints"), "tensors": "Tensors",
    **dict.fromkeys(("keepdim", "requires_grad", "training", "inplace", "accumulate"), "bool"), "unbiased": "bool?",
    **dict.fromkeys(("p", "eps", "momentum", "alpha", "label_smoothing"), "number"), "correction": "number?",
    "dtype": "dtype?", "device": "device?",
}

# Functions PyTorch declares with several signatures: their error lists the arguments it got
_OVERLOADED = frozenset(("sum", "mean", "prod", "max", "min", "std", "var", "all", "any", "squeeze", "clamp", "clip",
                         "clamp_min", "clamp_max", "where", "pow", "narrow", "view", "masked_fill", "masked_fill_",
                         "fill_", "arange", "randint", "normal", "norm"))
# ... of which these list what they got even when the input is wrong (the others name the input, or keepdim)
_OVERLOADED_INPUT = frozenset(("all", "any", "clamp", "clip", "clamp_min", "clamp_max", "where"))


def checked(fn=None, *, name: str | None = None, kinds: dict | None = None):
    """Wrap a public function so that a failure caused by an argument of the wrong kind is PyTorch's TypeError
    (see the module docstring). ``name``: the function as PyTorch names it; ``kinds``: parameters whose kind
    differs from what their name says (``{"start": "int"}``)."""
    if fn is None:
        return lambda f: checked(f, name=name, kinds=kinds)
    params = list(inspect.signature(fn).parameters.values())
    plan = [(p.name, p.kind, (kinds or {}).get(p.name, _KINDS.get(p.name))) for p in params]
    label = name or fn.__name__

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (AttributeError, KeyError, TypeError, ValueError, IndexError, RuntimeError, OverflowError) as exc:
            error = _wrong_kind(label, plan, args, kwargs)
            if error is not None:
                raise error from None
            if isinstance(exc, (AttributeError, KeyError)):
                raise TypeError(f"{label}() received an invalid combination of arguments - got ({_got(args, kwargs)}) "
                                f"[autograd_lab] {type(exc).__name__}: {exc}") from exc
            raise

    return call


def _bound(plan, args, kwargs):
    """``(name, position or None, kind, value)`` for each argument given."""
    position = 0
    for name, kind_of_param, kind in plan:
        if kind_of_param is inspect.Parameter.VAR_POSITIONAL:
            rest = args[position:]
            if rest:  # f(*size): one tuple, or the sizes themselves
                yield name, position, kind, rest[0] if len(rest) == 1 and not _is_int(rest[0]) else tuple(rest)
            position = len(args)
        elif kind_of_param is inspect.Parameter.VAR_KEYWORD:
            continue
        elif position < len(args) and kind_of_param is not inspect.Parameter.KEYWORD_ONLY:
            yield name, position, kind, args[position]
            position += 1
        elif name in kwargs:
            yield name, None, kind, kwargs[name]


def _wrong_kind(label: str, plan, args, kwargs) -> TypeError | None:
    for name, position, kind, value in _bound(plan, args, kwargs):
        if kind is None:
            continue
        expected, check = _CHECKS[kind]
        fits = check(value)
        if fits is True or fits is None:
            continue
        why = (_ints(value) if expected == "tuple of ints" else _tensors(value) if expected == "tuple of Tensors"
               else None) or f"not {type_name(value)}"
        where = f" (position {position + 1})" if position is not None else ""
        advice = f" [autograd_lab] {label}() takes {name} as {expected}; it got {_short(value)}"
        if label in _OVERLOADED and (name not in ("input", "keepdim") or label in _OVERLOADED_INPUT):
            return TypeError(f"{label}() received an invalid combination of arguments - got ({_got(args, kwargs)})"
                             f"{advice}")
        return TypeError(f"{label}(): argument '{name}'{where} must be {expected}, {why}{advice}")
    return None


def _got(args, kwargs) -> str:
    """The arguments' types, as PyTorch lists them: ``Tensor, float`` or ``dim=float, ``."""
    parts = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    return ", ".join(parts) + (", " if kwargs else "")


def _short(value) -> str:
    text = repr(value) if not isinstance(value, Tensor) else f"a tensor of shape {tuple(value.shape)}"
    return text if len(text) <= 60 else text[:57] + "..."
