"""``einsum``: sums of products written as subscripts, ``al.einsum('bij,bjk->bik', a, b)``.

The equation is read as PyTorch reads it (its error messages too): letters ``a-zA-Z`` name dims, ``...``
stands for the dims no letter names (broadcast, right-aligned, across operands), spaces are ignored, and
without ``->`` the output is the ellipsis dims followed by the letters that appear once, in alphabetical
order. A dim of size 1 broadcasts against the same letter's size in another operand. The sublist form
``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is accepted too.

The equation is first rewritten with a letter for every dim (the ellipsis dims get letters the equation
does not use), then the operands are contracted two at a time, left to right, as PyTorch does: one
``EinsumBackward0`` node per contraction. (PyTorch records the contraction as the permutes, sums and
``bmm`` it runs, so its ``grad_fn`` is a ``ViewBackward0`` or ``PermuteBackward0``; here the node says
what was computed.)

The derivative of a contraction with respect to one operand is again a contraction: the output's
gradient with the other operand, onto the operand's letters. Two cases need more than that: a letter only
that operand has (summed away in the forward) is broadcast back, and a letter repeated in it (``'ii->i'``,
a diagonal) puts the gradient on the diagonal, zeros elsewhere.
"""

from __future__ import annotations

import string

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._op import Op

__all__ = ["einsum"]

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # (PyTorch's order: the implicit output sorts so)


class EinsumBackward0(Op):
    """out = the contraction ``equation`` (every dim lettered, no ellipsis) of one or two operands"""
    saves = ("equation", "other", "self", "shapes")

    def forward(xp, self, other, *, equation, shapes):
        inputs, _ = _split(equation)
        operands = (self,) if other is None else (self, other)
        sizes = _letter_sizes(inputs, [x.shape for x in operands])
        operands = [_broadcast(xp, x, letters, sizes) for x, letters in zip(operands, inputs)]
        return xp.asarray(xp.einsum(equation, *operands, optimize=len(operands) > 1), dtype=self.dtype)

    def d_self(grad, equation, other, shapes):
        inputs, output = _split(equation)
        theirs = inputs[1] if other is not None else ""
        return _operand_grad(grad, other, inputs[0], theirs, output, shapes[0])

    def d_other(grad, equation, self, shapes):
        inputs, output = _split(equation)
        return _operand_grad(grad, self, inputs[1], inputs[0], output, shapes[1])

    # (linear in each operand: the product rule sums the contraction with one operand's tangent in its place)
    def f_self(tangent, equation, other, shapes):
        return formulas.call(EinsumBackward0, tangent, other, equation=equation, shapes=shapes)

    def f_other(tangent, equation, self, shapes):
        return formulas.call(EinsumBackward0, self, tangent, equation=equation, shapes=shapes)


def _split(equation: str) -> tuple[list[str], str]:
    inputs, output = equation.split("->")
    return inputs.split(","), output


def _letter_sizes(inputs, shapes) -> dict:
    """Each letter's size: the largest among the operands (the others are 1, checked by ``einsum``)."""
    sizes: dict = {}
    for letters, shape in zip(inputs, shapes):
        for letter, size in zip(letters, shape):
            sizes[letter] = max(sizes.get(letter, 1), size)
    return sizes


def _broadcast(xp, array, letters: str, sizes: dict):
    """``array`` with its size-1 dims broadcast to their letters' sizes (a read-only view)."""
    shape = tuple(sizes[letter] for letter in letters)
    return array if array.shape == shape else xp.broadcast_to(array, shape)


def _operand_grad(grad, partner, mine: str, theirs: str, output: str, my_shape: tuple):
    """The gradient of one operand (letters ``mine``), given the output's gradient and the other operand."""
    unique = "".join(dict.fromkeys(mine))
    reached = "".join(letter for letter in unique if letter in output or letter in theirs)
    spec = f"{output},{theirs}->{reached}" if partner is not None else f"{output}->{reached}"
    g = formulas.call(EinsumBackward0, grad, partner, equation=spec,
                      shapes=(tuple(grad.shape), None if partner is None else tuple(partner.shape)))
    my_sizes = dict(zip(mine, my_shape))
    if reached != unique:  # letters summed away in the forward: the gradient is the same all along them
        got = dict(zip(reached, g.shape))
        g = formulas.reshape(g, tuple(got.get(letter, 1) for letter in unique))
        g = formulas.expand(g, tuple(got.get(letter, my_sizes[letter]) for letter in unique))
    if unique != mine:  # a repeated letter: the gradient lies on the diagonal
        g = _on_diagonal(g, unique, mine)
    return g


