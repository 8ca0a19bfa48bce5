"""Tests for kernelclf.bayespoint.billiard, its engines (kernelclf.bayespoint.billiard_engines),
kernelclf.bayespoint.rujan and kernelclf.bayespoint.polygon (LKC Alg. 10, App. B.9; BPM §3.1;
RM §18.2-18.5).

References are independent of the code under test: closed-form geometry
(Householder reflections, chord lengths), brute-force Monte-Carlo estimates
of the version-space centre of mass (kernelclf.bayespoint.versionspace, itself tested
against closed forms in tests/test_versionspace.py), the hard-margin SVM from a
QP, the shoelace centroid of a polygon and a kernel wrapper that counts evaluations.
"""
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kernelclf.bayespoint import (
    NotSeparableError,
    find_version_space_point,
    flipper,
    kernel_billiard,
    light_trap,
    onion_billiard,
    oplus,
    polygon_billiard,
    polygon_centroid,
    reflect,
    rho,
    slerp_add,
    version_space_centre,
)
from kernelclf.bayespoint.billiard_engines import HAVE_NUMBA
from kernelclf.datasets import make_teacher
from kernelclf.kernels import RBF, CallableKernel, Gram
from kernelclf.optim import solve_qp

#: tests that compare the compiled engine with the NumPy twins need numba (the NumPy
#: twins alone are tested without it by the others)
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="compares the compiled engine "
                                 "with the NumPy twins; numba is not available")

def _unit_rows(rng, n, d):
    V = rng.standard_normal((n, d))
    return V / np.linalg.norm(V, axis=1)[:, None]


def _linear_toy(d, m, seed, elongate=1.0):
    return make_teacher(m, d, squeeze=elongate, random_state=seed)


def _mc_centre(X, y, n=600_000, seed=1):
    """Rejection sampling of uniform directions: centre of mass of version space."""
    return version_space_centre(X, y, n_draws=n, random_state=seed, min_accepted=2000)


def _moons(m, seed=0):
    from sklearn.datasets import make_moons
    X, y = make_moons(m, noise=0.0, random_state=seed)
    return X, 2.0 * y - 1.0


# --------------------------------------------------------------------- ⊕µ

def test_oplus_properties():
    rng = np.random.default_rng(0)
    for _ in range(50):
        s, t = _unit_rows(rng, 2, 5)
        for mu in np.linspace(0, 1, 11):
            r = oplus(s, t, mu)
            assert np.linalg.norm(r) == pytest.approx(1.0, abs=1e-12)
            assert np.linalg.norm(t - r) == pytest.approx(mu * np.linalg.norm(t - s), abs=1e-12)
            r1, r2 = rho(s @ t, mu)
            assert r1 >= -1e-15 and r2 >= -1e-12
        np.testing.assert_allclose(oplus(s, t, 0.0), t, atol=1e-12)
        np.testing.assert_allclose(oplus(s, t, 1.0), s, atol=1e-12)
    with pytest.raises(ValueError):
        rho(0.3, 1.5)


def test_oplus_dual_matches_coordinates():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((6, 4))
    G = X @ X.T
    a, b = rng.standard_normal(6), rng.standard_normal(6)
    a /= np.sqrt(a @ G @ a)
    b /= np.sqrt(b @ G @ b)
    r = oplus(a, b, 0.3, G)
    np.testing.assert_allclose(X.T @ r, oplus(X.T @ a, X.T @ b, 0.3), atol=1e-12)


def test_slerp_add_is_on_the_arc():
    rng = np.random.default_rng(2)
    a, b = _unit_rows(rng, 2, 3)
    phi = np.arccos(a @ b)
    c = slerp_add(a, b, 3.0, 1.0)
    assert np.linalg.norm(c) == pytest.approx(1.0)
    assert np.arccos(a @ c) == pytest.approx(phi / 4)
    assert np.arccos(np.clip(b @ c, -1, 1)) == pytest.approx(3 * phi / 4)


# --------------------------------------------------------------- reflection

