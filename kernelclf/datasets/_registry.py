"""Book chapter 01 (``book/01_introduction.md``): the data home and the loader of the real data sets.

The catalogue of the sets is :mod:`kernelclf.datasets._catalogue`.

Every entry records where the data file lives inside the *data home*, the
sha256 of each shipped file (copied from the folder's ``PROVENANCE.md``), the
public source of the original files and how ``python -m kernelclf.datasets
fetch NAME`` rebuilds the file from them (or, when kernelclf cannot convert
the original, the exact manual steps).

The data home is ``$KERNELCLF_DATA`` if set, otherwise
``$XDG_CACHE_HOME/kernelclf`` or ``~/.cache/kernelclf``.  Its layout: ``sonar/sonar.npz``,
``raetsch/heart.npz``, ``lkc_splits/sonar_100splits.npz`` and so on, each
folder with a ``PROVENANCE.md``.  Loading never downloads anything.
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._bunch import as_frame as to_frame
from ._bunch import sklearn_keys
from ._catalogue import REGISTRY, DataSet, Recipe, Source, dataset_names, get_spec  # noqa: F401 (re-exported)

__all__ = [
    "ENV_VAR", "DataSet", "Source", "Recipe", "ChecksumError", "data_home", "get_spec",
    "dataset_names", "load", "file_sha256", "content_sha256", "status", "MANIFEST",
]

ENV_VAR = "KERNELCLF_DATA"
#: the data home inside the in-browser lab (Pyodide's in-memory file system); the files are
#: fetched from the site's copy (``<lab>/files/data``, written by :mod:`kernelclf.book.lite`)
LITE_DATA_HOME = "/home/pyodide/kernelclf_data"
MANIFEST = "FETCHED.json"
FETCH_COMMAND = "python -m kernelclf.datasets fetch {name}"


class ChecksumError(OSError):
    """A data file (or a downloaded original) does not have the recorded sha256."""


# ---------------------------------------------------------------- data home
def data_home(data_home=None):
    """The folder that holds the data files.

    Resolution order: the argument, ``$KERNELCLF_DATA``, in Pyodide (the book's in-browser
    lab, :mod:`kernelclf.book.lite`) an in-memory folder filled from the site on first use,
    ``$XDG_CACHE_HOME/kernelclf``, ``~/.cache/kernelclf``.  The folder is not created here.
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    if sys.platform == "emscripten":
        return Path(LITE_DATA_HOME)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "kernelclf"


def _home_origin(explicit):
    if explicit is not None:
        return "given as data_home"
    if os.environ.get(ENV_VAR):
        return f"from ${ENV_VAR}"
    return f"default; ${ENV_VAR} is not set"


# ---------------------------------------------------------------- checksums
def file_sha256(path, chunk=1 << 20):
    """sha256 hex digest of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def content_sha256(arrays):
    """Digest of named arrays that does not depend on how the .npz was written.

    Hashes, for each key in sorted order, the key, dtype, shape and raw bytes.
    Two .npz files with equal arrays give the same digest even though their
    zip time stamps (and thus their file sha256) differ.
    """
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode() + b"\0" + a.dtype.str.encode() + b"\0" + repr(a.shape).encode() + b"\0")
        h.update(a.tobytes())
    return h.hexdigest()


def read_manifest(folder):
    """Records written by ``fetch`` in ``folder/FETCHED.json`` (empty dict if none)."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


_VERIFIED = {}


