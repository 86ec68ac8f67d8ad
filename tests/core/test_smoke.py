"""The first example of the autograd notes runs as written, with ``al`` in place of ``torch``."""

import autograd_lab as al


def test_first_backward_gives_the_derivative():
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    assert repr(y) == "tensor(14., grad_fn=<SumBackward0>)"
