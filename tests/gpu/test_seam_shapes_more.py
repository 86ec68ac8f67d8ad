"""The joining, splitting, view, scatter and predicate functions of ops/join_more.py, views_more.py,
scatter_more.py and predicates.py on a device that is not NumPy's (the fake CUDA backend of tests/fake_backend.py,
or a real GPU where CuPy sees one): values, nodes and gradients equal the CPU's, and everything stays on the
device. The cases are the tables of the CPU tests, so a function that calls NumPy directly on its data fails."""

from __future__ import annotations

import numpy as np
import pytest
from fake_backend import device  # noqa: F401  (the fixture)
from gpu.test_seam_ops import assert_same
from ops import test_join_split_more, test_select_scatter_more, test_views_more

import autograd_lab as al

TABLES = {**{f"join {k}": v for k, v in test_join_split_more.ONE.items()},
          **{f"split {k}": v for k, v in test_join_split_more.SEVERAL.items()},
          **{f"view {k}": v for k, v in test_views_more.OPS.items()},
          **{f"select {k}": v for k, v in test_select_scatter_more.OPS.items()}}
_INDEX = [[0, 2, 2, 1], [0, 0, 2, 1], [1, 2, 0, 1], [2, 2, 0, 0]]
REDUCTIONS = {
    f"{name} {reduce}": (fn, reduce) for reduce in ("sum", "prod", "mean", "amax", "amin")
    for name, fn in {
        "scatter_reduce": lambda m, x, s, r: x.scatter_reduce(0, m.tensor(_INDEX), s, r, include_self=r != "sum"),
        "index_reduce": lambda m, x, s, r: x.index_reduce(0, m.tensor([2, 0, 2, 1]), s, r if r != "sum" else "prod"),
    }.items()
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_on_device_equal_cpu(name, device):  # noqa: F811
    shape, fn = TABLES[name]
    assert_same(fn, [np.random.default_rng(2).standard_normal(shape)], device)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_on_device_equal_cpu(name, device):  # noqa: F811
    fn, reduce = REDUCTIONS[name]
    rng = np.random.default_rng(3)
    assert_same(lambda m, x, s: fn(m, x, s, reduce), [rng.standard_normal((3, 4)), rng.standard_normal((4, 4))], device)


def test_indices_and_predicates_on_device(device):  # noqa: F811
    with al.device(device):
        x = al.tensor([1.0, 1.0, 2.0, float("nan")])
        values, inverse, counts = al.unique_consecutive(x, return_inverse=True, return_counts=True)
        made = [al.tril_indices(3, 4, device=device), al.combinations(al.arange(4.0)), values, inverse, counts,
                al.isin(x, al.tensor([2.0])), al.isclose(x, x + 1e-9), *al.unravel_index(al.tensor([5, 7]), (3, 4)),
                al.block_diag(al.ones(2, 2), al.ones(1)), *al.meshgrid(al.arange(2), al.arange(3), indexing="xy")]
    assert all(t.device == device for t in made)
    assert values.cpu().tolist()[:2] == [1.0, 2.0] and counts.cpu().tolist() == [2, 1, 1]
    assert al.allclose(x, x + 1e-9, equal_nan=True)
