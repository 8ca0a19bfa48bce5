"""Tests for kernelclf.bayespoint.bpm (BPM §3; LKC §3.4).

References: version-space membership (a theorem: averages of points of a
convex cone stay in it), a brute-force Monte-Carlo centre of mass, the LP
separability test, and the unchanged test kernel of soft boundaries.
"""
import os
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_moons

from kernelclf.bayespoint import BayesPointMachine, bpm, perceptron_samples, version_space_centre
from kernelclf.datasets import make_teacher
from kernelclf.experiments import bpm as experiments
from kernelclf.kernels import RBF
from kernelclf.margin import NotSeparableError
from kernelclf.optim import solve_qp


def _moons(m, seed=0):
    X, y = make_moons(m, noise=0.0, random_state=seed)
    return X, y


def test_perceptron_samples_lie_in_version_space():
    X, y = _moons(60)
    ypm = 2.0 * y - 1
    G = RBF(0.5)(X)
    S = perceptron_samples(G, ypm, 20, random_state=0)
    assert S.shape == (20, 60)
    assert np.min(ypm[None, :] * (S @ G)) > 0
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", S, G, S), 1.0)
    assert len({tuple(np.round(s, 8)) for s in S}) > 1  # permutations give different samples


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_estimator_api_and_version_space(method):
    X, y = _moons(80)
    labels = np.array(["a", "b"])[y]
    clf = BayesPointMachine(kernel=RBF(0.5), method=method, n_perceptrons=10, tol=1e-2,
                            random_state=0).fit(X, labels)
    assert list(clf.classes_) == ["a", "b"]
    assert np.all(clf.predict(X) == labels)  # hard boundaries: zero training error
    G = RBF(0.5)(X)
    assert clf.alpha_ @ G @ clf.alpha_ == pytest.approx(1.0)
    f = clf.decision_function(X)
    np.testing.assert_allclose(f, G @ clf.alpha_)
    assert np.all(np.abs(clf.normalized_decision_function(X)) <= 1 + 1e-12)
    if method == "billiard":
        assert clf.n_bounces_ > 0 and clf.converged_
    else:
        assert clf.samples_.shape == (10, 80) and clf.n_bounces_ == 0
    assert clone(clf).get_params()["method"] == method


def test_billiard_bpm_matches_monte_carlo_centre():
    X, y = make_teacher(10, 3, random_state=0)
    c = version_space_centre(X, y, n_draws=600_000, random_state=1, min_accepted=2000)
    clf = BayesPointMachine(method="billiard", tol=1e-3, refresh=0.1, random_state=0).fit(X, y)
    w = X.T @ clf.alpha_
    assert w / np.linalg.norm(w) @ c > 0.99


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_non_separable_sample_needs_soft_boundaries(method):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    y = (X[:, 0] > 0).astype(int)
    X = np.vstack([X, X[:3]])
    y = np.r_[y, 1 - y[:3]]  # same inputs, opposite labels: nothing is consistent
    with pytest.raises(ValueError, match="lam > 0"):
        BayesPointMachine(kernel=RBF(1.0), method=method, lam=0.0, n_perceptrons=3, max_epochs=50,
                          random_state=0).fit(X, y)
    clf = BayesPointMachine(kernel=RBF(1.0), method=method, lam=0.5, n_perceptrons=3, tol=1e-2,
                            random_state=0).fit(X, y)
    # separable in the augmented space: y_i ((G + lam I) alpha)_i > 0 for every i
    Gl = RBF(1.0)(X) + 0.5 * np.eye(len(X))
    ypm = 2.0 * y - 1
    assert np.min(ypm * (Gl @ clf.alpha_)) > 0
    # the test kernel is unchanged: predictions use k, not k + lam I
    np.testing.assert_allclose(clf.decision_function(X), RBF(1.0)(X) @ clf.alpha_)
    assert issubclass(NotSeparableError, ValueError)


