"""How a built-in differentiable op is written: its forward and its derivatives, side by side.

Each op is one small class named like PyTorch's backward node (``MulBackward0``)::

    class MulBackward0(Op):
        saves = ("self", "other")                 # what backward needs, by name
        def forward(xp, self, other):             # arrays in, array out (xp: numpy or cupy)
            return self * other
        def d_self(grad, other):                  # one derivative per input: the gradient for `self`,
            return grad * other                   #   given the output's gradient and saved values
        def d_other(grad, self):
            return grad * self

*Forward* runs on the raw arrays of the input tensors, in their array library ``xp``; its positional
parameters are the op's inputs (each gets an edge in ``next_functions``), its keyword-only parameters
are settings (``dim``, ``alpha``...).

*Derivatives* are given either as one ``d_<input>`` per input (only those of inputs that need a
gradient run) or as one ``backward`` returning a gradient per input. Their first parameter is the
output's gradient (for ops with several outputs: a tuple of them, ``None`` where none arrived); every
other parameter is a saved value **by name**: a name in ``saves``, or ``grad_input_mask`` (which inputs
need a gradient, as in PyTorch's formulas). A parameter that ``saves`` does not name is an error when the
class is defined. Each formula is written once, in the namespace of :mod:`autograd_lab.ops.formulas`,
and runs on arrays or on tensors (see there). A formula never undoes broadcasting: the engine sums
each gradient down to its input's shape, in one place.

*Saved values* (``saves``) are input names (kept as version-checked ``SavedTensor`` records), output names
(kept without a reference cycle: ``result`` for an op's one output, or the names in ``outputs``, PyTorch's, for
an op that returns several, as ``outputs = ("Q", "R")``), ``<input>_sym_sizes`` / ``_sym_strides`` / ``_sym_numel``
(an input's shape, strides in elements, element count), ``<input>_sym_argsize_minus_<k>`` (its size ``k``-th from
the end), ``<input>_sym_argsize_<k>`` (its size ``k``), ``<input>_dim`` (its number of dims), or keyword
parameters of ``forward``. An input
is saved only if a derivative that reads it will run: ``a * 3`` with ``a`` requiring grad does not keep
``a``, as in PyTorch. Keyword
parameters named in ``tensor_params`` (a loss's ``target``, an ``index``, a ``mask``: tensors no
gradient flows to) are given as tensors: ``forward`` gets their arrays, and a saved one is a
version-checked record like an input (changing a target in place before ``backward()`` is an error, not
a silently different gradient); like an input, it is kept only if a derivative that will run reads it.
Outputs named in ``non_differentiable`` (integer pivots, an error code, a permutation matrix) get no ``grad_fn``,
as in PyTorch, and no gradient arrives for them (a formula reads ``None`` there).

*Forward derivatives* (forward-mode AD) sit beside the backward ones: ``f_<input>(tangent, <names>)`` per
input (``f_self = d_self`` for an element-wise op), one ``jvp``, or ``jvp = LINEAR``; see
:mod:`autograd_lab.ops._op_forward`. When no dual level is open, ``apply`` spends one check on them.
"""

from __future__ import annotations

import inspect
from numbers import Number
from operator import itemgetter

from .. import backend
from ..autograd import engine, forward_ad
from ..autograd import grad_mode as _gm
from ..autograd.graph import Node, gradient_edge, output_meta
from ..autograd.profiler import _state as _profiling
from ..autograd.saved import FREED_MESSAGE, SavedTensor
from ..overrides import PLAIN_TYPES, handle_torch_function, has_torch_function
from ..tensor import Tensor
from . import _op_forward
from ._errors import OpError, function_name, op_failed
from ._op_forward import LINEAR

__all__ = ["Op", "OpError", "LINEAR"]

_NO_EDGE = (None, 0)  # the edge of an input that gets no gradient
_ndarray = backend.np.ndarray
_MASK = "grad_input_mask"  # the one formula parameter that is not a saved value
_dual = forward_ad._state  # per thread: the open dual level of forward-mode AD, if any


