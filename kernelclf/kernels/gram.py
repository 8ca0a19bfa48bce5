"""Book chapters 02 and 04 (``book/02_kernels.md``, ``book/04_support_vector_machines.md``): Gram access.

Gram-matrix access written once: columns, cache, products. LKC Definition 2.15 (Gram
matrix), eq. (2.50) and BPM §3.3 (a ridge ``lam I`` on the diagonal).

Every solver of the package that touches the training Gram matrix ``G`` (the SMO
solver, the kernel billiard, the LP machines, the relevance vector machine, the
Gaussian processes and the relative margin machines) receives it as a
:class:`Gram`: either the whole matrix, computed once, or a kernel and the inputs,
from which single columns are computed on demand and kept in a least-recently-used
cache. The fast column of a kernel (one ``m``-vector of ``k(x_j, x_i)`` without the
full matrix) belongs to the kernel object (:meth:`kernelclf.kernels.closure.Kernel.column_function`).

A :class:`Gram` built on training data runs the numerical guard once (finite, of a usable
size, symmetric, positive semi-definite by LKC Prop. 2.18, not degenerate), and a kernel
matrix that would not fit in memory is refused before it is allocated: both are described
in :mod:`kernelclf.kernels.gram_guard`.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .gram_guard import (
    _SAMPLE,
    _check_degenerate,
    _check_finite,
    _check_range,
    _degeneracy_sample,
    _finite_columns,
    _psd_by_construction,
    _screen_degenerate,
    check_gram,
    check_memory,
    get_gram_checks,
)
from .native_columns import (
    _whole_polynomial_matrix,
    take_slot,
    whole_rbf_matrix,
)
from .rows import n_rows, take_rows

__all__ = ["Gram", "as_gram", "ColumnCache", "ColumnSlots", "Replicated", "cross_gram"]


def cross_gram(kernel, X, Y):
    """``k(X, Y)`` as a float matrix, checked for NaN/inf (test-time kernel rows).

    A matrix that would not fit in memory is refused before it is computed
    (:func:`kernelclf.kernels.gram_guard.check_memory`).
    """
    check_memory(n_rows(X), n_rows(Y), what="kernel matrix k(X, Y)", kernel=kernel)
    K = np.asarray(kernel(X, Y), dtype=float)
    _check_finite(K, kernel, X, "kernel matrix")
    return K


class ColumnCache:
    """Least-recently-used cache of columns ``column(i)`` under a memory budget.

    At least two columns are always kept (SMO needs a pair).
    """

    def __init__(self, column, m, cache_mb=200.0):
        self.column = column
        self.capacity = max(2, int(cache_mb * 2 ** 20 // (8 * max(m, 1))))
        self._store = OrderedDict()
        self.computed = 0

    def __getitem__(self, i):
        store = self._store
        col = store.get(i)
        if col is not None:
            store.move_to_end(i)
            return col
        col = np.ascontiguousarray(self.column(i), dtype=float)
        self.computed += 1
        store[i] = col
        if len(store) > self.capacity:
            store.popitem(last=False)
        return col


class ColumnSlots:
    """Columns of a :class:`Gram` in one 2-D array, for compiled solver loops.

    A compiled loop (numba) cannot call the Python column cache, so it reads columns
    from ``data``: column ``i`` is ``data[slot[i]]`` when ``slot[i] >= 0``. On a miss
    the loop returns to Python, which calls :meth:`fill`; the loop marks each use in
    ``stamp`` (a clock kept in ``clock[0]``), and :meth:`fill` evicts the least
    recently used slot when the budget is full, as :class:`ColumnCache` does.

    A stored matrix without ridge is used as it is (``slot[i] = i``, nothing to fill).
    Otherwise the columns come from the Gram's own column function (columns already
    in its :class:`ColumnCache` are copied, not recomputed), so a fit keeps one copy
    of each column. At least two slots are always kept (a pair step needs two
    columns); ``data`` grows by doubling up to the budget.

    When the whole matrix fits in the budget, the columns may switch to the whole
    matrix, computed at once: one kernel call on all inputs (a matrix product) costs
    less per entry than columns (matrix-vector products), the more so the more input
    features ``n`` there are. ``switch='auto'`` uses the ski-rental rule: switch when
    the columns computed so far would have paid for the whole matrix under the cost
    model ``(8 + n)`` per column entry against ``(8 + n / 20)`` per matrix entry, i.e.
    after a fraction ``(8 + n/20) / (8 + n)`` of the columns (0.8 for 2-D inputs,
    0.16 for the 64 pixels of scikit-learn's digits, 0.06 for MNIST's 784). Whatever
    the solver needs later, this costs at most about twice the better of the two
    strategies; a solver that touches few columns never pays for the whole matrix,
    and one that needs most of them (the RMM at tight bounds, RMM §5.7) soon gets it.
    The rule depends only on ``m`` and ``n``, so fits are reproducible. A number
    sets the fraction; ``None`` never switches. The columns held at the switch are
    kept (by symmetry they are rows too): only the block of the other examples is
    computed, ``(1 - f)^2`` of the whole matrix after a fraction ``f >= 1/8`` of the
    columns. A compiled loop that computes columns itself sets its own fraction
    (:func:`kernelclf.kernels.native_columns.switch_fraction`) and ``native``, its
    kernel's arrays: the whole matrix is then computed anew from them
    (:func:`kernelclf.kernels.native_columns.whole_matrix`).
    """

    def __init__(self, gram, cache_mb=None, switch="auto"):
        self.gram = gram
        if isinstance(switch, str):
            if switch != "auto":
                raise ValueError(f"switch must be 'auto', a fraction or None, got {switch!r}")
            X = getattr(gram, "X", None)
            n = X.shape[1] if isinstance(X, np.ndarray) and X.ndim == 2 else None
            switch = None if n is None else (8.0 + n / 20.0) / (8.0 + n)
        self.switch = switch
        m = gram.m
        self.m = m
        if gram.precomputed and not gram.ridge:
            self.data = np.ascontiguousarray(gram._G, dtype=float)
            self.slot = np.arange(m, dtype=np.int64)
            self.capacity = m
        else:
            if cache_mb is None:
                cache = getattr(gram, "_cache", None)
                cache_mb = 200.0 if cache is None else cache.capacity * 8 * m / 2 ** 20
            self.capacity = min(m, max(2, int(cache_mb * 2 ** 20 // (8 * max(m, 1)))))
            self.data = np.empty((min(self.capacity, 64), m))
            self.slot = np.full(m, -1, dtype=np.int64)
        self.owner = self.slot.copy() if gram.precomputed and not gram.ridge else \
            np.full(self.capacity, -1, dtype=np.int64)
        self.stamp = np.zeros(self.capacity, dtype=np.int64)
        self.clock = np.zeros(1, dtype=np.int64)
        self.used = m if gram.precomputed and not gram.ridge else 0
        self.filled = 0
        self.switched = False
        #: the compiled kernel's arrays (a ``column_spec`` of many features), set by a
        #: compiled loop that computes its own columns: :meth:`_store_all` then uses them
        self.native = None
        #: single-precision columns the budget holds beyond the ``m - 1`` slots of
        #: :meth:`single` (the compiled pair loop's compacted columns use them)
        self.spare = 0

    def _raw(self, i):
        gram = self.gram
        if gram._G is not None:
            col = gram._G[i]
        else:
            col = gram._cache._store.get(i)
            if col is None:
                col = np.asarray(gram._colfun(i), dtype=float)
                gram.n_computed += self.m
        return col

    def fill(self, i):
        """Put column ``i`` into a slot (evicting the least recently used one)."""
        i = int(i)
        if self.slot[i] >= 0:
            return self.slot[i]
        if (self.switch is not None and self.capacity == self.m and self.gram._G is None
                and self.filled >= self.switch * self.m):
            self._store_all()
            return self.slot[i]
        s = int(take_slot(self.slot, self.owner, self.stamp, self.used, self.capacity))
        if self.used < self.capacity:     # (the LRU rule of the compiled loops' caches)
            if s == self.data.shape[0]:
                grown = np.empty((min(self.capacity, 2 * s), self.m), dtype=self.data.dtype)
                grown[:s] = self.data
                self.data = grown
            self.used += 1
        self.data[s] = self._raw(i)
        if self.gram.ridge:
            self.data[s, i] += self.gram.ridge
        self.slot[i] = s
        self.owner[s] = i
        self.clock[0] += 1
        self.stamp[s] = self.clock[0]
        self.filled += 1
        return s

    def reserve(self):
        """Allocate ``data`` for the whole budget at once (for loops that fill slots
        themselves, :func:`kernelclf.kernels.native_columns.fill_slot`)."""
        if self.data.shape[0] < self.capacity:
            grown = np.empty((self.capacity, self.m), dtype=self.data.dtype)
            grown[:self.used] = self.data[:self.used]
            self.data = grown

    def single(self):
        """Hold the columns in single precision (float32, libsvm's ``Qfloat`` in its
        ``svm.cpp``): the budget then keeps twice as many, at most ``m - 1`` (the switch
        to the whole matrix and the stored whole matrix stay in double precision). Only
        when the budget cannot hold every column in double precision; the values are
        computed in double precision and rounded once when stored, and :meth:`column`
        and :meth:`columns` return them in double precision. The columns the budget holds
        beyond ``m - 1`` (when it holds them all in single precision) are ``spare``: the
        compiled pair loop keeps its compacted columns there
        (:func:`kernelclf.margin.smo.compiled._compact_memory`)."""
        if self.data.dtype == np.float32 or self.capacity >= self.m or self.gram.precomputed:
            return
        cap = min(self.m - 1, 2 * self.capacity)
        self.spare = 2 * self.capacity - cap
        data = np.empty((max(min(cap, 64), self.used), self.m), dtype=np.float32)
        data[:self.used] = self.data[:self.used]
        self.data = data
        self.owner = np.concatenate([self.owner, np.full(cap - self.capacity, -1, np.int64)])
        self.stamp = np.concatenate([self.stamp, np.zeros(cap - self.capacity, np.int64)])
        self.capacity = cap

    def column(self, i):
        """A copy of column ``i`` (safe to keep: slots are reused)."""
        s = self.fill(i)              # may replace ``data`` (the switch to the whole matrix)
        return np.array(self.data[s], dtype=float)

    def columns(self, idx):
        """The block ``K[:, idx]`` (a new array): cached columns in one gather, the others
        filled one by one (as :meth:`column`)."""
        idx = np.asarray(idx, dtype=np.int64)
        D = self.held()
        if D is not None:                               # the whole matrix is held
            return np.array(D[idx].T, dtype=float, order="C")
        out = np.empty((self.m, idx.size))
        s = self.slot[idx]
        have = s >= 0
        if have.any():
            out[:, have] = self.data[s[have]].T
        for r in np.flatnonzero(~have):
            out[:, r] = self.column(idx[r])
        return out

    def held(self):
        """``data`` when it holds the whole matrix in place (row ``i`` the column ``i``),
        else None."""
        if self.used == self.m and self.data.shape[0] == self.m and np.array_equal(
                self.slot, np.arange(self.m)):
            return self.data
        return None

    def _store_all(self):
        """Compute the whole matrix (checked as the Gram's columns are) into ``data``.

        When at least an eighth of the columns is held, they are kept: by symmetry they
        are also rows, so only the block of the other examples with each other is
        computed (one kernel call on those inputs, a fraction ``(1 - f)^2`` of the whole
        matrix's work after a fraction ``f`` of the columns). With fewer, copying them
        into place costs about what it saves (measured on 2000 x 784 inputs: 10 % more
        time at ``f = 0.06``, 20 % less at 0.25, half at 0.43), and the whole matrix is
        computed anew. With ``native`` (a compiled loop's kernel arrays) it is always
        computed anew, from them (:meth:`_store_native`)."""
        if self.native is not None and self._store_native():
            return
        gram, m = self.gram, self.m
        done = np.flatnonzero(self.slot >= 0)
        rest = np.flatnonzero(self.slot < 0)
        if 8 * done.size < m:
            done, rest = done[:0], np.arange(m)
        if done.size == 0:
            K = np.asarray(gram.kernel(gram.X), dtype=float)
            B = K
        else:
            K = np.empty((m, m))
            K[done] = self.data[self.slot[done]]        # (the ridge is on their diagonal)
            if rest.size:
                K[np.ix_(rest, done)] = K[np.ix_(done, rest)].T
                B = np.asarray(gram.kernel(take_rows(gram.X, rest)), dtype=float)
        if rest.size:
            if gram._colfun is not gram._rawfun:        # the Gram checks its columns
                _check_finite(B, gram.kernel, gram.X)
            gram.n_computed += B.size
            if gram.ridge:
                B[np.diag_indices(rest.size)] += gram.ridge
            if B is not K:
                K[np.ix_(rest, rest)] = B
        self._hold(K)

    def _store_native(self):
        """:meth:`_store_all` from the compiled kernel's arrays (``native``: a
        :func:`kernelclf.kernels.native_columns.column_spec` of many features, no ridge):
        the whole matrix anew (:func:`~kernelclf.kernels.native_columns.whole_matrix`,
        one product and the kernel's formula), the columns held before dropped (a
        compiled loop switches after few of them, ``switch_fraction``), or the Gram's
        ``_pair_whole()`` when it has one (a one-versus-one pair's matrix assembled from
        its classes' blocks: :class:`kernelclf.multiclass._ClassBlocks`). False (nothing
        changed) when a value is not finite: the checked path then raises the package's
        error."""
        from .native_columns import whole_matrix

        whole = getattr(self.gram, "_pair_whole", None)   # (from its classes' blocks)
        K = whole_matrix(self.native) if whole is None else whole()
        if K is None:
            return False
        self.gram.n_computed += K.size
        self._hold(K)
        return True

    def _hold(self, K):
        """``data`` becomes the whole matrix ``K`` (``slot[i] = i``)."""
        m = self.m
        self.data = K
        self.slot[:] = np.arange(m)
        self.owner = np.arange(m, dtype=np.int64)
        self.used = m
        self.filled += 1
        self.switched = True


class Gram:
    """The training Gram matrix ``G + ridge I`` of one kernel on one sample.

    Parameters
    ----------
    kernel : kernel object, optional
        A :class:`kernelclf.kernels.closure.Kernel` (or anything :func:`kernelclf.kernels.vector.as_kernel`
        accepts). Needed unless ``G`` is given. Its data-driven parameters
        (``RBF(sigma='scale')``) are fixed from ``X`` (:meth:`~kernelclf.kernels.closure.Kernel.resolve`).
    X : array or list of strings, optional
        The training inputs.
    G : (m, m) array, optional
        A precomputed Gram matrix (instead of ``kernel`` and ``X``).
    ridge : float >= 0
        Added to the diagonal: the quadratic soft margin (LKC eq. 2.50), GP noise
        (eq. 3.15), soft-boundary Bayes points (BPM §3.3, erratum E14).
    precompute : bool or None
        Compute the whole matrix at once (``None``: when ``m <= 2000`` or the
        inputs are not a float array). Otherwise columns are computed on demand.
    cache_mb : float
        Budget of the column cache (on-demand mode).
    check : bool
        Run the numerical guard (finite, symmetric, positive semi-definite).

    Attributes
    ----------
    m : int
    diag : (m,) array
        ``k(x_i, x_i) + ridge``.
    n_evaluations : int
        Kernel entries handed out (``m`` per column, ``m^2`` per product); the
        measure of work used by the billiard's benchmark.
    n_computed : int
        Kernel entries actually computed (cache hits excluded).
    """

    def __init__(self, kernel=None, X=None, *, G=None, ridge=0.0, precompute=None,
                 cache_mb=200.0, check=True):
        from .vector import as_kernel

        ridge = float(ridge)
        if not np.isfinite(ridge) or ridge < 0:
            raise ValueError(f"the ridge must be a finite number >= 0, got {ridge!r}")
        self.ridge = ridge
        self.n_evaluations = 0
        self.n_computed = 0
        if G is not None:
            if X is not None and kernel is None:
                raise ValueError("pass either a Gram matrix G or a kernel with inputs X")
            G = np.asarray(G, dtype=float)
            if G.ndim != 2 or G.shape[0] != G.shape[1]:
                raise ValueError(f"the Gram matrix must be square, got shape {G.shape}")
            self.kernel, self.X, self.m = kernel, X, G.shape[0]
            self._G = G
            self.n_computed = G.size
            if check:
                check_gram(G, kernel, X)
        else:
            if X is None:
                raise ValueError("pass a Gram matrix G or a kernel with inputs X")
            # data-driven parameters (RBF(sigma='scale')) are fixed from these inputs
            self.kernel, self.X = as_kernel(kernel).resolve(X), X
            self.m = n_rows(X)
            if precompute is None:
                precompute = self.m <= 2000 or not isinstance(X, np.ndarray)
            if precompute:
                check_memory(self.m, self.m, what="training Gram matrix", kernel=self.kernel)
                # the RBF kernel's own matrix bit for bit, in fewer passes and without
                # the kernel's input check (with numba, for a float array of finite
                # values; None otherwise), its entries in [0, 1]: the guard's range check
                # then makes no pass over it (as the one-versus-one wrapper's matrix)
                G = whole_rbf_matrix(self.kernel, X) if type(X) is np.ndarray else None
                bounds = None if G is None else (0.0, 1.0)
                if G is None:       # (the polynomial kernel's, its bounds from the same pass)
                    G, bounds = _whole_polynomial_matrix(self.kernel, X)
                self._G = np.asarray(self.kernel(X), dtype=float) if G is None else G
                self.n_computed = self._G.size
                if check:
                    check_gram(self._G, self.kernel, X, bounds=bounds)
            else:
                self._G = None
                self._colfun = self._rawfun = self.kernel.column_function(X)
                if check:       # the PSD check sees a sample only: check every column made
                    self._colfun = _finite_columns(self._colfun, self.kernel, X)
                self._cache = ColumnCache(self._colfun, self.m, cache_mb)
                if check:
                    psd = _psd_by_construction(self.kernel)
                    if not psd:         # PSD test on a sample (the range test with it)
                        idx = np.arange(self.m)
                        if self.m > _SAMPLE:
                            idx = np.sort(np.random.default_rng(0).choice(
                                self.m, _SAMPLE, replace=False))
                        sub = take_rows(X, idx)
                        check_gram(np.asarray(self.kernel(sub), dtype=float), self.kernel, X,
                                   degenerate=False)
        if self._G is not None:
            base = np.diag(self._G).copy()
        else:
            base = np.asarray(self.kernel.diag(X), dtype=float)
            if check and get_gram_checks() != "off":   # (the block first: its message)
                rows, cols = _degeneracy_sample(self.m)
                block = np.asarray(self.kernel(take_rows(X, rows), take_rows(X, cols)),
                                   dtype=float)
                _check_finite(block, self.kernel, X)
                if psd:
                    _check_range(block, self.kernel, X)
                if not _screen_degenerate(block, rows, cols, base[rows], base[cols], self.m,
                                          self.kernel, rix=np.arange(rows.size)):
                    _check_degenerate(block, rows, cols, base[rows], base[cols], self.m,
                                      self.kernel, X)
            _check_finite(base, self.kernel, X, "kernel diagonal")
        self._diag = base + ridge
        self._diag.setflags(write=False)

    @property
    def precomputed(self):
        """Whether the whole matrix is held in memory."""
        return self._G is not None

    def stored(self):
        """The stored matrix ``G`` without the ridge (no copy, not counted as kernel
        evaluations; do not modify it), or ``None`` when columns are computed on demand.
        For compiled loops that read columns as rows and add the ridge themselves."""
        return self._G

    @property
    def diag(self):
        """``k(x_i, x_i) + ridge`` (read-only)."""
        return self._diag

    def column(self, i):
        """Column ``i`` of ``G + ridge I`` (do not modify it: it may be shared)."""
        i = int(i)
        self.n_evaluations += self.m
        if self._G is not None:
            col = self._G[i]                     # a row of a symmetric matrix, no copy
        else:
            before = self._cache.computed
            col = self._cache[i]
            self.n_computed += (self._cache.computed - before) * self.m
        if self.ridge:
            col = col.copy()
            col[i] += self.ridge
        return col

    __getitem__ = column

    def column_getter(self):
        """The fastest ``i -> column i`` for a solver's inner loop (no evaluation count)."""
        if self.ridge:
            return self.column
        if self._G is not None:
            return self._G.__getitem__
        return self._cache.__getitem__

    def columns(self, idx):
        """The block ``(G + ridge I)[:, idx]``."""
        idx = np.asarray(idx, dtype=int).ravel()
        if self._G is not None:
            self.n_evaluations += self.m * idx.size
            block = self._G[:, idx].copy()
            if self.ridge:
                block[idx, np.arange(idx.size)] += self.ridge
            return block
        return np.column_stack([self.column(i) for i in idx]) if idx.size else \
            np.empty((self.m, 0))

    def matvec(self, v, block=512):
        """``(G + ridge I) v`` (``m^2`` kernel evaluations, in row blocks when on demand)."""
        v = np.asarray(v, dtype=float)
        self.n_evaluations += self.m * self.m
        if self._G is not None:
            out = self._G @ v
        else:
            out = np.empty((self.m,) + v.shape[1:])
            for s in range(0, self.m, block):
                rows = take_rows(self.X, slice(s, s + block))
                K = np.asarray(self.kernel(rows, self.X), dtype=float)
                _check_finite(K, self.kernel, self.X)
                out[s:s + block] = K @ v
            self.n_computed += self.m * self.m
        return out + self.ridge * v

    def full(self):
        """The whole matrix ``G + ridge I`` (a new array; refused before it is allocated
        when it would not fit in memory, see
        :func:`kernelclf.kernels.gram_guard.check_memory`)."""
        check_memory(self.m, self.m, copies=1 if self._G is not None else 2,
                     what="training Gram matrix", kernel=self.kernel)
        self.n_evaluations += self.m * self.m
        if self._G is None:
            self._G = np.asarray(self.kernel(self.X), dtype=float)
            self.n_computed += self.m * self.m
        G = self._G.copy()
        if self.ridge:
            G[np.diag_indices(self.m)] += self.ridge
        return G

    def with_ridge(self, ridge):
        """The same matrix (shared storage, no new checks) with another ridge."""
        new = object.__new__(Gram)
        new.__dict__.update(self.__dict__)
        new.ridge = float(ridge)
        new._diag = self._diag - self.ridge + new.ridge
        return new


class Replicated:
    """The Gram matrix of a sample repeated in ``copies x copies`` blocks.

    A dual with several variables per example (the relative margin machine's
    ``alpha_i, lambda_i, lambda*_i``, RMM eq. 12) has the matrix
    ``[[K, K, K], [K, K, K], [K, K, K]]`` (with signs outside): variable ``u`` belongs to
    example ``points[u] = u mod m``. The view hands out its columns (the base column,
    tiled) without storing the big matrix; the compiled SMO reads the base columns
    through ``points`` (:func:`kernelclf.margin.smo.solve_smo`). A ridge of the base is
    part of its columns, so it is repeated in every block (the matrix of the kernel
    ``k + ridge [x = x']``).

    Parameters
    ----------
    base : :class:`Gram` or (m, m) array
    copies : int >= 1
    """

    #: a stored base matrix is written out whole when the big one takes at most this
    #: many MiB (the NumPy engine then reads rows of it, as from any stored matrix)
    WHOLE_MB = 32.0

    def __init__(self, base, copies):
        self.base = as_gram(base)
        self.copies = int(copies)
        if self.copies < 1:
            raise ValueError(f"copies must be an integer >= 1, got {copies!r}")
        m0 = int(self.base.diag.shape[0])
        self.m = m0 * self.copies
        self.points = np.tile(np.arange(m0, dtype=np.int64), self.copies)
        self.diag = np.tile(np.asarray(self.base.diag, dtype=float), self.copies)
        G = getattr(self.base, "_G", None)
        self._whole = None
        if G is not None and 8.0 * self.m ** 2 <= self.WHOLE_MB * 2 ** 20:
            self._whole = np.tile(self.base.full(), (self.copies, self.copies))

    def column(self, u):
        """Column ``u``: the base column of example ``u mod m``, repeated (do not modify
        it: it may be shared)."""
        if self._whole is not None:
            return self._whole[u]
        col = self.base.column(int(self.points[u]))
        m0 = col.shape[0]
        out = np.empty(self.m)
        for c in range(self.copies):
            out[c * m0:(c + 1) * m0] = col
        return out


def as_gram(gram):
    """``gram`` itself if it has ``column(i)`` and ``diag`` (a :class:`Gram`), else a
    :class:`Gram` on the square, finite matrix it is (no PSD check: the solvers' callers
    checked it when they made it)."""
    if hasattr(gram, "column") and hasattr(gram, "diag"):
        return gram
    K = np.asarray(gram, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"the kernel matrix must be square, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("the kernel matrix contains NaN or infinity")
    return Gram(G=K, check=False)

