"""Sequences of different lengths for the recurrent layers, as ``torch.nn.utils.rnn``.

``pad_sequence`` stacks sequences into one padded tensor; ``pack_padded_sequence`` keeps only the real steps of
a padded batch, as a ``PackedSequence``: its ``data`` holds, step after step, the values of the sequences still
running at that step (longest first), and ``batch_sizes`` how many there are at each step. ``RNN``, ``LSTM`` and
``GRU`` accept a ``PackedSequence``: each sequence's state stops changing after its last step, so ``h_n`` is its
state there, and the output is packed the same way. ``pad_packed_sequence`` gives back the padded tensor and the
lengths. With ``enforce_sorted=False`` the batch is sorted by length first (``sorted_indices``) and put back in
its order when unpacked (``unsorted_indices``); the sort here is stable (PyTorch's is not, for equal lengths).
"""

from __future__ import annotations

from typing import NamedTuple

from ... import backend, creation
from ...ops.join import cat, stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "unpad_sequence",
           "pack_sequence", "unpack_sequence", "invert_permutation"]


class PackedSequence(NamedTuple):
    """``data`` (the steps of the running sequences, step after step), ``batch_sizes`` (how many run at each step,
    int64) and the permutations between the batch's order and the longest-first order (None when sorted)."""
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same sequence with ``data`` converted (``batch_sizes`` stays an int64 CPU tensor)."""
        return self._replace(data=self.data.to(*args, **kwargs))

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    inverse = creation.empty_like(permutation)
    inverse[permutation] = creation.arange(permutation.numel(), dtype=permutation.dtype, device=permutation.device)
    return inverse


def _packed_data(sorted_padded: Tensor, batch_sizes: list) -> Tensor:
    """The ``(T, B, *)`` padded batch, longest first, packed: the first ``batch_sizes[t]`` rows of each step, joined."""
    return cat([sorted_padded[t, :size] for t, size in enumerate(batch_sizes)])


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
                         ) -> PackedSequence:
    """Pack a padded ``(T, B, *)`` batch (``batch_first``: ``(B, T, *)``) whose sequences have ``lengths``."""
    lengths = creation.tensor(lengths, dtype=backend.int64) if not isinstance(lengths, Tensor) \
        else lengths.to(backend.int64)
    if lengths.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D cpu Long tensor")
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True, stable=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices.to(input.device))
    padded = input.transpose(0, 1) if batch_first else input
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    steps = lengths.tolist()
    if len(steps) != padded.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(steps)} "
                           f"(batch_size={padded.shape[1]})")
    if steps and min(steps) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
                           "<= 0")
    if any(a < b for a, b in zip(steps, steps[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                           "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if steps and steps[0] > padded.shape[0]:
        raise RuntimeError(f"lengths[0] ({steps[0]}) is larger than the sequences' padded length ({padded.shape[0]}) "
                           "[autograd_lab] each length counts the real steps of one sequence")
    batch_sizes = [sum(1 for n in steps if n > t) for t in range(steps[0] if steps else 0)]
    return PackedSequence(_packed_data(padded, batch_sizes), creation.tensor(batch_sizes, dtype=backend.int64),
                          sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    """``(padded, lengths)``: the packed batch padded with ``padding_value`` to ``(T, B, *)`` (``batch_first``: ``(B, T, *)``;
    ``total_length``: T), in the batch's own order, and the lengths (int64)."""
    batch_sizes = sequence.batch_sizes.tolist()
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    data, batch = sequence.data, batch_sizes[0] if batch_sizes else 0
    rows, start = [], 0
    for t in range(steps):
        size = batch_sizes[t] if t < len(batch_sizes) else 0
        filler = creation.full((batch - size, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
        rows.append(cat([data[start:start + size], filler]))
        start += size
    padded = stack(rows) if rows else creation.full((0, batch, *data.shape[1:]), padding_value, dtype=data.dtype)
    lengths = creation.tensor([sum(1 for size in batch_sizes if size > b) for b in range(batch)], dtype=backend.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return (padded.transpose(0, 1) if batch_first else padded), lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"
                 ) -> Tensor:
    """The ``(L_i, *)`` ``sequences`` padded to the longest and stacked: ``(L, B, *)`` (``batch_first``: ``(B, L, *)``);
    ``padding_side='left'`` puts the padding before each sequence."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        filler = creation.full((longest - s.shape[0], *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
        padded.append(cat([s, filler] if padding_side == "right" else [filler, s]))
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The sequences of a padded batch, each cut to its length."""
    batch = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [batch[b, :int(n)] for b, n in enumerate(lengths.tolist() if isinstance(lengths, Tensor) else lengths)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of ``(L_i, *)`` sequences (longest first, unless ``enforce_sorted=False``)."""
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    lengths = creation.tensor([s.shape[0] for s in sequences], dtype=backend.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a ``PackedSequence`` holds, in the batch's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
