"""The configuration reference, generated from the config model: one row per key, and Pulumi.yaml's ``config:`` schema.

Everything here is read from :class:`~oke_rdma.config.StackConfig` and the models it nests: each field's alias (the
camelCase key), its annotation (the type column), its default, its ``Field`` bounds (``ge``/``le``/``gt``/``lt``,
``min_length``) and its ``description``. Nothing is written by hand, so the reference cannot drift from what the
program accepts; ``python -m oke_rdma.docs --write`` (``make docs``) rewrites both, and
``tests/components/test_docs.py`` fails when either is stale.

Pulumi's project file can type a config key only as ``string``, ``integer``, ``boolean`` or ``array`` (of those);
a key holding a map cannot be declared (``configTypeDeclaration`` requires ``type``; source: the project file's JSON
schema, pulumi/pulumi ``sdk/go/common/workspace/project.json``, read 2026-11-30). :func:`pulumi_config_schema`
therefore declares the keys it can type and lists the map-valued keys in a comment block that points to the
reference.
"""

from __future__ import annotations

import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Any, Iterator, Literal, Mapping, Optional, Union

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ._base import NAMESPACE
from .stack import StackConfig

#: What a map key stands for, by the key path of the map (shown as ``<pool>`` in key paths).
MAP_KEY_NAMES = {"nodePools": "pool", "tenants": "tenant", "serviceAccounts": "serviceAccount"}
#: The configuration page the generated table lives in (linked from Pulumi.yaml's comment block).
REFERENCE_PAGE = "docs/configuration.md"


