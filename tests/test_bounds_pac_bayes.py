"""Tests of kernelclf.bounds.pac_bayes (book chapter 16; LKC §5.1.1, App. C.7).

References: formulas re-typed here, a brute-force grid for the kl inverse, a Monte-Carlo
Gaussian KL, and simulations with the exact risk (threshold classifiers on [0, 1]) in which
every bound must hold in at least a 1 - delta fraction of the draws. The margin bound of
§5.1.2 is tested in ``test_bounds_pac_bayes_margin.py``, TR's bounds and BPM's kappa in
``test_bounds_bayes_point.py``.

Power (issue 25): each simulation also asserts that the bound, weakened by a stated factor k,
fails in more than a delta fraction of the same draws. "Weakened" divides the complexity
part by k (bound - R_emp for the bounds with training errors, the whole bound for the
consistent ones, and ``(KL + ln(2 sqrt(m)/delta))/m`` inside the kl inverse).
``test_kl_pac_bayes_bound_has_power`` puts the kl form where it is tight (the empirical risk
minimiser among 1000 hypotheses with independent losses, as a point-mass posterior) and
catches k = 2 (the Occam kl form k = 1.5); the Occam bounds with errors, uniform over a
class of thresholds, catch k = 2-2.2. The other simulations are looser and state their k:
Theorem 5.1 on version spaces 3.5, the Gibbs posteriors 3-5, the Gibbs and Bayes bounds of
version spaces 13 and 28.
"""
import numpy as np
import pytest

from kernelclf.bounds import pac_bayes as PB

LN = np.log


# -- §5.1.1 formulas ---------------------------------------------------------------------------
def test_bayesian_bounds_formulas():
    m, d, P = 200, 0.05, 1e-6
    assert PB.occam_bound(m, d, P) == pytest.approx((LN(1 / P) + LN(1 / d)) / m)
    g = (LN(1 / P) + 2 * LN(m) + LN(1 / d) + 1) / m
    assert PB.gibbs_bound(m, d, P) == pytest.approx(g)
    assert PB.bayes_bound(m, d, P) == pytest.approx(2 * g)
    assert PB.bayes_bound(m, d, P, n_classes=10) == pytest.approx(10 * g)
    assert PB.gibbs_bayes_factor(0.1, 3) == pytest.approx(0.3)
    # mass and log_inv_mass agree; tiny masses through the log
    assert PB.gibbs_bound(m, d, log_inv_mass=LN(1 / P)) == pytest.approx(g)
    assert PB.gibbs_bound(m, d, log_inv_mass=5000.0) == pytest.approx((5000 + 2 * LN(m) + LN(1 / d) + 1) / m)
    q = 0.1
    assert PB.occam_bound_with_errors(m, q, d, P) == pytest.approx(
        q + np.sqrt((LN(1 / P) + LN(1 / d)) / (2 * m)))
    assert PB.gibbs_bound_with_errors(m, q, d, P) == pytest.approx(
        q + np.sqrt((LN(1 / P) + 2 * LN(m) + LN(1 / d)) / (2 * m)) + 1 / m)
    kl = 3.0
    assert PB.kl_bound(m, q, kl, d) == pytest.approx(q + np.sqrt((kl + LN(m) + LN(1 / d) + 2) / (2 * m - 1)))
    # Gibbs is never worse than the single hypothesis with the same prior mass + ln m terms
    assert PB.gibbs_bound(m, d, P) >= PB.occam_bound(m, d, P)

def test_trivial_mass_remark_after_theorem_5_4():
    for m in [50, 200, 1000]:
        P0 = PB.trivial_mass(m)
        assert P0 == pytest.approx(np.exp(-m / 2))
        assert PB.bayes_bound(m, 0.5, log_inv_mass=m / 2) > 1      # at the mass, trivial
        # the drop of 2 ln m + ln(1/delta) + 1 makes the true threshold a bit larger
        assert PB.bayes_bound(m, 0.5, log_inv_mass=m / 2 - 2 * LN(m) - 1 - LN(2)) == pytest.approx(1.0)


