"""Evaluate CrossGuard policy packs offline, the way the Pulumi engine's analyzer calls do.

Two paths, kept in agreement by ``tests/offline/test_policy_conformance.py``:

* :func:`evaluate_packs` — what the preview reports: every ``--policy-pack`` directory is judged by its own
  ``pulumi_policy`` analyzer server, started and called over gRPC exactly as the CLI does (:mod:`offline.analyzer`;
  start the servers early with :func:`start_analyzers`). Public and stable: the preview calls only this, the
  two helpers below it, and the report types.
* :func:`evaluate` — the in-process harness of the rule tests (hundreds of cases, no process per case). It mirrors
  ``pulumi_policy.policy._PolicyAnalyzerServicer`` (pulumi-policy 1.21) without gRPC:

* ``Analyze`` — every resource policy runs once per registered resource (components, providers and the root
  ``pulumi:pulumi:Stack`` too: the engine's step generator analyses every registration) on the resource's *inputs*,
  top-level ``__`` keys dropped (the engine marshals with ``SkipInternalKeys``), deserialized with
  ``pulumi_policy.deserialize.deserialize_properties`` and wrapped with ``unknown_checking_proxy``. A violation is
  attributed to that resource's URN (the engine ignores the URN a resource policy passes).
* ``AnalyzeStack`` — every stack policy runs once on all resources (the root stack, whose outputs are the stack
  outputs, included: pass :meth:`offline.engine.ProgramRun.analyzed_resources`), built from their *outputs*, with
  ``parent``, ``dependencies`` and ``property_dependencies`` resolved to the ``PolicyResource`` objects. A violation
  whose URN names no resource of the stack is attributed to the stack as a whole (``urn=""``), as the engine does.
* Reading an unknown value raises ``UnknownValueError``; like the servicer, that becomes an ADVISORY
  "can't run policy ... during preview" entry (here in ``PolicyReport.not_run``), never a violation.
* Levels: DISABLED skips the policy; REMEDIATE is reported as MANDATORY; a violation's message is the policy's
  description, a newline, and the message the rule reported — exactly as the servicer builds it.
* Policy config uses the ``pulumi preview --policy-pack-config`` file format and is parsed, reconciled and validated
  like the CLI does it (``pkg/resource/analyzer/config.go``; see :func:`resolve_policy_config`).

Any other exception from a rule is a bug in the pack: it is raised as :class:`PolicyRuntimeError` (the real
engine fails the preview on it too).

Known gaps (the engine does things no offline run can): resource props are the program's inputs, not the provider's
``Check`` result (a bridged provider may add defaults); the engine's *default* providers (``pulumi:providers:oci::
default_...``) are not registered under mocks, so they are neither analysed nor handed to rules as ``args.provider``.
"""
from __future__ import annotations

import asyncio
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

from offline.analyzer import start_analyzers as _start_analyzers
from offline.policy_types import (STACK_TYPE, SERVICER_PACK_VERSION, EngineResource, NotApplicable, NotRun,  # noqa: F401
                                  PackInfo, PolicyReport, PolicyRuntimeError, Violation, analyzed_inputs, has_mandatory,
                                  pack_version)
from offline.streaming import AnalysisStream
from offline.policy_config import (PolicyConfigError, ResolvedPolicyConfig, check_pack_config_count,  # noqa: F401
                                   load_policy_config, parse_policy_config, policy_config_warnings,
                                   resolve_policy_config)

