"""Tests for kernelclf.bayespoint.billiard, kernelclf.bayespoint.rujan and kernelclf.bayespoint.polygon
(LKC Alg. 10, App. B.9; BPM §3.1; RM §18.2-18.5).

References are independent of the code under test: closed-form geometry
(Householder reflections, chord lengths), brute-force Monte-Carlo estimates
of the version-space centre of mass (kernelclf.bayespoint.versionspace, itself tested
against closed forms in tests/test_versionspace.py), the hard-margin SVM from a
QP, the shoelace centroid of a polygon and a kernel wrapper that counts evaluations.
"""
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
from kernelclf.datasets import make_teacher
from kernelclf.kernels import RBF, CallableKernel, Gram
from kernelclf.optim import solve_qp


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


def test_oplus_book_radicand_is_negative_erratum_E2():
    # LKC App. B.9 prints rho_1 = mu sqrt((-mu^2 - mu^2 c - 2)/(c + 1)): negative radicand
    c, mu = np.linspace(-0.9, 0.99, 30), 0.5
    assert np.all((-mu**2 - mu**2 * c - 2) / (c + 1) < 0)


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

def test_compiled_and_python_engines_fly_the_same_trajectory():
    """The compiled loop (stored Gram matrix) and the Python driver (columns from the
    Gram object, one per bounce) run the same steps: same start and direction give the
    same bounces and estimate; both match the recorded positions' version-space facts."""
    X, y = _moons(50, seed=2)
    G = RBF(0.6)(X)
    start, _ = find_version_space_point(G, y, random_state=0)
    runs = [kernel_billiard(G, y, start=start, tol=2e-3, random_state=3, engine=e)
            for e in ("compiled", "python")]
    runs.append(kernel_billiard(kernel=RBF(0.6), X=X, y=y, start=start, tol=2e-3,
                                random_state=3))  # columns on demand: the Python driver
    for r in runs[1:]:
        assert r.n_bounces == runs[0].n_bounces and r.converged
        np.testing.assert_allclose(r.alpha, runs[0].alpha, rtol=1e-9, atol=1e-12)
        assert r.kernel_evaluations["bounces"] == runs[0].kernel_evaluations["bounces"]
    assert runs[0].kernel_evaluations["bounces"] == 50 * runs[0].n_bounces  # one column each
    a = runs[0].alpha
    assert a @ G @ a == pytest.approx(1.0, abs=1e-9) and np.min(y * (G @ a)) > 0


