"""cloud-init user data unpacked to what runs on the node, the way cloud-init unpacks it, with what the preview
cannot judge named instead of passed.

OCI hands cloud-init the instance metadata's ``user_data`` base64-decoded (cloud-init ``DataSourceOracle``); a value
that is not base64 is read as the text itself (the stricter reading: it is judged either way). cloud-init then
(``cloudinit/user_data.py``, ``cloudinit/handlers/__init__.py``):

* decompresses gzip (the whole user data, and a MIME part of a gzip content type);
* reads a MIME message when ``mime-version:`` is in its first 4096 bytes, and walks every part of it, nested
  multiparts included, each decoded by its ``Content-Transfer-Encoding`` (base64, quoted-printable) and charset;
* types the whole user data, and a ``text/plain``, ``text/x-not-multipart`` or ``text/x-shellscript`` part, by how its
  text starts (:data:`STARTS`, longest marker first, case-insensitive, after leading whitespace);
* explodes a ``#cloud-config-archive`` (a YAML list of parts: a string, or a map with ``content`` and ``type``);
* fetches ``#include`` / ``#include-once`` URLs at boot and treats what they serve as more user data.

:func:`unpack` returns the :class:`Part` s that run — shell scripts (``#!``, the ``text/x-shellscript*`` types and
boothooks) and cloud-config (``#cloud-config``, parsed; ``#cloud-config-jsonp`` patches read as the keys they add) —
and a problem per thing that cannot be judged offline: an unknown value, bytes that do not decode, gzip that does not
decompress or grows past :data:`MAX_BYTES`, an include (content fetched at boot), a part handler (Python code that
decides how other parts run), a Jinja template (rendered on the node from instance data), text in no documented
format, a part of any other type, nesting deeper than :data:`MAX_DEPTH`. :func:`texts` lists every text a part
carries (a cloud-config's keys and values and its ``write_files`` contents decoded as cloud-init decodes them:
``encoding`` b64, gzip or both, ``cc_write_files.extract_contents``), so a rule that reads settings reads them all.

Sources (checked 2026-12-02): canonical/cloud-init@04eacd0 ``cloudinit/user_data.py`` (``convert_string``,
``_process_msg``, ``DECOMP_TYPES``, ``_explode_archive``, ``_do_include``), ``cloudinit/handlers/__init__.py``
(``INCLUSION_TYPES_MAP``, ``type_from_starts_with``), ``cloudinit/config/cc_write_files.py``
(``canonicalize_extraction``, ``extract_contents``), ``cloudinit/sources/DataSourceOracle.py``; cloud-init docs "User
data formats".

Vendored: every pack carries an identical copy of this file (``policies.VENDORED``; the security pack's is the
source). Standard library and PyYAML (a dependency of the pulumi SDK) only.
"""
from __future__ import annotations

import base64
import binascii
import email
import gzip
import io
import json
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

if __package__:  # imported as a package (tests, offline/)
    from . import _yaml_bounded
    from ._rules import UNKNOWN
else:  # run by the Pulumi CLI from inside the pack directory
    import _yaml_bounded
    from _rules import UNKNOWN

#: A part's text starts with → its type (cloud-init ``INCLUSION_TYPES_MAP``), matched longest first.
STARTS = {"#include": "text/x-include-url", "#include-once": "text/x-include-once-url", "#!": "text/x-shellscript",
          "#cloud-config": "text/cloud-config", "#part-handler": "text/part-handler",
          "#cloud-boothook": "text/cloud-boothook", "#cloud-config-archive": "text/cloud-config-archive",
          "#cloud-config-jsonp": "text/cloud-config-jsonp", "## template: jinja": "text/jinja2"}
_BY_LENGTH = sorted(STARTS, key=len, reverse=True)
#: Types that run as a shell script (the boothook too: its text after the first line runs early at every boot).
SCRIPT_TYPES = frozenset({"text/x-shellscript", "text/x-shellscript-per-boot", "text/x-shellscript-per-instance",
                          "text/x-shellscript-per-once", "text/cloud-boothook"})
CLOUD_CONFIG, JSONP, ARCHIVE = "text/cloud-config", "text/cloud-config-jsonp", "text/cloud-config-archive"
INCLUDES = frozenset({"text/x-include-url", "text/x-include-once-url"})
#: Types whose effect the preview cannot know, and why.
OPAQUE = {"text/part-handler": "a part handler: Python code cloud-init runs to process the other parts",
          "text/jinja2": "a Jinja template, rendered on the node from instance data the preview does not have"}
