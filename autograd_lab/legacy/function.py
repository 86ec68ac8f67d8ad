"""Old-style (2017) ``Function``: instance ``forward``/``backward``, called as ``MyFn()(x)``.

::

    class MyReLU(Function):
        def forward(self, input):              # tensors in, tensors out
            self.save_for_backward(input)
            return input.clamp(min=0)
        def backward(self, grad_output):       # one gradient per input
            input, = self.saved_tensors
            return grad_output * (input > 0).to(grad_output.dtype)

    y = MyReLU()(x)                            # y.creator is that MyReLU instance

Each subclass is run by a modern :class:`autograd_lab.autograd.Function` made for it (same name, so
its node is ``MyReLUBackward``): the instance's ``save_for_backward``, ``mark_dirty`` and
``mark_non_differentiable`` go to that node (the modern ``ctx``), so saved tensors are
version-checked and in-place outputs get their history rewritten exactly as for modern Functions.
As in 2017, ``forward`` receives plain tensors, ``backward`` receives ``None`` for the outputs marked
non-differentiable (a modern Function gets zeros there) and is not differentiable itself
(``once_differentiable``). Static-method Functions of late 2017 (``MyFn.apply``) work too.
"""

from __future__ import annotations

import threading
import weakref

from ..autograd import function as _modern
from ..tensor import Tensor
from . import _dispatch
from ._dispatch import deprecated

__all__ = ["Function"]

_MESSAGE = ("Legacy autograd function with non-static forward method is deprecated: subclass al.autograd.Function "
            "with @staticmethod forward(ctx, ...) and backward(ctx, ...), and call MyFn.apply(...)")


class _Calling(threading.local):
    function = None  # the old-style instance whose forward the bridge is about to run


_calling = _Calling()


class Function:
    """Base of 2017-style autograd functions (see the module docstring).

    Subclasses may define ``__init__`` with their own arguments (``Threshold(0.5)``); they need not
    call ``super().__init__()``. An instance records one call: make a new one for each call.
    """

    needs_input_grad: tuple = ()
    _node_ref = None  # weak reference to the node recorded by the call (the node holds the instance)
    _ctx = None  # that node, while forward or backward runs
    _inputs = None  # {id(plain tensor given to forward): the caller's tensor}, while forward runs
    _called = False
    _non_differentiable = frozenset()  # ids of the outputs marked non-differentiable, while forward runs
    _none_grad_outputs = frozenset()  # their positions among the outputs: backward gets None there

    def __call__(self, *inputs):
        deprecated(_MESSAGE)
        if self._called:
            raise RuntimeError(f"this {type(self).__name__} instance was already called [autograd_lab] an old-style "
                               f"Function records one call in the graph; create one per call: {type(self).__name__}()(x)")
        self._called = True
        _calling.function = self
        try:
            result = _bridge(type(self)).apply(*inputs)
        finally:
            _calling.function = None
        return _dispatch.mark_outputs(result, False, inputs)

    @classmethod
    def apply(cls, *inputs):
        """Late-2017 style: ``forward(ctx, ...)``/``backward(ctx, ...)`` as static methods."""
        return _dispatch.mark_outputs(_static_bridge(cls).apply(*inputs), False, inputs)

    def forward(self, *inputs):
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, *inputs)")

    def backward(self, *grad_outputs):
        raise NotImplementedError(f"{type(self).__name__} must define backward(self, *grad_outputs)")

    # -- what forward tells backward -----------------------------------------------------------
    def _node(self, what: str):
        node = self._ctx or (self._node_ref() if self._node_ref is not None else None)
        if node is None:
            raise RuntimeError(f"{what} is only available while this {type(self).__name__} is in a graph "
                               "[autograd_lab] call the instance on tensors first (and keep its outputs alive)")
        return node

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (or None) for backward, version-checked; read them as ``self.saved_tensors``."""
        self._node("save_for_backward").save_for_backward(*tensors)

    @property
    def saved_tensors(self) -> tuple:
        return self._node("saved_tensors").saved_tensors

    def mark_dirty(self, *tensors) -> None:
        """Declare the inputs that forward modified in place (they must be returned)."""
        inputs = self._inputs or {}
        self._node("mark_dirty").mark_dirty(*(inputs.get(id(t), t) for t in tensors))

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs that have no gradient (indices, masks). As in 2017, ``backward`` then receives
        ``None`` for them (a modern Function receives zeros)."""
        self._node("mark_non_differentiable").mark_non_differentiable(*tensors)
        self._non_differentiable = {id(t) for t in tensors}

    def mark_shared_storage(self, *pairs) -> None:
        """Declare ``(input, output)`` pairs whose output uses the input's memory: the output then
        shares the input's version counter, so in-place changes of one are seen through the other."""
        inputs = self._inputs or {}
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(t, Tensor) for t in pair)):
                raise TypeError(f"mark_shared_storage takes (input, output) pairs of tensors, got {pair!r}")
            source, output = pair
            if id(source) not in inputs:
                raise RuntimeError(f"mark_shared_storage: the first tensor of a pair must be an input of "
                                   f"{type(self).__name__}.forward")
            output._vc = source._vc

    # -- the graph, with 2017's names ------------------------------------------------------------
    @property
    def next_functions(self) -> tuple:
        from .variable import legacy_node
        return tuple((legacy_node(node), nr) for node, nr in self._node("next_functions").next_functions)

    @property
    def previous_functions(self) -> tuple:
        deprecated("previous_functions is deprecated: use next_functions")
        return self.next_functions

    def name(self) -> str:
        return type(self).__name__