def _max_margin_qp(G, y):
    """Reference for the largest margin gamma* (no bias): the hard-margin SVM dual (LKC eq.
    2.46) solved by cvxopt. The margin of its solution is a lower bound on gamma*, and by
    weak duality any dual point alpha >= 0 gives ``1/(2 gamma*^2) >= D(alpha)``, an upper
    bound. Returns ``(lower, upper)``."""
    H = (y[:, None] * G) * y[None, :]
    a = np.clip(solve_qp(H, -np.ones(len(y)), l=0.0, tol=1e-10).x, 0.0, None)
    w2 = a @ H @ a
    D = a.sum() - 0.5 * w2
    return np.min(H @ a) / np.sqrt(w2), (1.0 / np.sqrt(2.0 * D) if D > 0 else np.inf)


def _tau(m):
    """The margin (in units of R) below which lam='auto' fits soft boundaries."""
    return bpm.AUTO_MARGIN / np.sqrt(m)


def _lp_feasible(G, y):
    """Reference: SciPy's HiGHS on the feasibility LP y_i (G beta)_i >= 1 (beta free)."""
    from scipy.optimize import linprog

    m = len(y)
    res = linprog(np.zeros(m), A_ub=-(y[:, None] * G), b_ub=-np.ones(m),
                  bounds=[(None, None)] * m, method="highs")
    return res.status == 0


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_auto_ridge_hard_for_a_clear_margin(method):
    """lam='auto' keeps hard boundaries when the margin is at least tau R, tau =
    AUTO_MARGIN / sqrt(m); the bounds it reports bracket the hard-margin SVM's margin
    (cvxopt, both sides), and the model is the one lam=0 gives."""
    X, y = _moons(40)
    ypm = 2.0 * y - 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = BayesPointMachine(RBF(0.5), method=method, n_perceptrons=5, tol=1e-2,
                                random_state=0).fit(X, y)
    assert clf.lam_ == 0.0 and "hard" in clf.lam_reason_
    low, up = clf.margin_bounds_
    q_low, q_up = _max_margin_qp(RBF(0.5)(X), ypm)
    assert _tau(len(y)) <= low <= q_up * (1 + 1e-9) and q_low <= up * (1 + 1e-9)
    hard = BayesPointMachine(RBF(0.5), method=method, lam=0.0, n_perceptrons=5, tol=1e-2,
                             random_state=0).fit(X, y)
    np.testing.assert_allclose(clf.alpha_, hard.alpha_, rtol=0, atol=1e-12)
    assert hard.margin_bounds_ is None and hard.lam_reason_ == "lam=0 given"