# -- kl inverse against brute force --------------------------------------------------------------
def test_binary_kl_values():
    assert PB.binary_kl(0.5, 0.5) == 0
    assert PB.binary_kl(0.0, 0.3) == pytest.approx(-LN(0.7))
    assert PB.binary_kl(1.0, 0.3) == pytest.approx(-LN(0.3))
    assert np.isinf(PB.binary_kl(0.2, 0.0)) and np.isinf(PB.binary_kl(0.2, 1.0))
    assert PB.binary_kl(0.0, 0.0) == 0 and PB.binary_kl(1.0, 1.0) == 0
    q, p = 0.2, 0.35
    assert PB.binary_kl(q, p) == pytest.approx(q * LN(q / p) + (1 - q) * LN((1 - q) / (1 - p)))


def test_kl_inverse_vs_brute_force_grid():
    grid = np.linspace(0, 1, 2_000_001)
    rng = np.random.default_rng(4)
    qs = np.r_[0.0, 1.0, 1e-9, 1 - 1e-9, rng.uniform(0, 1, 25)]
    cs = np.r_[0.0, 1e-8, 1e-3, 0.05, 0.5, 3.0, 50.0, np.inf]
    for q in qs:
        with np.errstate(divide="ignore", invalid="ignore"):
            klg = np.where(grid >= q, PB.binary_kl(q, grid), np.inf)
        for c in cs:
            p = PB.kl_inverse(q, c)
            ok = grid[klg <= c]
            brute = ok.max() if ok.size else q
            assert q - 1e-12 <= p <= 1
            assert abs(p - brute) <= 1e-6 + 1e-6 * (c > 1e-4), (q, c, p, brute)
            assert PB.binary_kl(q, p) <= c + 1e-9
    # vectorised input gives the elementwise answers
    out = PB.kl_inverse(qs[:5], 0.1)
    assert np.allclose(out, [PB.kl_inverse(q, 0.1) for q in qs[:5]])


def test_kl_inverse_closed_form_at_zero_and_pinsker():
    c = np.logspace(-6, 1, 30)
    assert np.allclose(PB.kl_inverse(0.0, c), 1 - np.exp(-c), atol=1e-11)   # kl(0||p) = -ln(1-p)
    q = np.linspace(0, 1, 31)
    for cc in [1e-4, 0.01, 0.3]:
        p = PB.kl_inverse(q, cc)
        assert np.all(p <= np.minimum(1, q + np.sqrt(cc / 2)) + 1e-10)      # Pinsker


def test_kl_forms_tighter_than_printed():
    rng = np.random.default_rng(5)
    for _ in range(200):
        m = int(rng.integers(8, 10**6))
        q, kl, d = rng.uniform(0, 1), rng.exponential(20), rng.uniform(1e-4, 0.9)
        assert PB.kl_pac_bayes_bound(m, q, kl, d) <= min(1.0, PB.kl_bound(m, q, kl, d)) + 1e-10
        lp = rng.exponential(10)
        assert PB.occam_kl_bound(m, q, d, log_inv_mass=lp) <= min(
            1.0, PB.occam_bound_with_errors(m, q, d, log_inv_mass=lp)) + 1e-10
        assert PB.occam_kl_bound(m, 0.0, d, log_inv_mass=lp) <= PB.occam_bound(m, d, log_inv_mass=lp) + 1e-12


def test_gaussian_kl():
    rng = np.random.default_rng(6)
    A = rng.normal(size=(3, 3))
    S = A @ A.T + np.eye(3)
    mu = rng.normal(size=3)
    assert PB.gaussian_kl(mu, S, mu, S) == pytest.approx(0.0, abs=1e-12)
    # 1-D closed form
    kl = PB.gaussian_kl([1.0], [[0.5]], [0.0], [[2.0]])
    assert kl == pytest.approx(LN(np.sqrt(2.0 / 0.5)) + (0.5 + 1.0) / (2 * 2.0) - 0.5)
    # Monte Carlo
    B = rng.normal(size=(3, 3))
    P = B @ B.T + 2 * np.eye(3)
    mp = rng.normal(size=3)
    Z = rng.multivariate_normal(mu, S, size=400_000)

    def logpdf(Z, m, C):
        L = np.linalg.cholesky(C)
        u = np.linalg.solve(L, (Z - m).T)
        return -0.5 * np.sum(u**2, axis=0) - np.log(np.diag(L)).sum() - 1.5 * LN(2 * np.pi)

    mc = np.mean(logpdf(Z, mu, S) - logpdf(Z, mp, P))
    assert PB.gaussian_kl(mu, S, mp, P) == pytest.approx(mc, abs=0.02)