def _verify(spec, path, expected):
    """Check ``path`` against the registry sha256 or a fetch record; cached per process."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key in _VERIFIED:
        return _VERIFIED[key]
    got = file_sha256(path)
    if got == expected:
        origin = "reference"
    else:
        record = read_manifest(path.parent).get(path.name)
        if record is not None and record.get("sha256") == got:
            origin = "fetched"
        else:
            hint = ("a fetch record exists but does not match either, so the file changed after it "
                    "was written" if record is not None else "")
            raise ChecksumError(
                f"checksum mismatch for data set {spec.name!r}: {path} has sha256 {got}, "
                f"expected {expected} (from PROVENANCE.md){'; ' + hint if hint else ''}. "
                f"The file is corrupt or not the recorded version; delete it and run "
                f"`{FETCH_COMMAND.format(name=spec.name)} --force`, or restore it from the "
                f"shared data folder.")
    _VERIFIED[key] = origin
    return origin


def _missing_message(spec, home, missing, explicit):
    lines = [
        f"data set {spec.name!r} is not in the data home {home} ({_home_origin(explicit)}): "
        f"missing {missing}.",
        f"Point ${ENV_VAR} at a folder that has it, or fetch it into the data home with:",
        f"    {FETCH_COMMAND.format(name=spec.name)}"
        + (f" --data-home {home}" if explicit is not None else ""),
        f"Public source of the original: {spec.source_url}",
    ]
    if spec.recipe.converter is None:
        lines.append("(kernelclf cannot convert this source itself; the fetch command prints the "
                     "exact manual steps.)")
    return "\n".join(lines)


def status(name, data_home_=None):
    """``'present'``, ``'missing'`` for one data set (existence only, no checksum)."""
    spec = get_spec(name)
    home = data_home(data_home_)
    ok = all((home / spec.folder / f).is_file() for f, _ in spec.files)
    return "present" if ok else "missing"


# ---------------------------------------------------------------- loading
def _read_promoters(path):
    ids, labels, seqs = [], [], []
    with open(path, newline="", encoding="ascii") as fh:
        for row in csv.DictReader(fh):
            ids.append(int(row["id"]))
            labels.append(int(row["label"]))
            seqs.append(row["sequence"])
    return dict(sequences=seqs, y=np.asarray(labels, dtype=np.int8),
                ids=np.asarray(ids, dtype=np.int64))


def _read_reuters(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return dict(documents=data["documents"], categories=list(data["categories"]))


def _read_npz(spec, path):
    with np.load(path, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    for k, v in list(out.items()):
        if v.ndim == 0:
            out[k] = v.item()
    if spec.name == "usps":
        scale = float(out["scale"])
        out["X_train"] = out["X_train"].astype(np.float64) / scale
        out["X_test"] = out["X_test"].astype(np.float64) / scale
    return out


def _fetch_from_lab(spec, folder):  # pragma: no cover - runs only inside Pyodide
    """Copy a data set's files from the lab's site into ``folder`` (synchronous HTTP from
    the kernel's web worker; the lab's drive cannot pass large binary files to it)."""
    from js import XMLHttpRequest, location  # Pyodide's bridge to the browser

    href = str(location.href)
    base = href[:href.index("/extensions/")] if "/extensions/" in href else href.rsplit("/", 1)[0]
    folder.mkdir(parents=True, exist_ok=True)
    for fname in [f for f, _ in spec.files] + ["PROVENANCE.md"]:
        target = folder / fname
        if target.is_file():
            continue
        req = XMLHttpRequest.new()
        req.open("GET", f"{base}/files/data/{spec.folder}/{fname}", False)
        req.responseType = "arraybuffer"
        req.send(None)
        if req.status == 200:
            target.write_bytes(req.response.to_bytes())


def load(name, data_home=None, verify=True, *, return_X_y=False, as_frame=False):
    """Load a registered data set from the data home (never downloads).

    Parameters
    ----------
    name : str
        A registry name, see :func:`dataset_names`.
    data_home : str or path, optional
        Overrides ``$KERNELCLF_DATA`` and the default cache folder.
    verify : bool, default True
        Check each file's sha256 against PROVENANCE (or the record written by
        ``fetch``); the result is cached per process for an unchanged file.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of the Bunch, as scikit-learn's loaders do
        (a ``ValueError`` for the sets without a single sample, see below).
    as_frame : bool, default False
        ``data`` as a ``pandas.DataFrame``, ``target`` as a ``pandas.Series`` and
        ``frame`` both, as scikit-learn's loaders do (needs pandas; tables of numbers only).

    Returns
    -------
    sklearn.utils.Bunch
        The arrays of the file (``X``, ``y``, ``classes``, ``train_idx``,
        ``test_idx``, ``split_ids``, ``X_train``, ... as present; ``usps``
        pixels scaled to floats by ``/ scale``), ``promoters``: ``sequences``,
        ``y``, ``ids``; ``reuters21578``: ``documents`` (list of dicts) and
        ``categories``.  Always also ``name``, ``description``, ``provenance``
        (path of ``PROVENANCE.md`` or ``None``), ``files``, ``origin``
        (``'reference'``, ``'fetched'`` or ``'unverified'``), and scikit-learn's keys
        ``data``, ``target``, ``feature_names``, ``target_names``, ``DESCR`` and
        ``frame`` (:mod:`kernelclf.datasets._bunch`: ``data`` is ``X``; ``usps`` its
        training rows then its test rows; ``None`` for the replicated splits and
        Reuters).

    Raises
    ------
    FileNotFoundError
        A file is missing; the message names the data home, ``$KERNELCLF_DATA``
        and the fetch command.
    ChecksumError
        A file's sha256 matches neither PROVENANCE nor a fetch record.
    """
    spec = get_spec(name)
    explicit = data_home
    home = globals()["data_home"](data_home)
    folder = home / spec.folder
    if sys.platform == "emscripten" and str(home) == LITE_DATA_HOME:
        _fetch_from_lab(spec, folder)
    paths = []
    for fname, _ in spec.files:
        p = folder / fname
        if not p.is_file():
            raise FileNotFoundError(_missing_message(spec, home, f"{spec.folder}/{fname}", explicit))
        paths.append(p)
    origins = [_verify(spec, p, sha) if verify else "unverified"
               for p, (_, sha) in zip(paths, spec.files)]
    main = paths[0]
    if spec.kind == "npz":
        content = _read_npz(spec, main)
    elif spec.kind == "promoters_csv":
        content = _read_promoters(main)
    else:
        content = _read_reuters(main)
    prov = folder / "PROVENANCE.md"
    provenance = str(prov) if prov.is_file() else None
    bunch = Bunch(**{**sklearn_keys(spec.name, content, spec.description, provenance),
                     **content},
                  name=spec.name, description=spec.description,
                  provenance=provenance, files=[str(p) for p in paths],
                  origin="fetched" if "fetched" in origins else origins[0])
    if as_frame:
        bunch = to_frame(bunch)
    if not return_X_y:
        return bunch
    if bunch.data is None or bunch.target is None:
        keys = sorted(k for k in content if k not in ("scale",))
        raise ValueError(f"{spec.name!r} has no single (data, target) pair for return_X_y=True "
                         f"(it holds {', '.join(keys)}): load it without return_X_y and use "
                         "those keys")
    return bunch.data, bunch.target
