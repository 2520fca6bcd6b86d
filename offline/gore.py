"""JSON-schema ``pattern`` evaluated the way the Pulumi CLI evaluates it: with Go's regular expressions (RE2).

The CLI validates policy config with gojsonschema (``pkg/resource/analyzer/config.go``), which compiles ``pattern``
with Go's ``regexp`` and matches it unanchored (``MatchString``). Python's ``re`` reads the same text differently
(Go ``regexp/syntax`` docs, https://pkg.go.dev/regexp/syntax, and Python ``re`` docs, both read 2026-11-30):

=====================  ==============================================  ==============================================
construct              Go (RE2, the CLI)                               Python ``re``
=====================  ==============================================  ==============================================
``$`` (no ``(?m)``)    end of text only                                end of text *or before a final newline*
``\\d \\w \\s \\b``    ASCII only (``\\s`` is ``[\\t\\n\\f\\r ]``)    Unicode (``\\s`` also ``\\v`` and U+0085, ...)
``{,n}``               the literal text ``{,n}``                        ``{0,n}``
``x{1001}``            error: repeat count above 1000                  accepted
``\\z`` / ``\\Z``      end of text / error                             error / end of text
``(?<name>x)``         named group (Go 1.22+)                          error (Python 3.11 wants ``(?P<name>x)``)
``[[:alpha:]]``        ASCII character class                           the characters ``[:alph`` and ``]``
``\\Q...\\E``          literal text                                    error
``\\pL \\p{Greek}``    Unicode classes                                 error
look-around, ``\\1``   error (RE2 has none)                            supported
``x*+``, ``(?>x)``     error                                           possessive / atomic (Python 3.11+)
``(?U)``               ungreedy flag                                   error
=====================  ==============================================  ==============================================

:func:`translate` rewrites a Go pattern into a Python pattern with Go's meaning (compiled with ``re.ASCII``), and
raises :class:`GoRegexError` for text Go would refuse or this translation cannot interpret (``\\p``, ``(?U)``,
``(?m)``, flags after the start): such a pattern is refused, never passed.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterator

#: POSIX classes Go accepts inside brackets (ASCII), as Python class contents.
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ", "cntrl": "\\x00-\\x1f\\x7f",
          "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~",
          "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}
_GO_SPACE = "\\t\\n\\f\\r "
_MAX_REPEAT = 1000  # Go regexp/syntax: maxRepeat
_KEPT_ESCAPES = set("dDwWbBAaftnrv0") | set("\\.+*?()|[]{}^$-/#&~ ,:;<=>!@%'\"_`")


class GoRegexError(ValueError):
    """A pattern Go's regexp refuses, or one whose Go meaning this module cannot reproduce."""


def _class_escape(pattern: str, i: int) -> tuple[str, int]:
    """Translate the escape at ``pattern[i] == "\\"`` inside ``[...]``; returns (text, next index)."""
    d = pattern[i + 1]
    if d == "s":
        return _GO_SPACE, i + 2
    if d in "SpPQ":
        raise GoRegexError(f"\\{d} inside a character class is not interpreted offline")
    if d in "123456789zZC":
        raise GoRegexError(f"\\{d} is not valid inside a Go character class")
    if d.isalpha() and d not in _KEPT_ESCAPES and d != "x":
        raise GoRegexError(f"invalid escape sequence \\{d}")
    return pattern[i:i + 2], i + 2


def _escape(pattern: str, i: int) -> tuple[str, int]:
    """Translate the escape at ``pattern[i] == "\\"`` outside a class; returns (text, next index)."""
    if i + 1 >= len(pattern):
        raise GoRegexError("trailing backslash at end of expression")
    d = pattern[i + 1]
    if d in "123456789":
        raise GoRegexError(f"back-reference \\{d}: RE2 has none")
    if d == "Z":
        raise GoRegexError("\\Z is not Go syntax (Go's end of text is \\z)")
    if d == "z":
        return r"\Z", i + 2
    if d == "s":
        return f"[{_GO_SPACE}]", i + 2
    if d == "S":
        return f"[^{_GO_SPACE}]", i + 2
    if d in "pP":
        raise GoRegexError(f"Unicode class \\{d}... is not interpreted offline")
    if d == "Q":
        end = pattern.find("\\E", i + 2)
        literal = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
        return re.escape(literal), len(pattern) if end < 0 else end + 2
    if d == "x":
        if pattern.startswith("{", i + 2):
            end = pattern.index("}", i + 3)
            return f"\\U{int(pattern[i + 3:end], 16):08x}", end + 1
        return pattern[i:i + 4], i + 4
    if d.isalnum() and d not in _KEPT_ESCAPES:
        raise GoRegexError(f"invalid escape sequence \\{d}")
    return pattern[i:i + 2], i + 2


