"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights; ``Buffer``: a tensor marked
to be registered as a buffer (state that is not learnt) when assigned to a module's attribute."""

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


class _BufferMeta(type):
    """Makes ``isinstance(t, Buffer)`` ask whether a tensor carries the buffer mark (``Buffer(...)`` returns a plain
    tensor, as PyTorch's does)."""

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """``self.name = nn.Buffer(tensor)`` in a module registers ``tensor`` as a buffer (as ``register_buffer``
    does), saved in ``state_dict`` unless ``persistent=False``.

    ``Buffer(data)`` is ``data`` detached (sharing its memory, keeping ``requires_grad``), marked as a buffer: a
    plain tensor, for which ``isinstance(t, nn.Buffer)`` holds.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = empty(0)
        marked = data.detach().requires_grad_(data.requires_grad)
        marked.persistent = persistent
        marked._is_buffer = True
        return marked
