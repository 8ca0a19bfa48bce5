"""Read the R data files inside Debian packages, without R.

Book chapter 01 (``book/01_introduction.md``).

Two small readers used by ``fetch`` for the sets whose recorded original is an
``.rda`` file in a Debian ``r-cran-*`` package:

* :func:`deb_member` extracts one file from a ``.deb`` (an ``ar`` archive whose
  ``data.tar.{xz,gz,zst?}`` member holds the package tree);
* :func:`read_rda` decodes an ``.rda``/``.RData`` file: a gzip, bzip2 or xz
  stream holding ``RDX2``/``RDX3`` followed by R's XDR serialization
  (R Internals, "Serialization formats").  Only what data sets use is
  supported: atomic vectors, character vectors, lists, pairlists, symbols,
  attributes, references and the compact integer/real sequences of ALTREP.

:func:`data_frame_columns` turns a decoded data.frame into ``{name: values}``
with factors expanded to their level strings.
"""
from __future__ import annotations

import gzip
import io
import struct
import tarfile

import numpy as np

__all__ = ["RObject", "deb_member", "read_rda", "data_frame_columns"]

_NA_INTEGER = -(2**31)


class RObject:
    """A decoded R value: ``kind`` (R type name), ``value`` and ``attributes``."""

    __slots__ = ("kind", "value", "attributes")

    def __init__(self, kind, value, attributes=None):
        self.kind = kind
        self.value = value
        self.attributes = attributes or {}

    def attr(self, name, default=None):
        """Attribute ``name`` (its value), or ``default``."""
        a = self.attributes.get(name)
        return default if a is None else a.value

    def __repr__(self):
        return f"RObject({self.kind}, attrs={sorted(self.attributes)})"


