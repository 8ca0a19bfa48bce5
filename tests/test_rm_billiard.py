"""Tests for Ruján and Marchand's additions: the flipper's restarts from the centre of mass
and its bounce estimate (RM Alg. 18.1, eq. 18.13, Lemma 18.1), TR Alg. 1's stopping rule
(E12) and the minimal-connector perceptron (RM §18.3, kernelclf.bayespoint.connector).

References are independent of the code under test: the hard-margin SVM (SMO and a QP),
Monte-Carlo centres of mass (kernelclf.bayespoint.versionspace), Hoeffding's inequality
evaluated directly, and a Monte-Carlo failure rate of the sample mean.
"""
import math

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from kernelclf.bayespoint import flipper, kernel_billiard, version_space_centre
from kernelclf.bayespoint.connector import minimal_connector
from kernelclf.bayespoint.rujan import flipper_bounce_estimate, hoeffding_sample_size
from kernelclf.datasets import make_linear_separable, make_teacher
from kernelclf.kernels import RBF, Linear
from kernelclf.margin import NotSeparableError, SupportVectorMachine

# ------------------------------------------------------------ minimal connector

@pytest.mark.parametrize("fit_bias", [True, False])
@pytest.mark.parametrize("kernel", [Linear(), RBF(1.0)])
def test_minimal_connector_is_the_hard_margin_svm(fit_bias, kernel):
    X, y = make_linear_separable(50, dim=2, margin=0.1, random_state=3)
    G = kernel(X)
    r = minimal_connector(G, y, fit_bias=fit_bias, tol=1e-10)
    svm = SupportVectorMachine(kernel, hard_margin=True, fit_bias=fit_bias).fit(X, y)
    assert r.converged
    assert r.margin == pytest.approx(svm.margin_, rel=1e-6)
    np.testing.assert_allclose(r.alpha, svm.alpha_, atol=1e-5 * np.abs(svm.alpha_).max())
    assert r.intercept == pytest.approx(svm.intercept_, abs=1e-5)
    assert set(r.active) == set(svm.support_)


def test_minimal_connector_geometry_eq_18_5_to_18_8():
    X, y = make_linear_separable(40, dim=2, margin=0.2, random_state=1)
    r = minimal_connector(X @ X.T, y, tol=1e-12)
    for s in (1, -1):  # convex weights per class (eq. 18.5-18.6)
        assert r.weights[y == s].sum() == pytest.approx(1.0)
    assert np.all(r.weights >= 0)
    Xp, Xm = r.weights[y > 0] @ X[y > 0], r.weights[y < 0] @ X[y < 0]
    assert r.length == pytest.approx(np.linalg.norm(Xp - Xm))
    # with a threshold the margin is half the connector's length (the gap of eq. 18.3)
    assert r.margin == pytest.approx(r.length / 2, rel=1e-6)
    # the active vertices satisfy eq. 18.1-18.2 as equalities: f = +-1 there
    f = X @ (X.T @ r.alpha) + r.intercept
    np.testing.assert_allclose(y[r.active] * f[r.active], 1.0, atol=1e-6)
    assert np.all(y * f >= 1 - 1e-6)


def test_minimal_connector_refuses_meeting_hulls():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.0], [3.0, 0.0]])
    y = np.array([1, 1, -1, -1])
    with pytest.raises(NotSeparableError):
        minimal_connector(X @ X.T, y)


# ------------------------------------------------------------ flipper restarts

def test_flipper_restarts_from_the_centre_of_mass():
    X, y = make_teacher(10, 3, random_state=4)
    G = X @ X.T
    c = version_space_centre(X, y, n_draws=200_000, random_state=1)
    r = kernel_billiard(G, y, tol=1e-3, tau_max=1.0, restart="centre", refresh=0.1,
                        record=True, random_state=0)
    assert r.n_restarts > 0
    # every restart draws a fresh direction: m^2 kernel entries each (a nearly radial
    # draw is redrawn, so a few restarts cost twice that)
    assert 1 <= r.kernel_evaluations["restarts"] / (r.n_restarts * 100) < 1.01
    w = X.T @ r.alpha
    assert w / np.linalg.norm(w) @ c > np.cos(np.radians(3))
    P = np.array(r.positions)  # positions (incl. those after restarts) stay in version space
    assert (y[None, :] * (P @ G)).min() > -1e-9


