"""Read a ``Pulumi.<stack>.yaml`` file the way the Pulumi CLI does, so the offline preview sees the same config.

The Pulumi CLI reads stack files with Go's ``gopkg.in/yaml.v3`` (``sdk/go/common/encoding``) into a
``config.Map`` of ``config.Value`` (``sdk/go/common/resource/config/value.go``), then hands the program one string
per key. PyYAML's own resolver follows YAML 1.1, which reads many plain scalars differently (``yes``/``on`` are
booleans, ``1:20`` is a base-60 number, ``2024-01-01`` a date), so this module composes the YAML with PyYAML (only
the syntax: no implicit typing) and resolves every scalar itself with yaml.v3's rules:

- a top-level scalar is handed over as its **source text** (``size: 010`` → ``"010"``, ``public: yes`` → ``"yes"``;
  an empty or null value → ``""``), because Pulumi first tries to read a value as a Go string;
- a map or list is decoded the way yaml.v3 decodes into ``interface{}`` and re-encoded as JSON with Go's
  ``encoding/json`` (keys sorted; ``3.0`` → ``3``): booleans are only ``true``/``false`` (any case variant yaml.v3
  knows), nulls ``~``/``null``/empty, integers use Go's base prefixes (``0x1F``, ``0o17``, ``0b11``, and the YAML 1.1
  octal ``010`` = 8) with ``_`` ignored (``1_0`` = 10), timestamps become RFC 3339 text, and everything else
  (``yes``, ``off``, ``1:20``) stays a string;
- a ``{secure: <ciphertext>}`` value makes its top-level key a secret; it cannot be decrypted offline, so it is
  replaced by :data:`SECRET_PLACEHOLDER`;
- a key defined twice in one mapping is an error with both line numbers (yaml.v3 refuses it as well), and so are
  YAML syntax errors (line and column), recursive anchors and values JSON cannot hold (``.nan``, ``.inf``);
- a file whose shape hides config from Pulumi (config keys at the top level, ``configs:``, ``config:`` as a list,
  one level too deep: :mod:`oke_rdma.stack_file`) is an error naming the line and the fix.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Optional

import yaml
from yaml.composer import Composer
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

#: What the offline preview stands in for a ``secure:`` config value it cannot decrypt (the same text as
#: ``oke_rdma.config.SECRET_PLACEHOLDER``, which the config loader recognises).
SECRET_PLACEHOLDER = "offline-placeholder-secret"

_PLAIN = "tag:oke-rdma,offline:plain"  # our marker for a plain (unquoted, untagged) scalar: resolved below
_Y = "tag:yaml.org,2002:"
_MAX_NODES = 1_000_000  # yaml.v3 refuses "excessive aliasing" (billion laughs); so do we, past this many nodes


class StackFileError(Exception):
    """The stack config file is missing or is not a Pulumi stack config file."""


class _Resolver(BaseResolver):
    """Tags nothing implicitly: plain scalars get :data:`_PLAIN`, quoted and block scalars ``!!str``."""

    def resolve(self, kind, value, implicit):
        if kind is ScalarNode and implicit[0]:
            return _PLAIN
        return super().resolve(kind, value, implicit)


class _Loader(Reader, Scanner, Parser, Composer, _Resolver):
    def __init__(self, stream: str):
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        _Resolver.__init__(self)


class _Fail(Exception):
    def __init__(self, node: Optional[Node], message: str):
        super().__init__(message)
        self.node = node


def _line(node: Optional[Node]) -> str:
    return f"line {node.start_mark.line + 1}: " if node is not None else ""


# -- yaml.v3 scalar resolution (resolve.go) ---------------------------------------------------------------------
_BOOLS = {**dict.fromkeys(("true", "True", "TRUE"), True), **dict.fromkeys(("false", "False", "FALSE"), False)}
_NULLS = {"", "~", "null", "Null", "NULL"}
_SPECIAL_FLOATS = {**dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
                   **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
                   **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf)}
_YAML_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_INT = re.compile(r"^(?P<sign>[-+]?)(?:0[xX](?P<hex>[0-9a-fA-F]+)|0[oO](?P<oct>[0-7]+)|0[bB](?P<bin>[01]+)"
                     r"|(?P<loct>0[0-7]*)|(?P<dec>[1-9][0-9]*))$")
_TIMESTAMP = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?"
                        r"(Z|[+-]\d{2}:\d{2})?)?$")


def _go_int(text: str, unsigned: bool = False) -> Optional[int]:
    """Go's ``strconv.ParseInt(text, 0, 64)`` (or ``ParseUint``): base prefixes, a leading 0 means octal."""
    m = _GO_INT.match(text)
    if not m or (unsigned and m["sign"]):
        return None
    digits, base = next((m[g], b) for g, b in (("hex", 16), ("oct", 8), ("bin", 2), ("loct", 8), ("dec", 10))
                        if m[g] is not None)
    value = int(digits, base) * (-1 if m["sign"] == "-" else 1)
    lo, hi = (0, 2**64 - 1) if unsigned else (-(2**63), 2**63 - 1)
    return value if lo <= value <= hi else None


