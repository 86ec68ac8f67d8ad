"""How an op is defined (``ops/_op.py``): a derivative receives its saved values by name, whatever order
``saves`` lists them in; a name ``saves`` does not have, a missing derivative or a misplaced tensor parameter
is an error when the class is defined, naming the op."""

from __future__ import annotations

import pytest

import autograd_lab as al
from autograd_lab.ops._op import Op


def test_saved_values_are_bound_by_name_not_position():
    """The trap issue 20 reported: ``saves`` in one order and a derivative taking them in another gave
    ``a.grad == 2`` where 5 was right, silently. Binding by name makes the order irrelevant."""
    class _ProductBackward0(Op):
        saves = ("self", "other")

        def forward(xp, self, other):
            return self * other

        def d_self(grad, other, self):  # (the names in the other order)
            return grad * other

        def d_other(grad, self):
            return grad * self

    a, b = al.tensor(2.0, requires_grad=True), al.tensor(5.0, requires_grad=True)
    _ProductBackward0.apply(a, b).backward()
    assert a.grad.item() == 5.0 and b.grad.item() == 2.0


def test_a_derivative_taking_an_unsaved_name_is_refused_when_defined():
    with pytest.raises(TypeError, match=r"_BadBackward0.d_self takes 'other', which _BadBackward0.saves does not name"):
        class _BadBackward0(Op):  # noqa: F841
            saves = ("self",)

            def forward(xp, self, other):
                return self * other

            def d_self(grad, other):
                return grad * other

            def d_other(grad, self):
                return grad * self


def test_a_missing_derivative_is_refused_when_defined():
    with pytest.raises(TypeError, match=r"_HalfBackward0 has no derivative for its input\(s\) \['other'\]"):
        class _HalfBackward0(Op):  # noqa: F841
            def forward(xp, self, other):
                return self + other

            def d_self(grad):
                return grad


def test_saves_must_name_something_forward_has():
    with pytest.raises(TypeError, match=r"_OddBackward0.saves names 'nope'"):
        class _OddBackward0(Op):  # noqa: F841
            saves = ("nope",)

            def forward(xp, self):
                return self

            def d_self(grad):
                return grad


def test_tensor_params_must_be_keyword_parameters():
    with pytest.raises(TypeError, match=r"tensor_params names \['nope'\]"):
        class _MaskBackward0(Op):  # noqa: F841
            tensor_params = ("nope",)

            def forward(xp, self, *, mask):
                return self

            def d_self(grad):
                return grad


def test_an_input_no_running_derivative_reads_is_not_saved():
    """As PyTorch: ``a * 3`` keeps no ``a`` (only the number's gradient would read it), so changing ``a`` in
    place afterwards does not break this backward."""
    a = al.randn(3, requires_grad=True)
    y = a * al.tensor(3.0)
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other is not None
    with al.no_grad():
        a.add_(1)
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]


def test_an_op_with_several_outputs_saves_them_by_their_names():
    """``outputs`` names what ``forward`` returns; ``saves`` and the formulas use those names, in any order."""
    class _SplitSignBackward0(Op):
        outputs = ("magnitude", "sign")
        saves = ("sign", "magnitude")

        def forward(xp, self):
            return xp.abs(self), xp.sign(self)

        def d_self(grad, magnitude, sign):
            g_magnitude, _ = grad
            return g_magnitude * sign + 0 * magnitude

    x = al.tensor([-2.0, 3.0], requires_grad=True)
    magnitude, sign = _SplitSignBackward0.apply(x)
    node = magnitude.grad_fn
    assert al.equal(node._saved_sign, sign) and al.equal(node._saved_magnitude, magnitude)
    assert node._raw_saved_sign.output_nr == 1 and node._raw_saved_sign.is_output
    magnitude.sum().backward()
    assert x.grad.tolist() == [-1.0, 1.0]


def test_an_output_changed_in_place_before_backward_is_a_version_error():
    x = al.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    eigenvalues, eigenvectors = al.linalg.eigh(x)
    eigenvectors.mul_(2)
    with pytest.raises(RuntimeError, match=r"output 1 of LinalgEigh, is at version 1; expected version 0"):
        eigenvalues.sum().backward()


def test_saves_naming_an_output_the_op_does_not_have_is_refused():
    with pytest.raises(TypeError, match=r"_PairBackward0.saves names 'third', which is neither an input, an output "
                                        r"\(outputs: \('first', 'second'\)\)"):
        class _PairBackward0(Op):  # noqa: F841
            outputs = ("first", "second")
            saves = ("third",)

            def forward(xp, self):
                return self, self

            def d_self(grad):
                return grad[0]
