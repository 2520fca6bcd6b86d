"""Serving a pack: what each pack's ``__main__.py`` calls to start its analyzer server (:func:`serve`), with two
savings that change no finding.

**Each resource converted once per analyzer call.** pulumi-policy 1.21.0's servicer (``policy.py``,
``_PolicyAnalyzerServicer``) converts a resource's properties inside its loop over the policies: ``Analyze`` runs
``unknown_checking_proxy(deserialize_properties(json_format.MessageToDict(request.properties)))`` (and the same for
the provider's properties, ``_get_provider_resource``) once per *resource policy*, and ``AnalyzeStack`` converts
every resource of the stack once per *stack policy*. The result depends on the message alone, so converting it again
for the next policy only costs time: with 27 resource and 13 stack policies it was 82–86 % of the security pack's
CPU time on a 64-pool × 200-tenant stack (docs/benchmark.md). :func:`install` wraps those three calls, under the
names the servicer's module calls them by, in a memo that exists only while one ``Analyze`` or ``AnalyzeStack``
call runs on its thread: the first policy converts a message, the next ones get the same proxy. The servicer's
helpers that build a request's options and provider (``_get_resource_options``, ``_get_provider_resource``, also
called once per policy) are remembered per request the same way. Outside those two calls (``Configure``,
``Remediate``) the wrappers pass every call straight through. A memo entry holds its message,
so no other object can take its ``id`` while the call lasts; the memo is dropped when the call returns.

The policies then share one proxy per resource; a rule that wrote to its props (``_DictProxy`` allows
``props[k] = v``) would be seen by the next policies. No rule of these packs writes to its props
(``tests/policies/test_pack_serving.py`` runs every policy on props that refuse writes).

**This relies on pulumi-policy's internals**, so it is pinned: :data:`PINNED_VERSION` and the SHA-256 of the source
of everything wrapped or assumed (:data:`PINNED_SOURCES`). When either differs (a new pulumi-policy), :func:`install`
changes nothing and prints one line on stderr; the pack then runs as pulumi-policy wrote it (the same findings,
slower), and ``tests/policies/test_pack_serving.py`` fails until the pin is reviewed against the new sources. The
proposal to fix it upstream (convert once before the loop) is in docs/benchmark.md. ``OKE_RDMA_PACK_MEMO=0`` in the
server's environment turns the memo off (for an A/B measurement).

**Garbage collection.** The server's objects from its imports (pulumi, grpc, the rules) live as long as the process;
:func:`serve` moves them to the collector's permanent generation (``gc.freeze()``) once imported, so the collections
that the per-call garbage triggers no longer walk them again, and collects young objects every 100 000 allocations
rather than 700 (:data:`GC_THRESHOLDS`); what a call allocates is still collected.

Vendored: every pack carries an identical copy of this file (``policies.VENDORED``; the security pack's is the
source). Standard library and ``pulumi_policy`` only.
"""
from __future__ import annotations

import functools
import gc
import hashlib
import importlib
import inspect
import os
import sys
import threading
from typing import Any, Callable, Optional

