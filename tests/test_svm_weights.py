"""Example weights for the whole SVM family (issue 38).

References: scikit-learn's ``NuSVC`` and ``SVR`` fitted with the same ``sample_weight``
(libsvm's per-example weights), the relative margin machine's primal quadratic program
(RMM eq. 11 with per-example costs ``C w_i``) solved directly by cvxopt, and repetition:
integer weights must give the model of the repeated examples. Also ``C = inf`` (the hard
margin of the SVM, the hard tube of the SVR) against ``SVC`` / ``SVR``.
"""
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.svm import SVC, SVR, NuSVC

from kernelclf.kernels import RBF, Linear
from kernelclf.margin import (
    NuSupportVectorMachine,
    RelativeMarginMachine,
    RelaxedRMM,
    SupportVectorMachine,
    SupportVectorRegression,
)
from kernelclf.optim import solve_qp


def _classification(m=80, seed=0):
    X, y = make_classification(m, n_features=5, n_informative=3, random_state=seed,
                               flip_y=0.2)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, m)
    w[:5] = 0.0
    return X, y, w


def _regression(m=60, seed=0):
    X, t = make_regression(m, n_features=4, noise=5.0, random_state=seed)
    w = np.random.default_rng(seed + 1).uniform(0.1, 3.0, m)
    w[:4] = 0.0
    return X, t / 50.0, w


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_weighted_nu_svm_is_nusvc_with_sample_weight(kernel):
    """libsvm's weighted nu-SVC (box w_i, sum a = nu W): the same function, support and
    coefficients; NuSVC's are ours divided by rho_ (libsvm's scaling). scikit-learn's
    support_ indexes the examples of positive weight only (it drops the others first)."""
    X, y = make_classification(80, random_state=0, flip_y=0.2)    # rho > 0 at nu = 0.3
    w = np.random.default_rng(0).uniform(0.2, 3.0, 80)
    w[:5] = 0.0
    ours = NuSupportVectorMachine(kernel=kernel, nu=0.3, tol=1e-8).fit(X, y, sample_weight=w)
    assert ours.rho_ > 1e-3
    sk = NuSVC(kernel=kernel, nu=0.3, tol=1e-8).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.decision_function(X) / ours.rho_, sk.decision_function(X),
                               atol=1e-5)
    kept = np.flatnonzero(w > 0)
    np.testing.assert_array_equal(ours.support_, kept[sk.support_])
    np.testing.assert_allclose(ours.dual_coef_ / ours.rho_, sk.dual_coef_, atol=1e-5)
    assert ours.intercept_ / ours.rho_ == pytest.approx(sk.intercept_[0], abs=1e-5)
    assert not np.any(np.isin(ours.support_, np.flatnonzero(w == 0)))
    # the box: 0 <= alpha_i <= w_i / W
    assert np.all(ours.multipliers_ <= w / w.sum() + 1e-12)


def test_nu_svm_weights_are_repetitions_and_scale_free():
    X, y, _ = _classification(60, seed=3)
    reps = np.random.default_rng(3).integers(0, 4, 60)
    reps[y == 0][:2] = 3
    a = NuSupportVectorMachine(RBF(2.0), nu=0.2).fit(X, y, sample_weight=reps)
    b = NuSupportVectorMachine(RBF(2.0), nu=0.2).fit(np.repeat(X, reps, 0), np.repeat(y, reps))
    c = NuSupportVectorMachine(RBF(2.0), nu=0.2).fit(X, y, sample_weight=7.5 * reps)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-9)
    np.testing.assert_allclose(a.decision_function(X), c.decision_function(X), atol=1e-9)


def test_nu_svm_infeasible_weights_and_no_class_weight():
    """nu W / 2 <= min(W+, W-): the weighted feasibility, as libsvm checks it. No
    class_weight: NuSVC accepts one but ignores it (scikit-learn issue #30332), which the
    docstring says and this checks."""
    X, y, _ = _classification(40, seed=1)
    w = np.where(y == 1, 10.0, 1.0)
    with pytest.raises(ValueError, match=r"nu=0.5 is infeasible.*W\+, W-"):
        NuSupportVectorMachine(nu=0.5).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="specified nu is infeasible"):
        NuSVC(nu=0.5).fit(X, y, sample_weight=w)
    assert "class_weight" not in NuSupportVectorMachine().get_params()
    plain = NuSVC(kernel="linear").fit(X, y).decision_function(X)
    weighted = NuSVC(kernel="linear", class_weight={1: 5.0}).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(plain, weighted)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_weighted_svr_is_svr_with_sample_weight(kernel):
    X, t, w = _regression()
    ours = SupportVectorRegression(kernel=kernel, C=2.0, tol=1e-8).fit(X, t, sample_weight=w)
    sk = SVR(kernel=kernel, C=2.0, tol=1e-8).fit(X, t, sample_weight=w)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-5)
    np.testing.assert_array_equal(ours.support_, np.flatnonzero(w > 0)[sk.support_])
    np.testing.assert_allclose(ours.dual_coef_, sk.dual_coef_, atol=1e-5)
    assert ours.multipliers_.shape == (2 * len(t),)
    assert np.all(ours.multipliers_ <= np.tile(2.0 * w, 2) + 1e-12)


