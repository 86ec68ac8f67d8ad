"""``set_grad_enabled`` and ``set_detect_anomaly`` take bools only, as PyTorch's (a number or a string was taken for
its truth value: ``set_grad_enabled("no")`` switched gradients on); ``al.is_anomaly_enabled`` and
``al.is_anomaly_check_nan_enabled`` exist at the top level, as in torch."""

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


@pytest.mark.parametrize("args", [("yes",), (1,), (True, "no"), (False, 0)])
def test_set_detect_anomaly_refuses_what_is_not_a_bool_as_torch(args):
    with pytest.raises(TypeError) as theirs:
        torch.autograd.set_detect_anomaly(*args)
    with pytest.raises(TypeError) as ours:
        al.autograd.set_detect_anomaly(*args)
    assert str(ours.value).split(" [autograd_lab]")[0] == str(theirs.value)
    assert not al.is_anomaly_enabled()


def test_anomaly_state_is_read_at_the_top_level_as_torch():
    for m in (al, torch):
        with m.autograd.set_detect_anomaly(True, check_nan=False):
            assert (m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()) == (True, False)
        assert (m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()) == (False, True)
