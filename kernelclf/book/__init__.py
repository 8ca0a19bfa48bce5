"""The book's tooling, apart from the library: the hidden checks of typed prose
(:mod:`~kernelclf.book.claims`, :mod:`~kernelclf.book.typed_numbers`), the exercise
checkers (:mod:`~kernelclf.book.exercises`), the reproduction index
(:mod:`~kernelclf.book.reproductions`), the reader notebooks (:mod:`~kernelclf.book.reader`),
the in-browser lab (:mod:`~kernelclf.book.lite`), the widgets (:mod:`~kernelclf.book.widgets`)
and the Sphinx extension (:mod:`~kernelclf.book.sphinx_ext`).

Book chapter 00 (``book/00_preface.md``).

Nothing here is imported by the algorithms; these modules need the ``book`` extra
(``pip install kernelclf[book]``).
"""
