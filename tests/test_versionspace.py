"""Tests for kernelclf.bayespoint.versionspace and the teacher toy of kernelclf.datasets.toys (chapter 10).

Independent references: closed forms for version spaces whose shape is known (an arc
of the circle in 2-D, the positive orthant of the sphere in 3-D with Archimedes'
hat-box theorem), binomial error bars for Monte-Carlo fractions, the hard-margin SVM
(a QP solved by cvxopt) for the separability LP, the definition of the geometric
margin (LKC Def. 2.30) evaluated by hand, and the kernel billiard (a different
algorithm) for the centre of mass in a kernel feature space.
"""
import numpy as np
import pytest
from sklearn.datasets import make_blobs

from kernelclf.bayespoint import (
    billiard,
    find_version_space_point,
    kernel_billiard,
    sample_version_space,
    version_space_centre,
)
from kernelclf.datasets import make_teacher
from kernelclf.kernels import RBF, Gram, Linear, Polynomial
from kernelclf.margin import SupportVectorMachine
from kernelclf.margin.separability import (
    NotSeparableError,
    check_separability,
    geometric_margin,
    hard_margin_bounds,
    is_separable,
)
from kernelclf.optim import InfeasibleProblemError, solve_qp

# --------------------------------------------------------------------------- sampling


def test_samples_lie_in_version_space_on_the_sphere():
    X, y = make_teacher(10, 3, random_state=2)
    W = sample_version_space(X, y, n_draws=50_000, random_state=0)
    assert len(W) > 100
    np.testing.assert_allclose(np.linalg.norm(W, axis=1), 1.0, atol=1e-12)
    assert np.all(y[None, :] * (W @ X.T) > 0)
    # blocks are drawn from one stream: the result does not depend on the block size
    np.testing.assert_array_equal(W, sample_version_space(X, y, 50_000, random_state=0,
                                                          block=7_000))


def _arc(X, y):
    """Closed form in 2-D: version space is the arc (lo, hi) of angles theta with
    y_i <x_i, (cos theta, sin theta)> > 0, i.e. |theta - phi_i| < pi/2 (mod 2 pi)."""
    phi = np.arctan2(*(y[:, None] * X)[:, ::-1].T)
    ref = phi[0]
    d = np.angle(np.exp(1j * (phi - ref)))          # unwrap around the first normal
    return ref + d.max() - np.pi / 2, ref + d.min() + np.pi / 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_centre_and_size_of_a_2d_cone_match_the_closed_form(seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.3, 1.2, 6)                    # normals within a half-plane
    X = np.c_[np.cos(t), np.sin(t)] * rng.uniform(0.5, 2, (6, 1))
    y = np.where(rng.random(6) < 0.5, 1.0, -1.0)
    X = X * y[:, None]                              # y_i x_i are the normals above
    lo, hi = _arc(X, y)
    width = hi - lo
    assert 0 < width < np.pi
    n = 400_000
    W = sample_version_space(X, y, n_draws=n, random_state=seed)
    # acceptance = arc length / (2 pi), within 5 binomial standard deviations
    p = width / (2 * np.pi)
    assert abs(len(W) / n - p) < 5 * np.sqrt(p * (1 - p) / n)
    # centre of mass of an arc: direction of its mid-angle, length sin(h)/h (h = half width)
    mid = 0.5 * (lo + hi)
    c = version_space_centre(X, y, n_draws=n, random_state=seed)
    assert abs(np.angle(np.exp(1j * (np.arctan2(c[1], c[0]) - mid)))) < 0.01
    h = width / 2
    assert np.linalg.norm(W.mean(axis=0)) == pytest.approx(np.sin(h) / h, abs=0.01)


def test_orthant_centre_by_archimedes():
    """Positive orthant of S^2 (x_i = e_i, y = +1): it covers 1/8 of the sphere, and each
    coordinate of a uniform point on S^2 is uniform on [-1, 1] (Archimedes), so
    E[W | orthant] = (1/2, 1/2, 1/2)."""
    n = 400_000
    W = sample_version_space(np.eye(3), np.ones(3), n_draws=n, random_state=5)
    assert abs(len(W) / n - 1 / 8) < 5 * np.sqrt(1 / 8 * 7 / 8 / n)
    np.testing.assert_allclose(W.mean(axis=0), 0.5, atol=5 * np.sqrt(1 / 12 / len(W)))
    c = version_space_centre(np.eye(3), np.ones(3), n_draws=n, random_state=5)
    np.testing.assert_allclose(c, np.ones(3) / np.sqrt(3), atol=5e-3)