def test_centre_restart_moves_the_ball_to_the_estimate(monkeypatch):
    """At a restart the ball sits at the normalised current estimate when its new
    direction is drawn."""
    import kernelclf.bayespoint.billiard as kb

    X, y = make_teacher(10, 3, random_state=4)
    G = X @ X.T
    seen = []
    orig = kb._random_direction

    def spy(cols, rng, y_, last=None, gamma=None, u=None):
        seen.append((None if gamma is None else gamma.copy(), last))
        return orig(cols, rng, y_, last, gamma, u)

    monkeypatch.setattr(kb, "_random_direction", spy)
    r = kernel_billiard(G, y, tol=1e-2, tau_max=0.2, restart="centre", random_state=0,
                        max_bounces=300, min_bounces=300)
    assert r.n_restarts > 0 and len(seen) == 1 + r.n_restarts
    for gamma, last in seen[1:]:
        assert last is None  # the centre lies on no wall
        assert np.min(y * (G @ gamma)) > 0 and gamma @ G @ gamma == pytest.approx(1.0)


def test_flipper_defaults_to_centre_restarts_and_separates():
    X, y = make_teacher(10, 3, random_state=4)
    X = X + 2.0  # shifted data: the plane needs its threshold coordinate
    res, b = flipper(X @ X.T, y, tol=1e-2, refresh=0.1, tau_max=0.3, random_state=0)
    geo, _ = flipper(X @ X.T, y, tol=1e-2, refresh=0.1, tau_max=0.3, restart="geodesic",
                     random_state=0)
    # centre restarts draw directions (m^2 entries); geodesic continuations do not
    assert res.n_restarts > 0 and res.kernel_evaluations["restarts"] > 0
    assert geo.n_restarts > 0 and geo.kernel_evaluations["restarts"] == 0
    assert np.all(np.sign((X @ X.T) @ res.alpha + b) == y)


# ------------------------------------------------------------ TR's stopping rule (E12)

def test_tr_rule_stops_after_the_first_flight_without_the_guard():
    X, y = make_teacher(10, 3, random_state=0)
    r = kernel_billiard(X @ X.T, y, tol=1e-3, stopping="tr", min_bounces=1, random_state=0)
    assert r.converged and r.n_flights == 1 and r.statistic == 0.0


def test_tr_rule_never_fires_once_the_first_pass_is_skipped():
    X, y = make_teacher(10, 3, random_state=0)
    with pytest.warns(ConvergenceWarning):
        r = kernel_billiard(X @ X.T, y, tol=1e-3, stopping="tr", max_bounces=5000,
                            random_state=0)
    assert not r.converged and r.n_bounces == 5000
    # rho_2(p_max, xi_max / Xi) -> 1: it grows towards 1 instead of falling to TOL
    stats = np.array(r.rho2)
    assert stats[-1] > 0.99 and stats[-1] > stats[20]


# ------------------------------------------------------------ Lemma 18.1, eq. 18.13

def test_hoeffding_sample_size_makes_the_union_bound_equal_eta():
    n, eps, eta, a, b = 7, 0.3, 0.05, -1.0, 2.0
    k = hoeffding_sample_size(n, eps, eta, a, b)
    # Hoeffding (eq. 18.30) at accuracy eps / sqrt(n) per component, union over n
    union = n * 2 * math.exp(-2 * k * (eps / math.sqrt(n)) ** 2 / (b - a) ** 2)
    assert union == pytest.approx(eta)
    assert flipper_bounce_estimate(140, 0.05, 0.05) == hoeffding_sample_size(140, 0.05, 0.05)
    with pytest.raises(ValueError):
        hoeffding_sample_size(3, 0.1, 1.5)