class Op(Node):
    """Base of built-in ops (see the module docstring for how to write one)."""

    __slots__ = ()

    forward = None
    backward = None
    saves: tuple = ()
    is_view = False  # outputs share memory and version counter with the first input
    promotes = False  # inputs are promoted to a common dtype first (PyTorch's rules); "float": and to floating
    tensor_params: tuple = ()  # keyword parameters given as tensors that get no gradient (module docstring)
    outputs: tuple = ("result",)  # forward's outputs, by the names ``saves`` and the formulas use for them
    non_differentiable: tuple = ()  # outputs no gradient flows through (LU's integer pivots, lu's P): no grad_fn
    # Read from the definition when the class is created (``_read_definition``):
    _inputs: tuple = ()  # forward's positional parameters: the op's inputs
    _keyword_defaults: dict = {}  # forward's keyword parameters that have defaults (a saved one left out reads it)
    _save_plan: tuple = ()  # per name in ``saves``: (name, kind, key, inputs whose derivative reads it)
    _formulas: tuple = ()  # per input: its d_<input> bound to the saved values it names; or ``backward``, bound
    _wants_mask = False  # whether a formula takes grad_input_mask
    _tensor_positions: tuple = ()  # where ``saves`` has an input or the result (their dtypes are checked)
    _record_positions: tuple = ()  # where ``saves`` may hold a saved-tensor record (those, a tensor parameter)
    _forward_rule = None  # forward-mode AD: the f_<input> rules (or jvp) bound by name (``ops/_op_forward.py``)
    _differentiable: tuple = ()  # per output, whether it gets the node as grad_fn (not in ``non_differentiable``)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for attr, value in list(vars(cls).items()):
            if (attr in ("forward", "backward", "jvp") or attr.startswith(("d_", "f_"))) and inspect.isfunction(value):
                setattr(cls, attr, staticmethod(value))
        if cls.forward is not None:
            _read_definition(cls)

    # -- forward ------------------------------------------------------------------------------
    @classmethod
    def apply(cls, *inputs, **params):
        """Run the op on tensors (and Python numbers) and, when an input requires grad, record its node."""
        if _profiling.active is not None:  # a profiler records this thread: it times the op (autograd/profiler.py)
            return _profiling.active.op(cls, inputs, params)
        arrays = []
        for x in inputs:  # each input's array (a plain Tensor costs one check)
            if x.__class__ is Tensor:
                arrays.append(x._data)
            elif x.__class__ in _NUMBERS_OR_NONE and arrays:  # a number (or an optional input left out) after the first
                arrays.append(x)
            elif x.__class__ not in PLAIN_TYPES and has_torch_function((x,)):  # a Tensor subclass that takes ops
                return handle_torch_function(cls.apply, inputs, params)  # over (the legacy Variable)
            else:
                arrays.append(x._data if isinstance(x, Tensor) else _non_tensor_input(cls, x, len(arrays)))
        first = arrays[0]
        if cls.promotes and (len(arrays) > 1 or first.__class__ is not _ndarray or first.dtype.kind != "f"):
            arrays = _promote(cls, inputs, arrays)  # (one float NumPy input: nothing to promote)
        xp = backend.np if arrays[0].__class__ is _ndarray else _namespace(arrays)
        try:
            data = cls.forward(xp, *arrays, **(_param_arrays(params) if cls.tensor_params else params))
        except (ValueError, IndexError, TypeError) as exc:  # a shape, index or device problem: say which
            return op_failed(cls, inputs, params, exc)
        multi = data.__class__ is tuple
        outputs = _make_views(cls, inputs[0], data, params) if cls.is_view else \
            [Tensor._make(out, output_nr=i) for i, out in enumerate(data)] if multi else [Tensor._make(data)]
        state = _gm._state
        edges = _edges(inputs) if state.grad_enabled and not state.inference and outputs[0]._data.dtype.kind == "f" \
            else None
        if edges is not None:  # record: one node, the grad_fn of every output
            node = cls(edges, output_meta(data if multi else (data,)))
            if multi and cls.non_differentiable:
                for out, differentiable in zip(outputs, cls._differentiable):
                    out._grad_fn = node if differentiable else None
            else:
                for out in outputs:
                    out._grad_fn = node
            if cls._save_plan:  # (after the grad_fns: a saved output remembers whether it has one)
                node._saved = _saved_for(cls, edges, inputs, outputs, params)
        if _dual.level is not None:  # forward-mode AD: the outputs' tangents, by the op's forward rule
            _op_forward.propagate(cls, inputs, params, outputs)
        return tuple(outputs) if multi else outputs[0]

    # -- backward -----------------------------------------------------------------------------
    def _backward(self, grad_outputs: tuple) -> list:
        """The gradient for each input: its derivative formula, given the outputs' gradients and the saved values.

        Without ``create_graph`` (grad mode is off while the engine runs), nothing records the derivative:
        the formulas run on the arrays, and only what they return becomes a tensor. Under ``create_graph``
        they run on the tensors themselves, recorded; and so they do, unrecorded, while a forward-mode AD level
        is open: the gradients' tangents are computed with them (forward over reverse). (Where a saved array's
        dtype differs from the gradient's, NumPy would promote differently from PyTorch: then the tensors are
        used either way.)
        """
        cls = type(self)
        if self._released and self._freed_number():
            raise RuntimeError(FREED_MESSAGE)
        grad = grad_outputs[0] if len(grad_outputs) == 1 else grad_outputs
        on_arrays = engine.on_arrays()
        values = self._unpacked_saved(on_arrays) if self._saved else []
        if on_arrays:
            first = grad if grad.__class__ is not tuple else next(g for g in grad if g is not None)
            if cls._tensor_positions and not _same_dtype(cls, values, first._data.dtype):
                values, on_arrays = [_as_tensor(v) for v in values], False
            else:
                grad = first._data if grad is first else tuple(None if g is None else g._data for g in grad)
        if cls._wants_mask:
            values.append(tuple(child is not None for child, _ in self.next_functions))
        if cls.backward is not None:  # one formula for every input
            result = cls._formulas[0](grad, values)
            result = result if result.__class__ is tuple else (result,)
            return [None if r is None else Tensor._make(r) for r in result] if on_arrays else list(result)
        result = []  # one formula per input, run for the inputs that need a gradient
        for (child, _), formula in zip(self.next_functions, cls._formulas):
            grad_in = None if child is None else formula(grad, values)
            result.append(Tensor._make(grad_in) if on_arrays and grad_in is not None else grad_in)
        return result

    def _release_saved(self) -> list[str]:
        """Free the records this node keeps (the other saved values are sizes and settings); their names. A Python
        number saved as an input counts as freed from now on too (``_freed_number``): PyTorch saves it as a
        tensor, so a second backward raises there."""
        freed = []
        saved = self._saved
        for i in type(self)._record_positions:
            value = saved[i]
            if value.__class__ is SavedTensor:
                if not value._released:
                    value.release()
                    freed.append(self.saves[i])
            elif value.__class__ is tuple:  # an index key: the records in it
                for v in value:
                    if v.__class__ is SavedTensor:
                        v.release()
        self._released = True
        return freed

    def _freed_number(self) -> bool:
        """Whether this released node kept a Python number as an input (read now, it is a freed saved value)."""
        saved = self._saved
        return any(saved[i].__class__ in _NUMBERS for i in type(self)._record_positions)

    def _unpacked_saved(self, as_arrays: bool) -> list:
        """The saved values in ``saves`` order, records unpacked (version-checked) to arrays or tensors."""
        values = []
        for value in self._saved:
            if value.__class__ is SavedTensor:
                value = value.unpack_data(self) if as_arrays else value.unpack(self, True)
            elif value.__class__ is tuple and SavedTensor in map(type, value):  # an index key (tensor_params)
                value = tuple(v if v.__class__ is not SavedTensor else v.unpack_data(self) if as_arrays
                              else v.unpack(self, True) for v in value)
            values.append(value)
        return values

    def _present_saved(self, index: int, value):
        """How ``_saved_<name>`` reads a value that is not a tensor record: as PyTorch shows it."""
        name, kind, _, _ = type(self)._save_plan[index]
        if kind == "input" and isinstance(value, Number):  # a Python scalar operand reads as a 0-dim tensor
            if self._released:
                raise RuntimeError(FREED_MESSAGE)
            return Tensor._make(backend.np.asarray(value))
        if kind == "tensor_param" and value.__class__ is tuple:  # an index key: its tensors, None for a whole dim
            return tuple(_presented_index_item(self, v) for v in value)
        if name == "reduction" and value in _REDUCTION_ENUM:
            return _REDUCTION_ENUM[value]  # a loss's reduction reads as PyTorch's enum value
        return value


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _presented_index_item(node, item):
    """An item of a saved index key as PyTorch shows it: a tensor (a list index is one, made when indexing), None
    for a whole dim."""
    if item.__class__ is SavedTensor:
        return item.unpack(node)
    if hasattr(item, "dtype"):
        return Tensor._make(item)
    return None if item == slice(None) else item


