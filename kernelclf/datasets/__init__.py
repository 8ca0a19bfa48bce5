"""Real data sets of the book and seeded toy problems.

Book chapter 01 (``book/01_introduction.md``); data sets of LKC, BPM, TR and RMM.

``load(name)`` reads a registered data set from the data home (``$KERNELCLF_DATA``,
else ``$XDG_CACHE_HOME/kernelclf`` or ``~/.cache/kernelclf``), checks its sha256
and returns a :class:`sklearn.utils.Bunch` (with scikit-learn's keys ``data``,
``target``, ``feature_names``, ``target_names``, ``DESCR``, ``frame``, and its
``return_X_y`` and ``as_frame``); it never downloads.  A missing set is
rebuilt from its public original with ``python -m kernelclf.datasets fetch NAME``
(``list`` shows what is present).  Sources, checksums and conversions are those
of each folder's ``PROVENANCE.md`` (see also the data folder's README.md).

The toy generators (:mod:`kernelclf.datasets.toys`) are re-exported here.
"""
from ._convert import ManualFetchRequired, fetch
from ._registry import (
    ENV_VAR,
    REGISTRY,
    ChecksumError,
    content_sha256,
    data_home,
    dataset_names,
    file_sha256,
    get_spec,
    load,
    status,
)
from .toys import make_gaussians, make_linear_separable, make_moons, make_teacher, peer_moons

__all__ = [
    "ENV_VAR", "REGISTRY", "ChecksumError", "ManualFetchRequired", "content_sha256", "data_home",
    "dataset_names", "fetch", "file_sha256", "get_spec", "load", "status", "make_moons", "peer_moons",
    "make_linear_separable", "make_gaussians", "make_teacher",
]