def test_centre_from_the_gram_matrix_equals_the_coordinate_centre():
    """Linear kernel: the dual centre, mapped back with X', is the coordinate centre."""
    X, y = make_teacher(10, 3, random_state=0)
    c = version_space_centre(X, y, n_draws=400_000, random_state=1)
    G = Linear()(X)
    alpha = version_space_centre(G, y, n_draws=400_000, random_state=2, precomputed=True)
    assert alpha @ G @ alpha == pytest.approx(1.0)
    assert np.all(y * (G @ alpha) > 0)
    w = X.T @ alpha
    assert np.linalg.norm(w) == pytest.approx(1.0)
    assert w @ c > 0.999


def test_kernel_centre_agrees_with_the_billiard():
    """Five points with an RBF kernel (a 5-dimensional span): rejection sampling in the
    span and the kernel billiard (LKC Algorithm 10) find the same centre of mass."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (5, 2))
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    G = RBF(1.0)(X)
    a_mc = version_space_centre(G, y, n_draws=400_000, random_state=0, precomputed=True)
    res = kernel_billiard(G, y, tol=1e-3, refresh=0.2, random_state=0)
    assert a_mc @ G @ res.alpha > 0.995


def test_too_small_a_version_space_is_reported():
    X, y = make_teacher(60, 5, random_state=0)
    with pytest.raises(ValueError, match="too small"):
        version_space_centre(X, y, n_draws=10_000, random_state=0)
    with pytest.raises(ValueError):
        sample_version_space(X, y, n_draws=0)
    with pytest.raises(ValueError, match="-1/\\+1"):
        sample_version_space(X, (y > 0).astype(float), n_draws=10)


# ------------------------------------------------------------------ separability


def _hard_margin_feasible(K, y, fit_bias):
    """The hard-margin SVM dual (LKC eq. 2.46) is bounded iff the sample is separable."""
    H = (y[:, None] * K) * y[None, :]
    kw = {"A1": y[None, :], "b1": [0.0]} if fit_bias else {}
    try:
        sol = solve_qp(H + 1e-12 * np.eye(len(y)), -np.ones(len(y)), l=0.0, tol=1e-9, **kw)
    except (InfeasibleProblemError, ValueError, ArithmeticError):
        return False
    return bool(np.all(np.isfinite(sol.x)) and sol.x.sum() < 1e6)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fit_bias", [False, True])
def test_lp_separability_agrees_with_the_hard_margin_svm(seed, fit_bias):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(16, 2)) + np.array([1.5, 0.0])
    y = np.where(X[:, 0] + 0.6 * rng.normal(size=16) > 1.5, 1.0, -1.0)
    if len(np.unique(y)) < 2:
        y[0] = -y[0]
    K = Linear()(X)
    sep = is_separable(K, y, fit_bias)
    assert sep == _hard_margin_feasible(K, y, fit_bias)
    svm = SupportVectorMachine(hard_margin=True, fit_bias=fit_bias)  # SMO
    if sep:
        svm.fit(X, y)
        assert np.all(y * svm.decision_function(X) > 0)
    else:
        with pytest.raises(ValueError, match="not separable"):
            svm.fit(X, y)


def test_separability_closed_cases():
    # XOR: not separable by a line (with or without bias), separable with a degree-2 kernel
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    assert not is_separable(Linear()(X), y, True)
    assert is_separable(Polynomial(2)(X), y, False)
    # three points on a line, labels + - +: a bias alone does not help
    x = np.array([[0.0], [1.0], [2.0]])
    assert not is_separable(Linear()(x), np.array([1.0, -1.0, 1.0]), True)
    assert is_separable(Linear()(x), np.array([-1.0, -1.0, 1.0]), True)
    assert not is_separable(Linear()(x), np.array([-1.0, -1.0, 1.0]), False)  # x=0 is on w.x=0
    # a Gram object is accepted as well
    assert is_separable(Gram(Polynomial(2), X), y, False)


def _hard_margin_qp(K, y, fit_bias):
    """Reference bounds on the largest margin gamma* from cvxopt's hard-margin SVM dual (LKC
    eq. 2.46): the margin of its solution (with the best threshold) from below; from above,
    by weak duality, ``gamma* <= 1 / sqrt(2 D(alpha))`` for any feasible dual point."""
    H = (y[:, None] * K) * y[None, :]
    kw = {"A1": y[None, :], "b1": [0.0]} if fit_bias else {}
    a = np.clip(solve_qp(H, -np.ones(len(y)), l=0.0, tol=1e-10, **kw).x, 0.0, None)
    if fit_bias:  # project back onto y'a = 0 (the clip may move it by round-off)
        pos, neg = a[y > 0].sum(), a[y < 0].sum()
        a[y > 0] *= 0.5 * (pos + neg) / pos
        a[y < 0] *= 0.5 * (pos + neg) / neg
    w2 = a @ H @ a
    f = K @ (a * y)
    if fit_bias:
        low = (f[y > 0].min() - f[y < 0].max()) / (2.0 * np.sqrt(w2))
    else:
        low = (y * f).min() / np.sqrt(w2)
    return low, 1.0 / np.sqrt(2.0 * (a.sum() - 0.5 * w2))


@pytest.mark.parametrize("fit_bias", [False, True])
@pytest.mark.parametrize("kernel", [Linear(), RBF(0.7)], ids=["linear", "rbf"])
def test_hard_margin_bounds_bracket_the_hard_margin_svm(kernel, fit_bias):
    """The nearest-point bounds contain gamma* (both cvxopt bounds), converge to it, give a
    separator whose margin is the lower bound, and the two engines take the same steps."""
    X, y = make_teacher(60, 3, random_state=5)
    y = y.astype(float)
    K = kernel(X + (0.3 if fit_bias else 0.0))  # an offset makes the threshold matter
    q_low, q_up = _hard_margin_qp(K, y, fit_bias)
    nb = hard_margin_bounds(K, y, fit_bias, tol=1e-8, max_iter=20_000)
    assert nb.converged
    assert nb.lower <= q_up * (1 + 1e-7) and q_low <= nb.upper * (1 + 1e-7)
    assert nb.upper - nb.lower <= 1e-7 * nb.upper
    f = K @ nb.coef + nb.bias
    w = np.sqrt(nb.coef @ K @ nb.coef)
    assert np.min(y * f) / w == pytest.approx(nb.lower, rel=1e-9)
    assert nb.radius == pytest.approx(np.sqrt(np.diag(K).max()))
    ref = hard_margin_bounds(Gram(G=K), y, fit_bias, tol=1e-8, max_iter=20_000, engine="numpy")
    # the same steps (only the order of a sum differs, which may shift the last stop test)
    assert abs(ref.iterations - nb.iterations) <= 2
    np.testing.assert_allclose(ref.coef, nb.coef, rtol=0, atol=1e-6)
    # with a threshold it stops as soon as the comparison is settled
    early = hard_margin_bounds(K, y, fit_bias, threshold=0.5 * nb.lower / nb.radius)
    assert early.lower >= 0.5 * nb.lower and early.iterations <= nb.iterations


def test_hard_margin_bounds_upper_bound_drops_to_zero_when_not_separable():
    """Contradictory duplicates put 0 in the convex hull of the y_i phi(x_i): the upper
    bound falls towards 0, no separator is ever claimed (LP reference: infeasible)."""
    X, y = make_teacher(30, 3, random_state=1)
    X, y = np.vstack([X, X[:1]]), np.r_[y, -y[:1]].astype(float)
    K = Linear()(X)
    assert not _hard_margin_feasible(K, y, False)
    nb = hard_margin_bounds(K, y, max_iter=5000)
    assert nb.lower <= 0 and nb.upper < 1e-3 * nb.radius
    # overlapping blobs (LP: infeasible): the run ends at the nearest point, 'converged'
    # although the bounds are not close (MarginBounds.converged), the upper bound a little
    # above 0, not exactly 0 (MarginBounds.upper)
    Xb, yb = make_blobs(80, centers=2, random_state=0)
    yb = 2.0 * yb - 1.0
    Kb = Linear()(Xb)
    for fit_bias in (False, True):
        assert not _hard_margin_feasible(Kb, yb, fit_bias)
        nb = hard_margin_bounds(Kb, yb, fit_bias)
        assert nb.converged and nb.lower < 0 < nb.upper < 1e-6 * nb.radius
        assert nb.upper - nb.lower > 1e-4 * nb.upper
    with pytest.raises(ValueError, match="threshold"):
        hard_margin_bounds(K, y, threshold=-1.0)
    with pytest.raises(ValueError, match="both classes"):
        hard_margin_bounds(K, np.ones(len(y)), fit_bias=True)


def test_check_separability_is_bounded_without_the_lp_for_large_samples(monkeypatch):
    """Issue 27: above LP_MAX_M no linear program runs (a stand-in linprog fails the test if
    called); a sample with contradictory duplicates is then undecided (is_separable raises
    SeparabilityUndecidedError), a separable one is certified by the nearest-point solver.
    Reference for both: the LP solved directly on the same matrices beforehand."""
    import scipy.optimize as so

    from kernelclf.margin.separability import (
        LP_MAX_M,
        SeparabilityUndecidedError,
        check_separability,
    )

    m = LP_MAX_M + 20
    X, y = make_teacher(m, 3, random_state=2)
    y = y.astype(float)
    Kn, yn = Linear()(np.vstack([X, X[:1]])), np.r_[y, -y[:1]]
    K = Linear()(X)
    assert not _lp_feasible(Kn, yn) and _lp_feasible(K, y)

    def no_lp(*args, **kwargs):
        raise AssertionError("a linear program was solved")

    monkeypatch.setattr(so, "linprog", no_lp)
    res = check_separability(Kn, yn)
    assert res.separable is None and res.method == "budget" and "too large" in res.message
    with pytest.raises(SeparabilityUndecidedError, match="could not decide"):
        is_separable(Kn, yn, fit_bias=False)
    assert issubclass(SeparabilityUndecidedError, NotSeparableError)
    ok = check_separability(K, y)
    assert ok.separable and ok.method == "nearest point"
    assert np.min(y * (K @ ok.coef)) > 0
    assert is_separable(Gram(G=K), y, fit_bias=False)


def test_the_lp_reaches_its_cap_on_noisy_moons_with_flipped_labels():
    """LP_MAX_M's comment and is_separable's Raises: on the package's make_moons(500,
    noise=0.3) (5 % of the labels flipped), RBF(0.5), the capped linear program
    (5 m + 1000 iterations) stops without an answer (here seeds 0 and 1, with and without a
    threshold), so is_separable raises although m = 500 is not above LP_MAX_M; on
    scikit-learn's make_moons (no flipped labels) HiGHS reports the same program feasible
    before the cap for seed 0 without and seed 1 with a threshold, but its solution,
    returned as separable=True, misclassifies training examples in floating point."""
    from sklearn.datasets import make_moons as sk_moons

    from kernelclf.datasets import make_moons
    from kernelclf.margin.separability import (
        LP_MAX_M,
        SeparabilityUndecidedError,
        _lp_separator,
    )

    m = 500
    assert m <= LP_MAX_M
    cap = 5 * m + 1000
    for seed in (0, 1):
        X, y = make_moons(m, noise=0.3, random_state=seed)
        y = np.where(y > 0, 1.0, -1.0)
        K = RBF(0.5)(X)
        if seed == 0:
            with pytest.raises(SeparabilityUndecidedError, match="HiGHS stopped"):
                is_separable(K, y)
        for fit_bias in ((False,) if seed == 0 else (False, True)):
            assert _lp_separator(K, y, fit_bias, cap)[0] is None
        # scikit-learn's moons: HiGHS reports the program feasible, but its solution does
        # not separate the sample in floating point (the Separability docstring)
        Xs, ys = sk_moons(m, noise=0.3, random_state=seed)
        ys = np.where(ys > 0, 1.0, -1.0)
        Ks = RBF(0.5)(Xs)
        res = check_separability(Ks, ys, fit_bias=seed == 1)
        assert res.separable is True and res.method == "linear program"
        wrong = np.sum(ys * (Ks @ res.coef + res.bias) <= 0)
        assert wrong >= 9 and np.abs(res.coef).max() > 1e10


def test_who_asks_the_separability_questions(monkeypatch):
    """The separability module docstring: the hard-margin SVM asks only when a short run of
    its solver (20 m + 1000 steps) has not converged, the perceptron never asks, the Bayes
    point machine asks as it fits."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import kernelclf.bayespoint.bpm as bpm_mod
    import kernelclf.margin.separability as sep
    import kernelclf.margin.svm as svm_mod
    from kernelclf.bayespoint import BayesPointMachine
    from kernelclf.margin import KernelPerceptron, Perceptron

    calls = []

    def counted(name, f):
        def g(*args, **kwargs):
            calls.append(name)
            return f(*args, **kwargs)
        return g

    for mod in (sep, svm_mod, bpm_mod):
        for name in ("is_separable", "check_separability", "hard_margin_bounds"):
            if hasattr(mod, name):
                monkeypatch.setattr(mod, name, counted(name, getattr(mod, name)))
    Xs, ys = make_teacher(40, 2, random_state=1)
    assert SupportVectorMachine(Linear(), hard_margin=True).fit(Xs, ys).n_iter_ < 1800
    assert calls == []                     # a short run settled it: the SVM never asks
    Xs, ys = make_teacher(40, 2, random_state=0)           # separable, small margin
    # without numba the NumPy engine's active-set finish settles this sample within the
    # short run (so the SVM does not ask, as the docstring says); the pair loop alone, as
    # the compiled engine runs it, needs more than the short run
    from kernelclf.margin.smo import loops
    monkeypatch.setattr(loops, "FINISH_MAX_FREE", -1)
    assert SupportVectorMachine(Linear(), hard_margin=True).fit(Xs, ys).n_iter_ > 1800
    assert calls[0] == "is_separable"      # more than 20 m + 1000 steps: it asks first
    calls.clear()
    rng = np.random.default_rng(1)
    Xn = rng.normal(size=(40, 2))
    yn = np.where(Xn[:, 0] + rng.normal(size=40) > 0, 1, -1)
    with pytest.raises(ValueError, match="not separable"):
        SupportVectorMachine(Linear(), hard_margin=True).fit(Xn, yn)
    assert calls and calls[0] == "is_separable"             # asked once its solver failed
    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for est in (Perceptron(max_epochs=20), KernelPerceptron(max_epochs=20)):
            assert not est.fit(Xn, yn).converged_
    assert calls == []                                     # the perceptron never asks
    BayesPointMachine(RBF(1.0), n_perceptrons=2, random_state=0).fit(Xn, yn)
    assert "hard_margin_bounds" in calls                   # lam='auto' measures the margin


