"""How a built-in differentiable op is written: its forward and its derivatives, side by side.

Each op is one small class named like PyTorch's backward node (``MulBackward0``)::

    class MulBackward0(Op):
        saves = ("self", "other")                 # what backward needs, by name
        def forward(xp, self, other):             # arrays in, array out (xp: numpy or cupy)
            return self * other
        def d_self(grad, self, other):            # one derivative per input, on Tensors
            return grad * other
        def d_other(grad, self, other):
            return grad * self

Forward runs on raw arrays of the input tensors' namespace. Derivatives are written with
differentiable tensor operations, so ``create_graph=True`` differentiates them again. An op gives
either one ``d_<input>`` per input (only those whose input needs a gradient are evaluated) or a
single ``backward`` returning one gradient per input.

*Backward on arrays.* Without ``create_graph`` nothing records the derivatives, so wrapping each of
their intermediate results in a Tensor is pure overhead. An op whose ``d_*`` use only Python
operators (``+ - * / **``, comparisons, ``&``), which mean the same on arrays as on tensors, sets
``array_safe = True``: ``_backward`` then runs the very same functions on the raw arrays (one
Tensor per gradient, none in between). An op whose derivative needs tensor methods (``mm``,
``expand``) may give an array twin ``a_<input>`` beside ``d_<input>``; an op written with one
``backward`` may give ``a_backward`` (arrays in, arrays out). The tensor form stays the definition
(``create_graph`` uses it); ``tests/test_fast_paths.py`` checks for every op with an array form that
both give the same values and dtypes. In a ``backward()`` without ``create_graph`` the engine hands
such nodes gradient arrays directly (``_backward_on_arrays``): no tensor is made between them.

Names in ``saves`` are input names (saved as version-checked ``SavedTensor`` records), ``result``
(the output, saved without a reference cycle), ``<input>_sym_sizes`` / ``<input>_sym_numel`` (an
input's shape / element count), or keyword parameters of ``forward``. Keyword parameters named in
``tensor_params`` (a loss's ``target``, an ``index``, a ``mask``: tensors no gradient flows to) are
given as tensors: ``forward`` and the array forms get their arrays, the tensor derivatives the
tensors, and a saved one is a version-checked record like an input, as PyTorch saves it (changing a
target in place before ``backward()`` is an error, not a silently different gradient). Gradients never need to undo
broadcasting themselves: the engine sums each gradient down to its input's shape, in one place.
"""

from __future__ import annotations

import dis
import inspect
import re
from numbers import Number

from .. import backend
from .._compiled_core import is_function
from ..autograd import anomaly as _anomaly
from ..autograd import grad_mode as _gm
from ..autograd import graph as _graph
from ..autograd.anomaly import _in_use as _anomaly_in_use
from ..autograd.engine import conform_array
from ..autograd.graph import Node, grad_accumulator
from ..autograd.saved import SavedTensor, VersionCounter, _hooks_in_use
from ..tensor import Tensor

__all__ = ["Op", "OpError"]


_EMPTY = ()
_NO_EDGE = (None, 0)  # the edge of an input that needs no gradient
_CPU_XP = backend.np  # the CPU namespace, found by one type check on the per-op path (ops never import NumPy)
_CPU_ARRAY = backend.np.ndarray
_F64 = backend.np.dtype("float64")  # NumPy's built-in dtypes are singletons: found by identity, not by .kind
_F32 = backend.np.dtype("float32")
_NP_SCALAR = backend.np.generic
_np_asarray = backend.np.asarray
_new_object = object.__new__
_next_sequence_nr = _graph._sequence.__next__


class OpError(RuntimeError):
    """An op was given inputs it cannot work with; the message names the op, shapes and dtypes."""


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"Tensor(shape={tuple(value._data.shape)}, dtype={value.dtype!r})"
    return f"{type(value).__name__} {value!r}"


def _broadcast_message(op: str, shapes: list[tuple]) -> str:
    """PyTorch's broadcasting error, plus the op and every shape involved."""
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    for dim in range(ndim - 1, -1, -1):
        sizes = {p[dim] for p in padded} - {1}
        if len(sizes) > 1:
            a = next(p[dim] for p in padded if p[dim] != 1)
            b = next(p[dim] for p in padded if p[dim] not in (1, a))  # two sizes that differ, not merely two sizes
            return (  # PyTorch numbers the dimension in the broadcast result
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}. "
                f"[autograd_lab] {op} cannot broadcast shapes {' and '.join(str(tuple(s)) for s in shapes)}: "
                "sizes must be equal or 1 in each dimension, counting from the last; reshape or unsqueeze one "
                "operand."
            )
    return f"{op}: shapes {shapes} are not broadcastable"