@dataclass(frozen=True)
class KeyRow:
    """One row of the reference: a key path (``network.apiEndpoint.public``; ``oci:region`` for the region), its type
    in words, its default (``**required**`` when it has none), its bounds and its description."""

    path: str
    type: str
    default: str
    bounds: str
    description: str
    model_type: Any


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    """``Optional[X]`` → ``(X, True)``; anything else → ``(annotation, False)``."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _strip_annotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def type_name(annotation: Any, secret: bool = False) -> str:
    """The type of a field in words: ``string``, ``integer``, ``number``, ``boolean``, ``list of string``, ``one of
    `A`, `B```, ``map``, ``map of name → string``; a secret string is ``string (secret)``.

    Raises ``TypeError`` for an annotation it cannot describe (so a new kind of field is noticed, never guessed).
    """
    t = _strip_annotated(_unwrap_optional(annotation)[0])
    origin = typing.get_origin(t)
    if t is str:
        return "string (**secret**)" if secret else "string"
    if t is bool:
        return "boolean"
    if t is int:
        return "integer"
    if t is float:
        return "number"
    if origin is Literal:
        return "one of " + ", ".join(f"`{v}`" for v in typing.get_args(t))
    if origin is tuple:
        args = typing.get_args(t)
        if len(args) == 2 and args[1] is Ellipsis:
            return "list of " + type_name(args[0])
    if origin is dict:
        _, value = typing.get_args(t)
        value = _strip_annotated(value)
        if value is Any:
            return "map (any YAML)"
        if _is_model(value):
            return "map of name → map"
        return "map of name → " + type_name(value)
    if _is_model(t):
        return "map"
    raise TypeError(f"cannot describe the config field type {annotation!r}; extend oke_rdma.config.reference")


def _yaml_scalar(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip().removesuffix("...").strip()


def default_text(field: FieldInfo) -> str:
    """A field's default as written in a stack file: ``**required**`` without one, ``—`` for absent (None), ``see
    below`` for a nested map, else the YAML value (``false``, ``okerdma``, ``[]``, ``{}``)."""
    if field.default is PydanticUndefined and field.default_factory is None:
        return "**required**"
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is None:
        return "—"
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, tuple):
        value = list(value)
    return f"`{_yaml_scalar(value)}`"


def bounds_text(field: FieldInfo) -> str:
    """The ``Field`` constraints in words: ``0 to 1000``, ``above 0``, ``at least 1 entry``; empty when none."""
    lo = hi = None
    lo_strict = hi_strict = False
    min_len = None
    for m in field.metadata:
        if getattr(m, "ge", None) is not None:
            lo = m.ge
        if getattr(m, "gt", None) is not None:
            lo, lo_strict = m.gt, True
        if getattr(m, "le", None) is not None:
            hi = m.le
        if getattr(m, "lt", None) is not None:
            hi, hi_strict = m.lt, True
        if getattr(m, "min_length", None) is not None:
            min_len = m.min_length
    parts = []
    if lo is not None and hi is not None and not (lo_strict or hi_strict):
        parts.append(f"{lo} to {hi}")
    else:
        if lo is not None:
            parts.append(f"above {lo}" if lo_strict else f"at least {lo}")
        if hi is not None:
            parts.append(f"below {hi}" if hi_strict else f"at most {hi}")
    if min_len is not None:
        parts.append(f"at least {min_len} entr{'y' if min_len == 1 else 'ies'}")
    return ", ".join(parts)


def iter_rows(model: type[BaseModel] = StackConfig, prefix: str = "") -> Iterator[KeyRow]:
    """Every key of ``model`` and the models it nests, depth first in declaration order.

    Map-valued keys with model values (``nodePools``) continue as ``nodePools.<pool>.<key>``. Raises ``ValueError``
    when a field has no description (every key is documented where it is declared).
    """
    for name, field in model.model_fields.items():
        key = field.alias or name
        path = "oci:region" if (model is StackConfig and name == "region") else f"{prefix}{key}"
        if not field.description:
            raise ValueError(f"{NAMESPACE}:{path} ({model.__name__}.{name}) has no description; add "
                             f"Field(description=...) where it is declared")
        secret = bool((field.json_schema_extra or {}).get("secret")) if isinstance(field.json_schema_extra,
                                                                                  dict) else False
        inner, _ = _unwrap_optional(field.annotation)
        inner = _strip_annotated(inner)
        yield KeyRow(path, type_name(field.annotation, secret), default_text(field), bounds_text(field),
                     field.description, inner)
        if _is_model(inner):
            yield from iter_rows(inner, f"{path}.")
        elif typing.get_origin(inner) is dict:
            value = _strip_annotated(typing.get_args(inner)[1])
            if _is_model(value):
                yield from iter_rows(value, f"{path}.<{MAP_KEY_NAMES.get(key, 'name')}>.")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_table(change: Optional[Mapping[str, str]] = None) -> str:
    """The Markdown reference table (header, separator, one row per key), ending with a newline. With ``change``
    (key path → what changing it costs: ``offline.changecost``), a last column says it."""
    head = "| key | type | default | bounds | meaning |" + (" changing it |" if change is not None else "")
    lines = [head, "|---|---|---|---|---|" + ("---|" if change is not None else "")]
    for row in iter_rows():
        cost = f" {_cell(change.get(row.path, ''))} |" if change is not None else ""
        lines.append(f"| `{row.path}` | {_cell(row.type)} | {_cell(row.default)} | {_cell(row.bounds) or ''} | "
                     f"{_cell(row.description)} |{cost}")
    return "\n".join(lines) + "\n"


#: JSON-schema-like Pulumi type of a scalar annotation (the only ones Pulumi's project schema takes).
_PULUMI_SCALARS = {str: "string", int: "integer", bool: "boolean"}


def _pulumi_type(annotation: Any) -> Optional[dict]:
    t = _strip_annotated(_unwrap_optional(annotation)[0])
    if t in _PULUMI_SCALARS:
        return {"type": _PULUMI_SCALARS[t]}
    if typing.get_origin(t) is tuple:
        args = typing.get_args(t)
        item = _strip_annotated(args[0]) if len(args) == 2 and args[1] is Ellipsis else None
        if item in _PULUMI_SCALARS:
            return {"type": "array", "items": {"type": _PULUMI_SCALARS[item]}}
    return None


def pulumi_config_schema() -> str:
    """Pulumi.yaml's generated tail: a comment block naming every map-valued key, then ``config:`` declaring every
    top-level key Pulumi can type (type, description with bounds, default). ``oci:region`` belongs to the OCI
    provider and is not declared."""
    declared: dict[str, dict] = {}
    structured: list[tuple[str, str]] = []
    for name, field in StackConfig.model_fields.items():
        if name == "region":
            continue
        key = field.alias or name
        decl = _pulumi_type(field.annotation)
        if decl is None:
            structured.append((key, field.description or ""))
            continue
        bounds = bounds_text(field)
        decl["description"] = field.description + (f" Bounds: {bounds}." if bounds else "")
        if field.default is not PydanticUndefined and field.default is not None and field.default_factory is None \
                and not isinstance(field.default, tuple):
            decl["default"] = field.default
        declared[key] = decl
    width = max(len(k) for k, _ in structured)
    lines = [f"# Map-valued keys (YAML maps in Pulumi.<stack>.yaml; Pulumi's project schema cannot type them): every",
             f"# key below them, with its type, default and bounds, is in {REFERENCE_PAGE}.",
             "#"]
    for key, desc in structured:
        head = f"#   {NAMESPACE}:{key.ljust(width)}  "
        lines += textwrap.wrap(desc, 116, initial_indent=head, subsequent_indent="#" + " " * (len(head) - 1))
    body = yaml.safe_dump({"config": declared}, sort_keys=False, width=110, allow_unicode=True)
    return "\n".join(lines) + "\n" + body
