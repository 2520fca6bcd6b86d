"""Evaluate a CrossGuard policy pack offline, the way the Pulumi engine's analyzer calls would.

This mirrors ``pulumi_policy.policy._PolicyAnalyzerServicer`` (pulumi-policy 1.21) without gRPC:

* ``Analyze`` — every resource policy runs once per registered resource (components and providers too, the root
  ``pulumi:pulumi:Stack`` excepted) on the resource's *inputs*, deserialized with
  ``pulumi_policy.deserialize.deserialize_properties`` and wrapped with ``unknown_checking_proxy``. A violation is
  attributed to that resource's URN (the engine ignores the URN a resource policy passes).
* ``AnalyzeStack`` — every stack policy runs once on all resources, built from their *outputs*, with ``parent``,
  ``dependencies`` and ``property_dependencies`` resolved to the ``PolicyResource`` objects.
* Reading an unknown value raises ``UnknownValueError``; like the servicer, that becomes an ADVISORY
  "can't run policy ... during preview" entry (here in ``PolicyReport.not_run``), never a violation.
* Levels: DISABLED skips the policy; REMEDIATE is reported as MANDATORY; a violation's message is the policy's
  description, a newline, and the message the rule reported — exactly as the servicer builds it.
* Policy config uses the ``pulumi preview --policy-pack-config`` file format (see :func:`resolve_policy_config`).

Any other exception from a rule is a bug in the pack: it is raised as :class:`PolicyRuntimeError` (the real
engine fails the preview on it too).
"""
from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from inspect import isawaitable
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence, Union

from google.protobuf import json_format, struct_pb2
from pulumi_policy import (EnforcementLevel, Policy, PolicyCustomTimeouts, PolicyProviderResource, PolicyResource,
                           PolicyResourceOptions, ResourceValidationArgs, ResourceValidationPolicy,
                           StackValidationArgs, StackValidationPolicy)
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

STACK_TYPE = "pulumi:pulumi:Stack"
#: The version a Python PolicyPack reports to the engine (``PolicyPack.__init__`` hard-codes it).
SERVICER_PACK_VERSION = "0.0.1"
_LEVELS = {level.value: level for level in EnforcementLevel}
_JSON_TYPES = {"string": str, "number": (int, float), "integer": int, "boolean": bool, "array": list,
               "object": dict, "null": type(None)}


@dataclass
class EngineResource:
    """One resource registration as the engine records it.

    ``inputs``/``outputs`` are in wire form: ``json_format.MessageToDict`` of the registration's ``Struct``
    (unknowns are the sentinel ``"04da6b54-80e4-46f7-96ec-b56ff0331ba9"``, secrets are
    ``{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": ...}``).
    ``provider`` is a provider reference (``"<provider urn>::<provider id>"``) or None.
    """

    urn: str
    type: str
    name: str
    custom: bool = True
    inputs: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    parent: Optional[str] = None
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    protect: bool = False
    provider: Optional[str] = None
    ignore_changes: list[str] = field(default_factory=list)
    delete_before_replace: Optional[bool] = None
    additional_secret_outputs: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Violation:
    """A policy violation (an engine ``AnalyzeDiagnostic``). ``urn`` is "" for a stack-wide violation."""

    policy: str
    pack: str
    enforcement_level: str  # "advisory" | "mandatory"
    urn: str
    message: str  # policy description + "\n" + the rule's message
    severity: Optional[str]  # "low" | "medium" | "high" | "critical" | None
    description: str = ""
    policy_type: str = "resource"  # "resource" | "stack"


@dataclass(frozen=True)
class NotRun:
    """A policy that stopped on a value unknown during preview (reported by the engine as ADVISORY)."""

    policy: str
    pack: str
    urn: str  # the analysed resource's URN; "" for a stack policy
    reason: str  # the UnknownValueError message, e.g. "string value at .source can't be known during preview"
    message: str  # the full diagnostic: "can't run policy '<p>' from policy pack '<pack>@v<ver>' during preview: ..."
    enforcement_level: str = "advisory"


