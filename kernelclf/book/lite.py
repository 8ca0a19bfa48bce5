"""The book's in-browser lab: a JupyterLite site with a Pyodide kernel, inside the website.

Book chapter 00 (``book/00_preface.md``); no source formula: this is the book's publishing
tool. ``make book`` calls it after Jupyter Book; every chapter page links to its notebook in
the lab ("Run in your browser", :mod:`kernelclf.book.widgets`).

What :func:`build` writes into ``<html>/lite``:

* a JupyterLite app (``jupyterlite-core`` 0.6.4, ``jupyterlite-pyodide-kernel`` 0.6.1,
  whose Pyodide line is 0.27) whose files are the reader notebooks of
  :mod:`kernelclf.book.reader` (not executed: the reader runs them) and, under ``data/``, the
  registered data files found in the data home (:mod:`kernelclf.datasets`; inside Pyodide
  the package fetches them from there into an in-memory data home on first use);
* the Pyodide distribution: with ``$KERNELCLF_PYODIDE`` (or ``--pyodide``) a local
  Pyodide 0.27.7 folder is checked with its own ``verify.py`` and copied to
  ``lite/pyodide/``, so the site needs no network at all; otherwise ``pyodideUrl`` points
  at the official 0.27.7 release on the jsDelivr CDN;
* the pure-Python wheels Pyodide does not ship: ``kernelclf`` itself (built here, without
  pip), and ``ipywidgets``, ``comm``, ``jupyterlab_widgets``, ``tqdm`` (downloaded by
  ``make setup`` into ``.venv/lite-wheels`` by :func:`download_wheels`). With a local
  Pyodide they are added to its ``pyodide-lock.json`` (name, version, file name, sha256,
  imports, depends), so a plain ``import kernelclf`` loads them with numpy, SciPy,
  scikit-learn and matplotlib; with the CDN they are preloaded by URL when the kernel starts.

With a local Pyodide and Node.js, the wheels the kernel loads when it starts (IPython,
prompt_toolkit, jedi, Pygments, traitlets ..., :data:`KERNEL_START_PACKAGES`) and those the
first ``import kernelclf`` loads (numpy, SciPy, scikit-learn, matplotlib, kernelclf ...), with
their dependencies (:data:`PRECOMPILED`), also get their modules' bytecode
(:func:`precompile_wheels`, run in that same Pyodide under Node), so the reader's browser
imports them without compiling every module first; the sources stay in the wheels. Pyodide's
own wheels ship sources only: the bytecode makes what a reader downloads before the first cell
has run about 81 MB instead of 66 MB, and that cell no longer compiles SciPy, scikit-learn and
matplotlib in the browser. Pyodide's standard library zip ships sources only too: it gets a
``<module>.pyc`` beside each source (4 MB more), so neither the kernel's start nor the first
``import kernelclf`` compiles a module in the browser (before, the start compiled some 150
standard library modules: ``unittest.mock``, ``email``, ``asyncio``, ``urllib`` ... from
source, and the WebAssembly engine optimised CPython's compiler on the way; two lanes of the
browser test used 18-19 CPU seconds for their two kernel starts instead of 22.5-23.5).

With a local Pyodide, a ``sitecustomize`` in its standard library (:data:`SITECUSTOMIZE`)
moves the working directory, which in the kernel is the lab's drive, to the end of
``sys.path``: the kernel's start and the first ``import kernelclf`` no longer ask the page
for the drive folder's attributes at every top-level import (147 synchronous drive requests
before the first cell was done, 62 after).

``jupyter-lite.json`` sets ``pyodideUrl`` explicitly and ``disablePyPIFallback`` (an
incremental rebuild could otherwise fall back to the CDN or PyPI). The app must be served
over HTTP (``make serve``), not opened as ``file://``.

Command line::

    python -m kernelclf.book.lite wheels [--dest DIR]          # at setup time (needs the index)
    python -m kernelclf.book.lite build --html _build/html [--pyodide DIR] [--book book]
"""
from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

