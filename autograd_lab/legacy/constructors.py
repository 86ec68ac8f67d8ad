"""The typed tensor constructors of 2017: ``Tensor([0, 0, 0])``, ``FloatTensor([1, 1, 1])``,
``LongTensor(2, 3)``...; each builds an ``al.Tensor`` of its dtype from data or from sizes.

``isinstance(t, FloatTensor)`` checks the dtype, as in PyTorch, where these names still exist
(``al.FloatTensor`` is the silent version; ``autograd_lab.legacy`` warns and names ``al.tensor``).
"""

from __future__ import annotations

from .. import backend
from ..tensor import Tensor
from ._dispatch import deprecated

__all__ = ["TensorType", "make_types"]


class TensorType(type):
    """Metaclass of the typed constructors: calling builds a tensor; ``isinstance`` checks the dtype."""

    _dtype = None  # None: the default dtype (al.Tensor)
    _warns = False

    def __call__(cls, *args, device=None) -> Tensor:
        if cls._warns:
            target = f"dtype=al.{cls._dtype.name}" if cls._dtype is not None else "the default dtype"
            deprecated(f"{cls.__name__}(...) is a 2017 constructor: use al.tensor(data, {target}) for data, or "
                       f"al.zeros(*sizes, {target}) for sizes".replace(", the default dtype", ""))
        return Tensor(*args, dtype=cls._dtype, device=device)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and (cls._dtype is None or obj.dtype is cls._dtype)

    def __repr__(cls) -> str:
        return f"<class 'autograd_lab.{cls.__name__}'>"


_DTYPES = {"FloatTensor": backend.float32, "DoubleTensor": backend.float64, "HalfTensor": backend.float16,
           "LongTensor": backend.int64, "IntTensor": backend.int32, "ShortTensor": backend.int16,
           "CharTensor": backend.int8, "ByteTensor": backend.uint8, "BoolTensor": backend.bool_}


def make_types(warns: bool) -> dict:
    """The typed constructors by name (``Tensor`` too when ``warns``: the modern ``al.Tensor`` is the class)."""
    names = dict(_DTYPES, Tensor=None) if warns else dict(_DTYPES)
    return {name: TensorType(name, (), {"_dtype": dtype, "_warns": warns, "__module__": "autograd_lab",
                                        "__doc__": f"``{name}(data)`` or ``{name}(*sizes)``: a tensor of "
                                                   f"{'the default dtype' if dtype is None else dtype!r}."})
            for name, dtype in names.items()}