@dataclass(frozen=True)
class NotApplicable:
    """A policy that declared itself not applicable (``args.not_applicable(...)``)."""

    policy: str
    urn: str
    reason: str


@dataclass
class PolicyReport:
    """Everything one evaluation produced, in the order the engine would produce it."""

    violations: list[Violation] = field(default_factory=list)
    not_run: list[NotRun] = field(default_factory=list)
    not_applicable: list[NotApplicable] = field(default_factory=list)

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement_level == EnforcementLevel.MANDATORY.value]

    @property
    def advisory(self) -> list[Violation]:
        return [v for v in self.violations if v.enforcement_level == EnforcementLevel.ADVISORY.value]


@dataclass(frozen=True)
class ResolvedPolicyConfig:
    """A policy's effective enforcement level and config properties (what the engine's Configure call carries)."""

    enforcement_level: EnforcementLevel
    properties: Optional[dict[str, Any]]


class PolicyRuntimeError(RuntimeError):
    """A rule raised something other than UnknownValueError / not-applicable: a bug in the policy pack."""


def has_mandatory(report: PolicyReport) -> bool:
    """True if any violation is mandatory (the engine then fails the preview/update)."""
    return bool(report.mandatory)


def load_policy_config(path: Union[str, Path]) -> dict[str, Any]:
    """Read a ``--policy-pack-config`` JSON file (empty file = no config)."""
    text = Path(path).read_text()
    return json.loads(text) if text.strip() else {}


# --- config ----------------------------------------------------------------------------------------------------
def _level(value: Any, key: str) -> EnforcementLevel:
    if isinstance(value, EnforcementLevel):
        return value
    if not isinstance(value, str) or value not in _LEVELS:
        raise ValueError(f"policy config {key!r}: {value!r} is not a valid enforcement level; "
                         f"use one of {', '.join(_LEVELS)}")
    return _LEVELS[value]


def _normalize(key: str, value: Any) -> tuple[Optional[EnforcementLevel], dict[str, Any]]:
    """``"mandatory"`` or ``{"enforcementLevel": "...", "<param>": ...}`` -> (level or None, properties)."""
    if isinstance(value, (str, EnforcementLevel)):
        return _level(value, key), {}
    if not isinstance(value, Mapping):
        raise ValueError(f"policy config {key!r}: {value!r} must be an enforcement level or an object")
    props = {k: v for k, v in value.items() if k != "enforcementLevel"}
    level = _level(value["enforcementLevel"], key) if "enforcementLevel" in value else None
    return level, props


def _check_schema(policy: Policy, props: dict[str, Any]) -> None:
    schema = policy.config_schema
    if schema is None:
        return
    missing = [name for name in (schema.required or []) if name not in props]
    if missing:
        raise ValueError(f"policy config {policy.name!r}: missing required propert(y/ies) {', '.join(missing)}")
    for name, value in props.items():
        expected = (schema.properties.get(name) or {}).get("type")
        types = expected if isinstance(expected, list) else [expected] if expected else []
        if types and not any(_type_ok(value, t) for t in types):
            raise ValueError(f"policy config {policy.name!r}: {name!r} must be of type {expected}, got {value!r}")


def _type_ok(value: Any, json_type: str) -> bool:
    if isinstance(value, bool) and json_type in ("number", "integer"):
        return False
    if json_type == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(json_type, object))


