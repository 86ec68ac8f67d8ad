"""``autograd_lab.data``: datasets, ``DataLoader`` and ``default_collate`` against ``torch.utils.data``,
reproducible shuffling and splits, and the toy data generators."""

from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import autograd_lab as al
from autograd_lab.data import (
    ConcatDataset,
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    make_blobs,
    make_moons,
    make_spirals,
    random_split,
    train_test_split,
)

torch = pytest.importorskip("torch")
tdata = torch.utils.data


def as_plain(value):
    """Nested batches as plain Python/NumPy values (tensors become (dtype name, array)) for comparison."""
    if isinstance(value, al.Tensor):
        return ("tensor", value.dtype.name, value.numpy().tolist())
    if isinstance(value, torch.Tensor):
        return ("tensor", str(value.dtype).replace("torch.", ""), value.numpy().tolist())
    if isinstance(value, dict):
        return (type(value).__name__, {k: as_plain(v) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [as_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [as_plain(v) for v in value])
    return value


def seeded(seed: int) -> al.Generator:
    return al.Generator().manual_seed(seed)


# -- datasets ---------------------------------------------------------------------------------------
def test_tensor_dataset_rows_and_length():
    x, y = al.arange(12.0).reshape(6, 2), al.tensor([0, 1, 0, 1, 1, 0])
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    row, label = ds[4]
    assert row.tolist() == [8.0, 9.0] and label.item() == 1
    assert [t.shape for t in ds[1:3]] == [(2, 2), (2,)]


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match=r"Size mismatch between tensors.*\(3,\), \(2,\)"):
        TensorDataset(al.ones(3), al.ones(2))
    with pytest.raises(AssertionError, match="Size mismatch"):  # PyTorch raises the same
        tdata.TensorDataset(torch.ones(3), torch.ones(2))


def test_dataset_base_class_and_concatenation():
    class Squares(Dataset):
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return i * i

    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]
    both = Squares(3) + Squares(2)
    assert isinstance(both, ConcatDataset) and len(both) == 5
    assert [both[i] for i in range(5)] == [0, 1, 4, 0, 1] and both[-1] == 1
    assert Subset(Squares(5), [4, 0])[0] == 16


# -- default_collate against PyTorch ------------------------------------------------------------------
Pair = namedtuple("Pair", "x label")


