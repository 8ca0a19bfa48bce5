"""Tests of kernelclf.margin.rmm_theory (RMM eq. 1, eq. 2 / Lemma 1, eq. 9-10) and of the
Universum SVM (kernelclf.margin.universum, RMM §5.4.1)."""
import numpy as np
import pytest

pytest.importorskip("cvxopt")

from kernelclf.kernels import RBF  # noqa: E402
from kernelclf.margin import SupportVectorMachine  # noqa: E402
from kernelclf.margin.rmm_theory import (  # noqa: E402
    affine_map_problem,
    chebyshev_eta,
    rmm_dual_value,
    rmm_primal_linear,
    rmm_sdp_dual,
)
from kernelclf.margin.universum import UniversumSVM  # noqa: E402


def _toy(m=16, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 2)) * [2.0, 0.6]
    y = np.where(X[:, 1] + 0.3 * X[:, 0] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def test_chebyshev_eta_solves_eq1_with_equality():
    z = np.array([0.5, 1.0, 2.0, 3.5, -0.2])
    eta = chebyshev_eta(z)
    assert np.isclose(z.mean(), np.sqrt(eta / (1 - eta)) * z.std())
    assert chebyshev_eta(np.array([-1.0, 0.5])) == 0.0
    # a sample with mean 0 certifies nothing
    assert chebyshev_eta(np.r_[np.full(8, 1.0), np.full(2, -4.0)]) == 0.0
    # Cantelli: the share of non-negative values is at least eta (a random check)
    rng = np.random.default_rng(0)
    for _ in range(50):
        z = rng.normal(rng.uniform(0, 2), 1.0, 30) ** 3
        assert np.mean(z >= 0) >= chebyshev_eta(z) - 1e-12


def test_eq9_printed_form_is_wrong_and_corrected_form_equals_the_primal():
    """Erratum (RMM eq. 9): the dual of eq. 8 needs -B^2/2 sum(lambda) and
    -(alpha'y)^2 / (2 * 1'lambda); the SDP of the corrected form reaches the primal optimum
    and eq. 10 gives the primal w."""
    X, y = _toy()
    C, B = 1.0, 1.2
    w, b, primal = rmm_primal_linear(X, y, C, B)
    sdp = rmm_sdp_dual(X, y, C, B)
    assert sdp["value"] == pytest.approx(primal, rel=1e-6)
    np.testing.assert_allclose(sdp["w"], w, atol=1e-5)
    assert sdp["b"] == pytest.approx(b, abs=1e-5)
    corrected, w10, b10 = rmm_dual_value(sdp["alpha"], sdp["lam"], X, y, B, "corrected")
    assert corrected == pytest.approx(primal, rel=1e-6)
    np.testing.assert_allclose(w10, w, atol=1e-5)          # eq. 10 as printed is right
    printed, _, _ = rmm_dual_value(sdp["alpha"], sdp["lam"], X, y, B, "printed")
    assert printed > primal + 1.0                           # breaks weak duality
    # the printed form grows without bound in lambda (its B^2 term has the wrong sign)
    big, _, _ = rmm_dual_value(sdp["alpha"], 100 * sdp["lam"], X, y, B, "printed")
    assert big > 10 * primal
    # weak duality of the corrected form at arbitrary feasible points
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = rng.uniform(0, C, len(y))
        lam = rng.uniform(0, 1, len(y))
        assert rmm_dual_value(a, lam, X, y, B, "corrected")[0] <= primal + 1e-8


def test_sdp_homogeneous_form_is_the_two_middle_terms_of_the_corrected_dual():
    """Module docstring of rmm_theory: with x~ = [x; 1], M = diag(1, .., 1, 0) + sum lam x~x~'
    and a = sum alpha y x~, -1/2 a'M^{-1}a is the u-term plus the (alpha'y)^2-term of the
    corrected eq. 9, not those plus the -B^2/2 1'lam term (which the SDP keeps outside t)."""
    X, y = _toy()
    rng = np.random.default_rng(2)
    B = 1.2
    for _ in range(5):
        a = rng.uniform(0, 1, len(y))
        lam = rng.uniform(0.1, 1, len(y))
        Xt = np.c_[X, np.ones(len(y))]
        M = np.diag([1.0] * X.shape[1] + [0.0]) + (Xt.T * lam) @ Xt
        av = Xt.T @ (a * y)
        homogeneous = -0.5 * av @ np.linalg.solve(M, av)
        value = rmm_dual_value(a, lam, X, y, B, "corrected")[0]
        # value = 1'a + (the two middle terms) - B^2/2 1'lam
        assert value == pytest.approx(a.sum() + homogeneous - B ** 2 / 2 * lam.sum(), rel=1e-10)
        assert abs(B ** 2 / 2 * lam.sum()) > 1.0        # the B-term is not negligible here


def test_rmm_primal_linear_bounds_outputs_and_matches_svm_for_large_B():
    X, y = _toy()
    w, b, _ = rmm_primal_linear(X, y, 1.0, 1.2)
    assert np.abs(X @ w + b).max() <= 1.2 + 1e-6
    w2, b2, _ = rmm_primal_linear(X, y, 1.0, 1e3)
    svm = SupportVectorMachine("linear", C=1.0, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(X @ w2 + b2, svm.decision_function(X), atol=1e-4)


def test_lemma1_affine_map_has_rank_one():
    rng = np.random.default_rng(3)
    h = 0.71
    X = np.r_[np.c_[rng.uniform(-0.5, 3, 5), np.full(5, h)],
              np.c_[rng.uniform(-3, 0.5, 5), np.full(5, -h)]]
    y = np.r_[np.ones(5), -np.ones(5)]
    for s in (1.0, 4.0):
        r = affine_map_problem(X * [s, 1.0], y, E=1.0)
        sv = r["singular_values"]
        assert sv[1] < 1e-6 * sv[0]
        # the map sends every point to +-rho on the line of w0 (relative margin 100 %)
        out = (r["A"] @ np.c_[X * [s, 1.0], np.ones(10)].T)[0]
        np.testing.assert_allclose(y * out, r["rho"], atol=1e-5)


def test_affine_map_problem_has_no_positive_margin_on_a_sample_that_is_not_separable():
    """The affine_map_problem docstring: eq. 2 has no slacks, so only a separable sample
    gets rho > 0; on any other the function still returns (no error) with rho <= 0."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)           # random labels: not separable
    for b0 in (0.0, 0.5):
        assert affine_map_problem(X, y, E=1.0, b0=b0)["rho"] <= 1e-8
    Xs = np.r_[rng.normal(size=(15, 2)) + 3.0, rng.normal(size=(15, 2)) - 3.0]
    ys = np.r_[np.ones(15), -np.ones(15)]                   # separable: a positive margin
    assert affine_map_problem(Xs, ys, E=1.0)["rho"] > 0.1


def test_universum_svm_closed_case():
    # 1-D: -1 (y=-1), +1 (y=+1), Universum point 0.5. eps = 0: f(0.5) = 0 forces
    # f = 2x - 1; eps = 0.25: |f(0.5)| <= 0.25 gives f = 1.5x - 0.5 (worked out by hand).
    X, y, U = np.array([[-1.0], [1.0]]), np.array([-1, 1]), np.array([[0.5]])
    for eps, (w, b) in ((0.0, (2.0, -1.0)), (0.25, (1.5, -0.5))):
        u = UniversumSVM("linear", C=1e3, C_universum=1e3, epsilon=eps).fit(X, y, U)
        np.testing.assert_allclose(u.decision_function(np.array([[0.0], [1.0]])),
                                   [b, w + b], atol=1e-5)


def test_universum_svm_without_universum_is_svc_to_the_qps_accuracy():
    """The dual_coef_/support_ docstrings: without Universum points the coefficients are
    SVC's within 1e-3 C; support_ holds SVC's support and at most a few more points, whose
    coefficients are below 1e-4 C (the interior point has no exact zeros)."""
    from sklearn.svm import SVC

    from kernelclf.datasets import make_moons

    extras = 0
    for seed in range(5):
        X, y = make_moons(80, noise=0.3, random_state=seed)
        for C in (1.0, 10.0):
            u = UniversumSVM("rbf", C=C).fit(X, y)
            ref = SVC(C=C, gamma=u.kernel_.gamma, tol=1e-10).fit(X, y)
            d = np.zeros(len(y))
            d[ref.support_] = ref.dual_coef_[0]
            assert np.abs(u.alpha_ - d).max() < 1e-3 * C
            assert set(ref.support_) <= set(u.support_)
            more = np.setdiff1d(u.support_, ref.support_)
            assert np.all(np.abs(u.alpha_[more]) < 1e-4 * C)
            extras += len(more)
    assert extras > 0          # the caveat is real: some points beyond SVC's support


def test_universum_svm_without_universum_is_the_svm_and_keeps_kkt():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.sign(X[:, 0] + 0.5 * rng.normal(size=40))
    a = UniversumSVM(RBF(1.0), C=2.0).fit(X, y)
    s = SupportVectorMachine(RBF(1.0), C=2.0, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), s.decision_function(X), atol=1e-5)
    U = rng.normal(size=(20, 3))
    eps, CU = 0.1, 0.5
    u = UniversumSVM(RBF(1.0), C=2.0, C_universum=CU, epsilon=eps).fit(X, y, U)
    fu = u.decision_function(U)
    net = u.alpha_[40:]                       # beta_+ - beta_- per Universum point
    inside = np.abs(fu) < eps - 1e-4
    assert np.all(np.abs(net[inside]) < 1e-5)           # inside the band: no force
    outside = np.abs(fu) > eps + 1e-4
    assert np.allclose(np.abs(net[outside]), CU, atol=1e-5)   # outside: at the bound
    assert np.all(-np.sign(fu[outside]) == np.sign(net[outside]))