__all__ = ["LITE_WHEELS", "PYODIDE_VERSION", "PYODIDE_CDN", "KERNEL_START_PACKAGES", "build",
           "build_wheel", "download_wheels", "extend_lock", "lite_config", "copy_data",
           "precompile_wheels", "start_closure", "PRECOMPILED", "KERNEL_WHEELS",
           "add_sitecustomize", "SITECUSTOMIZE"]

PYODIDE_VERSION = "0.27.7"
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/pyodide.js"
#: pure-Python distributions the lab needs beyond Pyodide's own packages:
#: name -> (import names, lock dependencies)
LITE_WHEELS = {
    "ipywidgets": (["ipywidgets"], ["comm", "traitlets", "ipython"]),
    "comm": (["comm"], ["traitlets"]),
    "jupyterlab_widgets": (["jupyterlab_widgets"], []),
    "tqdm": (["tqdm"], []),
}
#: what ``import kernelclf`` needs from Pyodide's lock (numba, cvxopt, dask are optional)
KERNELCLF_DEPENDS = ["numpy", "scipy", "scikit-learn", "matplotlib", "joblib", "ipywidgets",
                     "tqdm"]
LITE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
#: lab extensions of this environment that do not belong in the lite app (jupytext's needs
#: JupyterLab 4.6 and a server; JupyterLite 0.6 is JupyterLab 4.4)
DROP_EXTENSIONS = ("jupyterlab-jupytext",)
#: settings of the app: every cell stays in the page, no news or update checks (no network)
LITE_SETTINGS = {
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension:notification": {"checkForUpdates": False,
                                                     "fetchNews": "false"},
}
#: what the Pyodide kernel (jupyterlite-pyodide-kernel 0.6, its worker's ``initKernel``) loads
#: from the lock before it reports ready; with their lock dependencies, these wheels are
#: precompiled (:func:`precompile_wheels`)
KERNEL_START_PACKAGES = ("micropip", "piplite", "ssl", "sqlite3", "ipykernel", "comm",
                         "pyodide_kernel", "jedi", "ipython")