# -- reading an op's definition (once, when its class is created) ----------------------------------
def _read_definition(cls) -> None:
    """Find the inputs and settings in ``forward``'s signature, plan what to save, and bind each derivative
    formula to the saved values it names; a name ``saves`` does not have is an error here, naming the op."""
    params = list(inspect.signature(cls.forward).parameters.values())[1:]  # (after xp)
    cls._inputs = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    keywords = {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY}
    cls._keyword_defaults = {k: d for k, d in keywords.items() if d is not inspect.Parameter.empty}
    unknown = set(cls.tensor_params) - set(keywords)
    if unknown:
        raise TypeError(f"{cls.__name__}.tensor_params names {sorted(unknown)}, which are not keyword parameters of "
                        "forward")
    if cls.backward is not None:
        formulas = [cls.backward]
    else:
        missing = [n for n in cls._inputs if not hasattr(cls, "d_" + n)]
        if missing:
            raise TypeError(f"{cls.__name__} has no derivative for its input(s) {missing}: give one d_<input> per "
                            "input of forward, or a single backward for all of them")
        formulas = [getattr(cls, "d_" + name) for name in cls._inputs]
    reads = [_saved_names(cls, fn) for fn in formulas]
    cls._wants_mask = any(_MASK in names for names in reads)
    positions = {name: i for i, name in enumerate(cls.saves)}
    positions[_MASK] = len(cls.saves)
    cls._formulas = tuple(_bound(fn, [positions[n] for n in names]) for fn, names in zip(formulas, reads))
    cls._save_plan = tuple(_plan_entry(cls, name, keywords, reads) for name in cls.saves)
    cls._differentiable = tuple(name not in cls.non_differentiable for name in cls.outputs)
    cls._tensor_positions = tuple(i for i, (name, kind, _, _) in enumerate(cls._save_plan)
                                  if kind == "input" or kind == "output" and name not in cls.non_differentiable)
    cls._record_positions = tuple(i for i, (_, kind, _, _) in enumerate(cls._save_plan)
                                  if kind in ("input", "output", "tensor_param"))
    _op_forward.read_forward_rule(cls)


