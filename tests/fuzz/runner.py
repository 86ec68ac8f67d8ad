"""Runs a program in autograd_lab and in PyTorch in lockstep, compares, classifies and shrinks.

Line by line: both libraries run the line; if either raises, the program ends there (both raise, or only
one: a one-side error, accepted only if the known-differences table explains it). Otherwise the names the
line binds are compared at once, so a difference is reported at the line that made it. At the end every
tensor the program holds is compared again (in-place writes may have changed it since), with the ``.grad``
of every leaf and of every tensor that retains its gradient.

Values compare with float64 tolerances (``RTOL``, ``ATOL``), NaNs in the same places, infinities with the
same sign; dtypes, shapes, ``requires_grad`` and ``is_leaf`` compare exactly. A difference is confirmed
before it fails: if PyTorch differs from itself at the same line once the program's values move by 1e-12
(``ill_conditioned``), the point sits on a discontinuity that rounding decides, and the outcome is
``ill-conditioned``, not a failure.
"""

from __future__ import annotations

import itertools
import math
import re
import types
import warnings
from dataclasses import dataclass

import numpy as np

from .known import KnownDifference, explained
from .programs import PREAMBLE, Line, Program

RTOL, ATOL = 1e-9, 1e-12
MATCH, BOTH_RAISE, AL_RAISES, TORCH_RAISES, SILENT, KNOWN, ILL = (
    "match", "both raise", "only autograd_lab raises", "only PyTorch raises", "silent difference", "known difference",
    "ill-conditioned")
NUDGES = (1 + 1e-12, 1 - 1e-12)  # how the ill-conditioning check scales every float literal of a program
FAILURES = (AL_RAISES, TORCH_RAISES, SILENT)


@dataclass
class Outcome:
    kind: str
    line: int | None = None  # the index of the line where the outcome was decided
    detail: str = ""
    known: KnownDifference | None = None
    error_types: tuple[str, str] | None = None  # (autograd_lab's, PyTorch's), when both raise and ours is not
    # an instance of PyTorch's type (OpError is a RuntimeError: no difference)


def _namespace(library) -> dict:
    space = {"M": library}
    exec(PREAMBLE, space)
    return space


def _execute(space: dict, text: str) -> Exception | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(text, space)
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            return exc
    return None


def _array(tensor) -> np.ndarray:
    try:
        return np.array(tensor.detach().numpy(), copy=True)
    except RuntimeError:  # PyTorch's ZeroTensor (a gradient autograd never materialized) needs force=True
        return np.array(tensor.detach().numpy(force=True), copy=True)


def observe(library, value, gradient: bool = False):
    """A plain, comparable picture of a value: tensors as (dtype, shape, requires_grad, is_leaf, array).

    For a ``gradient`` (what ``grad`` returns, a ``.grad``) only the dtype, shape and values count: whether a
    gradient made under ``create_graph`` requires grad depends on how its formula is written (PyTorch's
    relu derivative reads the result, so it requires grad with a zero second derivative; ours does not).
    The values of the second derivatives are compared."""
    if library.is_tensor(value):
        try:
            is_leaf = value.is_leaf
        except RuntimeError as exc:  # reading grad_fn of some views raises (an output of split whose base changed)
            is_leaf = f"raises {type(exc).__name__}"
        flags = (None, None) if gradient else (value.requires_grad, is_leaf)
        return ("tensor", str(value.dtype).rsplit(".", 1)[-1], tuple(value.shape), *flags, _array(value))
    if isinstance(value, (list, tuple)):
        return ("sequence", len(value), [observe(library, v, gradient) for v in value])
    if value is None or isinstance(value, (bool, int, float, str)):
        return ("plain", type(value).__name__, value)
    return ("object", type(value).__name__)


def _arrays_differ(a: np.ndarray, b: np.ndarray, singular: bool = False) -> str | None:
    """Where two arrays (autograd_lab's, PyTorch's) differ; ``singular``: where PyTorch's value is NaN or
    infinite, nothing is compared (see ``SECOND_ORDER``)."""
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
        bad = ~np.isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
        if singular:
            bad &= np.isfinite(b)
        return f"values differ at {np.argwhere(bad)[:4].tolist()}" if bad.any() else None
    return None if np.array_equal(a, b) else "values differ"


