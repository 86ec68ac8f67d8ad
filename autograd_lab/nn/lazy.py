"""Lazy modules: layers that learn their input size from the first batch they see, as PyTorch's do:
``LazyLinear`` (``in_features``), ``LazyConv1d/2d/3d`` and ``LazyConvTranspose1d/2d/3d`` (``in_channels``),
``LazyBatchNorm1d/2d/3d`` and ``LazyInstanceNorm1d/2d/3d`` (``num_features``, with ``UninitializedBuffer`` running
statistics).

``nn.LazyLinear(out_features)`` starts with ``UninitializedParameter`` weights (no shape yet). A forward pre-hook
runs before its first ``forward``: it reads the input's last dim, materializes the parameters with that shape,
initialises them as ``Linear`` does, removes itself, and turns the module into a plain ``Linear``
(``cls_to_become``). Loading a ``state_dict`` into a lazy module materializes its parameters with the saved shapes.
"""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .layers import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .parameter import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Put before a layer in the bases (``class LazyLinear(LazyModuleMixin, Linear)``): the layer's
    ``initialize_parameters(*args)`` runs on the first call, then the module becomes ``cls_to_become``."""

    cls_to_become = None
    learned_size = ""  # the attribute the first input sets ("in_features", "in_channels", "num_features"): 0 until then

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module (not of its children) still has no shape."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(isinstance(t, UninitializedTensorMixin) for t in tensors)

    def reset_parameters(self) -> None:
        """The layer's own initialisation, once its parameters have a shape (a no-op before the first input)."""
        if not self.has_uninitialized_params() and getattr(self, self.learned_size) != 0:
            super().reset_parameters()

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize and initialise the parameters from the first input (each lazy layer says how)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__} "
                                  "[autograd_lab] a lazy layer defines initialize_parameters(input): it materializes "
                                  "its parameters with the sizes the first input gives, then calls reset_parameters()")


def _infer_parameters(module, args, kwargs) -> None:
    """The forward pre-hook of a lazy module: initialise from this first call, then become ``cls_to_become``."""
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` layer whose ``in_features`` is the last dim of its first input."""

    cls_to_become = Linear
    learned_size = "in_features"

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)  # (no bias yet: it would be made only to be replaced)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # (parameters loaded from a state_dict: the input must fit them)
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvMixin(LazyModuleMixin):
    """A convolution whose ``in_channels`` is the channel dim of its first input."""

    learned_size = "in_channels"

    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        """After the layer was built with no channels: its weight and bias as parameters without a shape yet."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        batched = self._spatial + 2
        if input.ndim not in (batched - 1, batched):
            raise RuntimeError(f"Expected {batched - 1}D (unbatched) or {batched}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        with no_grad():
            self.in_channels = input.shape[1] if input.ndim == batched else input.shape[0]
            if self.in_channels % self.groups:
                raise ValueError("in_channels must be divisible by groups")
            channels = (self.in_channels, self.out_channels // self.groups) if self.transposed else \
                (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(channels + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class _LazyConv(_LazyConvMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` is read from its first input."""
    cls_to_become = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin):
    """A batch or instance normalisation whose ``num_features`` is dim 1 of its first input (PyTorch reads dim 1 for
    the instance norms too, so an unbatched first input is read as it reads it)."""

    learned_size = "num_features"

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=backend.int64, device=device)

    def initialize_parameters(self, input: Tensor) -> None:
        if not self.has_uninitialized_params():
            return
        with no_grad():
            self.num_features = input.shape[1]
            for tensor in (self.weight, self.bias, self.running_mean, self.running_var):
                if isinstance(tensor, UninitializedTensorMixin):
                    tensor.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A ``BatchNorm1d`` whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A ``BatchNorm2d`` whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """A ``BatchNorm3d`` whose ``num_features`` is read from its first input."""
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """An ``InstanceNorm1d`` whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """An ``InstanceNorm2d`` whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    """An ``InstanceNorm3d`` whose ``num_features`` is read from its first input."""
    cls_to_become = InstanceNorm3d
