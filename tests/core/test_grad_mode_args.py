"""``set_grad_enabled`` takes a bool only, as PyTorch's (a number or a string was taken for its truth value, and
``set_grad_enabled("no")`` switched gradients on)."""

from __future__ import annotations

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("value", [0, 1, "no", None, 1.0])
def test_set_grad_enabled_refuses_what_is_not_a_bool_as_torch(value):
    with pytest.raises(TypeError) as theirs:
        torch.set_grad_enabled(value)
    with pytest.raises(TypeError) as ours:
        al.set_grad_enabled(value)
    assert str(ours.value).split(" [autograd_lab]")[0] == str(theirs.value)
    assert al.is_grad_enabled()


@pytest.mark.parametrize("value", [True, False])
def test_set_grad_enabled_takes_a_bool(value):
    with al.set_grad_enabled(value):
        assert al.is_grad_enabled() is value
    assert al.is_grad_enabled()
