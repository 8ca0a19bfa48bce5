"""Test helper: the toy problems of the Bayesian classifier tests (chapters 07 and 08).

``sinc_data``: noisy samples of ``sin(x)/x`` on [-10, 10], Tipping's (2001) regression
example; ``moons``: two interleaved half circles with Gaussian noise, labels +1/-1.
"""
import numpy as np


def sinc_data(m, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-10, 10, size=(m, 1))
    return X, np.sinc(X[:, 0] / np.pi) + noise * rng.normal(size=m)


def moons(m, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, np.pi, m)
    upper = rng.random(m) < 0.5
    X = np.where(upper[:, None], np.c_[np.cos(a), np.sin(a)],
                 np.c_[1 - np.cos(a), 0.5 - np.sin(a)])
    return X + noise * rng.normal(size=X.shape), np.where(upper, 1, -1)