#: the kernel's own wheels (shipped by jupyterlite-pyodide-kernel in its ``static/pypi``), added
#: to a local Pyodide's lock so that Pyodide loads them with the rest of
#: :data:`KERNEL_START_PACKAGES` in one batch when it starts (``loadPyodideOptions``), where the
#: worker would otherwise install them and the rest one after another through micropip:
#: name -> (import names, lock dependencies)
KERNEL_WHEELS = {
    "piplite": (["piplite"], ["micropip"]),
    "ipykernel": (["ipykernel"], ["comm", "traitlets", "ipython"]),
    "pyodide_kernel": (["pyodide_kernel"], ["ipykernel", "ipython", "comm", "jedi", "piplite",
                                            "ssl", "sqlite3"]),
}
#: the packages whose wheels (with their lock dependencies) get their modules' bytecode
PRECOMPILED = (*KERNEL_START_PACKAGES, "kernelclf")
#: the lock's package types whose wheels hold Python modules (``cpython_module``: parts of the
#: standard library Pyodide ships as wheels, e.g. ``ssl`` and ``sqlite3``, which the kernel's
#: start imports; they install into site-packages too)
_WHEEL_TYPES = ("package", "cpython_module")
KERNEL_PYPI = Path("extensions", "@jupyterlite", "pyodide-kernel-extension", "static", "pypi")
DEFAULT_WHEELS = Path(sys.prefix) / "lite-wheels"
APP_DIR = "lite"


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download_wheels(dest=DEFAULT_WHEELS):
    """Download the wheels of :data:`LITE_WHEELS`, at the versions installed here, to ``dest``.

    Run by ``make setup`` (it needs the package index, as the install does); the build
    itself never downloads.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    reqs = [f"{name}=={metadata.version(name)}" for name in LITE_WHEELS]
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--only-binary=:all:", "-d", str(dest), *reqs], check=True)
    return sorted(dest.glob("*.whl"))


def build_wheel(package_dir, dest, version=None):
    """A pure-Python wheel of the package folder ``package_dir`` (no pip, no network).

    Only ``.py`` files are packed (the package has no data files); ``METADATA`` names no
    dependencies: inside Pyodide the lock's ``depends`` decide what is loaded.
    """
    package_dir = Path(package_dir)
    name = package_dir.name
    if version is None:
        ns = {}
        for line in (package_dir / "__init__.py").read_text().splitlines():
            if line.startswith("__version__"):
                exec(line, ns)
        version = ns["__version__"]
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    out = dest / f"{name}-{version}-py3-none-any.whl"
    files = {}
    # the modules, and the package data pyproject.toml declares (the committed results files
    # of the long protocols, which chapters 12 and 13 render)
    paths = list(package_dir.rglob("*.py")) + list(package_dir.glob("experiments/results/*.jsonl"))
    for path in sorted(paths):
        if "__pycache__" in path.parts:
            continue
        files[f"{name}/{path.relative_to(package_dir).as_posix()}"] = path.read_bytes()
    files[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                 "Summary: Learning Kernel Classifiers, runnable\n").encode()
    files[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: kernelclf.book.lite\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arc, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([arc, f"sha256={digest}", len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for arc, data in files.items():
            zi = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
    return out


def _wheel_name_version(path):
    name, version = Path(path).name.split("-")[:2]
    return name, version


def extend_lock(lock, wheels):
    """Add ``wheels`` (paths) to a Pyodide lock (a dict, changed in place and returned).

    Each entry gets the wheel's file name, sha256, import names and dependencies
    (:data:`LITE_WHEELS`, :data:`KERNELCLF_DEPENDS`), in the form of Pyodide's own entries.
    """
    packages = lock["packages"]
    for path in wheels:
        dist, version = _wheel_name_version(path)
        key = dist.lower().replace("_", "-")
        if dist == "kernelclf":
            imports, depends = ["kernelclf"], KERNELCLF_DEPENDS
        elif dist in LITE_WHEELS:
            imports, depends = LITE_WHEELS[dist]
        elif dist in KERNEL_WHEELS:
            imports, depends = KERNEL_WHEELS[dist]
        else:
            raise ValueError(f"no lock entry is known for {Path(path).name}")
        missing = [d for d in depends if d not in packages
                   and d not in {_wheel_name_version(w)[0].lower().replace("_", "-")
                                 for w in wheels}]
        if missing:
            raise ValueError(f"{dist} depends on {missing}, which the lock does not have")
        packages[key] = {
            "name": key, "version": version, "file_name": Path(path).name,
            "install_dir": "site", "package_type": "package", "imports": list(imports),
            "depends": list(depends), "sha256": _sha256(path), "unvendored_tests": False,
        }
    return lock


def start_closure(lock, names=KERNEL_START_PACKAGES):
    """The lock keys of ``names`` and of everything they depend on (recursively)."""
    packages, seen, todo = lock["packages"], set(), list(names)
    while todo:
        name = todo.pop()
        if name not in packages:     # the lock spells some names with "-", some with "_"
            name = name.lower().replace("_", "-")
        if name in seen or name not in packages:
            continue
        seen.add(name)
        todo += packages[name].get("depends", [])
    return sorted(seen)


#: run inside Pyodide: add ``__pycache__/<module>.<cache tag>.pyc`` (unchecked hash-based, PEP
#: 552: valid whatever the unpacked files' times) for every module of a wheel, and list them in
#: its RECORD; a module that does not compile is left as source
_PRECOMPILE_PY = r"""
import base64, hashlib, importlib.util, io, posixpath, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