def _group(pattern: str, i: int, out: list[str]) -> int:
    """Translate ``(?...`` at ``pattern[i]``; returns the next index."""
    rest = pattern[i + 2:]
    for prefix, what in (("=", "look-ahead"), ("!", "negative look-ahead"), ("<=", "look-behind"),
                         ("<!", "negative look-behind"), (">", "atomic group"), ("(", "conditional"),
                         ("#", "comment group"), ("P=", "named back-reference"), ("P>", "recursion")):
        if rest.startswith(prefix):
            raise GoRegexError(f"{what} (?{prefix}...) is not RE2 syntax")
    if rest.startswith("P<") or rest.startswith(":"):
        out.append("(?")
        return i + 2
    if rest.startswith("<"):
        out.append("(?P<")
        return i + 3
    flags = re.match(r"([imsU]*)(?:-([imsU]*))?([:)])", rest)
    if not flags:
        raise GoRegexError(f"invalid or unsupported group syntax (?{rest[:5]}")
    on, off, end = flags.group(1), flags.group(2) or "", flags.group(3)
    if "U" in on + off:
        raise GoRegexError("the ungreedy flag (?U) has no Python equivalent")
    if "m" in on + off:
        raise GoRegexError("the multi-line flag (?m) is not interpreted offline")
    if end == ")" and (i != 0 or off):
        raise GoRegexError("inline flags after the start of the pattern are not interpreted offline")
    out.append(f"(?{on}{'-' + off if off else ''}{end}")
    return i + 2 + flags.end()


def _after_repeat(pattern: str, i: int, operator: str, out: list[str]) -> int:
    """After a repetition operator: an optional lazy ``?`` (the same in both); another operator is Go's "invalid
    nested repetition operator" (Python would read ``*+`` as possessive)."""
    if pattern.startswith("?", i):
        out.append("?")
        i += 1
    if i < len(pattern) and (pattern[i] in "*+?" or re.match(r"\{\d+(,\d*)?\}", pattern[i:])):
        raise GoRegexError(f"invalid nested repetition operator {operator}{pattern[i]}")
    return i


@lru_cache(maxsize=256)
def translate(pattern: str) -> str:
    """The Python ``re`` pattern (to compile with ``re.ASCII``) that means what ``pattern`` means to Go.

    :raises GoRegexError: Go refuses the pattern, or its Go meaning cannot be reproduced.
    """
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if in_class:
            if c == "\\":
                text, i = _class_escape(pattern, i)
                out.append(text)
                continue
            posix = re.match(r"\[:(\^?)([a-z]+):\]", pattern[i:])
            if posix:
                if posix.group(2) not in _POSIX or posix.group(1):
                    raise GoRegexError(f"POSIX class {posix.group(0)} is not interpreted offline")
                out.append(_POSIX[posix.group(2)])
                i += posix.end()
                continue
            if c == "]":
                in_class = False
            elif c == "[":
                out.append("\\[")  # a literal [ inside a class (Python warns on nested sets)
                i += 1
                continue
            out.append(c)
            i += 1
        elif c == "\\":
            text, i = _escape(pattern, i)
            out.append(text)
        elif c == "[":
            in_class = True
            head = "[^" if pattern.startswith("[^", i) else "["
            out.append(head)
            i += len(head)
            if i < n and pattern[i] == "]":  # a leading ] is literal in Go
                out.append("\\]")
                i += 1
        elif c == "$":
            out.append(r"\Z")
            i += 1
        elif c == "(" and pattern.startswith("(?", i):
            i = _group(pattern, i, out)
        elif c == "{":
            rep = re.match(r"\{(\d+)(,(\d*))?\}", pattern[i:])
            if rep is None:  # not a repetition in Go: literal text (Python would read {,n} as {0,n})
                out.append("\\{")
                i += 1
                continue
            counts = [int(x) for x in (rep.group(1), rep.group(3)) if x]
            if any(k > _MAX_REPEAT for k in counts):
                raise GoRegexError(f"invalid repeat count {rep.group(0)} (Go allows at most {_MAX_REPEAT})")
            out.append(rep.group(0))
            i = _after_repeat(pattern, i + rep.end(), rep.group(0), out)
        elif c in "*+?":
            out.append(c)
            i = _after_repeat(pattern, i + 1, c, out)
        else:
            out.append(c)
            i += 1
    if in_class:
        raise GoRegexError("missing closing ]")
    translated = "".join(out)
    try:
        re.compile(translated, re.ASCII)
    except re.error as e:
        raise GoRegexError(f"not a valid regular expression: {e}") from None
    return translated


def go_search(pattern: str, text: str) -> bool:
    """Does ``text`` contain a match of the Go ``pattern`` (``regexp.MatchString``)? :raises GoRegexError:."""
    return re.search(translate(pattern), text, re.ASCII) is not None


def go_pattern_validator(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    """A ``jsonschema`` ``pattern`` keyword with Go semantics (strings only, like the keyword everywhere)."""
    from jsonschema import ValidationError

    if not validator.is_type(instance, "string"):
        return
    try:
        matched = go_search(pattern, instance)
    except GoRegexError as e:
        yield ValidationError(f"pattern {pattern!r} cannot be evaluated as the Pulumi CLI does (Go regexp): {e}")
        return
    if not matched:
        yield ValidationError(f"{instance!r} does not match {pattern!r} (Go regexp: $ is the end of the text)")
