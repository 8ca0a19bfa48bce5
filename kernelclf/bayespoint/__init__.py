"""Bayes points: version space, Ruján's polygon billiards, the kernel billiard and its
variants, and the Bayes point machine (book chapters 10-12; LKC §3.4, BPM, RM).

Book chapters 10 and 11 (``book/10_version_space_and_bayes_point.md``, ``book/11_kernel_billiard.md``);
also chapter 12.

* :mod:`~kernelclf.bayespoint.versionspace` - a consistent point, sampling, the centre of mass
* :mod:`~kernelclf.bayespoint.polygon` - Ruján's 2-D polygon billiards and centres
* :mod:`~kernelclf.bayespoint.billiard` - the kernel billiard (LKC Algorithm 10)
* :mod:`~kernelclf.bayespoint.billiard_engines` - its per-flight steps and flight loop,
  numba-compiled and NumPy
* :mod:`~kernelclf.bayespoint.rujan` - Ruján-Marchand variants: flipper, light trap, onion
* :mod:`~kernelclf.bayespoint.bpm` - Bayes point machines by billiard or perceptron averaging
* :mod:`~kernelclf.bayespoint.connector` - the maximal-margin perceptron from the minimal connector
  of the two convex hulls (RM §18.3)
* :mod:`~kernelclf.bayespoint.diagrams` - the billiards' geometry drawn by their own code
  (TR Figs 8-10, RM Figs 18.5, 18.7-18.10)
"""
from .billiard import (
    STOPPING_RULES,
    BilliardResult,
    NotSeparableError,
    kernel_billiard,
    oplus,
    reflect,
    rho,
    slerp_add,
)
from .billiard_engines import ENGINES, select_engine
from .bpm import AUTO_MARGIN, BayesPointMachine, perceptron_samples
from .connector import ConnectorResult, minimal_connector
from .diagrams import (
    draw_chord_and_arc,
    draw_minimal_connector,
    draw_onion_flight,
    draw_point_mirror,
    draw_reflection,
    draw_semi_transparent_mirror,
    draw_spherical_addition,
)
from .polygon import (
    clip_polygon,
    polygon_billiard,
    polygon_bisector,
    polygon_centroid,
    polygon_inscribed_circle,
)
from .rujan import flipper, flipper_bounce_estimate, hoeffding_sample_size, light_trap, onion_billiard
from .versionspace import (
    bayes_point_from_samples,
    corner_average,
    find_version_space_point,
    posterior_disagreement,
    sample_version_space,
    version_space_centre,
)

__all__ = [
    "find_version_space_point", "sample_version_space", "version_space_centre", "corner_average",
    "posterior_disagreement", "bayes_point_from_samples",
    "polygon_billiard", "polygon_centroid", "clip_polygon", "polygon_bisector",
    "polygon_inscribed_circle", "BilliardResult", "rho", "oplus", "slerp_add", "reflect",
    "kernel_billiard", "NotSeparableError", "STOPPING_RULES", "flipper", "light_trap",
    "onion_billiard", "flipper_bounce_estimate", "hoeffding_sample_size", "minimal_connector",
    "ConnectorResult", "BayesPointMachine", "perceptron_samples", "AUTO_MARGIN", "ENGINES",
    "select_engine", "draw_chord_and_arc", "draw_reflection", "draw_point_mirror",
    "draw_spherical_addition", "draw_semi_transparent_mirror", "draw_onion_flight",
    "draw_minimal_connector",
]