def precompile(src, dst):
    zin = zipfile.ZipFile(src)
    names = set(zin.namelist())
    out = zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED)
    record, rows, n = None, [], 0
    for info in zin.infolist():
        data = zin.read(info.filename)
        if info.filename.endswith(".dist-info/RECORD"):
            record = (info, data)
            continue
        out.writestr(info, data)
        if not info.filename.endswith(".py") or ".data/" in info.filename:
            continue
        head, tail = posixpath.split(info.filename)
        arc = posixpath.join(head, "__pycache__",
                             f"{tail[:-3]}.{sys.implementation.cache_tag}.pyc")
        if arc in names:
            continue
        try:
            code = compile(data, "/lib/python3.12/site-packages/" + info.filename, "exec",
                           dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        pyc = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
        zi = zipfile.ZipInfo(arc, date_time=info.date_time)
        zi.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(zi, pyc)
        digest = base64.urlsafe_b64encode(hashlib.sha256(pyc).digest()).rstrip(b"=").decode()
        rows.append(f"{arc},sha256={digest},{len(pyc)}\n")
        n += 1
    if record is not None:
        text = record[1].decode()
        if text and not text.endswith("\n"):
            text += "\n"
        out.writestr(record[0], (text + "".join(rows)).encode())
    out.close()
    return n

def precompile_stdlib(src, dst):
    # zipimport reads <module>.pyc beside <module>.py (no __pycache__ in a zip); the code's file
    # name is the one zipimport gives a module it compiles from the source in the zip
    archive = next(p for p in sys.path if p.endswith(".zip"))
    zin = zipfile.ZipFile(src)
    names = set(zin.namelist())
    out = zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED)
    n = 0
    for info in zin.infolist():
        data = zin.read(info.filename)
        out.writestr(info, data)
        if not info.filename.endswith(".py") or info.filename + "c" in names:
            continue
        try:
            code = compile(data, archive + "/" + info.filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        pyc = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
        zi = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
        zi.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(zi, pyc)
        n += 1
    out.close()
    return n
"""

#: Node: load the Pyodide at argv[2], precompile each wheel argv[3:] in place (a ``.zip``
#: among them: a standard library zip, ``precompile_stdlib``)
_PRECOMPILE_MJS = """
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [dir, code, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(dir + "/pyodide.mjs").href);
const py = await loadPyodide({ indexURL: dir + "/" });
py.runPython(readFileSync(code, "utf8"));
const precompile = py.globals.get("precompile"), stdlib = py.globals.get("precompile_stdlib");
for (const w of wheels) {
  py.FS.writeFile("/tmp/in.whl", readFileSync(w));
  const n = (w.endsWith(".zip") ? stdlib : precompile)("/tmp/in.whl", "/tmp/out.whl");
  writeFileSync(w, py.FS.readFile("/tmp/out.whl"));
  console.log(`${n} ${w}`);
}
"""


def precompile_wheels(pyodide_dir, wheels, node=None, work=None):
    """Add the bytecode of every module to ``wheels`` (paths, rewritten in place), compiled by
    the Pyodide in ``pyodide_dir`` run under Node.js (so it is that interpreter's bytecode).

    A wheel gets ``__pycache__/<module>.cpython-312.pyc`` files listed in its ``RECORD``; a path
    ending in ``.zip`` is taken for Pyodide's standard library zip and gets ``<module>.pyc``
    beside each ``<module>.py`` (where ``zipimport`` looks; the sources stay, for tracebacks),
    compiled under the module's file name in the zip on Pyodide's ``sys.path``. Both are
    unchecked hash-based pycs (PEP 552).

    Returns ``{wheel name: number of modules compiled}``, or ``None`` when Node.js is not found
    (the wheels are then left as they are: the lab works, its kernel starts slower).
    """
    node = node or shutil.which("node") or shutil.which("nodejs")
    if not node or not wheels:
        return None
    work = Path(work or Path(pyodide_dir).parent)
    work.mkdir(parents=True, exist_ok=True)
    (work / "precompile.py").write_text(_PRECOMPILE_PY)
    (work / "precompile.mjs").write_text(_PRECOMPILE_MJS)
    out = subprocess.run([node, str(work / "precompile.mjs"), str(Path(pyodide_dir).resolve()),
                          str(work / "precompile.py"), *map(str, wheels)],
                         check=True, capture_output=True, text=True).stdout
    counts = {}
    for line in out.splitlines():
        n, _, path = line.partition(" ")
        if path:
            counts[Path(path).name] = int(n)
    return counts


#: ``sitecustomize`` of the lab's Pyodide (run by ``site`` when the interpreter starts): the
#: kernel's worker makes the lab's drive its working directory (``/drive``, whose every file
#: operation is a synchronous request answered by the page) before it imports piplite, IPython
#: and the kernel, and with ``''`` first on ``sys.path`` each of those ~80 top-level imports
#: first asked the drive for its folder's attributes. Searched last, the folder still serves a
#: reader's own module (one that no installed package shadows) and relative file reads
SITECUSTOMIZE = """\
# kernelclf lab: search the working directory (the lab's drive) after the installed packages.
# Pyodide puts '' first on sys.path after this file has run, so the move happens at the next
# import, by a finder that only looks at sys.path (and then does nothing).
import sys


class _WorkingDirectoryLast:
    done = False

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if not cls.done and "" in sys.path:
            cls.done = True
            sys.path.remove("")
            sys.path.append("")
        return None


sys.meta_path.insert(0, _WorkingDirectoryLast)
"""


def add_sitecustomize(stdlib_zip, source=SITECUSTOMIZE):
    """Add ``sitecustomize.py`` (:data:`SITECUSTOMIZE`) to a copy of Pyodide's standard
    library zip (rewritten as a new file: the copy may share the original's mode)."""
    stdlib_zip = Path(stdlib_zip)
    data = io.BytesIO(stdlib_zip.read_bytes())
    with zipfile.ZipFile(data, "a", zipfile.ZIP_DEFLATED) as zf:
        if "sitecustomize.py" in zf.namelist():
            raise ValueError(f"{stdlib_zip} already has a sitecustomize.py")
        zi = zipfile.ZipInfo("sitecustomize.py", date_time=(2020, 1, 1, 0, 0, 0))
        zi.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(zi, source)
    stdlib_zip.unlink()
    stdlib_zip.write_bytes(data.getvalue())


def lite_config(pyodide_url, preload=()):
    """The ``jupyter-lite.json`` of the app: Pyodide's URL, no PyPI fallback."""
    kernel = {"pyodideUrl": pyodide_url, "disablePyPIFallback": True}
    if preload:
        kernel["loadPyodideOptions"] = {"packages": list(preload)}
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "kernelclf lab",
            "exposeAppInBrowser": True,
            "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": kernel},
        },
    }