def _timestamp(text: str) -> Optional[str]:
    """yaml.v3's timestamp forms, as ``encoding/json`` writes a ``time.Time`` (RFC 3339, UTC when unzoned)."""
    m = _TIMESTAMP.match(text)
    if not m:
        return None
    y, mo, d, sep, hh, mm, ss, frac, zone = m.groups()
    if sep is not None and (zone is None) != (sep == " "):
        return None  # yaml.v3's formats: "T"/"t" with a zone, " " without one
    try:
        datetime.datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), int(ss or 0))
    except ValueError:
        return None
    frac = ("." + frac.rstrip("0")) if frac and frac.rstrip("0") else ""
    zone = "Z" if zone in (None, "Z", "+00:00") else zone
    return f"{y}-{int(mo):02d}-{int(d):02d}T{int(hh or 0):02d}:{int(mm or 0):02d}:{int(ss or 0):02d}{frac}{zone}"


def resolve_plain(text: str) -> tuple[str, Any]:
    """The yaml.v3 tag and value of a plain scalar decoded into ``interface{}`` (timestamps as RFC 3339 text)."""
    if text in _BOOLS:
        return "bool", _BOOLS[text]
    if text in _NULLS:
        return "null", None
    if text in _SPECIAL_FLOATS:
        return "float", _SPECIAL_FLOATS[text]
    if text[0] == ".":
        if re.fullmatch(r"\.[0-9]+([eE][-+]?[0-9]+)?", text):
            return "float", float(text)
    elif text[0] in "+-0123456789":
        stamp = _timestamp(text)
        if stamp is not None:
            return "timestamp", stamp
        plain = text.replace("_", "")
        for unsigned in (False, True):
            value = _go_int(plain, unsigned)
            if value is not None:
                return "int", value
        if _YAML_FLOAT.match(plain):
            value = float(plain)
            if not math.isinf(value):  # Go's ParseFloat fails on overflow: the text stays a string
                return "float", value
    return "str", text


def _scalar(node: ScalarNode) -> tuple[str, Any]:
    tag = node.tag
    if tag == _PLAIN:
        return resolve_plain(node.value)
    if tag == _Y + "str":
        return "str", node.value
    if tag == _Y + "binary":
        try:
            data = base64.b64decode("".join(node.value.split()), validate=True)
        except (binascii.Error, ValueError):
            raise _Fail(node, "!!binary value contains invalid base64 data") from None
        return "str", data.decode("utf-8", errors="replace")
    short = tag[len(_Y):] if tag.startswith(_Y) else None
    if short in ("int", "float", "bool", "null", "timestamp"):
        got, value = resolve_plain(node.value) if node.value else ("null", None)
        if got == short:
            return got, value
        if short == "float" and got == "int":
            return "float", float(value)
        raise _Fail(node, f"cannot decode !!{got} `{node.value}` as a !!{short}")
    return "str", node.value  # a tag yaml.v3 does not resolve (``!foo``): the text