@pytest.mark.parametrize("method", ["billiard", "perceptron"])
def test_auto_ridge_soft_when_not_separable(method):
    """Contradictory duplicates: the LP (reference) finds no consistent classifier; 'auto'
    fits the ridge mean k(x_i, x_i), with no warning, and the model lies in the version
    space of G + lam I; it is the model of the same explicit ridge."""
    X, y = _moons(40)
    Xn = np.vstack([X, X[:2]])
    yn = np.r_[y, 1 - y[:2]]
    ypm = 2.0 * yn - 1
    G = RBF(0.5)(Xn)
    assert not _lp_feasible(G, ypm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = BayesPointMachine(RBF(0.5), method=method, n_perceptrons=5, tol=1e-2,
                                random_state=0).fit(Xn, yn)
    assert clf.lam_ == pytest.approx(np.mean(np.diag(G)))  # = 1 for the RBF kernel
    assert clf.margin_bounds_[1] < _tau(len(yn)) and "soft" in clf.lam_reason_
    Gl = G + clf.lam_ * np.eye(len(yn))
    assert np.min(ypm * (Gl @ clf.alpha_)) > 0  # in the version space of G + lam I
    assert clf.alpha_ @ Gl @ clf.alpha_ == pytest.approx(1.0)
    same = BayesPointMachine(RBF(0.5), method=method, lam=clf.lam_, n_perceptrons=5, tol=1e-2,
                             random_state=0).fit(Xn, yn)
    np.testing.assert_allclose(same.alpha_, clf.alpha_, rtol=0, atol=1e-10)


@pytest.mark.parametrize("eps", [0.02, 0.05, 0.1, 0.3])
def test_auto_ridge_threshold_on_a_closed_form_margin(eps):
    """Two points with y_i x_i = (eps, +-1) (linear kernel): the convex hull of the y_i x_i
    is the segment between them, nearest the origin at (eps, 0), so gamma* = eps and
    R = sqrt(1 + eps^2) (closed form). Hard boundaries exactly when gamma* >= 0.1 R / sqrt(2)."""
    X = np.array([[eps, 1.0], [-eps, 1.0]])
    y = np.array([1, 0])
    R = np.sqrt(1 + eps ** 2)
    clf = BayesPointMachine(tol=1e-2, random_state=0).fit(X, y)
    low, up = clf.margin_bounds_
    assert low <= eps / R * (1 + 1e-9) and eps / R <= up * (1 + 1e-9)
    hard = eps / R >= _tau(2)
    assert clf.lam_ == (0.0 if hard else pytest.approx(R ** 2))


def test_auto_ridge_soft_for_a_tiny_margin():
    """Issue 27: 150 noisy moons under RBF(0.5) are separable (HiGHS finds a consistent
    classifier, so the old rule fitted hard boundaries, which overfit), but the hard-margin
    SVM's dual value proves the margin below tau R: 'auto' now fits soft ones."""
    from kernelclf.datasets import make_moons as noisy_moons

    X, y = noisy_moons(150, noise=0.3, random_state=0)
    G = RBF(0.5)(X)
    assert _lp_feasible(G, y)
    q_low, q_up = _max_margin_qp(G, y)
    assert 0 < q_low <= q_up < _tau(len(y)) / 10
    clf = BayesPointMachine(RBF(0.5), tol=1e-2, random_state=0).fit(X, y)
    assert clf.lam_ == 1.0 and "soft" in clf.lam_reason_
    low, up = clf.margin_bounds_  # they bracket the reference, and never certify >= 1e-3 R
    assert low <= q_up * (1 + 1e-9) and q_low <= up * (1 + 1e-9) and low < _tau(len(y))


def test_noisy_moons_default_fits_without_a_linear_program(monkeypatch):
    """Issue 27: the default on 500 noisy moons ran for minutes in the separability LP.
    A stand-in linprog records every LP: the default solves none (the margin test alone
    picks soft boundaries); lam=0 ends in a clear error, its LP capped in iterations, and
    above LP_MAX_M examples without any LP."""
    import scipy.optimize as so

    from kernelclf.datasets import make_moons as noisy_moons
    from kernelclf.margin.separability import LP_MAX_M, SeparabilityUndecidedError

    real, caps = so.linprog, []

    def recording(*args, **kwargs):
        caps.append(kwargs.get("options", {}).get("maxiter"))
        return real(*args, **kwargs)

    monkeypatch.setattr(so, "linprog", recording)
    X, y = noisy_moons(500, noise=0.3, random_state=0)
    clf = BayesPointMachine(RBF(0.5), tol=1e-2, random_state=0).fit(X, y)
    assert caps == []
    assert clf.lam_ == 1.0 and clf.margin_bounds_[1] < _tau(len(y))
    Gl = RBF(0.5)(X) + np.eye(len(y))
    assert np.min(y * (Gl @ clf.alpha_)) > 0
    with pytest.raises(NotSeparableError, match="lam > 0"):
        BayesPointMachine(RBF(0.5), lam=0.0, tol=1e-2, random_state=0).fit(X, y)
    assert caps and all(c is not None and c <= 5 * len(y) + 1000 for c in caps)
    caps.clear()
    Xl, yl = noisy_moons(LP_MAX_M + 10, noise=0.3, random_state=0)
    with pytest.raises(SeparabilityUndecidedError, match="too large.*lam > 0"):
        BayesPointMachine(RBF(0.5), lam=0.0, tol=1e-2, random_state=0).fit(Xl, yl)
    assert caps == []
    # columns on demand: a subsample settles it (its margin bounds the whole sample's)
    Xb, yb = noisy_moons(1200, noise=0.3, random_state=1)
    big = BayesPointMachine(RBF(0.5), tol=1e-2, precompute=False, random_state=0).fit(Xb, yb)
    assert big.lam_ == 1.0 and "subsample" in big.lam_reason_
    assert big.margin_bounds_[0] == -np.inf and big.margin_bounds_[1] < _tau(len(yb))


@pytest.mark.parametrize("sigma", [1e3, 1e4])
def test_wide_rbf_on_breast_cancer_fits_or_fails_clearly(monkeypatch, sigma):
    """Issue 27: standardised breast-cancer data with sigma = 1e3 or 1e4 crashed with a
    TypeError in solve_lp after HiGHS answered "Unknown". The default now fits soft
    boundaries (a model in the version space of G + lam I); hard boundaries on a part small
    enough for the LP (with a contradictory pair, so that the perceptron fails), with HiGHS
    answering "Unknown" every time (a stand-in), end in a clear NotSeparableError."""
    import scipy.optimize as so
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    data = load_breast_cancer()
    X = StandardScaler().fit_transform(data.data)
    y = data.target
    clf = BayesPointMachine(RBF(sigma), tol=1e-2, random_state=0).fit(X, y)
    assert clf.lam_ == 1.0 and clf.margin_bounds_[1] < _tau(len(y))
    ypm = 2.0 * y - 1
    assert np.min(ypm * ((RBF(sigma)(X) + np.eye(len(y))) @ clf.alpha_)) > 0
    calls = []

    def unknown(c, **kwargs):
        calls.append(kwargs.get("method"))
        return so.OptimizeResult(status=4, message="model_status is Unknown", x=None, nit=0)

    monkeypatch.setattr(so, "linprog", unknown)
    Xd, yd = np.vstack([X[:300], X[:1]]), np.r_[y[:300], 1 - y[:1]]  # the perceptron fails
    with pytest.raises(NotSeparableError, match="HiGHS stopped.*lam > 0"):
        BayesPointMachine(RBF(sigma), lam=0.0, random_state=0).fit(Xd, yd)
    assert len(calls) == 4  # the LP and its three fallbacks


needs_data = pytest.mark.skipif(not os.environ.get("KERNELCLF_DATA"), reason="needs the data home")


@needs_data
def test_issue14_default_converges_on_thyroid_split0_without_warning():
    """Issue 14: RBF(1.0) on Thyroid split 0 stopped at the old bounce cap with a warning.
    The printed rule (E2-corrected rho) needs at least (1 - tol)/tol flights (closed form)."""
    from kernelclf.datasets import load

    b = load("thyroid_splits")
    X, y = b.X_train[0], b.y_train[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = BayesPointMachine(kernel=RBF(sigma=1.0), random_state=0).fit(X, y)
    assert clf.converged_ and clf.n_bounces_ >= (1 - clf.tol) / clf.tol
    G = RBF(1.0)(X)
    assert np.min((2.0 * (y == y.max()) - 1) * (G @ clf.alpha_)) > 0  # in version space


@needs_data
@pytest.mark.parametrize("name", sorted(experiments.TABLE1_SIGMA))
def test_default_converges_on_table1_data_without_warning(name):
    """Chapter 12's data (split 0, standardised, Table 1 widths): the default converges
    without a ConvergenceWarning (issue 14). lam='auto' (issue 27): the model lies in the
    version space of G + lam_ I (hard boundaries: it classifies the sample correctly), and
    the margin bounds that decided bracket the hard-margin SVM's margin (cvxopt; both of
    its bounds hold for any dual point, however accurate)."""
    from sklearn.exceptions import ConvergenceWarning

    sigma = experiments.TABLE1_SIGMA[name]
    Xtr, ytr, Xte, yte = experiments.table1_splits(name, 1)[0]
    Xtr, Xte = experiments._standardise(Xtr, Xte)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = BayesPointMachine(RBF(sigma), random_state=0).fit(Xtr, ytr)
    assert clf.converged_
    G = RBF(sigma)(Xtr)
    ypm = np.where(ytr == clf.classes_[1], 1.0, -1.0)
    assert np.min(ypm * ((G + clf.lam_ * np.eye(len(ypm))) @ clf.alpha_)) > 0
    if clf.lam_ == 0:
        assert np.all(clf.predict(Xtr) == ytr)
    low, up = clf.margin_bounds_
    q_low, q_up = _max_margin_qp(G, ypm)
    assert low <= q_up * (1 + 1e-6) and q_low <= up * (1 + 1e-6)


def test_stopping_parameter_reaches_the_billiard():
    X, y = _moons(40)
    a = BayesPointMachine(RBF(0.5), tol=0.05, stopping="batch", random_state=0).fit(X, y)
    b = BayesPointMachine(RBF(0.5), tol=1e-2, stopping="rho2", random_state=0).fit(X, y)
    p = BayesPointMachine(RBF(0.5), stopping="rho2-printed", random_state=0).fit(X, y)
    assert a.converged_ and b.converged_ and p.n_bounces_ == 10  # printed rho: NaN, stops
    assert b.n_bounces_ >= 99  # (1 - tol)/tol flights at least
    with pytest.raises(ValueError):
        BayesPointMachine(stopping="sometimes").fit(X, y)


def test_two_points_and_underflow_give_clear_answers():
    """A one-dimensional span: version space is one point (the centre, no bounces);
    inputs that underflow to zero vectors: a clear error, also for the perceptron method."""
    X = np.array([[-1.0, -1.0], [1.0, 1.0]])
    clf = BayesPointMachine().fit(X, [0, 1])
    f = clf.decision_function(X)
    assert np.all(np.isfinite(f)) and f[0] < 0 < f[1] and clf.n_bounces_ == 0
    Xs, ys = _moons(20)
    for method in ("billiard", "perceptron"):
        with pytest.raises(ValueError, match="zero vector|underflow"):
            BayesPointMachine(method=method).fit(Xs * 1e-300, ys)


def test_n_perceptrons_is_validated_not_truncated():
    """Regression (issue 9): n_samples=2.7 used to run 2 perceptrons silently."""
    X, y = _moons(20)
    for bad in (2.7, True, "3", 0):
        with pytest.raises(ValueError, match="n_perceptrons"):
            BayesPointMachine(method="perceptron", n_perceptrons=bad).fit(X, y)
        with pytest.raises(ValueError, match="n_perceptrons"):
            perceptron_samples(RBF(0.5)(X), 2.0 * y - 1, bad)
    clf = BayesPointMachine(RBF(0.5), method="perceptron", n_perceptrons=np.int64(3),
                            random_state=0).fit(X, y)
    assert clf.samples_.shape == (3, 20)


def test_n_samples_was_renamed_n_perceptrons():
    """Issue 24: n_samples (the number of examples to scikit-learn) counted perceptron runs;
    the parameter is n_perceptrons now, and the old name is refused (0.x: no alias)."""
    assert "n_perceptrons" in BayesPointMachine().get_params()
    assert "n_samples" not in BayesPointMachine().get_params()
    with pytest.raises(TypeError, match="n_samples"):
        BayesPointMachine(n_samples=4)


def test_bad_parameters():
    X, y = _moons(20)
    for kw in ({"method": "gibbs"}, {"lam": -1.0}, {"lam": "big"}, {"tol": 0.0},
               {"n_perceptrons": 0}, {"n_perceptrons": "many"},
               {"max_bounces": 1.5}, {"refresh": 2.0}, {"precompute": "yes"}):
        with pytest.raises(ValueError):
            BayesPointMachine(**kw).fit(X, y)
    with pytest.raises(ValueError):
        BayesPointMachine().fit(X, np.zeros(20))
    assert bpm.__name__ == "kernelclf.bayespoint.bpm"


# ------------------------------------------------- experiments (chapter 12)



def test_rejection_errors_by_hand():
    # issue 24: one implementation of the rejection curve, in the lower layer (multiclass)
    from kernelclf.multiclass import rejection_errors

    assert not hasattr(experiments, "rejection_curve")
    conf = np.array([0.9, 0.1, 0.5, 0.3, 0.8])
    correct = np.array([True, False, True, False, True])
    # reject 0, 1 (conf 0.1), 2 (0.1, 0.3) points: errors 2/5, 1/4, 0/3
    np.testing.assert_allclose(rejection_errors(conf, correct, [0, 0.2, 0.4]), [0.4, 0.25, 0.0])


def test_one_vs_rest_bpm_three_blobs():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [4, 0], [0, 4]])
    X = np.vstack([c + rng.normal(size=(15, 2)) * 0.5 for c in centres])
    y = np.repeat([0, 1, 2], 15)
    pred, conf = experiments.one_vs_rest_bpm(X, y, X, RBF(1.0), n_perceptrons=3, random_state=0)
    assert np.all(pred == y)  # every one-vs-rest Bayes point is consistent with its sample
    assert np.all(np.abs(conf) <= 1 + 1e-12)


