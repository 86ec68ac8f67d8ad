"""The backward graph: nodes (``grad_fn``), their edges, hooks, and ``AccumulateGrad`` for leaves.

A node is made by every recorded operation. ``next_functions`` holds one edge per input of that
operation, ``(node, output_nr)``, pointing at the node that produced the input (``None`` for an input
that does not require grad). Leaves that require grad are reached through their ``AccumulateGrad``
node, whose ``variable`` is the leaf itself. Nodes never point forward, so the graph has no cycles.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from typing import NamedTuple

from .. import backend
from ..layout import is_expanded
from . import anomaly as _anomaly
from .saved import SavedTensor

__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors", "register_multi_grad_hook",
           "GradientEdge", "get_gradient_edge", "increment_version"]

from .saved import (  # noqa: E402  (re-exported)
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)


class _Sequence(threading.local):
    """Each thread numbers the nodes it creates, as PyTorch's sequence numbers are per thread."""

    def __init__(self) -> None:
        self.counter = itertools.count()


_sequence = _Sequence()
_RUNS_FIRST = float("inf")  # AccumulateGrad's sequence number: ready leaves go before any other node


def next_sequence_nr() -> int:
    """The sequence number the next node created in this thread will get (each new node gets a larger one)."""
    return next(_sequence.counter)


class _SharedMeta(threading.local):
    def __init__(self) -> None:
        self.by_shape: dict = {}


_shared_meta = _SharedMeta()
_SHARED_META_LIMIT = 4096  # shapes remembered per thread (then the table starts again)


def output_meta(arrays) -> tuple:
    """``((shape, dtype), ...)``: what a node records of its outputs (the gradients arriving for them must match).

    A one-output node shares the tuple with the other nodes of that shape and dtype made in this thread: the
    tuples are immutable, and a long chain of nodes then holds three objects fewer per node for Python's
    garbage collector to scan, which otherwise runs twice as often and dominates the chain's forward.
    """
    if len(arrays) != 1:
        return tuple([(a.shape, a.dtype) for a in arrays])
    data = arrays[0]
    table = _shared_meta.by_shape
    meta = table.get(data.shape)
    if meta is None or meta[0][1] is not data.dtype:
        if len(table) >= _SHARED_META_LIMIT:
            table.clear()
        meta = table[data.shape] = ((data.shape, data.dtype),)
    return meta


class RemovableHandle:
    """Returned by every ``register_*hook``: ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "id")
    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _add_hook(hooks: dict, fn) -> RemovableHandle:
    if not callable(fn):
        raise TypeError(f"a hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class _NodeExtras:
    """What few nodes have: hooks, user metadata, the forward traceback of anomaly mode."""

    __slots__ = ("pre_hooks", "post_hooks", "tensor_pre_hooks", "retain_grad_hooks", "metadata",
                 "anomaly_trace", "output_tangents")

    def __init__(self) -> None:
        self.pre_hooks: dict = {}
        self.post_hooks: dict = {}
        self.tensor_pre_hooks: dict = {}  # output_nr -> {handle id: fn}
        self.retain_grad_hooks: dict = {}  # output_nr -> fn
        self.metadata: dict = {}
        self.anomaly_trace: str | None = None
        self.output_tangents: tuple | None = None  # forward-mode AD: (dual level, tangents) of a node that saves its result


class _SavedAttribute:
    """``node._saved_<name>`` (the value, unpacked and version-checked) or ``node._raw_saved_<name>``
    (the ``SavedTensor`` record): entry ``index`` of the node's ``_saved``, as ``Node._get_saved`` reads it."""

    __slots__ = ("name", "index", "raw")

    def __init__(self, name: str, index: int, raw: bool) -> None:
        self.name = name
        self.index = index
        self.raw = raw

    def __get__(self, node, owner=None):
        if node is None:
            return self
        saves = type(node).saves
        if self.index >= len(saves) or saves[self.index] != self.name:  # (inherited by a class that saves less)
            prefix = "_raw_saved_" if self.raw else "_saved_"
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '{prefix}{self.name}'")
        return node._get_saved(self.index, self.raw)