#: Part types cloud-init decompresses first (``DECOMP_TYPES``).
GZIP_TYPES = frozenset({"application/gzip", "application/gzip-compressed", "application/gzipped",
                        "application/x-compress", "application/x-compressed", "application/x-gunzip",
                        "application/x-gzip", "application/x-gzip-compressed"})
#: Part types cloud-init types by their text (``TYPE_NEEDED`` and ``text/x-shellscript``).
TYPED_BY_TEXT = frozenset({"text/plain", "text/x-not-multipart", "text/x-shellscript"})
#: ``write_files`` encodings (``canonicalize_extraction``): the decoding steps, in order.
ENCODINGS = {"gz": ("gzip",), "gzip": ("gzip",), "gz+base64": ("base64", "gzip"), "gzip+base64": ("base64", "gzip"),
             "gz+b64": ("base64", "gzip"), "gzip+b64": ("base64", "gzip"), "b64": ("base64",),
             "base64": ("base64",), "text/plain": (), "": ()}
#: The most bytes one decompression may produce, and how deep formats may nest, before the data is refused.
MAX_BYTES, MAX_DEPTH = 1 << 20, 6
#: Parts, and bytes of part text, one user data value may make the packs read in all (across multipart messages,
#: archives and gzip layers): aliases in an archive can hand the same nested archive to every entry, so a depth
#: bound alone multiplies.
MAX_PARTS, MAX_TOTAL_BYTES = 1000, 8 * MAX_BYTES
#: The most nodes :func:`strings` visits in one document (YAML aliases can make a small document huge).
MAX_NODES = 100_000


@dataclass(frozen=True)
class Part:
    """A part that runs: ``kind`` its type (a shell type of :data:`SCRIPT_TYPES`, or :data:`CLOUD_CONFIG`),
    ``where`` how to find it ("" for the whole user data), ``text`` as cloud-init reads it, ``config`` the parsed
    cloud-config (a dict; for a JSON patch, each key it adds with the values it adds)."""

    kind: str
    where: str
    text: str
    config: Any = None


@dataclass
class Unpacked:
    """The parts of a user data value, and what in it cannot be judged (one phrase per problem)."""

    parts: list[Part] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    read_bytes: int = 0
    read_parts: int = 0


def _at(where: str, text: str) -> str:
    return f"{where} {text}" if where else text


def _within(where: str, label: str) -> str:
    return f"{where} › {label}" if where else label


def type_of(text: str, default: str) -> str:
    """A part's type by how its text starts (cloud-init ``type_from_starts_with``)."""
    start = text.lstrip().lower()
    return next((STARTS[m] for m in _BY_LENGTH if start.startswith(m)), default)


