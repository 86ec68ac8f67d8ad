"""The backward engine: one iterative walk of the ``grad_fn`` graph, written as a generator of steps.

``backward_steps`` runs backward one node at a time and yields a :class:`BackwardStep` after each.
``Tensor.backward``, ``autograd.backward`` and ``autograd.grad`` drain it at once (``run_to_end``);
the lab's stepper pulls one step per click. Both run the same loop and the same :func:`run_node`.
There is no recursion anywhere: a chain of a million operations is walked with explicit stacks.

The walk, as PyTorch's CPU engine does it:

1. Find every node reachable from the roots, and count for each the edges that reach it: its
   *dependencies*. (With ``inputs=``, only the nodes on a path from a root to an input take part.)
2. The roots' gradients go into their nodes' *buffers*: one slot per output of the node, where the
   gradients arriving along different edges are summed.
3. A node is *ready* once gradients have arrived along all its edges. The ready node created most
   recently (highest sequence number) runs next; a leaf's ``AccumulateGrad`` runs as soon as it is ready.
4. Running a node (:func:`run_node`) turns the gradients of its outputs into gradients for its inputs,
   and each is sent along its edge in ``next_functions`` into the buffer of the node at the other end.

Gradients are tensors. The pass runs in grad mode ``create_graph``: without it nothing the derivatives
compute is recorded (and an op's formulas run on the arrays underneath, see ``ops/_op.py``, unless a
forward-mode AD level is open: then they run on tensors, whose tangents ride along); with it, the
backward pass itself is recorded, so its results can be differentiated again.
"""

from __future__ import annotations

import heapq
import itertools
import threading

from ..backend import from_np, type_name
from . import anomaly as _anomaly
from . import grad_mode as _gm
from .forward_ad import _state as _dual
from .graph import AccumulateGrad, GradientEdge, gradient_edge
from .profiler import _state as _profiling

__all__ = ["BackwardStep", "backward_steps", "run_node", "run_to_end", "sum_to", "current_graph_task_id",
           "will_engine_execute_node", "is_checkpoint_valid"]

_Tensor = None  # set by autograd_lab.tensor once Tensor exists (it imports this package)


class BackwardStep:
    """What one node did during backward (the unit the stepper shows).

    Attributes: ``index`` (0, 1, ...), ``node``, ``grad_outputs`` (gradients flowing into the node,
    after hooks), ``grad_inputs`` (gradients it sent to its inputs, one per ``next_functions``
    entry), ``hooks_fired`` (``(kind, hook)`` pairs, kind in ``tensor``, ``prehook``, ``hook``,
    ``post_accumulate``), ``accumulated`` (for ``AccumulateGrad``: ``(leaf, grad_before, grad_after)``;
    ``grad_before`` is only recorded when tracing), ``freed`` (names of saved tensors released),
    ``captured`` (indices of ``inputs`` whose gradient was taken here) and ``executed`` (False for a
    node whose gradient was only captured). The sequences are tuples, empty unless something happened.
    """

    # (what most steps keep as it is: set on a step only when it happens)
    grad_outputs = grad_inputs = hooks_fired = freed = captured = ()
    accumulated = None
    executed = True

    def __init__(self, index: int, node) -> None:
        self.index = index
        self.node = node

    def __repr__(self) -> str:
        return f"<BackwardStep {self.index}: {self.node.name()}>"