def test_soft_boundary_curve_matches_direct_fits():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0] + 0.3 * rng.normal(size=30))
    Xt = rng.normal(size=(200, 2))
    yt = np.sign(Xt[:, 0])
    b, s = experiments.soft_boundary_curve([(X, y, Xt, yt)], [0.5], kernel=RBF(1.0), tol=1e-2,
                                           standardise=False)
    # the L2 soft-margin SVM is the hard-margin dual on G + lam I: its support values satisfy
    # y_i ((G + lam I) a)_i >= 1 with equality on the support vectors
    from kernelclf.margin import SupportVectorMachine
    svm = SupportVectorMachine(RBF(1.0), C=2.0, loss="squared_hinge", fit_bias=False,
                               tol=1e-6).fit(X, y)
    Gl = RBF(1.0)(X) + 0.5 * np.eye(30)
    assert np.min(y * (Gl @ svm.alpha_)) > 1 - 1e-3
    assert s[0, 0] == pytest.approx(100 * np.mean(svm.predict(Xt) != yt))
    assert 0 <= b[0, 0] <= 100


def test_table1_reference_numbers_and_format():
    rows = [{"dataset": "heart", "n_splits": 2, "sigma": 10.0, "svm_mean": 25.0, "svm_sem": 1.0,
             "bpm_mean": 22.0, "bpm_sem": 1.0, "confidence": 0.9, "bpm_wins": 2, "svm_wins": 0,
             "reported": experiments.TABLE1_REPORTED["heart"]}]
    text = experiments.format_table1(rows)
    assert "25.4 ± 0.4" in text and "22.8 ± 0.34" in text
    assert set(experiments.TABLE1_SIGMA) == set(experiments.TABLE1_REPORTED)


