"""File the chapter executions nbval just made in the book build's jupyter-cache.

Usage: ``python .ci/nbval_cache.py SAVED_DIR CACHE_DIR [book]``

``SAVED_DIR`` holds the executed chapters ``conftest.py`` wrote during ``pytest --nbval-lax``
(``KERNELCLF_NBVAL_SAVE``): only chapters whose every cell passed. Each is matched to its
source ``book/<chapter>.md`` read as the build reads it (myst-nb's reader): when the code
cells are the same, the outputs are put on that notebook and it is cached under the hash
jupyter-cache computes from its code cells, their metadata and the kernelspec. The build
(``execute_notebooks: cache``) then finds it, with the seconds nbval spent in the chapter
(``conftest.py`` records them) as its run time for the execution report; a chapter edited
since nbval ran hashes differently and is executed by the build itself, so no output is
stale. The cache lives in
``_build`` and ``make book`` empties it; ``make test`` fills it from the nbval run it just made.
"""
import sys
from pathlib import Path


def main(saved, cache_dir, book="book"):
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.read import create_nb_reader
    from myst_parser.config.main import MdParserConfig

    cache = get_cache(str(Path(cache_dir).resolve()))
    filed, skipped = [], []
    for path in sorted(Path(saved).glob("*.ipynb")):
        source = Path(book) / (path.stem + ".md")
        if not source.is_file():
            skipped.append(f"{path.stem} (no source)")
            continue
        text = source.read_text(encoding="utf-8")
        reader = create_nb_reader(str(source.resolve()), MdParserConfig(), NbParserConfig(), text)
        nb = reader.read(text)
        ran = nbformat.read(str(path), as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        done = [c for c in ran.cells if c.cell_type == "code"]
        if [c.source.strip() for c in code] != [c.source.strip() for c in done]:
            skipped.append(f"{path.stem} (changed since nbval ran)")
            continue
        for cell, executed in zip(code, done):
            cell.outputs, cell.execution_count = executed.outputs, executed.execution_count
        if "widgets" in ran.metadata:
            nb.metadata["widgets"] = ran.metadata["widgets"]
        nb.metadata.pop("source_map", None)
        seconds = ran.metadata.get("kernelclf", {}).get("execution_seconds")
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(source.resolve()),
                                                  data={"execution_seconds": seconds}),
                                    check_validity=False, overwrite=True)
        filed.append(path.stem)
    print(f"nbval executions filed in {cache_dir}: {len(filed)} chapters"
          + (f"; executed again by the build: {', '.join(skipped)}" if skipped else ""))


if __name__ == "__main__":
    main(*sys.argv[1:])
