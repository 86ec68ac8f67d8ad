"""RMSprop: divide each step by a running root mean square of recent gradients (Hinton's lecture 6e)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from .adam import _addcmul_into, _bump_step, _decayed_gradient, _lerp_into
from .optimizer import Optimizer, _check_lr, _hyperparameter, _implementation_options, _params_with_grad, _step_dtype

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``v = alpha*v + (1-alpha)*g^2``, ``p -= lr * g / (sqrt(v) + eps)``.

    ``centered`` subtracts the squared running mean of ``g`` from ``v`` (an estimate of the variance);
    ``momentum`` accumulates the scaled steps in a buffer.
    """

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        for name, value in (("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        options = _implementation_options(capturable=capturable, foreach=foreach, maximize=maximize,
                                          differentiable=differentiable)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, **options))

    def _update_group(self, group: dict) -> None:
        """The update on the raw arrays, in place, as PyTorch's single-tensor RMSprop computes it:
        ``square_avg.mul_().addcmul_()``, ``grad_avg.lerp_`` (centered), ``buf.mul_().addcdiv_()`` and
        ``param.add_`` (momentum) or ``param.addcdiv_``; version counters bumped as those ops bump them."""
        lr, alpha, eps, momentum = _hyperparameter(group["lr"]), group["alpha"], group["eps"], group["momentum"]
        decay, centered, maximize = _hyperparameter(group["weight_decay"]), group["centered"], group["maximize"]
        states = self.state
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "add_" if momentum > 0 else "addcdiv_")
                xp = backend.namespace_of(data)
                state = states[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=_step_dtype())
                    state["square_avg"] = creation.zeros_like(param)
                    if momentum > 0:
                        state["momentum_buffer"] = creation.zeros_like(param)
                    if centered:
                        state["grad_avg"] = creation.zeros_like(param)
                _bump_step(state["step"])
                grad, owned = _decayed_gradient(xp, param.grad._data, data, decay, maximize)
                square_avg = state["square_avg"]
                square = writable_array(square_avg, "mul_")
                square *= alpha
                square_avg._vc.bump("mul_")
                if centered:
                    grad_avg = state["grad_avg"]
                    average = writable_array(grad_avg, "lerp_")
                    scratch = _lerp_into(xp, average, grad, 1 - alpha)  # (PyTorch: after addcmul_; they touch different arrays)
                    grad_avg._vc.bump("lerp_")
                    _addcmul_into(xp, square, grad, 1 - alpha, scratch)
                    square_avg._vc.bump("addcmul_")
                    avg = xp.multiply(average, average, out=scratch)  # square_avg.addcmul(grad_avg, grad_avg, value=-1)
                    xp.subtract(square, avg, out=avg)
                    xp.sqrt(avg, out=avg)
                else:
                    _addcmul_into(xp, square, grad, 1 - alpha, None)
                    square_avg._vc.bump("addcmul_")
                    avg = xp.asarray(xp.sqrt(square))  # (an array to write into, even for a 0-d parameter)
                avg += eps
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buffer = writable_array(buf, "mul_")
                    buffer *= momentum
                    buf._vc.bump("mul_")
                    buffer += xp.divide(grad, avg, out=avg)  # addcdiv_(grad, avg)
                    buf._vc.bump("addcdiv_")
                    data += xp.multiply(buffer, -lr, out=avg)  # add_(buf, alpha=-lr)
                    param._vc.bump("add_")
                else:
                    update = xp.multiply(grad, -lr, out=grad if owned else None)  # addcdiv_: value * grad / avg
                    update /= avg
                    data += update
                    param._vc.bump("addcdiv_")