def test_hard_margin_bounds_memory_is_the_caches_not_order_m():
    """The hard_margin_bounds docstring: with columns on demand the columns read stay in
    the Gram's cache (bounded by cache_mb) and the products run in row blocks, so below a
    few thousand points a run reaches about the whole matrix's size; a small budget holds
    less."""
    import tracemalloc

    from sklearn.datasets import make_moons

    m = 1000
    X, y = make_moons(m, noise=0.05, random_state=0)
    y = 2.0 * y - 1.0
    peaks = []
    for cache_mb in (200.0, 1.0):
        g = Gram(RBF(0.5), X, precompute=False, cache_mb=cache_mb)
        tracemalloc.start()
        hard_margin_bounds(g, y, engine="numpy")
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[0] > 8.0 * m * m                          # more than the m x m matrix
    assert peaks[1] < 0.7 * peaks[0]                       # the budget bounds the cache


def _lp_feasible(K, y):
    from scipy.optimize import linprog

    res = linprog(np.zeros(len(y)), A_ub=-(y[:, None] * K), b_ub=-np.ones(len(y)),
                  bounds=[(None, None)] * len(y), method="highs")
    return res.status == 0


def test_find_version_space_point():
    X, y = make_teacher(40, 3, random_state=1)
    G = Linear()(X)
    gamma, out = find_version_space_point(G, y, random_state=0)
    assert np.all(y * out > 0)
    np.testing.assert_allclose(out, G @ gamma, atol=1e-12)
    # the LP fallback after a single epoch still gives a point of version space
    gamma2, out2 = find_version_space_point(Gram(G=G), y, max_epochs=1, random_state=0)
    assert np.all(y * out2 > 0)
    np.testing.assert_allclose(out2, G @ gamma2, atol=1e-8)
    # contradictory duplicates: empty version space
    Xn, yn = np.vstack([X, X[:1]]), np.r_[y, -y[:1]]
    with pytest.raises(NotSeparableError, match="lam > 0"):
        find_version_space_point(Linear()(Xn), yn, max_epochs=5, random_state=0)
    with pytest.raises(NotSeparableError, match="epochs"):
        find_version_space_point(Linear()(Xn), yn, max_epochs=5, random_state=0, use_lp=False)
    assert issubclass(NotSeparableError, ValueError)
    assert billiard.NotSeparableError is NotSeparableError


