"""Swappings of a double sample (kernelclf.bounds.symmetrisation; LKC App. C.1-C.2)."""
import itertools
from math import comb

import numpy as np
import pytest

from kernelclf.bounds import symmetrisation as sy


def test_swap_permutation_is_an_involution_exchanging_pairs():
    s = np.array([1, 0, 1])
    p = sy.swap_permutation(s)
    assert list(p) == [3, 1, 5, 0, 4, 2]
    assert np.array_equal(p[p], np.arange(6))
    with pytest.raises(ValueError):
        sy.swap_permutation([0, 2])


def test_worst_threshold_against_a_fine_grid():
    rng = np.random.default_rng(0)
    for m in (5, 20, 60):
        z = rng.uniform(size=m)
        t, P, v = sy.worst_threshold(z)
        assert P == t and abs(P - v) > 0
        grid = np.linspace(0, 1, 200_001)
        ecdf = np.searchsorted(np.sort(z), grid, side="right") / m
        # the grid approaches the supremum from both sides of the sample points
        assert abs(P - v) == pytest.approx(np.max(np.abs(grid - ecdf)), abs=1e-4)
    with pytest.raises(ValueError):
        sy.worst_threshold([0.5, 1.5])


def _closed_form_zero_error(e, eps):
    m = len(e) // 2
    first, second = e[:m], e[m:]
    if np.any(first & second):
        return 0  # a pair erring on both sides always leaves an error in the first half
    k = int(first.sum() + second.sum())   # errors, each pinned to the second half
    return 2 ** (m - k) if k > m * eps / 2 else 0


def test_zero_error_swappings_against_the_closed_form_and_the_bound():
    m = 5
    for bits in itertools.product((0, 1), repeat=2 * m):
        e = np.array(bits, dtype=bool)
        for eps in (2 / m, 4 / m):
            count, bound = sy.zero_error_swappings(e, eps)
            assert count == _closed_form_zero_error(e, eps)
            assert count <= bound == 2.0 ** (m - m * eps / 2)
    # LKC Fig. C.2: m = 5, eps = 2/m, errors on z7 and z9: z6, z8, z10 may be swapped
    e = np.zeros(10, dtype=bool)
    e[[6, 8]] = True
    assert sy.zero_error_swappings(e, 2 / 5) == (8, 16.0)


def test_subsample_swappings_against_the_formula_and_lemma_c7():
    rng = np.random.default_rng(1)
    for m, d in ((7, 6), (6, 4), (8, 6)):
        for _ in range(20):
            idx = rng.choice(2 * m, size=d, replace=False)
            r = len(set(idx % m)) and d - len(set(idx % m))   # pairs i, i + m inside
            S = sy.subsample_swappings(idx, m)
            assert S.sum() == 2 ** m
            for j in range(d + 1):
                assert S[j] == sy.subsample_swapping_count(d, j, m, r)
                if j < d / 3:
                    assert S[j] <= sy.lemma_c7_bound(d, j, m)
    # LKC Fig. C.3 (m = 7, d = 6), no pairs: exactly C(6, j) 2^(7-6)
    S = sy.subsample_swappings([0, 1, 2, 10, 11, 12], 7)
    assert list(S) == [comb(6, j) * 2 for j in range(7)]
    with pytest.raises(ValueError):
        sy.subsample_swappings([0, 0, 3], 4)
