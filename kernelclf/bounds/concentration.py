"""Concentration (large-deviation) inequalities and the elementary inequalities of LKC App. A.5.

Book chapter appendix A (``book/appendix_a_concentration.md``); LKC App. A.5.1–A.5.2
(Theorems A.101–A.119); McDiarmid (1989) for the original constant; used by
``book/14_vc_theory_and_srm.md``.

Every function returns the raw right-hand side of its inequality (see
:mod:`kernelclf.bounds`: values >= 1 are trivial, :func:`kernelclf.bounds.trivial`).
Arguments broadcast like numpy arrays; scalar inputs give numpy scalars.

Which McDiarmid is which: LKC Theorem A.119 states ``exp(-eps^2 / (2 sum c_i^2))``
(its proof applies Hoeffding's lemma to a variable of range ``2 c_i``); McDiarmid's
original theorem has the stronger ``exp(-2 eps^2 / sum c_i^2)``, four times the
exponent. :func:`mcdiarmid` returns the book's form by default and the original with
``form="original"``. Both are valid; the original is the tighter one.

Sums and means: LKC states Bennett (A.114) for the *sum* ``X_1 + ... + X_n`` and
Bernstein (A.115), Hoeffding (A.112) and Chebyshev-for-means for the *mean*. Here every
function takes the deviation of the mean as ``epsilon`` unless its docstring says
otherwise; :func:`bennett` has a ``mean`` switch.
"""
from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp

from ._validation import (
    broadcast,
    check_delta,
    check_finite,
    check_int,
    check_m,
    check_nonnegative,
    check_positive,
    check_probability,
    result,
)

__all__ = [
    "markov",
    "chebyshev",
    "hoeffding_lemma",
    "hoeffding",
    "hoeffding_epsilon",
    "bennett",
    "bernstein",
    "bernstein_epsilon",
    "binomial_tail",
    "mcdiarmid",
    "union_bound",
    "binomial_sum",
    "log_binomial_sum",
    "binomial_sum_bound",
]


def markov(epsilon, mean):
    """Markov's inequality, LKC Theorem A.109.

    For a random variable ``X >= 0`` (``F_X(0) = 0``) with expectation ``mean``,
    ``P(X > epsilon) < mean / epsilon``. The book writes it as
    ``P(X > lambda E[X]) < 1 / lambda``; put ``lambda = epsilon / mean``.

    Parameters
    ----------
    epsilon : array_like, > 0
        Threshold.
    mean : array_like, > 0
        ``E[X]``.

    Returns
    -------
    bound : float or ndarray
        ``mean / epsilon`` (raw; >= 1 is trivial).
    """
    eps = check_positive(epsilon, "epsilon")
    mu = check_positive(mean, "mean")
    eps, mu = broadcast(eps, mu)
    return result(mu / eps)


def chebyshev(epsilon, variance, n=1):
    """Chebyshev's inequality for the mean of ``n`` iid variables, LKC Theorem A.110.

    ``P(|mean_n - mu| > epsilon) < Var(X) / (n epsilon^2)``; ``n = 1`` is eq. (A.43)
    itself, general ``n`` the form used in the proof of the law of large numbers
    (Theorem A.108), since ``Var(mean_n) = Var(X) / n``.

    Parameters
    ----------
    epsilon : array_like, > 0
    variance : array_like, >= 0
        ``Var(X)`` of one variable.
    n : array_like of int, >= 1

    Returns
    -------
    bound : float or ndarray (raw; >= 1 is trivial)
    """
    eps = check_positive(epsilon, "epsilon")
    var = check_nonnegative(variance, "variance")
    n = check_m(n, "n")
    eps, var, n = broadcast(eps, var, n)
    return result(var / (n * eps**2))


