"""The backward engine: one iterative traversal of the ``grad_fn`` graph, written as a generator.

``backward_steps`` yields a :class:`BackwardStep` after each node it runs; the lab's stepper pulls
it one step at a time. ``Tensor.backward``, ``autograd.backward`` and ``autograd.grad`` run the same
generator with ``record=False``: the traversal is the same code, but it yields nothing and nodes
without hooks skip the step record (see *Plain nodes* below). There is no recursion anywhere: a
chain of a million operations is walked with explicit stacks.

The order follows PyTorch's CPU engine:

1. Discover every node reachable from the roots and count, for each, the edges that reach it.
2. A node is *ready* once gradients from all those edges have arrived (summed in its input buffer).
   Among ready nodes, the most recently created runs first (highest sequence number); leaves'
   ``AccumulateGrad`` nodes run as soon as they are ready.
3. Running a node: tensor hooks on its outputs (then ``retain_grad``'s, always last), node
   pre-hooks, the backward formula, node post-hooks; then its saved tensors are freed unless
   ``retain_graph``. Each gradient it produced is checked against the input it belongs to (summed
   down if it was broadcast, cast to the input's dtype) and sent along the edge.
4. ``AccumulateGrad`` adds into ``.grad`` (in place once ``.grad`` holds a buffer of its own), then
   runs post-accumulate-grad hooks.

With ``inputs``, only the nodes on a path from the roots to those inputs run; ``backward`` makes
each non-leaf input ``retain_grad()`` (for good, as PyTorch does), and ``autograd.grad`` captures the
gradients arriving at the inputs instead of accumulating them.

*Plain nodes.* Without step recording, a node with no hooks (no ``_extras``), that is not an
``AccumulateGrad``, where nothing is captured, with every node executing (no ``inputs``) and anomaly
mode off, runs through :func:`_compute` directly: exactly what :func:`_run_node` would do for it
(hooks, captures and anomaly checks are the parts it has none of), without building a
``BackwardStep``. Which node runs next is decided by the same queue either way, so the order and
the gradients are the same (``tests/test_fast_paths.py`` checks both on random graphs).

*Arrays.* A pass that yields no steps and records nothing (``backward()`` without ``create_graph``)
keeps raw arrays in its buffers instead of tensors. A plain node whose class runs on arrays (an op
with array derivatives, ``Op._backward_on_arrays``) gets them directly and returns checked arrays;
a plain node without (a custom Function) goes through :func:`_compute_via_tensors`; a leaf without
hooks accumulates a tensor made once around the array; every other node gets tensors made around
the arrays and hands back arrays. A Tensor is thus made only where code outside the engine sees a
gradient. (The same random graphs check this pass against the stepper's recorded one.)
"""

from __future__ import annotations

import heapq
import itertools
import threading

from ..backend import from_np
from ..backend import np as _np
from . import anomaly as _anomaly
from . import grad_mode as _gm
from .graph import AccumulateGrad, GradientEdge, gradient_edge

__all__ = ["BackwardStep", "backward_steps", "run_to_end", "conform_array", "current_graph_task_id",
           "will_engine_execute_node"]

_CPU_ARRAY = _np.ndarray
_Tensor = None  # set by autograd_lab.tensor once Tensor exists (it imports this package)


# -- graph tasks: which backward pass is running (for hooks that span several tensors) ------------------
class _Tasks(threading.local):
    def __init__(self) -> None:
        self.stack: list = []  # (id, nodes that run) per pass in progress, innermost last (a hook may call backward)


_tasks = _Tasks()
_task_ids = itertools.count()


def current_graph_task_id() -> int:
    """The id of the backward pass running now in this thread (PyTorch's ``_current_graph_task_id``),
    or -1 outside one. Each call of ``backward``/``grad`` (each stepper run) is a new task."""
    stack = _tasks.stack
    return stack[-1][0] if stack else -1


def active_graph_task_ids() -> set:
    """The ids of the passes in progress in this thread (nested ones included); hooks that keep state per
    pass drop what belongs to passes that are over."""
    return {task[0] for task in _tasks.stack}