def test_perceptron_usage_matches_perceptron_on_permutation():
    # BPM Fig. 10 counts support patterns of perceptrons run with kernel columns on demand;
    # the reference is the dual perceptron on the stored Gram matrix (BPM App. B, Alg. 1)
    from kernelclf.experiments.bpm import perceptron_usage
    from kernelclf.kernels import Polynomial
    from kernelclf.margin import perceptron_on_permutation

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * X[:, 2] > 0, 1.0, -1.0)
    k = Polynomial(3, 1.0)
    G = k(X)
    for s in range(3):
        order = rng.permutation(60)
        used, ok = perceptron_usage(X, y, k, order)
        a = perceptron_on_permutation(G, y, order)
        assert ok and np.array_equal(used, np.flatnonzero(a))


def test_fig10_counts_and_committed_file():
    from kernelclf.experiments.bpm import fig10_counts
    from kernelclf.experiments.results import load_results

    recs = [{"result": {"used": [[0, 2], [2]]}}, {"result": {"used": [[1, 2]]}}]
    np.testing.assert_array_equal(fig10_counts(recs, 4), [1, 1, 3, 0])
    res = load_results("bpm_fig10.jsonl")
    assert res.header["command"] == "bpm-fig10" and res.failed == 0
    assert sorted(r["result"]["label"] for r in res.records) == list(range(10))
    assert all(len(r["result"]["used"]) == 10 and all(r["result"]["converged"])
               for r in res.records)
    counts = fig10_counts(res.records)
    assert counts.max() <= 100 and counts.sum() == sum(
        len(u) for r in res.records for u in r["result"]["used"])


