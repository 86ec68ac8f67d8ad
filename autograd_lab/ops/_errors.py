"""What an op says when its forward fails: PyTorch's words first, then the op, the shapes and what to do.

Nothing here runs while an op succeeds. ``Op.apply`` hands a failed forward to :func:`op_failed`, which
also settles the one mix of devices PyTorch allows: 0-dim CPU tensors join an op on another device (as
Python numbers do); they are copied there and the op runs again. Any other mix is PyTorch's "Expected all
tensors to be on the same device" error.
"""

from __future__ import annotations

import re

from .. import backend
from ..tensor import Tensor

__all__ = ["OpError", "broadcast_message", "check_norm_dtypes", "function_name", "mixed_devices_message", "no_kernel",
           "op_failed"]


class OpError(RuntimeError):
    """An op was given inputs it cannot work with; the message names the op, shapes and dtypes."""


def function_name(cls) -> str:
    """The function an op class records, as PyTorch names it: ``MseLossBackward0`` -> ``mse_loss``,
    ``MaxPool2DWithIndicesBackward0`` -> ``max_pool2d_with_indices``, ``PowBackward1`` -> ``pow``."""
    name = re.sub(r"Backward\d*$", "", cls.__name__).lstrip("_")
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()



def no_kernel(kernel: str, dtype, advice: str) -> NotImplementedError:
    """PyTorch's error for a dtype an op has no kernel for (``"frac_cpu" not implemented for 'Long'``), then what to
    do; ``dtype`` an ``al.dtype`` or a NumPy one."""
    name = backend.kernel_type_name(dtype if isinstance(dtype, backend.dtype) else backend.from_np(dtype))
    return NotImplementedError(f'"{kernel}" not implemented for \'{name}\' [autograd_lab] {advice}')

def check_norm_dtypes(input: Tensor, parameters) -> None:
    """PyTorch's CPU rule for a normalisation's tensors (weight, bias, running statistics; None ones skipped): all
    of the input's dtype, or all float32 with a float16 input (whose dtype the output then keeps). Its message
    depends on the first of them: of the input's dtype, the first other one is "found"; else a "mixed dtype"."""
    dtypes = [p.dtype for p in parameters if p is not None]
    if all(d is input.dtype for d in dtypes):
        return
    if dtypes[0] is input.dtype:
        other = next(d for d in dtypes if d is not input.dtype)
        problem = (f"expected scalar type {backend.kernel_type_name(input.dtype)} but found "
                   f"{backend.kernel_type_name(other)}")
    elif any(d is not backend.float32 for d in dtypes):
        problem = "mixed dtype (CPU): expect parameter to have scalar type of Float"
    elif input.dtype is not backend.float16:
        problem = "mixed dtype (CPU): all inputs must share same datatype."
    else:
        return
    raise RuntimeError(f"{problem} [autograd_lab] the input is {input.dtype!r}, the weights and statistics "
                       f"{', '.join(sorted({repr(d) for d in dtypes}))}: convert one side, e.g. model.double() or "
                       "x.float()")


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"Tensor(shape={tuple(value._data.shape)}, dtype={value.dtype!r})"
    return f"{type(value).__name__} {value!r}"


def broadcast_message(op: str, shapes: list[tuple]) -> str:
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


def mixed_devices_message(op: str, inputs) -> str | None:
    """PyTorch's error for tensors of one op on two devices (``None`` when they share one)."""
    devices = []
    for x in inputs:
        if isinstance(x, Tensor):
            dev = x.device
            if dev not in devices:
                devices.append(dev)
    if len(devices) < 2:
        return None
    devices.sort(key=lambda d: d.type == "cpu")  # the accelerator first, as PyTorch names them
    a, b = devices[0], devices[1]
    return (f"Expected all tensors to be on the same device, but found at least two devices, {a} and {b}! "
            f"[autograd_lab] {op} got tensors on {a} and {b}: move them to one device first, e.g. "
            f"tensor.to('{a}') (or .cpu() for all of them)")


def op_failed(cls, inputs, params, exc):
    """After ``cls.forward`` raised ``exc``: run the op again with 0-dim CPU tensors moved to the other inputs'
    device, or raise an error that says what went wrong."""
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    main = next((x.device for x in tensors if x.device.type != "cpu"), None)
    if main is not None:
        strays = [x for x in tensors if x.device != main]
        if strays and all(x.device.type == "cpu" and x._data.ndim == 0 for x in strays):
            moved = tuple(x.to(main) if isinstance(x, Tensor) and x.device != main else x for x in inputs)
            return cls.apply(*moved, **params)
    if isinstance(exc, TypeError) and mixed_devices_message("", inputs) is None:
        raise exc  # not a device mix: the op's own TypeError, unchanged
    raise _explained(cls, inputs, params, exc) from exc


def _explained(cls, inputs, params, exc) -> Exception:
    op = function_name(cls)
    mixed = mixed_devices_message(op, inputs)  # tensors on two devices: that is the error, whatever was raised
    if mixed is not None:
        return RuntimeError(mixed)
    shapes = [tuple(x._data.shape) for x in inputs if isinstance(x, Tensor)]
    if "broadcast" in str(exc) and len(shapes) >= 2:
        return OpError(broadcast_message(op, shapes))
    described = ", ".join(_describe(x) for x in inputs)
    extra = f" with {params}" if params else ""
    text = str(exc)
    if isinstance(exc, IndexError) and text.startswith("index ") and " for axis " in text:
        # PyTorch's phrase first ("dimension", not NumPy's "axis"), then what was involved
        return IndexError(f"{text.replace(' for axis ', ' for dimension ')} [autograd_lab] {op} "
                          f"(inputs: {described}{extra})")
    return type(exc)(f"{op}: {text} (inputs: {described}{extra})")