# -- decoding into interface{} and Go's encoding/json ----------------------------------------------------------
class _Decoder:
    def __init__(self) -> None:
        self.active: set[int] = set()
        self.count = 0

    def value(self, node: Node) -> Any:
        self.count += 1
        if self.count > _MAX_NODES:
            raise _Fail(node, "document contains excessive aliasing")
        if id(node) in self.active:
            raise _Fail(node, "an anchor's value contains an alias to itself")
        if isinstance(node, ScalarNode):
            return _scalar(node)[1]
        self.active.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                return [self.value(item) for item in node.value]
            return self.mapping(node)
        finally:
            self.active.discard(id(node))

    def mapping(self, node: MappingNode) -> dict[str, Any]:
        check_unique(node)
        explicit: dict[str, Any] = {}
        merges: list[Node] = []
        string_keys = all(_key_is_str(k) for k, _ in node.value)
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.value == "<<" and key_node.tag in (_PLAIN, _Y + "merge"):
                merges.append(value_node)
                continue
            key = self.key(key_node, string_keys)
            explicit[key] = self.value(value_node)
        for source in merges:  # keys written in the mapping win; among merged maps the first wins
            maps = source.value if isinstance(source, SequenceNode) else [source]
            for m in maps:
                if not isinstance(m, MappingNode):
                    raise _Fail(source, "map merge requires map or sequence of maps as the value")
                for k, v in self.mapping(m).items():
                    explicit.setdefault(k, v)
        return explicit

    def key(self, node: Node, string_keys: bool) -> str:
        if not isinstance(node, ScalarNode):
            raise _Fail(node, "a mapping key must be a scalar (not a list or a map)")
        tag, value = _scalar(node)
        if string_keys or tag == "str":
            return value
        return _go_sprint(value, tag)  # Pulumi's interfaceMapToStringMap: fmt.Sprintf("%v", key)


def _key_is_str(node: Node) -> bool:
    """yaml.v3's ``isStringMap`` test for one key: a scalar whose tag is (or resolves to) ``!!str``."""
    if not isinstance(node, ScalarNode):
        return False
    return resolve_plain(node.value)[0] == "str" if node.tag == _PLAIN else node.tag == _Y + "str"


def _go_sprint(value: Any, tag: str) -> str:
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if tag == "timestamp":
        return value.replace("T", " ").replace("Z", " +0000 UTC")
    if isinstance(value, float):
        return _go_float(value, "g")
    return str(value)


def _go_float(value: float, style: str = "json") -> str:
    """A float64 as Go prints it: ``encoding/json`` (``3``, ``0.5``, ``1e-7``) or ``%v`` (``1e+06``, ``0.5``)."""
    if style == "json" and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    exact = Decimal(repr(value))  # Python's repr is the shortest round-tripping text, as Go's is
    exp = exact.adjusted()
    fixed = (1e-6 <= abs(value) < 1e21) if style == "json" else (-4 <= exp < 6)
    if fixed:
        return format(exact, "f")
    mantissa, _, e = f"{exact:e}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(e):+d}" if style == "json" else f"{mantissa}e{int(e):+03d}"