def test_chapter12_exercise_answers_against_scipy():
    # the checkers of kernelclf.book.exercises.ch12: the one-sided paired p-value is scipy's
    from scipy import stats

    from kernelclf.book.exercises import ch12

    ex = {e.label: e for e in ch12.EXERCISES}
    assert ex["ch12-ex-1"].judge(
        lambda b, s: stats.ttest_rel(b, s, alternative="less").pvalue)[0]
    assert not ex["ch12-ex-1"].judge(lambda b, s: stats.ttest_rel(b, s).pvalue)[0]
    assert ex["ch12-ex-4"].judge(1 - 0.9 * 0.03 / 0.08)[0]


def test_default_tol_matches_the_accuracy_of_1e3_with_ten_times_fewer_bounces():
    """The ``tol`` docstring: on noisy two moons (RBF(0.5)) the default 1e-2 reaches the
    test accuracy of tol=1e-3 (within 0.006) with 10-17 times fewer bounces; and the rho2
    rule needs at least (1 - tol) / tol bounces."""
    from kernelclf.datasets import make_moons as moons

    Xt, yt = moons(2000, noise=0.3, random_state=1)
    for seed in (0, 1):
        X, y = moons(500, noise=0.3, random_state=seed)
        fits = {tol: BayesPointMachine(RBF(0.5), tol=tol, random_state=0).fit(X, y)
                for tol in (1e-2, 1e-3)}
        acc = {tol: np.mean(f.predict(Xt) == yt) for tol, f in fits.items()}
        assert abs(acc[1e-2] - acc[1e-3]) <= 0.006
        ratio = fits[1e-3].n_bounces_ / fits[1e-2].n_bounces_
        assert 10 <= ratio <= 17, ratio
        for tol, f in fits.items():
            assert f.n_bounces_ >= (1 - tol) / tol