def hoeffding_lemma(s, a, b):
    """Hoeffding's lemma, LKC Lemma A.111: bound on a moment generating function.

    For ``E[X] = 0`` and ``X in [a, b]`` almost surely, for all ``s > 0``,
    ``E[exp(s X)] <= exp(s^2 (b - a)^2 / 8)``. This bounds a moment generating
    function, not a probability, so values above 1 are expected.

    Parameters
    ----------
    s : array_like, > 0
    a, b : array_like, ``a <= 0 <= b`` (needed for ``E[X] = 0``), ``a < b``

    Returns
    -------
    bound : float or ndarray
        ``exp(s^2 (b - a)^2 / 8)``.
    """
    s = check_positive(s, "s")
    a, b = _check_range(a, b)
    if (a > 0).any() or (b < 0).any():
        raise ValueError("a zero-mean variable needs a <= 0 <= b")
    s, a, b = broadcast(s, a, b)
    return result(np.exp(s**2 * (b - a) ** 2 / 8.0))


def hoeffding(n, epsilon, a=0.0, b=1.0, two_sided=False):
    """Hoeffding's inequality for the mean of ``n`` bounded variables, LKC Theorem A.112.

    For independent ``X_i in [a, b]`` with common mean ``mu``:
    one-sided eq. (A.45) ``P(mean_n - mu > epsilon) < exp(-2 n epsilon^2 / (b - a)^2)``;
    two-sided eq. (A.46) adds the factor 2 (union bound over both tails).

    Parameters
    ----------
    n : array_like of int, >= 1
    epsilon : array_like, > 0
    a, b : array_like, ``a < b``
        Range of the variables.
    two_sided : bool
        Bound ``P(|mean_n - mu| > epsilon)`` (eq. A.46) instead of the upper tail.

    Returns
    -------
    bound : float or ndarray (raw; the two-sided form can exceed 1, which is trivial)
    """
    n = check_m(n, "n")
    eps = check_positive(epsilon, "epsilon")
    a, b = _check_range(a, b)
    n, eps, a, b = broadcast(n, eps, a, b)
    value = np.exp(-2.0 * n * eps**2 / (b - a) ** 2)
    return result(2.0 * value if two_sided else value)


def hoeffding_epsilon(n, delta, a=0.0, b=1.0, two_sided=False):
    """Deviation ``epsilon`` at which Hoeffding's bound (A.45)/(A.46) equals ``delta``.

    ``epsilon = (b - a) sqrt(ln(k / delta) / (2 n))`` with ``k = 1`` (one-sided) or
    ``k = 2`` (two-sided): with probability at least ``1 - delta`` the mean is within
    ``epsilon`` of ``mu`` (LKC Theorem A.112 solved for ``epsilon``).
    """
    n = check_m(n, "n")
    delta = check_delta(delta)
    a, b = _check_range(a, b)
    n, delta, a, b = broadcast(n, delta, a, b)
    k = 2.0 if two_sided else 1.0
    return result((b - a) * np.sqrt(np.log(k / delta) / (2.0 * n)))


def bennett(n, epsilon, variance, c, mean=False):
    """Bennett's inequality, LKC Theorem A.114.

    For independent zero-mean ``X_i`` with ``|X_i| <= c`` and variance ``sigma^2``,
    ``P(X_1 + ... + X_n > epsilon)
    < exp(-(epsilon/c) ((1 + n sigma^2/(epsilon c)) ln(1 + epsilon c/(n sigma^2)) - 1))``.

    Parameters
    ----------
    n : array_like of int, >= 1
    epsilon : array_like, > 0
        Deviation of the **sum** (book's form), or of the mean if ``mean=True``
        (then the sum deviation ``n * epsilon`` is used).
    variance : array_like, >= 0
        ``sigma^2 = E[X^2]``. With ``variance = 0`` the variables are 0 almost surely
        and the bound is 0.
    c : array_like, > 0
        Almost-sure bound on ``|X_i|``.
    mean : bool

    Returns
    -------
    bound : float or ndarray (raw)
    """
    n = check_m(n, "n")
    eps = check_positive(epsilon, "epsilon")
    var = check_nonnegative(variance, "variance")
    c = check_positive(c, "c")
    _check_variance_vs_c(var, c)
    n, eps, var, c = broadcast(n, eps, var, c)
    t = n * eps if mean else eps           # deviation of the sum
    nv = n * var
    with np.errstate(divide="ignore", invalid="ignore"):
        u = t * c / nv                       # eps c / (n sigma^2)
        # (1 + 1/u) ln(1 + u) - 1, written with log1p for small u
        h = np.where(nv > 0, (1.0 + 1.0 / u) * np.log1p(u) - 1.0, np.inf)
    return result(np.exp(-(t / c) * h))


