"""``Variable``: the 2017 wrapper of a tensor, with ``volatile``, ``creator`` and ``retain_variables``.

A Variable *is* a modern :class:`~autograd_lab.Tensor` (a subclass), so every function of the core
accepts it and the one engine differentiates it. What the subclass adds is 2017's surface: ``.data``
returns the wrapped tensor, ``.grad`` is a Variable, ``volatile`` spreads from any input to every
result (and wins over ``requires_grad``), ``.creator`` is ``grad_fn`` seen with 2017's names
(``previous_functions``), and ``reinforce`` feeds a reward to a stochastic function's sample.
"""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref

from ..autograd.saved import VersionCounter
from ..overrides import DisableTorchFunctionSubclass
from ..tensor import NON_LEAF_GRAD_WARNING, Tensor
from . import _dispatch
from ._dispatch import deprecated

__all__ = ["Variable", "LegacyNode", "legacy_node"]

_VARIABLE_MESSAGE = ("Variable is deprecated: tensors are Variables now; use al.tensor(..., requires_grad=True) "
                     "or t.requires_grad_() instead of Variable(t, requires_grad=True)")
_VOLATILE_MESSAGE = ("volatile is deprecated: run the computation inside `with al.no_grad():` "
                     "(or al.inference_mode()) instead of marking an input volatile")


