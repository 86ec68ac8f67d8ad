"""Ops whose inputs live on different devices: PyTorch's error, and PyTorch's one exception.

Nothing here runs while an op succeeds. When an op's forward raises (CuPy raises ``TypeError`` when
handed a NumPy array), :func:`on_one_device` looks at the devices of the inputs: 0-dim CPU tensors
(which PyTorch lets join an op on another device, as it does Python numbers) are copied to that
device and the op runs again; any other mix is PyTorch's "Expected all tensors to be on the same
device" error, with the op named and what to do.
"""

from __future__ import annotations

from ..tensor import Tensor


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


def on_one_device(cls, inputs, params, exc):
    """Run ``cls`` again with 0-dim CPU tensors copied to the other inputs' device, or raise its error."""
    from ._op import _inplace_target
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    main = next((x.device for x in tensors if x.device.type != "cpu"), None)
    if main is not None:
        strays = [x for x in tensors if x.device != main]
        if strays and all(x.device.type == "cpu" and x._data.ndim == 0 and x is not _inplace_target.tensor
                          for x in strays):
            moved = tuple(x.to(main) if isinstance(x, Tensor) and x.device != main else x for x in inputs)
            return cls.apply(*moved, **params)
    if isinstance(exc, TypeError) and mixed_devices_message("", inputs) is None:
        raise exc  # not a device mix: the op's own TypeError, unchanged
    raise cls._error(inputs, params, exc) from exc