def resolve_policy_config(policies: Sequence[Policy], policy_config: Optional[Mapping[str, Any]] = None,
                          pack_enforcement_level: EnforcementLevel = EnforcementLevel.ADVISORY,
                          ) -> dict[str, ResolvedPolicyConfig]:
    """Each policy's effective level and properties, as the CLI reconciles them before calling Configure.

    Precedence of the level: the policy's own entry > ``"all"`` > the policy's ``enforcement_level`` > the pack
    default. Properties start from the schema's ``default`` values, then the policy's entry is merged on top.

    :raises ValueError: an unknown policy name, an invalid enforcement level, a non-object entry, properties on
        ``"all"``, or properties that break the policy's config schema (required / type).
    """
    by_name = {p.name: p for p in policies}
    resolved: dict[str, ResolvedPolicyConfig] = {}
    for p in policies:
        defaults = {k: v["default"] for k, v in (p.config_schema.properties if p.config_schema else {}).items()
                    if isinstance(v, dict) and "default" in v}
        resolved[p.name] = ResolvedPolicyConfig(p.enforcement_level or pack_enforcement_level, defaults or None)
    config = dict(policy_config or {})
    unknown = sorted(k for k in config if k != "all" and k not in by_name)
    if unknown:
        raise ValueError(f"policy config names unknown polic(y/ies) {', '.join(map(repr, unknown))}; "
                         f"this pack has: {', '.join(by_name)}")
    if "all" in config:
        all_level, all_props = _normalize("all", config["all"])
        if all_props:
            raise ValueError("policy config 'all' accepts only an enforcement level, not properties")
        if all_level is not None:
            resolved = {n: ResolvedPolicyConfig(all_level, c.properties) for n, c in resolved.items()}
    for name, value in config.items():
        if name == "all":
            continue
        level, props = _normalize(name, value)
        current = resolved[name]
        merged = {**(current.properties or {}), **props} or None
        resolved[name] = ResolvedPolicyConfig(level or current.enforcement_level, merged)
    for p in policies:
        _check_schema(p, resolved[p.name].properties or {})
    return resolved


def _wire_config(props: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """Properties as the servicer receives them: through a protobuf Struct (numbers become floats); None if empty."""
    if not props:
        return None
    struct = struct_pb2.Struct()
    struct.update(props)
    return json_format.MessageToDict(struct) or None


# --- the analyzer calls ------------------------------------------------------------------------------------------
def _props(wire: Mapping[str, Any]) -> Mapping[str, Any]:
    return unknown_checking_proxy(deserialize_properties(dict(wire)))


def _options(r: EngineResource) -> PolicyResourceOptions:
    return PolicyResourceOptions(r.protect, list(r.ignore_changes), r.delete_before_replace, list(r.aliases),
                                 PolicyCustomTimeouts(0, 0, 0), list(r.additional_secret_outputs), r.parent)


def _provider(r: EngineResource, by_urn: Mapping[str, EngineResource]) -> Optional[PolicyProviderResource]:
    """The provider resource as the engine describes it: type, inputs, URN and name of the provider."""
    if not r.provider:
        return None
    urn = r.provider.rsplit("::", 1)[0] if r.provider.count("::") > 3 else r.provider
    known = by_urn.get(urn)
    if known is not None:
        return PolicyProviderResource(known.type, _props(known.inputs), known.urn, known.name)
    parts = urn.split("::")
    return PolicyProviderResource(parts[2].split("$")[-1] if len(parts) > 3 else "", _props({}), urn,
                                  parts[-1] if len(parts) > 3 else urn)


def _run(result: Any) -> None:
    """Wait for an async rule like the servicer does, in a fresh event loop (in a thread if one is running)."""
    async def wait() -> None:
        await result

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(wait())
        finally:
            loop.close()
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, wait()).result()


@dataclass
class _Evaluation:
    pack: str
    report: PolicyReport

    def reporter(self, policy: Policy, level: EnforcementLevel, kind: str, fixed_urn: Optional[str]):
        """The ``report_violation`` callback for one policy run (resource runs pin the URN to the resource)."""
        def report_violation(message: str, urn: Optional[str] = None) -> None:
            if message and not isinstance(message, str):
                raise TypeError("Expected message to be a string")
            if urn is not None and not isinstance(urn, str):
                raise TypeError("Expected urn to be a string")
            text = policy.description + (f"\n{message}" if message else "")
            self.report.violations.append(Violation(
                policy.name, self.pack, level.value, fixed_urn if fixed_urn is not None else (urn or ""), text,
                policy.severity.value if policy.severity else None, policy.description, kind))
        return report_violation

    def call(self, policy: Policy, args: Any, report_violation: Any, urn: str) -> None:
        """Run one validation, translating unknowns and not-applicable exactly like the servicer."""
        try:
            result = policy.validate(args, report_violation)  # type: ignore[attr-defined]
            if isawaitable(result):
                _run(result)
        except UnknownValueError as e:
            self.report.not_run.append(NotRun(
                policy.name, self.pack, urn, e.message,
                f"can't run policy '{policy.name}' from policy pack '{self.pack}@v{SERVICER_PACK_VERSION}' "
                f"during preview: {e.message}"))
        except _NotApplicableError as e:
            self.report.not_applicable.append(NotApplicable(policy.name, urn, e.reason or ""))
        except Exception as e:  # noqa: BLE001 - a broken rule must stop the preview, with context
            raise PolicyRuntimeError(f"policy {policy.name!r} from pack {self.pack!r} failed on "
                                     f"{urn or 'the stack'}: {type(e).__name__}: {e}") from e