def test_reflection_is_householder_and_flips_normal_component():
    """E21: the reflection is V - 2 V_perp X / ||X||^2 (RM Fig. 18.7's caption prints
    V + 2 V_perp X)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((8, 5))
    G = X @ X.T
    beta = rng.standard_normal(8)
    for c in range(8):
        nb, nw = reflect(beta, G @ beta, c, G[:, c], G[c, c])
        v, xc = X.T @ beta, X[c]
        expected = v - 2 * (v @ xc) / (xc @ xc) * xc  # Householder mirror
        np.testing.assert_allclose(X.T @ nb, expected, atol=1e-10)
        np.testing.assert_allclose(nw, G @ nb, atol=1e-10)  # cached outputs stay exact
        assert nb @ G @ nb == pytest.approx(beta @ G @ beta)  # norm preserved
        assert (X.T @ nb) @ xc == pytest.approx(-(v @ xc))  # component on the normal flips


# ------------------------------------------------------------ trajectories

def test_recorded_positions_lie_in_version_space_with_unit_norm():
    X, y = _moons(60)
    G = RBF(0.5)(X)
    res = kernel_billiard(G, y, tol=1e-2, record=True, random_state=0)
    assert res.converged and res.n_bounces > 10
    P = np.array(res.positions)
    margins = y[None, :] * (P @ G)
    assert margins.min() > -1e-9  # every bounce point is inside or on a wall
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", P, G, P), 1.0, atol=1e-9)
    Z = np.array(res.midpoints)
    assert (y[None, :] * (Z @ G)).min() > 0  # chord midpoints are strictly inside
    # the wall hit at bounce k is where the new position sits
    for k, c in enumerate(res.hits):
        if c >= 0:
            assert abs(P[k + 1] @ G[:, c]) < 1e-9
    assert res.alpha @ G @ res.alpha == pytest.approx(1.0, abs=1e-10)
    assert np.min(y * (G @ res.alpha)) > 0


def test_stopping_rule_guard_and_threshold():
    X, y = _moons(40, seed=1)
    G = RBF(0.7)(X)
    res = kernel_billiard(G, y, tol=5e-3, random_state=1, engine="python")
    # first pass (alpha = 0) is guarded; after one chord mu = 1/2 and p_min = 1,
    # so rho_2 = 1 - 0 - rho_1 = 1 - 1/2
    assert res.rho2[0] == pytest.approx(0.5)
    assert res.converged and res.rho2[-1] <= 5e-3
    with pytest.warns(ConvergenceWarning):
        kernel_billiard(G, y, tol=1e-9, max_bounces=30, random_state=1)


# ------------------------------------------------- stopping rules (issue 14)

@needs_numba
def test_compiled_and_python_engines_fly_the_same_trajectory():
    """The compiled loop (stored Gram matrix) and the Python driver (columns from the
    Gram object, one per bounce) run the same steps: same start and direction give the
    same bounces and estimate; both match the recorded positions' version-space facts."""
    X, y = _moons(50, seed=2)
    G = RBF(0.6)(X)
    start, _ = find_version_space_point(G, y, random_state=0)
    runs = [kernel_billiard(G, y, start=start, tol=2e-3, random_state=3, engine=e)
            for e in ("compiled", "python", "numpy")]
    runs.append(kernel_billiard(kernel=RBF(0.6), X=X, y=y, start=start, tol=2e-3,
                                random_state=3))  # columns on demand: the Python driver
    for r in runs[1:]:
        assert r.n_bounces == runs[0].n_bounces and r.converged
        np.testing.assert_allclose(r.alpha, runs[0].alpha, rtol=1e-9, atol=1e-12)
        assert r.kernel_evaluations["bounces"] == runs[0].kernel_evaluations["bounces"]
    assert runs[0].kernel_evaluations["bounces"] == 50 * runs[0].n_bounces  # one column each
    a = runs[0].alpha
    assert a @ G @ a == pytest.approx(1.0, abs=1e-9) and np.min(y * (G @ a)) > 0
    # trace=False (the BPM's fit) flies the same run and only leaves the per-flight lists empty
    quiet = kernel_billiard(G, y, start=start, tol=2e-3, random_state=3, trace=False)
    assert quiet.n_bounces == runs[0].n_bounces and not quiet.chords and not quiet.rho2
    assert len(runs[0].chords) == len(runs[0].rho2) == runs[0].n_flights
    np.testing.assert_array_equal(quiet.alpha, runs[0].alpha)


def test_rho2_is_at_least_one_minus_mu_so_the_printed_rule_needs_1_over_tol_flights():
    """Closed form: rho_2(c, mu) >= 1 - mu on c in (-1, 1] (equality at c = 1, where the
    chord is a straight segment). With mu = Xi/(Xi + xi_max) and Xi <= n xi_max, the rule
    rho_2 <= tol needs n >= (1 - tol)/tol flights whatever the problem (E24: BPM §4.2 reports
    about 1000 bounces at TOL ~ 1e-4, which this rules out)."""
    c, mu = np.meshgrid(np.linspace(-0.99, 1.0, 200), np.linspace(0, 1, 201))
    r2 = rho(c, mu)[1]
    assert np.all(r2 >= 1 - mu - 1e-12)
    np.testing.assert_allclose(rho(np.ones(5), np.linspace(0, 1, 5))[1], 1 - np.linspace(0, 1, 5),
                               atol=1e-12)
    X, y = _moons(40, seed=1)
    for tol in (3e-2, 1e-2):
        res = kernel_billiard(RBF(0.7)(X), y, tol=tol, random_state=0)
        assert res.converged and res.n_flights >= (1 - tol) / tol


def test_printed_rule_with_uncorrected_rho_stops_at_once():
    """LKC App. B.9 as printed (before erratum E2): the radicand of rho_1 is negative for
    every c > -1, rho_2 is NaN, and 'while rho_2 > TOL' ends after the guard."""
    X, y = _moons(40, seed=1)
    res = kernel_billiard(RBF(0.7)(X), y, tol=1e-4, stopping="rho2-printed", min_bounces=10,
                          random_state=0)
    assert res.n_bounces == 10 and np.isnan(res.statistic)
    with pytest.raises(ValueError, match="stopping"):
        kernel_billiard(RBF(0.7)(X), y, stopping="never")


def test_batch_means_error_formula_against_coordinates():
    """The batch-means standard error computed through cached outputs equals the same
    formula evaluated on explicit weight vectors (linear kernel, coordinates)."""
    from kernelclf.bayespoint.billiard_engines import _batch_error

    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 4))
    G = X @ X.T
    nb = 40
    bc = rng.standard_normal((64, 7))
    bl = rng.uniform(0.5, 2.0, 64)
    bo = bc @ G
    tot_c, tot_o, tot_l = bc[:nb].sum(0), bo[:nb].sum(0), bl[:nb].sum()
    got = _batch_error(bc, bo, bl, nb, tot_c, tot_o, tot_l)
    W = bc[:nb] @ X                          # batch sums as weight vectors
    M = W.sum(0) / tot_l
    lbar = tot_l / nb
    var = sum((bl[b] / lbar) ** 2 * np.sum((W[b] / bl[b] - M) ** 2) for b in range(nb))
    want = np.sqrt(var / (nb * (nb - 1))) / np.linalg.norm(M)
    assert got == pytest.approx(want, rel=1e-10)


