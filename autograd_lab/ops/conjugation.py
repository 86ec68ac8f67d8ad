"""The conjugation API on real tensors, and the predicates of realness and infinity.

autograd_lab has no complex dtypes, but code written for PyTorch calls ``x.conj()``, ``x.mH`` or
``x.resolve_conj()`` whatever the dtype, so these work on real tensors as PyTorch's do there: the conjugate of a
real tensor is the tensor itself (``conj`` and ``conj_physical`` return it, no node recorded), ``is_conj`` and
``is_neg`` are False, ``real`` is the tensor and ``imag`` an error, ``angle`` is pi where a value is negative
(``AngleBackward0``, zero gradient), and the conjugate transposes ``H``, ``mH`` and ``adjoint()`` are the
transposes, views recorded as ``TransposeBackward0``. ``conj_physical_`` changes nothing yet is an in-place op, as in PyTorch:
it bumps the version and records ``ConjPhysicalBackward1``.
"""

from __future__ import annotations

import warnings

from .. import backend
from ..tensor import Tensor
from . import formulas
from ._args import checked
from ._op import LINEAR, Op
from .inplace import _method


class ConjPhysicalBackward1(Op):
    """``conj_physical_()`` of a real tensor: the values unchanged (their conjugate), a new version"""

    def forward(xp, self):
        return self.copy()

    def d_self(grad):
        return grad  # the conjugate of a real gradient

    jvp = LINEAR


def _conj_physical_values(input: Tensor) -> Tensor:
    """The values ``conj_physical_`` writes: a real tensor's own, recorded as ``ConjPhysicalBackward1``."""
    return ConjPhysicalBackward1.apply(input)


class AngleBackward0(Op):
    """out = the argument of each value as a complex number: pi where negative, 0 elsewhere (NaN stays NaN)"""
    saves = ("self",)  # (PyTorch saves it; the derivative of a real tensor's angle is zero wherever it exists)

    def forward(xp, self):
        return xp.where(xp.isnan(self), self, xp.where(self < 0, xp.pi, 0.0)).astype(self.dtype)

    def d_self(grad, self):
        return formulas.zeros_like(grad)

    f_self = d_self


@checked
def angle(input: Tensor) -> Tensor:
    """The angle of each value as a complex number: ``pi`` for a negative one, 0 otherwise (``-0.0`` too), NaN for
    NaN; an integer or bool tensor gives the default floating dtype."""
    if not input.dtype.is_floating_point:
        input = input.to(backend.get_default_dtype())
    return AngleBackward0.apply(input)


@checked
def real(input: Tensor) -> Tensor:
    """The real part: for a real tensor, the tensor itself."""
    return input


@checked
def imag(input: Tensor) -> Tensor:
    """The imaginary part, which only a complex tensor has: PyTorch's error for a real one."""
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes. [autograd_lab] a real tensor has "
                       "no imaginary part (it would be zeros: al.zeros_like(x))")


@checked
def conj(input: Tensor) -> Tensor:
    """The complex conjugate: for a real tensor, the tensor itself (as ``torch.conj`` returns it)."""
    return input


@checked
def conj_physical(input: Tensor) -> Tensor:
    """The conjugate computed into new memory; for a real tensor PyTorch returns the tensor itself, as here."""
    return input


@checked
def resolve_conj(input: Tensor) -> Tensor:
    """The tensor with a pending conjugation carried out; a real tensor has none: the tensor itself."""
    return input


@checked
def resolve_neg(input: Tensor) -> Tensor:
    """The tensor with a pending negation carried out; a real tensor has none: the tensor itself."""
    return input


@checked
def is_conj(input: Tensor) -> bool:
    """Whether the conjugate bit is set: never, for a real tensor."""
    return False


@checked
def is_neg(input: Tensor) -> bool:
    """Whether the negative bit is set: never, for a real tensor."""
    return False


def _filled_bool(input: Tensor, value: bool) -> Tensor:
    xp = backend.namespace_of(input._data)
    return Tensor._make(xp.full(input.shape, value, dtype=backend.bool_.np_dtype))


@checked
def isreal(input: Tensor) -> Tensor:
    """Where the imaginary part is zero: everywhere in a real tensor (a bool tensor of ``True``)."""
    return _filled_bool(input, True)


@checked
def isposinf(input: Tensor) -> Tensor:
    """Where the value is ``+inf`` (a bool tensor; never, in an integer or bool tensor)."""
    if not input.dtype.is_floating_point:
        return _filled_bool(input, False)
    return Tensor._make(backend.namespace_of(input._data).isposinf(input._data))


@checked
def isneginf(input: Tensor) -> Tensor:
    """Where the value is ``-inf`` (a bool tensor; never, in an integer or bool tensor)."""
    if not input.dtype.is_floating_point:
        return _filled_bool(input, False)
    return Tensor._make(backend.namespace_of(input._data).isneginf(input._data))


def _H(self: Tensor) -> Tensor:
    """The conjugate transpose of a matrix: its transpose, for a real one (a view)."""
    if self.ndim == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return self
    if self.ndim != 2:
        more = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.{more} "
                           "[autograd_lab] H transposes one matrix; for the last two dims of a batch use x.mH")
    return self.transpose(0, 1)


def _matrix_dims(self: Tensor, what: str) -> bool:
    """Whether ``self`` has the two dims ``what`` swaps; a 0-dim tensor is its own conjugate transpose (with
    PyTorch's deprecation warning), a 1-D one PyTorch's error."""
    if self.ndim == 0:
        start = "Tensor.mH" if what == "mH" else what
        warnings.warn(f"{start} is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=3)
        return False
    if self.ndim < 2:
        raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                           f"tensor. [autograd_lab] {what} swaps the last two dims; a vector has one (unsqueeze it "
                           "into a row or a column first)")
    return True


def _mH(self: Tensor) -> Tensor:
    """The conjugate transpose of each matrix in a batch: the last two dims swapped, for a real tensor (a view)."""
    return self.transpose(-2, -1) if _matrix_dims(self, "mH") else self


@checked
def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of each matrix (``x.mH``): the last two dims swapped, for a real tensor (a view)."""
    return input.transpose(-2, -1) if _matrix_dims(input, "adjoint()") else input


def _bind() -> None:
    for fn in (conj, conj_physical, resolve_conj, resolve_neg, is_conj, is_neg, isreal, isposinf, isneginf, adjoint,
               angle):
        setattr(Tensor, fn.__name__, fn)
    Tensor.real = property(real, doc="The real part: for a real tensor, the tensor itself.")
    Tensor.imag = property(imag, doc="The imaginary part: an error for a real tensor, as in PyTorch.")
    Tensor.conj_physical_ = _method("conj_physical_", _conj_physical_values)
    Tensor.conj_physical_.__doc__ = ("In-place version of ``conj_physical``: the values of a real tensor stay, its "
                                     "version is bumped and ``ConjPhysicalBackward1`` recorded, as in PyTorch.")
    Tensor.H = property(_H, doc=_H.__doc__)
    Tensor.mH = property(_mH, doc=_mH.__doc__)


_bind()
