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


_UNINITIALIZED_USE = ("Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
                      "`LazyModule` or explicitly manipulating `al.nn.UninitializedParameter` objects. When using "
                      "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling al "
                      "functions")


class UninitializedTensorMixin:
    """What an uninitialized parameter and an uninitialized buffer share: a dtype and ``requires_grad`` but no values
    yet (a lazy module's tensors before its first ``forward``); ``materialize(shape)`` gives them memory and turns them
    into the ordinary kind (``cls_to_become``). Using one in an op, or asking its shape, is an error, as in PyTorch."""

    __slots__ = ()
    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the tensor memory of ``shape`` (a lazy module initialises it next) and make it ``cls_to_become``."""
        values = empty(*tuple(shape), dtype=dtype or self.dtype, device=device or self.device)
        self._data = values._data
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                           "in `load_state_dict` when trying to load an uninitialized parameter into an initialized "
                           "one. Call `forward` to initialize the parameters before accessing their attributes.")

    def detach(self):  # (no values, no history: a state_dict holds it as it is)
        return self

    def to(self, *args, **kwargs) -> Tensor:  # (moving or converting a module converts its lazy parameters too)
        return Tensor._make(self._data).to(*args, **kwargs)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        owner = getattr(func, "__self__", None)  # (an op's apply: name the op)
        raise ValueError(_UNINITIALIZED_USE.format(owner.__name__ if isinstance(owner, type) else
                                                   getattr(func, "__qualname__", func)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad, None, self.dtype))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A lazy module's weight before its first ``forward``: materialized, an ordinary ``Parameter``."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return Parameter.__new__(cls, empty(0, dtype=dtype, device=device), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        """(Everything happens in ``__new__``, as for ``Parameter``.)"""


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A lazy module's running statistics before its first ``forward``: materialized, an ordinary tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        buffer = cls._make(empty(0, dtype=dtype, device=device)._data)
        buffer.requires_grad_(requires_grad)
        return buffer

    def __init__(self, requires_grad: bool = False, device=None, dtype=None) -> None:
        """(Everything happens in ``__new__``.)"""