# -- simulations with the exact risk ---------------------------------------------------------------
def _threshold_world(rng, m, n_h, eta):
    """Thresholds h_t(x) = sign(x - t), t on a grid, target t* = 0.37, label noise eta.

    Returns the empirical risks of all hypotheses, their true risks, and the grid.
    """
    t = (np.arange(n_h) + 0.5) / n_h
    t_star = 0.37
    x = rng.uniform(size=m)
    y = np.where(x > t_star, 1, -1) * np.where(rng.uniform(size=m) < eta, -1, 1)
    pred = np.where(x[None, :] > t[:, None], 1, -1)
    emp = np.mean(pred != y[None, :], axis=1)
    true = eta + (1 - 2 * eta) * np.abs(t - t_star)
    return t, emp, true, t_star


def test_simulation_consistent_bounds_hold():
    """Theorems 5.1, 5.2, 5.4 (and TR Thm 2-3, Cor. 1) on version spaces of thresholds."""
    rng = np.random.default_rng(7)
    delta, n_h, m, reps = 0.1, 400, 60, 300
    sims, bounds = [], []
    for _ in range(reps):
        t, emp, true, t_star = _threshold_world(rng, m, n_h, 0.0)
        vs = emp == 0
        if not vs.any():                           # no grid threshold is consistent
            continue
        P = vs.sum() / n_h                         # uniform prior: mass of version space
        t_bayes = np.median(t[vs])                 # the majority vote of V(z)
        # Theorem 5.1 for every consistent h at once (the worst one), Theorem 5.2 for the
        # Gibbs classifier over V(z), Theorem 5.4 for the Bayes classifier
        sims.append([true[vs].max(), true[vs].mean(), abs(t_bayes - t_star)])
        bounds.append([PB.occam_bound(m, delta, 1 / n_h), PB.gibbs_bound(m, delta, P),
                       PB.bayes_bound(m, delta, P)])
    sims, bounds = np.array(sims), np.array(bounds)
    assert np.all(np.mean(sims > bounds, axis=0) <= delta)
    # power: Theorem 5.1 divided by 3.5 fails in more than delta of the draws; the Gibbs
    # and Bayes bounds are loose on thresholds (divided by 12 and 27 they still hold), the
    # check catches only errors larger than that
    assert np.all(np.mean(sims > bounds / [3.5, 13, 28], axis=0) > delta)


def test_simulation_bounds_with_errors_hold():
    """Theorem 5.6 (both parts), eq. (5.9) and the kl forms with label noise."""
    rng = np.random.default_rng(8)
    delta, n_h, m, reps, eta = 0.1, 200, 100, 300, 0.15
    fails = np.zeros(5)
    caught = np.zeros(5)
    ks = np.array([2.2, 2.0, 5.0, 4.5, 3.0])       # weakening factors of the excess over R_emp

    def record(i, true, bound, emp):
        fails[i] += np.any(true > bound)
        caught[i] += np.any(true > emp + (bound - emp) / ks[i])

    for _ in range(reps):
        t, emp, true, _ = _threshold_world(rng, m, n_h, eta)
        # Theorem 5.6 and its kl form, for every hypothesis at once
        record(0, true, PB.occam_bound_with_errors(m, emp, delta, 1 / n_h), emp)
        record(1, true, PB.occam_kl_bound(m, emp, delta, 1 / n_h), emp)
        # Gibbs over the set of hypotheses within 0.05 of the best training error
        H = emp <= emp.min() + 0.05
        record(2, true[H].mean(),
               PB.gibbs_bound_with_errors(m, emp[H].mean(), delta, H.sum() / n_h), emp[H].mean())
        # Gibbs posterior Q ∝ exp(-beta m R_emp) with its exact KL to the uniform prior
        Q = np.exp(-3.0 * m * (emp - emp.min()))
        Q /= Q.sum()
        kl = float(np.sum(Q[Q > 0] * LN(Q[Q > 0] * n_h)))
        record(3, Q @ true, PB.kl_bound(m, Q @ emp, kl, delta), Q @ emp)
        record(4, Q @ true, PB.kl_pac_bayes_bound(m, Q @ emp, kl, delta), Q @ emp)
    assert np.all(fails / reps <= delta)
    # power: with the excess over the training error divided by ks the bounds fail in more
    # than delta of the draws (the uniform Occam forms are tight to about 2, the Gibbs
    # posteriors of this world leave a factor of 3-5)
    assert np.all(caught / reps > delta), caught / reps