def _rmm_primal(X, y, costs, B):
    """RMM eq. 11 with per-example costs, linear kernel: min 1/2 |w|^2 + sum c_i xi_i over
    (w, b, xi), y_i (w x_i + b) >= 1 - xi_i, xi >= 0, |w x_i + b| <= B (cvxopt)."""
    n, d = X.shape
    N = d + 1 + n
    H = np.zeros((N, N))
    H[:d, :d] = np.eye(d)
    f = np.r_[np.zeros(d + 1), costs]
    A = np.vstack([np.hstack([-y[:, None] * X, -y[:, None], -np.eye(n)]),
                   np.hstack([X, np.ones((n, 1)), np.zeros((n, n))]),
                   np.hstack([-X, -np.ones((n, 1)), np.zeros((n, n))]),
                   np.hstack([np.zeros((n, d + 1)), -np.eye(n)])])
    b = np.r_[-np.ones(n), np.full(2 * n, B), np.zeros(n)]
    x = solve_qp(H, f, A2=A, b2=b, l=None, tol=1e-10).x
    return x[:d], x[d]


@pytest.mark.parametrize("solver", ["smo", "qp"])
def test_weighted_rmm_solves_its_primal_with_per_example_boxes(solver):
    X, y01, w = _classification(50, seed=2)
    y = np.where(y01 == 1, 1.0, -1.0)
    C, B = 0.7, 1.5
    rmm = RelativeMarginMachine(Linear(), C=C, B=B, solver=solver, tol=1e-8).fit(
        X, y01, sample_weight=w)
    keep = w > 0
    w_ref, b_ref = _rmm_primal(X[keep], y[keep], C * w[keep], B)
    np.testing.assert_allclose(rmm.coef_[0], w_ref, atol=1e-5)
    assert rmm.intercept_ == pytest.approx(b_ref, abs=1e-5)
    assert np.all(rmm.multipliers_ <= C * w + 1e-9)          # box C w_i
    assert np.all(rmm.multipliers_[~keep] == 0) and np.all(rmm.beta_[~keep] == 0)
    f = X[keep] @ w_ref + b_ref
    primal = 0.5 * w_ref @ w_ref + C * w[keep] @ np.maximum(0.0, 1 - y[keep] * f)
    assert rmm.primal_objective() == pytest.approx(primal, rel=1e-6)


@pytest.mark.parametrize("nu", [None, 0.3])
def test_rmm_family_weights_are_repetitions(nu):
    X, y, _ = _classification(50, seed=2)
    reps = np.r_[[0, 0, 0], np.random.default_rng(0).integers(1, 4, 47)]
    for make in (lambda: RelativeMarginMachine(C=0.7, B=1.5, tol=1e-8),
                 lambda: RelaxedRMM(C=0.7, D=0.5, nu=nu)):
        a = make().fit(X, y, sample_weight=reps)
        b = make().fit(np.repeat(X, reps, 0), np.repeat(y, reps))
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-9)
        assert a.primal_objective() == pytest.approx(b.primal_objective(), rel=1e-12)
    # the interior-point route on the same weighted problem (the bisection on t of the SMO
    # route stops within its tolerance: 2e-5 of the objective here)
    q = RelaxedRMM(C=0.7, D=0.5, nu=nu, solver="qp").fit(X, y, sample_weight=reps)
    assert a.primal_objective() == pytest.approx(q.primal_objective(), rel=1e-4)


