"""Stochastic functions of 2017 (``multinomial``, ``bernoulli``, ``normal``) and ``reinforce``.

A sample cannot be differentiated, but its probability can. ``sample.reinforce(reward)`` followed
by a backward through the sample gives REINFORCE's score-function gradient (Williams, 1992):
``-reward * d log p(sample) / d params``, so that a gradient *descent* step raises the expected
reward. Here that is done on the modern core: backward builds the surrogate
``-(reward * log p(sample)).sum()`` from the parameters with differentiable ops and runs the one
engine on it, which is also what the modern equivalent asks you to write yourself.
"""

from __future__ import annotations

import math

import numpy as np

from .. import creation
from ..autograd import grad_mode as _gm
from ..tensor import Tensor
from . import _dispatch
from ._dispatch import deprecated

__all__ = ["StochasticFunction", "multinomial", "bernoulli", "normal"]

_MESSAGE = ("stochastic functions and reinforce are deprecated: sample without a graph (under al.no_grad()) and "
            "backpropagate the score function yourself, loss = -(reward * log_prob_of_sample).sum()")


class StochasticFunction:
    """What made a sample (its ``creator``): the parameters, the sampled values, and the reward."""

    def __init__(self, name: str, params: tuple, sample: Tensor, log_prob) -> None:
        self._name = name
        self.params = params  # the tensors the distribution was given (they hold the graph to the leaves)
        self.sample = sample  # a copy: changing the returned sample in place cannot change the gradient
        self._log_prob = log_prob
        self.reward = None

    def name(self) -> str:
        return self._name

    @property
    def next_functions(self) -> tuple:
        from ..autograd.graph import gradient_edge
        from .variable import legacy_node
        edges = (gradient_edge(p) if isinstance(p, Tensor) else (None, 0) for p in self.params)
        return tuple((legacy_node(node), nr) for node, nr in edges)

    @property
    def previous_functions(self) -> tuple:
        deprecated("previous_functions is deprecated: use next_functions")
        return self.next_functions

    def log_prob(self) -> Tensor:
        """log p(sample) for each sampled value, differentiable with respect to the parameters."""
        return self._log_prob(self.sample, *self.params)

    def surrogate(self) -> Tensor:
        """``-(reward * log p(sample)).sum()``: its gradient is REINFORCE's estimate for this sample."""
        if self.reward is None:
            raise RuntimeError("differentiating stochastic functions requires providing a reward [autograd_lab] call "
                               f"sample.reinforce(reward) on the output of {self._name} before backward")
        log_prob = self.log_prob()
        reward = self.reward
        if isinstance(reward, Tensor):
            reward = reward.detach()
            if reward.shape != log_prob.shape and reward.numel() == log_prob.numel():
                reward = reward.reshape(log_prob.shape)  # 2017 rewards were often (N, 1) for (N,) samples
        return -(reward * log_prob).sum()

    def __repr__(self) -> str:
        return f"<{self._name} (stochastic function) object at {id(self):#x}>"


def _sample(name: str, params: tuple, values, log_prob) -> Tensor:
    """Wrap sampled ``values`` as a Variable whose creator is a StochasticFunction (unless volatile)."""
    sample = _dispatch.mark_outputs(Tensor._make(values), any(_dispatch.is_volatile(p) for p in params), ())
    if not sample._volatile and _gm.is_grad_enabled():
        sample._stochastic = StochasticFunction(name, params, Tensor._make(values.copy()), log_prob)
    return sample


def _rng():
    return creation.default_generator._rng


def _multinomial(probs: Tensor, num_samples: int, replacement: bool) -> Tensor:
    weights = np.asarray(probs._data, dtype=np.float64)
    if weights.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim [autograd_lab] multinomial got probabilities of shape "
                           f"{tuple(weights.shape)}: give one row of K weights, or N rows")
    rows = weights.reshape(-1, weights.shape[-1])
    if (rows < 0).any() or not np.isfinite(rows).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = rows.sum(-1)
    if (totals <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0) [autograd_lab] every row of "
                           "weights needs a positive entry")
    if not replacement and num_samples > rows.shape[-1]:
        raise RuntimeError(f"cannot sample n_sample > prob_dist.size(-1) samples without replacement [autograd_lab] "
                           f"{num_samples} samples from {rows.shape[-1]} categories: pass replacement=True")
    rng = _rng()
    picked = np.stack([rng.choice(rows.shape[-1], size=num_samples, replace=replacement, p=row / total)
                       for row, total in zip(rows, totals)]).astype(np.int64)
    values = picked.reshape(weights.shape[:-1] + (num_samples,))
    return _sample("Multinomial", (probs,), values,
                   _multinomial_log_prob_without if not replacement and num_samples > 1 else _multinomial_log_prob)