def test_kl_pac_bayes_bound_has_power():
    """The kl form where it is tight: m = 100, delta = 0.1, N = 1000 hypotheses whose losses
    are independent Bernoulli(0.3) sequences (e.g. independent random classifiers on
    labels they cannot predict), so every true risk is 0.3 and the training-error counts are
    independent Binomial(100, 0.3) draws. The posterior is a point mass on the empirical
    risk minimiser (KL to the uniform prior = ln N), the most optimistic choice. The bound
    (median 0.39) holds in every draw; with its complexity (ln N + ln(2 sqrt(m)/delta))/m
    divided by k = 2 it fails in about 35 % of the draws. The Occam kl form catches k = 1.5.
    """
    rng = np.random.default_rng(25)
    m, N, p, delta, runs, k = 100, 1000, 0.3, 0.1, 2000, 2.0
    emp = rng.binomial(m, p, size=(runs, N)).min(axis=1) / m       # R_emp of the ERM
    bound = PB.kl_pac_bayes_bound(m, emp, np.log(N), delta)
    assert np.all(bound < 1) and np.median(bound) == pytest.approx(0.39, abs=0.02)
    assert np.mean(p > bound) <= delta
    c = (np.log(N) + np.log(2 * np.sqrt(m) / delta)) / m
    weakened = PB.kl_inverse(emp, c / k)
    assert np.mean(p > weakened) > 3 * delta
    # the Occam kl form (no 2 sqrt(m), a union over the N hypotheses) is tighter still:
    # median 0.35, and 1.5 times too small a complexity already fails in > delta of draws
    occam = PB.occam_kl_bound(m, emp, delta, 1 / N)
    assert np.all(occam < bound) and np.mean(p > occam) <= delta
    c = (np.log(N) + np.log(1 / delta)) / m
    assert np.mean(p > PB.kl_inverse(emp, c / 1.5)) > delta


def test_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        PB.gibbs_bound(10, 0.05)
    with pytest.raises(ValueError, match="exactly one"):
        PB.gibbs_bound(10, 0.05, 0.5, log_inv_mass=1.0)
    with pytest.raises(ValueError, match="mass"):
        PB.occam_bound(10, 0.05, 0.0)
    with pytest.raises(ValueError, match="mass"):
        PB.occam_bound(10, 0.05, 1.5)
    with pytest.raises(ValueError, match="delta"):
        PB.gibbs_bound(10, 1.0, 0.5)
    with pytest.raises(ValueError, match="m"):
        PB.kl_pac_bayes_bound(5, 0.1, 1.0, 0.05)
    with pytest.raises(ValueError, match="n_classes"):
        PB.bayes_bound(10, 0.05, 0.5, n_classes=1)
    with pytest.raises(ValueError, match="q"):
        PB.kl_inverse(1.2, 0.1)
    with pytest.raises(ValueError, match="c"):
        PB.kl_inverse(0.2, -0.1)
    with pytest.raises(ValueError):
        PB.gaussian_kl([0.0], [[-1.0]], [0.0], [[1.0]])