def test_svr_with_infinite_C_is_the_hard_tube():
    X = np.linspace(0, 1, 20)[:, None]
    t = np.sin(3 * X[:, 0])
    ours = SupportVectorRegression(kernel="rbf", C=np.inf, tol=1e-8).fit(X, t)
    sk = SVR(C=np.inf, tol=1e-6).fit(X, t)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-4)
    assert np.all(np.abs(ours.predict(X) - t) <= 0.1 + 1e-8)        # every target in the tube
    with pytest.raises(ValueError, match=r"C=inf .* hard tube.* no function of this kernel"):
        SupportVectorRegression(kernel="linear", C=np.inf).fit(X, t)


def test_svm_with_infinite_C_is_the_hard_margin():
    X, y = make_classification(60, n_features=2, n_redundant=0, class_sep=3.0,
                               flip_y=0.0, random_state=4)
    inf = SupportVectorMachine(RBF(1.0), C=np.inf, tol=1e-8).fit(X, y)
    hard = SupportVectorMachine(RBF(1.0), hard_margin=True, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(inf.decision_function(X), hard.decision_function(X), atol=1e-9)
    sk = SVC(C=np.inf, gamma=RBF(1.0).gamma, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(inf.decision_function(X), sk.decision_function(X), atol=1e-5)
    flipped = y.copy()
    flipped[:3] = 1 - flipped[:3]
    with pytest.raises(ValueError, match="C=inf .* not separable"):
        SupportVectorMachine(Linear(), C=np.inf).fit(X, flipped)


@pytest.mark.parametrize("make", [
    lambda k: SupportVectorMachine(k, tol=1e-8),
    lambda k: SupportVectorRegression(k, tol=1e-8),
    lambda k: RelativeMarginMachine(k, B=1.5),
    lambda k: RelaxedRMM(k, nu=0.5),
], ids=["svm", "svr", "rmm", "relaxed-rmm"])
def test_weight_zero_removes_an_example_but_not_from_a_scale_width(make):
    """The ``fit`` docstrings: for a kernel of fixed parameters weight 0 is the example
    left out; a ``gamma='scale'`` width is still taken from every row of ``X``, as SVC's
    (whose machine with that width the weighted fit then is)."""
    X, y, _ = _classification(70, seed=3)
    X[:10] *= 4.0                           # rows whose removal changes the scale width
    w = np.ones(len(y))
    w[:10] = 0.0
    regression = isinstance(make("rbf"), SupportVectorRegression)
    target = X[:, 0] - 0.5 * X[:, 1] if regression else y
    out = "predict" if regression else "decision_function"
    kept = make(RBF(2.0)).fit(X[10:], target[10:])
    zero = make(RBF(2.0)).fit(X, target, sample_weight=w)
    np.testing.assert_allclose(getattr(zero, out)(X), getattr(kept, out)(X), atol=1e-6)
    assert zero.support_.min() >= 10
    scale = make("rbf").fit(X, target, sample_weight=w)
    assert scale.kernel_.gamma == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-12)
    assert make("rbf").fit(X[10:], target[10:]).kernel_.gamma != pytest.approx(
        scale.kernel_.gamma, rel=1e-3)
    if isinstance(scale, SupportVectorMachine):
        svc = SVC(tol=1e-8).fit(X, y, sample_weight=w)      # gamma='scale' of all of X
        np.testing.assert_allclose(scale.decision_function(X), svc.decision_function(X),
                                   atol=1e-5)


def test_svr_infeasible_hard_tube_is_refused_after_a_short_run(monkeypatch):
    """C = inf on a tube no function meets: as the hard-margin SVM, the SMO gets a short
    run (20 m + 1000 steps), then the LP refuses the sample; the whole budget (10^7 steps,
    minutes with the NumPy engine) is never spent."""
    X = np.linspace(0, 1, 20)[:, None]
    t = np.sin(3 * X[:, 0])
    budgets = []
    solve = SupportVectorRegression._solve_problem

    def spy(self, problem, gram, **kw):
        budgets.append(kw.get("max_iter"))
        return solve(self, problem, gram, **kw)

    monkeypatch.setattr(SupportVectorRegression, "_solve_problem", spy)
    with pytest.raises(ValueError, match=r"C=inf .* hard tube"):
        SupportVectorRegression(kernel="linear", C=np.inf).fit(X, t)
    assert budgets == [20 * len(t) + 1000]
    # a feasible tube converges within the short run: one call, the same machine as SVR's
    budgets.clear()
    ours = SupportVectorRegression(kernel="rbf", C=np.inf, tol=1e-8).fit(X, t)
    assert len(budgets) == 1 and ours.converged_
