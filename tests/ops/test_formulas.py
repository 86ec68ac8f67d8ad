"""Each derivative formula is written once and runs in two worlds (``ops/formulas.py``): on arrays in a
``backward()`` without ``create_graph``, on tensors under ``create_graph``. For every op, both worlds give
the same gradients (values, dtypes, shapes) on random inputs, broadcasting included, in float64 and
float32. Every op class must have a case (in ``formula_cases.py`` or ``formula_cases_more.py``), so a new op cannot
skip the check.
"""

import formula_cases
import formula_cases_more
import numpy as np
import pytest
from formula_cases import BINARY, FIXED, MATRIX, SHAPED, _all_ops
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import autograd_lab as al

CASES = {**formula_cases.CASES, **formula_cases_more.CASES}


def test_every_op_has_a_case():
    assert not set(formula_cases.CASES) & set(formula_cases_more.CASES)  # (one case list per op: none hidden)
    ops = {cls.__name__ for cls in _all_ops() if not cls.__name__.startswith("_") and cls.forward is not None}
    assert ops == set(CASES)


def _values(rng, shape, domain, dtype):
    size = rng.uniform(0.5, 2.0, size=shape)
    if domain == "any":
        size = size * rng.choice([-1.0, 1.0], size=shape)
    return al.tensor(np.asarray(size), dtype=dtype, requires_grad=True)


def _inputs(kind, domain, dtype, rng, data):
    if kind == BINARY:
        shapes = data.draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, max_side=3), label="shapes")
        return [_values(rng, s, domain, dtype) for s in shapes.input_shapes]
    if kind == MATRIX:
        n, k, m = data.draw(st.tuples(*[st.integers(2, 4)] * 3), label="n, k, m")
        return [_values(rng, (n, k), domain, dtype), _values(rng, (m, k), domain, dtype)]
    if kind == FIXED:
        return [dtype]
    shape = data.draw(array_shapes(min_dims=1 if kind == SHAPED else 0, max_dims=3, min_side=2, max_side=3), label="shape")
    return [_values(rng, shape, domain, dtype)]


def _both_worlds(name, out, rng, dtype):
    node = (out[0] if isinstance(out, tuple) else out).grad_fn
    assert type(node).__name__ == name
    grads = tuple(al.tensor(rng.standard_normal(shape), dtype=al.backend.from_np(dtype)) if dtype.kind == "f" else None
                  for shape, dtype in node._output_meta)  # (no gradient arrives for an integer output: pivots)
    with al.no_grad():  # as backward() runs it: the formulas on the arrays
        on_arrays = node._backward(grads)
    with al.enable_grad():  # as create_graph runs it: the formulas on the tensors, recorded
        on_tensors = node._backward(tuple(g if g is None else g.detach().requires_grad_() for g in grads))
    rtol = 1e-10 if dtype is al.float64 else 1e-4
    assert len(on_arrays) == len(on_tensors)
    for a, t in zip(on_arrays, on_tensors):
        assert (a is None) == (t is None), name
        if a is None:
            continue
        assert a.dtype is t.dtype and a.shape == t.shape, (name, a.dtype, t.dtype, a.shape, t.shape)
        np.testing.assert_allclose(a.numpy(), t.detach().numpy(), rtol=rtol, atol=rtol, err_msg=name)


@pytest.mark.parametrize("dtype", [al.float64, al.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_arrays_and_tensors_give_the_same_gradients(name, dtype, data):
    kind, domain, builders = CASES[name]
    seed = data.draw(st.integers(0, 2 ** 16), label="seed")
    rng = np.random.default_rng(seed)
    al.manual_seed(seed)
    for build in builders:
        _both_worlds(name, build(*_inputs(kind, domain, dtype, rng, data)), rng, dtype)