#: The pulumi-policy release whose internals :data:`PINNED_SOURCES` describes (the packs' requirements.txt pin).
PINNED_VERSION = "1.21.0"
#: ``module.attribute`` under ``pulumi_policy`` → SHA-256 of its source (``inspect.getsource``) at
#: :data:`PINNED_VERSION`: the servicer methods that call the conversion in their policy loops, and the conversion
#: functions whose results the memo reuses (pure functions of their argument).
PINNED_SOURCES = {
    "policy._PolicyAnalyzerServicer.Analyze": "75db9cf8fc9d158596909b9b3f77bf48815990a6f513f2bb35728a67e4d8a515",
    "policy._PolicyAnalyzerServicer.AnalyzeStack": "3917a008482c2387d7da37f65d889970933e8df8efc57270559e20b36be837bf",
    "policy._PolicyAnalyzerServicer._get_provider_resource":
        "5db736069fc8d3d65e220ee75143faa1d2603982f5fcb3e96cbfc6d3e82ebdd7",
    "policy._PolicyAnalyzerServicer._get_resource_options":
        "986051047b696f0fd99ed8890bc7e6445a171630e99ae53cfbd6066ab4b45288",
    "deserialize.deserialize_properties": "2ef45163513f6cc9c65929241e2661bf6f3dfa47abaa545d1501a38fe841a191",
    "deserialize._deserialize_property": "f74731f85cfdd6af0630062df328542073d565b5156ecbe3907f6a0c9bb5071e",
    "proxy.unknown_checking_proxy": "760d27c0d09666ff364c53e298f1704d47a4dbf8ce16cdf7be375eb825930523",
    "proxy._proxy_helper": "c36dd3b6af1196cbab4c2be6408b333b0294c15c445efb4a3d7b0350e4088a0b",
    # the dispatch (:func:`_dispatched`): every field of a servicer is set in __init__ (a copy of its __dict__ is
    # the same servicer), and what the Analyze loop asks of a policy before it converts anything
    "policy._PolicyAnalyzerServicer.__init__": "d79091472a8911d62a8b9fa639c1692aa32540251221c1828f377887da0345b0",
    "policy._PolicyAnalyzerServicer._get_enforcement_level":
        "e766403ef7ab7cdf0be172e84ebd1b0b19e5132c369af748007ab37b458fdbff",
    "policy.ResourceValidationPolicy.has_validation": "df3874233b40a16c510dcce113acce51a2f6aa1cd438e160d8a86b3b2a69ba87",
}
#: The names ``pulumi_policy.policy`` calls the conversion by (replaced by memoizing wrappers).
CONVERSION_NAMES = ("json_format", "deserialize_properties", "unknown_checking_proxy")
#: The servicer methods during which the memo exists.
SCOPED_METHODS = ("Analyze", "AnalyzeStack")
#: The servicer's helpers that build a resource's options and provider from its request, once per policy; memoized
#: per request like the conversion (the provider's properties are converted inside).
PER_REQUEST_METHODS = ("_get_resource_options", "_get_provider_resource")
#: Set to ``0`` in the server's environment to serve without the memo (and without the dispatch).
DISABLE_ENV = "OKE_RDMA_PACK_MEMO"
#: Set to ``0`` in the server's environment to keep the memo but call every resource policy for every resource.
DISPATCH_ENV = "OKE_RDMA_PACK_DISPATCH"
#: The servicer's (name-mangled) list of policies, which ``Analyze`` loops over.
POLICIES_FIELD = "_PolicyAnalyzerServicer__policies"
#: Where a servicer keeps its :class:`_Dispatch` (its own ``__dict__``).
DISPATCH_FIELD = "_oke_rdma_dispatch"

_local = threading.local()
#: One memo per wrapped callable: MessageToDict, deserialize_properties, unknown_checking_proxy, then the
#: :data:`PER_REQUEST_METHODS`.
_SLOTS = 3 + len(PER_REQUEST_METHODS)
#: The replaced objects (name → original) while installed; None otherwise.
_originals: Optional[dict[str, Any]] = None


def _lookup(dotted: str) -> Any:
    module, *attributes = dotted.split(".")
    found: Any = importlib.import_module(f"pulumi_policy.{module}")
    for attribute in attributes:
        found = getattr(found, attribute)
    return found


def internals_problems() -> list[str]:
    """Why the memo cannot be installed on the pulumi-policy in use: one line per difference from the pinned
    version and sources (empty when everything matches)."""
    from pulumi_policy.version import VERSION

    problems = [] if VERSION == PINNED_VERSION else [f"pulumi-policy is {VERSION}, not {PINNED_VERSION}"]
    for dotted, digest in PINNED_SOURCES.items():
        try:
            source = inspect.getsource(_lookup(dotted))
        except (AttributeError, ImportError, OSError, TypeError) as e:
            problems.append(f"pulumi_policy.{dotted} cannot be read ({type(e).__name__}: {e})")
            continue
        if hashlib.sha256(source.encode("utf-8")).hexdigest() != digest:
            problems.append(f"pulumi_policy.{dotted} differs from {PINNED_VERSION}'s")
    policy = importlib.import_module("pulumi_policy.policy")
    problems += [f"pulumi_policy.policy has no {name}" for name in CONVERSION_NAMES if not hasattr(policy, name)]
    return problems


def _memoized(function: Callable[..., Any], slot: int) -> Callable[..., Any]:
    """``function`` of one argument, remembered per argument object (in memo ``slot``) while a memo exists on this
    thread; any other call passes straight through (see the module docstring)."""
    @functools.wraps(function)
    def call(value: Any, *args: Any, **kwargs: Any) -> Any:
        memo = getattr(_local, "memo", None)
        if memo is None or args or kwargs:
            return function(value, *args, **kwargs)
        slot_memo = memo[slot]
        hit = slot_memo.get(id(value))
        if hit is None:
            hit = slot_memo[id(value)] = (value, function(value))  # holds value: its id stays unique meanwhile
        return hit[1]
    return call


