"""Activation layers: ``ReLU``, ``LeakyReLU``, ``RReLU``, ``Threshold``, ``Tanh``, ``Sigmoid``, ``GELU``, ``Softmax``,
``LogSoftmax``; ``Hardtanh``, ``ReLU6``, ``ELU``, ``SELU``, ``CELU``, ``SiLU``, ``Mish``, ``Softplus``, ``Softsign``,
``Tanhshrink``, ``Hardsigmoid``, ``Hardswish``, ``LogSigmoid``, ``GLU``, ``Softmin``, ``Hardshrink``, ``Softshrink``;
``PReLU`` (a learned negative slope)."""

from __future__ import annotations

from .. import creation
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["ReLU", "LeakyReLU", "RReLU", "Threshold", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax", "Hardtanh", "ReLU6",
           "ELU", "SELU", "CELU", "SiLU", "Mish", "Softplus", "Softsign", "Tanhshrink", "Hardsigmoid", "Hardswish",
           "LogSigmoid", "GLU", "Softmin", "Hardshrink", "Softshrink", "PReLU"]


class ReLU(Module):
    """max(x, 0); ``inplace=True`` overwrites the input instead of allocating the output."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` where ``x > 0``, else ``negative_slope * x``; ``inplace=True`` overwrites the input."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class RReLU(Module):
    """Randomized leaky ReLU: ``x`` where ``x > 0``, else ``a * x``; while training ``a`` is drawn from
    U(lower, upper) for each element, in eval it is ``(lower + upper) / 2``."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``; ``inplace=True`` overwrites the input."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class GELU(Module):
    """x * Phi(x) (``approximate='tanh'``: the tanh approximation)."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    """Probabilities along ``dim``: exp(x) / sum(exp(x))."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-probabilities along ``dim`` (pair it with ``NLLLoss``)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


# -- more activations (functional forms in ops/nn_activation_more.py) ------------------------------
def _inplace_repr(inplace: bool, first: bool = False) -> str:
    return ("inplace=True" if first else ", inplace=True") if inplace else ""


class Hardtanh(Module):
    """``input`` clamped to ``[min_val, max_val]``; ``inplace=True`` overwrites the input."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_repr(self.inplace)


class ReLU6(Hardtanh):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, first=True)


class _InPlaceOnly(Module):
    """An activation whose only setting is ``inplace``."""
    function = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace, first=True)


class SELU(_InPlaceOnly):
    """scale * elu(x, alpha), with the self-normalizing constants."""
    function = staticmethod(F.selu)


class SiLU(_InPlaceOnly):
    """x * sigmoid(x)."""
    function = staticmethod(F.silu)


class Mish(_InPlaceOnly):
    """x * tanh(softplus(x))."""
    function = staticmethod(F.mish)


class Hardsigmoid(_InPlaceOnly):
    """relu6(x + 3) / 6."""
    function = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""  # (PyTorch's repr shows no setting)


class Hardswish(_InPlaceOnly):
    """x * relu6(x + 3) / 6."""
    function = staticmethod(F.hardswish)

    def extra_repr(self) -> str:
        return ""  # (PyTorch's repr shows no setting)


class ELU(Module):
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + _inplace_repr(self.inplace)


class CELU(ELU):
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear where ``beta * x > threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Softsign(Module):
    """x / (1 + abs(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class GLU(Module):
    """The first half of the input along ``dim`` gated by the sigmoid of the second half."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Softmax):
    """softmax(-x) along ``dim``: the smallest entry gets the largest weight."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)


class Hardshrink(Module):
    """``x`` where ``abs(x) > lambd``, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x`` moved toward 0 by ``lambd`` (0 inside ``[-lambd, lambd]``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class PReLU(Module):
    """``x`` where positive, else ``weight * x``, with ``weight`` learned: one slope (``num_parameters=1``) or one per
    channel (dim 1 of the input), each ``init`` at first."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        self.num_parameters, self.init = num_parameters, init
        super().__init__()
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
