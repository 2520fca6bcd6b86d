"""Policy pack config as the Pulumi CLI handles it: parse a ``--policy-pack-config`` file, reconcile it with each
policy's level and schema defaults, validate it against the schemas, and warn about config that changes nothing.

Sources (pulumi/pulumi, read 2026-11-30): ``pkg/resource/analyzer/config.go`` (``parsePolicyPackConfig``,
``ReconcilePolicyPackConfig``, ``validatePolicyPackConfig``: gojsonschema on ``{"type": "object", properties,
required}`` with ``enforcementLevel`` injected), ``pkg/cmd/pulumi`` ``validatePolicyPackConfig`` (one config file
per ``--policy-pack``, by position).

Schemas are validated with ``jsonschema`` (Draft 7) except ``pattern``, which the CLI evaluates with Go's RE2
(:mod:`offline.gore`): ``$`` is the end of the text (a trailing newline is refused), ``\\d``/``\\w``/``\\s``/``\\b``
are ASCII, ``{,n}`` is literal; constructs RE2 cannot compile (look-around, back-references, ``\\Z``, possessive
quantifiers, conditionals) and constructs the translation cannot interpret (``\\p{...}``) are refused, never passed.

The policies are described either by ``pulumi_policy.Policy`` objects (in-process evaluation) or by the
``PolicyInfo`` messages a pack's analyzer server returns from ``GetAnalyzerInfo`` (:func:`policy_specs`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

import jsonschema
from pulumi_policy import EnforcementLevel, PolicyConfigSchema

from offline.gore import go_pattern_validator

_LEVELS = {level.value: level for level in EnforcementLevel}
#: The schema the CLI injects into every policy's config schema when the pack supports config (Python packs do).
_ENFORCEMENT_LEVEL_SCHEMA = {"type": "string", "enum": [level.value for level in EnforcementLevel]}


@dataclass(frozen=True)
class ResolvedPolicyConfig:
    """A policy's effective enforcement level and config properties (what the engine's Configure call carries)."""

    enforcement_level: EnforcementLevel
    properties: Optional[dict[str, Any]]


def load_policy_config(path: Union[str, Path]) -> dict[str, Any]:
    """Read a ``--policy-pack-config`` JSON file (empty file = no config)."""
    text = Path(path).read_text()
    return json.loads(text) if text.strip() else {}


# --- config ----------------------------------------------------------------------------------------------------
class PolicyConfigError(ValueError):
    """Policy config the Pulumi CLI would refuse; ``problems`` holds one line per problem, in the CLI's order.

    ``by_pack`` pairs each problem with the pack whose config it is (set by :func:`evaluate_packs`, for the CLI's
    "validating policy config: <pack> <version>" prefix); None for a problem that concerns no single pack."""

    def __init__(self, problems: Sequence[str], by_pack: Optional[Sequence[tuple[Optional["PackInfo"], str]]] = None):
        self.problems = list(problems)
        self.by_pack = list(by_pack) if by_pack is not None else [(None, p) for p in self.problems]
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class _Entry:
    level: Optional[EnforcementLevel]
    properties: dict[str, Any]


def _level_of(key: str, value: Any, in_object: bool) -> EnforcementLevel:
    if in_object and not isinstance(value, str):
        raise PolicyConfigError([f"parsing enforcement level for {key!r}: {value!r} is not a valid enforcement "
                                 f"level; must be a string (one of {', '.join(_LEVELS)})"])
    if value not in _LEVELS:
        raise PolicyConfigError([f"parsing enforcement level for {key!r}: {value!r} is not a valid enforcement "
                                 f"level; use one of {', '.join(_LEVELS)}"])
    return _LEVELS[value]


def parse_policy_config(config: Any) -> tuple[dict[str, _Entry], list[str]]:
    """Parse ``--policy-pack-config`` content like the CLI's ``parsePolicyPackConfig``.

    A value is an enforcement level string, or an object with an optional ``enforcementLevel`` and properties;
    entries with neither are dropped; a top-level ``environments`` list names Pulumi ESC environments.

    :returns: ``(entries, environments)``.
    :raises PolicyConfigError: not an object, an invalid level, a value that is neither string nor object.
    """
    if config is None:
        return {}, []
    if not isinstance(config, Mapping):
        raise PolicyConfigError([f"policy config must be a JSON object of policy name: config, not {config!r}"])
    config = dict(config)
    environments = config.pop("environments", [])
    if not isinstance(environments, list) or not all(isinstance(e, str) for e in environments):
        raise PolicyConfigError([f'"environments" must be an array of strings, got {environments!r}'])
    entries: dict[str, _Entry] = {}
    for key, value in config.items():
        if isinstance(value, EnforcementLevel):
            value = value.value
        if isinstance(value, str):
            entry = _Entry(_level_of(key, value, False), {})
        elif isinstance(value, Mapping):
            props = {k: v for k, v in value.items() if k != "enforcementLevel"}
            level = _level_of(key, value["enforcementLevel"], True) if "enforcementLevel" in value else None
            entry = _Entry(level, props)
        else:
            raise PolicyConfigError([f"parsing {key!r}: {value!r} is not a valid value; must be a string or object"])
        if entry.level is not None or entry.properties:  # the CLI drops empty entries
            entries[key] = entry
    return entries, environments


#: Draft 7 with the CLI's ``pattern`` semantics (Go RE2, :mod:`offline.gore`).
_GoDraft7Validator = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": go_pattern_validator})
_FORMATS = jsonschema.Draft7Validator.FORMAT_CHECKER


def _unchecked_formats(node: Any) -> set[str]:
    """``format`` values in a schema that this offline check cannot verify (gojsonschema checks every format it
    knows, so a format left unchecked here would pass a value the CLI may refuse)."""
    found: set[str] = set()
    if isinstance(node, Mapping):
        value = node.get("format")
        if isinstance(value, str) and value not in _FORMATS.checkers:
            found.add(value)
        for child in node.values():
            found |= _unchecked_formats(child)
    elif isinstance(node, list):
        for child in node:
            found |= _unchecked_formats(child)
    return found


def _schema_errors(policy: Any, props: Mapping[str, Any]) -> list[str]:
    """Validate ``props`` like the CLI (gojsonschema on ``{"type": "object", properties, required}``, with
    ``enforcementLevel`` injected); messages are jsonschema's (Draft 7), prefixed with the property path.
    ``pattern`` follows Go's regexp (:mod:`offline.gore`); ``format`` is checked (as gojsonschema does), and a
    format this check cannot verify is refused."""
    schema = policy.config_schema
    properties = {**((schema.properties if schema else None) or {}), "enforcementLevel": _ENFORCEMENT_LEVEL_SCHEMA}
    document: dict[str, Any] = {"type": "object", "properties": properties}
    if schema is not None and schema.required:
        document["required"] = list(schema.required)
    unchecked = _unchecked_formats(properties)
    if unchecked:
        return [f"{policy.name}: the config schema uses format {', '.join(sorted(unchecked))}, which the offline "
                "preview cannot check like the Pulumi CLI; refused"]
    validator = _GoDraft7Validator(document, format_checker=_FORMATS)
    errors = sorted(validator.iter_errors(dict(props)), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    out = []
    for error in errors:
        path = ".".join(str(p) for p in error.absolute_path)
        out.append(f"{policy.name}: {path}: {error.message}" if path else f"{policy.name}: {error.message}")
    return out


def policy_config_warnings(policies: Sequence[Any], policy_config: Optional[Mapping[str, Any]]) -> list[str]:
    """Config the CLI accepts silently but that changes nothing: worth a warning offline.

    Names that are no policy of the pack (with an enforcement level), properties on ``"all"`` (only its level is
    applied), properties a policy's config schema does not declare, and ESC ``environments`` (not opened offline).
    :raises PolicyConfigError: as :func:`parse_policy_config`.
    """
    entries, environments = parse_policy_config(policy_config)
    by_name = {p.name: p for p in policies}
    warnings = []
    for key, entry in entries.items():
        if key == "all":
            if entry.properties:
                warnings.append(f"policy config 'all': properties {sorted(entry.properties)} are ignored; "
                                "'all' sets only the enforcement level")
        elif key not in by_name:
            warnings.append(f"policy config names {key!r}, which is not a policy of this pack (ignored); the "
                            f"pack has: {', '.join(by_name)}")
        else:
            declared = set((by_name[key].config_schema.properties if by_name[key].config_schema else {}) or {})
            extra = sorted(set(entry.properties) - declared)
            if extra:
                warnings.append(f"policy config {key!r}: {', '.join(map(repr, extra))} not declared in the "
                                "policy's config schema (passed to the rule, which does not read it)")
    if environments:
        warnings.append(f"policy config environments {environments} are Pulumi ESC environments; the offline "
                        "preview does not open them")
    return warnings


def resolve_policy_config(policies: Sequence[Any], policy_config: Optional[Mapping[str, Any]] = None,
                          pack_enforcement_level: EnforcementLevel = EnforcementLevel.ADVISORY,
                          ) -> dict[str, ResolvedPolicyConfig]:
    """Each policy's effective level and properties, as the CLI reconciles them before calling ``Configure``.

    Mirrors ``ReconcilePolicyPackConfig``: start from each policy's level (its ``enforcement_level``, else the pack
    default) and its schema's ``default`` values; apply ``"all"``'s level to every policy; then each entry's level
    and properties (merged over the defaults). Validate every policy's properties against its schema (all errors
    are collected); finally ``Configure`` refuses an entry that ends with no enforcement level (an unknown name or
    ``"all"`` given only properties).

    :raises PolicyConfigError: parse errors, schema violations (``"<policy>: <path>: <what>"``), or an entry
        without an enforcement level.
    """
    entries, _ = parse_policy_config(policy_config)
    result: dict[str, _Entry] = {}
    for p in policies:
        defaults = {k: v["default"] for k, v in ((p.config_schema.properties if p.config_schema else None) or {}
                                                 ).items() if isinstance(v, dict) and "default" in v}
        result[p.name] = _Entry(p.enforcement_level or pack_enforcement_level, defaults)
    if "all" in entries and entries["all"].level is not None:
        result = {name: _Entry(entries["all"].level, e.properties) for name, e in result.items()}
    for key, entry in entries.items():  # "all" and unknown names too: the CLI keeps them in the result
        current = result.get(key, _Entry(None, {}))
        result[key] = _Entry(entry.level or current.level, {**current.properties, **entry.properties})
    problems = [line for p in policies for line in _schema_errors(p, result[p.name].properties)]
    if problems:
        raise PolicyConfigError(problems)
    levelless = sorted(k for k, e in result.items() if e.level is None)
    if levelless:
        raise PolicyConfigError([f"configuring policy pack: entry {k!r} has properties but no enforcementLevel, "
                                 "and it is not a policy of this pack (invalid enforcement level \"\")"
                                 for k in levelless])
    return {p.name: ResolvedPolicyConfig(result[p.name].level, dict(result[p.name].properties) or None)
            for p in policies}


@dataclass(frozen=True)
class PolicySpec:
    """What the CLI knows of a policy from ``GetAnalyzerInfo``: enough to reconcile and validate its config (the
    same attributes :func:`resolve_policy_config` reads from a ``pulumi_policy.Policy``)."""

    name: str
    enforcement_level: Optional[EnforcementLevel]
    config_schema: Optional[PolicyConfigSchema]
    policy_type: str  # "resource" | "stack" | "unknown"
    description: str = ""


def policy_specs(info: Any) -> list[PolicySpec]:
    """The policies of an ``AnalyzerInfo`` message (``pulumi.runtime.proto.analyzer_pb2``), in pack order.

    Schema properties come through a protobuf ``Struct`` as the CLI receives them (numbers are doubles).
    :raises PolicyConfigError: a policy reports an enforcement level that is not one of the four.
    """
    from google.protobuf import json_format
    from pulumi.runtime.proto import analyzer_pb2

    specs = []
    for p in info.policies:
        level_name = analyzer_pb2.EnforcementLevel.Name(p.enforcementLevel).lower()
        if level_name not in _LEVELS:
            raise PolicyConfigError([f"policy {p.name!r} reports enforcement level {level_name!r}"])
        schema = None
        if p.HasField("configSchema"):
            properties = json_format.MessageToDict(p.configSchema.properties)
            try:
                schema = PolicyConfigSchema(properties, list(p.configSchema.required) or None)
            except TypeError as e:  # e.g. a property named enforcementLevel, or one that is not an object
                raise PolicyConfigError([f"policy {p.name!r} reports a config schema the CLI cannot use: {e}"]) \
                    from None
        kind = analyzer_pb2.PolicyType.Name(p.policy_type).removeprefix("POLICY_TYPE_").lower()
        specs.append(PolicySpec(p.name, _LEVELS[level_name], schema, kind, p.description))
    return specs


def check_pack_config_count(packs: Sequence[Any], configs: Sequence[Any],
                            config_flag: str = "--policy-pack-config") -> Optional[str]:
    """The CLI's rule for ``--policy-pack-config`` (``validatePolicyPackConfig``, pulumi
    ``pkg/cmd/pulumi`` preview/up, checked 2026-11-30): config files are matched to packs by position, so there is
    none or one per pack. Returns the CLI's message (naming ``config_flag``) when the counts differ, else None."""
    if configs and not packs:
        return f'"{config_flag}" must be specified with "--policy-pack"'
    if configs and len(configs) != len(packs):
        return (f'the number of "{config_flag}" flags must match the number of "--policy-pack" flags '
                f'({len(configs)} for {len(packs)}: one config file per pack, in the same order)')
    return None