def batch_of(lib, kind):
    """The same list of samples, built from ``lib``'s tensors."""
    t = (lambda v, **kw: al.tensor(v, **kw)) if lib is al else (lambda v, **kw: torch.tensor(v, **kw))
    f64 = al.float64 if lib is al else torch.float64
    return {
        "tensors": [t([1.0, 2.0]), t([3.0, 4.0]), t([5.0, 6.0])],
        "0d_tensors": [t(1), t(2)],
        "float64_tensors": [t([[1.5]], dtype=f64), t([[2.5]], dtype=f64)],
        "numpy_arrays": [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        "numpy_scalars": [np.float32(1.5), np.float32(2.5)],
        "ints": [1, 2, 3],
        "floats": [1.5, 2.0],
        "int_then_float": [1, 2.5],
        "bools": [True, False],
        "strings": ["a", "b"],
        "tuples": [(t([1.0]), 0), (t([2.0]), 1)],
        "lists": [[1, 2.0, "x"], [3, 4.0, "y"]],
        "dicts": [{"x": t([1.0, 0.0]), "y": 1, "name": "a"}, {"x": t([0.0, 1.0]), "y": 0, "name": "b"}],
        "ordered_dicts": [OrderedDict(b=1, a=2.0), OrderedDict(b=3, a=4.0)],
        "namedtuples": [Pair(t([1.0]), 1), Pair(t([2.0]), 0)],
        "nested": [{"pair": (t([1.0]), [1, 2])}, {"pair": (t([2.0]), [3, 4])}],
    }[kind]


KINDS = ["tensors", "0d_tensors", "float64_tensors", "numpy_arrays", "numpy_scalars", "ints", "floats", "int_then_float",
         "bools", "strings", "tuples", "lists", "dicts", "ordered_dicts", "namedtuples", "nested"]


@pytest.mark.parametrize("kind", KINDS)
def test_default_collate_matches_torch(kind):
    assert as_plain(default_collate(batch_of(al, kind))) == as_plain(tdata.default_collate(batch_of(torch, kind)))


@pytest.mark.parametrize("batch", [
    [[1, 2], [3]],
    [object(), object()],
    [np.array(["a"]), np.array(["b"])],
], ids=["ragged_lists", "objects", "string_arrays"])
def test_default_collate_errors_match_torch(batch):
    with pytest.raises(Exception) as expected:
        tdata.default_collate(batch)
    with pytest.raises(type(expected.value)) as got:
        default_collate(batch)
    assert str(got.value).split(" [autograd_lab]")[0] == str(expected.value)


def test_default_collate_of_tensors_of_different_shapes():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        default_collate([al.ones(2), al.ones(3)])


# -- DataLoader against PyTorch ----------------------------------------------------------------------
def both_datasets(n=10):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    y = np.arange(n) % 3
    return TensorDataset(al.tensor(x), al.tensor(y)), tdata.TensorDataset(torch.tensor(x), torch.tensor(y))


@pytest.mark.parametrize("kwargs", [
    {}, {"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"batch_size": 5}, {"batch_size": 20},
    {"batch_size": None}, {"batch_size": 3, "sampler": [9, 0, 4, 4, 2]}, {"batch_sampler": [[1, 2], [7], [0, 9, 8]]},
    {"batch_size": 4, "collate_fn": lambda samples: len(samples)},
], ids=repr)
def test_batches_in_order_match_torch(kwargs):
    ours_ds, torch_ds = both_datasets()
    ours, theirs = DataLoader(ours_ds, **kwargs), tdata.DataLoader(torch_ds, **kwargs)
    assert len(ours) == len(theirs)
    assert [as_plain(b) for b in ours] == [as_plain(b) for b in theirs]


def test_loader_over_a_plain_sequence_matches_torch():
    assert [as_plain(b) for b in DataLoader(range(7), batch_size=3)] == \
        [as_plain(b) for b in tdata.DataLoader(range(7), batch_size=3)]
    assert list(DataLoader(range(3), batch_size=None)) == [0, 1, 2]


@pytest.mark.parametrize("kwargs,message", [
    ({"shuffle": True, "sampler": [0, 1]}, "sampler option is mutually exclusive with shuffle"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "batch_sampler option is mutually exclusive"),
    ({"batch_size": 0}, "batch_size should be a positive integer value"),
    ({"batch_size": None, "drop_last": True}, "mutually exclusive with drop_last"),
])
def test_loader_argument_errors_match_torch(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tdata.DataLoader(range(4), **kwargs)
    with pytest.raises(ValueError, match=message):
        DataLoader(range(4), **kwargs)


def epoch_order(loader) -> list[int]:
    return [int(v) for _, idx in loader for v in idx.tolist()]


def test_shuffle_visits_every_sample_once_per_epoch_in_a_new_order():
    x = al.arange(20.0)
    loader = DataLoader(TensorDataset(x, al.arange(20)), batch_size=6, shuffle=True, generator=seeded(0))
    first, second = epoch_order(loader), epoch_order(loader)
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != second and first != list(range(20))
    assert [len(b[0]) for b in loader] == [6, 6, 6, 2]


def test_shuffle_is_reproducible_with_a_generator_or_the_global_seed():
    ds = TensorDataset(al.arange(30))
    order = lambda loader: [v for (b,) in loader for v in b.tolist()]  # noqa: E731
    a = order(DataLoader(ds, batch_size=7, shuffle=True, generator=seeded(5)))
    al.manual_seed(123)  # the generator's stream does not depend on the global seed
    b = order(DataLoader(ds, batch_size=7, shuffle=True, generator=seeded(5)))
    assert a == b
    al.manual_seed(7)
    c = order(DataLoader(ds, batch_size=7, shuffle=True))
    al.manual_seed(7)
    d = order(DataLoader(ds, batch_size=7, shuffle=True))
    assert c == d and sorted(c) == list(range(30))


def test_drop_last_with_shuffle():
    loader = DataLoader(TensorDataset(al.arange(10)), batch_size=4, shuffle=True, drop_last=True, generator=seeded(1))
    sizes = [len(b) for (b,) in loader]
    assert sizes == [4, 4] and len(loader) == 2


# -- splits -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (10, [0.33, 0.33, 0.34]), (11, [0.5, 0.5]), (7, [0.2, 0.8]),
                                       (5, [5, 0])])
def test_random_split_lengths_match_torch_and_partition_the_data(n, lengths):
    ours = random_split(range(n), lengths, generator=seeded(0))
    theirs = tdata.random_split(range(n), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    rows = [s[i] for s in ours for i in range(len(s))]
    assert sorted(rows) == list(range(n))


def test_random_split_is_reproducible_and_random():
    a = random_split(range(50), [25, 25], generator=seeded(3))
    b = random_split(range(50), [25, 25], generator=seeded(3))
    c = random_split(range(50), [25, 25], generator=seeded(4))
    assert list(a[0]) == list(b[0]) and list(a[0]) != list(c[0]) and list(a[0]) != list(range(25))


def test_random_split_errors():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(10), [0.5, 0.6])


def test_train_test_split_partitions_rows_together():
    x, y = al.arange(40.0).reshape(20, 2), al.arange(20)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, generator=seeded(0))
    assert x_train.shape == (15, 2) and x_test.shape == (5, 2)
    assert (x_train[:, 0] / 2).long().tolist() == y_train.tolist()  # rows stay paired
    assert sorted(y_train.tolist() + y_test.tolist()) == list(range(20))
    assert len(train_test_split(x, test_size=4, generator=seeded(0))[1]) == 4