class Variable(Tensor):
    """``Variable(tensor, requires_grad=False, volatile=False)``: the 2017 autograd wrapper.

    ``volatile=True`` (inference only): nothing computed from it records a graph, however many
    of the other inputs require grad. The modern equivalent is ``al.no_grad()``.
    """

    __slots__ = ()

    _volatile = False
    _wrapped = None  # the tensor given to Variable(...): what .data returns while it is still the storage
    _data_alias = None  # .data of a computed Variable (made once, as 2017 returned the same tensor)
    _stochastic = None  # for samples of stochastic functions: their StochasticFunction record

    def __init__(self, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> None:
        deprecated(_VARIABLE_MESSAGE)
        if not isinstance(data, Tensor) or isinstance(data, Variable):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__} [autograd_lab] wrap a "
                            "tensor (al.tensor(...), al.randn(...)); a Variable already is one, use it directly")
        self._data = data._data
        self._grad_fn = None
        self._requires_grad = False
        self._vc = VersionCounter()  # 2017: changes made through .data are invisible to autograd
        self._output_nr = 0
        self._grad = None
        self._wrapped = data
        if volatile:
            self._volatile = True  # volatile wins: requires_grad stays False
        elif requires_grad:
            self.requires_grad_(True)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Every op and custom Function of the core given a Variable comes here (PyTorch's protocol,
        :mod:`autograd_lab.overrides`): its results are Variables, and with a volatile input it records nothing."""
        with DisableTorchFunctionSubclass():
            return _dispatch.call(func, args, kwargs or {}, args)

    # -- 2017 attributes ------------------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """The tensor this Variable wraps (the one given to ``Variable(...)``), without history."""
        wrapped = self._wrapped
        if wrapped is not None and wrapped._data is self._data:
            return wrapped
        alias = self._data_alias
        if alias is None or alias._data is not self._data:
            alias = Tensor._make(self._data)
            alias.__class__ = Variable  # a Variable, so that 2017's loss.data[0] works on 0-dim results
            self._data_alias = alias
        return alias

    @data.setter
    def data(self, value: Tensor) -> None:
        Tensor.data.fset(self, value)
        self._wrapped = value if type(value) is Tensor else None

    @property
    def grad(self):
        """The accumulated gradient, as a Variable (2017's ``.grad`` was one)."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return _dispatch.mark_outputs(self._grad, False, ()) if self._grad is not None else None

    @grad.setter
    def grad(self, value) -> None:
        Tensor.grad.fset(self, value)

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def requires_grad(self) -> bool:
        return False if self._volatile else Tensor.requires_grad.fget(self)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    @property
    def volatile(self) -> bool:
        """True if this Variable was made volatile, or computed from a volatile Variable."""
        deprecated(_VOLATILE_MESSAGE)
        return self._volatile

    @volatile.setter
    def volatile(self, value: bool) -> None:
        deprecated(_VOLATILE_MESSAGE)
        if self._grad_fn is not None:
            raise RuntimeError("volatile can only be set on leaf variables [autograd_lab] this Variable was computed "
                               f"by {self._grad_fn.name()}; set it on the input you computed it from")
        self._volatile = bool(value)
        if value:
            self._requires_grad = False

    @property
    def creator(self):
        """The function that computed this Variable (``None`` for leaves and volatile results)."""
        deprecated("creator is deprecated: use grad_fn (its previous_functions are now next_functions)")
        if self._stochastic is not None:
            return self._stochastic
        return legacy_node(self.grad_fn)

    def reinforce(self, reward) -> None:
        """Give the reward for this sample of a stochastic function; backward then yields REINFORCE's
        score-function gradient, ``-reward * d log p(sample)`` for the function's parameters."""
        deprecated("reinforce is deprecated: backpropagate the score function yourself, "
                   "loss = -(reward * log_prob_of_sample).sum(); loss.backward()")
        if self._stochastic is None:
            raise RuntimeError("reinforce() can be only called on outputs of stochastic functions [autograd_lab] "
                               "this Variable was not sampled by multinomial, bernoulli or normal of "
                               "autograd_lab.legacy")
        self._stochastic.reward = reward

    # -- autograd -------------------------------------------------------------------------------
    def backward(self, gradient=None, retain_variables=None, create_graph: bool = False, *, retain_graph=None,
                 inputs=None) -> None:
        """Backward from this Variable; ``retain_variables`` is 2017's name of ``retain_graph``."""
        if retain_variables is not None:
            deprecated("retain_variables is deprecated: use retain_graph")
            retain_graph = retain_variables if retain_graph is None else retain_graph
        from .autograd import run_backward
        run_backward((self,), (gradient,), retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        """Call ``hook(grad)`` (``grad`` a Variable) whenever the gradient for this Variable is computed."""
        if self._volatile:
            raise RuntimeError("cannot register a hook on a volatile variable [autograd_lab] a volatile Variable "
                               "records no graph, so no gradient will ever flow to it")

        @functools.wraps(hook)
        def legacy_hook(grad):
            return hook(_dispatch.mark_outputs(grad, False, ()))

        return Tensor.register_hook(self, legacy_hook)

    def detach_(self) -> Variable:
        Tensor.detach_(self)
        self._stochastic = None
        return self

    def __getitem__(self, index):
        # 2017 had no 0-dim tensors: a loss was a 1-element tensor and loss.data[0] its value.
        first = index[0] if type(index) is tuple and len(index) == 1 else index
        if self._data.ndim == 0 and not self.requires_grad and type(first) is int and first == 0:
            deprecated("indexing a 0-dim value with [0] is the 2017 idiom: use .item()")
            return self.item()
        return _variable_method(Tensor.__getitem__, "__getitem__")(self, index)

    __hash__ = Tensor.__hash__


def _variable_method(method, name: str):
    """A Tensor method that, on a Variable, gives Variables and honours volatility (see ``_dispatch.call``); an
    in-place one first applies 2017's rule on shared storage (:func:`_dispatch.check_storage_not_shared`)."""
    in_place = _dispatch.modifies_in_place(name)

    @functools.wraps(method)
    def legacy_method(self, *args, **kwargs):
        if in_place:
            _dispatch.check_storage_not_shared(self)
        with DisableTorchFunctionSubclass():  # (the ops inside are handled here at once)
            return _dispatch.call(method, (self, *args), kwargs, (self, *args))
    return legacy_method


_KEEP = {"__init__", "__repr__", "__format__", "__deepcopy__", "__array__", "__hash__", "__bool__", "__len__",
         "__float__", "__int__", "__index__", "__iter__", "__getitem__", "__init_subclass__", "backward",
         "register_hook", "detach_", "item", "tolist", "numpy"}


def _bind_methods() -> None:
    for name, value in list(vars(Tensor).items()):
        if name in _KEEP or name in vars(Variable) or not inspect.isfunction(value):
            continue
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        setattr(Variable, name, _variable_method(value, name))


_bind_methods()


# -- creator: grad_fn with 2017's names ----------------------------------------------------------
_views: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class LegacyNode:
    """A graph node seen through 2017's names: ``previous_functions`` is ``next_functions``.

    Everything else (``name()``, ``variable`` of ``AccumulateGrad``, saved tensors, hooks) is the
    modern node's own; ``grad_fn`` of the same Variable compares equal to it.
    """

    __slots__ = ("node", "__weakref__")

    def __init__(self, node) -> None:
        self.node = node

    @property
    def previous_functions(self) -> tuple:
        deprecated("previous_functions is deprecated: use next_functions")
        return self.next_functions

    @property
    def next_functions(self) -> tuple:
        return tuple((legacy_node(node), nr) for node, nr in self.node.next_functions)

    def __getattr__(self, attr: str):
        return getattr(self.node, attr)

    def __eq__(self, other) -> bool:
        return other is self.node or (isinstance(other, LegacyNode) and other.node is self.node)

    def __hash__(self) -> int:
        return hash(self.node)

    def __repr__(self) -> str:
        return repr(self.node)


def legacy_node(node):
    """The 2017 view of ``node``: the old-style Function instance that recorded it, or a LegacyNode."""
    if node is None:
        return None
    function = getattr(node, "_legacy_function", None)
    if function is not None:
        return function
    view = _views.get(id(node))
    if view is None or view.node is not node:
        view = LegacyNode(node)
        _views[id(node)] = view
    return view