def _perceptron_epochs_reference(column, y, m, max_epochs, rng):
    """The dual perceptron with cached outputs as a plain loop over the examples (LKC
    Alg. 3): the updates that the compiled and NumPy epochs must reproduce to the bit."""
    gamma, out = np.zeros(m), np.zeros(m)
    for _ in range(max_epochs):
        mistakes = 0
        for i in rng.permutation(m):
            if y[i] * out[i] <= 0:
                gamma[i] += y[i]
                out += y[i] * column(i)
                mistakes += 1
        if mistakes == 0:
            break
    return gamma, out


@pytest.mark.parametrize("ridge", [0.0, 0.3])
def test_perceptron_epochs_match_a_plain_loop_to_the_bit(ridge):
    """find_version_space_point gives the same coefficients and outputs, bit for bit, as
    the plain per-example loop, whichever epoch runs: compiled on a stored matrix (an
    array, whose columns are read, or a Gram with a ridge, read by rows) or the NumPy
    epoch on columns computed on demand; and the kernel evaluations are counted per
    mistake (one column each) either way."""
    from sklearn.utils import check_random_state

    import kernelclf.bayespoint.perceptron_epochs as pe

    X, y = make_teacher(120, 5, random_state=3)
    G = RBF(1.5)(X)
    G = G + 1e-3 * np.triu(np.ones_like(G), 1)     # not symmetric: columns, not rows, count
    G[np.diag_indices_from(G)] += ridge
    ref_gamma, ref_out = _perceptron_epochs_reference(lambda i: G[:, i], y, len(y), 100,
                                                      check_random_state(0))
    assert np.all(y * ref_out > 0) and np.abs(ref_gamma).sum() > 10   # it took epochs
    gamma, out = find_version_space_point(G, y, random_state=0, use_lp=False)
    np.testing.assert_array_equal(gamma, ref_gamma)
    np.testing.assert_array_equal(out, ref_out)
    counts = []
    for precompute in (True, False):
        gram = Gram(RBF(1.5), X, ridge=ridge, precompute=precompute)
        ref = _perceptron_epochs_reference(Gram(RBF(1.5), X, ridge=ridge,
                                                precompute=precompute).column,
                                           y, len(y), 100, check_random_state(0))
        got = find_version_space_point(gram, y, random_state=0, use_lp=False)
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(a, b)
        counts.append(gram.n_evaluations)
    assert counts[0] == counts[1] == len(y) * np.abs(ref[0]).sum()
    # the NumPy epoch on a stored matrix as well (what runs without numba)
    saved = pe.HAVE_NUMBA
    try:
        pe.HAVE_NUMBA = False
        got = find_version_space_point(G, y, random_state=0, use_lp=False)
    finally:
        pe.HAVE_NUMBA = saved
    np.testing.assert_array_equal(got[0], ref_gamma)
    np.testing.assert_array_equal(got[1], ref_out)