def difference(al_view, torch_view, singular: bool = False) -> str | None:
    """What differs between two observations (autograd_lab's first), or None."""
    if al_view[0] != torch_view[0]:
        return f"{al_view[0]} vs {torch_view[0]}"
    if al_view[0] == "tensor":
        for label, i in (("dtype", 1), ("shape", 2), ("requires_grad", 3), ("is_leaf", 4)):
            if al_view[i] != torch_view[i]:
                return f"{label} {al_view[i]} vs {torch_view[i]}"
        return _arrays_differ(al_view[5], torch_view[5], singular)
    if al_view[0] == "sequence":
        if al_view[1] != torch_view[1]:
            return f"length {al_view[1]} vs {torch_view[1]}"
        for i, (a, b) in enumerate(zip(al_view[2], torch_view[2])):
            found = difference(a, b, singular)
            if found:
                return f"[{i}]: {found}"
        return None
    if al_view[0] == "plain" and isinstance(al_view[2], float) and isinstance(torch_view[2], float):
        a, b = al_view[2], torch_view[2]
        same = (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=RTOL, abs_tol=ATOL)
        return None if same else f"{a!r} vs {b!r}"
    return None if al_view == torch_view else f"{al_view[1:]} vs {torch_view[1:]}"


def _show(view) -> str:
    if view[0] == "tensor":
        return f"tensor({view[5].tolist()!r}, dtype={view[1]}, requires_grad={view[3]}, is_leaf={view[4]})"
    if view[0] == "sequence":
        return "(" + ", ".join(_show(v) for v in view[2]) + ")"
    return repr(view[-1])


GRADIENTS = ("gs", "ggs")  # the names the endings bind to what autograd.grad returns
# Second derivatives ("ggs", the gradient of "gsum") are compared only where PyTorch's is finite, and only if
# what they differentiate (gsum: the loss plus the squares of the first derivatives) is finite. Otherwise a
# first derivative is NaN or infinite somewhere (a pole or a kink: 1/x at 0, norm at 0, x ** 1.5 below 0), and
# a second derivative multiplies it by a zero, or adds two infinite gradients: 0 * inf, NaN * 0, the order of
# (a + b) * c against a * c + b * c. Their outcome depends on how each formula is written (PyTorch masks some
# of them), not on the function. Where both are defined, autograd_lab's must be PyTorch's finite value.
SECOND_ORDER, DIFFERENTIATED = ("ggs",), "gsum"


def _differentiated_is_finite(torch_space: dict) -> bool:
    value = torch_space.get(DIFFERENTIATED)
    if not hasattr(value, "detach"):  # (not a tensor: nothing was differentiated)
        return True
    return bool(np.isfinite(_array(value)).all())


def _compare(names, spaces, libraries, second_order: bool = False) -> str | None:
    """The first of ``names`` whose values differ. ``second_order``: the program took a gradient of a gradient,
    so every ``.grad`` has second derivatives added into it and is compared as ``SECOND_ORDER`` values are."""
    for name in names:
        singular = name in SECOND_ORDER or (second_order and name.endswith(".grad"))
        if singular and not _differentiated_is_finite(spaces[1]):
            continue
        gradient = name in GRADIENTS or name.endswith(".grad")
        views = [observe(lib, space.get(name), gradient) for lib, space in zip(libraries, spaces)]
        found = difference(*views, singular=singular)
        if found:
            return f"{name}: {found}\n    autograd_lab: {_show(views[0])}\n    PyTorch:      {_show(views[1])}"
    return None


def _final_state(space: dict, library) -> dict:
    """Every tensor the program holds, and the gradient of each leaf and of each tensor retaining its own."""
    state = {}
    for name, value in space.items():
        if name.startswith("__") or name in ("M", "nan", "inf") or not library.is_tensor(value):
            continue
        state[name] = value
        if observe(library, value)[4] is True or value.retains_grad:
            state[f"{name}.grad"] = value.grad
    return state


def nudged(library, factor: float) -> types.ModuleType:
    """``library`` whose ``tensor()`` scales the floats it makes by a rounding-sized factor: ``factor`` and ``factor``
    squared, in turn (one factor for all would leave every quotient of two tensors as it was: ``x // y`` at an
    integer, where one ulp of a sum decides, would go unnoticed)."""
    made_count = itertools.count()

    def tensor(data, *args, requires_grad: bool = False, **kwargs):
        made = library.tensor(data, *args, **kwargs)
        if made.is_floating_point():
            with library.no_grad():
                made = made * factor ** (1 + next(made_count) % 2)
        return made.requires_grad_() if requires_grad else made
    module = types.ModuleType(f"nudged_{library.__name__}")
    module.__getattr__ = lambda name: getattr(library, name)
    module.tensor = tensor
    return module


def ill_conditioned(program: Program, outcome: Outcome, torch) -> bool:
    """Whether PyTorch itself disagrees with PyTorch on the same line when the program's values move by a
    rounding-sized amount: a value on a discontinuity (9.0 % 0.25 near a multiple, a tie of max, relu's
    kink at an exact zero) that one library's rounding puts on one side and the other's on the other side.
    There the two libraries may differ as much as either differs from itself, so nothing is concluded."""
    for factor in NUDGES:
        again = run(program, nudged(torch, factor), torch, check_conditioning=False)
        if again.kind == SILENT and again.line == outcome.line:
            return True
    return False


