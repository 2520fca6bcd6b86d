"""What the packs' servers do beyond converting once (``_serve.py``): ``Analyze`` calls only the resource policies
that examine the request's type (:func:`dispatched`, by each policy's ``_gate.TypeGate``), and ``AnalyzeStack`` reads
the request once for all stack policies (:func:`analyze_stack`). Both rely on pulumi-policy 1.21.0's internals:
``_serve.install`` uses them only when the pinned version and sources (``_serve.PINNED_SOURCES``) are installed.
Why and how each keeps pulumi-policy's answers byte for byte: the docstring of ``_serve.py``.

Vendored: every pack carries an identical copy of this file (``policies.VENDORED``; the security pack's is the
source). Standard library and ``pulumi_policy`` only.
"""
from __future__ import annotations

import functools
import importlib
from typing import Any, Callable

#: The servicer's (name-mangled) list of policies, which ``Analyze`` loops over.
POLICIES_FIELD = "_PolicyAnalyzerServicer__policies"
#: Where a servicer keeps its :class:`Dispatch` (its own ``__dict__``).
DISPATCH_FIELD = "_oke_rdma_dispatch"


def gate(policy: Any) -> Any:
    """The type gate that is ``policy``'s ``validate`` (``_gate.TypeGate`` of any pack's copy: the marker is on the
    class, so a wrapper made with ``functools.wraps`` never carries it), or None."""
    validate = vars(policy).get("validate")
    return validate if getattr(type(validate), "OKE_RDMA_TYPE_GATE", False) is True else None


class Dispatch:
    """One servicer's policies sorted by resource type: for each type, the policies pulumi-policy's ``Analyze`` loop
    would do anything with — every resource policy whose ``validate`` is not a type gate (it runs on every resource),
    and those whose gate matches the type — in the pack's order. Left out: stack policies (the loop skips them with
    ``continue``) and resource policies whose gate refuses the type (their ``validate`` would return ``None`` before
    anything else: no report, no diagnostic). Computed once per type."""

    def __init__(self, policies: list) -> None:
        from pulumi_policy import ResourceValidationPolicy

        self.policies = policies
        self._resource = [(p, gate(p)) for p in policies if isinstance(p, ResourceValidationPolicy)]
        self._by_type: dict[str, list] = {}

    def select(self, resource_type: str) -> list:
        found = self._by_type.get(resource_type)
        if found is None:
            found = self._by_type[resource_type] = [p for p, gate in self._resource
                                                    if gate is None or gate.matches(resource_type)]
        return found


def converts(servicer: Any, policy: Any) -> bool:
    """Whether pulumi-policy's ``Analyze`` loop reaches the conversion for ``policy`` (an enabled resource policy
    with a ``validate``)."""
    from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

    return (isinstance(policy, ResourceValidationPolicy) and policy.has_validation()
            and servicer._get_enforcement_level(policy) != EnforcementLevel.DISABLED)


def dispatched(method: Callable[..., Any]) -> Callable[..., Any]:
    """``Analyze`` looping over only the policies :class:`Dispatch` selects for the request's type: pulumi-policy's
    own ``method`` runs on a copy of the servicer (its ``__dict__``, every field ``__init__`` sets, with the policy
    list replaced), so the loop, the levels, the config, the closures and the answer are its own. When no selected
    policy reaches the conversion but the full loop would have, the request is converted once anyway (as the first
    policy would), so a request pulumi-policy fails to convert still fails the same way."""
    policy_module = importlib.import_module("pulumi_policy.policy")

    @functools.wraps(method)
    def call(self: Any, request: Any, context: Any) -> Any:
        fields = self.__dict__
        policies = fields[POLICIES_FIELD]
        dispatch = fields.get(DISPATCH_FIELD)
        if dispatch is None or dispatch.policies is not policies:
            dispatch = fields[DISPATCH_FIELD] = Dispatch(policies)
        selected = dispatch.select(request.type)
        if len(selected) == len(policies):
            return method(self, request, context)
        if not any(converts(self, p) for p in selected) and any(converts(self, p) for p in policies):
            policy_module.unknown_checking_proxy(policy_module.deserialize_properties(
                policy_module.json_format.MessageToDict(request.properties)))
            self._get_resource_options(request)
            self._get_provider_resource(request)
        copy = object.__new__(type(self))
        copy.__dict__.update(fields)
        copy.__dict__[POLICIES_FIELD] = selected
        return method(copy, request, context)
    return call


#: The servicer's (name-mangled) fields :func:`analyze_stack` reads, as pulumi-policy's ``AnalyzeStack`` does.
_PACK_NAME, _PACK_VERSION, _STACK_TAGS = ("_PolicyAnalyzerServicer__policy_pack_name",
                                          "_PolicyAnalyzerServicer__policy_pack_version",
                                          "_PolicyAnalyzerServicer__stack_tags")