def _bound(fn, positions: list):
    """``fn`` as ``formula(grad, values)``: called with the saved values it names, taken from the node's list of
    saved values at their positions in ``saves``."""
    if not positions:
        return lambda grad, values: fn(grad)
    if len(positions) == 1:
        i = positions[0]
        return lambda grad, values: fn(grad, values[i])
    if len(positions) == 2:
        i, j = positions
        return lambda grad, values: fn(grad, values[i], values[j])
    pick = itemgetter(*positions)
    return lambda grad, values: fn(grad, *pick(values))


def _saved_names(cls, fn) -> list[str]:
    """The saved values a formula takes: its parameters after the gradient, each checked against ``saves``."""
    names = list(inspect.signature(fn).parameters)[1:]
    for name in names:
        if name not in cls.saves and name != _MASK:
            raise TypeError(f"{cls.__name__}.{fn.__name__} takes '{name}', which {cls.__name__}.saves does not name "
                            f"(saves: {cls.saves}): a derivative's parameters after the gradient are saved values, "
                            "bound by name")
    return names


def _plan_entry(cls, name: str, keywords: dict, reads: list) -> tuple:
    """How to save ``name``: ``(name, kind, key, readers)``; ``readers``, for an input or a tensor parameter, are the
    inputs whose derivative reads it (it is saved only if one of them needs a gradient), ``None`` for "always"."""
    readers = None if cls.backward is not None else tuple(i for i, names in enumerate(reads) if name in names)
    if readers is not None and len(readers) == len(cls._inputs):  # every input's derivative reads it: whenever the
        readers = None  # op is recorded, one of them needs a gradient
    if name in cls.outputs:
        return (name, "output", cls.outputs.index(name), None)
    if name in cls._inputs:
        return (name, "input", cls._inputs.index(name), readers)
    base, _, what = name.rpartition("_sym_")
    if what in ("sizes", "strides", "numel") and base in cls._inputs:
        return (name, what, cls._inputs.index(base), None)
    if what.startswith("argsize_minus_") and what[14:].isdigit() and base in cls._inputs:  # one size, from the end
        return (name, "argsize", (cls._inputs.index(base), -int(what[14:])), None)
    if what.startswith("argsize_") and what[8:].isdigit() and base in cls._inputs:  # one size, from the start
        return (name, "argsize", (cls._inputs.index(base), int(what[8:])), None)
    if name.endswith("_dim") and name[:-4] in cls._inputs:  # an input's number of dims
        return (name, "ndim", cls._inputs.index(name[:-4]), None)
    if name in cls.tensor_params:  # (like an input: kept only if a derivative that will run reads it)
        return (name, "tensor_param", name, readers)
    if name in keywords:
        return (name, "param", name, None)
    raise TypeError(f"{cls.__name__}.saves names '{name}', which is neither an input, an output (outputs: "
                    f"{cls.outputs}), an input's _sym_sizes/_sym_strides/_sym_numel/_sym_argsize_[minus_]<k>/_dim nor a keyword "
                    "parameter of forward")


