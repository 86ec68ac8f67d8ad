"""RMSprop: divide each step by a running root mean square of recent gradients (Hinton's lecture 6e)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _params_with_grad

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``v = alpha*v + (1-alpha)*g^2``, ``p -= lr * g / (sqrt(v) + eps)``.

    ``centered`` subtracts the squared running mean of ``g`` from ``v`` (an estimate of the variance);
    ``momentum`` accumulates the scaled steps in a buffer.
    """

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, *, maximize: bool = False) -> None:
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def _update_group(self, group: dict) -> None:
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        with no_grad():
            for param in _params_with_grad(group):
                grad = -param.grad if group["maximize"] else param.grad
                state = self.state[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=backend.float32)
                    state["square_avg"] = creation.zeros_like(param)
                    if momentum > 0:
                        state["momentum_buffer"] = creation.zeros_like(param)
                    if group["centered"]:
                        state["grad_avg"] = creation.zeros_like(param)
                state["step"].add_(1)
                if group["weight_decay"] != 0:
                    grad = grad.add(param, alpha=group["weight_decay"])
                square_avg = state["square_avg"]
                square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.add_(grad - grad_avg, alpha=1 - alpha)
                    avg = (square_avg - grad_avg * grad_avg).sqrt()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).add_(grad / avg)
                    param.add_(buf, alpha=-lr)
                else:
                    param.add_(grad / avg, alpha=-lr)
