"""Each checker passes a right answer, and fails each wrong answer a learner is likely to give with a message that
names the mistake. Run them with the deliberately wrong answers of your own students' first attempts."""

from __future__ import annotations

import autograd_lab as al
import checks


def test_chain_rule():
    assert checks.chain_rule(lambda x: 2 * x * al.cos(x ** 2))
    assert "Replace the `...`" in str(checks.chain_rule(...))
    assert "multiplies it by (x²)' = 2x" in str(checks.chain_rule(lambda x: al.cos(x ** 2)))
    assert "at x=0.7" in str(checks.chain_rule(lambda x: x * al.cos(x ** 2)))
    assert "raised ZeroDivisionError" in str(checks.chain_rule(lambda x: 1 / 0))


def _descent(f, x0, lr, steps, *, sign=1.0):
    x = al.tensor(x0, requires_grad=True)
    for _ in range(steps):
        (grad,) = al.autograd.grad(f(x), x)
        with al.no_grad():
            x -= sign * lr * grad
    return x.item()


def test_descend():
    assert checks.descend(_descent)
    assert "Replace the `...`" in str(checks.descend(...))
    assert "wrong way" in str(checks.descend(lambda f, x0, lr, steps: _descent(f, x0, lr, steps, sign=-1.0)))
    assert "still 0.0" in str(checks.descend(lambda f, x0, lr, steps: x0))