def bernstein(n, epsilon, variance, c):
    """Bernstein's inequality for the mean, LKC Theorem A.115.

    For independent zero-mean ``X_i`` with ``|X_i| <= c`` and variance ``sigma^2``,
    ``P(mean_n > epsilon) < exp(-n epsilon^2 / (2 sigma^2 + c epsilon))``.
    It follows from Bennett's inequality (A.114) via ``ln(1+x) >= 2x/(2+x)``, so it is
    never smaller than :func:`bennett` with ``mean=True``. Against Hoeffding on
    ``[-c, c]`` (exponent ``n epsilon^2 / (2 c^2)``) it is tighter exactly when
    ``2 sigma^2 + c epsilon < 2 c^2``, i.e. for small variance.

    Returns
    -------
    bound : float or ndarray (raw)
    """
    n = check_m(n, "n")
    eps = check_positive(epsilon, "epsilon")
    var = check_nonnegative(variance, "variance")
    c = check_positive(c, "c")
    _check_variance_vs_c(var, c)
    n, eps, var, c = broadcast(n, eps, var, c)
    return result(np.exp(-n * eps**2 / (2.0 * var + c * eps)))


def bernstein_epsilon(n, delta, variance, c):
    """Deviation of the mean at which Bernstein's bound (A.115) equals ``delta``.

    Solves ``n eps^2 = L (2 sigma^2 + c eps)`` with ``L = ln(1/delta)``:
    ``eps = (c L + sqrt(c^2 L^2 + 8 n sigma^2 L)) / (2 n)``.
    """
    n = check_m(n, "n")
    delta = check_delta(delta)
    var = check_nonnegative(variance, "variance")
    c = check_positive(c, "c")
    n, delta, var, c = broadcast(n, delta, var, c)
    L = np.log(1.0 / delta)
    return result((c * L + np.sqrt(c**2 * L**2 + 8.0 * n * var * L)) / (2.0 * n))


def binomial_tail(n, epsilon):
    """Binomial tail bound, LKC Theorem A.116.

    For iid Bernoulli(``mu``) variables and any ``epsilon in (0, mu)``,
    ``P(X_1 = ... = X_n = 0) = (1 - mu)^n < exp(-n epsilon)``: one factor of
    ``epsilon`` in the exponent instead of Hoeffding's ``epsilon^2``. This is the
    step behind the zero-training-error (PAC) bounds.

    Parameters
    ----------
    n : array_like of int, >= 1
    epsilon : array_like in (0, 1]
        Any value below the success probability ``mu``.

    Returns
    -------
    bound : float or ndarray
        ``exp(-n epsilon)``.
    """
    n = check_m(n, "n")
    eps = check_probability(epsilon, "epsilon")
    if (eps <= 0).any():
        raise ValueError("epsilon must be > 0")
    n, eps = broadcast(n, eps)
    return result(np.exp(-n * eps))


