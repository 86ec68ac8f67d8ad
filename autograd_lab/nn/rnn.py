"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (several layers, bidirectional, dropout between layers) and the
single-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``, with PyTorch's parameters (names such as
``weight_ih_l0``, ``bias_hh_l1_reverse``; gates stacked in PyTorch's order), initialisation and shapes, so
weights copied from a PyTorch model give the same outputs.

They are composed of ordinary ops, as the equations read: a step of an LSTM is two ``linear`` maps, four
gates (``sigmoid``, ``tanh``) and two products, so its graph shows the computation itself. The input's
projection ``x W_ih^T + b_ih`` is computed for the whole sequence at once (as PyTorch's CPU and cuDNN kernels
do); the loop over time steps then adds ``h W_hh^T + b_hh`` and applies the gates. A ``PackedSequence`` (see
``nn.utils.rnn``) runs as its padded batch, each sequence's state held still after its own last step.

The equations (``*``: elementwise; ``W_i*`` the rows of ``W_ih`` for gate ``*``, in the order listed):

* RNN: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or ``relu``)
* LSTM, gates (i, f, g, o): ``i = sigmoid(...)``, ``f = sigmoid(...)``, ``g = tanh(...)``, ``o = sigmoid(...)``;
  ``c' = f * c + i * g``, ``h' = o * tanh(c')`` (with ``proj_size``: ``h' = W_hr (o * tanh(c'))``)
* GRU, gates (r, z, n): ``r = sigmoid(...)``, ``z = sigmoid(...)``,
  ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``
"""

from __future__ import annotations

import math
import numbers
import warnings

from .. import creation
from ..ops.join import cat, stack
from ..ops.pointwise import where
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence, pad_packed_sequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# -- one time step ----------------------------------------------------------------------------------------
def _step(mode: str, projected: Tensor, state, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None = None):
    """The next state from the projected input ``x W_ih^T + b_ih`` and the state (``h``, or ``(h, c)``)."""
    if mode == "LSTM":
        h, c = state
        i, f, g, o = (projected + F.linear(h, w_hh, b_hh)).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if w_hr is None else F.linear(h, w_hr)), c
    if mode == "GRU":
        x_r, x_z, x_n = projected.chunk(3, 1)
        h_r, h_z, h_n = F.linear(state, w_hh, b_hh).chunk(3, 1)
        reset, update = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
        new = (x_n + reset * h_n).tanh()
        return new + update * (state - new)  # (1 - z) * n + z * h, as PyTorch computes it
    pre = projected + F.linear(state, w_hh, b_hh)
    return pre.tanh() if mode == "RNN_TANH" else pre.relu()


def _hidden(state) -> Tensor:
    return state[0] if isinstance(state, tuple) else state


# -- the layers ---------------------------------------------------------------------------------------------
class RNNBase(Module):
    """The multi-layer recurrent layer behind ``RNN``, ``LSTM`` and ``GRU`` (``mode`` says which)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates, directions = _GATES[mode] * hidden_size, 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gates, input_size if layer == 0 else real_hidden * directions),
                          "weight_hh": (gates, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gates,), bias_hh=(gates,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = [name + suffix for name in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(creation.empty(shape, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch initialises them."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one buffer for cuDNN; here they stay as they are."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters of each layer and direction: ``[[weight_ih_l0, weight_hh_l0, ...], ...]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self, layer: int, direction: int) -> tuple:
        """(w_ih, b_ih, w_hh, b_hh, w_hr) of one layer and direction (absent ones None)."""
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        return tuple(getattr(self, name + suffix, None)
                     for name in ("weight_ih", "bias_ih", "weight_hh", "bias_hh", "weight_hr"))

    def forward(self, input: Tensor, hx=None):
        """``output, h_n`` (LSTM: ``output, (h_n, c_n)``): the last layer's hidden states at every step, and
        every layer's final state (directions interleaved: layer 0 forward, layer 0 backward, layer 1...).
        A ``PackedSequence`` input gives a ``PackedSequence`` output; each sequence's final state is at its length."""
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: expected a Tensor or PackedSequence input, got {type(input).__name__}")
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D"
                             + (" tensor instead" if name == "RNN" else " instead"))
        batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        self._check_input(input)
        sequence = input.transpose(0, 1) if self.batch_first else input  # (L, N, features)
        states = self._initial_states(sequence, hx, batched)
        if sequence.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, finals = self._run_layers(sequence, states)
        if self.batch_first:
            output = output.transpose(0, 1)
        final = self._final_states(finals)
        if batched:
            return output, final
        final = tuple(f.squeeze(1) for f in final) if isinstance(final, tuple) else final.squeeze(1)
        return output.squeeze(batch_dim), final

    def _forward_packed(self, input: PackedSequence, hx):
        """Run on the padded batch (in its own order), each sequence's state held still after its last step;
        then pack the output as the input is packed."""
        sequence, lengths = pad_packed_sequence(input)
        self._check_input(sequence)
        states = self._initial_states(sequence, hx, True)
        output, finals = self._run_layers(sequence, states, lengths)
        if input.sorted_indices is not None:
            output = output.index_select(1, input.sorted_indices)
        data = cat([output[t, :size] for t, size in enumerate(input.batch_sizes.tolist())])
        return input._replace(data=data), self._final_states(finals)

    def _final_states(self, finals: list):
        if self.mode == "LSTM":
            return stack([h for h, _ in finals]), stack([c for _, c in finals])
        return stack(finals)

    def _run_layers(self, sequence: Tensor, states: list, lengths: Tensor | None = None):
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                steps, final = self._run_direction(sequence, states[layer * directions + direction], layer, direction,
                                                   lengths)
                outputs.append(steps)
                finals.append(final)
            sequence = outputs[0] if directions == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                sequence = F.dropout(sequence, self.dropout, training=True)
        return sequence, finals

    def _run_direction(self, sequence: Tensor, state, layer: int, direction: int, lengths: Tensor | None):
        """Every step's hidden state and the final state; with ``lengths`` (a packed batch), a sequence's state
        changes only at its real steps (the reverse direction thus starts at each sequence's own last step)."""
        w_ih, b_ih, w_hh, b_hh, w_hr = self._weights(layer, direction)
        projected = F.linear(sequence, w_ih, b_ih)  # every step's input projection at once
        length = sequence.shape[0]
        hidden = [None] * length
        for t in (reversed(range(length)) if direction == 1 else range(length)):
            new = _step(self.mode, projected[t], state, w_hh, b_hh, w_hr)
            if lengths is not None:
                running = (lengths > t).reshape(-1, 1).to(sequence.device)
                new = tuple(where(running, n, s) for n, s in zip(new, state)) if isinstance(new, tuple) \
                    else where(running, new, state)
            state = new
            hidden[t] = _hidden(state)
        return stack(hidden), state

    # -- checks and initial states, with PyTorch's messages --------------------------------------------------
    def _check_input(self, input: Tensor) -> None:
        weight = self._flat_weights[0]
        if input.dtype is not weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype!r}) does not match weight dtype ({weight.dtype!r}). "
                             f"Convert input: input.to({weight.dtype!r}), or convert model: model.to({input.dtype!r})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")

    def _initial_states(self, sequence: Tensor, hx, batched: bool) -> list:
        """The state of each layer and direction: zeros, or ``hx`` (``(h_0, c_0)`` for an LSTM) checked."""
        layers = self.num_layers * (2 if self.bidirectional else 1)
        batch = sequence.shape[1]
        h_size = (layers, batch, self.proj_size if self.proj_size > 0 else self.hidden_size)
        if hx is None:
            h = creation.zeros(h_size, dtype=sequence.dtype, device=sequence.device)
            if self.mode != "LSTM":
                return list(h.unbind(0))
            c = creation.zeros((layers, batch, self.hidden_size), dtype=sequence.dtype, device=sequence.device)
            return list(zip(h.unbind(0), c.unbind(0)))
        if self.mode == "LSTM":
            h, c = self._checked_lstm_state(hx, batched, h_size, (layers, batch, self.hidden_size))
            return list(zip(h.unbind(0), c.unbind(0)))
        want = 3 if batched else 2
        if hx.ndim != want:
            raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx should also be "
                               f"{want}-D but got {hx.ndim}-D tensor")
        hx = hx if batched else hx.unsqueeze(1)
        if tuple(hx.shape) != h_size:
            raise RuntimeError(f"Expected hidden size {h_size}, got {list(hx.shape)}")
        return list(hx.unbind(0))

    def _checked_lstm_state(self, hx, batched: bool, h_size: tuple, c_size: tuple):
        h, c = hx
        want = 3 if batched else 2
        if h.ndim != want or c.ndim != want:
            raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and cx should also be "
                               f"{want}-D but got ({h.ndim}-D, {c.ndim}-D) tensors")
        if not batched:
            h, c = h.unsqueeze(1), c.unsqueeze(1)
        if tuple(h.shape) != h_size:
            raise RuntimeError(f"Expected hidden[0] size {h_size}, got {list(h.shape)}")
        if tuple(c.shape) != c_size:
            raise RuntimeError(f"Expected hidden[1] size {c_size}, got {list(c.shape)}")
        return h, c

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        for name, default in (("num_layers", 1), ("bias", True), ("batch_first", False), ("dropout", 0),
                              ("bidirectional", False)):
            if getattr(self, name) != default:
                text += f", {name}={getattr(self, name)}"
        return text