def _multinomial_log_prob(sample: Tensor, probs: Tensor) -> Tensor:
    """log(w_i / sum w) for each drawn category i (draws with replacement are independent)."""
    return probs.gather(-1, sample).log() - probs.sum(-1, keepdim=True).log()


def _multinomial_log_prob_without(sample: Tensor, probs: Tensor) -> Tensor:
    """Draw j without replacement: log(w_ij / (sum w - weights already drawn))."""
    picked = probs.gather(-1, sample)
    total = probs.sum(-1, keepdim=True)
    remaining = [total]
    for j in range(1, sample.shape[-1]):
        remaining.append(remaining[-1] - picked.narrow(-1, j - 1, 1))
    from ..ops.join import cat
    return picked.log() - cat(remaining, -1).log()


def _bernoulli(p: Tensor) -> Tensor:
    probs = p._data
    if ((probs < 0) | (probs > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. [autograd_lab] bernoulli "
                           "takes probabilities in [0, 1]")
    values = (_rng().random(probs.shape) < probs).astype(probs.dtype)
    return _sample("Bernoulli", (p,), values, _bernoulli_log_prob)


def _bernoulli_log_prob(sample: Tensor, p: Tensor) -> Tensor:
    """x log p + (1 - x) log(1 - p)."""
    return sample * p.log() + (1 - sample) * (1 - p).log()


def _normal(means: Tensor, std) -> Tensor:
    std_data = std._data if isinstance(std, Tensor) else std
    noise = _rng().standard_normal(np.broadcast_shapes(means._data.shape, np.shape(std_data)))
    values = np.asarray(means._data + std_data * noise, dtype=means._data.dtype)
    return _sample("Normal", (means, std), values, _normal_log_prob)


def _normal_log_prob(sample: Tensor, means: Tensor, std) -> Tensor:
    """-(x - mu)^2 / (2 sigma^2) - log sigma - log(2 pi) / 2."""
    log_std = std.log() if isinstance(std, Tensor) else math.log(std)
    return -((sample - means) ** 2) / (2 * std ** 2) - log_std - 0.5 * math.log(2 * math.pi)


def multinomial(probs: Tensor, num_samples: int = 1, replacement: bool = False) -> Tensor:
    """Draw ``num_samples`` category indices per row of (unnormalised) weights ``probs``; reinforceable."""
    deprecated(_MESSAGE)
    return _multinomial(probs, num_samples, replacement)


def bernoulli(p: Tensor) -> Tensor:
    """Draw 0/1 values with probabilities ``p``; reinforceable."""
    deprecated(_MESSAGE)
    return _bernoulli(p)


def normal(means, std=1.0, size=None, **kwargs) -> Tensor:
    """``normal(means, std)`` with a tensor of means: a reinforceable sample. With numbers for the mean
    it is the modern ``al.normal(mean, std, size)``."""
    if not isinstance(means, Tensor):
        return creation.normal(means, std, size, **kwargs)
    deprecated(_MESSAGE)
    return _normal(means, std)


def _bind_methods() -> None:
    """``probs.multinomial()`` and ``p.bernoulli()`` on Variables, as 2017 wrote them."""
    from .variable import Variable

    def multinomial_method(self, num_samples: int = 1, replacement: bool = False) -> Tensor:
        """Draw category indices from this Variable's weights (see ``legacy.multinomial``)."""
        deprecated(_MESSAGE)
        return _multinomial(self, num_samples, replacement)

    def bernoulli_method(self) -> Tensor:
        """Draw 0/1 values with this Variable's probabilities (see ``legacy.bernoulli``)."""
        deprecated(_MESSAGE)
        return _bernoulli(self)

    Variable.multinomial = multinomial_method
    Variable.bernoulli = bernoulli_method


_bind_methods()