def run_to_end(steps):
    """Drain a step generator and return its result (the captured gradients)."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


# -- the loop -------------------------------------------------------------------------------------
def backward_steps(roots, grad_roots, *, retain_graph: bool = False, create_graph: bool = False,
                   inputs=None, accumulate: bool = True, trace: bool = False, yield_steps: bool = True):
    """Run backward from ``roots`` (tensors, or ``GradientEdge``s) seeded with ``grad_roots``, yielding a
    step per node; its return value is the list of gradients captured for ``inputs`` (``None`` where none
    arrived).

    ``inputs``: restrict the work to the paths reaching these tensors (or edges). ``accumulate``: add into
    ``.grad`` (``backward``), or only capture the gradients of ``inputs`` (``grad``). ``trace`` also
    records each leaf's ``.grad`` before accumulation (the stepper shows it). ``yield_steps=False`` runs
    the whole pass at the first ``next`` (``backward()`` and ``grad()``: nobody looks between steps).
    """
    task = GraphTask(roots, inputs, accumulate=accumulate, retain_graph=retain_graph, create_graph=create_graph,
                     trace=trace)
    buffers: dict = {}  # node -> the gradients of its outputs received so far, summed per output
    for (node, nr), grad in zip(task.root_edges, grad_roots):
        _receive(buffers, node, nr, grad)
    dependencies, needed = task.dependencies, task.needed
    tie = itertools.count()  # (equal sequence numbers: first come, first run)
    ready = [(-node._sequence_nr, next(tie), node) for node in buffers if task.runs(node) and dependencies[node] == 0]
    heapq.heapify(ready)  # the ready node created last on top
    task.enter()  # grad mode create_graph while nodes run; the caller's own mode at each yield
    try:
        index = 0
        while ready:
            node = heapq.heappop(ready)[2]
            recorder = _profiling.active  # a profiler records this thread: it times the node (autograd/profiler.py)
            step = run_node(node, buffers.pop(node), index, task) if recorder is None else \
                recorder.node(run_node, node, buffers.pop(node), index, task)
            for grad, (child, nr) in zip(step.grad_inputs, node.next_functions):
                if child is None or (needed is not None and child not in needed):
                    continue
                _receive(buffers, child, nr, grad)
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    heapq.heappush(ready, (-child._sequence_nr, next(tie), child))
            index += 1
            if yield_steps:
                task.leave()
                yield step
                task.enter()
            step = grad = None  # (the pass keeps no gradient it has handed on: a leaf may keep one as its .grad)
    finally:
        task.leave()
    return task.captured


def _receive(buffers: dict, node, nr: int, grad) -> None:
    """Add ``grad`` into slot ``nr`` of ``node``'s buffer (made on the first edge that reaches the node)."""
    buffer = buffers.get(node)
    if buffer is None:
        buffer = buffers[node] = [None] * len(node._output_meta)
    if grad is not None:
        buffer[nr] = grad if buffer[nr] is None else _sum(buffer[nr], grad)


def _sum(a, b):
    """Two gradients of one output added: on the arrays (``on_arrays``), else as tensors (recorded under
    ``create_graph``)."""
    return _Tensor._make(a._data + b._data) if on_arrays() else a + b


def on_arrays() -> bool:
    """Whether the running pass computes on the raw arrays: nothing records it (no ``create_graph``) and no
    forward-mode AD level is open (forward-over-reverse: the gradients' tangents are computed on tensors)."""
    return not _gm._state.grad_enabled and _dual.level is None


# -- running one node ------------------------------------------------------------------------------
def run_node(node, grads: list, index: int, task: GraphTask) -> BackwardStep:
    """Run one node: turn the gradients of its outputs (``grads``) into gradients for its inputs.

    1. The hooks of the tensors that are its outputs run (``register_hook``, then ``retain_grad``'s),
       and may replace a gradient.
    2. Gradients asked for with ``inputs=`` are taken here; a node off every path to them stops here.
    3. Its pre-hooks run, then its backward formula (a leaf's ``AccumulateGrad`` adds into ``.grad``
       instead), then its hooks. Each gradient it produced is checked against its input.
    4. Its saved tensors are freed, unless ``retain_graph``.
    """
    step = BackwardStep(index, node)
    extras = node._extras  # (hooks, metadata: None for most nodes)
    if extras is not None or node.__class__ is AccumulateGrad:
        grads = _run_tensor_hooks(node, grads, step)
    step.grad_outputs = grads = tuple(grads)
    if task.capture_at and node in task.capture_at:
        task.capture(node, grads, step)
    if task.executing is not None and node not in task.executing:
        step.executed = False
        return step
    if extras is not None and extras.pre_hooks:
        for hook in list(extras.pre_hooks.values()):
            result = hook(grads)
            step.hooks_fired += (("prehook", hook),)
            if result is not None:
                grads = _hook_results(hook, result, grads)
        step.grad_outputs = grads
    if node.__class__ is AccumulateGrad:
        grad_inputs = ()
        if task.accumulate:
            _accumulate(node, grads[0], task, step)
    elif _any_gradient(grads) or node.runs_without_grads:  # (custom Functions run even without one, as in PyTorch)
        if _anomaly._state.enabled:  # NaN checked; an error carries the traceback of the forward call that made the node
            grad_inputs = _anomaly.run_backward(node, grads, _checked)
        else:
            grad_inputs = _checked(node, node._backward(grads))
    else:  # no gradient arrived for any output: none leaves
        grad_inputs = [None] * len(node.next_functions)
    if extras is not None and extras.post_hooks:
        for hook in list(extras.post_hooks.values()):
            result = hook(tuple(grad_inputs), grads)
            step.hooks_fired += (("hook", hook),)
            if result is not None:
                grad_inputs = _hook_results(hook, result, tuple(grad_inputs))
    step.grad_inputs = tuple(grad_inputs)
    if node._saved and not task.retain_graph:
        step.freed = node._release_saved()
    return step


