"""The plan's JSON text, written about twice as fast as the standard library writes it.

``json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)`` uses the module's pure-Python encoder whenever an
indent is asked for (CPython 3.11 ``json/encoder.py``, ``JSONEncoder.iterencode``: the C encoder only without
``indent``), a chain of generators yielding about three strings per value, all kept in one list before they are
joined. For the 64-pool × 200-tenant benchmark stack (a 40 MB plan) that was 2 s of CPU. :func:`dumps` writes the
same text with one plain recursive function, one piece per value, and the C string escaper the standard library uses
(``json.encoder.encode_basestring``). What it does not handle — a key that is not a string, a value of another
type, a ``default`` hook — makes it hand the whole document to ``json.dumps``, so the text is always what
``json.dumps`` returns (or the error it raises); ``tests/offline/test_indented_json.py`` compares both on the
plans and on values chosen to differ.
"""

from __future__ import annotations

import json
from json.encoder import INFINITY, encode_basestring
from typing import Any

_INDENT = "  "


class _Unsupported(Exception):
    """A value :func:`dumps` does not write itself: ``json.dumps`` writes the whole document instead."""


def _scalar(o: Any) -> str:
    # the order and the texts of json.encoder._make_iterencode (CPython 3.11): str first (a str subclass is a string),
    # then None, True, False, int (its int.__repr__: an int subclass such as an IntEnum is written as its number),
    # float (float.__repr__, NaN and the infinities as JavaScript writes them)
    if isinstance(o, str):
        return encode_basestring(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        if o != o:
            return "NaN"
        if o == INFINITY:
            return "Infinity"
        if o == -INFINITY:
            return "-Infinity"
        return float.__repr__(o)
    raise _Unsupported


def dumps(doc: Any) -> str:
    """``doc`` as ``json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)`` writes it, byte for byte.

    :raises TypeError: for what ``json.dumps`` refuses (a value that is not JSON, keys that cannot be sorted).
    :raises ValueError: for a circular reference, as ``json.dumps`` does.
    """
    pieces: list[str] = []
    try:
        _write(doc, pieces, None)
    except (_Unsupported, RecursionError):
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)
    return "".join(pieces)


def dump(doc: Any, fp: Any, end: str = "") -> None:
    """Write ``dumps(doc) + end`` to ``fp`` (a seekable text file open for writing, at its start) a few hundred
    kilobytes at a time, never holding the whole text: the 64-pool × 200-tenant plan's 40 MB text and its pieces
    were about 160 MB of the preview's peak memory. What :func:`dumps` would leave to ``json.dumps`` is written by
    ``json.dumps`` over whatever was written before.

    :raises TypeError, ValueError: as :func:`dumps` (the file then holds part of the text).
    :raises OSError: from ``fp``.
    """
    pieces: list[str] = []
    try:
        _write(doc, pieces, fp)
    except (_Unsupported, RecursionError):
        fp.seek(0)
        fp.truncate()
        fp.write(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + end)
        return
    pieces.append(end)
    fp.write("".join(pieces))


#: How many pieces :func:`dump` gathers before it writes them (about 50 bytes each).
_FLUSH_EVERY = 8192


def _write(doc: Any, out: list[str], fp: Any) -> None:
    """Append the text of ``doc`` to ``out`` in pieces; with a file ``fp``, write and clear ``out`` every
    :data:`_FLUSH_EVERY` pieces (the caller writes what is left)."""
    append = out.append
    newlines = ["\n"]  # newlines[level]: a line break and the indent of a value at that depth

    def write(o: Any, level: int) -> None:
        # ``o`` is a non-empty dict, list or tuple
        while len(newlines) <= level + 1:
            newlines.append(newlines[-1] + _INDENT)
        inner = newlines[level + 1]
        comma = "," + inner
        separator = inner
        if isinstance(o, dict):
            keys = sorted(o)
            if any(type(k) is not str for k in keys):
                raise _Unsupported  # json.dumps turns such keys into strings after sorting them: leave it to json.dumps
            append("{")
            closing = "}"
            for k in keys:
                v = o[k]
                head = separator + encode_basestring(k) + ": "
                separator = comma
                if type(v) is str:  # the commonest value first
                    append(head + encode_basestring(v))
                elif isinstance(v, (dict, list, tuple)):
                    if v:
                        append(head)
                        write(v, level + 1)
                    else:
                        append(head + ("{}" if isinstance(v, dict) else "[]"))
                else:
                    append(head + _scalar(v))
        else:
            append("[")
            closing = "]"
            for v in o:
                if type(v) is str:
                    append(separator + encode_basestring(v))
                elif isinstance(v, (dict, list, tuple)):
                    if v:
                        append(separator)
                        write(v, level + 1)
                    else:
                        append(separator + ("{}" if isinstance(v, dict) else "[]"))
                else:
                    append(separator + _scalar(v))
                separator = comma
        append(newlines[level] + closing)
        if fp is not None and len(out) >= _FLUSH_EVERY:
            fp.write("".join(out))
            out.clear()

    if isinstance(doc, (dict, list, tuple)) and doc:
        write(doc, 0)
    elif isinstance(doc, (dict, list, tuple)):
        append("{}" if isinstance(doc, dict) else "[]")
    else:
        append(_scalar(doc))
