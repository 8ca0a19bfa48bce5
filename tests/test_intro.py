"""Book chapters 01 and 03: the demos of ``kernelclf.experiments.intro`` against independent
references (scipy densities, brute-force minimisation on the circle)."""
import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.metrics import adjusted_rand_score

from kernelclf.experiments.intro import (
    CLUSTER_MEANS,
    MNIST_FIRST_LABELS,
    MNIST_FIRST_SHA256,
    fit_mixture,
    fixed_width_mixture_density,
    margin_geometry,
    mixture_density,
    mnist_first_images,
    nearest_centre,
    preference_classes,
    three_clusters,
)


def test_three_clusters_is_seeded_and_balanced():
    X, z = three_clusters(150, random_state=3)
    X2, _ = three_clusters(150, random_state=3)
    assert X.shape == (150, 2) and np.array_equal(X, X2)
    assert np.array_equal(np.bincount(z), [50, 50, 50])
    assert np.array_equal(z, np.arange(150) % 3)  # point i to centre i mod 3, as documented
    # other centres are honoured: the same noise moved by the difference of the means
    shifted = CLUSTER_MEANS + np.array([[0.0, 5.0], [2.0, 0.0], [-3.0, 1.0]])
    X3, z3 = three_clusters(150, random_state=3, means=shifted)
    assert np.array_equal(z3, z) and np.allclose(X3 - X, (shifted - CLUSTER_MEANS)[z])
    for c in range(3):
        assert np.linalg.norm(X[z == c].mean(0) - CLUSTER_MEANS[c]) < 0.1
        assert 0.07 < X[z == c].std(0).min() and X[z == c].std(0).max() < 0.13
    with pytest.raises(ValueError):
        three_clusters(2)
    with pytest.raises(ValueError):
        three_clusters(10, random_state=None)


def test_mixture_density_matches_scipy_and_integrates_to_one():
    X, z = three_clusters(150, random_state=0)
    gm = fit_mixture(X)
    P = np.random.default_rng(1).normal(size=(50, 2)) * 2
    ref = sum(w * multivariate_normal(mu, S).pdf(P)
              for w, mu, S in zip(gm.weights_, gm.means_, gm.covariances_))
    assert np.allclose(mixture_density(gm, P), ref, rtol=1e-10)
    assert np.allclose(mixture_density(gm, P), np.exp(gm.score_samples(P)), rtol=1e-8)
    g = np.linspace(-7, 7, 281)
    xx, yy = np.meshgrid(g, g)
    dens = mixture_density(gm, np.c_[xx.ravel(), yy.ravel()])
    assert abs(dens.sum() * (g[1] - g[0]) ** 2 - 1.0) < 1e-3
    # EM recovers the hidden clusters of well separated data
    assert adjusted_rand_score(z, gm.predict(X)) > 0.9


def test_preference_classes_antisymmetric_and_transitive():
    r = np.array([2, 0, 1, 2, 3])
    C = preference_classes(r)
    assert np.array_equal(C, -C.T) and np.all(np.diag(C) == 0)
    n = len(r)
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if C[a, b] == 1 and C[b, c] == 1:
                    assert C[a, c] == 1
    assert C[1, 4] == 1 and C[4, 1] == -1 and C[0, 3] == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_margin_geometry_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    x, w = rng.normal(size=(2, 3))
    g = margin_geometry(x, w)
    x, w = x / np.linalg.norm(x), w / np.linalg.norm(w)
    assert np.isclose(g["a"], x @ w)
    # distance to a plane: minimise over points of the plane by least squares
    def plane_distance(p, normal):
        basis = np.linalg.svd(normal[None, :])[2][1:]          # orthonormal basis of the plane
        coef, *_ = np.linalg.lstsq(basis.T, p, rcond=None)
        return np.linalg.norm(basis.T @ coef - p)
    assert np.isclose(g["x_to_plane"], plane_distance(x, w))
    assert np.isclose(g["w_to_plane"], plane_distance(w, x))
    # distance to the great circle: dense search over the circle
    basis = np.linalg.svd(x[None, :])[2][1:]
    t = np.linspace(0, 2 * np.pi, 200001)
    circle = np.cos(t)[:, None] * basis[0] + np.sin(t)[:, None] * basis[1]
    d = np.linalg.norm(circle - w, axis=1)
    assert np.isclose(g["w_to_circle"], d.min(), atol=1e-8)
    assert np.allclose(g["foot"], circle[d.argmin()], atol=1e-4)
    assert np.isclose(g["w_to_circle_arc"], np.arccos(np.clip(circle @ w, -1, 1)).min(), atol=1e-4)
    # strictly increasing in |a|, and never equal to a (BPM Fig. 1: b(a) differs from a)
    assert g["w_to_circle"] > g["x_to_plane"]


def test_margin_geometry_rejects_parallel():
    with pytest.raises(ValueError):
        margin_geometry([1.0, 0.0], [2.0, 0.0])


def test_nearest_centre_and_fixed_width_density_against_scipy():
    P = np.random.default_rng(2).uniform(-2, 2, size=(200, 2))
    brute = [min(range(3), key=lambda c: np.sum((p - CLUSTER_MEANS[c]) ** 2)) for p in P]
    assert np.array_equal(nearest_centre(P, CLUSTER_MEANS), brute)
    ref = np.mean([multivariate_normal(mu, 0.07 * np.eye(2)).pdf(P) for mu in CLUSTER_MEANS], axis=0)
    assert np.allclose(fixed_width_mixture_density(P, CLUSTER_MEANS), ref, rtol=1e-12)
    # a different variance is caught
    assert not np.allclose(fixed_width_mixture_density(P, CLUSTER_MEANS, 0.05), ref, rtol=1e-2)
    g = np.linspace(-3, 3, 301)
    xx, yy = np.meshgrid(g, g)
    dens = fixed_width_mixture_density(np.c_[xx.ravel(), yy.ravel()], CLUSTER_MEANS)
    assert abs(dens.sum() * (g[1] - g[0]) ** 2 - 1.0) < 1e-3
    with pytest.raises(ValueError):
        fixed_width_mixture_density(P, CLUSTER_MEANS, 0.0)
    with pytest.raises(ValueError):
        nearest_centre(P, CLUSTER_MEANS[:, :1])


def test_mnist_first_images_are_the_books():
    """The rows picked from MNIST-5k are, pixel for pixel, the first 52 images of the book's
    ``introduction/mnist100.dat`` (MNIST's first training images; checked by their SHA-256)."""
    import hashlib

    from kernelclf.datasets import load

    d = load("mnist5k")
    idx = mnist_first_images(d.y)
    assert len(set(idx.tolist())) == len(MNIST_FIRST_LABELS) == 52
    assert "".join(map(str, d.y[idx])) == MNIST_FIRST_LABELS
    assert hashlib.sha256(np.ascontiguousarray(d.X[idx]).tobytes()).hexdigest() == MNIST_FIRST_SHA256
    # the same labels in another order (e.g. sorted by digit) do not give the book's images
    shuffled = np.sort(idx)
    assert hashlib.sha256(np.ascontiguousarray(d.X[shuffled]).tobytes()).hexdigest() != MNIST_FIRST_SHA256
    assert np.array_equal(mnist_first_images(d.y, 3), idx[:3])
    with pytest.raises(ValueError):
        mnist_first_images(d.y[::-1])
    with pytest.raises(ValueError):
        mnist_first_images(d.y, 53)