def _run_tensor_hooks(node, grads: list, step: BackwardStep) -> list:
    """The hooks registered on the tensors that are ``node``'s outputs, each given the gradient of its tensor
    (``None`` for an output that got none, as PyTorch calls them; such a hook may not invent one)."""
    for nr, grad in enumerate(grads):
        for hook in node._tensor_hooks_for(nr):
            result = hook(grad)
            step.hooks_fired += (("tensor", hook),)
            if result is not None:
                if grad is None:
                    raise RuntimeError("can't replace a None gradient with a non-None value [autograd_lab] the hook "
                                       f"'{getattr(hook, '__name__', hook)}' was called for an output that got no "
                                       "gradient in this pass: return None when its argument is None")
                grad = _hook_result(hook, result, grad)
        grads[nr] = grad
    return grads


def _any_gradient(grads) -> bool:
    for g in grads:
        if g is not None:
            return True
    return False


def _hook_results(hook, result, originals: tuple) -> tuple:
    """What a node's pre-hook or post-hook returned, checked as PyTorch checks it: a tuple with, per gradient it
    was given, a tensor of the same size and type (or None)."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if result.__class__ is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type_name(result)}' [autograd_lab] hook '{name}' must "
                        f"return a tuple with one replacement gradient (or None) for each of the {len(originals)} it "
                        "was given, or None to keep them")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(result)}, but expected "
                           f"{len(originals)})")
    return tuple(None if new is None else _hook_result(hook, new, old) for new, old in zip(result, originals))


def _hook_result(hook, result, grad):
    """What a hook returned for one gradient, checked as PyTorch checks it: a tensor of the gradient's size and type."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(result, _Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type_name(result)}' [autograd_lab] hook '{name}' "
                        "must return a replacement gradient (a Tensor of the shape and dtype it was given) or None")
    if grad is None:
        raise RuntimeError(f"can't replace a None gradient with a non-None value [autograd_lab] hook '{name}' returned "
                           "a tensor where no gradient flows; return None there")
    if result.device != grad.device:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {grad.device.type.upper()} tensor got "
                           f"{result.device.type.upper()} tensor) [autograd_lab] return the gradient on {grad.device}")
    if result._data.shape != grad._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value [autograd_lab] it was given a gradient of "
                           f"shape {list(grad.shape)} and returned one of shape {list(result.shape)}")
    if result._data.dtype != grad._data.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was al.{grad.dtype._legacy_name} got "
                           f"al.{result.dtype._legacy_name}) [autograd_lab] return a gradient of the dtype it was "
                           "given, e.g. new.to(grad.dtype)")
    return result


def _accumulate(node: AccumulateGrad, grad, task: GraphTask, step: BackwardStep) -> None:
    """Add ``grad`` into the leaf's ``.grad`` (as PyTorch: not if the leaf stopped requiring grad since the graph was
    recorded); then its post-accumulate-grad hooks run (even when no gradient arrived, as in PyTorch)."""
    leaf = node.variable
    if grad is not None and leaf.grad_fn is not None:
        raise RuntimeError("leaf variable has been moved into the graph interior [autograd_lab] the graph recorded "
                           f"this tensor (shape {list(leaf.shape)}) as a leaf, and it has a grad_fn now "
                           f"({leaf.grad_fn.name()}: a view whose base came to require grad after an in-place change); "
                           "build the graph again from the tensor as it is now")
    if grad is not None and leaf._requires_grad:
        before, after = node.accumulate(grad, task.create_graph, task.trace)
        step.accumulated = (leaf, before, after)
    if leaf._post_acc_hooks:
        for hook in list(leaf._post_acc_hooks.values()):
            result = hook(leaf)
            step.hooks_fired += (("post_accumulate", hook),)
            if result is not None:
                name = getattr(hook, "__name__", hook)
                if not isinstance(result, _Tensor):
                    raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}' [autograd_lab] "
                                    f"a post-accumulate-grad hook ('{name}') returns None")
                raise RuntimeError("Tensor post accumulate grad hooks should return None. [autograd_lab] hook "
                                   f"'{name}' returned a Tensor; it may read or change leaf.grad in place, but "
                                   "returns nothing")