def test_batch_rule_meets_monte_carlo_centre_on_a_small_problem():
    """Independent reference: the rejection-sampling centre of mass of the 3-D toy."""
    X, y = _linear_toy(3, 10, 0)
    c = _mc_centre(X, y)
    for seed in range(3):
        res = kernel_billiard(X @ X.T, y, tol=0.02, stopping="batch", refresh=0.1,
                              random_state=seed)
        assert res.converged and res.statistic <= 0.02
        w = X.T @ res.alpha
        assert np.arccos(min(1.0, w / np.linalg.norm(w) @ c)) < 0.06


def test_rules_approach_a_long_run_centre():
    """Longer runs (smaller tol) come closer to the centre of a 20-times longer run, for
    both the printed rule (corrected rho) and batch means."""
    X, y = _moons(40, seed=1)
    G = RBF(0.7)(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        long = kernel_billiard(G, y, tol=1e-12, max_bounces=400_000, random_state=99,
                               refresh=0.05).alpha

    def err(a):
        return np.sqrt(max(2 - 2 * (a @ G @ long), 0.0))

    for rule, tols in (("rho2", (1e-2, 3e-4)), ("batch", (0.2, 0.02))):
        e = [np.median([err(kernel_billiard(G, y, tol=t, stopping=rule, refresh=0.05,
                                            random_state=s).alpha) for s in range(5)])
             for t in tols]
        assert e[1] < e[0] and e[1] < 0.05


@pytest.mark.parametrize("d, seed", [(2, 0), (2, 3), (3, 0), (3, 4)])
def test_centre_of_mass_matches_monte_carlo(d, seed):
    X, y = _linear_toy(d, 10, seed)
    c = _mc_centre(X, y)
    res = kernel_billiard(X @ X.T, y, tol=1e-3, refresh=0.1, random_state=0)
    w = X.T @ res.alpha
    assert w / np.linalg.norm(w) @ c > 0.99


def test_elongated_version_space_bayes_point_differs_from_svm():
    X, y = _linear_toy(3, 10, 0, elongate=0.1)
    y = y.astype(float)
    c = _mc_centre(X, y)
    res = kernel_billiard(X @ X.T, y, tol=1e-3, refresh=0.1, random_state=0)
    w_bp = X.T @ res.alpha
    w_bp /= np.linalg.norm(w_bp)
    # hard-margin SVM without bias (LKC eq. 2.45 dual) from the generic QP
    Y = np.diag(y)
    a = solve_qp(Y @ X @ X.T @ Y, -np.ones(10), l=0.0).x
    w_svm = X.T @ (a * y)
    w_svm /= np.linalg.norm(w_svm)
    assert w_bp @ c > 0.99
    assert w_svm @ c < 0.95  # the SVM centre is far from the centre of mass here
    assert np.degrees(np.arccos(w_bp @ w_svm)) > 10


def test_geodesic_continuation_and_random_restarts():
    X, y = _linear_toy(3, 10, 4)  # a wide version space: long flights occur
    c = _mc_centre(X, y)
    r1 = kernel_billiard(X @ X.T, y, tol=1e-3, tau_max=0.3, refresh=0.1, random_state=0)
    r2 = kernel_billiard(X @ X.T, y, tol=1e-3, tau_max=1.0, restart="random", refresh=0.1,
                         random_state=0)
    assert r1.n_restarts > 0 and r2.n_restarts > 0
    assert r1.kernel_evaluations["restarts"] < r2.kernel_evaluations["restarts"]
    for r in (r1, r2):
        w = X.T @ r.alpha
        assert w / np.linalg.norm(w) @ c > 0.99


# ------------------------------------------------------------ kernel work

def _counting_rbf():
    base = RBF(0.5)
    count = [0]

    def k(A, B):
        count[0] += len(A) * len(B)
        return base(A, B)
    return CallableKernel(k), count


@pytest.mark.parametrize("m", [50, 100, 200])
def test_one_kernel_column_per_bounce(m):
    X, y = _moons(m)
    start, _ = find_version_space_point(Gram(RBF(0.5), X, precompute=False), y,
                                        random_state=0)
    asked, computed, counted = [], [], []
    for B in (40, 80):
        kern, count = _counting_rbf()
        gram = Gram(kern, X, precompute=False)
        count[0] = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            r = kernel_billiard(gram, y, start=start, tol=1e-12, max_bounces=B, random_state=0)
        assert r.n_bounces == B
        asked.append(gram.n_evaluations)
        computed.append(gram.n_computed)
        counted.append(count[0])
    # 40 extra bounces ask for exactly 40 kernel columns of length m ...
    assert asked[1] - asked[0] == 40 * m
    # ... and compute at most that many (the column cache serves repeated walls);
    # the wrapper around the kernel confirms the Gram object's own count
    assert 0 < counted[1] - counted[0] <= 40 * m
    assert counted[1] - counted[0] == computed[1] - computed[0]
    # the same run through the kernel and inputs (columns on demand)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        r2 = kernel_billiard(kernel=RBF(0.5), X=X, y=y, start=start, tol=1e-12,
                             max_bounces=80, random_state=0)
    np.testing.assert_allclose(r2.alpha, r.alpha, atol=1e-10)


def test_gram_object_matches_full_gram():
    X, _ = _moons(30)
    G = RBF(0.5)(X)
    on_demand = Gram(RBF(0.5), X, ridge=0.3, precompute=False)
    pre = Gram(G=G, ridge=0.3)
    v = np.random.default_rng(0).standard_normal(30)
    np.testing.assert_allclose(on_demand.matvec(v), (G + 0.3 * np.eye(30)) @ v, atol=1e-12)
    np.testing.assert_allclose(pre.column(4), G[:, 4] + 0.3 * np.eye(30)[:, 4])
    np.testing.assert_allclose(on_demand.full(), pre.full())
    assert on_demand.n_evaluations == 2 * 30 * 30
    # the billiard gives the same result from the matrix with lam and from the Gram object
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    r1 = kernel_billiard(G, y, lam=0.3, tol=1e-2, random_state=0)
    r2 = kernel_billiard(pre, y, tol=1e-2, random_state=0)
    np.testing.assert_allclose(r1.alpha, r2.alpha, atol=1e-12)
    with pytest.raises(ValueError, match="ridge"):
        kernel_billiard(pre, y, lam=0.3)


