"""Tests for kernelclf.margin.perceptron (book chapter 03).

Independent references used here: the hard-margin SVM solved as a QP (LKC
eq. 2.46) with its KKT conditions checked; Novikoff's theorem (LKC Thm 2.31)
and the invariants of its proof (App. B.4); scikit-learn's ``Perceptron``;
a direct transcription of LKC Algorithm 2 (outputs recomputed from scratch);
scikit-learn's ``rbf_kernel``; brute-force enumeration for the halving algorithm.
"""
import math
import time
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.model_selection import GridSearchCV

from kernelclf.bounds.mistake import mistake_bound_risk, novikoff_bound
from kernelclf.kernels import RBF, Polynomial
from kernelclf.margin import (
    KernelPerceptron,
    Perceptron,
    geometric_margin,
    halving_algorithm,
    perceptron,
    perceptron_on_permutation,
)
from kernelclf.optim import solve_qp

# ---------------------------------------------------------------------------
# data and the independent hard-margin reference

def separable_sample(m, n, margin, seed):
    """Points in the unit ball of R^n, labelled by a random unit w*, with
    |<w*, x>| >= margin (so the sample has geometric margin >= margin)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=n)
    w /= np.linalg.norm(w)
    X = np.empty((0, n))
    while len(X) < m:
        Z = rng.normal(size=(4 * m, n))
        Z *= (rng.uniform(size=(4 * m, 1)) ** (1 / n)) / np.linalg.norm(Z, axis=1, keepdims=True)
        Z = Z[np.abs(Z @ w) >= margin]
        X = np.vstack([X, Z])
    X = X[:m]
    return X, np.sign(X @ w)


def integer_sample(m, n, seed):
    """Integer-valued separable sample: all perceptron arithmetic is exact."""
    rng = np.random.default_rng(seed)
    w = rng.integers(-3, 4, size=n).astype(float)
    w[0] = 2.0
    X = rng.integers(-5, 6, size=(4 * m, n)).astype(float)
    f = X @ w
    keep = np.abs(f) >= 1
    return X[keep][:m], np.sign(f[keep][:m])


def hard_margin_dual(G, y):
    """Hard-margin SVM without bias, dual of LKC eq. 2.46:
    min 1/2 a'YGYa - 1'a  s.t. a >= 0.  Returns (a, geometric margin 1/sqrt(sum a)).
    Also asserts the KKT conditions so the reference itself is trusted."""
    m = len(y)
    H = (y[:, None] * G) * y[None, :]
    sol = solve_qp(H, -np.ones(m), l=np.zeros(m), tol=1e-10)
    a = sol.x
    f = G @ (a * y)                      # f(x_i) = sum_j a_j y_j k(x_j, x_i)
    scale = max(1.0, a.max())
    assert np.all(a >= -1e-7 * scale)                       # dual feasibility
    assert np.all(y * f >= 1 - 1e-6)                         # primal feasibility
    assert np.all(np.abs(a * (y * f - 1)) <= 1e-6 * scale)   # complementary slackness
    w2 = (a * y) @ f
    assert abs(w2 - a.sum()) <= 1e-6 * max(1.0, a.sum())     # zero duality gap
    return a, 1.0 / math.sqrt(a.sum())


def radius(G):
    return math.sqrt(np.max(np.diag(G)))


# ---------------------------------------------------------------------------
# Novikoff's theorem against the hard-margin QP

@pytest.mark.parametrize("seed,n,margin", [(0, 2, 0.05), (1, 3, 0.1), (2, 5, 0.02), (3, 10, 0.05)])
def test_mistakes_below_novikoff_bound_with_svm_margin(seed, n, margin):
    X, y = separable_sample(80, n, margin, seed)
    G = X @ X.T
    a, gamma_star = hard_margin_dual(G, y)
    w_svm = X.T @ (a * y)
    # the QP optimum really has the margin 1/sqrt(sum a) and beats the generating w*
    assert geometric_margin(X, y, w_svm) == pytest.approx(gamma_star, rel=1e-6)
    assert gamma_star >= margin - 1e-9
    bound = (radius(G) / gamma_star) ** 2
    assert novikoff_bound(X, y, gamma_star) == pytest.approx(bound, rel=1e-12)
    assert novikoff_bound(X, y, w_svm) == pytest.approx(bound, rel=1e-5)
    assert novikoff_bound(G, y, a * y, precomputed=True) == pytest.approx(bound, rel=1e-5)

    p = Perceptron().fit(X, y)
    assert p.converged_ and p.n_updates_ <= bound
    # the perceptron's own margin cannot exceed the maximal one
    assert geometric_margin(X, y, p.coef_) <= gamma_star * (1 + 1e-6)
    for rs in range(3):
        kp = KernelPerceptron(shuffle=True, random_state=rs).fit(X, y)
        assert kp.converged_ and kp.n_updates_ <= bound
    rng = np.random.default_rng(seed)
    for _ in range(3):
        alpha = perceptron_on_permutation(G, y, rng.permutation(len(y)))
        assert np.abs(alpha).sum() <= bound


def test_novikoff_bound_rbf_feature_space():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(60, 2))
    r = np.linalg.norm(X, axis=1)
    keep = np.abs(r - 0.6) > 0.1
    X, y = X[keep], np.where(r[keep] > 0.6, 1.0, -1.0)
    k = RBF(sigma=0.4)
    G = rbf_kernel(X, gamma=1 / (2 * 0.4 ** 2))
    _, gamma_star = hard_margin_dual(G, y)
    bound = novikoff_bound(G, y, gamma_star, precomputed=True)
    assert bound == pytest.approx(1 / gamma_star ** 2)  # varsigma = 1 for the RBF kernel
    kp = KernelPerceptron(kernel=k).fit(X, y)
    assert kp.converged_ and kp.n_updates_ <= bound


def test_novikoff_proof_invariants_along_trajectory():
    """LKC App. B.4: <w*, w_t> >= t gamma and ||w_t||^2 <= t varsigma^2 at every update t."""
    X, y = separable_sample(60, 3, 0.08, 11)
    a, gamma_star = hard_margin_dual(X @ X.T, y)
    w_star = X.T @ (a * y)
    w_star /= np.linalg.norm(w_star)
    vs2 = np.max(np.sum(X ** 2, axis=1))
    ws = []
    Perceptron(callback=lambda j, w: ws.append(w)).fit(X, y)
    assert len(ws) > 3
    for t, w in enumerate(ws, start=1):
        assert w_star @ w >= t * gamma_star * (1 - 1e-6)
        assert w @ w <= t * vs2 * (1 + 1e-12)


# ---------------------------------------------------------------------------
# primal, dual and kernel versions agree

@pytest.mark.parametrize("shuffle", [False, True])
def test_linear_kernel_perceptron_equals_primal_exactly(shuffle):
    X, y = integer_sample(70, 4, 0)
    p = Perceptron(shuffle=shuffle, random_state=3).fit(X, y)
    kp = KernelPerceptron(shuffle=shuffle, random_state=3).fit(X, y)
    assert p.n_updates_ > 5
    np.testing.assert_array_equal(X.T @ kp.alpha_, p.coef_)
    np.testing.assert_array_equal(kp.mistake_indices_, p.mistake_indices_)
    assert kp.n_epochs_ == p.n_epochs_


def test_primal_w_is_sum_of_updates():
    """LKC eq. 2.17: w = sum over updates of y_j x_j."""
    X, y = separable_sample(50, 3, 0.05, 4)
    p = Perceptron().fit(X, y)
    w = sum(y[j] * X[j] for j in p.mistake_indices_)
    np.testing.assert_allclose(p.coef_, w, rtol=1e-12, atol=1e-12)


def algorithm2(G, y, max_epochs=1000):
    """Direct transcription of LKC Algorithm 2: outputs recomputed each visit."""
    m = len(y)
    alpha = np.zeros(m)
    mistakes = []
    for _ in range(max_epochs):
        clean = True
        for j in range(m):
            if y[j] * sum(alpha[i] * G[i, j] for i in range(m)) <= 0:
                alpha[j] += y[j]
                mistakes.append(j)
                clean = False
        if clean:
            return alpha, mistakes
    raise AssertionError("reference did not converge")


@pytest.mark.parametrize("kernel,gram", [
    (RBF(sigma=0.5), lambda X: rbf_kernel(X, gamma=1 / (2 * 0.5 ** 2))),
    (Polynomial(degree=3, offset=1.0), lambda X: polynomial_kernel(X, degree=3, gamma=1, coef0=1)),
])
def test_cached_outputs_equal_G_alpha_after_every_update(kernel, gram):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)     # XOR-like, needs the kernel
    G = gram(X)
    records = []
    kp = KernelPerceptron(kernel=kernel, callback=lambda j, a, o: records.append((j, a, o))).fit(X, y)
    assert kp.converged_
    assert len(records) == kp.n_updates_ == kp.n_kernel_rows_ > 3
    for j, a, o in records:
        np.testing.assert_allclose(o, G @ a, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kp.outputs_, G @ kp.alpha_, rtol=1e-10, atol=1e-10)
    # Algorithm 3 makes the same updates as Algorithm 2
    alpha2, mistakes2 = algorithm2(G, y)
    np.testing.assert_allclose(kp.alpha_, alpha2)
    assert list(kp.mistake_indices_) == mistakes2


def test_alpha_are_integer_multiples_of_labels():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = np.where(np.linalg.norm(X, axis=1) > 1.0, 1.0, -1.0)
    kp = KernelPerceptron(kernel=RBF(sigma=0.5)).fit(X, y)
    counts = kp.alpha_ * y
    np.testing.assert_array_equal(counts, np.round(counts))
    assert np.all(counts >= 0)
    np.testing.assert_array_equal(counts, np.bincount(kp.mistake_indices_, minlength=len(y)))
    assert counts.sum() == kp.n_updates_


def test_zero_training_error_on_separable_data():
    X, y = separable_sample(120, 4, 0.03, 9)
    for est in (Perceptron(), KernelPerceptron(), KernelPerceptron(kernel=RBF(sigma=1.0)),
                Perceptron(shuffle=True, random_state=0)):
        est.fit(X, y)
        assert est.converged_
        assert np.all(y * est.decision_function(X) > 0)
        np.testing.assert_array_equal(est.predict(X), y)
        assert est.score(X, y) == 1.0


# ---------------------------------------------------------------------------
# scikit-learn's perceptron: same update rule (y <w, x> <= 0, step eta0 = 1)

def test_agrees_with_sklearn_perceptron_exactly_on_integer_data():
    X, y = integer_sample(80, 5, 1)
    p = Perceptron().fit(X, y)
    sk = SkPerceptron(fit_intercept=False, shuffle=False, eta0=1.0, alpha=0.0, tol=None,
                      max_iter=p.n_epochs_ + 2).fit(X, y)
    np.testing.assert_array_equal(sk.coef_.ravel(), p.coef_)
    np.testing.assert_array_equal(sk.predict(X), p.predict(X))


def test_agrees_with_sklearn_perceptron_on_float_data():
    X, y = separable_sample(100, 3, 0.05, 6)
    p = Perceptron().fit(X, y)
    sk = SkPerceptron(fit_intercept=False, shuffle=False, eta0=1.0, alpha=0.0, tol=None,
                      max_iter=p.n_epochs_ + 2).fit(X, y)
    np.testing.assert_allclose(sk.coef_.ravel(), p.coef_, rtol=1e-10, atol=1e-12)
    assert sk.score(X, y) == p.score(X, y) == 1.0


# ---------------------------------------------------------------------------
# kernels, non-separable samples, bad input

def test_rbf_perceptron_separates_circles_and_generalises():
    rng = np.random.default_rng(0)

    def circles(m):
        X = rng.uniform(-1.5, 1.5, size=(3 * m, 2))
        r = np.linalg.norm(X, axis=1)
        keep = np.abs(r - 0.8) > 0.1
        X, r = X[keep][:m], r[keep][:m]
        return X, np.where(r > 0.8, "out", "in")

    X, y = circles(150)
    Xt, yt = circles(500)
    kp = KernelPerceptron(kernel=RBF(sigma=0.3)).fit(X, y)
    assert kp.converged_ and kp.score(X, y) == 1.0
    assert kp.score(Xt, yt) > 0.9
    with pytest.warns(ConvergenceWarning):
        lin = KernelPerceptron(max_epochs=20).fit(X, y)
    assert not lin.converged_


def test_non_separable_stops_with_convergence_warning():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1, 1, -1, -1])                 # XOR without a bias term
    with pytest.warns(ConvergenceWarning, match="not separated after 7 epochs"):
        p = Perceptron(max_epochs=7, shuffle=True, random_state=0).fit(X, y)
    assert not p.converged_ and p.n_epochs_ == 7 and p.n_updates_ >= 7
    assert not p.cycle_detected_
    with pytest.warns(ConvergenceWarning, match="not separated after 5 epochs"):
        kp = KernelPerceptron(max_epochs=5, shuffle=True, random_state=0).fit(X, y)
    assert not kp.converged_ and kp.n_epochs_ == 5
    # in the fixed order the weights return to 0 after every sweep: a cycle, stop at once
    for Est in (Perceptron, KernelPerceptron):
        with pytest.warns(ConvergenceWarning, match="cycle"):
            est = Est(max_epochs=1000).fit(X, y)
        assert est.cycle_detected_ and est.n_epochs_ == 1
    with pytest.warns(ConvergenceWarning):
        perceptron_on_permutation(X @ X.T, y, [3, 2, 1, 0], max_epochs=4)
    # no warning on separable data
    Xs, ys = separable_sample(30, 2, 0.1, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Perceptron().fit(Xs, ys)
        KernelPerceptron().fit(Xs, ys)


def _contradictory_sample(seed=0):
    """40 separable points and 2 duplicates of them with the opposite label."""
    X, y = separable_sample(40, 2, 0.1, seed)
    return np.vstack([X, X[:2]]), np.r_[y, -y[:2]]


@pytest.mark.parametrize("Est", [Perceptron, KernelPerceptron])
@pytest.mark.parametrize("shuffle", [False, True])
def test_pocket_keeps_the_best_iterate_regression(Est, shuffle):
    """Issue 17: two contradictory duplicates among 42 points; 40 of 42 are possible and
    the pocket (Gallant 1990) finds such an iterate, where the last one got 2 right."""
    X, y = _contradictory_sample()
    with pytest.warns(ConvergenceWarning, match="pocket"):
        est = Est(shuffle=shuffle, random_state=0).fit(X, y)
    # no linear classifier through the origin can do better than 40 of 42
    assert est.score(X, y) >= 40 / 42
    assert est.n_training_errors_ == np.sum(est.predict(X) != y) == 2
    # the pocket iterate is the sum of the first pocket_update_ updates (LKC eq. 2.17)
    idx = est.mistake_indices_[:est.pocket_update_]
    w = sum(y[j] * X[j] for j in idx)
    coef = est.coef_ if Est is Perceptron else X.T @ est.alpha_
    np.testing.assert_allclose(coef, w, atol=1e-12)
    if Est is KernelPerceptron:         # alpha_i / y_i counts the pocket's updates only
        counts = np.bincount(idx, minlength=len(y))
        np.testing.assert_array_equal(est.alpha_ * y, counts)
        assert len(est.mistake_indices_) > est.pocket_update_
    # brute force over the pocket's competitors: no visited iterate has fewer mistakes
    ws = np.cumsum([y[j] * X[j] for j in est.mistake_indices_], axis=0)
    assert np.min(np.sum(y[None, :] * (ws @ X.T) <= 0, axis=1)) == est.n_training_errors_


@pytest.mark.parametrize("Est", [Perceptron, KernelPerceptron])
@pytest.mark.parametrize("shuffle", [False, True])
def test_hopeless_input_stops_quickly(Est, shuffle):
    """Issue 17: 40 identical points with both labels gave up only after ~9 s."""
    X = np.ones((40, 3))
    y = np.r_[np.ones(20), -np.ones(20)]
    t0 = time.perf_counter()
    with pytest.warns(ConvergenceWarning):
        est = Est(shuffle=shuffle, random_state=0).fit(X, y)
    assert time.perf_counter() - t0 < 2.0
    assert est.cycle_detected_ == (not shuffle)
    # any w classifies all 40 points alike: 20 right is the best possible
    assert est.n_training_errors_ >= 20 and est.score(X, y) == 0.5


@pytest.mark.parametrize("Est", [Perceptron, KernelPerceptron])
def test_bad_input_raises_clear_errors(Est):
    X, y = separable_sample(20, 2, 0.1, 0)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Est().fit(Xn, y)
    with pytest.raises(ValueError, match="two classes"):
        Est().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="samples"):
        Est().fit(X, y[:-1])
    with pytest.raises(ValueError):
        Est().fit(X[:, :, None], y)
    with pytest.raises(ValueError, match="max_epochs"):
        Est(max_epochs=0).fit(X, y)
    est = Est().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.zeros((2, 3)))


def test_helpers_reject_bad_input():
    X, y = separable_sample(10, 2, 0.1, 0)
    G = X @ X.T
    with pytest.raises(ValueError, match="permutation"):
        perceptron_on_permutation(G, y, [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    with pytest.raises(ValueError, match="square"):
        perceptron_on_permutation(X, y, np.arange(10))
    with pytest.raises(ValueError, match="-1 and \\+1"):
        perceptron_on_permutation(G, (y > 0).astype(float), np.arange(10))
    with pytest.raises(ValueError, match="positive"):
        novikoff_bound(X, y, -0.1)
    with pytest.raises(ValueError, match="positive"):
        novikoff_bound(X, y, -X.T @ y)   # a w that does not separate


# ---------------------------------------------------------------------------
# scikit-learn compatibility and labels

def test_clone_and_grid_search():
    kp = KernelPerceptron(kernel=RBF(sigma=0.7), max_epochs=50)
    c = clone(kp)
    assert c.get_params()["kernel__sigma"] == 0.7 and c.max_epochs == 50
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = np.where(np.linalg.norm(X, axis=1) > 1.0, 1, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gs = GridSearchCV(kp, {"kernel__sigma": [0.3, 1.0]}, cv=3).fit(X, y)
    assert gs.best_params_["kernel__sigma"] in (0.3, 1.0)
    assert kp.kernel.sigma == 0.7          # the parameter object was not modified
    assert clone(Perceptron(shuffle=True, random_state=4)).get_params()["random_state"] == 4


@pytest.mark.parametrize("labels", [("a", "b"), (3, 7)])
def test_arbitrary_labels(labels):
    X, y = separable_sample(40, 2, 0.05, 3)
    yl = np.where(y > 0, labels[1], labels[0])
    for Est in (Perceptron, KernelPerceptron):
        ref = Est().fit(X, y)
        est = Est().fit(X, yl)
        assert list(est.classes_) == list(labels)
        np.testing.assert_array_equal(est.predict(X), yl)
        np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))


# ---------------------------------------------------------------------------
# permutation perceptron (BPM App. B, Alg. 1 with erratum E11)

def test_permutation_perceptron_lands_in_version_space():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 2))
    y = np.where(X[:, 0] ** 2 - X[:, 1] > 0, 1.0, -1.0)
    G = rbf_kernel(X, gamma=2.0)
    sols = []
    for _ in range(8):
        order = rng.permutation(len(y))
        alpha = perceptron_on_permutation(G, y, order)
        assert np.all(y * (G @ alpha) > 0)                 # inside version space
        # erratum E11: coefficient indexed by Pi(i) -- same as training on the permuted sample
        kp = KernelPerceptron(kernel=RBF(sigma=0.5)).fit(X[order], y[order])
        np.testing.assert_allclose(alpha[order], kp.alpha_)
        sols.append(alpha)
    # averaged normalised solutions stay in version space (it is a convex cone)
    norms = [math.sqrt(a @ G @ a) for a in sols]
    mean = sum(a / n for a, n in zip(sols, norms)) / len(sols)
    assert np.all(y * (G @ mean) > 0)
    assert len({tuple(a) for a in sols}) > 1               # permutations give different points
    np.testing.assert_allclose(perceptron_on_permutation(G, y, np.arange(len(y))),
                               KernelPerceptron(kernel=RBF(sigma=0.5)).fit(X, y).alpha_)


# ---------------------------------------------------------------------------
# mistake bounds: halving algorithm and Theorem 5.23

def test_halving_thresholds_within_log2_H():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=40)
    thresholds = np.linspace(0, 1, 257)
    H = np.where(x[None, :] > thresholds[:, None], 1, -1)
    for t in rng.choice(len(thresholds), size=10, replace=False):
        res = halving_algorithm(H, H[t])
        assert res.n_mistakes <= math.log2(len(H))
        assert res.consistent[t]                           # the target is never removed
        np.testing.assert_array_equal(res.prediction, H[t])


def test_halving_bound_is_tight_by_enumeration():
    """H = all 2^k labellings of k points: brute force over every target; the
    worst case reaches exactly log2|H| = k mistakes and none exceeds it."""
    k = 5
    H = np.array([[1 if (b >> i) & 1 else -1 for i in range(k)] for b in range(2 ** k)])
    counts = [halving_algorithm(H, H[t]).n_mistakes for t in range(len(H))]
    assert max(counts) == k
    assert all(c <= k for c in counts)


def test_halving_needs_a_consistent_hypothesis():
    H = np.array([[1, 1, -1], [1, -1, -1]])
    with pytest.raises(ValueError, match="consistent"):
        halving_algorithm(H, np.array([-1, 1, 1]))
    with pytest.raises(ValueError, match="shape"):
        halving_algorithm(H, np.array([1, 1]))


def test_mistake_bound_risk_formula():
    # (2/100) (5 ln(100 e) + ln 100 + ln 20), evaluated by hand: 0.7125...
    assert mistake_bound_risk(5, 100, 0.05) == pytest.approx(0.712535, abs=2e-6)
    assert mistake_bound_risk(0, 1, 1.0) == 0.0
    with pytest.raises(ValueError):
        mistake_bound_risk(1, 10, 0.0)


def test_module_exports():
    from kernelclf.bounds import mistake

    assert set(perceptron.__all__) >= {"Perceptron", "KernelPerceptron",
                                      "halving_algorithm", "perceptron_on_permutation"}
    assert set(mistake.__all__) == {"novikoff_bound", "mistake_bound_risk"}


def test_halving_raises_only_when_its_retained_set_empties():
    """The perceptron module docstring: the halving algorithm has no epoch budget; it
    raises ValueError when its set of retained hypotheses becomes empty, and only then
    (a majority vote that is right everywhere ends the run although no single hypothesis
    labels the sample correctly)."""
    from kernelclf.margin import halving_algorithm

    with pytest.raises(ValueError, match="no hypothesis"):
        halving_algorithm(np.array([[1, 1], [-1, -1]]), np.array([1, -1]))
    P = np.array([[1, 1, -1], [1, -1, 1], [-1, 1, 1]])
    y = np.array([1, 1, 1])
    assert not np.any(np.all(P == y, axis=1))          # no consistent hypothesis
    res = halving_algorithm(P, y)
    assert res.n_mistakes == 0 and res.n_epochs == 1 and res.consistent.all()
    np.testing.assert_array_equal(res.prediction, y)


def test_perceptron_on_permutation_warns_and_returns_the_pocket_iterate():
    """The module docstring: on a sample that is not separable the function (which has no
    converged_ attribute) stops at max_epochs with a ConvergenceWarning."""
    from kernelclf.margin import perceptron_on_permutation

    X = np.array([[1.0], [1.0]])
    y = np.array([1.0, -1.0])                          # the same point with both labels
    G = X @ X.T
    with pytest.warns(ConvergenceWarning):
        alpha = perceptron_on_permutation(G, y, np.array([0, 1]), max_epochs=5)
    assert alpha.shape == (2,)