def run(program: Program, al, torch, check_conditioning: bool = True) -> Outcome:
    """Run ``program`` in both libraries and classify the outcome."""
    outcome = _run(program, al, torch)
    if outcome.kind == SILENT and check_conditioning and ill_conditioned(program, outcome, torch):
        return Outcome(ILL, outcome.line, outcome.detail)
    return outcome


def _run(program: Program, al, torch) -> Outcome:
    libraries = (al, torch)
    spaces = [_namespace(al), _namespace(torch)]
    for i, line in enumerate(program.lines):
        al_error, torch_error = (_execute(space, line.text) for space in spaces)
        if al_error is not None and torch_error is not None:
            differ = not isinstance(al_error, type(torch_error))
            return Outcome(BOTH_RAISE, i, f"{type(al_error).__name__}: {al_error}",
                           error_types=(type(al_error).__name__, type(torch_error).__name__) if differ else None)
        if al_error is not None or torch_error is not None:
            known = explained(program.lines[:i], line.text, al_error, torch_error)
            kind = KNOWN if known else (AL_RAISES if al_error is not None else TORCH_RAISES)
            error = al_error if al_error is not None else torch_error
            return Outcome(kind, i, f"{type(error).__name__}: {error}", known)
        found = _compare(line.observe, spaces, libraries)
        if found:
            return Outcome(SILENT, i, found)
    states = [_final_state(space, lib) for space, lib in zip(spaces, libraries)]
    if set(states[0]) != set(states[1]):
        return Outcome(SILENT, None, f"the programs end with different tensors: {sorted(set(states[0]) ^ set(states[1]))}")
    found = _compare(sorted(states[0]), states, libraries, second_order=DIFFERENTIATED in spaces[1])
    return Outcome(SILENT, None, "at the end, " + found) if found else Outcome(MATCH)


def program_of(text: str, seed: int = -1) -> Program:
    """A program written by hand, one statement a line (``name = ...`` lines have ``name`` compared)."""
    lines = []
    for statement in text.strip().splitlines():
        bound = re.match(r"(?:with M\.no_grad\(\): )?(\w+) = ", statement)
        lines.append(Line(statement, (bound.group(1),) if bound else ()))
    return Program(seed, lines)


def same_failure(a: Outcome, b: Outcome) -> bool:
    return a.kind == b.kind and (a.kind != SILENT or (a.line is None) == (b.line is None))


def _smaller_lines(text: str):
    """Simpler versions of a line: the loss without one of its terms, a list of leaves without one of them."""
    if text.startswith("loss = "):
        terms = text[len("loss = "):].split(" + ")
        for i in range(len(terms) if len(terms) > 1 else 0):
            yield "loss = " + " + ".join(terms[:i] + terms[i + 1:])
    for match in re.finditer(r"\[((?:x\d+, )+x\d+)\]", text):
        names = match.group(1).split(", ")
        for i in range(len(names)):
            yield text[:match.start()] + "[" + ", ".join(names[:i] + names[i + 1:]) + "]" + text[match.end():]


def _candidates(program: Program):
    for i in reversed(range(len(program.lines))):
        yield program.without(i)
        for text in _smaller_lines(program.lines[i].text):
            lines = list(program.lines)
            lines[i] = Line(text, lines[i].observe)
            yield Program(program.seed, lines)


def shrink(program: Program, outcome: Outcome, al, torch, budget: int = 600) -> Program:
    """Drop lines, loss terms and leaves as long as the program still fails the same way (greedy)."""
    changed = True
    while changed and budget > 0:
        changed = False
        for candidate in _candidates(program):
            if budget <= 0:
                break
            budget -= 1
            if same_failure(run(candidate, al, torch), outcome):
                program, changed = candidate, True
                break
    return program


def report(program: Program, outcome: Outcome, al, torch) -> str:
    """The failure, the seed to rerun it and a shrunk program to paste, for either library."""
    small = shrink(program, outcome, al, torch)
    small_outcome = run(small, al, torch)
    where = "at the end" if small_outcome.line is None else f"at line {small_outcome.line + 1}: " \
        f"{small.lines[small_outcome.line].text}"
    return (f"{outcome.kind} (seed {program.seed}; rerun: AUTOGRAD_LAB_FUZZ_SEED={program.seed} "
            f"AUTOGRAD_LAB_FUZZ_PROGRAMS=1)\nshrunk program, {where}\n  {small_outcome.detail}\n"
            "--- repro (as is for autograd_lab; change the import to `import torch as M` for PyTorch) ---\n"
            + small.source("autograd_lab"))
