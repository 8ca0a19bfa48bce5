"""The book's tooling, apart from the library: the reader notebooks
(:mod:`~kernelclf.book.reader`), the in-browser lab (:mod:`~kernelclf.book.lite`) and the
widgets with their Sphinx extension (:mod:`~kernelclf.book.widgets`).

Book chapter 00 (``book/00_preface.md``).

Nothing here is imported by the algorithms; these modules need the ``book`` extra
(``pip install kernelclf[book]``).
"""