def copy_data(dest, data_home=None):
    """Copy every registered data file present in the data home to ``dest`` (same layout).

    Returns the list of copied paths (relative to ``dest``); sets whose files are missing
    are skipped (their chapters then say where to get them, as on a fresh machine).
    """
    from ..datasets._registry import REGISTRY
    from ..datasets._registry import data_home as _home

    home = _home(data_home)
    copied = []
    for spec in REGISTRY.values():
        names = [f for f, _ in spec.files] + list(spec.extra_files) + ["PROVENANCE.md"]
        if not all((home / spec.folder / f).is_file() for f, _ in spec.files):
            continue
        for f in names:
            src = home / spec.folder / f
            if src.is_file():
                target = Path(dest) / spec.folder / f
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, target)
                copied.append(f"{spec.folder}/{f}")
    for extra in ("README.md",):
        if (home / extra).is_file():
            shutil.copyfile(home / extra, Path(dest) / extra)
    return copied


def _chapters(book):
    return sorted(p for p in Path(book).glob("*.md")
                  if "kernelspec:" in p.read_text(encoding="utf-8")[:400])


def build(html, book="book", pyodide=None, wheels_dir=DEFAULT_WHEELS, data_home=None,
          work=None, log=print):
    """Build the lab into ``<html>/lite`` (see the module docstring). Returns its folder."""
    from .reader import main as reader_main

    html, book = Path(html).resolve(), Path(book).resolve()  # the lite build runs in `work`
    work = Path(work).resolve() if work else html.parent / "lite_src"
    out = html / APP_DIR
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    contents = work / "contents"
    contents.mkdir(parents=True)
    reader_main(["--book", str(book), "-o", str(contents),
                 *map(str, _chapters(book))])
    for nb in contents.glob("*.ipynb"):  # the lab's kernel is Pyodide's "python"
        doc = json.loads(nb.read_text(encoding="utf-8"))
        doc.setdefault("metadata", {})["kernelspec"] = dict(LITE_KERNELSPEC)
        nb.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    n_data = len(copy_data(contents / "data", data_home))
    wheels = [build_wheel(Path(__file__).resolve().parents[1], work / "wheels")]
    extra = sorted(Path(wheels_dir).resolve().glob("*.whl"))
    wanted = {n.lower() for n in LITE_WHEELS}
    extra = [w for w in extra if _wheel_name_version(w)[0].lower() in wanted]
    found = {_wheel_name_version(w)[0].lower() for w in extra}
    if found != wanted:
        raise FileNotFoundError(
            f"the lab needs the wheels of {sorted(wanted - found)} in {wheels_dir}; run "
            "`python -m kernelclf.book.lite wheels` (make setup does) while the package index "
            "is reachable")
    wheels += extra
    if pyodide:
        pyodide = Path(pyodide).resolve()
        subprocess.run([sys.executable, str(pyodide / "verify.py")], check=True, cwd=pyodide,
                       stdout=subprocess.DEVNULL)
        config = lite_config("./pyodide/pyodide.js", preload=KERNEL_START_PACKAGES)
    else:
        # the CDN's lock cannot list our wheels: the kernel loads them by URL when it
        # starts (relative to its worker script, lite/extensions/<kernel>/static/)
        config = lite_config(PYODIDE_CDN, preload=[f"../../../../wheels/{w.name}"
                                                   for w in wheels])
    (work / "jupyter-lite.json").write_text(json.dumps(config, indent=2))
    (work / "overrides.json").write_text(json.dumps(LITE_SETTINGS, indent=2))
    (work / "jupyter_lite_config.json").write_text(json.dumps(
        {"LiteBuildConfig": {"no_sourcemaps": True, "apps": ["lab", "notebooks", "tree"]}},
        indent=2))
    cmd = [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(work),
           "--contents", str(contents), "--output-dir", str(out)]
    subprocess.run(cmd, check=True, cwd=work, stdout=subprocess.DEVNULL)
    if pyodide:
        target = out / "pyodide"
        shutil.copytree(pyodide, target, ignore=shutil.ignore_patterns(
            "verify.py", "README*", "CORE.sha256", "__pycache__"))
        for w in wheels:
            shutil.copyfile(w, target / w.name)
        kernel = [w for w in sorted((out / KERNEL_PYPI).glob("*.whl"))
                  if _wheel_name_version(w)[0] in KERNEL_WHEELS]
        if len(kernel) != len(KERNEL_WHEELS):
            raise FileNotFoundError(f"the kernel's wheels {sorted(KERNEL_WHEELS)} are not all "
                                    f"in {out / KERNEL_PYPI}: {[w.name for w in kernel]}")
        for w in kernel:
            shutil.copyfile(w, target / w.name)
        lock_path = target / "pyodide-lock.json"
        lock = extend_lock(json.loads(lock_path.read_text()),
                           [target / w.name for w in wheels + kernel])
        # what the kernel loads when it starts and what the first ``import kernelclf`` loads
        # (numpy, SciPy, scikit-learn, matplotlib ... : Pyodide's wheels ship sources only):
        # bytecode compiled here, not in the reader's browser
        start = [lock["packages"][k] for k in start_closure(lock, PRECOMPILED)]
        start = [e for e in start if e.get("package_type") in _WHEEL_TYPES
                 and e["file_name"].endswith(".whl")]
        for e in start:         # read-only copies of the shared files: new files
            path = target / e["file_name"]
            data = path.read_bytes()
            path.unlink()
            path.write_bytes(data)
        add_sitecustomize(target / "python_stdlib.zip")
        # and the standard library's, which Pyodide ships as sources only (its zip is rewritten
        # as a new file by add_sitecustomize)
        counts = precompile_wheels(target, [target / e["file_name"] for e in start]
                                   + [target / "python_stdlib.zip"], work=work / "precompile")
        if counts is None:
            log("Node.js not found: the lab's kernel packages are not precompiled")
        else:
            for e in start:
                e["sha256"] = _sha256(target / e["file_name"])
        lock_path.write_text(json.dumps(lock))
    else:
        (out / "wheels").mkdir()
        for w in wheels:
            shutil.copyfile(w, out / "wheels" / w.name)
    _drop_extensions(out)
    _fix_compressed_mimetypes(out)
    _drop_remote_fonts(out)
    log(f"JupyterLite lab in {out}: {len(_chapters(book))} notebooks, {n_data} data files, "
        f"Pyodide {'from ' + str(pyodide) if pyodide else 'from the CDN'}")
    return out


