"""Fisher scores and Fisher kernels (kernelclf.kernels.fisher).

References: central finite differences of the log-likelihood (the score is
its gradient, LKC Def. 2.26), a direct density formula, the closed-form
Fisher information of a single Gaussian, and scikit-learn's GaussianMixture.
"""
import numpy as np
import pytest
from scipy.stats import norm
from sklearn.mixture import GaussianMixture

from kernelclf.kernels import (
    FisherKernel,
    GaussianMixtureScore,
    MarkovChainScore,
    Normalized,
    fisher_information,
    is_psd,
)
from kernelclf.kernels import fisher as fisher_kernels


def _mixture(d=2):
    rng = np.random.default_rng(0)
    K = 3
    return GaussianMixtureScore(rng.uniform(0.2, 1.0, K), rng.normal(size=(K, d)),
                                rng.uniform(0.5, 2.0, (K, d)))


def _finite_difference(loglik, params, h=1e-6):
    """Central differences of loglik(params) for every entry of every array."""
    grads = []
    for k, p in enumerate(params):
        for idx in np.ndindex(p.shape):
            up = [q.copy() for q in params]
            dn = [q.copy() for q in params]
            up[k][idx] += h
            dn[k][idx] -= h
            grads.append((loglik(up) - loglik(dn)) / (2 * h))
    return np.column_stack(grads)


@pytest.mark.parametrize("d", [1, 2])
def test_mixture_score_equals_finite_differences(d):
    model = _mixture(d)
    X = np.random.default_rng(1).normal(size=(7, d))
    params = [np.asarray(model.weights, float), np.asarray(model.means, float),
              np.asarray(model.variances, float)]
    fd = _finite_difference(lambda p: GaussianMixtureScore(*p).log_likelihood(X), params)
    np.testing.assert_allclose(model.score(X), fd, rtol=1e-6, atol=1e-7)


def test_mixture_loglik_matches_density_and_sklearn():
    rng = np.random.default_rng(2)
    X = np.concatenate([rng.normal(-2, 0.5, 100), rng.normal(1.5, 1.0, 150)])[:, None]
    gm = GaussianMixture(2, covariance_type="diag", random_state=0).fit(X)
    model = GaussianMixtureScore.from_sklearn(gm)
    np.testing.assert_allclose(model.log_likelihood(X), gm.score_samples(X), rtol=1e-10)
    # weights column: d ln P / d pi_j = P_j(x) / P(x) (LKC p. 45)
    x = X[:5, 0]
    comps = np.stack([norm.pdf(x, gm.means_[j, 0], np.sqrt(gm.covariances_[j, 0]))
                      for j in range(2)], axis=1)
    np.testing.assert_allclose(model.score(X[:5])[:, :2],
                               comps / (comps @ gm.weights_)[:, None], rtol=1e-10)
    spherical = GaussianMixture(2, covariance_type="spherical", random_state=0).fit(X)
    np.testing.assert_allclose(GaussianMixtureScore.from_sklearn(spherical).log_likelihood(X),
                               spherical.score_samples(X), rtol=1e-10)
    with pytest.raises(ValueError, match="diag"):
        GaussianMixtureScore.from_sklearn(GaussianMixture(1).fit(X))


def test_single_gaussian_fisher_kernel_closed_form():
    """One component: scores (1, (x-mu)/s2, ((x-mu)^2 - s2)/(2 s2^2)) with
    information diag(1, 1/s2, 1/(2 s2^2)), so k(x,x') = 1 + z z' + (z^2-1)(z'^2-1)/2."""
    mu, s2 = 0.7, 2.5
    model = GaussianMixtureScore([1.0], [[mu]], [[s2]])
    info = np.diag([1.0, 1.0 / s2, 1.0 / (2 * s2 ** 2)])
    sample = np.random.default_rng(3).normal(mu, np.sqrt(s2), (200000, 1))
    np.testing.assert_allclose(fisher_information(model, sample), info, rtol=0.03, atol=2e-3)
    x = np.array([[-1.0], [0.7], [3.0]])
    z = (x[:, 0] - mu) / np.sqrt(s2)
    closed = 1 + np.outer(z, z) + np.outer(z ** 2 - 1, z ** 2 - 1) / 2
    np.testing.assert_allclose(FisherKernel(model, information=info)(x), closed, rtol=1e-12)
    naive = FisherKernel(model)(x)
    F = model.score(x)
    np.testing.assert_allclose(naive, F @ F.T, rtol=1e-12)


def _markov():
    rng = np.random.default_rng(4)
    p0 = rng.uniform(0.2, 1, 3)
    A = rng.uniform(0.2, 1, (3, 3))
    return MarkovChainScore("abc", p0 / p0.sum(), A / A.sum(1, keepdims=True))


def test_markov_score_equals_finite_differences():
    model = _markov()
    X = ["abcab", "c", "", "bbbbca"]
    params = [np.asarray(model.initial, float), np.asarray(model.transition, float)]
    fd = _finite_difference(lambda p: MarkovChainScore("abc", *p).log_likelihood(X), params)
    np.testing.assert_allclose(model.score(X), fd, rtol=1e-6, atol=1e-7)


def test_markov_loglik_by_hand_and_fit():
    model = _markov()
    p0, A = model.initial, model.transition
    s = "acba"
    manual = np.log(p0[0]) + np.log(A[0, 2]) + np.log(A[2, 1]) + np.log(A[1, 0])
    assert model.log_likelihood([s])[0] == pytest.approx(manual)
    assert model.log_likelihood([""])[0] == 0.0
    fitted = MarkovChainScore.from_sequences(["ab", "abb"], alphabet="ab", pseudocount=0.5)
    # counts: starts a:2 b:0; transitions a->b: 2, b->b: 1, others 0
    np.testing.assert_allclose(fitted.initial, [2.5 / 3, 0.5 / 3])
    np.testing.assert_allclose(fitted.transition, [[0.5 / 3, 2.5 / 3], [0.5 / 2, 1.5 / 2]])
    with pytest.raises(ValueError, match="alphabet"):
        model.log_likelihood(["abz"])


def test_markov_fisher_kernels_psd_and_strings():
    rng = np.random.default_rng(5)
    seqs = ["".join(rng.choice(list("abc"), rng.integers(1, 15))) for _ in range(40)]
    model = MarkovChainScore.from_sequences(seqs)
    info = fisher_information(model, seqs)
    k = FisherKernel(model, information=info, reg=1e-6)
    assert k.accepts_strings
    K = k(seqs[:20])
    assert is_psd(K)
    F = model.score(seqs[:20])
    W = np.linalg.inv(info + 1e-6 * np.eye(len(info)))
    np.testing.assert_allclose(K, F @ W @ F.T, rtol=1e-8)
    np.testing.assert_allclose(k.diag(seqs[:20]), np.diag(K), rtol=1e-10)
    np.testing.assert_allclose(np.diag(Normalized(FisherKernel(model))(seqs[:5])), 1.0)
    with pytest.raises(TypeError, match="string"):
        k([1, 2])


def test_fisher_kernel_errors():
    model = _mixture(2)
    X = np.zeros((3, 2))
    singular = np.zeros((model.score(X).shape[1],) * 2)
    with pytest.raises(ValueError, match="positive definite"):
        FisherKernel(model, information=singular)(X)
    with pytest.raises(ValueError, match="shape"):
        FisherKernel(model, information=np.eye(2))(X)
    with pytest.raises(ValueError, match="features"):
        FisherKernel(model)(np.zeros((3, 5)))
    assert not FisherKernel(model).accepts_strings
    assert fisher_kernels.__all__