def will_engine_execute_node(node) -> bool:
    """Whether the backward pass running now reaches ``node`` (PyTorch's ``_will_engine_execute_node``):
    every node reachable from the roots, or with ``inputs=`` only those on a path to an input.
    ``register_multi_grad_hook`` asks it how many of its tensors will get a gradient in this pass."""
    stack = _tasks.stack
    if not stack:
        raise RuntimeError("will_engine_execute_node can only be called during the backward pass (from a hook)")
    return node in stack[-1][1]


class BackwardStep:
    """What one node did during backward (the unit the stepper shows).

    Attributes: ``index`` (0, 1, ...), ``node``, ``grad_outputs`` (gradients flowing into the node,
    after hooks), ``grad_inputs`` (gradients it sent to its inputs, one per ``next_functions``
    entry), ``hooks_fired`` (``(kind, hook)`` pairs, kind in ``tensor``, ``prehook``, ``hook``,
    ``post_accumulate``), ``accumulated`` (for ``AccumulateGrad``: ``(leaf, grad_before, grad_after)``;
    ``grad_before`` is only recorded when tracing), ``freed`` (names of saved tensors released),
    ``captured`` (indices of ``inputs`` whose gradient was taken here) and ``executed`` (False for a
    node whose gradient was only captured).
    """

    __slots__ = ("index", "node", "grad_outputs", "grad_inputs", "hooks_fired", "accumulated", "freed",
                 "captured", "executed")

    def __init__(self, index: int, node) -> None:
        self.index = index
        self.node = node
        self.grad_outputs = ()
        self.grad_inputs = ()
        self.hooks_fired: list = []
        self.accumulated = None
        self.freed: list[str] = []
        self.captured: list[int] = []
        self.executed = True

    def __repr__(self) -> str:
        return f"<BackwardStep {self.index}: {self.node.name()}>"


def run_to_end(steps):
    """Drain a step generator and return its result (the captured gradients)."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def _discover(root_nodes):
    """Every node reachable from the roots, with the parents of each (explicit stack, no recursion)."""
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


def _needed_nodes(parents, target_nodes):
    """Nodes on a path from a root to one of ``target_nodes`` (walked upwards through ``parents``)."""
    needed = set()
    stack = [n for n in target_nodes if n in parents]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        stack.extend(parents[node])
    return needed


def _summed_dims(gshape, shape, node, index) -> tuple:
    """The dimensions to sum a gradient of shape ``gshape`` over to undo broadcasting to ``shape``."""
    lead = len(gshape) - len(shape)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(shape, gshape[lead:])):
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got {list(gshape)} but "
            f"expected shape compatible with {list(shape)}"
        )
    return tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)


def conform_array(data, shape, dtype, node, index):
    """A gradient array made to fit its input: summed down to ``shape`` if it was broadcast (the one
    place that undoes broadcasting), cast to ``dtype``. The array form of ``_validate``'s fixes."""
    gshape = data.shape
    if gshape != shape:
        lead = len(gshape) - len(shape)
        if lead > 0 and gshape[lead:] == shape:  # broadcast over leading dims only (a bias): one sum
            data = data.sum(axis=0 if lead == 1 else tuple(range(lead)))
        else:
            dims = _summed_dims(gshape, shape, node, index)
            if dims:
                data = data.sum(axis=dims, keepdims=True)
            if data.shape != shape:
                data = data.reshape(shape)
    if data.dtype != dtype:
        data = data.astype(dtype)
    return data


def _sum_to_shape(grad, shape, node, index):
    """Undo broadcasting of a gradient tensor (recorded when ``create_graph``; see ``conform_array``)."""
    if not _gm._state.grad_enabled:  # nothing records: the array form
        return type(grad)._make(conform_array(grad._data, shape, grad._data.dtype, node, index))
    gshape = grad._data.shape
    dims = _summed_dims(gshape, shape, node, index)
    if dims:
        grad = grad.sum(dim=dims, keepdim=True)
    if len(gshape) != len(shape):
        grad = grad.reshape(shape)
    return grad


