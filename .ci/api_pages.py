"""Write the API reference pages book/api_*.md from the package (issue 24).

Run ``python .ci/api_pages.py book`` after adding, moving or renaming a public name; the
site test (tests/test_site.py) fails on a public name without an entry. The pages are
committed (the book builds them with autodoc/autosummary).
"""
import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from sphinx.pycode import ModuleAnalyzer  # noqa: E402

CHAPTER_RE = re.compile(r"^Book chapters? [^\n(]*\(((?:``book/[\w.-]+\.md``(?:, )?)+)\)", re.M)

INTRO = {
    "api_kernels": "Vector kernels and their closure rules, Gram-matrix access with its numerical "
                   "guard, string and Fisher kernels, explicit feature maps.",
    "api_margin": "Separability and margins, the perceptron, support vector machines (C-SVM, "
                  "nu-SVM, Platt's probabilities) and their SMO solver, leave-one-out and "
                  "adaptive margin machines, relative margin machines and the Universum SVM, "
                  "support vector regression (epsilon and nu) and the one-class SVM.",
    "api_bayes": "Gaussian processes, relevance vector machines and Fisher discriminants.",
    "api_bayespoint": "Version space, Ruján's polygon billiards, the kernel billiard and its "
                      "variants, the Bayes point machine.",
    "api_bounds": "Learning-theory bounds as vectorised functions, one module per family of "
                  "bounds, and the bound report.",
    "api_multiclass_neighbors": "Multiclass wrappers around the binary classifiers, and nearest "
                                "neighbours and class means in feature space.",
    "api_datasets": "The data home, the checked loaders of the book's real data sets, and seeded "
                    "toy problems.",
    "api_experiments": "The sources' experimental protocols on a resumable runner, and their "
                       "command line.",
    "api_core": "The top-level namespace, the estimator contract every estimator shares, the QP "
                "and LP solvers, progress bars and the discovery of the public estimators; "
                "the book's own tooling at the end.",
}

PAGES = [
    ("api_kernels", "Kernels", "kernelclf.kernels",
     ["vector", "rows", "gram", "gram_guard", "strings", "subsequence", "fisher", "features"]),
    ("api_margin", "Margin machines", "kernelclf.margin",
     ["separability", "perceptron", "smo", "smo.loops", "smo.compiled", "smo.kkt", "smo.step",
      "svm", "nu_svm", "platt", "amm", "rmm", "rmm_solver"]),
    ("api_bayes", "Bayesian kernel classifiers", "kernelclf.bayes",
     ["gp_regression", "gp", "rvm_evidence", "rvm_regression", "rvm", "fisher"]),
    ("api_bayespoint", "Bayes points", "kernelclf.bayespoint",
     ["versionspace", "perceptron_epochs", "polygon", "billiard", "billiard_engines", "rujan", "bpm"]),
    ("api_bounds", "Learning-theory bounds", "kernelclf.bounds",
     ["concentration", "vc", "shattering", "margin", "inputs", "loo", "mistake", "pac_bayes",
      "volume", "compression", "stability", "rademacher", "report_tags", "report_rows", "report"]),
    ("api_multiclass_neighbors", "Multiclass and neighbours", None,
     ["kernelclf.multiclass", "kernelclf.neighbors"]),
    ("api_datasets", "Data sets", "kernelclf.datasets", ["toys"]),
    ("api_experiments", "Experiments", "kernelclf.experiments",
     ["runner", "bpm", "rmm", "rmm_benchmarks", "rmm_text", "cli"]),
    ("api_core", "Package, contract and utilities", None,
     ["kernelclf", "kernelclf.base", "kernelclf.optim", "kernelclf.progress",
      "kernelclf.discovery", "kernelclf.compile"]),
]
SKLEARN_BASES = ("BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin, "
                 "MetaEstimatorMixin, object")


def chapters(mod):
    doc = inspect.getdoc(mod) or ""
    m = CHAPTER_RE.search(doc)
    if not m:
        return []
    return [Path(f.strip("`")).stem for f in re.findall(r"``book/[\w.-]+\.md``", m.group(1))]