def _memoized_method(method: Callable[..., Any], slot: int) -> Callable[..., Any]:
    """A servicer helper ``method(self, request)`` remembered per request object like :func:`_memoized`."""
    @functools.wraps(method)
    def call(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        memo = getattr(_local, "memo", None)
        if memo is None or args or kwargs:
            return method(self, request, *args, **kwargs)
        slot_memo = memo[slot]
        hit = slot_memo.get(id(request))
        if hit is None:
            hit = slot_memo[id(request)] = (request, method(self, request))
        return hit[1]
    return call


class _JsonFormat:
    """``google.protobuf.json_format`` as ``pulumi_policy.policy`` sees it: ``MessageToDict`` memoized."""

    def __init__(self, module: Any):
        self._module = module
        self.MessageToDict = _memoized(module.MessageToDict, 0)  # noqa: N815 - the protobuf name

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


def _one_conversion_per_call(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (``Analyze``/``AnalyzeStack``) with a fresh memo on its thread for the duration of the call."""
    @functools.wraps(method)
    def call(self: Any, request: Any, context: Any) -> Any:
        if getattr(_local, "memo", None) is not None:  # already inside a call on this thread
            return method(self, request, context)
        _local.memo = tuple({} for _ in range(_SLOTS))
        try:
            return method(self, request, context)
        finally:
            _local.memo = None
    return call


def _gate(policy: Any) -> Any:
    """The type gate that is ``policy``'s ``validate`` (``_gate.TypeGate`` of any pack's copy: the marker is on the
    class, so a wrapper made with ``functools.wraps`` never carries it), or None."""
    validate = vars(policy).get("validate")
    return validate if getattr(type(validate), "OKE_RDMA_TYPE_GATE", False) is True else None


class _Dispatch:
    """One servicer's policies sorted by resource type: for each type, the policies pulumi-policy's ``Analyze`` loop
    would do anything with — every resource policy whose ``validate`` is not a type gate (it runs on every resource),
    and those whose gate matches the type — in the pack's order. Left out: stack policies (the loop skips them with
    ``continue``) and resource policies whose gate refuses the type (their ``validate`` would return ``None`` before
    anything else: no report, no diagnostic). Computed once per type."""

    def __init__(self, policies: list) -> None:
        from pulumi_policy import ResourceValidationPolicy

        self.policies = policies
        self._resource = [(p, _gate(p)) for p in policies if isinstance(p, ResourceValidationPolicy)]
        self._by_type: dict[str, list] = {}

    def select(self, resource_type: str) -> list:
        found = self._by_type.get(resource_type)
        if found is None:
            found = self._by_type[resource_type] = [p for p, gate in self._resource
                                                    if gate is None or gate.matches(resource_type)]
        return found


def _converts(servicer: Any, policy: Any) -> bool:
    """Whether pulumi-policy's ``Analyze`` loop reaches the conversion for ``policy`` (an enabled resource policy
    with a ``validate``)."""
    from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

    return (isinstance(policy, ResourceValidationPolicy) and policy.has_validation()
            and servicer._get_enforcement_level(policy) != EnforcementLevel.DISABLED)


def _dispatched(method: Callable[..., Any]) -> Callable[..., Any]:
    """``Analyze`` looping over only the policies :class:`_Dispatch` selects for the request's type: pulumi-policy's
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
            dispatch = fields[DISPATCH_FIELD] = _Dispatch(policies)
        selected = dispatch.select(request.type)
        if len(selected) == len(policies):
            return method(self, request, context)
        if not any(_converts(self, p) for p in selected) and any(_converts(self, p) for p in policies):
            policy_module.unknown_checking_proxy(policy_module.deserialize_properties(
                policy_module.json_format.MessageToDict(request.properties)))
            self._get_resource_options(request)
            self._get_provider_resource(request)
        copy = object.__new__(type(self))
        copy.__dict__.update(fields)
        copy.__dict__[POLICIES_FIELD] = selected
        return method(copy, request, context)
    return call


#: The servicer's (name-mangled) fields :func:`_analyze_stack` reads, as pulumi-policy's ``AnalyzeStack`` does.
_PACK_NAME, _PACK_VERSION, _STACK_TAGS = ("_PolicyAnalyzerServicer__policy_pack_name",
                                          "_PolicyAnalyzerServicer__policy_pack_version",
                                          "_PolicyAnalyzerServicer__stack_tags")


def _stack_records(servicer: Any, request: Any) -> tuple[list[tuple], list[tuple]]:
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


def _policy_resources(records: tuple[list[tuple], list[tuple]]) -> list:
    """One stack policy's ``PolicyResource`` objects, fresh as pulumi-policy makes them for each policy (its own
    objects, lists and maps, linked to each other as it links them), from :func:`_stack_records`."""
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