class Op(Node):
    """Base of built-in ops (see the module docstring for how to write one)."""

    __slots__ = ()

    forward = None
    backward = None
    is_view = False  # outputs share storage and version counter with the first input
    array_safe = False  # the d_* are valid on raw arrays too (module docstring: backward on arrays)
    promotes = False  # inputs are promoted to a common dtype first (PyTorch's rules); "float": and to floating
    tensor_params: tuple = ()  # keyword parameters given as tensors that get no gradient (module docstring); a
    # tuple of them (an index key) is kept record by record, for ops without array derivatives only
    # filled in by __init_subclass__:
    _input_names: tuple[str, ...] = ()
    _variadic = False
    _derivatives: tuple | None = None
    _array_derivatives: tuple | None = None  # one per input: d_* (array_safe) or a_*; None if any is missing
    _array_backward = None  # a_backward: the array form of an op written with one backward
    _array_backward_masked = False  # whether a_backward takes output_mask (the inputs that need a gradient)
    _save_plan: tuple = ()
    _save_steps: tuple = ()  # _save_plan with, for each entry, the inputs whose gradient reads it
    _saves_tensors = False  # whether the plan may save a tensor (an input or the result)
    _save_shortcut: str | None = None  # "result", "self", "param", "two_inputs": common plans, saved inline
    _two_input_saves: tuple = ()  # for "two_inputs": (name, input index, mask of the edges that need it) twice
    _unary_saving_one = False  # one input and one saved tensor (its result or itself): a short backward
    _param_defaults: dict = {}  # forward's keyword parameters with defaults (read for saved ones left out)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for attr, value in list(vars(cls).items()):
            if (attr in ("forward", "backward") or attr.startswith(("d_", "a_"))) and is_function(value):
                setattr(cls, attr, staticmethod(value))
        if cls.forward is None:
            return
        params = list(inspect.signature(cls.forward).parameters.values())[1:]  # drop xp
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        cls._variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
        cls._input_names = tuple(p.name for p in positional)
        keyword = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
        # a saved keyword parameter left out of the call reads as its default (add(a, b) saves alpha=1)
        cls._param_defaults = {p.name: p.default for p in params
                               if p.kind is p.KEYWORD_ONLY and p.default is not p.empty}
        if "backward" not in vars(cls) or vars(cls)["backward"] is None:
            cls._derivatives = tuple(getattr(cls, "d_" + name) for name in cls._input_names)
            array_forms = tuple(getattr(cls, "a_" + name, None) or (d if cls.array_safe else None)
                                for name, d in zip(cls._input_names, cls._derivatives))
            cls._array_derivatives = array_forms if all(f is not None for f in array_forms) else None
        elif "backward" in vars(cls):  # one backward for all inputs; its array form, if any, beside it
            cls._array_backward = cls.a_backward if "a_backward" in vars(cls) else None
            # an a_backward with an ``output_mask`` parameter is told which inputs need a gradient (PyTorch's
            # grad_input_mask), so that it skips the others (a first convolution's input gradient)
            cls._array_backward_masked = (cls._array_backward is not None
                                          and "output_mask" in inspect.signature(cls._array_backward).parameters)
        cls._runs_on_arrays = cls._array_derivatives is not None or cls._array_backward is not None
        plan = []
        for name in cls.saves:
            if name == "result":
                plan.append((name, "result", 0))
            elif name in cls._input_names:
                plan.append((name, "input", cls._input_names.index(name)))
            elif name.endswith(("_sym_sizes", "_sym_numel")):
                base = name.rsplit("_sym_", 1)[0]
                plan.append((name, name[-5:], cls._input_names.index(base)))
            elif name in keyword:
                plan.append((name, "tensor_param" if name in cls.tensor_params else "param", name))
            else:
                raise TypeError(f"{cls.__name__}.saves names '{name}', which is neither an input, 'result', "
                                "an input's _sym_sizes/_sym_numel nor a keyword parameter of forward")
        cls._save_plan = tuple(plan)
        cls._save_users = users = _save_users(cls)
        cls._save_steps = tuple((name, kind, key, users[i] if users is not None else None)
                                for i, (name, kind, key) in enumerate(plan))
        if plan == [("result", "result", 0)]:
            cls._save_shortcut = "result"
        elif plan == [("self", "input", 0)] and len(cls._input_names) == 1 and not cls._variadic:
            cls._save_shortcut = "self"
        elif len(plan) == 1 and plan[0][1] == "param":
            cls._save_shortcut = "param"
        elif (len(plan) == 2 and len(cls._input_names) == 2 and all(kind == "input" for _, kind, _ in plan)
              and users is not None and None not in users):
            # two inputs saved, each only if a gradient that reads it is computed (mul, div): as the
            # bits of a mask over the edges, 1 for the first input's edge, 2 for the second's
            cls._save_shortcut = "two_inputs"
            cls._two_input_saves = tuple((name, key, sum(1 << i for i in needed_by))
                                         for (name, _, key), needed_by in zip(plan, users))
        else:
            cls._save_shortcut = None
        cls._saves_tensors = any(kind in ("input", "result", "tensor_param") for _, kind, _ in plan)
        unknown = set(cls.tensor_params) - keyword
        if unknown:
            raise TypeError(f"{cls.__name__}.tensor_params names {sorted(unknown)}, which are not keyword parameters "
                            "of forward")
        cls._unary_saving_one = (cls._save_shortcut in ("result", "self") and len(cls._input_names) == 1
                                 and not cls._variadic and cls._array_derivatives is not None)

    # -- forward ------------------------------------------------------------------------------
    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op on tensors (and Python scalars) and record it when gradients are needed."""
        n = len(inputs)
        if n == 2:  # most ops: written out, with promotion's common no-op case decided here
            a, b = inputs
            if isinstance(a, Tensor):
                a = a._data
            if isinstance(b, Tensor):
                b = b._data
            if cls.promotes and not (a.__class__ is _CPU_ARRAY and ((dt := a.dtype) is _F64 or dt is _F32) and (
                    b.__class__ is float or b.__class__ is int or (b.__class__ is _CPU_ARRAY and b.dtype is dt))):
                a, b = _promote(cls, inputs, (a, b))
            first = a
        elif n == 1:
            a = inputs[0]
            a = a._data if isinstance(a, Tensor) else a
            if cls.promotes and not (a.__class__ is _CPU_ARRAY and ((dt := a.dtype) is _F64 or dt is _F32)):
                a = _promote(cls, inputs, (a,))[0]  # (floats stay as they are)
            first = a
        else:
            arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
            if cls.promotes:
                arrays = _promote(cls, inputs, arrays)
            first = arrays[0] if arrays else None
        if first.__class__ is _CPU_ARRAY:  # the common case: one type check finds the namespace
            xp = _CPU_XP
        else:
            if n == 1:
                arrays = (a,)
            elif n == 2:
                arrays = (a, b)
            if not hasattr(first, "dtype"):
                first = next((a for a in arrays if hasattr(a, "dtype")), None)
            xp = _CPU_XP if first.__class__ is _CPU_ARRAY else backend.namespace_of(first)
        try:  # (one and two inputs called directly: a call with *args costs more than the op's Python)
            if params:
                call = params if not cls.tensor_params else {  # (tensor parameters: forward takes their arrays)
                    k: _param_arrays(v) if k in cls.tensor_params else v for k, v in params.items()}
                data = cls.forward(xp, *((a,) if n == 1 else (a, b) if n == 2 else arrays), **call)
            elif n == 1:
                data = cls.forward(xp, a)
            elif n == 2:
                data = cls.forward(xp, a, b)
            else:
                data = cls.forward(xp, *arrays)
        except (ValueError, IndexError, TypeError) as exc:  # TypeError: e.g. CuPy given a NumPy array
            from ._devices import on_one_device  # (only on failure: 0-dim CPU tensors join, else the error)
            return on_one_device(cls, inputs, params, exc)
        if _inplace_target.tensor is not None and inputs and inputs[0] is _inplace_target.tensor:
            return _inplace_target.write(cls, inputs, data, params)

        # Wrap the output and, when an input requires grad, record the node. This runs for every op,
        # so the common case (one output, not a view) is written out here: the output tensor is built
        # in place (what ``Tensor._make`` does), the edges are found in one pass over the inputs
        # (``gradient_edge`` inlined) and the node's fields are set directly (``Node.__init__``).
        if cls.is_view or data.__class__ is tuple:
            if data.__class__ is not tuple and isinstance(inputs[0], Tensor):
                return cls._wrap_view(inputs, data, params)
            return cls._wrap_general(inputs, data, params)
        if data.__class__ is not _CPU_ARRAY and isinstance(data, _NP_SCALAR):  # NumPy's 0-d results
            data = _np_asarray(data)
        out = _new_object(Tensor)
        out._data = data
        out._grad_fn = None
        out._requires_grad = False
        out._version_counter = None
        out._output_nr = 0
        out._grad = None
        state = _gm._state
        if state.inference:
            out._is_inference = True
        if not state.grad_enabled:
            return out
        if n == 1 or (n == 2 and not isinstance(inputs[1], Tensor)):  # one tensor input (x.exp(), x * 0.9)
            x = inputs[0]
            if not isinstance(x, Tensor):
                return out
            if x._base is not None and x._view_version != x._vc.value:
                x.grad_fn  # noqa: B018  (a view whose base changed in place refreshes its history)
            if x._grad_fn is not None:
                edge = (x._grad_fn, x._output_nr)
            elif x._requires_grad:
                edge = (grad_accumulator(x), 0)
            else:
                return out
            edges = (edge,) if n == 1 else (edge, _NO_EDGE)
        elif n == 2 and isinstance(inputs[0], Tensor) and inputs[0]._base is None and inputs[1]._base is None:
            x, y = inputs  # two tensors, neither a view (z + b, h @ w): _edges_of written out
            fn = x._grad_fn
            ex = (fn, x._output_nr) if fn is not None else (grad_accumulator(x), 0) if x._requires_grad else _NO_EDGE
            fn = y._grad_fn
            ey = (fn, y._output_nr) if fn is not None else (grad_accumulator(y), 0) if y._requires_grad else _NO_EDGE
            if ex is _NO_EDGE and ey is _NO_EDGE:
                return out
            edges = (ex, ey)
        else:
            edges = _edges_of(inputs)
            if edges is None:
                return out
        dtype = data.dtype
        if dtype is not _F64 and dtype is not _F32 and dtype.kind != "f":  # only floating results have gradients
            return out
        node = _new_object(cls)
        node.next_functions = edges
        shape = data.shape
        meta = _OUTPUT_META.get(shape)
        if meta is None or meta[0][1] is not dtype:
            meta = _output_meta_of(shape, dtype)
        node._output_meta = meta
        node._sequence_nr = _next_sequence_nr()
        node._extras = None
        node._released = False
        plan = cls._save_shortcut
        if plan is None:
            node._saved = _save_needed(cls, edges, inputs, out, params) if cls._save_plan else ()
        elif plan == "result":
            if _hooks_in_use[0]:  # saved-tensor hooks somewhere: the full constructor
                node._saved = (SavedTensor(out, True, "result"),)
            else:  # SavedTensor(out, True, "result") for a brand-new output, written out (no call)
                record = _new_object(SavedTensor)
                record._name = "result"
                record.is_output = True
                counter = _new_object(VersionCounter)  # (VersionCounter(), written out)
                counter.value = 0
                counter.last_op = None
                record._version_counter = out._version_counter = counter
                record.saved_version = 0
                record.output_nr = 0
                record._requires_grad = True
                record._released = False
                record._unpack_hook = None
                record._tensor = None
                record._data = data
                node._saved = (record,)
        elif plan == "self":  # a one-input op saving its input, always read by the only derivative
            x = inputs[0]
            if _hooks_in_use[0] or x._is_inference:  # hooks, or the inference-tensor error: the constructor
                node._saved = (SavedTensor(x, False, "self"),)
            else:  # SavedTensor(x, False, "self"), written out (x requires grad: this op is being recorded)
                record = _new_object(SavedTensor)
                counter = x._version_counter
                if counter is None:
                    counter = x._version_counter = VersionCounter()
                record._name = "self"
                record.is_output = False
                record._version_counter = counter
                record.saved_version = counter.value
                record.output_nr = x._output_nr
                record._requires_grad = True
                record._released = False
                record._unpack_hook = None
                record._tensor = x
                record._data = None
                node._saved = (record,)
        elif plan == "two_inputs":
            present = (1 if edges[0][0] is not None else 0) | (2 if edges[1][0] is not None else 0)
            (name0, key0, mask0), (name1, key1, mask1) = cls._two_input_saves
            v0, v1 = inputs[key0], inputs[key1]
            node._saved = (None if not mask0 & present else SavedTensor(v0, False, name0) if isinstance(v0, Tensor) else v0,
                           None if not mask1 & present else SavedTensor(v1, False, name1) if isinstance(v1, Tensor) else v1)
        else:  # "param": one keyword parameter (add's alpha), or its default if the call left it out
            key = cls._save_plan[0][2]
            node._saved = (params[key] if key in params else cls._param_defaults[key],)
        out._grad_fn = node
        if _anomaly_in_use[0] and _anomaly._state.enabled:
            _anomaly.record_forward_trace(node)
        return out

    @classmethod
    def _wrap_view(cls, inputs, data, params):
        """The end of ``apply`` for a view with one output (``w.T``, ``x[:, 0]``, ``x.view(...)``): what
        ``_wrap_general`` and ``_make_views`` do, without their lists and loops, since every layer takes one."""
        src = inputs[0]
        state = _gm._state
        edges = None
        if state.grad_enabled and data.dtype.kind == "f":
            if len(inputs) > 1:
                edges = _edges_of(inputs)
            else:  # (one input, the common case: _edges_of's loop written out)
                if src._base is not None and src._view_version != src._vc.value:
                    src.grad_fn  # noqa: B018  (a view whose base changed in place refreshes its history)
                if src._grad_fn is not None:
                    edges = ((src._grad_fn, src._output_nr),)
                elif src._requires_grad:
                    edges = ((grad_accumulator(src), 0),)
        counter = src._version_counter
        if counter is None:
            counter = src._version_counter = VersionCounter()
        out = Tensor._make(data, version_counter=counter)  # (the view shares the source's version counter)
        base = src._base
        attributes = {"_base": src if base is None else base, "_view_chain": src._view_chain + ((cls, params, None),),
                      "_view_version": counter.value}
        if src._is_inference:
            attributes["_is_inference"] = True
        if src._creation_meta is not None:
            attributes["_creation_meta"] = src._creation_meta
        elif state.inference and not src._is_inference:
            attributes["_creation_meta"] = "inference"
        elif not state.grad_enabled:
            attributes["_creation_meta"] = "no_grad"
        out.__dict__ = attributes  # (replaces what Tensor._make may have set: _is_inference is decided above)
        if edges is not None:
            data = out._data
            meta = _OUTPUT_META.get(data.shape)
            if meta is None or meta[0][1] is not data.dtype:
                meta = _output_meta_of(data.shape, data.dtype)
            if cls._save_shortcut == "param":  # (one keyword parameter: permute's dims, .T's)
                key = cls._save_plan[0][2]
                saved = (params[key] if key in params else cls._param_defaults[key],)
            else:
                saved = _save_needed(cls, edges, inputs, out, params) if cls._save_plan else ()
            out._grad_fn = _new_node(cls, edges, meta, saved)
        return out

    @classmethod
    def _wrap_general(cls, inputs, data, params):
        """The end of ``apply`` for ops with several outputs and for views."""
        multi = data.__class__ is tuple
        outputs = data if multi else (data,)
        edges = _edges_of(inputs) if _gm._state.grad_enabled and outputs[0].dtype.kind == "f" else None
        if cls.is_view:
            results = _make_views(cls, inputs[0], outputs, params, multi)
        elif multi:
            results = [Tensor._make(out, output_nr=i) for i, out in enumerate(outputs)]
        else:
            results = [Tensor._make(data)]
        if edges is not None:
            node = _new_node(cls, edges, tuple([(out.shape, out.dtype) for out in outputs]),
                             _save_needed(cls, edges, inputs, results[0], params))
            for t in results:
                t._grad_fn = node
        return tuple(results) if multi else results[0]

    @classmethod
    def _error(cls, inputs, params, exc) -> Exception:
        op = _function_name(cls)
        from ._devices import mixed_devices_message
        mixed = mixed_devices_message(op, inputs)  # tensors on two devices: that is the error, whatever was raised
        if mixed is not None:
            return RuntimeError(mixed)
        shapes = [tuple(x._data.shape) for x in inputs if isinstance(x, Tensor)]
        if "broadcast" in str(exc) and len(shapes) >= 2:
            return OpError(_broadcast_message(op, shapes))
        described = ", ".join(_describe(x) for x in inputs)
        extra = f" with {params}" if params else ""
        text = str(exc)
        if isinstance(exc, IndexError) and text.startswith("index ") and " for axis " in text:
            # PyTorch's phrase first ("dimension", not NumPy's "axis"), then what was involved
            return IndexError(f"{text.replace(' for axis ', ' for dimension ')} [autograd_lab] {op} "
                              f"(inputs: {described}{extra})")
        return type(exc)(f"{op}: {text} (inputs: {described}{extra})")

    # -- backward -----------------------------------------------------------------------------
    def _backward(self, grad_outputs: tuple) -> tuple:
        cls = type(self)
        saved = None
        if cls._array_derivatives is not None and not _gm._state.grad_enabled:
            grads, saved = self._backward_arrays(grad_outputs[0])
            if grads is not None:
                return grads
        if saved is None:
            saved = self._unpack_saved()
        if cls._derivatives is not None:
            grad = grad_outputs[0]
            return tuple(
                d(grad, *saved) if edge[0] is not None else None
                for d, edge in zip(cls._derivatives, self.next_functions)
            )
        result = cls.backward(grad_outputs[0] if len(self._output_meta) == 1 else grad_outputs, *saved)
        return result if isinstance(result, tuple) else (result,)

    def _unpack_saved(self) -> tuple:
        """``Node._unpack_saved``, and the tensors of a saved index key (a tuple, ``tensor_params``)."""
        if not type(self).tensor_params:
            return Node._unpack_saved(self)
        return tuple(v.unpack(self) if v.__class__ is SavedTensor
                     else tuple(x.unpack(self) if x.__class__ is SavedTensor else x for x in v) if v.__class__ is tuple
                     else v for v in self._saved)

    def _release_saved(self) -> list[str]:
        freed = Node._release_saved(self)
        if type(self).tensor_params:  # the records inside a saved index key
            for value in self._saved:
                if value.__class__ is tuple:
                    for v in value:
                        if v.__class__ is SavedTensor and not v._released:
                            v.release()
        return freed

    def _unpacked_saved(self, gdtype) -> tuple:
        """The saved values with tensors unpacked to their arrays (through their hooks if they have
        some, with the usual version check), and whether every saved array has the dtype ``gdtype``."""
        saved = []
        same_dtype = True
        for value in self._saved:
            if value.__class__ is SavedTensor:
                record, value = value, value.unpack_data(self)
                if value.dtype is not gdtype and value.dtype != gdtype and record._name not in type(self).tensor_params:
                    same_dtype = False  # (a target's or an index's integers take no part in promotion)
            saved.append(value)
        return saved, same_dtype

    def _as_saved_tensors(self, values: list) -> tuple:
        """Unpacked saved arrays (``_unpacked_saved``) as tensors again, for the tensor derivatives. Each
        answers ``requires_grad`` as the tensor it was saved from did (a derivative may ask it: convolution's
        backward does, to know which gradients to compute)."""
        return tuple(Tensor._make(v, requires_grad=s._requires_grad) if s.__class__ is SavedTensor else v
                     for v, s in zip(values, self._saved))

    def _backward_arrays(self, grad: Tensor) -> tuple:
        """The array form of ``_backward`` (module docstring): ``(gradients, None)``.

        Saved tensors are unpacked once. Where a saved array's dtype differs from the gradient's,
        NumPy's promotion would differ from PyTorch's, so it gives ``(None, saved)``: the unpacked
        values as tensors, for the tensor derivatives (unpack hooks never run twice for one backward).
        """
        g = grad._data
        saved, same_dtype = self._unpacked_saved(g.dtype)
        if not same_dtype:
            return None, self._as_saved_tensors(saved)
        out = []
        for d, (child, _) in zip(type(self)._array_derivatives, self.next_functions):
            if child is None:
                out.append(None)
                continue
            r = d(g, *saved)
            out.append(grad if r is g else None if r is None else Tensor._make(r))
        return tuple(out), None

    def _backward_on_arrays(self, grads: list, retain_graph: bool) -> list:
        """What the engine runs for this node when nothing records (no ``create_graph``) and no hook
        or capture needs tensors: gradient arrays in, gradient arrays out, each already checked
        against its input (summed down if broadcast, cast to its dtype); then the saved tensors are
        freed unless ``retain_graph``. Only for ops with array derivatives (``_array_derivatives``).

        This runs once per node of every ``backward()``, so ``SavedTensor.unpack_data`` and
        ``release`` are written out for the common case (no hooks, not freed, version unchanged).
        """
        cls = self.__class__
        derivatives = cls._array_derivatives
        if derivatives is None:
            return self._whole_backward_on_arrays(grads, retain_graph)
        g = grads[0]
        edges = self.next_functions
        if cls._unary_saving_one and g is not None:
            # The commonest node (tanh, exp, log...: one input, one saved tensor, its result or its
            # input), written out; anything unusual (hooks, a version or dtype mismatch, freed) goes on below.
            s = self._saved[0]
            if s._unpack_hook is None and not s._released and s._version_counter.value == s.saved_version:
                value = s._data if s.is_output else s._tensor._data
                child, nr = edges[0]
                if value.dtype is g.dtype and child is not None:
                    r = derivatives[0](g, value)
                    if r is not None:
                        shape, dtype = child._output_meta[nr]
                        if r.shape != shape or (r.dtype is not dtype and r.dtype != dtype):
                            r = conform_array(r, shape, dtype, self, 0)
                    if not retain_graph:
                        s._tensor = s._data = None
                        s._released = True
                        self._released = True
                    return [r]
        if g is None:  # no gradient arrived: nothing to compute (as _compute does)
            out = [None] * len(edges)
        else:
            saved = self._saved
            same_dtype = True
            if not cls._saves_tensors:  # only numbers and sizes: nothing to unpack
                values = saved
            else:
                values = []
                gdtype = g.dtype
                for r in saved:
                    if r.__class__ is SavedTensor:
                        if r._unpack_hook is None and not r._released and r._version_counter.value == r.saved_version:
                            s = r._data if r.is_output else r._tensor._data
                        else:
                            s = r.unpack_data(self)  # through its hooks, or the version / freed error
                        if s.dtype is not gdtype and s.dtype != gdtype and r._name not in cls.tensor_params:
                            same_dtype = False  # (a target's or an index's integers take no part in promotion)
                        values.append(s)
                    else:
                        values.append(r)
            if not same_dtype:  # PyTorch's promotion: the tensor derivatives, on the unpacked values
                out = self._tensor_grads_of_arrays(g, values)
            elif len(edges) == 1 or (len(edges) == 2 and edges[1][0] is None):  # one gradient to compute
                child, nr = edges[0]  # (tensor op number: the number's edge is empty)
                if child is None:
                    r = None
                elif len(values) == 1:  # (called directly: cheaper than a call with *values)
                    r = derivatives[0](g, values[0])
                elif len(values) == 2:
                    r = derivatives[0](g, values[0], values[1])
                else:
                    r = derivatives[0](g, *values)
                if r is not None:
                    shape, dtype = child._output_meta[nr]
                    if r.shape != shape or (r.dtype is not dtype and r.dtype != dtype):
                        r = conform_array(r, shape, dtype, self, 0)
                out = [r] if len(edges) == 1 else [r, None]
            else:
                out = []
                for d, (child, nr) in zip(derivatives, edges):
                    if child is None:
                        out.append(None)
                        continue
                    r = d(g, *values)
                    if r is not None:
                        shape, dtype = child._output_meta[nr]
                        if r.shape != shape or (r.dtype is not dtype and r.dtype != dtype):
                            r = conform_array(r, shape, dtype, self, len(out))
                    out.append(r)
        if not retain_graph and self._saved:
            if cls._saves_tensors:
                for s in self._saved:
                    if s.__class__ is SavedTensor:  # SavedTensor.release, written out
                        if s._unpack_hook is not None:
                            s._packed = s._edge = None
                        s._tensor = s._data = None
                        s._released = True
            self._released = True
        return out

    def _whole_backward_on_arrays(self, grads: list, retain_graph: bool) -> list:
        """``_backward_on_arrays`` for an op written with one ``backward`` and its array form ``a_backward``
        (which takes and returns arrays: the gradient, or a tuple of them for several outputs, with
        ``None`` where none arrived). Mixed dtypes take the tensor ``backward``, as for ``d_*``."""
        cls = type(self)
        edges = self.next_functions
        first = next((g for g in grads if g is not None), None)
        if first is None and not getattr(cls, "runs_without_grads", False):
            out = [None] * len(edges)
        else:
            values, same_dtype = self._unpacked_saved(first.dtype) if self._saved else ([], True)
            single = len(self._output_meta) == 1
            if same_dtype:
                if cls._array_backward_masked:
                    result = cls._array_backward(grads[0] if single else tuple(grads), *values,
                                                 output_mask=tuple(child is not None for child, _ in edges))
                else:
                    result = cls._array_backward(grads[0] if single else tuple(grads), *values)
            else:
                wrapped = [None if g is None else Tensor._make(g) for g in grads]
                saved = self._as_saved_tensors(values)
                result = cls.backward(wrapped[0] if single else tuple(wrapped), *saved)
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != len(edges):
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                                   f"{len(edges)}, got {len(result)})")
            out = []
            for i, (r, (child, nr)) in enumerate(zip(result, edges)):
                if child is None or r is None:
                    out.append(None)
                    continue
                if not same_dtype:
                    r = r._data
                out.append(conform_array(r, *child._output_meta[nr], self, i))
        if not retain_graph and self._saved:
            self._release_saved()
        return out

    def _tensor_grads_of_arrays(self, g, values: list) -> list:
        """The tensor derivatives applied to a gradient array and unpacked saved arrays (where NumPy's
        promotion of mixed dtypes would differ from PyTorch's); their results as checked arrays."""
        grad = Tensor._make(g)
        saved = self._as_saved_tensors(values)
        out = []
        for i, (d, (child, nr)) in enumerate(zip(type(self)._derivatives, self.next_functions)):
            r = None if child is None else d(grad, *saved)
            out.append(None if r is None else conform_array(r._data, *child._output_meta[nr], self, i))
        return out

    def _present_saved(self, index: int, value):
        name, kind, _ = type(self)._save_plan[index]
        if kind == "input" and isinstance(value, Number):  # a Python scalar operand reads as a 0-dim tensor
            return Tensor._make(backend.np.asarray(value))
        if kind == "tensor_param" and value.__class__ is tuple:  # an index key: its tensors, None for a whole dim
            return tuple(v.unpack(self) if v.__class__ is SavedTensor else None if v == slice(None) else v
                         for v in value)
        if name == "reduction" and isinstance(value, str) and value in _REDUCTION_ENUM:
            return _REDUCTION_ENUM[value]  # a loss's reduction reads as PyTorch's enum value
        return value


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _param_arrays(value):
    """A tensor parameter as ``forward`` takes it: a tensor's array, or an index key with each tensor's array."""
    if isinstance(value, Tensor):
        return value._data
    if value.__class__ is tuple:
        return tuple(v._data if isinstance(v, Tensor) else v for v in value)
    return value  # at::Reduction, what PyTorch's _saved_reduction shows


# One-output nodes share their ``_output_meta`` tuple, ``((shape, dtype),)``, with the other nodes of
# that shape and dtype: a deep graph then holds three objects fewer per node for Python's cycle
# collector to scan (the collector dominated deep chains' forward). Looked up by shape (a dtype
# object hashes slowly); a shape seen with another dtype takes that dtype's tuple from then on.
_OUTPUT_META: dict = {}
_OUTPUT_META_LIMIT = 4096  # shapes remembered at most (then the table starts again)


def _output_meta_of(shape: tuple, dtype) -> tuple:
    if len(_OUTPUT_META) >= _OUTPUT_META_LIMIT:
        _OUTPUT_META.clear()
    meta = _OUTPUT_META[shape] = ((shape, dtype),)
    return meta


class _InplaceTarget:
    """The tensor an in-place method is writing into, while it runs its out-of-place op.

    ``x.mul_(y)`` runs ``mul(x, y)`` with ``x`` as the target: when the op's first input is the
    target, ``Op.apply`` hands the computed array to ``write`` (see :mod:`autograd_lab.ops.inplace`)
    instead of wrapping it in a new tensor.
    """

    tensor = None
    name = None
    write = None


_inplace_target = _InplaceTarget()


def _function_name(cls) -> str:
    """The function an op class records, as PyTorch names it: ``MseLossBackward0`` -> ``mse_loss``,
    ``MaxPool2DWithIndicesBackward0`` -> ``max_pool2d_with_indices``, ``PowBackward1`` -> ``pow``."""
    name = re.sub(r"Backward\d*$", "", cls.__name__).lstrip("_")
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _new_node(cls, edges, meta, saved):
    """A node of ``cls`` (``Node.__init__``, written out as ``apply`` does inline for one output), and its
    forward trace in anomaly mode: for the nodes of views and of ops with several outputs."""
    node = _new_object(cls)
    node.next_functions = edges
    node._output_meta = meta
    node._sequence_nr = _next_sequence_nr()
    node._extras = None
    node._released = False
    node._saved = saved
    if _anomaly_in_use[0] and _anomaly._state.enabled:
        _anomaly.record_forward_trace(node)
    return node


def _edges_of(inputs) -> tuple | None:
    """The edges of a node taking ``inputs`` (``gradient_edge`` inlined: this runs for every recorded
    op), or ``None`` when no input requires grad and nothing is to be recorded."""
    edges = []
    requires = False
    for x in inputs:
        if not isinstance(x, Tensor):
            edges.append(_NO_EDGE)
            continue
        if x._base is not None and x._view_version != x._vc.value:
            x.grad_fn  # noqa: B018  (a view whose base changed in place refreshes its history)
        if x._grad_fn is not None:
            edges.append((x._grad_fn, x._output_nr))
            requires = True
        elif x._requires_grad:
            edges.append((grad_accumulator(x), 0))
            requires = True
        else:
            edges.append(_NO_EDGE)
    return tuple(edges) if requires else None


def _make_views(cls, src, outputs, params, multi):
    """Wrap a view op's outputs: they share ``src``'s memory and version counter, and remember how
    they were taken from the base (to replay the view on a gradient or a fresh base after in-place)."""
    base = src._base if src._base is not None else src
    if src._creation_meta is not None:
        meta = src._creation_meta
    elif _gm._state.inference and not src._is_inference:
        meta = "inference"
    elif not _gm._state.grad_enabled:
        meta = "no_grad"
    else:
        meta = None
    counter = src._vc
    version = counter.value
    chain = src._view_chain
    inference = src._is_inference
    results = []
    for i, out in enumerate(outputs):
        t = Tensor._make(out, output_nr=i, version_counter=counter)
        # (the view's own attributes live in its __dict__; one dict, set at once)
        t.__dict__ = {"_base": base, "_view_chain": chain + ((cls, params, i if multi else None),),
                      "_view_version": version}
        if inference or _gm._state.inference:
            t._is_inference = inference  # a view of a normal tensor stays normal in inference_mode
        if multi and meta is None:
            t._creation_meta = ("multi", i, cls.__name__)
        elif meta is not None:
            t._creation_meta = meta
        results.append(t)
    return results


def _loaded_names(fn) -> set:
    """Names a derivative function reads (its parameters it never reads are not needed)."""
    code = fn.__code__
    names = set(code.co_cellvars)  # read by a nested function or comprehension
    for ins in dis.get_instructions(code):
        if ins.opname.startswith("LOAD_FAST") or ins.opname in ("LOAD_DEREF", "LOAD_CLOSURE"):
            names.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
    return names


def _save_users(cls) -> tuple | None:
    """For each saved tensor input, the inputs whose derivative reads it (``None``: always save).

    As PyTorch does, an input is saved only if a gradient that needs it will be computed: ``a * 3``
    with ``a`` requiring grad does not keep ``a`` (only the gradient of the 3 would need it), so a
    later in-place change of ``a`` does not make this backward fail.
    """
    if cls._derivatives is None:
        return None
    reads = [_loaded_names(d) for d in cls._derivatives]
    return tuple(None if kind != "input" else tuple(i for i, r in enumerate(reads) if name in r)
                 for name, kind, _ in cls._save_plan)


def _save_needed(cls, edges, inputs, result, params) -> tuple:
    """The values a new node keeps: every entry of its plan, except inputs no needed gradient reads.

    ``result`` is the node's (first) output tensor; ``None`` for an in-place op, which saves its
    result after writing it.
    """
    saved = []
    for name, kind, key, needed_by in cls._save_steps:  # (plain loops: this runs for every recorded op)
        if needed_by is not None:
            for i in needed_by:
                if edges[i][0] is not None:
                    break
            else:
                saved.append(None)  # like PyTorch's undefined saved variable: _saved_<name> reads None
                continue
        if kind == "input":
            value = inputs[key]
            saved.append(SavedTensor(value, False, name) if isinstance(value, Tensor) else value)
        elif kind == "result":
            saved.append(None if result is None else SavedTensor(result, True, name))
        elif kind == "param":
            saved.append(params[key] if key in params else cls._param_defaults[key])
        elif kind == "tensor_param":
            value = params[key] if key in params else cls._param_defaults[key]
            if isinstance(value, Tensor):
                value = SavedTensor(value, False, name)
            elif value.__class__ is tuple:  # an index key: each tensor in it
                value = tuple(SavedTensor(v, False, name) if isinstance(v, Tensor) else v for v in value)
            saved.append(value)
        elif kind == "sizes":
            saved.append(tuple(inputs[key]._data.shape))
        else:  # numel
            saved.append(int(inputs[key]._data.size))
    return tuple(saved)


def _promote(cls, inputs, arrays):
    """Cast array operands to PyTorch's result dtype where NumPy's rules would differ."""
    dtype = getattr(arrays[0], "dtype", None)
    if dtype is not None and dtype.kind == "f":  # the common case, decided in one pass: a float array first,
        for a in arrays:  # every other array of its dtype (Python numbers never change a float's dtype)
            if a is not None and a.__class__ is not float and a.__class__ is not int and getattr(a, "dtype", dtype) != dtype:
                break
        else:
            return arrays
    dtypes = {a.dtype for a in arrays if hasattr(a, "dtype")}
    if len(dtypes) == 1:
        floating = next(iter(dtypes)).kind == "f"
        scalars_fit = floating or all(isinstance(a, (bool, int)) for a in arrays if not hasattr(a, "dtype"))
        if scalars_fit and (floating or cls.promotes != "float"):
            return arrays  # NumPy already computes in the dtype PyTorch would choose
    target = backend.result_type(*inputs)
    if cls.promotes == "float" and not target.is_floating_point:
        target = backend.get_default_dtype()
    np_target = target.np_dtype
    return [a.astype(np_target, copy=False) if hasattr(a, "dtype") and a.dtype != np_target else a
            for a in arrays]