# ----------------------------------------------------------- soft boundaries

def test_soft_boundaries_make_any_sample_separable():
    """E14: the soft boundary adds lam to the Gram diagonal (G + lam I), so any sample,
    even one with identical inputs of opposite labels, becomes separable."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((20, 2))
    X[10:] = X[:10]  # identical inputs ...
    y = np.r_[np.ones(10), -np.ones(10)]  # ... with opposite labels
    G = RBF(1.0)(X)
    with pytest.raises(NotSeparableError, match="lam > 0"):
        kernel_billiard(G, y, random_state=0)
    for lam in (0.1, 1.0):
        res = kernel_billiard(G, y, lam=lam, tol=1e-2, random_state=0)
        Gl = G + lam * np.eye(20)
        assert np.min(y * (Gl @ res.alpha)) > 0  # in the version space of G + lam I
        assert res.alpha @ Gl @ res.alpha == pytest.approx(1.0)
    # with k_ii != 1 (a linear kernel on inputs of unequal norms) the two forms differ: lam is
    # added to the diagonal (the run equals one on G + lam I), not multiplied into it (BPM eq.
    # 27, TR eq. 18 read literally: k_ii (1 + lam))
    Xl = rng.standard_normal((20, 3)) * rng.uniform(0.5, 2.0, (20, 1))
    yl = np.where(Xl[:, 0] > 0, 1.0, -1.0)
    K = Xl @ Xl.T
    soft = kernel_billiard(K, yl, lam=0.5, tol=1e-2, random_state=0)
    added = kernel_billiard(K + 0.5 * np.eye(20), yl, tol=1e-2, random_state=0)
    scaled = kernel_billiard(K + 0.5 * np.diag(np.diag(K)), yl, tol=1e-2, random_state=0)
    np.testing.assert_allclose(soft.alpha, added.alpha, atol=1e-10)
    assert not np.allclose(soft.alpha, scaled.alpha, atol=1e-3)


# ----------------------------------------------------------- RM variants

def test_light_trap_error_count_never_increases():
    X, y = _moons(80, seed=2)
    G = RBF(0.4)(X)
    gamma, errors = light_trap(G, y, random_state=0)
    assert errors[0] > 0 and errors[-1] == 0
    assert np.all(np.diff(errors) <= 0)
    assert np.min(y * (G @ gamma)) > -1e-9


def test_flipper_threshold_coordinate_separates_shifted_data():
    """E21: plane normals y (phi(x), 1) / sqrt(k(x, x) + 1), without RM eq. 18.21's alpha_p."""
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 3, (30, 1))
    y = np.where(X[:, 0] > 1.5, 1.0, -1.0)  # needs a threshold with a linear kernel
    res, b = flipper(X @ X.T, y, tol=1e-2, refresh=0.1, random_state=0)
    f = (X @ X.T) @ res.alpha + b
    assert np.all(np.sign(f) == y)
    # the threshold is the extra coordinate of the centre of mass
    assert b == pytest.approx(np.sum(res.alpha))


def test_onion_shells():
    X, y = _moons(40, seed=3)
    G = RBF(0.5)(X)
    shells = onion_billiard(G, y, n_shells=2, n_flights=300, random_state=0)
    assert (0, 0) in shells
    a0 = shells[(0, 0)]
    assert np.min(y * (G @ a0)) > 0  # zero-error shell average stays in version space
    for (nn, npos), a in shells.items():
        assert nn + npos <= 2
        errs_neg = np.sum((y < 0) & (G @ a > 0))
        errs_pos = np.sum((y > 0) & (G @ a < 0))
        assert errs_neg + errs_pos <= len(y)
        assert a @ G @ a == pytest.approx(1.0)


def test_polygon_billiard_centre_tends_to_centroid():
    P = np.array([[0, 0], [4, 0], [5, 2], [2, 4], [-1, 2.5]], float)
    tri = np.array([[0, 0], [3, 0], [0, 3]], float)
    np.testing.assert_allclose(polygon_centroid(tri)[0], tri.mean(axis=0))
    assert polygon_centroid(tri)[1] == pytest.approx(4.5)
    pts, centre = polygon_billiard(P, start=[1.5, 1.5], direction=[1.0, 0.37], n_bounces=4000)
    cen, _ = polygon_centroid(P)
    assert np.linalg.norm(centre - cen) < 0.05
    # every bounce point is on the boundary, inside the polygon's bounding box
    assert pts[:, 0].min() >= -1 - 1e-9 and pts[:, 0].max() <= 5 + 1e-9


def test_input_errors():
    G = np.eye(3)
    with pytest.raises(ValueError):
        kernel_billiard(G, [1, 2, 1])
    with pytest.raises(ValueError):
        kernel_billiard(G, [1, -1, 1], tau_max=0)
    with pytest.raises(ValueError):
        kernel_billiard(G, [1, -1, 1], start=[-1.0, -1.0, -1.0])
    with pytest.raises(ValueError):
        kernel_billiard(np.ones((2, 3)), [1, -1])
    with pytest.raises(NotSeparableError, match="positive"):  # a zero vector bounds nothing
        kernel_billiard(np.diag([1.0, 0.0, 1.0]), [1, -1, 1])