def _on_diagonal(g, unique: str, mine: str):
    """``g`` (one dim per letter of ``unique``) spread over the dims of ``mine``, where a letter may repeat:
    ``g[i]`` at ``[i, i]`` for ``'ii'``, zero off the diagonal."""
    sizes = dict(zip(unique, g.shape))
    first = {letter: mine.index(letter) for letter in unique}
    spread = tuple(sizes[letter] if first[letter] == i else 1 for i, letter in enumerate(mine))
    full = tuple(sizes[letter] for letter in mine)
    g = formulas.expand(formulas.reshape(g, spread), full)
    xp = backend.namespace_of(formulas.array_of(g))
    mask = xp.ones(full, dtype=bool)
    for i, letter in enumerate(mine):
        if first[letter] != i:
            index = xp.arange(sizes[letter])
            along = [1] * len(mine)
            mask = mask & (index.reshape(_at(along, i)) == index.reshape(_at(along, first[letter])))
    return formulas.where(mask, g, 0.0)


def _at(ones: list, dim: int) -> tuple:
    shape = list(ones)
    shape[dim] = -1
    return tuple(shape)


# -- reading the equation, as PyTorch reads it --------------------------------------------------------
def _error(message: str) -> RuntimeError:
    return RuntimeError(f"einsum(): {message}")


def _read_term(term: str, start: int, who: str) -> tuple[str, int | None]:
    """The letters of one operand's (or the output's) subscripts and where its ellipsis is (``None``: none)."""
    letters, ellipsis, i = "", None, 0
    while i < len(term):
        char = term[i]
        if char == ".":
            if ellipsis is not None:
                raise _error(f"found '.' for {who} for which an ellipsis was already found" if who != "output"
                             else "found '.' for output but an ellipsis (...) was already found")
            if term[i:i + 3] != "...":
                raise _error(f"found '.' for {who} that is not part of any ellipsis" if who != "output"
                             else "found '.' for output that is not part of any ellipsis (...)")
            ellipsis, i = len(letters), i + 3
            continue
        if char != " ":
            if char not in _LETTERS:
                raise _error(f"invalid subscript given at index {start + i} in the equation string, subscripts "
                             "must be in [a-zA-Z]")
            letters += char
        i += 1
    return letters, ellipsis


def _lettered(equation: str, shapes: list) -> str:
    """The equation with a letter for every dim (ellipsis dims get unused letters) and an explicit output."""
    lhs, arrow, rhs = equation.partition("->")
    terms, starts, position = lhs.split(","), [], 0
    for term in terms:
        starts.append(position)
        position += len(term) + 1
    if len(shapes) < len(terms):
        raise _error("fewer operands were provided than specified in the equation")
    if len(shapes) > len(terms):
        raise _error("more operands were provided than specified in the equation")
    read = [_read_term(term, start, f"operand {k}") for k, (term, start) in enumerate(zip(terms, starts))]
    spare = iter(c for c in _LETTERS if c not in equation)
    ellipsis_dims = max([len(shape) - len(letters) for (letters, e), shape in zip(read, shapes) if e is not None],
                        default=0)
    ellipsis = "".join(next(spare) for _ in range(ellipsis_dims))
    inputs = []
    for k, ((letters, at), shape) in enumerate(zip(read, shapes)):
        if at is None and len(letters) != len(shape):
            raise _error(f"the number of subscripts in the equation ({len(letters)}) does not match the number of "
                         f"dimensions ({len(shape)}) for operand {k} and no ellipsis was given")
        if at is not None and len(letters) > len(shape):
            raise _error(f"the number of subscripts in the equation ({len(letters)}) is more than the number of "
                         f"dimensions ({len(shape)}) for operand {k}")
        covered = ellipsis[len(ellipsis) - (len(shape) - len(letters)):] if at is not None else ""
        inputs.append(letters if at is None else letters[:at] + covered + letters[at:])
    return ",".join(inputs) + "->" + _output(rhs if arrow else None, inputs, ellipsis, len(lhs) + 2)