def test_train_test_split_stratified_keeps_class_shares():
    labels = al.tensor([0] * 40 + [1] * 20 + [2] * 20)
    _, test_labels = train_test_split(labels, test_size=0.25, stratify=labels, generator=seeded(1))
    counts = np.bincount(test_labels.numpy(), minlength=3)
    assert counts.tolist() == [10, 5, 5]


def test_train_test_split_errors():
    with pytest.raises(ValueError, match="same first dimension"):
        train_test_split(al.ones(3), al.ones(4))
    with pytest.raises(ValueError, match="test_size=1.5"):
        train_test_split(al.ones(3), test_size=1.5)


# -- generators -----------------------------------------------------------------------------------------
def test_moons_shape_labels_and_geometry():
    x, y = make_moons(101, generator=seeded(0))
    assert x.shape == (101, 2) and x.dtype is al.float32 and y.dtype is al.int64
    assert np.bincount(y.numpy()).tolist() == [50, 51]
    points, labels = x.numpy().astype(np.float64), y.numpy()
    upper, lower = points[labels == 0], points[labels == 1]
    np.testing.assert_allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0, rtol=1e-6)
    np.testing.assert_allclose(np.hypot(lower[:, 0] - 1, lower[:, 1] - 0.5), 1.0, rtol=1e-6)
    assert (upper[:, 1] >= -1e-6).all() and (lower[:, 1] <= 0.5 + 1e-6).all()


def test_moons_noise_and_reproducibility():
    a, la = make_moons(200, noise=0.1, generator=seeded(1))
    b, lb = make_moons(200, noise=0.1, generator=seeded(1))
    c, _ = make_moons(200, noise=0.1, generator=seeded(2))
    assert a.equal(b) and la.equal(lb) and not a.equal(c)
    clean, clean_labels = make_moons(200, generator=seeded(1), shuffle=False)
    noisy, noisy_labels = make_moons(200, noise=0.1, generator=seeded(1), shuffle=False)
    assert clean_labels.equal(noisy_labels)
    assert 0.07 < float((noisy - clean).std()) < 0.13
    assert make_moons(10, dtype=al.float64, generator=seeded(0))[0].dtype is al.float64


def test_spirals_arms():
    x, y = make_spirals(301, classes=3, generator=seeded(0), shuffle=False)
    assert x.shape == (301, 2) and np.bincount(y.numpy()).tolist() == [101, 100, 100]
    radius = np.hypot(*x.numpy().T.astype(np.float64))
    assert radius.min() == 0 and radius.max() == pytest.approx(1.0)
    first_arm = x.numpy()[y.numpy() == 0]
    angles = np.unwrap(np.arctan2(first_arm[1:, 0], first_arm[1:, 1]))
    assert np.all(np.diff(angles) > 0)  # each arm winds one way
    noisy, noisy_labels = make_spirals(300, classes=4, noise=0.2, generator=seeded(0))
    assert np.bincount(noisy_labels.numpy()).tolist() == [75] * 4
    assert not noisy.equal(make_spirals(300, 4, generator=seeded(0))[0])


