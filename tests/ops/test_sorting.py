"""Sorting and selection ops (``ops/sorting.py``, ``ops/searching.py``) against PyTorch: values, indices, dtypes,
the node each value-selecting op records and the gradient it sends back to the selected elements; on a few
shapes, dims (negative ones too), 0-dim and empty inputs; gradcheck in float64; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.autograd import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

NAN = float("nan")
RNG = np.random.default_rng(7)
TIES = RNG.integers(0, 4, (3, 6)).astype(float)  # many equal values: which index wins is tested where documented
DISTINCT = RNG.permutation(24).reshape(2, 3, 4) * 0.5 - 5.0
WITH_NAN = np.where(RNG.random((4, 5)) < 0.25, NAN, RNG.permutation(20).reshape(4, 5) * 1.0)
ONE_NAN = np.where(np.eye(4, 5, dtype=bool), NAN, DISTINCT.reshape(4, 6)[:, :5])  # (which of tied NaNs topk or
# kthvalue takes, PyTorch does not say: one per slice)
SHAPES = {"ties": TIES, "distinct": DISTINCT, "nan": WITH_NAN, "0-dim": np.array(2.5), "empty": np.zeros((0, 3)),
          "1-d": np.array([2.0, NAN, -1.0, 2.0, 7.0, NAN]), "one nan": ONE_NAN}


def _both(data, call):
    """``call(module, leaf)`` on a float64 leaf of ``data`` in autograd_lab and in torch; each result's values,
    indices, node name and the leaf's gradient for a random upstream gradient (None where nothing is recorded)."""
    results = []
    for m in (al, torch):
        x = m.tensor(data, dtype=m.float64, requires_grad=True)
        out = call(m, x)
        values, indices = (out.values, out.indices) if isinstance(out, tuple) else (out, None)
        node = values.grad_fn.name() if values.grad_fn is not None else None
        if node is not None:
            seed = np.random.default_rng(0).standard_normal(tuple(values.shape))
            values.backward(m.tensor(seed, dtype=m.float64))
        grad = None if x.grad is None else np.asarray(x.grad.tolist())
        results.append((tuple(values.shape), np.asarray(values.tolist()), None if indices is None else
                        (str(indices.dtype).split(".")[-1], indices.tolist()), node, grad))
    return results


def _agree(data, call):
    (shape, values, indices, node, grad), (t_shape, t_values, t_indices, t_node, t_grad) = _both(data, call)
    assert (shape, indices, node) == (t_shape, t_indices, t_node)
    np.testing.assert_array_equal(values, t_values)  # (NaN in the same places)
    if t_grad is None:
        assert grad is None
    else:
        np.testing.assert_allclose(grad, t_grad, rtol=1e-12)


# -- sort, argsort, msort ---------------------------------------------------------------------------
@pytest.mark.parametrize("data", SHAPES, ids=str)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_puts_ties_in_order_and_nan_last_as_torch(data, dim, descending):
    _agree(SHAPES[data], lambda m, x: m.sort(x, stable=True, dim=dim, descending=descending))
    if data in ("distinct", "one nan", "0-dim", "empty"):  # (ties: PyTorch's unstable sort may order them otherwise)
        _agree(SHAPES[data], lambda m, x: x.sort(dim=dim, descending=descending))  # SortBackward0
    _agree(SHAPES[data], lambda m, x: m.argsort(x, stable=True, dim=dim, descending=descending))


def test_msort_and_argsort_default_to_the_first_and_last_dim():
    _agree(DISTINCT, lambda m, x: m.msort(x))
    _agree(DISTINCT, lambda m, x: x.msort())
    _agree(DISTINCT, lambda m, x: x.argsort())
    assert al.argsort(al.tensor([3, 1, 2])).dtype is al.int64


def test_sort_of_ints_and_bools_records_nothing():
    for data in ([3, 1, 2, 1], [True, False, True]):
        ours, theirs = al.tensor(data).sort(), torch.tensor(data).sort(stable=True)
        assert ours.values.tolist() == theirs.values.tolist() and ours.indices.tolist() == theirs.indices.tolist()
        assert ours.values.grad_fn is None