def _validate(node, grad_inputs):
    """Check what a node returned: one gradient per input, each shaped and typed like that input."""
    edges = node.next_functions
    if len(grad_inputs) != len(edges):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients (expected {len(edges)}, "
            f"got {len(grad_inputs)})"
        )
    checked = list(grad_inputs)
    for i, (grad, (child, nr)) in enumerate(zip(grad_inputs, edges)):
        if grad is None or child is None:
            continue
        data = getattr(grad, "_data", None)
        if data is None:
            raise TypeError(
                f"function {node.name()} returned a gradient of type {type(grad).__name__} at index {i}; "
                "expected a Tensor or None"
            )
        shape, dtype = child._output_meta[nr]
        if data.shape != shape:  # (recorded shapes are array shapes: tuples; the common case is one compare)
            grad = _sum_to_shape(grad, shape, node, i)
        if grad._data.dtype is not dtype and grad._data.dtype != dtype:
            grad = grad.to(from_np(dtype))
        checked[i] = grad
    return checked


def _is_expanded(array) -> bool:
    """Whether several elements of ``array`` share memory (a broadcast: a zero stride over a dim longer than 1)."""
    return any(st == 0 and n > 1 for st, n in zip(array.strides, array.shape))


def _accumulate(leaf, grad, create_graph: bool, trace: bool, fresh: bool = False):
    """``leaf.grad += grad``, as PyTorch's AccumulateGrad does it; returns (before, after).

    ``fresh``: ``grad`` is a tensor the engine just made around a gradient array (no history, no
    version counter shared with anyone), so it may become ``.grad`` itself, without ``.data``.
    """
    before = None
    old = leaf._grad
    if trace and old is not None:
        before = old.detach().clone()
    if old is None:
        if create_graph:
            leaf._grad = grad
        elif not grad._data.flags.c_contiguous and (leaf._data.flags.c_contiguous or _is_expanded(grad._data)) or (
                not getattr(grad._data.flags, "writeable", True)):
            # a broadcast (expanded) or transposed gradient: .grad gets a buffer laid out like the leaf,
            # as PyTorch's AccumulateGrad does, so that optimizers update it quickly and in place
            leaf._grad = grad.clone().data
            leaf._grad_owned = True
            return before, leaf._grad
        else:
            leaf._grad = grad if fresh else grad.data  # .data: no history, a version counter of its own
        leaf._grad_owned = False  # may alias a buffer someone else holds: never write into it
    elif create_graph or old.requires_grad or grad.requires_grad:
        leaf._grad = old + grad
        leaf._grad_owned = not create_graph
    else:
        # In place, so that references to .grad see the accumulation (as in PyTorch). A buffer that
        # may be shared is replaced by the sum instead of written into; the tensor object stays.
        if leaf._grad_owned:
            old._data += grad._data
        else:
            old._data = old._data + grad._data
            leaf._grad_owned = True
        old._vc.bump("AccumulateGrad")
    return before, leaf._grad