def _output(rhs: str | None, inputs: list, ellipsis: str, start: int) -> str:
    seen = "".join(inputs)
    if rhs is None:  # implicit: the ellipsis dims, then the letters used once, in alphabetical order
        once = [c for c in _LETTERS if seen.count(c) == 1 and c not in ellipsis]
        return ellipsis + "".join(once)
    letters, at = _read_term(rhs, start, "output")
    for letter in letters:
        if letters.count(letter) > 1:
            raise _error(f"output subscript {letter} appears more than once in the output")
        if letter not in seen:
            raise _error(f"output subscript {letter} does not appear in the equation for any input operand")
    return letters if at is None else letters[:at] + ellipsis + letters[at:]


def _check_sizes(inputs: list, shapes: list, equation: str) -> None:
    """Equal letters must have equal sizes (or 1, which broadcasts), as PyTorch checks them (the letters
    ``equation`` does not have are ellipsis dims)."""
    seen: dict = {}
    ellipsis_dims = max(sum(c not in equation for c in letters) for letters in inputs)
    for k, (letters, shape) in enumerate(zip(inputs, shapes)):
        covered = [c for c in letters if c not in equation]
        mine: dict = {}
        for letter, size in zip(letters, shape):
            if letter in mine and mine[letter] != size:
                raise _error(f"subscript {letter} is repeated for operand {k} but the sizes don't match, "
                             f"{size} != {mine[letter]}")
            mine[letter] = size
        for letter, size in mine.items():
            before = seen.get(letter, 1)
            if size != 1 and before != 1 and size != before and letter not in equation:
                dim = ellipsis_dims - len(covered) + covered.index(letter)
                raise _error(f"dimension {dim} covered by ellipsis in operand {k} has size {size} "
                             "which does not broadcast with previously seen ellipsis with size "
                             f"{before} for the respective dimension")
            if size != 1 and before != 1 and size != before:
                raise _error(f"subscript {letter} has size {size} for operand {k} which does not broadcast with "
                             f"previously seen size {before} [autograd_lab] dims named by the same letter must have "
                             "the same size (or 1)")
            seen[letter] = max(before, size)


def _sublists(args) -> tuple[str, list]:
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])``: the equation and operands of the sublist form."""
    args = list(args)
    output = args.pop() if len(args) % 2 else None
    operands, terms = args[0::2], args[1::2]

    def term(sublist) -> str:
        return "".join("..." if s is Ellipsis else _LETTERS[s] for s in sublist)
    equation = ",".join(term(s) for s in terms) + ("" if output is None else "->" + term(output))
    return equation, operands


# -- the function ------------------------------------------------------------------------------------
def einsum(*args) -> Tensor:
    """Sum of products over the dims named in ``equation``: ``einsum('ij,jk->ik', a, b)`` is ``a @ b``,
    ``einsum('ii', a)`` the trace, ``einsum('bhqd,bhkd->bhqk', q, k)`` attention scores. Differentiable."""
    if args and isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])  # einsum(equation, [a, b])
    else:
        equation, operands = _sublists(args)
    for k, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(f"einsum(): operand {k} must be a Tensor, not {type(x).__name__}")
        if x.dtype is not operands[0].dtype:
            raise RuntimeError(f"expected scalar type {backend.kernel_type_name(operands[0].dtype)} but found "
                               f"{backend.kernel_type_name(x.dtype)} [autograd_lab] einsum: give every operand one dtype, "
                               "e.g. b.to(a.dtype)")
    shapes = [tuple(x.shape) for x in operands]
    lettered = _lettered(equation, shapes)
    inputs, output = _split(lettered)
    _check_sizes(inputs, shapes, equation)
    result, letters = operands[0], inputs[0]
    if len(operands) == 1:
        return EinsumBackward0.apply(result, None, equation=lettered, shapes=(shapes[0], None))
    for k in range(1, len(operands)):  # left to right, keeping the letters the output or a later operand needs
        later = "".join(inputs[k + 1:]) + output
        both = letters + inputs[k]
        kept = output if k == len(operands) - 1 else "".join(c for c in dict.fromkeys(both) if c in later)
        result = EinsumBackward0.apply(result, operands[k], equation=f"{letters},{inputs[k]}->{kept}",
                                       shapes=(tuple(result.shape), shapes[k]))
        letters = kept
    return result
