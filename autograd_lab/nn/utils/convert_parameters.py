"""A model's parameters as one flat vector and back, as ``torch.nn.utils.convert_parameters`` (used by
second-order methods and by code that treats a model as a point in one space)."""

from __future__ import annotations

from ...ops.join import cat
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _same_device(param: Tensor, device):
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and joined, in order, into one vector (differentiable: ``CatBackward0``)."""
    device, flat = None, []
    for param in parameters:
        device = _same_device(param, device)
        flat.append(param.view(-1))
    return cat(flat)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Give each parameter, in order, the next ``numel()`` values of ``vec`` (its ``.data`` becomes that slice of
    ``vec``, shared, as in PyTorch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected al.Tensor, but got: {type(vec).__name__}")
    device, start = None, 0
    for param in parameters:
        device = _same_device(param, device)
        count = param.numel()
        param.data = vec[start:start + count].view_as(param).data
        start += count