def test_polygon_bisector_and_inscribed_circle():
    from kernelclf.bayespoint import clip_polygon, polygon_bisector, polygon_inscribed_circle
    P = np.array([[0, 0], [4, 0], [5, 2], [2, 4], [-1, 2.5]], float)
    A = polygon_centroid(P)[1]
    for ang in np.linspace(0, np.pi, 7):
        n = np.array([np.cos(ang), np.sin(ang)])
        b = polygon_bisector(P, n)
        assert polygon_centroid(clip_polygon(P, n, b))[1] == pytest.approx(A / 2, rel=1e-8)
    # unit square: the inscribed circle is centred with radius 1/2
    c, r = polygon_inscribed_circle([[0, 0], [1, 0], [1, 1], [0, 1]])
    np.testing.assert_allclose(c, [0.5, 0.5], atol=1e-8)
    assert r == pytest.approx(0.5)
    # 3-4-5 right triangle: inradius = (a + b - c) / 2 = 1, centre (1, 1)
    c, r = polygon_inscribed_circle([[0, 0], [4, 0], [0, 3]])
    np.testing.assert_allclose(c, [1, 1], atol=1e-8)
    assert r == pytest.approx(1.0)


# ------------------------------------------- engines: one driver, one generator (issue 24)

def _run_all_engines(G, y, **kw):
    """The same seeded call on every engine (runs capped by max_bounces do not warn)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return {e: kernel_billiard(G, y, engine=e, **kw) for e in ("compiled", "python", "numpy")}


def _assert_same_run(runs):
    """Same bounces, restarts, kernel work, chords and Bayes point (the engines do the
    same floating-point operations in the same order, so they agree to the last bits)."""
    ref = runs["compiled"]
    assert ref.engine == "compiled" and ref.n_bounces > 0
    for name, r in runs.items():
        assert r.engine == name
        assert (r.n_bounces, r.n_flights, r.n_restarts, r.converged) == \
            (ref.n_bounces, ref.n_flights, ref.n_restarts, ref.converged), name
        assert r.kernel_evaluations == ref.kernel_evaluations, name
        np.testing.assert_allclose(r.alpha, ref.alpha, rtol=0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(r.chords, ref.chords, rtol=0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(r.rho2, ref.rho2, rtol=1e-12, err_msg=name)


_PROBLEMS = {
    "moons-rbf": lambda: (*_moons(60, seed=0), RBF(0.5)),
    "moons-rbf-wide": lambda: (*_moons(40, seed=4), RBF(1.5)),
    "teacher-3d": lambda: (*_linear_toy(3, 10, 0), None),
}


@needs_numba
@pytest.mark.parametrize("problem", sorted(_PROBLEMS))
@pytest.mark.parametrize("refresh, seed", [(0.1, 0), (0.1, 7), (0.3, 2)])
def test_engines_return_the_same_bayes_point_with_random_refreshes(problem, refresh, seed):
    """Issue 24: with random refreshes a seeded call made different bounces and Bayes
    points in the compiled and the Python engine. All random numbers now come from the
    driver's generator: every engine flies the same trajectory."""
    X, y, kernel = _PROBLEMS[problem]()
    G = X @ X.T if kernel is None else kernel(X)
    runs = _run_all_engines(G, y, tol=1e-3, refresh=refresh, random_state=seed)
    assert runs["compiled"].converged
    assert runs["compiled"].kernel_evaluations["refresh"] > 0  # refreshes did happen
    _assert_same_run(runs)


@pytest.mark.parametrize("kw", [
    dict(tau_max=0.3, refresh=0.1),                            # geodesic continuations
    dict(tau_max=1.0, restart="random", refresh=0.1),          # random restarts
    dict(tau_max=0.3, restart="centre", refresh=0.1),          # restarts from the centre
    dict(stopping="tr", max_bounces=3000, min_bounces=10),     # TR Alg. 1's rule (E12)
    dict(stopping="batch", tol=0.02, refresh=0.2),             # batch-means rule
    dict(weighting="arc", refresh=0.1, tol=2e-3),              # slerp averaging
])
@needs_numba
def test_engines_agree_on_restarts_rules_and_weightings(kw):
    X, y = _linear_toy(3, 10, 4)  # a wide version space: long flights occur
    kw = {"tol": 1e-3, **kw}
    runs = _run_all_engines(X @ X.T, y, random_state=5, **kw)
    if "tau_max" in kw:
        assert runs["compiled"].n_restarts > 0
        # random restarts draw directions (m^2 evaluations), geodesic continuations do not
        assert (runs["compiled"].kernel_evaluations["restarts"] > 0) == ("restart" in kw)
    _assert_same_run(runs)