class Node:
    """A node of the backward graph: one recorded operation (``grad_fn`` of its outputs).

    Subclasses define how gradients flow back (``_backward``). Public introspection mirrors
    PyTorch's ``torch.autograd.graph.Node``: ``name()``, ``next_functions``, ``metadata``,
    ``register_hook``, ``register_prehook``, and the saved values as ``_saved_<name>`` attributes
    (``_raw_saved_<name>`` gives the ``SavedTensor`` record itself).
    """

    __slots__ = ("next_functions", "_saved", "_output_meta", "_sequence_nr", "_extras", "_released",
                 "__weakref__")

    # Names of what ``_saved`` holds, in order (set per subclass).
    saves: tuple[str, ...] = ()
    # Those of them that PyTorch's node keeps out of sight (no ``_saved_<name>`` attribute there): none here either.
    hidden_saves: tuple[str, ...] = ()
    # Whether the engine calls ``_backward`` even when none of the node's outputs received a gradient
    # (custom Functions: their backward then sees zeros or Nones, as in PyTorch).
    runs_without_grads = False
    # PyTorch writes this node by hand in C++ (AccumulateGrad, CopySlices, CopyBackwards): its ``name()`` keeps the
    # C++ namespace, ``torch::autograd::AccumulateGrad``, while its class, and so its repr, is ``AccumulateGrad``.
    written_in_cpp = False

    def __init__(self, next_functions=(), output_meta=()) -> None:
        """``next_functions``: one edge ``(node, output_nr)`` per input, ``(None, 0)`` where no gradient goes;
        ``output_meta``: ``(shape, dtype)`` of each output, what the gradients arriving here must match."""
        self.next_functions = next_functions if next_functions.__class__ is tuple else tuple(next_functions)
        self._output_meta = output_meta if output_meta.__class__ is tuple else tuple(output_meta)
        self._saved = ()
        self._sequence_nr = next(_sequence.counter)
        self._extras = None
        self._released = False
        if _anomaly._state.enabled:
            _anomaly.record_forward_trace(self)

    def name(self) -> str:
        """The node's name, as PyTorch spells it (``MulBackward0``, ``torch::autograd::AccumulateGrad``...)."""
        return "torch::autograd::" + type(self).__name__ if self.written_in_cpp else type(self).__name__

    def _get_extras(self) -> _NodeExtras:
        if self._extras is None:
            self._extras = _NodeExtras()
        return self._extras

    @property
    def metadata(self) -> dict:
        """A dict for your own annotations (the lab shows it)."""
        return self._get_extras().metadata

    # -- hooks --------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """Run ``fn(grad_inputs, grad_outputs)`` after this node computed its gradients.

        ``grad_inputs`` are the gradients this node produced for its inputs; ``fn`` may return a
        tuple to replace them.
        """
        return _add_hook(self._get_extras().post_hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """Run ``fn(grad_outputs)`` before this node runs; it may return a tuple to replace them."""
        return _add_hook(self._get_extras().pre_hooks, fn)

    def _register_tensor_prehook(self, output_nr: int, fn) -> RemovableHandle:
        """A hook of the tensor that is this node's output ``output_nr`` (``Tensor.register_hook``)."""
        return _add_hook(self._get_extras().tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def _tensor_hooks_for(self, output_nr: int) -> list:
        """Tensor hooks on output ``output_nr``, then its retain_grad hook (always last, as in PyTorch)."""
        extras = self._extras
        if extras is None:
            return []
        hooks = list(extras.tensor_pre_hooks.get(output_nr, {}).values())
        if output_nr in extras.retain_grad_hooks:
            hooks.append(extras.retain_grad_hooks[output_nr])
        return hooks

    # -- saved values -------------------------------------------------------------------------
    def __init_subclass__(cls, **kwargs) -> None:
        """Give the subclass its ``_saved_<name>`` and ``_raw_saved_<name>`` attributes, one pair per name
        in ``saves``. (Attributes defined once on the class, rather than a ``__getattr__`` that maps the
        names on each read: a class with ``__getattr__`` makes every attribute read of its instances,
        ``next_functions`` and ``_saved`` included, take a slower path in the interpreter.)"""
        super().__init_subclass__(**kwargs)
        for index, name in enumerate(cls.saves):
            if name in cls.hidden_saves:
                continue
            for attr, raw in (("_saved_" + name, False), ("_raw_saved_" + name, True)):
                if attr not in cls.__dict__:  # (a subclass's own definition wins)
                    setattr(cls, attr, _SavedAttribute(name, index, raw))

    def __dir__(self):
        # what the class lists, less its saved-value attributes; then those this node has: ``_saved_<name>``
        # for each name, ``_raw_saved_<name>`` for each saved tensor (as PyTorch's nodes list them)
        listed = super().__dir__()
        names = {n for n in listed if not isinstance(getattr(type(self), n, None), _SavedAttribute)}
        saves, hidden = type(self).saves, type(self).hidden_saves
        return sorted(names | {"_saved_" + n for n in saves if n not in hidden}
                      | {"_raw_saved_" + n for n, v in zip(saves, self._saved)
                         if isinstance(v, SavedTensor) and n not in hidden})

    def _get_saved(self, index: int, raw: bool = False):
        value = self._saved[index]
        if isinstance(value, SavedTensor):
            return value if raw else value.unpack(self)
        if raw:
            raise AttributeError(f"'{self.saves[index]}' of {self.name()} is not a saved tensor")
        return self._present_saved(index, value)

    def _present_saved(self, index: int, value):
        """How a non-tensor saved value reads through ``_saved_<name>`` (subclasses may wrap scalars)."""
        return value

    def _unpack_saved(self) -> tuple:
        """All saved values, tensors unpacked and version-checked, in ``saves`` order."""
        return tuple(v.unpack(self) if isinstance(v, SavedTensor) else v for v in self._saved)

    def _release_saved(self) -> list[str]:
        """Free saved tensors after backward; returns the names that were freed."""
        freed = []
        for name, value in zip(self.saves, self._saved):
            if value.__class__ is SavedTensor:
                if not value._released:
                    value.release()
                    freed.append(name)
            elif value.__class__ is tuple:  # an index key: the records in it
                for v in value:
                    if v.__class__ is SavedTensor:
                        v.release()
        self._released = True
        return freed

    # -- computing ----------------------------------------------------------------------------
    def _backward(self, grad_outputs: tuple) -> tuple:
        raise NotImplementedError(f"{self.name()} does not define how gradients flow back")

    def __call__(self, *grad_outputs):
        """Apply this node's backward formula to ``grad_outputs`` (no hooks, no graph traversal): as PyTorch's, the
        gradient for its one input, or a tuple of one gradient (or None) per input."""
        grads = tuple(self._backward(tuple(grad_outputs)))
        return grads[0] if len(grads) == 1 else grads

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The node that adds an incoming gradient into a leaf's ``.grad``."""

    __slots__ = ("variable",)
    written_in_cpp = True

    def __init__(self, variable) -> None:
        # (Node.__init__ written out: a leaf gets a new one whenever a new graph first uses it)
        data = variable._data
        self.next_functions = ()
        self._output_meta = ((data.shape, data.dtype),)
        self._saved = ()
        self._sequence_nr = _RUNS_FIRST  # runs as soon as it is ready, as in PyTorch
        self._extras = None
        self._released = False
        self.variable = variable

    def _tensor_hooks_for(self, output_nr: int) -> list:
        hooks = self.variable._backward_hooks
        return list(hooks.values()) if hooks else []

    def _backward(self, grad_outputs: tuple) -> tuple:
        return ()

    def accumulate(self, grad, create_graph: bool, trace: bool = False) -> tuple:
        """``variable.grad += grad``, as PyTorch's AccumulateGrad does it; returns ``(grad before, grad after)``
        (``before`` only when ``trace``: the stepper shows it).

        The first gradient becomes ``.grad`` as it is when nobody else holds it (``_only_the_pass_holds``), as
        PyTorch's does; otherwise it is copied into a buffer laid out like the leaf: the tensor that arrives may be
        held by someone else (the ``gradient`` passed to ``backward``, a hook that kept it, or another leaf: ``x + y``
        hands one tensor to both), and an in-place change to ``.grad`` (``zero_``, ``clip_grad_norm_``) must not
        reach it. Later gradients are added in place, so that references to ``.grad`` see the sum; a buffer that
        may be shared with someone else (one assigned to ``.grad``) is replaced by the sum instead of written
        into. Under ``create_graph`` the copy and the sum are recorded (``.grad`` then has a history:
        ``CopyBackwards``, then ``AddBackward0``).
        """
        leaf = self.variable
        old = leaf._grad
        before = old.detach().clone() if trace and old is not None else None
        if old is None and not create_graph and _only_the_pass_holds(grad, leaf._data):
            leaf._grad, leaf._grad_owned = grad, True
        elif old is None:
            buffer = backend.namespace_of(grad._data).empty_like(leaf._data, dtype=grad._data.dtype)
            if create_graph:
                leaf._grad, leaf._grad_owned = _tensor(buffer).copy_(grad), False
            else:
                buffer[...] = grad._data
                leaf._grad, leaf._grad_owned = _tensor(buffer), True
        elif create_graph or old.requires_grad or grad.requires_grad:
            leaf._grad = old + grad
            leaf._grad_owned = not create_graph
        else:
            if leaf._grad_owned:
                old._data += grad._data
            else:
                old._data = old._data + grad._data
                leaf._grad_owned = True
            old._vc.bump("AccumulateGrad")
        return before, leaf._grad


_PASS_HOLDS = 3  # references to a leaf's first gradient held by the pass in ``accumulate``: run_node's tuple of them,
# and the arguments of ``engine._accumulate`` and of ``accumulate``


def _only_the_pass_holds(grad, leaf_array) -> bool:
    """Whether a leaf's first gradient can be its ``.grad`` without a copy. PyTorch's AccumulateGrad keeps ("steals")
    the tensor when its reference count shows nobody else holds it, and it is laid out as the leaf is; so does this,
    with ``sys.getrefcount`` (each count includes this function's names and getrefcount's argument): beyond the pass
    nobody holds the tensor, nobody but the tensor its array, nobody but the view the array a view views."""
    array = grad._data
    base = array.base
    return (sys.getrefcount(grad) <= _PASS_HOLDS + 2 and sys.getrefcount(array) <= 3
            and (base is None or base.__class__ is array.__class__ and sys.getrefcount(base) <= 3)
            and grad._base is None and grad._fw_grad is None and array.strides == leaf_array.strides
            and getattr(array.flags, "writeable", True) and not is_expanded(array))


def _tensor(array):
    from ..tensor import Tensor
    return Tensor._make(array)


def gradient_edge(tensor):
    """The edge through which a gradient for ``tensor`` enters the graph: ``(node, output_nr)``."""
    if tensor._base is not None and tensor._view_version != tensor._vc.value:
        tensor.grad_fn  # noqa: B018  (a stale view refreshes its grad_fn first)
    if tensor._grad_fn is not None:
        return (tensor._grad_fn, tensor._output_nr)
    if tensor._requires_grad:
        return (grad_accumulator(tensor), 0)
    return (None, 0)


def grad_accumulator(leaf) -> AccumulateGrad:
    """The leaf's ``AccumulateGrad`` node; shared by every op that uses the leaf while a graph holds it."""
    ref = leaf._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(node)
    return node


# -- the public graph API around edges and hooks (PyTorch's torch.autograd.graph) ---------------------
class GradientEdge(NamedTuple):
    """Where the gradient of one tensor enters the graph: a node and which of its outputs.

    ``autograd.grad(loss, get_gradient_edge(x))`` computes what ``autograd.grad(loss, x)`` does; an edge
    can stand for a tensor in ``grad``'s and ``backward``'s ``inputs``, and in ``grad``'s ``outputs``
    (with its gradient given in ``grad_outputs``: a node records its outputs' shapes, not their device).
    """

    node: Node
    output_nr: int


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge through which the gradient of ``tensor`` flows: its ``grad_fn`` and output number, or
    for a leaf its ``AccumulateGrad`` node (output 0)."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, output_nr = gradient_edge(tensor)
    return GradientEdge(node, output_nr)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in a sequence), as an in-place op would:
    for writes autograd cannot see (into ``tensor.numpy()``, say), so that the saved-tensor checks
    still catch a use of the old values. Inference tensors have no version counter and are skipped."""
    for t in (tensor,) if hasattr(tensor, "_data") else tensor:
        if not t._is_inference:
            t._vc.bump("increment_version")


class _MultiHandle:
    """The handle ``register_multi_grad_hook`` returns: ``remove()`` takes off the hook on every tensor."""

    __slots__ = ("handles", "_records")

    def __init__(self, handles: tuple, records: dict) -> None:
        self.handles = handles
        self._records = records  # what the hooks keep per backward pass (tests check it does not grow)

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _node_of(tensor):
    """The node whose run means a gradient for ``tensor`` arrived (``AccumulateGrad`` for a leaf)."""
    if isinstance(tensor, GradientEdge):
        return tensor.node
    node = gradient_edge(tensor)[0] if tensor.requires_grad else None
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def _forget_finished(per_task: dict) -> None:
    """Drop the entries of passes that are over (one that stopped early, e.g. on an error, never
    completed its entry): a hook used for a million steps keeps no state from old ones."""
    from .engine import active_graph_task_ids
    active = active_graph_task_ids()
    for task in [t for t in per_task if t not in active]:
        del per_task[task]


def register_multi_grad_hook(tensors, fn, *, mode: str = "all") -> _MultiHandle:
    """Call ``fn`` once per backward pass for a group of tensors, as PyTorch does.

    ``mode="all"``: after the gradients of all of ``tensors`` that this pass computes have been
    computed, ``fn(grads)`` gets a list with one entry per tensor (``None`` for a tensor the pass does
    not reach, e.g. one off the path to ``backward(inputs=...)``). ``mode="any"``: ``fn(grad)`` gets the
    first of their gradients computed in the pass, and is not called again in that pass.
    Built on tensor hooks and the engine's graph task (``engine.current_graph_task_id`` and
    ``engine.will_engine_execute_node``): the first hook to fire in a pass counts how many of the
    tensors' nodes the pass will run. ``fn`` should not modify the gradients. Returns a handle with
    ``remove()``.
    """
    from . import engine
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    lock = threading.Lock()
    label = getattr(fn, "__qualname__", None) or type(fn).__name__
    if mode == "all":
        tensors = tuple(tensors)
        nodes = [_node_of(t) for t in tensors]
        calls: dict = {}  # per graph task: [gradients seen so far, how many will come, the gradients]

        def inner_hook(index: int):
            def hook(grad) -> None:
                task = engine.current_graph_task_id()
                with lock:
                    entry = calls.get(task)
                    if entry is None:  # the first of them in this pass: count the ones it will compute
                        _forget_finished(calls)
                        expected = sum(map(engine.will_engine_execute_node, nodes))
                        entry = calls[task] = [0, expected, [None] * len(tensors)]
                    entry[0] += 1
                    entry[2][index] = grad
                    done = entry[0] == entry[1]
                    if done:
                        del calls[task]
                if done:
                    fn(entry[2])
            hook.__qualname__ = f"multi_grad_hook({label}, tensor {index})"  # (what the lab's stepper lists)
            return hook

        handles = tuple(t.register_hook(inner_hook(i)) for i, t in enumerate(tensors))
        records = calls
    else:
        fired: dict = {}  # the graph tasks in which fn already ran

        def any_hook(grad) -> None:
            task = engine.current_graph_task_id()
            with lock:
                if task in fired:
                    return
                _forget_finished(fired)
                fired[task] = True
            fn(grad)

        any_hook.__qualname__ = f"multi_grad_hook({label}, any)"
        handles = tuple(t.register_hook(any_hook) for t in tensors if t.requires_grad)
        records = fired
    return _MultiHandle(handles, records)
