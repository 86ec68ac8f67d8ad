"""Adam and AdamW: steps scaled by running averages of the gradient and of its square (Kingma & Ba, 2015);
AdamW decays the weights directly instead of through the gradient (Loshchilov & Hutter, 2019)."""

from __future__ import annotations

from .. import backend, creation
from ..autograd.grad_mode import no_grad
from ..ops.inplace import writable_array
from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    _check_lr,
    _hyperparameter,
    _implementation_options,
    _params_with_grad,
    _refuse_tensor_betas,
    _step_dtype,
)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """``m = b1*m + (1-b1)*g``, ``v = b2*v + (1-b2)*g^2``, ``p -= lr * m_hat / (sqrt(v_hat) + eps)``.

    ``m_hat`` and ``v_hat`` are the bias-corrected averages; ``amsgrad`` uses the largest ``v`` seen so far;
    ``decoupled_weight_decay`` shrinks the weights directly (AdamW) instead of adding ``weight_decay * p`` to ``g``.
    """

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_lr(lr)
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not all(isinstance(beta, float) for beta in betas) and not all(isinstance(beta, Tensor) for beta in betas):
            raise ValueError("betas must be either both floats or both Tensors [autograd_lab] write 0.0, not 0")
        _refuse_tensor_betas(betas)
        options = _implementation_options(foreach=foreach, maximize=maximize, capturable=capturable,
                                          differentiable=differentiable, fused=fused)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      **options, decoupled_weight_decay=decoupled_weight_decay))

    def _update_group(self, group: dict) -> None:
        """The update on the raw arrays, in place, as PyTorch's single-tensor Adam computes it: ``exp_avg.lerp_``,
        ``exp_avg_sq.mul_().addcmul_()``, ``maximum(out=)`` for amsgrad, ``param.addcdiv_``; each version counter
        bumped as those in-place ops bump it (``writable_array`` makes their checks). Intermediate results reuse
        one or two scratch arrays per parameter (each fresh large array costs its page faults)."""
        lr, decay = _hyperparameter(group["lr"]), _hyperparameter(group["weight_decay"])
        (beta1, beta2), eps = group["betas"], group["eps"]
        amsgrad, maximize, states = group["amsgrad"], group["maximize"], self.state
        decoupled = group["decoupled_weight_decay"] and decay != 0
        with no_grad():
            for param in _params_with_grad(group):
                data = writable_array(param, "mul_" if decoupled else "addcdiv_")
                xp = backend.namespace_of(data)
                state = states[param]
                if not state:
                    state["step"] = creation.tensor(0.0, dtype=_step_dtype())
                    state["exp_avg"] = creation.zeros_like(param)
                    state["exp_avg_sq"] = creation.zeros_like(param)
                    if amsgrad:
                        state["max_exp_avg_sq"] = creation.zeros_like(param)
                step = _bump_step(state["step"])
                if decoupled:
                    data *= 1 - lr * decay
                    param._vc.bump("mul_")
                grad, owned = _decayed_gradient(xp, param.grad._data, data, 0 if decoupled else decay, maximize)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                average = writable_array(exp_avg, "lerp_")
                scratch = _lerp_into(xp, average, grad, 1 - beta1)
                exp_avg._vc.bump("lerp_")
                square = writable_array(exp_avg_sq, "mul_")
                square *= beta2
                exp_avg_sq._vc.bump("mul_")
                _addcmul_into(xp, square, grad, 1 - beta2, scratch)
                exp_avg_sq._vc.bump("addcmul_")
                if amsgrad:
                    largest = state["max_exp_avg_sq"]
                    second = xp.maximum(writable_array(largest, "maximum"), square, out=largest._data)
                    largest._vc.bump("maximum")
                else:
                    second = square
                denom = xp.sqrt(second, out=scratch)
                denom /= (1 - beta2 ** step) ** 0.5
                denom += eps
                # addcdiv_: value * exp_avg / denom (into the gradient's array if this step made it: read already)
                update = xp.multiply(average, -lr / (1 - beta1 ** step), out=grad if owned else None)
                update /= denom
                data += update
                param._vc.bump("addcdiv_")


def _bump_step(step):
    """``state['step'] += 1`` on its array (a version bump, as the tensor's ``add_``); the new count."""
    counter = writable_array(step, "add_")
    counter += 1
    step._vc.bump("add_")
    return float(counter)


def _decayed_gradient(xp, grad, data, decay: float, maximize: bool):
    """The gradient the update follows, ``(-grad if maximize else grad) + decay * data``, and whether it is a
    new array (then free, once read, for the step's other intermediate results). (``xp.asarray``: NumPy gives a
    0-d array's results as scalars, which cannot be written into.)"""
    if decay == 0:
        return (xp.asarray(-grad), True) if maximize else (grad, False)
    out = xp.asarray(xp.multiply(data, decay))
    if maximize:
        out -= grad
    else:
        out += grad
    return out, True


def _lerp_into(xp, start, end, weight: float):
    """``start.lerp_(end, weight)`` on arrays: ``start + weight * (end - start)``, or for a weight of 0.5 and
    more ``end - (1 - weight) * (end - start)``, the two forms PyTorch's kernel picks between. Returns its
    scratch array (free again)."""
    diff = xp.asarray(end - start)  # (an array even for 0-d ones, whose results NumPy gives as scalars)
    if abs(weight) < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= weight - 1
        diff += end
        start[...] = diff
    return diff


def _addcmul_into(xp, target, tensor, value: float, scratch) -> None:
    """``target.addcmul_(tensor, tensor, value=value)``: ``target + value * tensor * tensor``, in that order."""
    product = xp.multiply(tensor, value, out=scratch)
    product *= tensor
    target += product


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * weight_decay`` before each Adam step (it is
    ``Adam(..., decoupled_weight_decay=True)`` with a default decay of 0.01, as in PyTorch)."""

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict: dict) -> None:
        """As Adam's; the decay stays decoupled even in param groups saved without the flag (as PyTorch)."""
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