@needs_numba
def test_engines_record_the_same_trajectory_across_trace_buffers():
    """Records fill several trace buffers (the loop hands them to the driver when
    full); every engine records the same flights, and the records are consistent."""
    X, y = _moons(60, seed=0)
    G = RBF(0.5)(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        runs = {e: kernel_billiard(G, y, tol=1e-12, max_bounces=5000, refresh=0.1,
                                   record=True, random_state=1, engine=e)
                for e in ("compiled", "numpy")}
    a, b = runs["compiled"], runs["numpy"]
    n = a.n_flights
    assert n > 2 * 2184  # more flights than one record buffer holds at m = 60
    assert len(a.positions) == n + 1 and len(a.midpoints) == len(a.hits) == len(a.chords) == n
    assert a.hits == b.hits
    np.testing.assert_allclose(np.array(a.positions), np.array(b.positions), atol=1e-10)
    np.testing.assert_allclose(np.array(a.midpoints), np.array(b.midpoints), atol=1e-10)
    # independent check of the records: each chord is the distance between positions
    P = np.array(a.positions)
    D = P[1:] - P[:-1]
    np.testing.assert_allclose(np.sqrt(np.einsum("ij,jk,ik->i", D, G, D)), a.chords, atol=1e-9)


def test_refreshes_happen_with_the_given_probability_per_bounce(monkeypatch):
    """The driver draws the bounce of the next refresh as a geometric gap; the number of
    refreshes must be binomial(n_bounces, refresh). Counted through the direction helper,
    which every random direction goes through (one call at the start)."""
    import kernelclf.bayespoint.billiard as kb

    calls = []
    helper = kb._random_direction

    def counting(*args, **kwargs):
        calls.append(1)
        return helper(*args, **kwargs)

    monkeypatch.setattr(kb, "_random_direction", counting)
    X, y = _moons(40, seed=1)
    G = RBF(0.7)(X)
    for refresh in (0.05, 0.3):
        calls.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            r = kb.kernel_billiard(G, y, tol=1e-12, max_bounces=20_000, refresh=refresh,
                                   random_state=3)
        n, k = r.n_bounces, len(calls) - 1
        sd = np.sqrt(n * refresh * (1 - refresh))
        assert abs(k - n * refresh) < 5 * sd
        assert r.kernel_evaluations["refresh"] >= k * 40 * 40
    calls.clear()
    kb.kernel_billiard(G, y, tol=1e-2, refresh=0.0, random_state=3)
    assert len(calls) == 1  # no refresh: only the starting direction


def _draws(f):
    """Run ``f`` between two snapshots of NumPy's global random state."""
    before = np.random.get_state()
    out = f()
    after = np.random.get_state()
    assert before[0] == after[0] and before[2:] == after[2:]
    np.testing.assert_array_equal(before[1], after[1])
    return out


def test_seeded_runs_leave_the_global_random_state_alone():
    """No engine reseeds or consumes NumPy's global generator (it did without numba),
    and the answer does not depend on it (the test puts the global state back)."""
    X, y = _moons(40, seed=3)
    G = RBF(0.6)(X)
    kw = dict(tol=1e-2, refresh=0.2, restart="random", tau_max=0.5)
    saved = np.random.get_state()
    try:
        for engine in ("compiled", "python", "numpy") if HAVE_NUMBA else ("python", "numpy"):
            a = _draws(lambda e=engine: kernel_billiard(
                G, y, random_state=np.random.RandomState(8), engine=e, **kw))
            np.random.standard_normal(3)  # another global state: the same answer
            b = _draws(lambda e=engine: kernel_billiard(G, y, random_state=8, engine=e, **kw))
            assert a.n_restarts > 0 and a.kernel_evaluations["refresh"] > 0
            np.testing.assert_array_equal(a.alpha, b.alpha)
        _draws(lambda: light_trap(G, y, random_state=0))
        _draws(lambda: onion_billiard(G, y, n_shells=1, n_flights=50, random_state=0))
        _draws(lambda: flipper(G, y, tol=1e-2, refresh=0.1, random_state=0))
    finally:
        np.random.set_state(saved)


def test_rujan_variants_draw_their_directions_with_the_billiard_helper(monkeypatch):
    """The flipper (a kernel billiard), the light trap and the onion billiard take every
    random direction from the kernel billiard's helper, so a seed fixes their results."""
    import kernelclf.bayespoint.billiard as kb
    import kernelclf.bayespoint.rujan as kr

    X, y = _moons(40, seed=3)
    G = RBF(0.5)(X)
    calls = []
    helper = kb._random_direction

    def counting(*args, **kwargs):
        calls.append(1)
        return helper(*args, **kwargs)

    monkeypatch.setattr(kb, "_random_direction", counting)
    monkeypatch.setattr(kr, "_random_direction", counting)
    runs = {
        "flipper": lambda: flipper(G, y, tol=1e-2, refresh=0.1, random_state=0)[0].alpha,
        "light trap": lambda: light_trap(G, y, random_state=0)[0],
        "onion": lambda: onion_billiard(G, y, n_shells=1, n_flights=100, random_state=0)[(0, 0)],
    }
    for name, run in runs.items():
        calls.clear()
        first = run()
        assert calls, name
        np.testing.assert_array_equal(run(), first, err_msg=name)


def test_random_direction_helper():
    """The one helper behind every random direction: unit length in feature space,
    tangent to the sphere at the position, pointing into version space from the wall
    the ball is on, and a function of the generator only."""
    from kernelclf.bayespoint.billiard import _random_direction

    X, y = _moons(30, seed=2)
    G = RBF(0.6)(X)
    cols = Gram(G=G)
    gamma, _ = find_version_space_point(G, y, random_state=0)
    gamma /= np.sqrt(gamma @ G @ gamma)
    u = G @ gamma
    for last in (None, 0, 5, 17):
        for seed in range(5):
            beta, w = _random_direction(cols, np.random.RandomState(seed), y, last, gamma, u)
            np.testing.assert_allclose(w, G @ beta, atol=1e-12)
            assert beta @ G @ beta == pytest.approx(1.0)
            assert abs(gamma @ G @ beta) < 1e-10
            if last is not None:
                assert y[last] * (G @ beta)[last] >= 0
            again = _random_direction(cols, np.random.RandomState(seed), y, last, gamma, u)
            np.testing.assert_array_equal(again[0], beta)


@needs_numba
def test_engine_choice_and_runs_without_numba(monkeypatch):
    """Which engine runs: 'auto' takes the compiled loop for a stored matrix and the
    Python loop for columns on demand; without numba (Pyodide; here the module's flag is
    switched off) it takes the NumPy twins, 'python' runs as 'numpy' and 'compiled'
    is refused. The answer is the same in every case."""
    import kernelclf.bayespoint.billiard_engines as eng

    X, y = _moons(50, seed=2)
    kernel = RBF(0.6)
    G = kernel(X)
    kw = dict(tol=1e-3, refresh=0.1, random_state=4)
    with_numba = [kernel_billiard(G, y, **kw), kernel_billiard(kernel=kernel, X=X, y=y, **kw)]
    assert [r.engine for r in with_numba] == ["compiled", "python"]
    monkeypatch.setattr(eng, "HAVE_NUMBA", False)
    without = [kernel_billiard(G, y, **kw), kernel_billiard(kernel=kernel, X=X, y=y, **kw),
               kernel_billiard(G, y, engine="python", **kw)]
    assert [r.engine for r in without] == ["numpy"] * 3
    # stored matrix with each other, columns on demand with each other (a column computed
    # alone may differ from the stored matrix's in the last bit)
    for group in ((with_numba[0], without[0], without[2]), (with_numba[1], without[1])):
        for r in group[1:]:
            assert r.n_bounces == group[0].n_bounces
            np.testing.assert_allclose(r.alpha, group[0].alpha, rtol=0, atol=1e-12)
    with pytest.raises(ImportError, match="numba"):
        kernel_billiard(G, y, engine="compiled", **kw)
    with pytest.raises(ValueError, match="engine"):
        kernel_billiard(G, y, engine="fortran")
    with pytest.raises(ValueError, match="refresh"):
        kernel_billiard(G, y, refresh=1.5)


def test_without_numba_the_billiard_finds_the_centre_of_mass(monkeypatch):
    """The NumPy engine against the brute-force reference (rejection sampling)."""
    import kernelclf.bayespoint.billiard_engines as eng

    monkeypatch.setattr(eng, "HAVE_NUMBA", False)
    X, y = _linear_toy(3, 10, 0)
    c = _mc_centre(X, y)
    for rule, tol in (("rho2", 1e-3), ("batch", 0.02)):
        res = kernel_billiard(X @ X.T, y, tol=tol, stopping=rule, refresh=0.1, random_state=0)
        assert res.converged and res.engine == "numpy"
        w = X.T @ res.alpha
        assert w / np.linalg.norm(w) @ c > 0.99


# ------------------------------------------------ step twins: compiled against NumPy

def test_fixed_order_dot_product_twins():
    """The one sum over the examples: both twins give the same bits, and agree with an
    exactly rounded sum (math.fsum) to round-off; every length mod 8 is tried."""
    import math

    import kernelclf.bayespoint.billiard_engines as kb

    rng = np.random.default_rng(3)
    for m in (*range(1, 20), 64, 333):
        a, b = rng.normal(size=m), rng.normal(size=m)
        d = kb._dot(a, b)
        assert d == kb._dot_np(a, b)
        assert d == pytest.approx(math.fsum(a * b), abs=1e-13 * np.abs(a * b).sum())
    assert kb._dot(np.zeros(0), np.zeros(0)) == kb._dot_np(np.zeros(0), np.zeros(0)) == 0.0


def test_numpy_twins_match_the_compiled_steps():
    """Same inputs, same outputs, to the bit (the arc weights call sin/cos/acos, where
    the compiled and Python math libraries may differ in the last bit)."""
    import kernelclf.bayespoint.billiard_engines as kb

    rng = np.random.default_rng(0)
    m = 30
    X, y = _moons(m, seed=5)
    G = RBF(0.8)(X)
    gamma, _ = find_version_space_point(G, y, random_state=0)
    gamma /= np.sqrt(gamma @ G @ gamma)
    beta = rng.normal(size=m)
    beta -= (gamma @ G @ beta) * gamma
    beta /= np.sqrt(beta @ G @ beta)
    u, w = G @ gamma, G @ beta
    T = np.empty(m)
    for last in (-1, 3):
        for tau_max in (20.0, 1e-9):  # a wall ahead / none nearer than tau_max
            assert kb._next_wall(y, u, w, last, tau_max, T) == \
                kb._next_wall_np(y, u, w, last, tau_max, T)
            T2 = np.empty(m)
            kb._times(y, u, w, T)
            kb._times_np(y, u, w, T2)
            np.testing.assert_array_equal(T, T2)
            assert kb._pick_wall(T, last, tau_max) == kb._pick_wall_np(T2, last, tau_max)
    c, t = kb._next_wall(y, u, w, -1, 20.0, T)
    assert c >= 0
    ga = rng.normal(size=m)
    for cc, fix in ((c, False), (c, True), (-1, False)):  # bounces, a geodesic flight
        states = []
        for step in (kb._step, kb._step_np):
            arrays = [a.copy() for a in (gamma, u, beta, w)]
            z, uz, Ts = np.zeros(m), np.zeros(m), np.full(m, -7.0)
            col, kcc = (G[cc], G[cc, cc]) if cc >= 0 else (np.diag(G).copy(), 1.0)
            out = step(*arrays, t, z, uz, cc, col, kcc, ga, fix, y, Ts, 0.0)
            states.append((out, arrays, z, uz, Ts))
            if fix:  # T is left alone (the loop recomputes it)
                np.testing.assert_array_equal(Ts, -7.0)
            else:  # the fused flight times are those of the new position and direction
                Tn = np.empty(m)
                kb._times(y, arrays[1], arrays[3], Tn)
                np.testing.assert_array_equal(Ts, Tn)
                for last in (-1, cc):
                    assert kb._pick_wall(Ts.copy(), last, 20.0) == \
                        kb._next_wall(y, arrays[1], arrays[3], last, 20.0, np.empty(m))
        (o1, a1, z1, uz1, T1), (o2, a2, z2, uz2, T2) = states
        assert o1 == o2
        for p, q in zip([*a1, z1, uz1, T1], [*a2, z2, uz2, T2]):
            np.testing.assert_array_equal(p, q)
        if cc >= 0:  # a column of G + lam I, or of G with the ridge added by the step
            lam = 0.37
            col_lam = G[cc].copy()
            col_lam[cc] += lam
            runs = []
            for step, col, ridge in ((kb._step, col_lam, 0.0), (kb._step, G[cc], lam),
                                     (kb._step_np, G[cc], lam), (kb._step_np, col_lam, 0.0)):
                arrays = [a.copy() for a in (gamma, u, beta, w)]
                z, uz, Ts = np.zeros(m), np.zeros(m), np.zeros(m)
                out = step(*arrays, t, z, uz, cc, col, G[cc, cc] + lam, ga, fix, y, Ts, ridge)
                runs.append((out, *arrays, z, uz, Ts))
            for run in runs[1:]:
                assert run[0] == runs[0][0]
                for p, q in zip(run[1:], runs[0][1:]):
                    np.testing.assert_array_equal(p, q)
    for arc in (False, True):
        for Xi in (0.0, 0.7):  # the first flight copies the midpoint
            res = []
            for acc in (kb._accumulate, kb._accumulate_np):
                alpha, gaa = gamma.copy(), u.copy()
                fs = np.array([Xi, 0.2, 0.9, 0.0, 0.0, 0.0, 0.1])  # 7th: p_max (TR rule)
                xi = acc(alpha, gaa, beta, w, 0.3, 0.2, fs, arc, 0.4, True)
                res.append((xi, alpha, gaa, fs))
            for p, q in zip(res[0], res[1]):
                np.testing.assert_allclose(p, q, rtol=1e-15 if arc else 0, atol=0)
    bc, bo = rng.normal(size=(12, m)), rng.normal(size=(12, m))
    bl = rng.uniform(1, 2, size=12)
    args = (bc, bo, bl, 12, bc.sum(0), bo.sum(0), bl.sum())
    assert kb._batch_error(*args) == kb._batch_error_np(*args)


def _next_wall_reference(y, u, w, last, tau_max):
    """The nearest wall ahead by a plain loop over the walls (one test and one comparison
    per wall, the first of equal times kept): the definition the engines' vectorised
    two-pass search must reproduce to the bit."""
    best, c = math.inf, -1
    for i in range(len(y)):
        nu = y[i] * w[i]
        if nu < 0.0 and i != last:
            t = max(-(y[i] * u[i]) / nu, 0.0)
            if t < best:
                best, c = t, i
    return (c, best) if best < tau_max else (-1, best)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 7, 8, 9, 13, 64, 301])
