"""Mistakes with triangular solves and the LU functions raise PyTorch's error type and phrase (then autograd_lab's
advice): not a matrix, not square, integer or half precision, mismatched shapes, dtypes and batches, pivots of the
wrong kind, pivoting turned off, and a singular matrix where a solve would divide by zero."""

from __future__ import annotations

import warnings

import pytest

import autograd_lab as al

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of these tests: pip install -e '.[test,oracle]'")

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


def _factors(lib):
    return lib.linalg.lu_factor(lib.eye(3) + 0.1)


CASES = {
    "st_not_square": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 3), lib.ones(2, 2), upper=True),
    "st_A_vector": lambda lib: lib.linalg.solve_triangular(lib.ones(2), lib.ones(2, 2), upper=True),
    "st_B_vector": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(2), upper=True),
    "st_integer": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 2, dtype=lib.long), lib.ones(2, 2, dtype=lib.long),
                                                          upper=True),
    "st_half": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 2).half(), lib.ones(2, 2).half(), upper=True),
    "st_shapes": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(3, 2), upper=True),
    "st_shapes_right": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 2), lib.ones(2, 3), upper=True, left=False),
    "st_batches": lambda lib: lib.linalg.solve_triangular(lib.ones(2, 2, 2), lib.ones(3, 2, 2), upper=True),
    "lu_factor_singular": lambda lib: lib.linalg.lu_factor(lib.tensor(SINGULAR)),
    "lu_factor_ex_check": lambda lib: lib.linalg.lu_factor_ex(lib.stack([lib.eye(2), lib.tensor(SINGULAR)]),
                                                              check_errors=True),
    "lu_factor_wide_singular": lambda lib: lib.linalg.lu_factor(lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])),
    "lu_factor_no_pivot": lambda lib: lib.linalg.lu_factor(lib.eye(2), pivot=False),
    "lu_no_pivot": lambda lib: lib.linalg.lu(lib.eye(2), pivot=False),
    "lu_factor_vector": lambda lib: lib.linalg.lu_factor(lib.ones(2)),
    "lu_factor_ex_vector": lambda lib: lib.linalg.lu_factor_ex(lib.ones(2)),
    "lu_vector": lambda lib: lib.linalg.lu(lib.ones(2)),
    "lu_factor_integer": lambda lib: lib.linalg.lu_factor(lib.ones(2, 2, dtype=lib.long)),
    "lu_half": lambda lib: lib.linalg.lu(lib.ones(2, 2).half()),
    "lu_solve_shapes": lambda lib: lib.linalg.lu_solve(*_factors(lib), lib.ones(4, 2)),
    "lu_solve_shapes_right": lambda lib: lib.linalg.lu_solve(*_factors(lib), lib.ones(2, 4), left=False),
    "lu_solve_dtypes": lambda lib: lib.linalg.lu_solve(*_factors(lib), lib.ones(3, 2, dtype=lib.float64)),
    "lu_solve_pivots_dtype": lambda lib: lib.linalg.lu_solve(_factors(lib)[0], _factors(lib)[1].long(), lib.ones(3, 2)),
    "lu_solve_pivots_length": lambda lib: lib.linalg.lu_solve(_factors(lib)[0], _factors(lib)[1][:2], lib.ones(3, 2)),
    "lu_solve_pivots_batch": lambda lib: lib.linalg.lu_solve(_factors(lib)[0].expand(2, 3, 3),
                                                             _factors(lib)[1].expand(3, 3), lib.ones(3, 2)),
    "lu_solve_not_square": lambda lib: lib.linalg.lu_solve(lib.ones(3, 2), _factors(lib)[1], lib.ones(3, 2)),
    "lu_solve_B_vector": lambda lib: lib.linalg.lu_solve(*_factors(lib), lib.ones(3)),
    "lu_solve_integer": lambda lib: lib.linalg.lu_solve(_factors(lib)[0].long(), _factors(lib)[1],
                                                        lib.ones(3, 2, dtype=lib.long)),
    "lu_solve_batches": lambda lib: lib.linalg.lu_solve(_factors(lib)[0].expand(2, 3, 3), _factors(lib)[1].expand(2, 3),
                                                        lib.ones(4, 3, 2)),
    "lu_unpack_vector": lambda lib: lib.lu_unpack(lib.ones(3), _factors(lib)[1]),
    "lu_unpack_pivots_dtype": lambda lib: lib.lu_unpack(_factors(lib)[0], _factors(lib)[1].long()),
    # pivots out of 1..m: a 0 or a negative one read a row from the end, silently (and one past m, an IndexError)
    "lu_solve_pivot_zero": lambda lib: lib.linalg.lu_solve(_factors(lib)[0], _pivots(lib, [0, 2, 3]), lib.ones(3, 2)),
    "lu_solve_pivot_negative": lambda lib: lib.linalg.lu_solve(_factors(lib)[0], _pivots(lib, [-1, 2, 3]),
                                                               lib.ones(2, 3), left=False),
    "lu_solve_pivot_too_big": lambda lib: lib.linalg.lu_solve(_factors(lib)[0], _pivots(lib, [4, 2, 3]), lib.ones(3, 2)),
    "lu_unpack_pivot_zero": lambda lib: lib.lu_unpack(_factors(lib)[0], _pivots(lib, [0, 2, 3])),
    "lu_unpack_pivot_negative": lambda lib: lib.lu_unpack(_factors(lib)[0], _pivots(lib, [2, -2, 3])),
    "lu_unpack_pivot_too_big": lambda lib: lib.lu_unpack(lib.ones(3, 2), _pivots(lib, [3, 4])),
}


def _pivots(lib, values):
    return lib.tensor(values, dtype=lib.int32)


def test_lu_unpack_reads_no_pivots_with_unpack_pivots_false():
    """As torch: the pivots are only checked when P is made."""
    for lib in (al, torch):
        P, L, U = lib.lu_unpack(_factors(lib)[0], _pivots(lib, [0, 2, 3]), unpack_pivots=False)
        assert P.numel() == 0 and tuple(L.shape) == (3, 3)


def _error(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            fn(lib)
    return info.value


@pytest.mark.parametrize("name", sorted(CASES))
def test_errors_read_like_torch(name):
    ours, theirs = _error(CASES[name], al), _error(CASES[name], torch)
    assert type(ours).__name__ == type(theirs).__name__ or isinstance(ours, type(theirs)), (ours, theirs)
    phrase = str(theirs).split("\n")[0]
    assert str(ours).startswith(phrase), (str(ours), phrase)