def backward_steps(roots, grad_roots, *, retain_graph: bool = False, create_graph: bool = False,
                   inputs=None, accumulate: bool = True, trace: bool = False, record: bool = True):
    """Run backward from ``roots`` (tensors) seeded with ``grad_roots``, yielding a step per node.

    ``inputs``: restrict the work to the paths reaching these tensors (or ``GradientEdge``s, as roots may
    be). ``accumulate``: add into ``.grad`` (``backward``) or only capture the gradients of ``inputs``
    (``grad``). The generator's return value is the list of captured gradients, one per input (``None``
    where none arrived).
    ``trace`` also records each leaf's ``.grad`` before accumulation (the stepper shows it).
    ``record=False`` yields nothing (the whole pass runs at the first ``next``) and lets plain nodes
    skip their ``BackwardStep`` (see the module docstring); ``backward()`` and ``grad()`` use it.
    """
    root_edges = [_edge(t) for t in roots]
    input_edges = [_edge(t) for t in inputs] if inputs is not None else []
    if inputs is not None and accumulate:
        for t in inputs:
            if t.__class__ is not GradientEdge:
                t.retain_grad()  # as PyTorch: a non-leaf input keeps its .grad from now on (no-op for leaves)
    captured = [None] * len(input_edges)
    root_nodes = [node for node, _ in root_edges]

    # Which nodes run, and which input gradients are taken where.
    capture_at: dict = {}
    for slot, (node, nr) in enumerate(input_edges):
        capture_at.setdefault(node, []).append((nr, slot))
    if inputs is None:
        needed = None
        executes = None
        dependencies = _count_dependencies(root_nodes)
    else:
        parents = _discover(root_nodes)
        needed = _needed_nodes(parents, capture_at)
        executes = {n for n in needed if any(c in needed for c, _ in n.next_functions if c is not None)}
        if accumulate:
            executes.update(n for n in capture_at if isinstance(n, AccumulateGrad))
        dependencies = {node: sum(1 for p in node_parents if p in needed)
                        for node, node_parents in parents.items() if node in needed}
    # Plain nodes may skip the step record (module docstring); decided once per pass where possible.
    plain_ok = not record and executes is None and not capture_at and not _anomaly._state.enabled
    # Gradients travel as arrays when nothing records them (module docstring: *Arrays*).
    arrays = not record and not create_graph
    if arrays:
        grad_roots = [None if g is None else g._data for g in grad_roots]

    buffers: dict = {}
    for (node, nr), grad in zip(root_edges, grad_roots):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * len(node._output_meta)
        buf[nr] = grad if buf[nr] is None else buf[nr] + grad

    tie = itertools.count()
    ready: list = []  # a heap of (-sequence_nr, tie, node): the most recently created ready node first
    for node in buffers:
        if dependencies.get(node, 0) == 0 and (needed is None or node in needed):
            heapq.heappush(ready, (-node._sequence_nr, next(tie), node))
    became_ready = None  # the last node that became ready, not pushed yet: chains never touch the heap
    ready_grads = None  # its gradients (kept out of ``buffers`` while it waits there)
    on_arrays = arrays and plain_ok  # plain nodes with array derivatives run on arrays directly

    state = _gm._state
    caller_mode = state.grad_enabled
    state.grad_enabled = create_graph  # the whole pass runs in this mode; the caller's is back at each yield
    task = (next(_task_ids), dependencies if needed is None else needed)  # (the keys: every node that runs)
    tasks = _tasks.stack
    tasks.append(task)  # (taken off at each yield and put back after, as the grad mode is)
    suspended = False
    try:
        for index in itertools.count():
            if became_ready is not None:
                if ready:
                    heapq.heappush(ready, (-became_ready._sequence_nr, next(tie), became_ready))
                    buffers[became_ready] = ready_grads
                    node = heapq.heappop(ready)[2]
                    grads = buffers.pop(node)
                else:
                    node = became_ready
                    grads = ready_grads
                became_ready = None
            elif ready:
                node = heapq.heappop(ready)[2]
                grads = buffers.pop(node)
            else:
                break
            if on_arrays and node._extras is None and node.__class__._runs_on_arrays:
                step = None
                grad_inputs = node._backward_on_arrays(grads, retain_graph)
            elif plain_ok and node._extras is None and node.__class__ is not AccumulateGrad:
                step = None
                if arrays:
                    grad_inputs = _compute_via_tensors(node, grads, retain_graph)
                else:
                    grad_inputs = _compute(node, grads)
                    if not retain_graph and node._saved:
                        node._release_saved()
            elif on_arrays and accumulate and node.__class__ is AccumulateGrad and _no_leaf_hooks(node):
                step = None
                g = grads[0]
                if g is not None:
                    leaf = node.variable
                    if leaf._grad is None and g.__class__ is _CPU_ARRAY and (flags := g.flags).c_contiguous and flags.writeable:
                        leaf._grad = _Tensor._make(g)  # the first gradient, as _accumulate takes it (fresh, in layout)
                        leaf._grad_owned = False
                    else:
                        _accumulate(leaf, _Tensor._make(g), False, False, fresh=True)
                grad_inputs = ()
            else:
                step = BackwardStep(index, node)
                if arrays:
                    grads = [None if g is None else _Tensor._make(g) for g in grads]
                _run_node(node, grads, step, capture_at, captured, executes, accumulate, retain_graph,
                          create_graph, trace)
                grad_inputs = step.grad_inputs
                if arrays:
                    grad_inputs = [None if g is None else g._data for g in grad_inputs]

            # Send each gradient along its edge: summed into the child's buffer; a child whose last
            # edge this was becomes ready.
            for grad, (child, nr) in zip(grad_inputs, node.next_functions):
                if child is None or (needed is not None and child not in needed):
                    continue
                remaining = dependencies[child] - 1
                if remaining:
                    dependencies[child] = remaining
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * len(child._output_meta)
                else:
                    buf = buffers.pop(child, None) if buffers else None
                    if became_ready is not None:
                        heapq.heappush(ready, (-became_ready._sequence_nr, next(tie), became_ready))
                        buffers[became_ready] = ready_grads
                    became_ready = child
                    if buf is None:
                        if nr == 0 and len(child._output_meta) == 1:  # (a chain's case: one edge, one output)
                            ready_grads = [grad]
                            continue
                        buf = [None] * len(child._output_meta)
                    ready_grads = buf
                if grad is not None:
                    buf[nr] = grad if buf[nr] is None else buf[nr] + grad
            if record:
                state.grad_enabled = caller_mode
                tasks.pop()
                suspended = True
                yield step
                suspended = False
                tasks.append(task)
                caller_mode = state.grad_enabled  # the caller may have switched modes between steps
                state.grad_enabled = create_graph
    finally:
        if not suspended:
            state.grad_enabled = caller_mode
            tasks.pop()
    return captured


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