def test_next_wall_engines_match_a_plain_loop(m):
    """Both twins of the nearest-wall search equal the plain loop, index and time, on
    random flights with the cases the four-lane minimum must get right: equal times in
    different lanes and in the tail (the first index wins), walls crossed by round-off
    (negative times count as 0), walls parallel to the flight (nu = 0), no wall ahead,
    the wall just left excluded, every length modulo 4."""
    import kernelclf.bayespoint.billiard_engines as kb

    rng = np.random.default_rng(m)
    T = np.empty(m)
    n_ties = 0
    for trial in range(60):
        y = rng.choice([-1.0, 1.0], size=m)
        u = rng.uniform(0.0, 1.0, size=m) * y          # inside: y u > 0
        w = rng.normal(size=m)
        if trial % 3 == 1:                             # many equal times
            u = y * rng.choice([0.5, 1.0], size=m)
            w = -y * rng.choice([1.0, 2.0], size=m)
            n_ties += 1
        if trial % 5 == 2 and m > 1:                   # crossed walls, parallel walls
            u[rng.integers(m, size=2)] *= -1.0
            w[rng.integers(m)] = 0.0
        if trial % 7 == 3:                             # no wall ahead
            w = y * rng.uniform(0.1, 1.0, size=m)
        for last in (-1, int(rng.integers(m))):
            for tau_max in (math.inf, 1.0, 1e-12):
                want = _next_wall_reference(y, u, w, last, tau_max)
                for engine in (kb._next_wall, kb._next_wall_np):
                    got = engine(y, u, w, last, tau_max, T)
                    assert (int(got[0]), float(got[1])) == want, (engine, trial, last, tau_max)
    assert n_ties >= 20