def _bridge(cls: type) -> type:
    """The modern Function that runs the old-style subclass ``cls`` (made once per subclass)."""
    bridge = cls.__dict__.get("_modern_function")
    if bridge is None:
        bridge = _modern.FunctionMeta(cls.__name__, (_modern.Function,), {
            "forward": staticmethod(_forward), "backward": staticmethod(_modern.once_differentiable(_backward)),
            "__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__})
        cls._modern_function = bridge
    return bridge


def _forward(ctx, *inputs):
    function = _calling.function
    _calling.function = None
    plain = [Tensor._make(x._data, version_counter=x._vc) if isinstance(x, Tensor) else x for x in inputs]
    originals = {id(p): x for p, x in zip(plain, inputs) if isinstance(x, Tensor)}
    ctx._legacy_function = function
    function._node_ref = weakref.ref(ctx)
    function.needs_input_grad = ctx.needs_input_grad
    function._ctx, function._inputs = ctx, originals
    try:
        result = function.forward(*plain)
    finally:
        function._ctx = function._inputs = None
    outputs = result if isinstance(result, tuple) else (result,)
    function._none_grad_outputs = {i for i, out in enumerate(outputs) if id(out) in function._non_differentiable}
    function._non_differentiable = frozenset()
    if isinstance(result, tuple):
        return tuple(originals.get(id(out), out) for out in result)
    return originals.get(id(result), result)


def _backward(ctx, *grad_outputs):
    function = ctx._legacy_function
    function._ctx = ctx
    grad_outputs = tuple(None if i in function._none_grad_outputs else g for i, g in enumerate(grad_outputs))
    try:
        return function.backward(*grad_outputs)
    finally:
        function._ctx = None


def _static_bridge(cls: type) -> type:
    bridge = cls.__dict__.get("_modern_static_function")
    if bridge is None:
        namespace = {name: cls.__dict__[name] for name in ("forward", "backward", "setup_context")
                     if name in cls.__dict__}
        namespace.update(__module__=cls.__module__, __qualname__=cls.__qualname__)
        bridge = _modern.FunctionMeta(cls.__name__, (_modern.Function,), namespace)
        cls._modern_static_function = bridge
    return bridge