def test_hoeffding_sample_size_is_sufficient_by_monte_carlo():
    n, eps, eta = 5, 0.4, 0.2
    k = int(hoeffding_sample_size(n, eps, eta, 0.0, 1.0)) + 1
    rng = np.random.default_rng(0)
    trials = 400
    # Bernoulli(1/2) components: the hardest case for Hoeffding on [0, 1]
    means = rng.binomial(k, 0.5, size=(trials, n)) / k
    fail = np.mean(np.linalg.norm(means - 0.5, axis=1) >= eps)
    assert fail <= eta


# ------------------------------------------------------------ diagrams and exercises

def test_diagrams_draw_the_geometry_they_claim():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kernelclf.bayespoint import diagrams as dg

    fig, ax = plt.subplots(2, 4)
    ax = ax.ravel()
    arc, chord = dg.draw_chord_and_arc(ax[0], theta=1.0)
    assert chord == pytest.approx(2 * np.sin(0.5)) and arc == 1.0
    n = np.array([0.2, 1.0]) / np.hypot(0.2, 1.0)
    tau, v_in, v_out = dg.draw_reflection(ax[1])
    # Householder mirror in coordinates, independent of reflect()
    np.testing.assert_allclose(v_out, v_in - 2 * (v_in @ n) * n, atol=1e-12)
    assert tau == pytest.approx(-(np.array([-0.9, 0.9]) @ n) / (v_in @ n))
    x, xm = dg.draw_point_mirror(ax[2], w_angle=0.9, x_angle=0.1)
    # reflection through the axis w: the angle of x' is 2 * 0.9 - 0.1
    np.testing.assert_allclose(xm, [np.cos(1.7), np.sin(1.7)], atol=1e-12)
    phi1, c = dg.draw_spherical_addition(ax[3], phi=1.2, wa=1.0, wb=3.0)
    assert phi1 == pytest.approx(0.9) and np.linalg.norm(c) == pytest.approx(1.0)
    out, passed = dg.draw_semi_transparent_mirror(ax[4])
    assert out[1] > 0 and passed[1] > 0  # both leave on the upper side
    t = dg.draw_onion_flight(ax[5])
    assert np.all(t > 0) and np.all(np.diff(t) > 0)
    X, y = make_linear_separable(30, dim=2, margin=0.3, random_state=2)
    r = dg.draw_minimal_connector(ax[6], X, y)
    svm = SupportVectorMachine(Linear(), hard_margin=True, fit_bias=True).fit(X, y)
    assert r.margin == pytest.approx(svm.margin_, rel=1e-6)
    plt.close(fig)


def test_ch11_exercise_answers_match_the_functions():
    from kernelclf.book.exercises import ch11

    ex = {e.label: e for e in ch11.EXERCISES}
    assert ex["ch11-ex-4"].answer == pytest.approx(hoeffding_sample_size(140, 0.05, 0.05))
    assert all(abs(w - ex["ch11-ex-4"].answer) > 0.1 * ex["ch11-ex-4"].answer
               for w, _ in ex["ch11-ex-4"].wrong_answers)
    v, x = np.array([1.0, 2.0]), np.array([0.0, 2.0])
    np.testing.assert_allclose(ex["ch11-ex-1"].solution(v, x), [1.0, -2.0])


@pytest.mark.parametrize("restart", ["random", "centre"])
def test_a_stuck_ball_stops_with_a_warning(restart):
    """With tau_max far below every flight, each restart is followed by another one; the
    run stops after 1000 of them in a row instead of running to max_restarts."""
    X, y = make_teacher(10, 3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="in a row without a bounce"):
        r = kernel_billiard(X @ X.T, y, tau_max=1e-4, restart=restart, random_state=0)
    assert not r.converged and r.n_bounces < 10 and r.n_restarts <= 1001 + r.n_bounces * 1001