def _drop_extensions(out):
    config_path = out / "jupyter-lite.json"
    config = json.loads(config_path.read_text())
    data = config["jupyter-config-data"]
    data["federated_extensions"] = [e for e in data.get("federated_extensions", [])
                                    if e.get("name") not in DROP_EXTENSIONS]
    config_path.write_text(json.dumps(config, indent=2))
    for name in DROP_EXTENSIONS:
        shutil.rmtree(out / "extensions" / name, ignore_errors=True)


def _fix_compressed_mimetypes(out):
    """The contents index types ``x.json.gz`` as JSON (``mimetypes`` ignores the encoding), and
    the lab's drive then parses the gzip bytes as JSON and the kernel's read fails: type
    compressed files by their last suffix."""
    for index in (out / "api" / "contents").rglob("all.json"):
        listing = json.loads(index.read_text(encoding="utf-8"))
        changed = False
        for entry in listing.get("content") or []:
            if entry.get("type") == "file" and entry["name"].endswith((".gz", ".gzip")):
                entry["mimetype"] = "application/gzip"
                changed = True
        if changed:
            index.write_text(json.dumps(listing), encoding="utf-8")


def _drop_remote_fonts(out):
    """Remove ``@import`` of web fonts on other hosts from the app's CSS (offline site)."""
    for css in out.rglob("*.css"):
        text = css.read_text(encoding="utf-8", errors="replace")
        if "@import url(https://" in text or "@import url('https://" in text:
            lines = [ln for ln in text.split(";")
                     if not ln.strip().startswith(("@import url(https://",
                                                   "@import url('https://"))]
            css.write_text(";".join(lines), encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kernelclf.book.lite",
                                     description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("wheels", help="download the pure-Python wheels the lab needs")
    w.add_argument("--dest", default=str(DEFAULT_WHEELS))
    b = sub.add_parser("build", help="build the lab into HTML/lite")
    b.add_argument("--html", required=True, help="the built website (e.g. _build/html)")
    b.add_argument("--book", default="book", help="folder of the MyST chapters")
    b.add_argument("--pyodide", default=os.environ.get("KERNELCLF_PYODIDE") or None,
                   help="a local Pyodide 0.27.7 folder (default $KERNELCLF_PYODIDE; "
                        "without it the CDN release)")
    b.add_argument("--wheels", default=str(DEFAULT_WHEELS))
    args = parser.parse_args(argv)
    if args.command == "wheels":
        for path in download_wheels(args.dest):
            print(path)
    else:
        build(args.html, args.book, args.pyodide, args.wheels)


if __name__ == "__main__":
    main()