def test_rho2_is_at_least_one_minus_mu_so_the_printed_rule_needs_1_over_tol_flights():
    """Closed form: rho_2(c, mu) >= 1 - mu on c in (-1, 1] (equality at c = 1, where the
    chord is a straight segment). With mu = Xi/(Xi + xi_max) and Xi <= n xi_max, the rule
    rho_2 <= tol needs n >= (1 - tol)/tol flights whatever the problem (BPM §4.2 reports
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
    c = np.linspace(-0.9, 1.0, 20)
    assert np.all((-0.25 - 0.25 * c - 2) / (c + 1) < 0)  # mu = 1/2: negative radicand
    with pytest.raises(ValueError, match="stopping"):
        kernel_billiard(RBF(0.7)(X), y, stopping="never")


def test_batch_means_error_formula_against_coordinates():
    """The batch-means standard error computed through cached outputs equals the same
    formula evaluated on explicit weight vectors (linear kernel, coordinates)."""
    from kernelclf.bayespoint.billiard import _batch_error

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


def test_soft_boundary_ridge_makes_points_equidistant():
    # BPM §3.3: ||phi_i - phi_j||^2 = 2 (1 + lam - k_ij) for unit-norm phi
    X, _ = _moons(10)
    G = RBF(0.5)(X)
    for lam in (0.0, 1.0, 100.0):
        Gl = G + lam * np.eye(10)
        d2 = np.diag(Gl)[:, None] + np.diag(Gl)[None, :] - 2 * Gl
        off = ~np.eye(10, dtype=bool)
        np.testing.assert_allclose(d2[off], (2 * (1 + lam - G))[off])


# ----------------------------------------------------------- RM variants

def test_light_trap_error_count_never_increases():
    X, y = _moons(80, seed=2)
    G = RBF(0.4)(X)
    gamma, errors = light_trap(G, y, random_state=0)
    assert errors[0] > 0 and errors[-1] == 0
    assert np.all(np.diff(errors) <= 0)
    assert np.min(y * (G @ gamma)) > -1e-9


def test_flipper_threshold_coordinate_separates_shifted_data():
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


# ---------------------------------------------------------------- without numba (Pyodide)

_TWINS = ("_next_wall", "_step", "_accumulate", "_batch_error", "_stop_statistic",
          "_random_direction_G")


@pytest.fixture
def numpy_twins(monkeypatch):
    """The billiard as it runs without numba: every compiled step replaced by its NumPy twin."""
    import kernelclf.bayespoint.billiard as kb

    for name in _TWINS:
        monkeypatch.setattr(kb, name, getattr(kb, name + "_np"))
    for name in ("_run_compiled", "_seed"):  # the whole loop as plain Python, as in Pyodide
        monkeypatch.setattr(kb, name, getattr(kb, name).py_func)
    return kb


def test_numpy_twins_match_the_compiled_steps():
    import kernelclf.bayespoint.billiard as kb

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
    for last in (-1, 3):
        assert kb._next_wall(y, u, w, last, 20.0) == pytest.approx(
            kb._next_wall_np(y, u, w, last, 20.0))
    c, t = kb._next_wall(y, u, w, -1, 20.0)
    assert c >= 0
    ga = rng.normal(size=m)
    for fix in (False, True):
        states = []
        for step in (kb._step, kb._step_np):
            arrays = [a.copy() for a in (gamma, u, beta, w)]
            z, uz = np.zeros(m), np.zeros(m)
            out = step(*arrays, t, z, uz, c, G[c], G[c, c], ga, fix)
            states.append((out, arrays, z, uz))
        (o1, a1, z1, uz1), (o2, a2, z2, uz2) = states
        np.testing.assert_allclose(o1, o2, rtol=1e-12)
        for p, q in zip([*a1, z1, uz1], [*a2, z2, uz2]):
            np.testing.assert_allclose(p, q, rtol=1e-10, atol=1e-12)
    for arc in (False, True):
        res = []
        for acc in (kb._accumulate, kb._accumulate_np):
            alpha, gaa = gamma.copy(), u.copy()
            fs = np.array([0.7, 0.2, 0.9, 0.0, 0.0, 0.0])
            xi = acc(alpha, gaa, beta, w, 0.3, 0.2, fs, arc, 0.4, True)
            res.append((xi, alpha, gaa, fs))
        for p, q in zip(res[0], res[1]):
            np.testing.assert_allclose(p, q, rtol=1e-12)
    bc, bo = rng.normal(size=(12, m)), rng.normal(size=(12, m))
    bl = rng.uniform(1, 2, size=12)
    args = (bc, bo, bl, 12, bc.sum(0), bo.sum(0), bl.sum())
    assert kb._batch_error(*args) == pytest.approx(kb._batch_error_np(*args), rel=1e-10)


def test_billiard_without_numba_flies_the_same_first_bounces(monkeypatch):
    """Same start, same random directions: the NumPy steps retrace the compiled ones."""
    import kernelclf.bayespoint.billiard as kb

    X, y = _moons(40, seed=3)
    G = RBF(0.6)(X)
    start, _ = find_version_space_point(G, y, random_state=0)
    runs = []
    for twins in (False, True):
        if twins:
            for name in _TWINS:
                monkeypatch.setattr(kb, name, getattr(kb, name + "_np"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            runs.append(kb.kernel_billiard(G, y, start=start, tol=1e-12, max_bounces=25,
                                           random_state=4, engine="python"))
    assert runs[0].n_bounces == runs[1].n_bounces == 25
    np.testing.assert_allclose(runs[1].alpha, runs[0].alpha, rtol=1e-6, atol=1e-9)


def test_billiard_without_numba_finds_the_centre_of_mass(numpy_twins):
    X, y = _linear_toy(3, 10, 0)
    c = _mc_centre(X, y)
    for rule, tol in (("rho2", 1e-3), ("batch", 0.02)):
        res = numpy_twins.kernel_billiard(X @ X.T, y, tol=tol, stopping=rule, refresh=0.1,
                                          random_state=0)
        assert res.converged
        w = X.T @ res.alpha
        assert w / np.linalg.norm(w) @ c > 0.99
