"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights."""

from __future__ import annotations

from ..creation import empty
from ..tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and that a ``Module`` lists in ``parameters()``.

    ``Parameter(data)`` shares ``data``'s memory (it does not copy), cut from any history it had.
    Results of operations on a parameter are ordinary tensors.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, got {type(data).__name__} "
                            "[autograd_lab] wrap arrays first: Parameter(al.tensor(values))")
        param = cls._make(data._data, version_counter=data._vc)
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor.__init__ is the legacy constructor)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (Parameter, (Tensor._make(self._data.copy()), self._requires_grad))
