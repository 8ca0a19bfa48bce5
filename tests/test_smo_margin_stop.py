"""The margin bounds' stopping test run in compiled code (kernelclf.margin.smo.compiled's
``_pairs_margin``) takes the decisions of the Python callback it replaces: the same steps,
the same bounds, bit for bit."""
import numpy as np
import pytest

from kernelclf.datasets import make_moons
from kernelclf.kernels import RBF
from kernelclf.kernels.gram import Gram
from kernelclf.margin import separability
from kernelclf.margin.smo import HAVE_NUMBA
from kernelclf.margin.smo import compiled as cc

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="the compiled engine needs numba")


def _bounds(monkeypatch, compiled_test, K, y, **kw):
    """hard_margin_bounds with the compiled test (counting the Python callbacks it leaves
    to Python) or with the test in Python after every chunk (``margin_test`` dropped)."""
    calls = {"python": 0, "margin_test": 0}
    original = cc.run_pairwise

    def run(*args):
        args = list(args)
        if args[-1] is not None:
            calls["margin_test"] += 1
        if not compiled_test:
            args[-1] = None
        on_every = args[-2]

        def counted(*a):
            calls["python"] += 1
            return on_every(*a)
        args[-2] = counted
        return original(*args)

    with monkeypatch.context() as mp:
        mp.setattr(cc, "run_pairwise", run)
        res = separability.hard_margin_bounds(K, y, **kw)
    return res, calls


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("fit_bias", [False, True])
@pytest.mark.parametrize("threshold", [None, 0.0, 0.02, 0.2])
def test_compiled_stop_gives_the_python_callbacks_bounds(monkeypatch, seed, fit_bias,
                                                         threshold):
    X, y01 = make_moons(150, noise=0.2, flip=0.0, random_state=seed)
    y = np.where(y01 > 0, 1.0, -1.0)
    K = Gram(RBF(0.5), X, precompute=True)
    kw = dict(fit_bias=fit_bias, threshold=threshold)
    a, ca = _bounds(monkeypatch, True, K, y, **kw)
    b, cb = _bounds(monkeypatch, False, K, y, **kw)
    assert ca["margin_test"] >= 1 and cb["margin_test"] >= 1
    assert cb["python"] >= 1                 # the Python test ran after each chunk ...
    assert ca["python"] < cb["python"]       # ... and the compiled one in its place
    assert a.iterations == b.iterations
    np.testing.assert_array_equal(a.coef, b.coef)
    assert (a.lower, a.upper, a.bias, a.converged) == (b.lower, b.upper, b.bias,
                                                       b.converged)


@pytest.mark.parametrize("stop", [True, False])
def test_margin_test_decides_only_far_from_the_edge(stop):
    """Undecided (-1) where a relative 1e-9 in u'g could change the answer."""
    rng = np.random.default_rng(0)
    m = 50
    alpha = rng.uniform(0.1, 1.0, m)
    alpha /= alpha.sum()
    g = rng.uniform(1.0, 2.0, m)
    F = -g                                    # g = -s F with s = 1
    s, grp = np.ones(m), np.zeros(m, dtype=np.int64)
    wn = np.sqrt(alpha @ g)
    low = g.min() / wn
    # a threshold far below the lower bound (stop), or between the bounds (go on)
    assert 0 < low < wn
    thr = 0.5 * low if stop else 0.5 * (low + wn)
    assert cc._margin_test(F, alpha, s, grp, False, thr, 1e-12) == (1 if stop else 0)
    # the threshold exactly at the lower bound: undecided (Python decides)
    assert cc._margin_test(F, alpha, s, grp, False, low, 1e-12) == -1


def test_margin_test_leaves_cancelling_sums_to_python():
    """``u'g`` summed with cancellation (terms of both signs, far larger than the sum):
    the two sums may differ by more than the band, so Python decides."""
    m = 50
    alpha = np.full(m, 1.0 / m)
    g = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    g[0] += 1e-6
    s, grp = np.ones(m), np.zeros(m, dtype=np.int64)
    assert alpha @ g > 0
    assert cc._margin_test(-g, alpha, s, grp, False, 0.5, 1e-4) == -1
    g[1::2] = 1.0                             # no cancellation: decided
    assert cc._margin_test(-g, alpha, s, grp, False, 0.5, 1e-4) in (0, 1)