@pytest.mark.parametrize("stopping", ["rho2", "rho2-printed", "batch", "tr"])
def test_stop_statistic_twins_match_over_many_flights(stopping):
    """Fed the same flights (random chords and midpoints, enough for the batch rule to
    fill, evaluate and merge its batches), both twins keep the same state and return
    the same statistics."""
    import kernelclf.bayespoint.billiard_engines as kb

    rng = np.random.default_rng(1)
    m = 7
    rule = kb._RULE_CODE[stopping]
    states = [kb._new_state(m, stopping) for _ in range(2)]
    out = [[], []]
    for n in range(2500):
        xi = rng.uniform(0.01, 0.5)
        z, uz = rng.normal(size=m), rng.normal(size=m)
        for j, f in enumerate((kb._stop_statistic, kb._stop_statistic_np)):
            fs, ist, batch = states[j]
            fs[kb._XI] += xi
            fs[kb._XIMAX] = max(fs[kb._XIMAX], xi)
            fs[kb._PMIN] = min(fs[kb._PMIN], 1.0 - 0.1 * xi)
            fs[kb._PMAX] = max(fs[kb._PMAX], 1.0 - 0.1 * xi)
            out[j].append(f(rule, fs, ist, xi, z, uz, *batch))
    np.testing.assert_array_equal(out[0], out[1])
    assert np.isfinite(out[0]).any() or stopping == "rho2-printed"
    for a, b in zip((states[0][0], states[0][1], *states[0][2]),
                    (states[1][0], states[1][1], *states[1][2])):
        np.testing.assert_array_equal(a, b)
    if stopping == "batch":
        assert states[0][1][kb._BSIZE] > kb.BATCH_START  # batches were merged
