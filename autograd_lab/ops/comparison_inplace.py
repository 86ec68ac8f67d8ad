"""Comparisons written into the tensor compared: ``eq_``, ``ne_``, ``lt_``, ``le_``, ``gt_``, ``ge_`` (and their other
names ``not_equal_``, ``less_``, ``less_equal_``, ``greater_``, ``greater_equal_``), ``logical_and_``/``or_``/
``xor_``/``not_``; the method names ``not_equal``, ``less_equal``, ``greater_equal``; ``square_``, ``absolute``
and ``absolute_``.

A comparison written in place gives 1 or 0 in the tensor's own dtype. On a tensor with history it records a node
named as PyTorch's (``GtBackward0`` for a number, ``GtBackward1`` for a tensor) that sends zeros back: the result is
piecewise constant. (PyTorch's ``logical_*_`` record nothing and leave the old history in place; so do these.)
"""

from __future__ import annotations

from ..tensor import Tensor
from . import arithmetic, comparison, pointwise
from . import formulas as F
from ._op import Op
from .arithmetic import _operand
from .inplace import _method


class _NumberComparison(Op):
    """out = (self <op> other) as 1 or 0 in self's dtype, other a number: piecewise constant, zero gradient"""

    def d_self(grad):
        return F.zeros_like(grad)

    f_self = d_self


class _TensorComparison(Op):
    """out = (self <op> other) as 1 or 0 in self's dtype, other a tensor: piecewise constant, zero gradients"""

    def d_self(grad):
        return F.zeros_like(grad)

    def d_other(grad):
        return F.zeros_like(grad)

    f_self, f_other = d_self, d_other


def _classes(prefix: str, ufunc: str) -> tuple:
    """The two nodes of one comparison: ``<prefix>Backward0`` (other a number), ``<prefix>Backward1`` (a tensor)."""
    def with_number(xp, self, *, other):
        return getattr(xp, ufunc)(self, other).astype(self.dtype)

    def with_tensor(xp, self, other):
        return getattr(xp, ufunc)(self, other).astype(self.dtype)
    number = type(f"{prefix}Backward0", (_NumberComparison,), {"forward": with_number, "__module__": __name__,
                                                                "__doc__": f"self = (self {prefix} other), a number"})
    tensor = type(f"{prefix}Backward1", (_TensorComparison,), {"forward": with_tensor, "__module__": __name__,
                                                                "__doc__": f"self = (self {prefix} other), a tensor"})
    return number, tensor


EqBackward0, EqBackward1 = _classes("Eq", "equal")
NeBackward0, NeBackward1 = _classes("Ne", "not_equal")
LtBackward0, LtBackward1 = _classes("Lt", "less")
LeBackward0, LeBackward1 = _classes("Le", "less_equal")
GtBackward0, GtBackward1 = _classes("Gt", "greater")
GeBackward0, GeBackward1 = _classes("Ge", "greater_equal")

_NODES = dict(eq=(EqBackward0, EqBackward1), ne=(NeBackward0, NeBackward1), lt=(LtBackward0, LtBackward1),
              le=(LeBackward0, LeBackward1), gt=(GtBackward0, GtBackward1), ge=(GeBackward0, GeBackward1))
_ALIASES = dict(not_equal="ne", less="lt", less_equal="le", greater="gt", greater_equal="ge")


def _compared(name: str):
    """The out-of-place values of ``self.<name>_(other)``: the comparison's result in self's dtype, with its node."""
    number_node, tensor_node = _NODES[name]

    def fn(input, other):
        getattr(comparison, name)(input, other)  # (the comparison's own checks and errors)
        other = _operand(other, name + "_")
        if isinstance(other, Tensor):
            return tensor_node.apply(input, other)
        return number_node.apply(input, other=other)
    fn.__name__ = name
    return fn


def _logical(name: str):
    def fn(input, other=None):
        out = getattr(comparison, name)(input) if other is None else getattr(comparison, name)(input, other)
        return out.to(input.dtype)
    fn.__name__ = name
    return fn


def _bind() -> None:
    for name in _NODES:
        setattr(Tensor, name + "_", _method(name + "_", _compared(name)))
    for alias, name in _ALIASES.items():
        setattr(Tensor, alias, getattr(comparison, name))
        setattr(Tensor, alias + "_", _method(alias + "_", _compared(name)))
    for name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
        setattr(Tensor, name + "_", _method(name + "_", _logical(name)))
    Tensor.square_ = _method("square_", arithmetic.square)
    Tensor.absolute = pointwise.abs
    Tensor.absolute_ = _method("absolute_", pointwise.abs)


_bind()