def stack_records(servicer: Any, request: Any) -> tuple[list[tuple], list[tuple]]:
    """What pulumi-policy's ``AnalyzeStack`` reads from each resource of ``request`` for every stack policy, read
    once: each resource's constructor arguments (type, props, URN, name, options, provider; converted as it converts
    them, through the memo) and its links as positions in the request — the parent's (or -1), the dependencies'
    and, per property, the property dependencies' — resolved as it resolves them: a URN names the last resource of
    the request with that URN, and one naming none is dropped."""
    policy_module = importlib.import_module("pulumi_policy.policy")
    made, raw_links = [], []
    for r in request.resources:
        deserialized = policy_module.deserialize_properties(policy_module.json_format.MessageToDict(r.properties))
        props = policy_module.unknown_checking_proxy(deserialized)
        opts = servicer._get_resource_options(r)
        provider = servicer._get_provider_resource(r)
        property_dependencies = {k: list(v.urns) for k, v in r.propertyDependencies.items()}
        made.append((r.type, props, r.urn, r.name, opts, provider))
        raw_links.append((r.parent, list(r.dependencies), property_dependencies))
    position = {}
    for i, (_, _, urn, _, _, _) in enumerate(made):
        position[urn] = i
    links = []
    for parent, dependencies, property_dependencies in raw_links:
        links.append((position[parent] if parent is not None and parent in position else -1,
                      [position[d] for d in dependencies if d in position],
                      {k: [position[d] for d in v if d in position] for k, v in property_dependencies.items()}))
    return made, links


def policy_resources(records: tuple[list[tuple], list[tuple]]) -> list:
    """The stack's ``PolicyResource`` objects as pulumi-policy makes them (its own objects, lists and maps, linked to
    each other as it links them), from :func:`stack_records`."""
    PolicyResource = importlib.import_module("pulumi_policy.policy").PolicyResource  # noqa: N806 - the class
    made, links = records
    resources = [PolicyResource(t, props, urn, name, opts, provider, None, [], {})
                 for t, props, urn, name, opts, provider in made]
    for resource, (parent, dependencies, property_dependencies) in zip(resources, links):
        if parent >= 0:
            resource.parent = resources[parent]
        if dependencies:
            resource.dependencies.extend([resources[d] for d in dependencies])
        for k, v in property_dependencies.items():
            resource.property_dependencies[k] = [resources[d] for d in v]
    return resources


def analyze_stack(self: Any, request: Any, _context: Any) -> Any:
    """pulumi-policy 1.21.0's ``_PolicyAnalyzerServicer.AnalyzeStack`` (pinned by the hash of its source) with the
    resources read from the request and made into ``PolicyResource`` objects once per call (:func:`stack_records`,
    :func:`policy_resources`, at the first stack policy that runs, where it read them first) instead of once per
    stack policy. The policies share those objects; each gets its own list of them (a rule may reorder or filter
    its ``args.resources``). No rule writes to a resource it is handed, except the packs' namespace wrapper
    (``_provider_namespace.namespace_aware``), whose write gives every policy the same props whether it is the
    first to make it or not; ``tests/policies/test_pack_serving.py`` checks that every object is as made after
    every policy ran. Everything else is its loop as written: levels, the ``report_violation`` closure, config,
    the call, and the "can't run" and not-applicable answers."""
    policy_module = importlib.import_module("pulumi_policy.policy")
    proto, level = policy_module.proto, policy_module.EnforcementLevel
    self._configure_runtime_settings()
    response = proto.AnalyzeResponse()
    fields = self.__dict__
    records, resources = None, []
    for policy in fields[POLICIES_FIELD]:
        enforcement_level = self._get_enforcement_level(policy)
        if enforcement_level == level.DISABLED or not isinstance(policy, policy_module.StackValidationPolicy):
            continue
        if enforcement_level == level.REMEDIATE:
            enforcement_level = level.MANDATORY
        report_violation = self._create_report_violation(response, policy.name, policy.description,
                                                         enforcement_level, policy.severity)
        if records is None:
            records = stack_records(self, request)
            resources = policy_resources(records)
        config = self._get_policy_config(policy.name)
        args = policy_module.StackValidationArgs(list(resources), config, fields[_STACK_TAGS])
        try:
            result = policy.validate(args, report_violation)
            if policy_module.isawaitable(result):
                loop = policy_module.asyncio.new_event_loop()
                task = policy_module.asyncio.Task(result, loop=loop)
                loop.run_until_complete(task)
                loop.close()
        except policy_module.UnknownValueError as e:
            name, version = fields[_PACK_NAME], fields[_PACK_VERSION]
            response.diagnostics.append(proto.AnalyzeDiagnostic(
                policyName=policy.name, policyPackName=name, policyPackVersion=version,
                message=f"can't run policy '{policy.name}' from policy pack '{name}@v{version}' during preview: "
                        f"{e.message}",
                urn="", description=policy.description,
                enforcementLevel=self._map_enforcement_level(level.ADVISORY)))
        except policy_module._NotApplicableError as e:
            response.not_applicable.append(proto.PolicyNotApplicable(policy_name=policy.name, reason=e.reason or ""))
    return response
