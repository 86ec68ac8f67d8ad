"""``BatchNorm1d`` / ``BatchNorm2d``: normalise each channel by batch statistics while training, by
running statistics in evaluation."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d"]


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
                f"bias={self._has_bias}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs, per channel C."""
    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) images, per channel C."""
    _input_dims = (4,)
