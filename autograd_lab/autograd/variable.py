"""``al.autograd.Variable``: what ``torch.autograd.Variable`` is today, a name kept for old code.

Since PyTorch 0.4 every tensor is a Variable: ``Variable(t)`` returns a plain **tensor**, ``t.detach()``
(same memory, same version counter, no history), with ``requires_grad`` set as asked; ``volatile`` has no
effect any more and warns; ``isinstance(t, Variable)`` is true for every tensor. Code written since 2018
that still spells ``Variable(x, requires_grad=True)`` therefore runs unchanged.

The 2017 behaviour itself (a wrapper class with ``volatile`` spreading through the graph, ``.creator``,
``.data`` returning the wrapped tensor...) lives in :mod:`autograd_lab.legacy`, as ``al.legacy.Variable``.
"""

from __future__ import annotations

import warnings

__all__ = ["Variable", "VariableMeta"]


class VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` true for every tensor, as PyTorch's metaclass does."""

    def __instancecheck__(cls, other) -> bool:
        from ..tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False)``: returns ``data.detach()`` (an empty tensor
    without ``data``) with ``requires_grad`` set; a tensor, not an instance of this class."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False, _grad_fn=None, name=None):
        from ..creation import empty
        from ..tensor import Tensor
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with al.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if _grad_fn is not None:
            from .graph import Node
            if not isinstance(_grad_fn, Node):
                raise TypeError(f"_grad_fn has to be a Function object or None, but got {type(_grad_fn).__name__}")
            raise RuntimeError("_grad_fn argument to legacy Variable constructor is no longer supported.  Instead, "
                               "please invoke your _grad_fn to produce a variable with it as the _grad_fn.")
        if data is None:
            tensor = empty(0)
        elif isinstance(data, Tensor):
            tensor = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__} [autograd_lab] wrap the "
                            "values first: al.tensor(values), or just al.tensor(values, requires_grad=True)")
        tensor.requires_grad_(bool(requires_grad))
        return tensor