def test_geometric_margin_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0])
    w = np.array([1.0, 1.0])
    # margins y_i <x_i, w> / ||w|| = 1/sqrt2, 2/sqrt2, 2/sqrt2
    assert geometric_margin(X, y, w) == pytest.approx(1 / np.sqrt(2))
    alpha = np.linalg.lstsq(X.T, w, rcond=None)[0]        # w = X' alpha
    assert geometric_margin(X @ X.T, y, alpha, precomputed=True) == pytest.approx(1 / np.sqrt(2))
    assert geometric_margin(X, y, np.array([1.0, -1.0])) == pytest.approx(-2 / np.sqrt(2))
    with pytest.raises(ValueError, match="zero"):
        geometric_margin(X, y, np.zeros(2))
    with pytest.raises(ValueError, match="shapes"):
        geometric_margin(X, y, np.zeros(3))


# --------------------------------------------------------------------- teacher toy


def test_teacher_toy():
    X, y, t = make_teacher(200, 3, random_state=4, return_teacher=True)
    assert X.shape == (200, 3) and y.dtype == np.int64
    assert np.all(np.abs(X) <= 1)
    np.testing.assert_array_equal(y, np.where(X @ t > 0, 1, -1))
    assert is_separable(Linear()(X), y, fit_bias=False)
    # squeeze multiplies the last coordinate only; the teacher and the draws are the same
    Xs, ys, ts = make_teacher(200, 3, squeeze=0.1, random_state=4, return_teacher=True)
    np.testing.assert_array_equal(ts, t)
    np.testing.assert_allclose(Xs[:, :2], X[:, :2])
    np.testing.assert_allclose(Xs[:, 2], 0.1 * X[:, 2])
    # exactly int(flip m) flipped labels; the test sample follows and has clean labels
    Xf, yf, Xt, yt = make_teacher(200, 3, flip=0.1, n_test=500, random_state=4)
    np.testing.assert_array_equal(Xf, X)
    assert np.sum(yf != y) == 20
    np.testing.assert_array_equal(yt, np.where(Xt @ t > 0, 1, -1))
    assert Xt.shape == (500, 3)
    # the training sample does not depend on n_test
    np.testing.assert_array_equal(make_teacher(200, 3, flip=0.1, random_state=4)[1], yf)
    for bad in ({"m": 0}, {"squeeze": 0.0}, {"flip": 1.5}, {"n_test": -1}, {"random_state": None}):
        with pytest.raises(ValueError):
            make_teacher(**{"m": 10, **bad})


