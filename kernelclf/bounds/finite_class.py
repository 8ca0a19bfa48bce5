"""Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``): a finite class to test Occam bounds on.

LKC Theorem 5.1 (eq. 5.2) and Theorem 5.6 (first part, and eq. 5.8) hold for every
hypothesis of a countable class at once. To check them with power one needs the exact risk
of every hypothesis, not only of the one a learner returns. :func:`threshold_grid_experiment`
draws samples for the finite class of ``n_grid`` thresholds ``h_t(x) = sign(x - t)`` on the
grid ``t = 0, 1/(n_grid - 1), ..., 1``, with ``x`` uniform on ``[0, 1]``, the target
``sign(x - theta)`` (``theta`` on the grid) and each label flipped with probability
``noise``. Then the risk of ``h_t`` is exactly ``noise + (1 - 2 noise) |t - theta|`` and
the training error of every ``h_t`` on every sample is returned, so a chapter can evaluate
the worst hypothesis a bound covers (the one that makes it tight), not just a typical one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from ._validation import check_int, check_probability

__all__ = ["ThresholdGridResult", "threshold_grid_experiment"]


@dataclass
class ThresholdGridResult:
    """Output of :func:`threshold_grid_experiment`.

    Attributes
    ----------
    thresholds : (n_grid,) the grid of thresholds ``t``
    risk : (n_grid,) exact risk of each ``h_t``
    emp_risk : (n_runs, n_grid) training error of each ``h_t`` on each sample
    m : int, sample size of each run
    """

    thresholds: np.ndarray
    risk: np.ndarray
    emp_risk: np.ndarray
    m: int


def threshold_grid_experiment(m, n_grid=101, theta_index=30, noise=0.0, n_runs=200,
                              random_state=None):
    """Training errors of all ``n_grid`` grid thresholds on ``n_runs`` samples of size ``m``.

    Parameters
    ----------
    m : int >= 1
    n_grid : int >= 2, number of hypotheses (the prior of LKC Theorem 5.1 is uniform on them)
    theta_index : int, index of the target threshold on the grid
    noise : float in [0, 1/2), label-flip probability
    n_runs : int >= 1
    random_state : None, int or numpy Generator/RandomState

    Returns
    -------
    ThresholdGridResult
    """
    m = int(check_int(m, "m", minimum=1))
    n_grid = int(check_int(n_grid, "n_grid", minimum=2))
    n_runs = int(check_int(n_runs, "n_runs", minimum=1))
    theta_index = int(check_int(theta_index, "theta_index", minimum=0))
    if theta_index >= n_grid:
        raise ValueError(f"theta_index must be below n_grid={n_grid}, got {theta_index}")
    noise = float(check_probability(noise, "noise"))
    if noise >= 0.5:
        raise ValueError(f"noise must lie in [0, 1/2), got {noise}")
    rng = check_random_state(random_state) if not isinstance(random_state, np.random.Generator) \
        else random_state
    t = np.linspace(0.0, 1.0, n_grid)
    theta = t[theta_index]
    risk = noise + (1.0 - 2.0 * noise) * np.abs(t - theta)
    x = rng.uniform(0.0, 1.0, (n_runs, m))
    flip = rng.uniform(0.0, 1.0, (n_runs, m)) < noise
    y_pos = (x >= theta) ^ flip  # label +1?
    # h_t errs on (x, y) iff [x >= t] != y_pos; count per threshold with sorted cumulative sums
    emp = np.empty((n_runs, n_grid))
    for r in range(n_runs):
        order = np.argsort(x[r])
        xs, ys = x[r][order], y_pos[r][order]
        k = np.searchsorted(xs, t, side="left")  # points below t are labelled -1 by h_t
        pos_below = np.r_[0, np.cumsum(ys)][k]  # +1 labels predicted -1
        neg_above = np.r_[0, np.cumsum(~ys[::-1])][m - k]  # -1 labels predicted +1
        emp[r] = (pos_below + neg_above) / m
    return ThresholdGridResult(thresholds=t, risk=risk, emp_risk=emp, m=m)