def gunzip(data: bytes) -> bytes:
    """gzip data decompressed; raises ValueError when it does not decompress or grows past :data:`MAX_BYTES`."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(MAX_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"gzip data that does not decompress ({exc})") from None
    if len(out) > MAX_BYTES:
        raise ValueError(f"gzip data larger than {MAX_BYTES} bytes once decompressed")
    return out


def unpack(value: Any) -> Unpacked:
    """The user data ``value`` (the metadata string) as cloud-init unpacks it (see the module docstring)."""
    out = Unpacked()
    if value is UNKNOWN:
        out.problems.append("is unknown during preview, so what the node runs cannot be read")
    elif not isinstance(value, str):
        out.problems.append(f"is a {type(value).__name__}, not a base64 string")
    elif value.strip():
        try:
            data = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            data = value.encode("utf-8", "surrogateescape")
        _message(data, "", 0, out)
    return out


def _message(data: bytes, where: str, depth: int, out: Unpacked) -> None:
    """A blob of user data (cloud-init ``convert_string``): gzip, then a MIME message or one part."""
    if depth > MAX_DEPTH:
        out.problems.append(_at(where, f"nests formats more than {MAX_DEPTH} deep"))
        return
    if data[:2] == b"\x1f\x8b":
        try:
            data = gunzip(data)
        except ValueError as exc:
            out.problems.append(_at(where, f"is {exc}"))
            return
    if b"mime-version:" not in data[:4096].lower():
        _part(data, "text/x-not-multipart", where, depth, out)
        return
    try:
        message = email.message_from_string(data.decode("utf-8"))
    except UnicodeDecodeError:
        out.problems.append(_at(where, "is a MIME message that is not UTF-8"))
        return
    leaves = (p for p in message.walk() if p.get_content_maintype().lower() != "multipart")
    for i, part in enumerate(leaves, start=1):
        payload = part.get_payload(decode=True)
        ctype = part.get_content_type().lower()
        label = _within(where, f"MIME part {i} ({ctype})")
        if ctype in GZIP_TYPES and isinstance(payload, bytes):
            try:
                payload, ctype = gunzip(payload), "text/plain"
            except ValueError as exc:
                out.problems.append(f"{label} is {exc}")
                continue
        if not isinstance(payload, bytes):
            out.problems.append(f"{label} holds no payload cloud-init can read")
            continue
        _part(payload, ctype, label, depth + 1, out, part.get_content_charset())


def _part(payload: bytes, ctype: str, where: str, depth: int, out: Unpacked, charset: Any = None) -> None:
    """One part (cloud-init ``_process_msg``): typed by its text where cloud-init does so, then read by type."""
    try:
        text = payload.decode(charset or "utf-8")
    except (UnicodeDecodeError, LookupError):
        out.problems.append(_at(where, f"holds bytes that are not {charset or 'UTF-8'} text"))
        return
    if ctype in TYPED_BY_TEXT:
        ctype = type_of(text, ctype)
    _typed(text, ctype, where, depth, out)


def _typed(text: str, ctype: str, where: str, depth: int, out: Unpacked) -> None:
    out.read_bytes += len(text)
    out.read_parts += 1
    if out.read_bytes > MAX_TOTAL_BYTES or out.read_parts > MAX_PARTS:
        message = (f"expands past {MAX_PARTS} parts or {MAX_TOTAL_BYTES} bytes of parts in all, so what the node "
                   "runs cannot be read")
        if message not in out.problems:
            out.problems.append(message)
        return
    if ctype in SCRIPT_TYPES:
        out.parts.append(Part(ctype, where, text))
    elif ctype == CLOUD_CONFIG:
        try:
            config = _yaml_bounded.safe_load(text)
        except yaml.YAMLError as exc:
            out.problems.append(_at(where, f"is cloud-config that does not parse ({str(exc).splitlines()[0]})"))
            return
        if config is not None and not isinstance(config, dict):
            out.problems.append(_at(where, f"is cloud-config whose document is a {type(config).__name__}, "
                                           "not a map"))
            return
        _config(config or {}, text, where, out)
    elif ctype == JSONP:
        _jsonp(text, where, out)
    elif ctype == ARCHIVE:
        _archive(text, where, depth, out)
    elif ctype in INCLUDES:
        shown = ", ".join(include_urls(text)[:3]) or "(no URL)"
        out.problems.append(_at(where, f"includes {shown}: cloud-init fetches it at boot, so what runs is whatever "
                                       "that address serves then, not what the preview can read"))
    elif ctype in OPAQUE:
        out.problems.append(_at(where, f"is {OPAQUE[ctype]}"))
    elif ctype in ("text/plain", "text/x-not-multipart"):
        if text.strip():
            out.problems.append(_at(where, "starts with none of cloud-init's format markers (#!, #cloud-config, "
                                           "#cloud-boothook, ...), so what reads it cannot be judged"))
    else:
        out.problems.append(_at(where, f"is of type {ctype}, which the preview cannot judge"))


def _config(config: dict, text: str, where: str, out: Unpacked) -> None:
    if _too_big(config):
        out.problems.append(_at(where, f"is cloud-config of more than {MAX_NODES} values (aliases expanded)"))
    else:
        out.parts.append(Part(CLOUD_CONFIG, where, text, config))


def include_urls(text: str) -> list[str]:
    """The URLs an include part names (cloud-init ``_do_include``: one per line, after an optional ``#include`` or
    ``#include-once``; other ``#`` lines are comments)."""
    urls = []
    for line in text.splitlines():
        line = line.strip()
        for marker in ("#include-once", "#include"):
            if line.lower().startswith(marker):
                line = line[len(marker):].strip()
                break
        if line and not line.startswith("#"):
            urls.append(line)
    return urls


def _archive(text: str, where: str, depth: int, out: Unpacked) -> None:
    """A ``#cloud-config-archive`` (cloud-init ``_explode_archive``): each entry a part of its own."""
    try:
        entries = _yaml_bounded.safe_load(text)
    except yaml.YAMLError as exc:
        out.problems.append(_at(where, f"is a cloud-config archive that does not parse ({str(exc).splitlines()[0]})"))
        return
    if not isinstance(entries, list):
        out.problems.append(_at(where, "is a cloud-config archive that is not a list of parts"))
        return
    if depth + 1 > MAX_DEPTH:
        out.problems.append(_at(where, f"nests formats more than {MAX_DEPTH} deep"))
        return
    for i, entry in enumerate(entries):
        label = _within(where, f"archive entry {i}")
        entry = {"content": entry} if isinstance(entry, str) else entry
        if not isinstance(entry, dict):
            out.problems.append(f"{label} is a {type(entry).__name__}, not a part")
            continue
        content, ctype = entry.get("content", ""), entry.get("type")
        if isinstance(content, bytes):
            try:
                content = content.decode("utf-8")
            except UnicodeDecodeError:
                out.problems.append(f"{label} holds bytes that are not UTF-8 text")
                continue
        if not isinstance(content, str) or (ctype is not None and not isinstance(ctype, str)):
            out.problems.append(f"{label} has a content or type that is not text")
            continue
        ctype = (ctype or type_of(content, CLOUD_CONFIG)).lower()
        _typed(content, ctype, label, depth + 1, out)


def _jsonp(text: str, where: str, out: Unpacked) -> None:
    """A ``#cloud-config-jsonp`` JSON patch read as the cloud-config keys it adds (``add``/``replace``; ``test`` and
    ``remove`` add nothing); ``copy`` and ``move`` rearrange keys the preview read elsewhere and are refused."""
    body = text.lstrip()
    body = body[len("#cloud-config-jsonp"):] if body.lower().startswith("#cloud-config-jsonp") else body
    try:
        ops = json.loads(body)
    except ValueError as exc:
        out.problems.append(_at(where, f"is a cloud-config JSON patch that does not parse ({exc})"))
        return
    config: dict = {}
    for i, op in enumerate(ops if isinstance(ops, list) else [ops]):
        kind = op.get("op") if isinstance(op, dict) else None
        path = op.get("path") if isinstance(op, dict) else None
        if kind in ("test", "remove") and isinstance(path, str):
            continue
        if kind not in ("add", "replace") or not isinstance(path, str) or not path.startswith("/"):
            out.problems.append(_at(where, f"patch operation {i} is {kind!r}, not an add, replace, test or remove "
                                           "of a path"))
            continue
        steps = [s.replace("~1", "/").replace("~0", "~") for s in path[1:].split("/")]
        if len(steps) == 1:  # the key itself
            config[steps[0]] = op.get("value")
        else:  # something inside the key: kept as one more value of it
            held = config.get(steps[0])
            config[steps[0]] = (held if isinstance(held, list) else [] if held is None else [held]) + [op.get("value")]
    _config(config, text, where, out)


def strings(value: Any) -> Iterator[str]:
    """Every string in a parsed document — keys and values, at any depth (a part's document has at most
    :data:`MAX_NODES` nodes: :func:`unpack` refuses bigger ones)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for key, item in node.items():
                stack.append(key)
                stack.append(item)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def _too_big(value: Any) -> bool:
    """True when a parsed document has more than :data:`MAX_NODES` nodes (YAML aliases count each time)."""
    stack, seen = [value], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            return True
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


def write_files(config: Any) -> list[tuple[int, Any, Any, Any]]:
    """``(index, entry, content, problem)`` per ``write_files`` entry of a cloud-config: the content as text,
    decoded as cloud-init decodes it (None when it cannot be, with the problem saying why)."""
    entries = config.get("write_files") if isinstance(config, dict) else None
    found = []
    for i, entry in enumerate(entries if isinstance(entries, list) else ([] if entries is None else [entries])):
        if not isinstance(entry, dict):
            found.append((i, entry, None, f"is a {type(entry).__name__}, not a file entry"))
            continue
        content, encoding = entry.get("content", ""), entry.get("encoding")
        steps = ENCODINGS.get(str(encoding or "").lower().strip(), ())  # cloud-init: unknown → text/plain
        try:
            for step in steps:
                if step == "base64":
                    content = base64.b64decode(content)
                else:
                    content = gunzip(content if isinstance(content, bytes) else str(content).encode("utf-8"))
            if isinstance(content, bytes):
                content = content.decode("utf-8")
        except (binascii.Error, ValueError, TypeError) as exc:
            found.append((i, entry, None, f"has content that does not decode as {encoding!r} ({exc})"))
            continue
        if content is not None and not isinstance(content, str):
            content = str(content)
        found.append((i, entry, content, None))
    return found


def texts(part: Part) -> list[str]:
    """Every text a part carries: its own text; for cloud-config also every key and value of the parsed document
    (escapes resolved) and each ``write_files`` content decoded."""
    found = [part.text]
    if part.kind == CLOUD_CONFIG:
        found += list(strings(part.config))
        found += [content for _, _, content, _ in write_files(part.config) if content]
    return found


def all_texts(value: Any) -> Any:
    """Every text the user data ``value`` carries, joined; UNKNOWN when any of it cannot be read (a label reader
    then knows it may be missing something)."""
    unpacked = unpack(value)
    if unpacked.problems:
        return UNKNOWN
    return "\n".join(t for part in unpacked.parts for t in texts(part))