def assigned(modname):
    mod = importlib.import_module(modname)
    tree = ast.parse(Path(mod.__file__).read_text())
    out = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def comment(modname, name):
    docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
    return " ".join(x.strip() for x in docs.get(("", name), [])).strip()


def data_home(family, n):
    import pkgutil
    fam = importlib.import_module(family)
    for info in pkgutil.walk_packages(fam.__path__, family + "."):
        if info.name.endswith("__main__"):
            continue
        if n in assigned(info.name):
            return info.name
    return family


def kind(obj):
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


def get(mod, n):
    return getattr(mod, n) if hasattr(mod, n) else importlib.import_module(f"{mod.__name__}.{n}")


def private(modname):
    return any(p.startswith("_") for p in modname.split("."))


def own_members(modname):
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None) or []
    here = assigned(modname)
    out = []
    for n in names:
        obj = get(mod, n)
        k = kind(obj)
        if k == "module":
            continue
        if k == "data":
            if n in here:
                out.append((n, k, obj, modname))
        elif getattr(obj, "__module__", None) == modname:
            out.append((n, k, obj, modname))
    return out


MANUAL = {
    "kernelclf.__version__": "The package's version.",
    "kernelclf.datasets.ENV_VAR": "The environment variable naming the data home "
                                  "(:func:`data_home`).",
    "kernelclf.datasets.REGISTRY": "The registered data sets by name: files, checksums and "
                                   "sources (:func:`get_spec` reads one, :func:`dataset_names` "
                                   "lists them).",
    "kernelclf.experiments.rmm.MU_NEG": "Mean of the negative class of the synthetic "
                                        "problem of RMM §5.1 (:func:`gaussians`).",
    "kernelclf.experiments.rmm.SIGMA": "Shared covariance of the two classes of the synthetic "
                                       "problem of RMM §5.1 (:func:`gaussians`).",
    "kernelclf.experiments.rmm_benchmarks.TABLE4_METHODS": "The methods of RMM Table 4, in "
                                                           "the order of its columns.",
    "kernelclf.bounds.report_tags.BOUND_NAMES": "The names of the bounds "
                                                ":func:`~kernelclf.bounds.report.report` "
                                                "computes, in the order of its records.",
}


def data_directive(full, obj, home):
    """autodata when a docstring comment exists and napoleon reads it as text; else py:data"""
    name = full.rsplit(".", 1)[1]
    own = comment(home, name) if home else ""
    short = len(repr(obj)) <= 60 and "\n" not in repr(obj)
    text = own or MANUAL.get(full, "")
    if own and not re.match(r"^[^`:]*:(?!:)", own) and full.startswith(home + "."):
        return f".. autodata:: {full}\n" + ("" if short else "   :no-value:\n")
    value = f"   :value: {obj!r}\n" if short and name != "__version__" else ""
    return f".. py:data:: {name}\n{value}\n   {text}\n" if text else f".. py:data:: {name}\n{value}"


#: entries whose docstring the reST parser rejects, shown verbatim (none at present)
SOURCE_FALLBACK = {}


def fallback(full, obj):
    """an entry whose docstring the reST parser rejects: its text shown verbatim"""
    section = SOURCE_FALLBACK[full]
    mod, name = full.rsplit(".", 1)
    path = "../" + mod.replace(".", "/") + ".py"
    first = inspect.getdoc(obj).split("\n")[0]
    start = f":start-at: {section}" if section else f':start-after: """{first[:30]}'
    include = (f"   .. literalinclude:: {path}\n      :language: text\n      :dedent:\n"
               f"      :pyobject: {name}\n      {start}\n      :end-before: \"\"\"\n\n")
    note = (f"% {name}: its docstring does not parse as reST (issue 24 report); its text is\n"
            f"% shown verbatim until it is fixed.\n")
    if inspect.isclass(obj):
        sig = "(" + ", ".join(str(p.replace(annotation=inspect.Parameter.empty))
                              for p in inspect.signature(obj).parameters.values()) + ")"
        methods = [n for n, v in vars(obj).items() if not n.startswith("_") and callable(v)
                   and inspect.getdoc(v)]
        body = "".join(f"   .. automethod:: {m}\n\n" for m in methods)
        return (note + f"```{{eval-rst}}\n.. py:class:: {name}{sig}\n\n   {first}\n\n"
                + include + body + "```\n")
    sig = str(inspect.signature(obj))
    return (note + f"```{{eval-rst}}\n.. py:function:: {name}{sig}\n\n   {first}\n\n"
            + include + "```\n")