# -- topk, kthvalue ----------------------------------------------------------------------------------
@pytest.mark.parametrize("data", ["distinct", "one nan", "0-dim", "empty"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch(data, dim, largest):
    k = min(2, SHAPES[data].shape[dim] if SHAPES[data].ndim else 1)
    _agree(SHAPES[data], lambda m, x: m.topk(x, k, dim, largest))
    _agree(SHAPES[data], lambda m, x: x.topk(0, dim=dim, largest=largest))


@pytest.mark.parametrize("data", ["distinct", "one nan", "0-dim"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_matches_torch(data, dim, keepdim):
    if dim == 1 and not SHAPES[data].ndim:
        return
    for k in (1, SHAPES[data].shape[dim] if SHAPES[data].ndim else 1):
        _agree(SHAPES[data], lambda m, x, k=k: m.kthvalue(x, k, dim, keepdim))


# -- median, nanmedian, mode --------------------------------------------------------------------------
@pytest.mark.parametrize("data", SHAPES, ids=str)
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_all_elements_is_the_lower_middle_and_ties_share_the_gradient(data, name):
    _agree(SHAPES[data], lambda m, x: getattr(x, name)())


@pytest.mark.parametrize("data", ["distinct", "nan", "1-d", "0-dim"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_over_a_dim_gives_values_and_indices_as_torch(data, dim, keepdim, name):
    _agree(SHAPES[data], lambda m, x: getattr(m, name)(x, dim, keepdim))


def test_nanmedian_of_an_all_nan_slice_and_median_of_an_empty_slice_set():
    _agree(np.array([[NAN, NAN], [1.0, NAN]]), lambda m, x: x.nanmedian(1))
    _agree(np.zeros((0, 3)), lambda m, x: x.median(1))


@pytest.mark.parametrize("data", ["ties", "distinct", "0-dim"])
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mode_takes_the_smallest_most_frequent_value_at_its_last_index_as_torch(data, dim, keepdim):
    _agree(SHAPES[data], lambda m, x: m.mode(x, dim, keepdim))  # (short slices: PyTorch's CPU kernel gives the last)


def test_each_nan_counts_once_in_mode():
    """(PyTorch's CPU kernel gives 1.0 here: its sort's comparisons break on NaN, so it has no rule to match.)"""
    nan_twice = al.tensor([2.0, NAN, NAN, 2.0, 1.0]).mode()
    assert (nan_twice.values.item(), nan_twice.indices.item()) == (2.0, 3)
    assert al.tensor([NAN, NAN]).mode().values.isnan().item()


# -- gradients by finite differences -----------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda x: x.sort(0, descending=True).values, lambda x: al.sort(x, -1, stable=True).values,
    lambda x: x.topk(2, 1).values, lambda x: x.kthvalue(2, 0, keepdim=True).values, lambda x: x.median(),
    lambda x: x.median(-1).values, lambda x: x.nanmedian(0).values, lambda x: x.nanmedian(),
    lambda x: x.mode(1).values, lambda x: x.msort(),
], ids=["sort", "sort-stable", "topk", "kthvalue", "median", "median-dim", "nanmedian-dim", "nanmedian", "mode",
        "msort"])
def test_gradcheck_float64(fn):
    x = al.tensor(DISTINCT[0], dtype=al.float64, requires_grad=True)
    assert gradcheck(fn, [x], check_forward_ad=True)


# -- no gradient: nonzero, argwhere, count_nonzero, searchsorted, bucketize, unique ---------------------
ZEROS = {"2-d": [[0.0, 1.5, 0.0], [-2.0, 0.0, NAN]], "0-dim": 3.0, "0-dim zero": 0.0, "empty": np.zeros((2, 0)),
         "bool": [True, False, True]}


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _same(o, t)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(ours.tolist()), np.asarray(theirs.tolist()))
    assert ours.grad_fn is None


@pytest.mark.parametrize("data", ZEROS, ids=str)
def test_nonzero_argwhere_and_count_nonzero_match_torch(data):
    x, t = al.tensor(ZEROS[data]), torch.tensor(ZEROS[data])
    _same(x.nonzero(), t.nonzero())
    _same(al.nonzero(x, as_tuple=True), torch.nonzero(t, as_tuple=True))
    _same(al.argwhere(x), torch.argwhere(t))
    _same(x.count_nonzero(), t.count_nonzero())
    for dim in ([0, -1, (0, -1)] if x.ndim == 2 else []):
        _same(al.count_nonzero(x, dim), torch.count_nonzero(t, dim))


def test_searchsorted_and_bucketize_match_torch():
    seq, rows = [1.0, 3.0, 3.0, 5.0], [[1, 3, 5], [2, 4, 6]]
    cases = [(seq, [[3.0, 6.0], [0.0, 3.5]]), (seq, 3.0), (rows, [[3, 0], [6, 2]]), ([], [1.0]), (seq, [])]
    for sequence, values in cases:
        for kwargs in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
            s, v = al.tensor(sequence), values if isinstance(values, float) else al.tensor(values)
            expected = torch.searchsorted(torch.tensor(sequence), values if isinstance(values, float)
                                          else torch.tensor(values), **kwargs)
            _same(al.searchsorted(s, v, **kwargs), expected)
    unsorted, order = [5.0, 1.0, 3.0], [1, 2, 0]
    _same(al.searchsorted(al.tensor(unsorted), al.tensor([2.0, 5.0]), sorter=al.tensor(order)),
          torch.searchsorted(torch.tensor(unsorted), torch.tensor([2.0, 5.0]), sorter=torch.tensor(order)))
    for right in (False, True):
        _same(al.bucketize(al.tensor([[1, 3], [5, 7]]), al.tensor([1, 3, 5]), right=right),
              torch.bucketize(torch.tensor([[1, 3], [5, 7]]), torch.tensor([1, 3, 5]), right=right))
    _same(al.bucketize(4, al.tensor([1, 3, 5]), out_int32=True), torch.bucketize(4, torch.tensor([1, 3, 5]), out_int32=True))


@pytest.mark.parametrize("data", [[3, 1, 3, 2], [[2.5, -1.0], [2.5, NAN]], 4, np.zeros(0), [True, False, True],
                                  [NAN, 1.0, NAN]],
                         ids=["1-d", "2-d", "0-dim", "empty", "bool", "nan"])
def test_unique_matches_torch(data):
    x, t = al.tensor(data), torch.tensor(data)
    _same(x.unique(), t.unique())
    _same(al.unique(x, return_inverse=True, return_counts=True), torch.unique(t, return_inverse=True, return_counts=True))
    _same(al.unique(x, sorted=False, return_counts=True), torch.unique(t, sorted=False, return_counts=True))


# -- errors ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda m: m.topk(m.tensor([1.0, 2.0]), 3), lambda m: m.topk(m.tensor([1.0, 2.0]), -1),
    lambda m: m.topk(m.tensor([True, False]), 1),
    lambda m: m.kthvalue(m.tensor([1.0, 2.0]), 0), lambda m: m.kthvalue(m.tensor([[1.0, 2.0]]), 3, 1),
    lambda m: m.kthvalue(m.zeros(0, 2), 1, 0), lambda m: m.median(m.zeros(2, 0), -1), lambda m: m.mode(m.zeros(0, 2), 0),
    lambda m: m.nanmedian(m.zeros(0, 2), 0), lambda m: m.sort(m.tensor([1.0]), 1), lambda m: m.median(m.tensor(1.0), 1),
    lambda m: m.searchsorted(m.tensor([[1, 2]]), m.tensor([1])),
    lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), side="x"),
    lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), side="left", right=True),
    lambda m: m.bucketize(m.tensor([1]), m.tensor([[1, 2]])),
    lambda m: m.count_nonzero(m.tensor([[0.0, 1.0]]), (0, 0)),
], ids=["topk-k", "topk-negative", "topk-bool", "kthvalue-0", "kthvalue-k", "kthvalue-empty", "median-empty",
        "mode-empty", "nanmedian-empty", "sort-dim", "median-0-dim-dim", "searchsorted-dims", "searchsorted-side",
        "searchsorted-opposites", "bucketize-2-d", "count_nonzero-repeated"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(al)
    phrase = str(theirs.value).split("\n")[0]
    assert phrase.split(" (")[0].rstrip(".") in str(ours.value), (str(ours.value), phrase)


def test_unique_over_a_dim_says_what_is_supported():
    with pytest.raises(NotImplementedError, match=r"unique\(dim=\.\.\.\) is not supported"):
        al.unique(al.tensor([[1, 2]]), dim=0)


@pytest.mark.parametrize("call", [lambda x: x.sort(1)[0], lambda x: x.topk(2)[0], lambda x: x.cummax(1)[0],
                                  lambda x: x.cummin(0)[0], lambda x: x.max(1)[0], lambda x: x.kthvalue(2, 1)[0]])
def test_the_nodes_save_what_torch_saves(call):
    """sort, topk, cummax and cummin keep no ``keepdim`` (their values keep the dim); cummax keeps the input."""
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((3, 4))
    nodes = [call(lib.tensor(data, requires_grad=True)).grad_fn for lib in (al, torch)]
    names = [sorted(n for n in dir(node) if n.startswith("_saved_")) for node in nodes]
    assert names[0] == names[1]