def _wire_config(props: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """Properties as the servicer receives them: through a protobuf Struct (numbers become floats); None if empty."""
    if not props:
        return None
    struct = struct_pb2.Struct()
    struct.update(props)
    return json_format.MessageToDict(struct) or None


# --- the analyzer calls ------------------------------------------------------------------------------------------
def _wire(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as a pack receives them: through a serialized and parsed protobuf ``Struct`` (numbers become
    doubles; keys come back in the order protobuf's map yields them, not the program's), exactly as on the gRPC
    path (:mod:`offline.analyzer`)."""
    struct = struct_pb2.Struct()
    struct.update(dict(values))
    parsed = struct_pb2.Struct()
    parsed.ParseFromString(struct.SerializeToString())
    return json_format.MessageToDict(parsed)


def _props(wire: Mapping[str, Any]) -> Mapping[str, Any]:
    """Engine props: top-level internal (``__``) keys dropped, carried as on the wire (:func:`_wire`),
    deserialized, behind the unknown-checking proxy."""
    return unknown_checking_proxy(deserialize_properties(_wire({k: v for k, v in wire.items()
                                                                 if not k.startswith("__")})))


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
    urns: frozenset = frozenset()

    def reporter(self, policy: Policy, level: EnforcementLevel, kind: str, fixed_urn: Optional[str]):
        """The ``report_violation`` callback for one policy run (resource runs pin the URN to the resource)."""
        def report_violation(message: str, urn: Optional[str] = None) -> None:
            if message and not isinstance(message, str):
                raise TypeError("Expected message to be a string")
            if urn is not None and not isinstance(urn, str):
                raise TypeError("Expected urn to be a string")
            text = policy.description + (f"\n{message}" if message else "")
            where = fixed_urn if fixed_urn is not None else (urn if urn in self.urns else "")  # else: the stack
            self.report.violations.append(Violation(
                policy.name, self.pack, level.value, where, text,
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
    :raises PolicyConfigError: (a ``ValueError``) invalid policy config. :raises PolicyRuntimeError: a rule crashed.
    """
    configs = resolve_policy_config(policies, policy_config, pack_enforcement_level)
    tags = MappingProxyType(dict(stack_tags or {}))
    by_urn = {r.urn: r for r in resources}
    run = _Evaluation(pack_name, PolicyReport(config_warnings=policy_config_warnings(policies, policy_config)),
                      frozenset(by_urn))

    # Each resource is converted once and its props, options and provider are shared by the policies, as the packs'
    # servers do (policies/<pack>/_serve.py; no rule writes to what it is handed: tests/policies/test_pack_serving.py).
    levels = {policy.name: _effective_level(configs[policy.name]) for policy in policies}
    wire_configs = {policy.name: _wire_config(configs[policy.name].properties) for policy in policies}
    resource_policies = [p for p in policies if levels[p.name] is not None and isinstance(p, ResourceValidationPolicy)]
    for r in resources:
        shared = None
        for policy in resource_policies:
            if not policy.has_validation():
                reason = "Policy does not implement validate"
                run.report.not_applicable.append(NotApplicable(policy.name, r.urn, reason))
                continue
            if shared is None:
                shared = _props(analyzed_inputs(r)), _options(r), _provider(r, by_urn)
            args = ResourceValidationArgs(r.type, shared[0], r.urn, r.name, shared[1], shared[2],
                                          wire_configs[policy.name], tags)
            run.call(policy, args, run.reporter(policy, levels[policy.name], "resource", r.urn), r.urn)

    stack = None
    for policy in policies:
        level = levels[policy.name]
        if level is None or not isinstance(policy, StackValidationPolicy):
            continue
        # the stack's PolicyResource objects are built once for all stack policies (the servers build fresh ones
        # per policy from one reading of the request, policies/<pack>/_dispatch.py): a rule that changed them would
        # make the two differ, which tests/offline/test_policy_conformance.py compares on every stack it has
        stack = _stack_resources(resources, by_urn) if stack is None else stack
        args = StackValidationArgs(stack, wire_configs[policy.name], tags)
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


# --- several packs, as `pulumi preview --policy-pack A --policy-pack B` runs them ------------------------------------
def pack_problem(path: Union[str, Path]) -> Optional[str]:
    """Why ``path`` is not a Python policy pack directory the CLI could load (checked before the program runs), or
    None. A pack directory holds ``PulumiPolicy.yaml`` with ``runtime: python`` and the ``__main__.py`` that
    ``python -m pulumi.policy`` runs."""
    path = Path(path)
    if not path.is_dir():
        return "is not a directory; give a policy pack directory such as policies/security"
    if not (path / "PulumiPolicy.yaml").is_file():
        return "has no PulumiPolicy.yaml; a policy pack directory holds one"
    import yaml

    try:
        meta = yaml.safe_load((path / "PulumiPolicy.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        return f"PulumiPolicy.yaml cannot be read: {' '.join(str(e).split())}"  # one line
    runtime = meta.get("runtime") if isinstance(meta, dict) else None
    runtime = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime != "python":
        return f"PulumiPolicy.yaml runtime is {runtime!r}; the offline preview runs Python packs only"
    if not (path / "__main__.py").is_file():
        return "has no __main__.py (what `python -m pulumi.policy` runs in a Python pack)"
    return None


def start_analyzers(packs: Sequence[Union[str, Path]]) -> Any:
    """Start every pack's analyzer server now (non-blocking; see :func:`offline.analyzer.start_analyzers`). Pass the
    result to :func:`evaluate_packs` and close it (``.close()`` or ``with``) when done."""
    return _start_analyzers(packs)


def evaluate_packs(packs: Sequence[Union[str, Path]], resources: Sequence[EngineResource],
                   policy_configs: Sequence[Optional[Mapping[str, Any]]] = (),
                   stack_tags: Optional[Mapping[str, str]] = None, analyzers: Any = None,
                   project: str = "", stack: str = "", stream: Any = None) -> PolicyReport:
    """Evaluate every pack on ``resources`` through the pack's own analyzer server, as ``pulumi preview
    --policy-pack A --policy-pack B`` does (:mod:`offline.analyzer`): packs in the given order, each judged by
    ``pulumi_policy`` itself over gRPC, one conversation per pack (:class:`offline.streaming.AnalysisStream`).

    :param packs: pack directories (each holds ``PulumiPolicy.yaml`` and ``__main__.py``).
    :param resources: the registrations in registration order, root stack first
        (:meth:`offline.engine.ProgramRun.analyzed_resources`).
    :param policy_configs: none, or one ``--policy-pack-config`` content per pack (by position, like the CLI).
    :param analyzers: servers already started by :func:`start_analyzers` for these packs (the caller closes them);
        None starts and closes them here.
    :param stream: the :class:`offline.streaming.AnalysisStream` the program's registrations were sent to while it
        ran (the caller closes it); None sends every resource now.
    :returns: one report holding every pack's findings (``Violation.pack`` names the pack; ``packs`` lists them).
    :raises PolicyConfigError: config counts differ, or a pack's config is invalid (``by_pack`` names the pack).
    :raises PolicyRuntimeError: a pack failed to start or a rule crashed (``offline.analyzer.PolicyPackError``).
    """
    problem = check_pack_config_count(packs, policy_configs)
    if problem:
        raise PolicyConfigError([problem])
    if stream is not None:
        return stream.finish(resources)
    owned = analyzers is None
    analyzers = start_analyzers(packs) if owned else analyzers
    try:
        with AnalysisStream(analyzers, packs, policy_configs, stack=stack, project=project,
                            stack_tags=stack_tags) as fresh:
            for r in resources:
                fresh.submit(r)
            return fresh.finish(resources)
    finally:
        if owned:
            analyzers.close()