def _no_leaf_hooks(node) -> bool:
    """Whether an ``AccumulateGrad`` node runs no hook of any kind (so it needs no step record)."""
    leaf = node.variable
    return node._extras is None and not leaf._backward_hooks and not leaf._post_acc_hooks


def _compute_via_tensors(node, grads: list, retain_graph: bool) -> list:
    """``_compute`` for a node without array derivatives, in a pass whose gradients are arrays."""
    grad_inputs = _compute(node, [None if g is None else _Tensor._make(g) for g in grads])
    if not retain_graph and node._saved:
        node._release_saved()
    return [None if g is None else g._data for g in grad_inputs]


def _compute(node, grads: list) -> list:
    """What ``node`` sends to its inputs for the gradients ``grads`` of its outputs (no hooks).

    A node none of whose outputs received a gradient sends ``None`` everywhere without running
    (custom Functions run anyway, as in PyTorch: their backward sees zeros or Nones).
    """
    for g in grads:
        if g is not None:
            break
    else:
        if not getattr(type(node), "runs_without_grads", False):
            return [None] * len(node.next_functions)
    return _validate(node, node._backward(tuple(grads)))


def _run_node(node, grads, step, capture_at, captured, executes, accumulate, retain_graph, create_graph, trace):
    is_leaf_node = node.__class__ is AccumulateGrad
    if node._extras is not None or is_leaf_node:
        for nr, grad in enumerate(grads):
            if grad is None:
                continue
            for hook in node._tensor_hooks_for(nr):
                result = hook(grad)
                step.hooks_fired.append(("tensor", hook))
                if result is not None:
                    grad = result
            grads[nr] = grad
    step.grad_outputs = tuple(grads)

    if node in capture_at:
        for nr, slot in capture_at[node]:
            captured[slot] = grads[nr]
            step.captured.append(slot)
    if executes is not None and node not in executes:
        step.executed = False
        return

    extras = node._extras
    if extras is not None and extras.pre_hooks:
        for hook in list(extras.pre_hooks.values()):
            result = hook(tuple(grads))
            step.hooks_fired.append(("prehook", hook))
            if result is not None:
                grads = list(result)
        step.grad_outputs = tuple(grads)

    if is_leaf_node:
        leaf = node.variable
        if grads[0] is not None and accumulate:
            before, after = _accumulate(leaf, grads[0], create_graph, trace)
            step.accumulated = (leaf, before, after)
            if leaf._post_acc_hooks:
                for hook in list(leaf._post_acc_hooks.values()):
                    hook(leaf)
                    step.hooks_fired.append(("post_accumulate", hook))
        grad_inputs = []
    else:
        try:
            grad_inputs = _compute(node, grads)
            if _anomaly._state.enabled and _anomaly._state.check_nan:
                _anomaly.check_nan(node, grad_inputs)
        except Exception as exc:
            if _anomaly._state.enabled:
                _anomaly.annotate_error(exc, node)
            raise

    if extras is not None and extras.post_hooks:
        for hook in list(extras.post_hooks.values()):
            result = hook(tuple(grad_inputs), tuple(grads))
            step.hooks_fired.append(("hook", hook))
            if result is not None:
                grad_inputs = _validate(node, tuple(result))
    step.grad_inputs = tuple(grad_inputs)

    if not retain_graph and node._saved:
        step.freed = node._release_saved()
