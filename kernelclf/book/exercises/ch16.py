"""Book chapter 16 (``book/16_pac_bayes_and_volume_ratios.md``): checkers for the PAC-Bayes exercises."""
from __future__ import annotations

import numpy as np

from kernelclf.book.exercises._core import Exercise

DELTA = 0.05


def _first_m(variant="right"):
    # the worked solution of ch16-ex-1: eq. 5.12 (LKC Theorem 5.10) with d = m, Gamma = 0.95
    from kernelclf.bounds import pac_bayes_margin as pbm

    ms = np.arange(3, 20_000)
    b = pbm.pac_bayes_margin_bound(ms, 0.95, DELTA)
    const = 2 * float(pbm.margin_log_volume_bound(0.95, 1))
    if variant == "no factor 2":  # d ln(...) / m instead of 2 d ln(...) / m
        b = b - const / 2
    elif variant == "d = 1":  # the feature-space dimension of the RBF kernel forgotten
        b = pbm.pac_bayes_margin_bound(ms, 0.95, DELTA, n=1)
    return int(ms[np.argmax(b < 1)])


_GAMMAS = np.array([0.1, 0.3, 0.6])


def _ball_savings(tr_x=None, exact=True):
    # the worked solution of ch16-ex-2: ln(1/P) of TR's ball ||v - w|| < gamma minus that of
    # the ball <v, w> > sqrt(1 - gamma^2) of Theorem C.13, on the sphere of R^100 (LKC C.13)
    from kernelclf.bounds import volume as vol

    ratio = vol.log_volume_ratio if exact else vol.log_volume_ratio_bound
    x_tr = vol.cap_x_from_radius(_GAMMAS) if tr_x is None else tr_x
    return np.asarray(ratio(100, x_tr) - ratio(100, vol.cap_x_from_margin(_GAMMAS)))


def _first_ell_below(level=0.7, omega=0.01, two_ln=True, log2=False):
    # the worked solution of ch16-ex-3: the least ell >= 7 at which TR's eq. 15 (the Gibbs
    # bound, TR Theorem 2) with vol(V) = 2^-ell / omega, epsilon = 0.05, drops below level;
    # below ell = 7 the volume would exceed one. The bound falls in ell from there on.
    from kernelclf.bounds import bayes_point as bp

    ells = np.arange(7, 20_000)
    cplx = ells * np.log(2) - np.log(1 / omega)
    if two_ln and not log2:
        b = bp.tr_gibbs_bound(ells, DELTA, log_inv_volume=cplx)
    else:
        extra = 0.0 if not two_ln else 2 * np.log2(ells)
        b = (cplx + extra + np.log(1 / DELTA) + 1) / ells
    return int(ells[np.argmax(b < level)])


EXERCISES = [
    Exercise(
        label="ch16-ex-1",
        kind="number",
        solution=_first_m,
        integer=True,
        asks="the smallest m at which eq. 5.12 with d = m, Gamma = 0.95, delta = 0.05 falls "
             "below one (an integer).",
        hint="Evaluate pac_bayes_margin.pac_bayes_margin_bound(m, 0.95, 0.05) on m = 3, 4, ... and "
             "take the first m below one (LKC Theorem 5.10, eq. 5.12).",
        inputs=("d=m", "Γ = 0.95", "δ = 0.05", "eq. 5.12", "falls below one"),
        mistakes=[
            (lambda: _first_m("no factor 2"),
             "Too small: eq. 5.12 has (2/m) in front of d ln(1/(1 - sqrt(1 - Gamma^2))), so with "
             "d = m the constant part is 2 ln(...), not ln(...) (LKC Theorem 5.10)."),
            (lambda: _first_m("d = 1"),
             "Far too small: you used d = 1, but an RBF kernel's feature space is infinite, so "
             "d = min(m, n) = m in eq. 5.12 (LKC Theorem 5.10, Remark 5.12)."),
        ],
    ),
    Exercise(
        label="ch16-ex-2",
        kind="array",
        solution=_ball_savings,
        rtol=1e-6,
        asks="the nats the larger ball saves for n = 100 and gamma = 0.1, 0.3, 0.6: ln(1/P) of "
             "TR's ball minus ln(1/P) of the ball of Theorem C.13 (an array of three numbers).",
        hint="vol.log_volume_ratio(100, x) gives ln(1/P) of the cap <v, w> > 1 - x: TR's ball "
             "has x = vol.cap_x_from_radius(gamma), the other x = vol.cap_x_from_margin(gamma); "
             "subtract (LKC Theorem C.13, eq. C.13; TR §4).",
        mistakes=[
            (lambda: -_ball_savings(),
             "The signs are flipped: the larger ball has the larger probability, so the smaller "
             "ln(1/P); subtract its ln(1/P) from TR's."),
            (lambda: _ball_savings(tr_x=_GAMMAS**2),
             "TR's ball of Euclidean radius γ is the cap <v, w> > 1 - γ²/2 (since "
             "‖v - w‖² = 2 - 2<v, w> for unit vectors): x = γ²/2, not γ²."),
            (lambda: _ball_savings(exact=False),
             "Those are differences of Theorem C.15's upper bounds p ln(1/x) + ln 2 "
             "(log_volume_ratio_bound), not of the exact ln(1/P): use vol.log_volume_ratio "
             "(LKC eq. C.13)."),
        ],
        inputs=("n=100", "γ = 0.1, 0.3, 0.6", "`vol.log_volume_ratio`", "how many nats",
                r"\{\mathbf v:\|\mathbf v-\mathbf w\|<\gamma\}"),
    ),
    Exercise(
        label="ch16-ex-3",
        kind="number",
        solution=_first_ell_below,
        integer=True,
        asks="the least sample size ell at which TR's eq. 15 as printed "
             "(bayes_point.tr_gibbs_bound), with vol(V) = 2^-ell / omega, omega = 0.01 and "
             "epsilon = 0.05, falls below 0.7 (an integer).",
        hint="Write ln(1/vol(V)) = ell ln 2 - ln(1/omega) (the volume 2^-ell/omega underflows "
             "for large ell, its logarithm does not), evaluate "
             "bayes_point.tr_gibbs_bound(ell, 0.05, log_inv_volume=...) on a range of ell and "
             "take the first below 0.7 (TR §4, eq. 15; the bound falls towards ln 2).",
        mistakes=[
            (lambda: _first_ell_below(two_ln=False),
             "That is the variant without the 2 ln ell term; the exercise asks about eq. 15 "
             "as printed (bayes_point.tr_gibbs_bound), which keeps it (TR Theorem 2)."),
            (lambda: _first_ell_below(omega=1.0),
             "You used vol(V) = 2^-ell: TR's example has vol(V) = 2^-ell / omega with "
             "omega = 0.01, a volume a hundred times larger (TR §4.1)."),
            (lambda: _first_ell_below(log2=True),
             "Your logarithm of ell is to base 2: eq. 15 has 2 ln ell, the natural logarithm "
             "(TR Theorem 2)."),
        ],
        inputs=(r"\mathrm{vol}(V)=2^{-\ell}/\omega", r"\omega=0.01", "ε = 0.05",
                "as printed", "`bayes_point.tr_gibbs_bound`"),
    ),
]