# -- the steps of apply --------------------------------------------------------------------------
_NUMBERS = (bool, int, float)
_NUMBERS_OR_NONE = frozenset((bool, int, float, type(None)))  # taken as they are after an op's first input


def _non_tensor_input(cls, value, position: int):
    """An input that is not a tensor: a Python number (an operand of arithmetic, or any input after the first)
    or None (an optional input: a bias, a bound); anything else is PyTorch's error, naming the argument."""
    if value.__class__ in _NUMBERS and (position or cls.promotes and len(cls._inputs) > 1) or value is None and position:
        return value
    if isinstance(value, backend.np.generic) and value.dtype.kind in "biuf":  # a NumPy scalar: the number it holds
        return _non_tensor_input(cls, value.item(), position)
    name = cls._inputs[position] if position < len(cls._inputs) else cls._inputs[-1]
    raise TypeError(f"{function_name(cls)}(): argument '{'input' if name == 'self' else name}' (position {position + 1})"
                    f" must be Tensor, not {backend.type_name(value)} [autograd_lab] pass a tensor, e.g. al.tensor(...) "
                    "of your data")


def _namespace(arrays):
    """The array library of the inputs (NumPy for CPU arrays; CuPy for CUDA ones)."""
    for a in arrays:
        if a.__class__ is _ndarray:
            return backend.np
        if hasattr(a, "dtype"):
            return backend.namespace_of(a)
    return backend.np


def _param_arrays(params: dict) -> dict:
    """The keyword parameters as ``forward`` takes them: tensors (and the tensors of an index key) as arrays."""
    out = {}
    for k, v in params.items():
        if isinstance(v, Tensor):
            v = v._data
        elif v.__class__ is tuple:
            v = tuple(x._data if isinstance(x, Tensor) else x for x in v)
        out[k] = v
    return out


def _edges(inputs) -> tuple | None:
    """One edge per input, or ``None`` when no input requires grad (then nothing is recorded)."""
    edges = []
    recording = False
    for x in inputs:
        if x.__class__ is not Tensor and not isinstance(x, Tensor):  # a number, or None
            edges.append(_NO_EDGE)
        elif x._grad_fn is not None and x._base is None:  # an op's result: the edge to its node
            edges.append((x._grad_fn, x._output_nr))
            recording = True
        else:  # a leaf (its AccumulateGrad, if it requires grad), or a view
            edge = gradient_edge(x)
            # (a view taken under no_grad/inference_mode requires grad when its base does, so the result does too;
            # its gradient goes nowhere: PyTorch's rule)
            if edge[0] is not None or x._base is not None and x._base.requires_grad:
                recording = True
            edges.append(edge)
    return tuple(edges) if recording else None


