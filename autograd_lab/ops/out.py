"""The ``out=`` keyword: ``al.add(a, b, out=c)`` writes the result into ``c`` and returns ``c``.

PyTorch's rules, with its messages:

* a function that is differentiable refuses ``out=`` while grad mode is on and one of its arguments (or
  ``out`` itself) requires grad: "add(): functions with out=... arguments don't support automatic
  differentiation, but one of the arguments requires grad." (Nothing could record how ``out`` was
  computed.) Under ``no_grad`` it writes;
* the result is cast to ``out``'s dtype where PyTorch casts (a float result never into an integer or
  bool ``out``: "result type Float can't be cast to the desired output type Long"); matrix products want
  ``out`` of the result's dtype exactly;
* an ``out`` of another shape is resized (it gets new memory of the right shape), with PyTorch's
  deprecation warning when it had elements; factories (``zeros``, ``ones``, ``arange``) take ``out``'s
  dtype when none is given;
* ``out`` sharing memory with an input is refused with PyTorch's overlap error ("unsupported operation: some
  elements of the input tensor and the written-to tensor refer to a single memory location..."), where PyTorch
  checks it (``_check_overlap``): the elementwise ops refuse a partial overlap (``out`` the input itself, or the
  same elements laid out alike, is fine), ``cat``/``stack`` any overlap; the reductions and matrix products do
  not check (PyTorch then gives whatever its kernel writes; ours compute out of place, as if the input were
  cloned). Layouts PyTorch does not check (not dense: strided slices, broadcasts) are allowed, as there.

Writing into ``out`` is an in-place write: it bumps ``out``'s version, as PyTorch's does, and obeys the
in-place rules (no writes into inference tensors outside inference mode, nor into expanded memory).
"""

from __future__ import annotations

import warnings

from .. import backend
from ..autograd import grad_mode as _gm
from ..tensor import Tensor

__all__ = ["write_out", "factory_out"]

_C_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _requires_grad(args) -> bool:
    for arg in args:
        if isinstance(arg, Tensor) and arg.requires_grad:
            return True
        if isinstance(arg, (list, tuple)) and _requires_grad(arg):
            return True
    return False


def _grad_error(name: str) -> RuntimeError:
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, but one "
                        "of the arguments requires grad. [autograd_lab] drop out= (and use the result), or compute "
                        "under `with al.no_grad():` where no gradient is wanted")


