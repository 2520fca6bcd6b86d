"""The engine's side of an analyzer conversation: the requests the Pulumi engine sends a policy pack's analyzer server
for the registrations of a preview (``Analyze`` per resource, ``AnalyzeStack`` once), as :mod:`offline.analyzer`
sends them. A registration's properties are marshalled as the engine marshals them for analyzers: top-level ``__``
keys skipped, unknowns and secrets kept (pulumi/pulumi ``pkg/resource/plugin/analyzer_plugin.go``, read 2026-11-30).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from offline.policy_types import EngineResource, analyzed_inputs


def _struct(values: Mapping[str, Any]) -> Any:
    from google.protobuf import struct_pb2

    struct = struct_pb2.Struct()
    struct.update(dict(values))
    return struct


def _engine_props(wire: Mapping[str, Any]) -> Any:
    """A registration's properties as the engine marshals them for analyzers: top-level ``__`` keys skipped
    (``SkipInternalKeys``), unknowns and secrets kept (``KeepUnknowns``/``KeepSecrets``)."""
    return _struct({k: v for k, v in wire.items() if not k.startswith("__")})


def _options(r: EngineResource) -> Any:
    from pulumi.runtime.proto import analyzer_pb2

    return analyzer_pb2.AnalyzerResourceOptions(
        protect=r.protect, ignoreChanges=list(r.ignore_changes),
        deleteBeforeReplace=bool(r.delete_before_replace),
        deleteBeforeReplaceDefined=r.delete_before_replace is not None,
        additionalSecretOutputs=list(r.additional_secret_outputs), aliases=list(r.aliases), parent=r.parent or "")


def _provider(r: EngineResource, by_urn: Mapping[str, EngineResource],
              cache: Optional[dict[str, tuple[EngineResource, Any]]] = None) -> Any:
    """The ``AnalyzerProviderResource`` of a registration's provider reference (``<urn>::<id>``), or None.

    ``cache`` (provider URN → (its registration, the message)) keeps the message of a known provider for the next
    registration using it (a thousand Kubernetes objects name one provider), as long as ``by_urn`` still holds that
    same registration; the caller copies the message into its request (``CopyFrom``) and never changes it."""
    from pulumi.runtime.proto import analyzer_pb2

    if not r.provider:
        return None
    urn = r.provider.rsplit("::", 1)[0] if r.provider.count("::") > 3 else r.provider
    known = by_urn.get(urn)
    if known is not None:
        cached = cache.get(urn) if cache is not None else None
        if cached is not None and cached[0] is known:
            return cached[1]
        message = analyzer_pb2.AnalyzerProviderResource(type=known.type, properties=_engine_props(known.inputs),
                                                        urn=known.urn, name=known.name)
        if cache is not None:
            cache[urn] = (known, message)
        return message
    parts = urn.split("::")
    return analyzer_pb2.AnalyzerProviderResource(type=parts[2].split("$")[-1] if len(parts) > 3 else "",
                                                 properties=_struct({}), urn=urn,
                                                 name=parts[-1] if len(parts) > 3 else urn)


def analyze_request(r: EngineResource, by_urn: Mapping[str, EngineResource],
                    providers: Optional[dict[str, tuple[EngineResource, Any]]] = None) -> Any:
    """The ``AnalyzeRequest`` of one registration: its inputs, options and provider (looked up in ``by_urn``;
    ``providers``: a cache of provider messages kept across calls, see :func:`_provider`)."""
    from pulumi.runtime.proto import analyzer_pb2

    request = analyzer_pb2.AnalyzeRequest(type=r.type, properties=_engine_props(analyzed_inputs(r)), urn=r.urn,
                                          name=r.name, options=_options(r))
    provider = _provider(r, by_urn, providers)
    if provider is not None:
        request.provider.CopyFrom(provider)
    return request


def _stack_resource(r: EngineResource, by_urn: Mapping[str, EngineResource],
                    providers: dict[str, tuple[EngineResource, Any]]) -> Any:
    """One resource of the ``AnalyzeStackRequest``: its outputs, options, provider, parent and dependencies."""
    from pulumi.runtime.proto import analyzer_pb2

    item = analyzer_pb2.AnalyzerResource(
        type=r.type, properties=_engine_props(r.outputs), urn=r.urn, name=r.name, options=_options(r),
        parent=r.parent or "", dependencies=list(r.dependencies),
        propertyDependencies={k: analyzer_pb2.AnalyzerPropertyDependencies(urns=list(v))
                              for k, v in r.property_dependencies.items()})
    provider = _provider(r, by_urn, providers)
    if provider is not None:
        item.provider.CopyFrom(provider)
    return item


def stack_request(resources: Sequence[EngineResource], by_urn: Mapping[str, EngineResource]) -> Any:
    """The ``AnalyzeStackRequest``: every resource's outputs, options, provider, parent and dependencies."""
    from pulumi.runtime.proto import analyzer_pb2

    request = analyzer_pb2.AnalyzeStackRequest()
    providers: dict[str, tuple[EngineResource, Any]] = {}
    for r in resources:
        request.resources.append(_stack_resource(r, by_urn, providers))
    return request


def stack_request_bytes(resources: Sequence[EngineResource], by_urn: Mapping[str, EngineResource]) -> bytes:
    """:func:`stack_request` serialized (what gRPC sends), built one resource at a time: the request has one field,
    ``repeated AnalyzerResource resources = 1`` (``analyzer.proto``), so it is each resource's message preceded by
    its tag and length. The whole request as a message held every resource's outputs a second time (about 50 MB
    for the 64-pool × 200-tenant benchmark stack, 17 MB serialized), and each pack's call serialized it again."""
    from pulumi.runtime.proto import analyzer_pb2

    if analyzer_pb2.AnalyzeStackRequest.DESCRIPTOR.fields_by_number[1].name != "resources" or len(
            analyzer_pb2.AnalyzeStackRequest.DESCRIPTOR.fields) != 1:  # a later proto: the message's own encoding
        return stack_request(resources, by_urn).SerializeToString()
    providers: dict[str, tuple[EngineResource, Any]] = {}
    parts: list[bytes] = []
    for r in resources:
        # a request holding this one resource serializes to its field-1 record: the bytes the whole request has for
        # it (appended the same way, so its maps are written in the same order: a rule reading a map's keys in
        # order sees what it saw; a resource serialized on its own wrote them in another order)
        one = analyzer_pb2.AnalyzeStackRequest()
        one.resources.append(_stack_resource(r, by_urn, providers))
        parts.append(one.SerializeToString())
    return b"".join(parts)
