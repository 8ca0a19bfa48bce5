"""Book chapter 01 (``book/01_introduction.md``): scikit-learn's keys for the loaded data sets.

scikit-learn's loaders (``load_iris``, ``fetch_openml``...) return a ``Bunch`` with
``data``, ``target``, ``feature_names``, ``target_names``, ``DESCR`` and ``frame``, or
``(data, target)`` with ``return_X_y=True``, and pandas objects with ``as_frame=True``.
:func:`kernelclf.datasets.load` adds these keys to its own (``X``, ``y``, ``classes``,
... stay as they are):

* ``data``, ``target``: ``X``, ``y``; the sets stored as a training and a test part
  (``usps``) give both parts, training rows first; ``promoters`` its sequences (a list of
  strings, as scikit-learn's text loaders); sets of replicated splits
  (``sonar_splits``, ``thyroid_splits``) and ``reuters21578`` (documents with several
  topics each) have none (``None``), and ``return_X_y`` refuses them, naming the keys to
  use instead;
* ``feature_names``: the stored names, else ``x0``, ``x1``, ...;
* ``target_names``: the stored class names (``classes``), else the distinct labels;
* ``DESCR``: the one-line description and the folder's ``PROVENANCE.md``;
* ``frame``: ``None``, or with ``as_frame=True`` a ``pandas.DataFrame`` of the features
  and the target (``data`` a ``DataFrame``, ``target`` a ``Series`` named ``target``), as
  scikit-learn's loaders give; it needs pandas.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["sklearn_keys", "as_frame"]


def sklearn_keys(name, content, description, provenance):
    """The scikit-learn keys for a set's ``content`` (the arrays read from its file)."""
    data = target = None
    if "X" in content and "y" in content and np.ndim(content["X"]) == 2:
        data, target = content["X"], content["y"]
    elif "X_train" in content and np.ndim(content["X_train"]) == 2:
        data = np.vstack([content["X_train"], content["X_test"]])
        target = np.concatenate([content["y_train"], content["y_test"]])
    elif "sequences" in content:
        data, target = content["sequences"], content["y"]
    if "feature_names" in content:
        features = np.asarray(content["feature_names"]).astype(str)
    elif isinstance(data, np.ndarray):
        features = np.array([f"x{i}" for i in range(data.shape[1])])
    else:
        features = None
    if "classes" in content:
        target_names = np.asarray(content["classes"])
    elif target is not None:
        target_names = np.unique(target)
    else:
        target_names = None
    text = description
    if provenance and Path(provenance).is_file():
        text = f"{description}\n\n{Path(provenance).read_text(encoding='utf-8')}"
    return dict(data=data, target=target, feature_names=features, target_names=target_names,
                DESCR=text, frame=None)


def as_frame(bunch):
    """``bunch`` with ``data`` a DataFrame, ``target`` a Series and ``frame`` both."""
    if not (isinstance(bunch.data, np.ndarray) and bunch.data.ndim == 2):
        raise ValueError(f"as_frame=True needs a table of numbers; {bunch.name!r} holds "
                         f"{type(bunch.data).__name__ if bunch.data is not None else 'no single table'}"
                         " (use as_frame=False)")
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError("as_frame=True returns pandas objects and needs pandas "
                          "(pip install pandas), as scikit-learn's loaders do") from exc
    data = pd.DataFrame(bunch.data, columns=list(bunch.feature_names))
    target = pd.Series(bunch.target, name="target")
    bunch.data, bunch.target = data, target
    bunch.frame = pd.concat([data, target], axis=1)
    return bunch