def _checked(node, grad_inputs) -> list:
    """One gradient per input, each made to fit its input: summed down where it was broadcast (the one place
    that undoes broadcasting) and cast to the input's dtype."""
    edges = node.next_functions
    if len(grad_inputs) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients (expected {len(edges)}, "
                           f"got {len(grad_inputs)})")
    checked = []
    for grad, (child, nr) in zip(grad_inputs, edges):
        if child is None or grad is None:
            checked.append(None)
            continue
        if grad.__class__ is not _Tensor and not isinstance(grad, _Tensor):
            raise TypeError(f"function {node.name()} returned a gradient of type {type(grad).__name__} at index "
                            f"{len(checked)}; expected a Tensor or None")
        shape, dtype = child._output_meta[nr]
        data = grad._data
        if data.shape != shape:
            grad = _sum_to_shape(grad, shape, node, len(checked))
        if data.dtype is not dtype and grad._data.dtype != dtype:
            grad = grad.to(from_np(dtype))
        checked.append(grad)
    return checked


def _sum_to_shape(grad, shape: tuple, node, index: int):
    """Undo broadcasting: sum a gradient over the dims its input was broadcast along."""
    gshape = grad._data.shape
    lead = len(gshape) - len(shape)
    if lead < 0 or _broadcast_mismatch(shape, gshape[lead:]):
        raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {index} - got {list(gshape)} "
                           f"but expected shape compatible with {list(shape)}")
    if on_arrays():
        return _Tensor._make(sum_to(grad._data, shape))
    return grad.sum_to_size(shape)  # recorded (create_graph), or carrying tangents


def _broadcast_mismatch(shape: tuple, gshape: tuple) -> bool:
    for s, g in zip(shape, gshape):
        if s != 1 and s != g:
            return True
    return False


def sum_to(array, shape: tuple):
    """``array`` summed down to ``shape``: the inverse of broadcasting ``shape`` up to ``array``'s shape."""
    lead = array.ndim - len(shape)
    if array.shape[lead:] == shape:  # broadcast along leading dims only (a bias): one sum
        return array.sum(axis=0 if lead == 1 else tuple(range(lead)))
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and array.shape[lead + i] != 1)
    out = array.sum(axis=dims, keepdims=True)
    return out.reshape(shape) if lead else out


# -- the pass ----------------------------------------------------------------------------------------
class _Tasks(threading.local):
    def __init__(self) -> None:
        self.stack: list = []  # the passes in progress in this thread, innermost last (a hook may call backward)


_tasks = _Tasks()
_task_ids = itertools.count()


