"""Comparisons and logic: ``== != < <= > >=``, ``logical_*``, ``isnan``/``isinf``/``isfinite`` (bitwise ops: :mod:`.bitwise`).

Their results are bool (or integer) tensors with no history: nothing to differentiate.
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from ._args import checked, type_name
from ._errors import OpError, broadcast_message
from .arithmetic import _operand


def _compare(name: str):
    def fn(input, other):
        if not isinstance(input, Tensor):
            raise TypeError(f"{fn.__name__}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
        a = input._data if isinstance(input, Tensor) else input
        b = other if isinstance(other, Tensor) else _other(other, fn.__name__)  # (a NumPy array becomes a tensor)
        b = b._data if isinstance(b, Tensor) else b
        if b.__class__ is int and getattr(a, "dtype", None) is not None and a.dtype.kind in "iu":
            b = backend.wrap_int(b, backend.from_np(a.dtype), fn.__name__)  # (as PyTorch casts it: int8 < 1000 is False)
        xp = backend.namespace_of(a if hasattr(a, "dtype") else b)
        try:
            return Tensor._make(getattr(xp, name)(a, b))
        except ValueError as exc:
            shapes = [tuple(x._data.shape) for x in (input, other) if isinstance(x, Tensor)]
            if "broadcast" in str(exc) and len(shapes) == 2:
                raise OpError(broadcast_message(fn.__name__, shapes)) from exc
            raise RuntimeError(f"{fn.__name__}: cannot compare tensors of shapes {shapes}: {exc}") from exc
    fn.__name__ = {"equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
                   "greater_equal": "ge", "logical_and": "logical_and", "logical_or": "logical_or",
                   "logical_xor": "logical_xor"}[name]
    return fn


eq = _compare("equal")
ne = _compare("not_equal")
lt = _compare("less")
le = _compare("less_equal")
gt = _compare("greater")
ge = _compare("greater_equal")
logical_and = _compare("logical_and")
logical_or = _compare("logical_or")
logical_xor = _compare("logical_xor")


@checked
def logical_not(input):
    return Tensor._make(backend.namespace_of(input._data).logical_not(input._data))


@checked
def isnan(input):
    return Tensor._make(backend.namespace_of(input._data).isnan(input._data))


@checked
def isinf(input):
    return Tensor._make(backend.namespace_of(input._data).isinf(input._data))


@checked
def isfinite(input):
    return Tensor._make(backend.namespace_of(input._data).isfinite(input._data))


def _other(other, op: str):
    """The second operand of a comparison: a tensor, a number or a NumPy array (PyTorch's error for the rest)."""
    try:
        return _operand(other, op)
    except TypeError:
        if op.startswith("logical"):
            raise
        raise TypeError(f"{op}() received an invalid combination of arguments - got ({type_name(other)}) "
                        f"[autograd_lab] {op} compares with a Tensor or a Python number") from None


def _operator(fn):
    """``t == None`` is False and ``t < None`` Python's TypeError, as in PyTorch (``t.eq(None)`` is PyTorch's)."""
    def operator(self, other):
        return NotImplemented if other is None else fn(self, other)
    operator.__name__ = f"__{fn.__name__}__"
    return operator


def _bind() -> None:
    methods = dict(
        eq=eq, ne=ne, lt=lt, le=le, gt=gt, ge=ge, greater=gt, less=lt, logical_and=logical_and, logical_or=logical_or,
        logical_xor=logical_xor, logical_not=logical_not, isnan=isnan, isinf=isinf, isfinite=isfinite,
        __eq__=_operator(eq), __ne__=_operator(ne), __lt__=_operator(lt), __le__=_operator(le), __gt__=_operator(gt),
        __ge__=_operator(ge),
    )  # (& | ^ ~ << >> are in ops/bitwise.py)
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


_bind()