def test_blobs_centres_and_spread():
    centres = [[0.0, 0.0], [10.0, 10.0], [-10.0, 5.0]]
    x, y = make_blobs(3000, centers=centres, cluster_std=[0.5, 1.0, 2.0], generator=seeded(0))
    points, labels = x.numpy().astype(np.float64), y.numpy()
    for k, centre in enumerate(centres):
        cluster = points[labels == k]
        assert len(cluster) == 1000
        np.testing.assert_allclose(cluster.mean(0), centre, atol=0.2)
        assert cluster.std(0) == pytest.approx([0.5, 1.0, 2.0][k], rel=0.1)
    x, y = make_blobs(10, centers=4, n_features=3, generator=seeded(0))
    assert x.shape == (10, 3) and np.bincount(y.numpy()).tolist() == [3, 3, 2, 2]
    assert (np.abs(x.numpy()) < 10 + 6).all()


def test_generator_argument_errors():
    with pytest.raises(ValueError, match="make_moons: n_samples"):
        make_moons(-1)
    with pytest.raises(ValueError, match="classes must be at least 1"):
        make_spirals(10, classes=0)
    with pytest.raises(ValueError, match="centers must be"):
        make_blobs(10, centers=[1.0, 2.0])


def test_a_small_network_learns_the_moons_through_the_loader():
    """The pieces together: generated data, a DataLoader, autograd and plain SGD reach 97% accuracy."""
    x, y = make_moons(300, noise=0.1, generator=seeded(0))
    loader = DataLoader(TensorDataset(x, y), batch_size=30, shuffle=True, generator=seeded(1))
    gen = seeded(2)
    w1 = (al.randn(2, 16, generator=gen) * 0.7).requires_grad_()
    b1 = al.zeros(16, requires_grad=True)
    w2 = (al.randn(16, 2, generator=gen) * 0.3).requires_grad_()
    b2 = al.zeros(2, requires_grad=True)
    params = [w1, b1, w2, b2]

    def logits(inputs):
        return (inputs @ w1 + b1).tanh() @ w2 + b2

    for _ in range(60):
        for xb, yb in loader:
            scores = logits(xb)
            loss = (scores.logsumexp(1) - scores.gather(1, yb.unsqueeze(1)).squeeze(1)).mean()
            grads = al.autograd.grad(loss, params)
            with al.no_grad():
                params = [(p - 0.5 * g).requires_grad_() for p, g in zip(params, grads)]
            w1, b1, w2, b2 = params
    accuracy = (logits(x).argmax(1) == y).float().mean().item()
    assert accuracy > 0.97


def test_importable_under_torchs_path():
    import autograd_lab.utils.data as mirror
    assert mirror.DataLoader is DataLoader and al.utils.data is mirror and al.data.TensorDataset is TensorDataset


# -- the shipped digits ----------------------------------------------------------------------------
def test_digits_ship_with_the_package_and_have_the_documented_shape():
    images, labels = al.data.load_digits()
    assert images.shape == (1797, 1, 8, 8) and images.dtype is al.float32
    assert labels.shape == (1797,) and labels.dtype is al.int64
    assert float(images.min()) == 0.0 and float(images.max()) == 1.0
    counts = np.bincount(labels.numpy(), minlength=10)
    assert counts.tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    raw, _ = al.data.load_digits(normalize=False, flatten=True)
    assert raw.shape == (1797, 64) and set(np.unique(raw.numpy())) <= set(range(17))


def test_a_linear_classifier_learns_the_digits():
    images, labels = al.data.load_digits(flatten=True)
    x_train, x_test, y_train, y_test = al.data.train_test_split(
        images, labels, test_size=0.25, stratify=labels, generator=al.Generator().manual_seed(0))
    w = al.zeros(64, 10, requires_grad=True)
    b = al.zeros(10, requires_grad=True)
    for _ in range(150):
        logits = x_train @ w + b
        log_probs = logits - logits.exp().sum(1, keepdim=True).log()
        loss = -log_probs[al.arange(len(y_train)), y_train].mean()
        w.grad = b.grad = None
        loss.backward()
        with al.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
    accuracy = float(((x_test @ w + b).argmax(1) == y_test).float().mean())
    assert accuracy > 0.9, accuracy