# ------------------------------------------- Rychetsky's corner average (BPM §3)
def test_corner_average_edges_by_cross_products():
    """m = D = 3, linear kernel: the i-th edge of the cone is the cross product of the
    other two (signed) points, oriented to classify point i correctly."""
    from kernelclf.bayespoint import corner_average

    rng = np.random.default_rng(3)
    X = rng.standard_normal((3, 3))
    y = np.array([1.0, -1.0, 1.0])
    a, A = corner_average(X @ X.T, y)
    for i in range(3):
        j, k = [t for t in range(3) if t != i]
        e = np.cross(X[j], X[k])
        e *= np.sign(y[i] * (X[i] @ e)) / np.linalg.norm(e)
        np.testing.assert_allclose(X.T @ A[i], e, atol=1e-10)
    w = sum(np.cross(X[j], X[k]) * np.sign(y[i] * (X[i] @ np.cross(X[j], X[k])))
            / np.linalg.norm(np.cross(X[j], X[k]))
            for i, (j, k) in enumerate([(1, 2), (0, 2), (0, 1)]))
    np.testing.assert_allclose(X.T @ a, w / np.linalg.norm(w), atol=1e-10)
    assert np.all(y * (X @ X.T @ a) > 0)            # a mean of edges is inside the cone


def test_corner_average_of_an_orthant_is_its_centre_and_needs_full_rank():
    """Orthonormal points: the cone is an orthant, its edges the signed axes, and the
    corner average is the orthant's centre of mass (Archimedes, cf. the test above)."""
    from kernelclf.bayespoint import corner_average

    y = np.array([1.0, -1.0, -1.0, 1.0])
    a, _ = corner_average(np.eye(4), y)
    np.testing.assert_allclose(a, y / 2)
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="singular"):
        corner_average(X @ X.T, np.array([1.0, 1.0, 1.0]))