def write_out(name: str, fn, out, *args, exact_dtype: bool = False, **kwargs) -> Tensor:
    """``fn(*args, **kwargs)`` written into ``out``, as the function ``name`` does with ``out=``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _gm._state.grad_enabled and (out.requires_grad or _requires_grad(args) or _requires_grad(kwargs.values())):
        raise _grad_error(name)
    _check_overlap(name, out, args, kwargs)  # (before out is resized or the result cast)
    with _gm.no_grad():
        result = fn(*args, **kwargs)
    if exact_dtype and result.dtype is not out.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_C_NAMES[result.dtype.name]}, but got "
                           f"{_C_NAMES[out.dtype.name]} instead")
    if result.dtype._category > out.dtype._category:  # float into int or bool, int into bool
        error = TypeError if name == "cat" else RuntimeError  # (PyTorch's types)
        prefix = "torch.cat(): input types" if name == "cat" else f"result type {_short(result.dtype)}"
        raise error(f"{prefix} can't be cast to the desired output type {_short(out.dtype)} [autograd_lab] "
                    f"{name}(out=...) computes {result.dtype!r} values, which an out of {out.dtype!r} cannot hold: "
                    f"give an out of {result.dtype!r}")
    return _write(out, result, name, warn=True)


_UNCHECKED = frozenset({"sum", "mean", "mm", "bmm", "matmul"})  # (PyTorch's kernels do not check)
_ANY_OVERLAP = frozenset({"cat", "stack"})  # (``assert_no_overlap``: even out being the input is refused)


def _check_overlap(name: str, out: Tensor, args, kwargs) -> None:
    """PyTorch's overlap error where an input of ``name(..., out=out)`` shares memory with ``out`` as PyTorch
    refuses: partial overlap (``assert_no_partial_overlap``), or any for ``cat``/``stack``."""
    if name in _UNCHECKED:
        return
    from .inplace import INPUT_OVERLAP_MESSAGE, overlap_status, tensors_in  # (inplace imports the op families)
    for arg in (*args, *kwargs.values()):
        for source in tensors_in(arg):
            status = overlap_status(out, source)
            if status == "partial" or (status == "full" and name in _ANY_OVERLAP):
                raise RuntimeError(INPUT_OVERLAP_MESSAGE + _overlap_hint(name, out, source, status))


def _overlap_hint(name: str, out: Tensor, source: Tensor, status: str) -> str:
    if status == "full":
        what = (f"{name}(out=...) was given an input of shape {tuple(source.shape)} that is out itself, or a view "
                f"of the same elements; {name} refuses any overlap between out and its inputs")
    else:
        what = (f"{name}(out=...) would write into out of shape {tuple(out.shape)} while reading an input of shape "
                f"{tuple(source.shape)} that shares part of its memory (views of one base that overlap), so "
                "PyTorch's result would depend on the order it writes in")
    return (f" [autograd_lab] {what}. Pass that input as .clone(), or give an out that shares no memory with the "
            "inputs.")


def factory_out(name: str, out, make, dtype, device, requires_grad: bool) -> Tensor:
    """A factory's result (``make(dtype=..., device=...)``) written into ``out``, as ``al.zeros(..., out=out)``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _gm._state.grad_enabled and (out.requires_grad or requires_grad):
        raise _grad_error(f"aten::{name}")
    if dtype is not None and backend.to_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {_short(backend.to_dtype(dtype))} does not match dtype of out parameter "
                           f"({_short(out.dtype)})")
    result = make(dtype=out.dtype, device=device if device is not None else out.device)
    if name == "arange" and out.numel() and out.numel() != result.numel():
        warnings.warn(f"The number of elements in the out tensor of shape {list(out.shape)} is {out.numel()} which "
                      f"does not match the computed number of elements {result.numel()}. Note that this may occur "
                      "as a result of rounding error. The out tensor will be resized to a tensor of shape "
                      f"{tuple(result.shape)}.", UserWarning, stacklevel=3)
    return _write(out, result, name, warn=False)


def _short(dtype) -> str:
    return dtype._legacy_name[: -len("Tensor")]


def _write(out: Tensor, result: Tensor, name: str, warn: bool) -> Tensor:
    """Copy ``result`` into ``out`` (cast to its dtype), resizing ``out`` first where the shapes differ."""
    if result.device != out.device:
        raise RuntimeError(f"Expected out tensor to be on {result.device} like the result, but it is on {out.device} "
                           f"[autograd_lab] {name}(out=...): make out on the inputs' device")
    from .inplace import writable_array  # (inplace imports the op families, which import this module)
    with _gm.no_grad():
        data = writable_array(out, name)
        if data.shape != result._data.shape:
            if warn and data.size:
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape {list(data.shape)}, which "
                    f"does not match the required output shape {list(result.shape)}. This behavior is deprecated, "
                    "and in a future PyTorch release outputs will not be resized unless they have zero elements. You "
                    "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                    "t.resize_(0).", UserWarning, stacklevel=4)  # (the caller of add(..., out=))
            if out._base is not None:
                raise RuntimeError(f"{name}(): cannot resize out, a view of another tensor, from shape "
                                   f"{list(data.shape)} to {list(result.shape)} [autograd_lab] give an out of the "
                                   "result's shape, or a tensor of its own")
            data = out._data = backend.namespace_of(data).empty(result._data.shape, dtype=data.dtype)
        backend.namespace_of(data).copyto(data, result._data, casting="unsafe")
    out._vc.bump(name)
    return out