def _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size) -> None:
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                      f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      UserWarning, stacklevel=4)
    for value, name in ((bias, "bias"), (batch_first, "batch_first")):
        if not isinstance(value, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
    for value, name in ((input_size, "input_size"), (hidden_size, "hidden_size")):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """An Elman RNN: ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    """A long short-term memory layer: ``LSTM(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, proj_size=0)``; state ``(h, c)``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """A gated recurrent unit layer: ``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# -- single steps ------------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """One step of a recurrent layer, with ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""
    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(creation.empty(rows, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(creation.empty(rows, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(creation.empty(rows, dtype=dtype, device=device))
            self.bias_hh = Parameter(creation.empty(rows, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def forward(self, input: Tensor, hx=None):
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        states = hx if isinstance(hx, tuple) else (hx,) if hx is not None else ()
        for k, state in enumerate(states):
            if state.ndim not in (1, 2):
                what = f"hx[{k}]" if isinstance(hx, tuple) else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {state.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
            states = tuple(s.unsqueeze(0) for s in states)
        if not states:
            zeros = creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            states = (zeros, zeros) if self._mode == "LSTM" else (zeros,)
        self._check_sizes(input, states)
        state = states if self._mode == "LSTM" else states[0]
        out = _step(self._mode, F.linear(input, self.weight_ih, self.bias_ih), state, self.weight_hh, self.bias_hh)
        if batched:
            return out
        return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)

    def _check_sizes(self, input: Tensor, states: tuple) -> None:
        """PyTorch's checks of the (batched) input and states: input_size, then each state's batch and size."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for k, state in enumerate(states):
            if state.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size "
                                   f"{state.shape[0]}")
            if state.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {state.shape[1]}, expected "
                                   f"{self.hidden_size}")


class RNNCell(RNNCellBase):
    """``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (``nonlinearity='relu'``: relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h', c')`` from the input and ``(h, c)``."""
    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)


class GRUCell(RNNCellBase):
    """One GRU step: ``h'`` from the input and ``h``."""
    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)
