"""Put the cached outputs into the build's executed notebooks.

Usage: ``python .ci/executed_notebooks.py CACHE_DIR [book] [OUT_DIR]``

With ``execute_notebooks: cache`` myst-nb renders each page from the outputs in the
jupyter-cache but writes ``_build/jupyter_execute/book/<chapter>.ipynb`` without them, and
those files are what :mod:`kernelclf.book.reader` turns into the site's downloadable
notebooks. This merges the cached outputs (matched by the same code-cell hash the build
uses) into each of them; a chapter with no cache record is left as it is and named.
"""
import sys
from pathlib import Path


def main(cache_dir, book="book", out_dir="_build/jupyter_execute/book"):
    import nbformat
    from jupyter_cache import get_cache
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.read import create_nb_reader
    from myst_parser.config.main import MdParserConfig

    cache = get_cache(str(Path(cache_dir).resolve()))
    merged, missing = [], []
    for target in sorted(Path(out_dir).glob("*.ipynb")):
        old = nbformat.read(str(target), as_version=4)
        if any(c.get("outputs") for c in old.cells if c.cell_type == "code"):
            continue  # executed by the build itself: outputs already there
        source = Path(book) / (target.stem + ".md")
        text = source.read_text(encoding="utf-8")
        reader = create_nb_reader(str(source.resolve()), MdParserConfig(), NbParserConfig(), text)
        try:
            _, nb = cache.merge_match_into_notebook(reader.read(text))
        except KeyError:
            missing.append(target.stem)
            continue
        nb.metadata = {**old.metadata, **nb.metadata}
        nbformat.write(nb, str(target))
        merged.append(target.stem)
    print(f"executed notebooks: outputs merged from the cache into {len(merged)}"
          + (f"; no cache record for {', '.join(missing)}" if missing else ""))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