def go_json(value: Any, node: Optional[Node] = None) -> str:
    """``encoding/json.Marshal`` of a decoded value: sorted keys, Go number text; NaN and ±Inf are refused."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{go_json(v, node)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v, node) for v in value) + "]"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise _Fail(node, f"json: unsupported value: {'NaN' if math.isnan(value) else '±Inf'}")
        return _go_float(value)
    if value is None or isinstance(value, (bool, int, str)):
        return json.dumps(value)
    raise _Fail(node, f"a {type(value).__name__} value cannot be config")  # unreachable: the decoder makes no other


def check_unique(node: MappingNode) -> None:
    """yaml.v3 refuses a mapping that defines one key twice (same kind and text), naming both lines."""
    seen: dict[tuple[type, str], Node] = {}
    for key_node, _ in node.value:
        ident = (type(key_node), key_node.value if isinstance(key_node, ScalarNode) else "")
        if ident in seen:
            raise _Fail(key_node, f"mapping key {json.dumps(str(ident[1]))} already defined at line "
                                  f"{seen[ident].start_mark.line + 1}; keep one of them")
        seen[ident] = key_node


def _unsecure(value: Any) -> tuple[Any, bool]:
    """Replace every ``{secure: "<ciphertext>"}`` inside ``value`` with the placeholder; say whether there was one."""
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("secure"), str):
        return SECRET_PLACEHOLDER, True
    if isinstance(value, dict):
        pairs = {k: _unsecure(v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_unsecure(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def _other_stacks(path: Path) -> str:
    """``; did you mean --stack X? stacks here: a, b`` for a missing ``Pulumi.<stack>.yaml`` (the stack files beside
    it, the closest name by ``difflib``), or ``; no Pulumi.<stack>.yaml here`` when there are none."""
    import difflib

    named = re.fullmatch(r"Pulumi\.(.+)\.ya?ml", path.name)
    try:
        stacks = sorted({m.group(1) for p in path.parent.iterdir()
                         if (m := re.fullmatch(r"Pulumi\.(.+)\.ya?ml", p.name))})
    except OSError:
        return ""
    elsewhere = "; a stack file elsewhere or named otherwise: --config-file PATH --stack NAME"
    if not stacks:
        return (f"; {path.parent} holds no Pulumi.<stack>.yaml (write one with python -m oke_rdma.new_stack)"
                + elsewhere)
    close = difflib.get_close_matches(named.group(1), stacks, n=1, cutoff=0.6) if named else []
    hint = f"did you mean --stack {close[0]}? " if close else ""
    return f"; {hint}stacks here: {', '.join(stacks)}{elsewhere}"


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise StackFileError(f"{path}: not UTF-8 text (byte {e.start}); save the file as UTF-8") from None
    except FileNotFoundError:
        raise StackFileError(f"{path}: no such stack config file{_other_stacks(path)}") from None
    except OSError as e:
        raise StackFileError(f"{path}: cannot read the stack config file ({e.strerror})") from None


def _compose(path: Path, text: str) -> Optional[Node]:
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        context = f" ({e.context} at line {e.context_mark.line + 1})" if e.context and e.context_mark else ""
        raise StackFileError(f"{path}{where}: not valid YAML: {e.problem}{context}; fix the syntax there") from None
    except yaml.YAMLError as e:
        raise StackFileError(f"{path}: not valid YAML: {e}") from None
    finally:
        loader.dispose()


#: What :func:`read_stack_file` read, by the file's text and the project: a process that previews the same stack
#: text again (the tests, thousands of times) does not compose it again (the pure-Python composer, kept for its
#: line-accurate errors, took about 30 ms for the dev stack file). Only successful reads are kept; each caller gets
#: its own copies.
_READ: dict[tuple[str, str], tuple[dict[str, str], list[str]]] = {}
_READ_MAX = 64


#: Why a stack file importing Pulumi ESC environments is refused, and how to preview it offline.
ESC_MESSAGE = ("'environment:' imports Pulumi ESC environments, whose values only Pulumi Cloud can resolve; the "
               "offline preview would lose them. Resolve the config first and pass it with --config-json: "
               "`pulumi config --json --show-secrets --open > config.json` (or `esc open <org>/<project>/<env> "
               "--format json > config.json`), then `python -m offline.preview --config-json config.json`")


def read_stack_file(path: Path, project: str = "oke-rdma") -> tuple[dict[str, str], list[str]]:
    """Read a ``Pulumi.<stack>.yaml`` file into raw config the way the Pulumi CLI hands it to a program.

    Keys without a namespace get the project's (``oke-rdma:``). Top-level scalars are handed over as their source
    text; maps and lists as Go-encoded JSON of their yaml.v3 decoding (see the module docstring); ``secure:``
    values (which cannot be decrypted offline) become :data:`SECRET_PLACEHOLDER` and their keys are secret.

    :returns: ``(config, secret_keys)``.
    :raises StackFileError: if the file is missing, is not YAML (with line and column), defines a key twice, or
        is not a mapping with a ``config:`` mapping.
    """
    text = _text(path)
    known = _READ.get((text, project))
    if known is None:
        root = _compose(path, text)
        try:
            known = _read(root, project)
        except _Fail as e:
            raise StackFileError(f"{path}: {_line(e.node)}{e}") from None
        if len(_READ) >= _READ_MAX:
            _READ.pop(next(iter(_READ)))
        _READ[(text, project)] = known
    return dict(known[0]), list(known[1])


def _kind(node: Optional[Node]) -> str:
    if node is None or (isinstance(node, ScalarNode) and node.tag == _PLAIN and node.value in _NULLS):
        return "null"
    return "map" if isinstance(node, MappingNode) else "list" if isinstance(node, SequenceNode) else "text"


def check_shape(root: MappingNode, project: str) -> None:
    """Refuse a stack file whose shape hides its config from Pulumi (:func:`oke_rdma.stack_file.shape_problem`:
    config keys at the top level, a top-level key Pulumi does not read such as ``configs:``, ``config:`` holding a
    list or text), naming the line."""
    from oke_rdma.stack_file import shape_problem

    nodes = {k.value: (k, v) for k, v in root.value if isinstance(k, ScalarNode)}
    found = shape_problem({name: _kind(v) for name, (_, v) in nodes.items()}, project)
    if found:
        key, message = found
        raise _Fail(nodes[key][1] if key == "config" else nodes[key][0], message)


def _check_config_keys(config_node: MappingNode, project: str) -> None:
    """A ``config:`` key written one level too deep (:func:`oke_rdma.stack_file.config_key_problem`)."""
    from oke_rdma.stack_file import config_key_problem

    for key_node, value_node in config_node.value:
        if isinstance(key_node, ScalarNode) and isinstance(value_node, MappingNode):
            problem = config_key_problem(key_node.value, [k.value for k, _ in value_node.value
                                                          if isinstance(k, ScalarNode)], project)
            if problem:
                raise _Fail(key_node, problem)


def _read(root: Optional[Node], project: str) -> tuple[dict[str, str], list[str]]:
    if root is None or (isinstance(root, ScalarNode) and root.tag == _PLAIN and root.value in _NULLS):
        return {}, []
    if not isinstance(root, MappingNode):
        raise _Fail(root, "expected a mapping with a 'config:' mapping of key: value")
    check_unique(root)
    check_shape(root, project)
    env_node = next((v for k, v in root.value if isinstance(k, ScalarNode) and k.value == "environment"), None)
    if env_node is not None and not (isinstance(env_node, ScalarNode) and env_node.value in _NULLS):
        raise _Fail(env_node, ESC_MESSAGE)
    config_node = next((v for k, v in root.value if isinstance(k, ScalarNode) and k.value == "config"), None)
    if config_node is None or (isinstance(config_node, ScalarNode) and config_node.tag == _PLAIN
                               and config_node.value in _NULLS):
        return {}, []
    if not isinstance(config_node, MappingNode):
        raise _Fail(config_node, "'config:' must be a mapping of key: value")
    _check_config_keys(config_node, project)
    check_unique(config_node)
    config: dict[str, str] = {}
    secret_keys: list[str] = []
    decoder = _Decoder()
    for key_node, value_node in config_node.value:
        if not isinstance(key_node, ScalarNode):
            raise _Fail(key_node, "a config key must be text like oke-rdma:nodePools")
        key = key_node.value if ":" in key_node.value else f"{project}:{key_node.value}"
        if isinstance(value_node, ScalarNode):
            tag, value = _scalar(value_node)  # resolves explicit tags (``!!int abc`` is an error, as in yaml.v3)
            # Pulumi reads a scalar into a Go string first: the source text (null → "", !!binary → its bytes).
            config[key] = "" if tag == "null" else (value if value_node.tag == _Y + "binary" else value_node.value)
            continue
        value, secret = _unsecure(decoder.value(value_node))
        if secret:
            secret_keys.append(key)
        config[key] = value if isinstance(value, str) else go_json(value, value_node)
    return config, secret_keys