def mcdiarmid(epsilon, c, form="book"):
    """McDiarmid's bounded-differences inequality, LKC Theorem A.119.

    If changing the ``i``-th argument of ``f`` changes its value by at most ``c_i``
    (eq. A.50), then ``P(f(X) - E[f(X)] > epsilon)`` is below

    * ``form="book"``: ``exp(-epsilon^2 / (2 sum_i c_i^2))`` — LKC Theorem A.119 as
      printed;
    * ``form="original"``: ``exp(-2 epsilon^2 / sum_i c_i^2)`` — McDiarmid (1989), the
      stronger constant the book mentions after the proof (also in RMM App. A).

    With ``f`` the mean of ``n`` variables in ``[a, b]`` (``c_i = (b-a)/n``) the original
    form is exactly Hoeffding's (A.45).

    The proof in our copy of LKC bounds ``E[exp(s V_i)]`` by ``exp(-s^2 c_i^2 / 2)``; the
    sign must be ``+`` (Lemma A.111 on the range ``[-c_i, c_i]``), as the proof's next line
    uses. The book form above is what the corrected proof gives; see
    ``tests/test_errata.py::test_e25_mcdiarmid_proof_sign``.

    Parameters
    ----------
    epsilon : array_like, > 0
    c : array_like, >= 0
        Bounded differences ``c_i`` along the **last** axis (a 1-d sequence for one
        function); leading axes broadcast with ``epsilon``.
    form : {"book", "original"}

    Returns
    -------
    bound : float or ndarray (raw)
    """
    eps = check_positive(epsilon, "epsilon")
    c = check_nonnegative(c, "c")
    if c.ndim == 0:
        raise ValueError("c must be a sequence of bounded differences c_1, ..., c_n")
    s2 = np.sum(c**2, axis=-1)
    if (s2 <= 0).any():
        raise ValueError("at least one c_i must be > 0")
    eps, s2 = broadcast(eps, s2)
    if form == "book":
        return result(np.exp(-eps**2 / (2.0 * s2)))
    if form == "original":
        return result(np.exp(-2.0 * eps**2 / s2))
    raise ValueError(f"form must be 'book' or 'original', got {form!r}")


def union_bound(probabilities):
    """Union bound, LKC Theorem A.107: ``P(some A_i occurs) <= sum_i P(A_i)``.

    Parameters
    ----------
    probabilities : array_like in [0, 1]
        ``P(A_i)`` along the last axis.

    Returns
    -------
    bound : float or ndarray (raw; the sum can exceed 1, which is trivial)
    """
    p = check_probability(probabilities, "probabilities")
    if p.ndim == 0:
        raise ValueError("probabilities must be a sequence P(A_1), ..., P(A_n)")
    return result(np.sum(p, axis=-1))


def log_binomial_sum(m, d):
    """``ln sum_{i=0}^{d} C(m, i)`` computed stably (log-sum-exp of log-binomials).

    ``d`` may exceed ``m``; terms with ``i > m`` are 0 (so the sum is ``2^m``).
    """
    m = check_int(m, "m", minimum=0)
    d = check_int(d, "d", minimum=0)
    m, d = broadcast(m, d)
    out = np.empty(m.shape, dtype=float)
    for idx in np.ndindex(m.shape):
        mi, di = int(m[idx]), int(min(d[idx], m[idx]))
        i = np.arange(di + 1)
        out[idx] = logsumexp(gammaln(mi + 1) - gammaln(i + 1) - gammaln(mi - i + 1))
    return result(out)


def binomial_sum(m, d):
    """``sum_{i=0}^{d} C(m, i)`` (as float; use :func:`log_binomial_sum` for large ``m``)."""
    return result(np.exp(log_binomial_sum(m, d)))


def binomial_sum_bound(m, d, log=False):
    """Upper bound on the sum of binomials, LKC Theorem A.105.

    For ``d in {1, ..., m}``: ``sum_{i=0}^{d} C(m, i) < (e m / d)^d``. This turns
    Sauer's lemma (4.17) into eq. (4.19).

    Parameters
    ----------
    m : array_like of int, >= 1
    d : array_like of int, ``1 <= d <= m``
    log : bool
        Return ``d (1 + ln(m/d))`` instead (no overflow).
    """
    m = check_m(m, "m")
    d = check_m(d, "d")
    m, d = broadcast(m, d)
    if (d > m).any():
        raise ValueError("Theorem A.105 needs d <= m")
    value = d * (1.0 + np.log(m / d))
    return result(value if log else np.exp(value))


def _check_range(a, b):
    a = check_finite(a, "a")
    b = check_finite(b, "b")
    a, b = broadcast(a, b)
    if (b <= a).any():
        raise ValueError("the range needs a < b")
    return a, b


def _check_variance_vs_c(var, c):
    v, cc = broadcast(var, c)
    if (v > cc**2 * (1 + 1e-12)).any():
        raise ValueError("variance cannot exceed c^2 for a variable with |X| <= c")