def _effective_level(config: ResolvedPolicyConfig) -> Optional[EnforcementLevel]:
    level = config.enforcement_level
    if level == EnforcementLevel.DISABLED:
        return None
    return EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level


def evaluate(policies: Sequence[Policy], resources: Sequence[EngineResource], pack_name: str,
             policy_config: Optional[Mapping[str, Any]] = None,
             pack_enforcement_level: EnforcementLevel = EnforcementLevel.ADVISORY,
             stack_tags: Optional[Mapping[str, str]] = None) -> PolicyReport:
    """Run the pack's resource policies on every resource, then its stack policies once, and report.

    :param policies: the pack's policy objects (e.g. ``policies.pack.POLICIES``).
    :param resources: the registrations, in registration order.
    :param pack_name: the pack name used in messages (``policies.pack.PACK_NAME``).
    :param policy_config: ``--policy-pack-config`` content, see :func:`resolve_policy_config`.
    :param pack_enforcement_level: the PolicyPack's default level.
    :param stack_tags: the stack's tags, handed to rules as ``args.stack_tags``.
    :raises ValueError: invalid policy config. :raises PolicyRuntimeError: a rule crashed.
    """
    configs = resolve_policy_config(policies, policy_config, pack_enforcement_level)
    tags = MappingProxyType(dict(stack_tags or {}))
    run = _Evaluation(pack_name, PolicyReport())
    by_urn = {r.urn: r for r in resources}

    for r in resources:
        if r.type == STACK_TYPE:
            continue
        for policy in policies:
            level = _effective_level(configs[policy.name])
            if level is None or not isinstance(policy, ResourceValidationPolicy):
                continue
            if not policy.has_validation():
                reason = "Policy does not implement validate"
                run.report.not_applicable.append(NotApplicable(policy.name, r.urn, reason))
                continue
            args = ResourceValidationArgs(r.type, _props(r.inputs), r.urn, r.name, _options(r), _provider(r, by_urn),
                                          _wire_config(configs[policy.name].properties), tags)
            run.call(policy, args, run.reporter(policy, level, "resource", r.urn), r.urn)

    for policy in policies:
        level = _effective_level(configs[policy.name])
        if level is None or not isinstance(policy, StackValidationPolicy):
            continue
        args = StackValidationArgs(_stack_resources(resources, by_urn), _wire_config(configs[policy.name].properties),
                                   tags)
        run.call(policy, args, run.reporter(policy, level, "stack", None), "")
    return run.report


def _stack_resources(resources: Sequence[EngineResource],
                     by_urn: Mapping[str, EngineResource]) -> list[PolicyResource]:
    """PolicyResource objects from outputs, with parent / dependencies / property_dependencies linked by URN."""
    built = {r.urn: PolicyResource(r.type, _props(r.outputs), r.urn, r.name, _options(r), _provider(r, by_urn),
                                   None, [], {}) for r in resources}
    for r in resources:
        res = built[r.urn]
        res.parent = built.get(r.parent) if r.parent else None
        res.dependencies = [built[d] for d in r.dependencies if d in built]
        res.property_dependencies = {k: [built[d] for d in v if d in built]
                                     for k, v in r.property_dependencies.items()}
    return list(built.values())
