"""Stochastic functions of 2017 (``multinomial``, ``bernoulli``, ``normal``) and ``reinforce``.

A sample cannot be differentiated, but its probability can. In 2017, ``sample.reinforce(reward)`` gave
the reward to the function that drew the sample, and backward through the sample ran that function's
``backward(reward)``: a hand-written gradient for its parameters, after Williams' REINFORCE (1992).
Each formula below is the one PyTorch's 2017 source wrote (``torch/autograd/_functions/stochastic.py``),
``1e-6`` guards included, so that old numbers come out as they did:

- ``Multinomial``: the weights are normalised to probabilities ``p`` (per row), and each drawn index
  ``k`` adds ``-reward / (p[k] + 1e-6)`` to the gradient of entry ``k``; every other entry gets 0. With or
  without replacement, each draw is scored alone.
- ``Bernoulli``: ``reward * (p - x) / (p * (1 - p) + 1e-6)``.
- ``Normal`` (sample ``x``): ``reward * (mean - x) / (std**2 + 1e-6)`` for the means and, when ``std`` is
  a Variable, ``reward * (std**2 + 1e-6 - (mean - x)**2) / (std**3 + 1e-6)`` for it.

These are ``-reward * d log p(sample) / d parameters`` with the parameters taken as free numbers. For the
multinomial that ignores the normalisation: today's score-function loss, ``-(reward * log(w[k] / w.sum()))``,
also moves the entries that were not drawn. The two agree once the probabilities come out of a softmax
(notebook 11 shows both). The parameters' gradients enter the one engine as the seeds of a backward from
the parameters, so they flow on to whatever computed them.
"""

from __future__ import annotations

import numpy as np

from .. import creation
from ..autograd import grad_mode as _gm
from ..tensor import Tensor
from . import _dispatch
from ._dispatch import deprecated

__all__ = ["StochasticFunction", "multinomial", "bernoulli", "normal"]

_MESSAGE = ("stochastic functions and reinforce are deprecated: sample without a graph (under al.no_grad()) and "
            "backpropagate the score function yourself, loss = -(reward * log_prob_of_sample).sum()")
EPS = 1e-6  # what 2017's formulas add to each denominator


class StochasticFunction:
    """What drew a sample (its ``creator``): the parameters, the sampled values, the reward, and 2017's
    gradient formula for the parameters."""

    def __init__(self, name: str, params: tuple, sample: np.ndarray, formula) -> None:
        self._name = name
        self.params = params  # the tensors (or numbers) the distribution was given; they hold the graph
        self.sample = sample  # a copy: changing the returned sample in place cannot change the gradient
        self._formula = formula
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

    def gradients(self) -> list[tuple[Tensor, Tensor]]:
        """``(parameter, gradient)`` for each parameter that requires grad: 2017's ``backward(reward)``."""
        if self.reward is None:
            raise RuntimeError("differentiating stochastic functions requires providing a reward [autograd_lab] call "
                               f"sample.reinforce(reward) on the output of {self._name} before backward")
        reward = self._reward_array()
        values = [np.asarray(p._data, dtype=np.float64) if isinstance(p, Tensor) else p for p in self.params]
        grads = self._formula(self.sample, reward, *values)
        return [(p, Tensor._make(np.asarray(g).astype(p._data.dtype)))
                for p, g in zip(self.params, grads) if isinstance(p, Tensor) and p.requires_grad and g is not None]

    def _reward_array(self) -> np.ndarray:
        reward = self.reward
        if isinstance(reward, Tensor):
            reward = np.asarray(reward.detach()._data, dtype=np.float64)
            if reward.size != self.sample.size and reward.size != 1:
                raise ValueError(f"got reward of size {'x'.join(map(str, reward.shape))}, but expected a tensor of "
                                 f"size {'x'.join(map(str, self.sample.shape))} [autograd_lab] one reward per sampled "
                                 "value (or a number for all of them)")
            return reward.reshape(self.sample.shape) if reward.size == self.sample.size else reward.reshape(())
        return np.asarray(float(reward))

    def __repr__(self) -> str:
        return f"<{self._name} (stochastic function) object at {id(self):#x}>"


def _sample(name: str, params: tuple, values: np.ndarray, formula) -> Tensor:
    """Wrap sampled ``values`` as a Variable whose creator is a StochasticFunction (unless volatile)."""
    sample = _dispatch.mark_outputs(Tensor._make(values), any(_dispatch.is_volatile(p) for p in params), ())
    if not sample._volatile and _gm.is_grad_enabled():
        sample._stochastic = StochasticFunction(name, params, values.copy(), formula)
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
    return _sample("Multinomial", (probs,), values, _multinomial_grad)


def _multinomial_grad(sample: np.ndarray, reward: np.ndarray, weights: np.ndarray) -> tuple:
    """-reward / (p[k] + 1e-6) at each drawn index k of each row, p the row's normalised weights; 0 elsewhere."""
    rows = weights.reshape(-1, weights.shape[-1])
    probs = rows / rows.sum(-1, keepdims=True)
    drawn = sample.reshape(rows.shape[0], -1)
    scores = -np.broadcast_to(reward, sample.shape).reshape(drawn.shape) / (np.take_along_axis(probs, drawn, -1) + EPS)
    grad = np.zeros_like(probs)
    np.add.at(grad, (np.arange(rows.shape[0])[:, None], drawn), scores)  # an index drawn twice adds up
    return (grad.reshape(weights.shape),)


def _bernoulli(p: Tensor) -> Tensor:
    probs = p._data
    if ((probs < 0) | (probs > 1)).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. [autograd_lab] bernoulli "
                           "takes probabilities in [0, 1]")
    values = (_rng().random(probs.shape) < probs).astype(probs.dtype)
    return _sample("Bernoulli", (p,), values, _bernoulli_grad)


def _bernoulli_grad(sample: np.ndarray, reward: np.ndarray, p: np.ndarray) -> tuple:
    """reward * (p - x) / (p (1 - p) + 1e-6)."""
    return (reward * (p - sample) / (p * (1 - p) + EPS),)


def _normal(means: Tensor, std) -> Tensor:
    std_data = std._data if isinstance(std, Tensor) else std
    noise = _rng().standard_normal(np.broadcast_shapes(means._data.shape, np.shape(std_data)))
    values = np.asarray(means._data + std_data * noise, dtype=means._data.dtype)
    return _sample("Normal", (means, std), values, _normal_grad)


def _normal_grad(sample: np.ndarray, reward: np.ndarray, means: np.ndarray, std) -> tuple:
    """reward * (mean - x) / (std² + 1e-6) for the means; reward * (std² + 1e-6 - (mean - x)²) / (std³ + 1e-6)
    for a std that is a tensor (a number has no gradient)."""
    offset = means - sample
    variance = np.asarray(std, dtype=np.float64) ** 2 + EPS
    grad_means = reward * offset / variance
    if not isinstance(std, np.ndarray):
        return grad_means, None
    return grad_means, reward * (variance - offset ** 2) / (std ** 3 + EPS)


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
