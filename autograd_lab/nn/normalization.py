"""Normalisation layers: ``BatchNorm1d`` / ``2d`` / ``3d`` (each channel by the batch's statistics while
training, by running statistics in evaluation), ``InstanceNorm1d/2d/3d`` (each channel of each sample by
its own statistics), ``LayerNorm`` (each sample over its last dims), ``GroupNorm`` (each group of channels of
each sample) and ``RMSNorm`` (each sample divided by its root mean square over its last dims)."""

from __future__ import annotations

import warnings

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm",
           "GroupNorm", "RMSNorm"]


class _BatchNorm(Module):
    _input_dims: tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self._has_bias = bias
        if affine:
            self.weight = Parameter(creation.empty(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(creation.empty(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=backend.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Running statistics to (0, 1); weight to ones and bias to zeros (the identity transform)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._input_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._input_dims)} input "
                             f"(got {input.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        tracked = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if tracked else None, self.running_var if tracked else None,
                            self.weight, self.bias, use_batch_stats, momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs, per channel C."""
    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) images, per channel C."""
    _input_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) volumes, per channel C."""
    _input_dims = (5,)


class _InstanceNorm(_BatchNorm):
    """Each channel of each sample normalised by its own mean and variance; ``track_running_stats`` keeps
    running statistics too (their mean over the batch), which evaluation then uses."""
    _spatial = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        dims = (self._spatial + 1, self._spatial + 2)
        if input.ndim not in dims:
            raise ValueError(f"expected {dims[0]}D or {dims[1]}D input (got {input.ndim}D input)")
        channel_dim = input.ndim - self._spatial - 1
        if input.shape[channel_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={channel_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[channel_dim]}.")
            warnings.warn(f"input's size at dim={channel_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=2)
        unbatched = input.ndim == dims[0]
        out = F.instance_norm(input.unsqueeze(0) if unbatched else input, self.running_mean, self.running_var,
                              self.weight, self.bias, self.training or not self.track_running_stats,
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) inputs."""
    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) images."""
    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) volumes."""
    _spatial = 3


class LayerNorm(Module):
    """Normalise each sample over its last dims (``normalized_shape``), then scale and shift elementwise
    (``weight`` ones and ``bias`` zeros at first; ``elementwise_affine=False``: neither)."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        _register_scale_and_shift(self, shape, elementwise_affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_scale_and_shift(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


def _register_scale_and_shift(module: Module, shape, affine: bool, bias: bool, dtype, device) -> None:
    """A normalisation's ``weight`` and ``bias`` parameters of ``shape`` (None where ``affine`` or ``bias`` is off)."""
    for name, wanted in (("weight", affine), ("bias", affine and bias)):
        module.register_parameter(name, Parameter(creation.empty(shape, dtype=dtype, device=device)) if wanted else None)


def _reset_scale_and_shift(module: Module) -> None:
    """The identity transform: weight ones, bias zeros."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class GroupNorm(Module):
    """Normalise each of ``num_groups`` groups of channels of each (N, C, ...) sample over its values, then scale and
    shift each channel (``weight`` ones and ``bias`` zeros at first; ``affine=False``: neither)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _register_scale_and_shift(self, num_channels, affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_scale_and_shift(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Divide each sample by its root mean square over its last dims (``normalized_shape``; ``eps``, the dtype's
    machine epsilon when None, added under the root), then scale elementwise (``weight`` ones at first;
    ``elementwise_affine=False``: no weight)."""

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.empty(shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
