"""Stochastic gradient descent, with momentum (heavy ball or Nesterov), dampening and weight decay."""

from __future__ import annotations

from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _hyperparameter, _implementation_options, _params_with_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * g``; with momentum ``buf = momentum * buf + (1 - dampening) * g`` and ``p -= lr * buf``.

    ``g`` is the gradient plus ``weight_decay * p``; ``nesterov`` steps along ``g + momentum * buf`` instead;
    ``maximize`` climbs instead of descending.
    """

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        options = _implementation_options(maximize=maximize, foreach=foreach, differentiable=differentiable,
                                          fused=fused)
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, **options))

    def _update_group(self, group: dict) -> None:
        """The update on the raw arrays, in place (one temporary, ``lr * buf``, as hand-written NumPy has);
        version counters are bumped as ``buf.mul_(momentum).add_(g)`` and ``param.add_(buf, alpha=-lr)`` would."""
        lr, momentum, dampening, decay = (group[k] for k in ("lr", "momentum", "dampening", "weight_decay"))
        lr, decay, maximize, nesterov = _hyperparameter(lr), _hyperparameter(decay), group["maximize"], group["nesterov"]
        state = self.state
        params = list(_params_with_grad(group))
        # the buffers are looked up before any update, as PyTorch does (a parameter listed twice gets two at first)
        buffers = [state[param].get("momentum_buffer") for param in params] if momentum != 0 else [None] * len(params)
        with no_grad():
            for param, buf in zip(params, buffers):
                data = writable_array(param, "add_")
                grad = -param.grad._data if maximize else param.grad._data
                if decay != 0:
                    grad = grad + decay * data
                if momentum != 0:
                    if buf is None:
                        buf = state[param]["momentum_buffer"] = Tensor._make(grad.copy())
                    else:
                        buf_data = writable_array(buf, "mul_")
                        buf_data *= momentum
                        counter = buf._vc
                        counter.bump("mul_")
                        if dampening == 0:
                            buf_data += grad
                        else:
                            buf_data += (1 - dampening) * grad
                        counter.bump("add_")
                    grad = grad + momentum * buf._data if nesterov else buf._data
                data += -lr * grad
                param._vc.bump("add_")