def deb_member(deb_bytes, member):
    """Bytes of ``member`` (e.g. ``usr/lib/R/...``) from a Debian package."""
    if deb_bytes[:8] != b"!<arch>\n":
        raise ValueError("not a Debian package (no ar archive header)")
    pos = 8
    while pos + 60 <= len(deb_bytes):
        header = deb_bytes[pos:pos + 60]
        name = header[:16].decode("ascii").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        body = deb_bytes[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
        if name.startswith("data.tar"):
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as tar:
                for candidate in (member, "./" + member.lstrip("./")):
                    try:
                        f = tar.extractfile(candidate)
                    except KeyError:
                        continue
                    if f is not None:
                        return f.read()
            raise KeyError(f"{member} is not in the package")
    raise ValueError("the Debian package has no data.tar member")


def _decompress(raw):
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    if raw[:3] == b"BZh":
        import bz2  # imported on use: some Python builds (Pyodide) lack it

        return bz2.decompress(raw)
    if raw[:6] == b"\xfd7zXZ\x00":
        import lzma  # imported on use: some Python builds (Pyodide) lack it

        return lzma.decompress(raw)
    return raw


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0
        self.refs = []

    def int(self):
        (v,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return v

    def length(self):
        n = self.int()
        if n == -1:
            hi, lo = self.int(), self.int()
            n = (hi << 32) + lo
        return n

    def raw(self, n):
        b = self.data[self.pos:self.pos + n]
        if len(b) != n:
            raise ValueError("truncated R serialization")
        self.pos += n
        return b

    def item(self):
        flags = self.int()
        t = flags & 0xFF
        has_attr, has_tag = bool(flags & (1 << 9)), bool(flags & (1 << 10))
        if t == 254:                                   # NILVALUE_SXP
            return None
        if t in (242, 241, 253, 252, 251, 247):        # special environments / markers
            return RObject("special", t)
        if t == 255:                                   # REFSXP
            idx = flags >> 8
            return self.refs[(idx or self.int()) - 1]
        if t == 1:                                     # SYMSXP
            sym = RObject("symbol", self.item().value)
            self.refs.append(sym)
            return sym
        if t in (249, 250):                            # PACKAGESXP, NAMESPACESXP
            self.int()
            names = [self.item().value for _ in range(self.int())]
            obj = RObject("namespace", names)
            self.refs.append(obj)
            return obj
        if t == 4:                                     # ENVSXP
            obj = RObject("environment", None)
            self.refs.append(obj)
            self.int()
            self.item(), self.item(), self.item()
            attrs = self.item()
            obj.attributes = _pairlist_dict(attrs)
            return obj
        if t in (2, 3, 5, 6, 17):                      # pairlist-like: attr, tag, car, cdr
            cells = []
            while True:
                attrs = self.item() if has_attr else None
                tag = self.item() if has_tag else None
                cells.append((tag.value if tag is not None else None, self.item()))
                # the CDR: continue iteratively while it is another cell of the same type
                nxt = self.int()
                nt = nxt & 0xFF
                if nt == t:
                    has_attr, has_tag = bool(nxt & (1 << 9)), bool(nxt & (1 << 10))
                    continue
                self.pos -= 4
                tail = self.item()
                if tail is not None:
                    cells.append((None, tail))
                obj = RObject("pairlist", cells)
                if attrs is not None:
                    obj.attributes = _pairlist_dict(attrs)
                return obj
        if t == 9:                                     # CHARSXP
            n = self.int()
            if n == -1:
                return RObject("char", None)
            enc = "latin-1" if flags & (1 << 14) else "utf-8"
            return RObject("char", self.raw(n).decode(enc, errors="replace"))
        if t in (10, 13):                              # LGLSXP, INTSXP
            n = self.length()
            value = np.frombuffer(self.raw(4 * n), dtype=">i4").astype(np.int64)
            kind = "logical" if t == 10 else "integer"
        elif t == 14:                                  # REALSXP
            n = self.length()
            value = np.frombuffer(self.raw(8 * n), dtype=">f8").astype(np.float64)
            kind = "double"
        elif t == 15:                                  # CPLXSXP
            n = self.length()
            parts = np.frombuffer(self.raw(16 * n), dtype=">f8").astype(np.float64)
            value, kind = parts[0::2] + 1j * parts[1::2], "complex"
        elif t == 16:                                  # STRSXP
            n = self.length()
            value, kind = [self.item().value for _ in range(n)], "character"
        elif t in (19, 20):                            # VECSXP, EXPRSXP
            n = self.length()
            value, kind = [self.item() for _ in range(n)], "list"
        elif t == 24:                                  # RAWSXP
            n = self.length()
            value, kind = self.raw(n), "raw"
        elif t == 238:                                 # ALTREP_SXP
            info, state, attrs = self.item(), self.item(), self.item()
            cls = info.value[0][1].value
            if cls in ("compact_intseq", "compact_realseq"):
                n, start, step = (float(v) for v in state.value[:3])
                seq = start + step * np.arange(int(n))
                obj = RObject("integer" if cls == "compact_intseq" else "double",
                              seq.astype(np.int64) if cls == "compact_intseq" else seq)
            elif cls in ("wrap_integer", "wrap_real", "wrap_string", "wrap_logical"):
                obj = state.value[0][1] if state.kind == "pairlist" else state.value[0]
            else:
                raise ValueError(f"unsupported ALTREP class {cls!r} in R data file")
            if attrs is not None:
                obj.attributes = _pairlist_dict(attrs)
            return obj
        else:
            raise ValueError(f"unsupported R object type {t} in R data file")
        obj = RObject(kind, value)
        if has_attr:
            obj.attributes = _pairlist_dict(self.item())
        return obj


def _pairlist_dict(obj):
    if obj is None:
        return {}
    return {tag: value for tag, value in obj.value}


def read_rda(raw):
    """Decode an ``.rda``/``.RData`` file's bytes into ``{object name: RObject}``."""
    data = _decompress(raw)
    if data[:5] not in (b"RDX2\n", b"RDX3\n"):
        raise ValueError("not an R data file (no RDX2/RDX3 header)")
    if data[5:7] != b"X\n":
        raise ValueError("only XDR (binary big-endian) R data files are supported")
    r = _Reader(data)
    r.pos = 7
    version = r.int()
    r.int(), r.int()
    if version == 3:
        r.raw(r.int())                                 # native encoding name
    top = r.item()
    if top is None or top.kind != "pairlist":
        raise ValueError("unexpected top-level object in R data file")
    return {tag: value for tag, value in top.value}


def _column(obj):
    if obj.kind == "integer" and "levels" in obj.attributes:            # factor
        levels = obj.attr("levels")
        codes = obj.value
        return np.array([levels[c - 1] if c != _NA_INTEGER else None for c in codes], dtype=object)
    if obj.kind == "integer":
        return np.where(obj.value == _NA_INTEGER, np.nan, obj.value.astype(np.float64))
    if obj.kind in ("double", "logical"):
        return np.asarray(obj.value)
    if obj.kind == "character":
        return np.array(obj.value, dtype=object)
    raise ValueError(f"unsupported data.frame column of type {obj.kind}")


def data_frame_columns(obj):
    """``{column name: numpy array}`` of an R data.frame (factors as level strings)."""
    if obj.kind != "list" or "data.frame" not in (obj.attr("class") or []):
        raise ValueError("the R object is not a data.frame")
    names = obj.attr("names")
    return {name: _column(col) for name, col in zip(names, obj.value)}