def test_fig9_usps_committed_file_reruns():
    # BPM Fig. 9 (USPS): the committed scores come from the paper's protocol (all 7291
    # training images, 10 perceptrons per digit, all 2007 test images); rerun one digit's ten
    # perceptrons on a few test images and compare with the file
    from kernelclf.experiments.bpm import _fig9_usps_class, fig9_usps_scores
    from kernelclf.experiments.results import load_results

    res = load_results("bpm_fig9_usps.jsonl")
    cfg = res.header["config"]
    assert res.header["command"] == "bpm-fig9-usps" and res.failed == 0
    assert (cfg["perceptrons"], cfg["n_train"], cfg["n_test"]) == (10, 7291, 2007)
    scores, labels = fig9_usps_scores(res.records)
    assert scores.shape == (2007, 10)
    assert all(all(r["result"]["converged"]) for r in res.records)
    rec = next(r for r in res.records if r["result"]["label"] == 6)
    idx = [0, 17, 500, 2006]
    got = _fig9_usps_class(6, cfg["perceptrons"], rec["seed"], cfg["max_epochs"], idx)
    assert got["n_used"] == rec["result"]["n_used"]
    np.testing.assert_allclose(got["scores"], scores[idx, 6], rtol=1e-7, atol=1e-12)
    # the perceptrons are those of BPM Fig. 10's file (same permutations): same support sizes
    fig10 = next(r for r in load_results("bpm_fig10.jsonl").records if r["label"] == 6)
    assert rec["result"]["n_used"] == [len(u) for u in fig10["result"]["used"]]
    # the scores are means of cosines: in [-1, 1]
    assert np.abs(scores).max() <= 1
    # ... the paper's f_bp,y (BPM §4.3): the mean of the L cosines <w_j, phi(x)> / ||w_j||
    # ||phi(x)||, recomputed here from digit 1's perceptron coefficients with fresh kernel
    # matrices, and not the cosine with the rescaled average (our BayesPointMachine's score),
    # which is larger by 1 / ||mean_j w_j / ||w_j|| || (about 1.1 for this digit)
    from kernelclf.datasets import load
    from kernelclf.experiments.bpm import _kernel_perceptron, _permutation
    from kernelclf.kernels.vector import Polynomial

    rec1 = next(r for r in res.records if r["result"]["label"] == 1)
    usps, k = load("usps"), Polynomial(5, 1.0)
    X, Xte = usps.X_train, usps.X_test[idx]
    y_pm, cache, units = np.where(usps.y_train == 1, 1.0, -1.0), {}, []
    for j in range(cfg["perceptrons"]):
        a, _ = _kernel_perceptron(X, y_pm, k, _permutation(rec1["seed"], 1, j, len(X)),
                                  cfg["max_epochs"], cache)
        s = np.flatnonzero(a)
        units.append((s, a[s] / np.sqrt(a[s] @ k(X[s], X[s]) @ a[s])))  # w_j / ||w_j||
    kxx = np.sqrt(np.diag(k(Xte, Xte)))
    cosines = [k(Xte, X[s]) @ b / kxx for s, b in units]
    mean_cos = np.mean(cosines, axis=0)
    w_norm = np.sqrt(sum(b1 @ k(X[s1], X[s2]) @ b2 for s1, b1 in units
                         for s2, b2 in units)) / len(units)
    np.testing.assert_allclose(scores[idx, 1], mean_cos, rtol=1e-6, atol=1e-9)
    assert w_norm < 0.95
    assert np.all(np.abs(scores[idx, 1] - mean_cos / w_norm) > 0.05 * np.abs(mean_cos))
    with pytest.raises(ValueError, match="one record per digit"):
        fig9_usps_scores(res.records[:9])


def test_integer_seeds_give_check_random_states_stream():
    """The fit's cheaper seeding (one reseeded RandomState per thread) gives the stream of
    ``check_random_state(seed)``; other random states are passed through."""
    from sklearn.utils import check_random_state

    from kernelclf.bayespoint.bpm import _random_state

    for seed in (0, 1, np.int64(12345), 2 ** 32 - 1):
        a, b = _random_state(seed), check_random_state(seed)
        np.testing.assert_array_equal(a.standard_normal(5), b.standard_normal(5))
        np.testing.assert_array_equal(a.permutation(50), b.permutation(50))
    rs = np.random.RandomState(3)
    assert _random_state(rs) is rs
    with pytest.raises(ValueError):
        _random_state(-1)
    # a generator in use is not handed out again (a fit nested in another gets its own)
    from kernelclf.bayespoint.bpm import _release

    outer = _random_state(0)
    inner = _random_state(0)
    assert inner is not outer
    inner.standard_normal(3)
    _release(inner)
    np.testing.assert_array_equal(outer.standard_normal(4),
                                  check_random_state(0).standard_normal(4))
    _release(outer)
    _release(rs)                            # a caller's generator is never kept
    assert _random_state(1) is outer
