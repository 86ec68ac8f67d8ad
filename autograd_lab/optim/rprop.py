"""Rprop: each coordinate has its own step size, grown while its gradient keeps its sign and shrunk when the
sign flips; only the gradient's sign is used (Riedmiller & Braun, 1993). Meant for full-batch training."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _bump_step
from .optimizer import Optimizer, _check_lr, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Where ``g * prev > 0`` the step size is multiplied by ``etas[1]``, where it is ``< 0`` by ``etas[0]``
    (and that coordinate's gradient counts as 0 this step), then kept within ``step_sizes``;
    ``p -= sign(g) * step_size`` and ``prev = g``. The step sizes start at ``lr``."""

    def __init__(self, params, lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        options = _implementation_options(foreach=foreach, maximize=maximize, differentiable=differentiable,
                                          capturable=capturable)
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), **options))

    def _update_group(self, group: dict) -> None:
        """On the raw arrays, in place, as PyTorch's single-tensor Rprop: ``step_size.mul_().clamp_()``,
        ``param.addcmul_``, ``prev.copy_``."""
        (shrink, grow), (smallest, largest) = group["etas"], group["step_sizes"]
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "addcmul_")
                xp = backend.namespace_of(data)
                state = self.state[param]
                if not state:
                    state["step"] = creation.zeros((), dtype=_step_dtype())
                    state["prev"] = creation.zeros_like(param)
                    state["step_size"] = creation.full_like(param.grad, _hyperparameter(group["lr"]))
                _bump_step(state["step"])
                grad = -param.grad._data if group["maximize"] else param.grad._data
                agreement = xp.sign(grad * state["prev"]._data)
                factor = xp.where(agreement > 0, grow, xp.where(agreement < 0, shrink, 1.0)).astype(data.dtype)
                sizes = writable_array(state["step_size"], "mul_")
                sizes *= factor
                state["step_size"]._vc.bump("mul_")
                xp.clip(sizes, smallest, largest, out=sizes)
                state["step_size"]._vc.bump("clamp_")
                grad = xp.where(factor == shrink, 0, grad).astype(grad.dtype, copy=False)  # a sign flip: no move
                data -= xp.sign(grad) * sizes
                param._vc.bump("addcmul_")
                writable_array(state["prev"], "copy_")[...] = grad
                state["prev"]._vc.bump("copy_")