def _analyze_stack(self: Any, request: Any, _context: Any) -> Any:
    """pulumi-policy 1.21.0's ``_PolicyAnalyzerServicer.AnalyzeStack`` (pinned by the hash of its source) with the
    resources read from the request once per call (:func:`_stack_records`, at the first stack policy that runs, where
    it read them first) instead of once per stack policy; each policy still gets its own ``PolicyResource`` objects
    (:func:`_policy_resources`). Everything else is its loop as written: levels, the ``report_violation`` closure,
    config, the call, and the "can't run" and not-applicable answers."""
    policy_module = importlib.import_module("pulumi_policy.policy")
    proto, level = policy_module.proto, policy_module.EnforcementLevel
    self._configure_runtime_settings()
    response = proto.AnalyzeResponse()
    fields = self.__dict__
    records = None
    for policy in fields[POLICIES_FIELD]:
        enforcement_level = self._get_enforcement_level(policy)
        if enforcement_level == level.DISABLED or not isinstance(policy, policy_module.StackValidationPolicy):
            continue
        if enforcement_level == level.REMEDIATE:
            enforcement_level = level.MANDATORY
        report_violation = self._create_report_violation(response, policy.name, policy.description,
                                                         enforcement_level, policy.severity)
        if records is None:
            records = _stack_records(self, request)
        resources = _policy_resources(records)
        config = self._get_policy_config(policy.name)
        args = policy_module.StackValidationArgs(resources, config, fields[_STACK_TAGS])
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


def install(dispatch: bool = True) -> bool:
    """Memoize the conversion in ``pulumi_policy.policy`` (idempotent). False, with nothing changed and one line on
    stderr, when the installed pulumi-policy is not the pinned one (:func:`internals_problems`)."""
    global _originals
    if _originals is not None:
        return True
    problems = internals_problems()
    if problems:
        print(f"oke-rdma policy pack: converting each resource once per policy, as pulumi-policy does "
              f"({'; '.join(problems)})", file=sys.stderr)
        return False
    policy = importlib.import_module("pulumi_policy.policy")
    servicer = policy._PolicyAnalyzerServicer
    originals = {name: getattr(policy, name) for name in CONVERSION_NAMES}
    originals.update({f"servicer.{name}": servicer.__dict__[name] for name in SCOPED_METHODS + PER_REQUEST_METHODS})
    policy.json_format = _JsonFormat(originals["json_format"])
    policy.deserialize_properties = _memoized(originals["deserialize_properties"], 1)
    policy.unknown_checking_proxy = _memoized(originals["unknown_checking_proxy"], 2)
    for slot, name in enumerate(PER_REQUEST_METHODS, start=3):
        setattr(servicer, name, _memoized_method(originals[f"servicer.{name}"], slot))
    for name in SCOPED_METHODS:
        method = originals[f"servicer.{name}"]
        if name == "Analyze" and dispatch:
            method = _dispatched(method)
        elif name == "AnalyzeStack" and dispatch:
            method = functools.wraps(method)(_analyze_stack)
        setattr(servicer, name, _one_conversion_per_call(method))
    _originals = originals
    return True


def uninstall() -> None:
    """Put back what :func:`install` replaced (idempotent)."""
    global _originals
    if _originals is None:
        return
    policy = importlib.import_module("pulumi_policy.policy")
    for name in CONVERSION_NAMES:
        setattr(policy, name, _originals[name])
    for name in SCOPED_METHODS + PER_REQUEST_METHODS:
        setattr(policy._PolicyAnalyzerServicer, name, _originals[f"servicer.{name}"])
    _originals = None


#: The collector's thresholds in a server (``gc.set_threshold``; CPython's defaults are 700, 10, 10). Converting a
#: 64-pool × 200-tenant stack for ``AnalyzeStack`` allocates over a million containers that live until the call
#: returns; at the defaults the collector walked them again and again (2.3 of 6.3 s of CPU, measured in-process
#: 2026-12-01). A young collection every 100 000 allocations still frees the cycles a call leaves behind.
GC_THRESHOLDS = (100_000, 20, 10)


def freeze_imports() -> None:
    """Collect once, move every object alive now (the imports') to the permanent generation (``gc.freeze``), and
    set :data:`GC_THRESHOLDS`: later collections walk only what the calls allocate, and rarely."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve(name: str, policies: list, enforcement_level: Any, description: str) -> None:
    """Start the pack's analyzer server (``pulumi_policy.PolicyPack``: serves, prints its port, blocks) with the
    conversion memoized (unless ``OKE_RDMA_PACK_MEMO=0``) and the imports frozen."""
    from pulumi_policy import PolicyPack

    if os.environ.get(DISABLE_ENV, "1") != "0":
        install(dispatch=os.environ.get(DISPATCH_ENV, "1") != "0")
    freeze_imports()
    PolicyPack(name=name, policies=policies, enforcement_level=enforcement_level, description=description)