def directive(full, k, obj, home, plain=False):
    if full in SOURCE_FALLBACK and not plain:
        return "```\n\n" + fallback(full, obj) + "\n```{eval-rst}\n"
    if k == "class":
        from sklearn.base import BaseEstimator
        lines = [f".. autoclass:: {full}", "   :members:"]
        from kernelclf.kernels import Kernel
        if issubclass(obj, BaseEstimator) and not issubclass(obj, Kernel):
            lines.append(f"   :inherited-members: {SKLEARN_BASES}")
        if "__call__" in vars(obj):
            lines.append("   :special-members: __call__")
        return "\n".join(lines) + "\n"
    if k == "exception":
        return f".. autoexception:: {full}\n"
    if k == "function":
        return f".. autofunction:: {full}\n"
    return data_directive(full, obj, home)


def summary_ok(obj):
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document
    from sphinx.ext.autosummary import extract_summary
    doc = new_document("", get_default_settings(Parser))
    text = extract_summary((inspect.getdoc(obj) or "").split("\n"), doc)
    return text.count("``") % 2 == 0


def table(names, mod=None):
    if mod is not None:
        names = [n for n in names if summary_ok(get(mod, n))]
    if not names:
        return ""
    return ".. autosummary::\n   :nosignatures:\n\n" + "".join(f"   {n}\n" for n in names) + "\n"


#: a note after a module's chapter line, where the chapter alone would mislead
CHAPTER_NOTE = {
    "kernelclf.margin.platt": " (the SVMs' `probability=True`; the SVMs are in "
                              "{doc}`04_support_vector_machines`)",
}


def chapter_line(chs, modname=None):
    if not chs:
        return ""
    links = ", ".join(f"{{doc}}`{c}`" for c in chs)
    return (("Chapter: " if len(chs) == 1 else "Chapters: ") + links
            + CHAPTER_NOTE.get(modname, "") + ".\n\n")


def import_line(modname):
    return f"Import these names from `{modname}` (`from {modname} import ...`).\n\n"


def from_family(family, members):
    """Whether every member is the same object under the family's name (a re-export)."""
    fam = importlib.import_module(family)
    return all(getattr(fam, n, None) is o for n, k, o, h in members)


def section(modname, members, heading=True, docstring=True, own_import=False):
    mod = importlib.import_module(modname)
    out = []
    if heading:
        out.append(f"## `{modname}`\n\n")
        out.append(chapter_line(chapters(mod), modname))
        if own_import and members:
            out.append(import_line(modname))
    out.append("```{eval-rst}\n")
    out.append(f".. automodule:: {modname}\n   :no-members:\n\n" if docstring
               else f".. currentmodule:: {modname}\n\n")
    rel = [f"{n}" for n, k, o, h in members if k != "data"]
    out.append(table(rel, mod))
    out.append("\n".join(directive(f"{modname}.{n}", k, o, h) for n, k, o, h in members))
    out.append("```\n\n")
    return "".join(out)


def top_level_section():
    """``kernelclf``: its docstring, then every name of ``kernelclf.__all__`` with a link."""
    sys.path.insert(0, str(Path(__file__).parent))
    from api_lines import target

    import kernelclf
    roles = [target("kernelclf", n) for n in kernelclf.__all__ if n != "__version__"]
    links = ", ".join(f"{{{r}}}`{text} <{full}>`" for r, full, text in roles)
    return ("## `kernelclf`\n\n" + chapter_line(chapters(kernelclf)) +
            "```{eval-rst}\n.. automodule:: kernelclf\n   :no-members:\n\n"
            + data_directive("kernelclf.__version__", kernelclf.__version__, "kernelclf")
            + "```\n\nImportable from the top level (`from kernelclf import ...`), each "
            "documented with its family: " + links + ".\n\n")


