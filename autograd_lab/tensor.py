"""``Tensor``: an array, its autograd state, and the public attributes learners inspect.

A tensor holds its data (a NumPy or CuPy array), ``requires_grad`` (leaves), ``grad_fn`` (results of
recorded ops), ``.grad``, a version counter shared with its views, and ``_base`` for views.
Differentiable operations are defined in :mod:`autograd_lab.ops` and bound to the class there; this
module holds what belongs to the tensor itself.
"""

from __future__ import annotations

import copy
import warnings
import weakref

from numpy import asarray as _np_asarray
from numpy import generic as _np_generic
from numpy import ndarray as _np_ndarray

from . import autograd as _autograd  # (the package: its backward() is looked up when called)
from . import backend, overrides
from .autograd import engine as _engine
from .autograd import grad_mode as _gm
from .autograd import saved as _saved
from .autograd.graph import _add_hook
from .autograd.saved import VersionCounter
from .warn_once import SCALAR_CONVERSION

__all__ = ["Tensor", "Size"]

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead."
)


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``al.Size([3, 4])``, where PyTorch prints ``torch.Size([3, 4])``
    (the module's name changes, as in ``al.float32``; messages that quote a shape quote it so too). A slice of
    it, or it joined with a tuple or repeated, is a Size again, as in PyTorch."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"al.Size({list(self)})"

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    """A multi-dimensional array that can record the operations applied to it.

    Create tensors with :func:`autograd_lab.tensor`, :func:`autograd_lab.zeros`... The constructor
    ``Tensor(data)`` / ``Tensor(*sizes)`` is PyTorch's legacy one (default dtype, no grad).
    """

    __slots__ = ("_data", "_grad_fn", "_requires_grad", "_version_counter", "_output_nr", "_grad", "__dict__", "__weakref__")

    # Rarely set state lives in the instance __dict__, with these class-level defaults.
    _base = None  # the tensor this one is a view of
    _retains_grad = False
    _post_acc_hooks = None  # {id: fn(tensor)}, leaves only
    _backward_hooks = None  # {id: fn(grad)}, leaves only (non-leaf hooks live on grad_fn)
    _accumulator = None  # weakref to the leaf's AccumulateGrad node
    _is_inference = False
    _grad_owned = False  # True once .grad holds a buffer that backward may update in place
    # Views only: how to take this view of its base again, the version its grad_fn was made at, and
    # how the view was created when that restricts in-place use ("no_grad", "inference", ("multi", ...)).
    _view_chain = ()
    _view_version = 0
    _creation_meta = None
    _fw_grad = None  # forward-mode AD: the tangent, while a dual level is open (autograd/forward_ad.py)

    __array_ufunc__ = None  # make NumPy defer to our reflected operators (ndarray * tensor)
    __array_priority__ = 1000

    def __init__(self, *args, dtype=None, device=None):
        from .creation import _legacy_constructor
        _legacy_constructor(self, args, dtype, device)

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, output_nr=0, version_counter=None):
        """Wrap an array without copying it (the fast internal constructor)."""
        if data.__class__ is not _np_ndarray and isinstance(data, _np_generic):  # NumPy's scalars for 0-d results
            data = _np_asarray(data)
        t = object.__new__(cls)
        t._data = data
        t._grad_fn = grad_fn
        t._requires_grad = requires_grad
        t._version_counter = version_counter  # None: made on first use (``_vc``)
        t._output_nr = output_nr
        t._grad = None
        if _gm._state.inference:
            t._is_inference = True
        return t

    @property
    def _vc(self) -> VersionCounter:
        """The version counter, shared with views. It is created on first use: a tensor that is never
        saved for backward, viewed or modified in place never needs one, and most results of a forward
        pass are such tensors. (Hot paths read the ``_version_counter`` slot and make it themselves.)"""
        counter = self._version_counter
        if counter is None:
            counter = self._version_counter = VersionCounter()
        return counter

    @_vc.setter
    def _vc(self, counter: VersionCounter) -> None:
        self._version_counter = counter

    # -- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape, or its length along ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> backend.dtype:
        return backend.from_np(self._data.dtype)

    @property
    def device(self) -> backend.device:
        return backend.device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    def get_device(self) -> int:
        """The index of the GPU holding this tensor; -1 for a tensor in main memory, as PyTorch."""
        return -1 if self.device.type == "cpu" else self.device.index

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    def stride(self, dim: int | None = None):
        """Strides in elements (not bytes), as PyTorch reports them."""
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim, "stride")]

    def is_contiguous(self) -> bool:
        return bool(self._data.flags["C_CONTIGUOUS"])

    def data_ptr(self) -> int:
        """Address of the first element: equal for a view and its base when they start together."""
        return int(self._data.__array_interface__["data"][0]) if self._data.__class__.__module__ == "numpy" \
            else int(self._data.data.ptr)

    def is_inference(self) -> bool:
        """True for tensors created under ``inference_mode()``."""
        return self._is_inference

    def _is_view(self) -> bool:
        return self._base is not None

    # -- autograd state -----------------------------------------------------------------------
    @property
    def grad_fn(self):
        """The node that created this tensor (``None`` for leaves).

        A view whose base was modified in place since its ``grad_fn`` was made gets a fresh one
        (``AsStridedBackward0`` of the base's current history), as in PyTorch.
        """
        if self._base is not None and self._view_version != self._vc.value:
            _refresh_view(self)
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is (0 for leaves and tensors no graph recorded): the
        ``nr`` of the edge ``(grad_fn, nr)`` that a later op records to reach it."""
        return self._output_nr if self.grad_fn is not None else 0

    @property
    def is_leaf(self) -> bool:
        """True for tensors not created by a recorded operation (they get ``.grad`` filled)."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        """True for a leaf marked with ``requires_grad_()``, a result of a recorded op, or a view of a tensor
        that requires grad: PyTorch's rule for views, which holds even for a view taken under ``no_grad`` or
        ``inference_mode`` (that one has no ``grad_fn``, and the gradient of what is computed from it stops there)."""
        base = self._base
        if base is not None and self._view_version != self._vc.value:
            return self._requires_grad or base.requires_grad  # (its history is rebuilt from the base's on first use)
        return self._grad_fn is not None or self._requires_grad or (base is not None and base.requires_grad)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only) and return ``self``."""
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients "
                f"[autograd_lab] this tensor is {self.dtype!r}; convert it first, e.g. t.float()"
            )
        if requires_grad and self._is_inference and not _gm._state.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
            )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        """Gradients accumulated by backward (leaves, or tensors that called ``retain_grad()``)."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype {value.dtype!r} to a tensor with dtype "
                    f"{self.dtype!r}. The gradient must match the tensor's dtype (convert it with .to())"
                )
        self._grad = value
        self._grad_owned = False

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def _version(self) -> int:
        """How many times this tensor's storage was modified in place (shared with its views)."""
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.value

    @property
    def data(self) -> Tensor:
        """The same storage without history, and with its own version counter (unlike ``detach()``):
        changes made through ``.data`` are invisible to autograd's in-place checks."""
        t = Tensor._make(self._data)
        t._is_inference = self._is_inference  # (as a view: an inference tensor's is one, a normal tensor's is not)
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data

    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter with this one, cut from the graph."""
        t = Tensor._make(self._data, version_counter=self._vc)
        t._is_inference = self._is_inference  # (as a view: an inference tensor's is one, a normal tensor's is not)
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place (it becomes a leaf that does not require grad)."""
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution. [autograd_lab] this "
                "tensor is a view of a tensor that requires grad"
            )
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor that called ``retain_grad()``."""
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (no-op for leaves)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:  # a leaf as PyTorch reads it here, without rebuilding a view's
            return  # history: a view that has none yet (its base came to require grad after an in-place change) too
        grad_fn = self.grad_fn  # (a view whose base was modified in place since: its rebuilt history)
        self_ref = weakref.ref(self)  # the node must not keep the tensor alive (no cycle)

        def retain_grad_hook(grad):
            tensor = self_ref()
            if tensor is None or grad is None:
                return None
            if tensor._grad is None:
                tensor._grad = grad.detach().clone() if not grad.requires_grad else grad.clone()
            else:
                tensor._grad = tensor._grad + grad
            return None

        grad_fn._get_extras().retain_grad_hooks[self._output_nr] = retain_grad_hook
        self._retains_grad = True

    def register_hook(self, hook):
        """Call ``hook(grad)`` every time the gradient for this tensor is computed.

        The hook may return a tensor to use instead of ``grad``. Returns a handle with ``remove()``.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        grad_fn = self.grad_fn  # (a view whose base was modified in place: its rebuilt history, as PyTorch's)
        if grad_fn is not None:
            return grad_fn._register_tensor_prehook(self._output_nr, hook)
        if self._backward_hooks is None:
            self._backward_hooks = {}
        return _add_hook(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after backward has accumulated into this leaf's ``.grad``."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        return _add_hook(self._post_acc_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Compute the gradient of this tensor with respect to graph leaves (see ``autograd.backward``)."""
        _autograd.backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    # -- conversion ---------------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return backend.to_host(self._data).tolist()

    def numpy(self, *, force: bool = False):
        """The data as a NumPy array sharing memory (in grad mode, tensors requiring grad must be detached first).

        A tensor on a device must be copied to the host first (``.cpu()``); ``force=True`` copies it.
        """
        if force:
            return backend.to_host(self._data)
        if type(self._data) is not _np_ndarray:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                "to host memory first."
            )
        if self.requires_grad and _gm._state.grad_enabled:  # (PyTorch checks it in grad mode only)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous (shape {tuple(self.shape)})")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        """``float(t)`` (also ``complex(t)``, ``math.exp(t)``): warns once per process, as PyTorch does, when ``t``
        requires grad in grad mode, since the number leaves the graph; ``t.item()`` is the quiet way."""
        if self.requires_grad and _gm._state.grad_enabled:
            SCALAR_CONVERSION.warn(stacklevel=2)
        return float(self._python_scalar())

    def __int__(self) -> int:
        return int(self._python_scalar())

    def _python_scalar(self):
        """The one element, for ``float()`` and ``int()`` (whose error is not ``item()``'s, as in PyTorch)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        """What pickling (every protocol: DataLoader workers' batches, multiprocessing queues) and ``copy.copy``
        keep, as PyTorch does: the values, ``requires_grad`` and the attributes set on the tensor. Not the history
        (a non-leaf comes back as a leaf), ``.grad`` nor being a view; ``copy.copy`` shares the values' memory."""
        attributes = {k: v for k, v in self.__dict__.items() if not hasattr(Tensor, k)}  # (internal state has defaults)
        return (_rebuild_tensor, (type(self), self._data, self.requires_grad, attributes))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
                "moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils."
                "weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        new = type(self)._make(self._data.copy(), requires_grad=self._requires_grad)
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        for name, value in self.__dict__.items():
            if not hasattr(Tensor, name):  # attributes set on the tensor (internal state has class defaults)
                setattr(new, name, copy.deepcopy(value, memo))
        return new

    def __repr__(self) -> str:
        from ._tensor_str import format_tensor
        return format_tensor(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return repr(self)

    def equal(self, other: Tensor) -> bool:
        """True when both tensors have the same shape and elements."""
        _check_other(other, "equal")
        return self.shape == other.shape and bool((self._data == other._data).all())

    def allclose(self, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
        _check_other(other, "allclose")
        from .ops.predicates import isclose
        return bool(isclose(self, other, rtol, atol, equal_nan)._data.all())  # (isclose at every element, as PyTorch)


def _rebuild_tensor(cls, data, requires_grad: bool, attributes: dict) -> Tensor:
    """A tensor from what ``Tensor.__reduce_ex__`` kept (unpickling, ``copy.copy``)."""
    t = cls._make(data, requires_grad=requires_grad)
    t.__dict__.update(attributes)
    return t


def _check_other(other, op: str) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'other' (position 1) must be Tensor, not {backend.type_name(other)}")


def _wrap_dim(dim: int, ndim: int, op: str) -> int:
    """A possibly negative dimension index, checked against ``ndim``."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _refresh_view(view: Tensor) -> None:
    """Bring a view's ``grad_fn`` up to date with its base (set by :mod:`autograd_lab.ops.inplace`)."""
    from .ops.view_history import refresh_view
    refresh_view(view)


overrides.PLAIN_TYPES.add(Tensor)  # a plain Tensor takes no op over (subclasses may: autograd_lab.overrides)
_saved._Tensor = Tensor  # saved records rebuild output tensors with this class
_engine._Tensor = Tensor  # the engine wraps gradient arrays where hooks and leaves need tensors