def test_posterior_disagreement_matches_gaussian_inputs():
    # BPM Lemma 13: on spherical Gaussian inputs, w and v disagree on arccos(<w, v>)/pi
    from kernelclf.bayespoint.versionspace import posterior_disagreement

    rng = np.random.default_rng(0)
    W = rng.normal(size=(5, 4)) + np.array([3.0, 0, 0, 0])
    v = np.array([1.0, 0.5, 0, 0])
    Xg = rng.normal(size=(200_000, 4))
    mc = np.mean([np.mean(np.sign(Xg @ w) != np.sign(Xg @ v)) for w in W])
    assert posterior_disagreement(W, v) == pytest.approx(mc, abs=3e-3)


def test_bayes_point_from_samples_symmetric_ring():
    # samples on a ring around e3 plus its mirror image: by symmetry the minimiser is e3
    from kernelclf.bayespoint.versionspace import bayes_point_from_samples, posterior_disagreement

    t = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    W = np.c_[0.6 * np.cos(t), 0.6 * np.sin(t), np.full_like(t, 0.8)]
    v, val = bayes_point_from_samples(W, start=[0.2, -0.1, 1.0])
    np.testing.assert_allclose(v, [0, 0, 1], atol=1e-3)
    assert val == pytest.approx(np.arccos(0.8) / np.pi, abs=1e-6)
    assert val <= posterior_disagreement(W, [0.1, 0, 1])