class GraphTask:
    """One backward pass, besides its gradients: which nodes take part, how many edges each still waits
    for (``dependencies``), where the gradients asked for with ``inputs=`` are taken, and its settings."""

    def __init__(self, roots, inputs, *, accumulate: bool, retain_graph: bool, create_graph: bool, trace: bool):
        self.id = next(_task_ids)
        self.accumulate, self.retain_graph, self.create_graph, self.trace = accumulate, retain_graph, create_graph, trace
        self.root_edges = [_edge(t) for t in roots]
        root_nodes = [node for node, _ in self.root_edges]
        self.dependencies = _count_dependencies(root_nodes)
        self.needed = self.executing = None  # None: every node reachable from the roots
        self.capture_at: dict = {}  # node -> [(output_nr, index in inputs)]
        input_edges = [_edge(t) for t in inputs] if inputs is not None else []
        self.captured = [None] * len(input_edges)
        if inputs is None:
            return
        if accumulate:
            for t in inputs:
                if t.__class__ is not GradientEdge:
                    t.retain_grad()  # as PyTorch: a non-leaf input keeps its .grad from now on (no-op for leaves)
        for slot, (node, nr) in enumerate(input_edges):
            self.capture_at.setdefault(node, []).append((nr, slot))
        parents = _parents(root_nodes)
        self.needed = _needed_nodes(parents, self.capture_at)
        self.dependencies = {node: sum(1 for p in edges_in if p in self.needed)
                             for node, edges_in in parents.items() if node in self.needed}
        # a node runs if a gradient it sends is needed; the rest of the needed nodes only have theirs taken
        self.executing = {n for n in self.needed if any(c in self.needed for c, _ in n.next_functions if c is not None)}
        if accumulate:  # backward(inputs=): PyTorch runs an input's node too (hooks fire; its gradients stop there)
            self.executing.update(self.capture_at)

    def runs(self, node) -> bool:
        """Whether the pass reaches ``node`` at all."""
        return self.needed is None or node in self.needed

    def executes(self, node) -> bool:
        """Whether ``node``'s backward runs (with ``inputs=``, a node past every input only has its gradient taken)."""
        return self.executing is None or node in self.executing

    def capture(self, node, grads: list, step: BackwardStep) -> None:
        for nr, slot in self.capture_at[node]:
            self.captured[slot] = grads[nr]
            step.captured += (slot,)

    # While nodes run, the grad mode is ``create_graph`` and this pass is the current graph task; at each
    # yield the caller's mode and tasks are back (the stepper's caller runs between steps).
    _entered = False

    def enter(self) -> None:
        self._caller_mode = _gm._state.grad_enabled
        _gm._state.grad_enabled = self.create_graph
        _tasks.stack.append(self)
        self._entered = True

    def leave(self) -> None:
        if self._entered:
            _gm._state.grad_enabled = self._caller_mode
            _tasks.stack.pop()
            self._entered = False


def _edge(value) -> tuple:
    """A root's or an input's edge: given as a ``GradientEdge``, or the tensor's own."""
    return tuple(value) if value.__class__ is GradientEdge else gradient_edge(value)


def _count_dependencies(root_nodes) -> dict:
    """For every node reachable from the roots, how many edges reach it (explicit stack, no recursion)."""
    dependencies = dict.fromkeys(root_nodes, 0)
    stack = list(dependencies)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            if child in dependencies:
                dependencies[child] += 1
            else:
                dependencies[child] = 1
                stack.append(child)
    return dependencies


def _parents(root_nodes) -> dict:
    """Every node reachable from the roots, with the nodes whose edges reach it (once per edge)."""
    parents: dict = {node: [] for node in root_nodes}
    stack = list(parents)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child not in parents:
                parents[child] = []
                stack.append(child)
            parents[child].append(node)
    return parents


def _needed_nodes(parents: dict, target_nodes) -> set:
    """Nodes on a path from a root to one of ``target_nodes`` (walked upwards through ``parents``)."""
    needed = set()
    stack = [n for n in target_nodes if n in parents]
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(parents[node])
    return needed


def current_graph_task_id() -> int:
    """The id of the backward pass running now in this thread (PyTorch's ``_current_graph_task_id``),
    or -1 outside one. Each call of ``backward``/``grad`` (each stepper run) is a new task."""
    stack = _tasks.stack
    return stack[-1].id if stack else -1


def active_graph_task_ids() -> set:
    """The ids of the passes in progress in this thread (nested ones included); hooks that keep state per
    pass drop what belongs to passes that are over."""
    return {task.id for task in _tasks.stack}


def will_engine_execute_node(node) -> bool:
    """Whether the backward pass running now reaches ``node`` (PyTorch's ``_will_engine_execute_node``):
    every node reachable from the roots, or with ``inputs=`` only those on a path to an input.
    ``register_multi_grad_hook`` asks it how many of its tensors will get a gradient in this pass."""
    stack = _tasks.stack
    if not stack:
        raise RuntimeError("will_engine_execute_node can only be called during the backward pass (from a hook)")
    task = stack[-1]
    return node in task.dependencies if task.needed is None else node in task.needed


def is_checkpoint_valid() -> bool:
    """Whether the pass running now (if any) runs every node it reaches and accumulates into ``.grad``: a
    ``backward()`` without ``inputs=``. A reentrant checkpoint needs it, because its node runs a backward of its
    own that writes into ``.grad`` (PyTorch's ``torch.autograd._is_checkpoint_valid``)."""
    stack = _tasks.stack
    return not stack or (stack[-1].executing is None and stack[-1].accumulate)
