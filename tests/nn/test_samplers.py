"""``autograd_lab.data``'s samplers (the order a ``DataLoader`` loads samples in) against ``torch.utils.data``: what
the loader builds, lengths, which indices come out, the errors; and the stacked and chained datasets."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as al

torch = pytest.importorskip("torch")


def both(fn):
    """``fn(data)`` with autograd_lab's data module, then torch's."""
    return fn(al.utils.data), fn(torch.utils.data)


def plain(batches):
    return [b.tolist() if hasattr(b, "tolist") else b for b in batches]


def test_the_loader_builds_torchs_samplers():
    def built(d):
        loaders = [d.DataLoader(range(10), batch_size=4), d.DataLoader(range(10), batch_size=4, shuffle=True),
                   d.DataLoader(range(10), batch_size=None),
                   d.DataLoader(range(10), batch_sampler=d.BatchSampler(range(10), 4, True))]
        return [(type(dl.sampler).__name__, type(dl.batch_sampler).__name__, dl.batch_size, dl.drop_last, len(dl))
                for dl in loaders]
    ours, theirs = both(built)
    assert ours == theirs


@pytest.mark.parametrize("make", [
    lambda d: d.SequentialSampler(range(7)),
    lambda d: d.BatchSampler(d.SequentialSampler(range(7)), 3, False),
    lambda d: d.BatchSampler([5, 6, 7, 8, 9], 2, True),
    lambda d: d.DataLoader(range(10, 20), batch_size=2, sampler=[3, 1, 2]),
    lambda d: d.DataLoader(range(10, 20), batch_sampler=[[0, 1], [5]]),
], ids=["sequential", "batches", "batches_drop_last", "loader_sampler_list", "loader_batch_sampler_list"])
def test_deterministic_samplers_give_torchs_indices(make):
    ours, theirs = both(lambda d: plain(make(d)))
    assert ours == theirs


def test_batch_sampler_lengths_as_torch():
    ours, theirs = both(lambda d: [len(d.BatchSampler(range(n), 3, drop)) for n in range(8) for drop in (True, False)])
    assert ours == theirs


@pytest.mark.parametrize("replacement, num_samples", [(False, None), (False, 3), (False, 10), (True, 9)])
def test_random_sampler_draws_what_torchs_does(replacement, num_samples):
    al.manual_seed(0)
    sampler = al.data.RandomSampler(range(4), replacement=replacement, num_samples=num_samples)
    indices = list(sampler)
    expected = len(list(torch.utils.data.RandomSampler(range(4), replacement=replacement, num_samples=num_samples)))
    assert len(indices) == len(sampler) == expected
    assert set(indices) <= set(range(4))
    if not replacement:  # whole permutations, then part of one more
        for start in range(0, len(indices), 4):
            chunk = indices[start:start + 4]
            assert len(set(chunk)) == len(chunk)


def test_random_samplers_repeat_with_a_seeded_generator_and_differ_between_epochs():
    sampler = al.data.RandomSampler(range(50), generator=al.Generator().manual_seed(3))
    first, second = list(sampler), list(sampler)
    assert sorted(first) == list(range(50)) and first != second
    again = al.data.RandomSampler(range(50), generator=al.Generator().manual_seed(3))
    assert list(again) == first
    subset = al.data.SubsetRandomSampler([7, 3, 9], generator=al.Generator().manual_seed(0))
    assert sorted(subset) == [3, 7, 9] and len(subset) == 3


def test_shuffling_loader_draws_the_order_it_drew_before_samplers():
    """``shuffle=True`` goes through a RandomSampler now: the order of a seeded run is the one the course stores."""
    al.manual_seed(0)
    order = sum(plain(al.data.DataLoader(range(8), batch_size=3, shuffle=True)), [])
    al.manual_seed(0)
    assert order == al.default_generator._rng.permutation(8).tolist()


def test_weighted_sampler_follows_its_weights():
    sampler = al.data.WeightedRandomSampler([1.0, 0.0, 3.0], 4000, generator=al.Generator().manual_seed(0))
    counts = np.bincount(list(sampler), minlength=3)
    assert counts[1] == 0 and abs(counts[2] / counts[0] - 3) < 0.4
    without = list(al.data.WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False))
    assert sorted(without) == [0, 1, 2]
    ours, theirs = both(lambda d: (lambda s: (str(s.weights.dtype)[-7:], s.num_samples, s.replacement, len(s)))(
        d.WeightedRandomSampler([1, 2], 3)))
    assert ours == theirs


BAD = {
    "random_num_samples": lambda d: d.RandomSampler(range(5), num_samples=0),
    "random_empty": lambda d: d.RandomSampler([]),
    "random_replacement": lambda d: d.RandomSampler(range(5), replacement=1),
    "weighted_num_samples": lambda d: d.WeightedRandomSampler([1.0], 0),
    "weighted_replacement": lambda d: d.WeightedRandomSampler([1.0], 1, replacement=0),
    "weighted_2d": lambda d: d.WeightedRandomSampler([[1.0]], 1),
    "weighted_too_many": lambda d: list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
    "weighted_negative": lambda d: list(d.WeightedRandomSampler([-1.0, 2.0], 3)),
    "batch_size": lambda d: d.BatchSampler(range(4), 0, False),
    "batch_drop_last": lambda d: d.BatchSampler(range(4), 2, 1),
    "loader_batch_size": lambda d: d.DataLoader(range(4), batch_size=0),
    "loader_sampler_and_shuffle": lambda d: d.DataLoader(range(4), shuffle=True, sampler=d.SequentialSampler(range(4))),
    "loader_batch_sampler_and_size": lambda d: d.DataLoader(range(4), batch_size=2,
                                                            batch_sampler=d.BatchSampler(range(4), 2, False)),
    "stack_sizes": lambda d: d.StackDataset([1], [1, 2]),
    "stack_both_kinds": lambda d: d.StackDataset([1], b=[1]),
    "stack_nothing": lambda d: d.StackDataset(),
    "chain_of_a_list": lambda d: list(d.ChainDataset([[1, 2]])),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_settings_raise_torchs_error(name):
    with pytest.raises(Exception) as theirs:
        BAD[name](torch.utils.data)
    with pytest.raises(type(theirs.value)) as ours:
        BAD[name](al.utils.data)
    assert str(theirs.value).splitlines()[0] in str(ours.value)


@pytest.mark.parametrize("attribute", ["batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                       "persistent_workers", "num_workers", "collate_fn"])
def test_settings_fixed_after_the_loader_is_made_as_in_torch(attribute):
    def assign(d):
        loader = d.DataLoader(range(5), batch_size=2)
        try:
            setattr(loader, attribute, getattr(loader, attribute))
        except ValueError as error:
            return str(error).split(" [autograd_lab]")[0]
        return "assigned"
    ours, theirs = both(assign)
    assert ours == theirs


def test_iterable_dataset_lengths_and_batches_as_torch():
    def run(d):
        class Stream(d.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 5
        loaders = [d.DataLoader(Stream(), batch_size=2), d.DataLoader(Stream(), batch_size=2, drop_last=True),
                   d.DataLoader(Stream(), batch_size=None)]
        return [(len(dl), plain(dl)) for dl in loaders], (list(d.ChainDataset([Stream(), Stream()])),
                                                          len(d.ChainDataset([Stream(), Stream()])))
    ours, theirs = both(run)
    assert ours == theirs


def test_stack_dataset_as_torch():
    ours, theirs = both(lambda d: [(len(s), s[1]) for s in (d.StackDataset([1, 2], [3, 4]),
                                                            d.StackDataset(image=[1, 2], label=[3, 4]))])
    assert ours == theirs