def test_chapter10_exercise_answers_against_closed_forms():
    # the checkers' answers of kernelclf.book.exercises.ch10, against closed forms
    from kernelclf.book.exercises import ch10
    from kernelclf.bounds.bayes_point import CENTRE_OF_MASS_X_STAR

    ex = {e.label: e for e in ch10.EXERCISES}
    assert ex["ch10-ex-2"].judge(0.8 / np.pi)[0]
    x = CENTRE_OF_MASS_X_STAR
    assert ex["ch10-ex-4"].judge(np.arccos(0.9) / np.pi - (1 - 0.9) / 2)[0]   # eps = 0.9 > x*
    assert not ex["ch10-ex-4"].judge(np.arccos(x) / np.pi - (1 - x) / 2)[0]   # the peak
    assert not ex["ch10-ex-4"].judge(0.11)[0]


@pytest.mark.parametrize("kw, message", [
    (dict(max_iter=-1), "max_iter == -1, must be >= 0"),
    (dict(max_iter=2.5), "max_iter must be an instance of"),
    (dict(tol=0.0), "tol == 0.0, must be > 0"),
    (dict(tol=np.nan), "tol must be finite"),
    (dict(threshold=np.inf), "threshold must be finite"),
    (dict(threshold="0"), "threshold must be an instance of"),
])
def test_hard_margin_bounds_refuses_bad_input(kw, message):
    """Issue 37: the public nearest-point solver checks its budget and tolerances with
    scikit-learn's check_scalar."""
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises((ValueError, TypeError), match=message):
        hard_margin_bounds(X @ X.T, y, **kw)


@pytest.mark.parametrize("kw, message", [
    (dict(lp_max_m=-1), "lp_max_m == -1, must be >= 0"),
    (dict(lp_max_iter=0), "lp_max_iter == 0, must be >= 1"),
    (dict(max_iter=1.5), "max_iter must be an instance of"),
])
def test_check_separability_refuses_bad_input(kw, message):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises((ValueError, TypeError), match=message):
        check_separability(X @ X.T, y, **kw)


@pytest.mark.parametrize("m", [1, 2, 3, 17, 140, 700])
def test_compiled_epochs_draw_numpys_permutations_and_leave_its_state(m):
    """The compiled epochs draw their permutations from the generator's own Mersenne
    Twister state: the same permutations as rng.permutation(m) (so the same coefficients and
    outputs, bit for bit), and the generator continues as after those draws (past a refill of
    its 624 words at m = 700)."""
    from kernelclf.bayespoint.perceptron_epochs import (
        epoch_runner,
        perceptron_epochs,
    )

    rs = np.random.RandomState(m)
    X = rs.normal(size=(m, 2))
    y = np.where(rs.normal(size=m) > 0, 1.0, -1.0)        # random labels: every epoch errs
    G = RBF(0.7)(X)
    for max_epochs in (1, 5):
        r1, r2 = np.random.RandomState(7), np.random.RandomState(7)
        g1, o1, g2, o2 = np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m)
        done1 = perceptron_epochs(G, y, r1, g1, o1, max_epochs)
        epoch, done2 = epoch_runner(G, y), False
        for _ in range(max_epochs):
            if epoch(r2.permutation(m), g2, o2) == 0:
                done2 = True
                break
        assert done1 == done2
        np.testing.assert_array_equal(g1, g2)
        np.testing.assert_array_equal(o1, o2)
        s1, s2 = r1.get_state(), r2.get_state()
        np.testing.assert_array_equal(s1[1], s2[1])
        assert s1[2:] == s2[2:]
        assert r1.randint(1 << 30) == r2.randint(1 << 30)