def _saved_for(cls, edges, inputs, outputs, params) -> tuple:
    """What a new node keeps, in ``saves`` order: ``None`` for an input that no derivative that will run reads
    (PyTorch's undefined saved variable: ``_saved_<name>`` reads None)."""
    saved = []
    for name, kind, key, readers in cls._save_plan:
        if kind == "input":
            value = inputs[key]
            if readers is not None and not _any_edge(edges, readers):
                value = None
            elif isinstance(value, Tensor):
                value = SavedTensor(value, False, name)
        elif kind == "output":
            value = SavedTensor(outputs[key], True, name)
        elif kind == "sizes":
            value = tuple(inputs[key]._data.shape)
        elif kind == "strides":  # in elements, as PyTorch counts them; () for an input that gets no gradient
            data = inputs[key]._data
            value = tuple(step // data.itemsize for step in data.strides) if edges[key][0] is not None else ()
        elif kind == "numel":
            value = int(inputs[key]._data.size)
        elif kind == "argsize":
            value = int(inputs[key[0]]._data.shape[key[1]])
        elif kind == "ndim":
            value = inputs[key]._data.ndim
        else:  # a keyword parameter (its default if the call left it out); a tensor one as a record
            value = params[key] if key in params else cls._keyword_defaults[key]
            if kind == "tensor_param":
                value = None if readers is not None and not _any_edge(edges, readers) else _saved_param(value, name)
        saved.append(value)
    return tuple(saved)


def _any_edge(edges: tuple, positions: tuple) -> bool:
    """Whether one of the inputs at ``positions`` gets a gradient."""
    for i in positions:
        if edges[i][0] is not None:
            return True
    return False


def _saved_param(value, name: str):
    if isinstance(value, Tensor):
        return SavedTensor(value, False, name)
    if value.__class__ is tuple:  # an index key: each tensor in it
        return tuple(SavedTensor(v, False, name) if isinstance(v, Tensor) else v for v in value)
    return value


def _same_dtype(cls, values, dtype) -> bool:
    """Whether every saved input and result array has the gradient's dtype (targets' and indices' aside)."""
    for i in cls._tensor_positions:
        if getattr(values[i], "dtype", dtype) != dtype:
            return False
    return True


def _as_tensor(value):
    """A saved value unpacked as an array, as a tensor again (an index key: each array in it)."""
    if hasattr(value, "dtype") and not isinstance(value, Tensor):
        return Tensor._make(value)
    if value.__class__ is tuple:
        return tuple(_as_tensor(v) for v in value)
    return value


def _make_views(cls, src: Tensor, data, params) -> list:
    """A view op's outputs: they share ``src``'s memory and version counter, and remember how they were taken
    from the base (to replay the view on a gradient, or on the base after an in-place change)."""
    multi = data.__class__ is tuple
    if src._is_inference:  # a view of an inference tensor is an inference tensor, and no view (PyTorch: no view
        return [_inference_view(out, i) for i, out in enumerate(data if multi else (data,))]  # metadata, no _base)
    base = src._base if src._base is not None else src
    state = _gm._state
    if src._creation_meta is not None:
        meta = src._creation_meta
    elif state.inference:
        meta = "inference"
    elif not state.grad_enabled:
        meta = "no_grad"
    else:
        meta = None
    counter = src._vc
    results = []
    for i, out in enumerate(data if multi else (data,)):
        t = Tensor._make(out, output_nr=i, version_counter=counter)
        t._base = base
        t._view_chain = src._view_chain + ((cls, params, i if multi else None),)
        t._view_version = counter.value
        if state.inference:
            t._is_inference = False  # a view of a normal tensor stays normal in inference_mode
        if multi and meta is None:
            t._creation_meta = ("multi", i, cls.__name__)
        elif meta is not None:
            t._creation_meta = meta
        results.append(t)
    return results


def _inference_view(data, output_nr: int) -> Tensor:
    t = Tensor._make(data, output_nr=output_nr)
    t._is_inference = True
    return t


def _promote(cls, inputs, arrays):
    """Cast array operands to PyTorch's result dtype where NumPy's rules would differ."""
    first = arrays[0]
    if first.__class__ is _ndarray and first.dtype.kind == "f":  # the common case: floats of one dtype, numbers
        dtype = first.dtype  # (NumPy's built-in dtypes are singletons: compared by identity)
        for a in arrays:
            if a.__class__ is not float and a.__class__ is not int and getattr(a, "dtype", None) is not dtype:
                break
        else:
            return arrays
    dtypes = {a.dtype for a in arrays if hasattr(a, "dtype")}
    if len(dtypes) == 1:
        floating = next(iter(dtypes)).kind == "f"
        scalars_fit = floating or all(isinstance(a, (bool, int)) for a in arrays if not hasattr(a, "dtype"))
        if scalars_fit and (floating or cls.promotes != "float"):  # NumPy already computes in PyTorch's dtype
            return arrays if floating else _wrapped_ints(cls, arrays, next(iter(dtypes)))
    target = backend.result_type(*inputs)
    if cls.promotes == "float" and not target.is_floating_point:
        target = backend.get_default_dtype()
    np_target = target.np_dtype
    return [a.astype(np_target, copy=False) if hasattr(a, "dtype") and a.dtype != np_target else a
            for a in arrays]


def _wrapped_ints(cls, arrays, np_dtype):
    """Python ints beside an integer tensor, cast into its dtype as PyTorch casts them (``uint8 + 300`` adds 44;
    NumPy would raise): the same wrap as C's, only where a number does not fit."""
    if np_dtype.kind not in "iu":
        return arrays
    d = backend.from_np(np_dtype)
    return [backend.wrap_int(a, d, cls.__name__) if a.__class__ is int else a for a in arrays]