def page(stem, title, family, modules):
    out = [f"(api-{stem[4:].replace('_', '-')})=\n# API: {title}\n\n{INTRO[stem]}\n\n"]
    own = set()
    if family:
        fam = importlib.import_module(family)
        import pkgutil
        found = [i.name for i in pkgutil.iter_modules(fam.__path__)
                 if not i.name.startswith("_")]
        found += [m for m in modules if "." in m and m.split(".")[0] in found]  # subpackages'
        modules = [m for m in modules if m in found] + sorted(set(found) - set(modules))
        subs = [f"{family}.{s}" for s in modules]
        # a module whose names are not all re-exported by the family names its own import
        own = {m for m in subs if own_members(m) and not from_family(family, own_members(m))}
        if not own:
            out.append(f"Import these names from `{family}` (`from {family} import ...`). "
                       "Each is documented under the module that defines it, with that "
                       "module's chapter.\n\n")
        elif len(own) < len([m for m in subs if own_members(m)]):
            out.append(f"Import these names from `{family}` (`from {family} import ...`), "
                       "except where a module's section names its own module. Each is "
                       "documented under the module that defines it, with that module's "
                       "chapter.\n\n")
        else:
            example = next(m for m in subs if m in own)
            first, short = own_members(example)[0][0], example.rsplit(".", 1)[1]
            out.append(f"Import each name from the module its section names (`from {example} "
                       f"import {first}`, or `from {family} import {short}` and then "
                       f"`{short}.{first}`); the names of the `{family}` section itself "
                       f"from `{family}`. Each is documented under the module that defines "
                       "it, with that module's chapter.\n\n")
        # family-level objects: defined in a private module, or data assigned in __init__
        fam_members = []
        for n in fam.__all__:
            obj = get(fam, n)
            k = kind(obj)
            if k == "module":
                continue
            if k == "data":
                homes = [m for m in [family] + subs if n in assigned(m)]
                if not homes or homes[0] == family:
                    fam_members.append((n, k, obj, data_home(family, n)))
            elif private(obj.__module__):
                fam_members.append((n, k, obj, obj.__module__))
        module_entries = [get(fam, n).__name__ for n in fam.__all__ if kind(get(fam, n)) == "module"]
        out.append("## `" + family + "`\n\n" + chapter_line(chapters(fam)))
        out.append("```{eval-rst}\n" + f".. automodule:: {family}\n   :no-members:\n\n")
        out.append(table([m.split(".")[-1] for m in module_entries]))
        out.append(table([n for n, k, o, h in fam_members if k != "data"], fam))
        out.append("\n".join(directive(f"{family}.{n}", k, o, h) for n, k, o, h in fam_members))
        out.append("```\n\n")
        modnames = subs
    else:
        modnames = modules
    for modname in modnames:
        if modname == "kernelclf":
            out.append(top_level_section())
            continue
        out.append(section(modname, own_members(modname),
                           own_import=family is not None and modname in own))
    if stem == "api_core":
        out.append("## The book's tooling\n\nThe modules behind the website and the notebooks "
                   "(they need the `book` extra); not part of the library's API.\n\n")
        out.append("```{eval-rst}\n.. automodule:: kernelclf.book\n   :no-members:\n\n")
        import pkgutil

        import kernelclf.book as book
        for info in pkgutil.iter_modules(book.__path__, "kernelclf.book."):
            doc = inspect.getdoc(importlib.import_module(info.name)) or ""
            text = doc.split("\n\n")[0].replace("\n", " ")
            out.append(f".. py:module:: {info.name}\n\n{text}\n\n")
        out.append("```\n")
    text = "".join(out)
    text = re.sub(r"```\{eval-rst\}\n\s*```\n+", "", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.rstrip() + "\n"


if __name__ == "__main__":
    dest = Path(sys.argv[1])
    for stem, title, family, modules in PAGES:
        (dest / f"{stem}.md").write_text(page(stem, title, family, modules))
        print("wrote", dest / f"{stem}.md")
