"""A tenant's objects point only inside its own namespace: ``tenant-references-inside-the-wall`` (MANDATORY, stack).

The Cilium walls deny pod-to-pod traffic between tenants, but a shared proxy — the platform's Gateway or ingress
controller, which the walls let through — carries traffic wherever a route names. So, in a tenant namespace
(``_pss.tenant_namespaces``), every object kind that names a backend by namespace or by address is judged:

| kind (Gateway API group ``gateway.networking.k8s.io``, any version)   | refused                                     |
|-----------------------------------------------------------------------|---------------------------------------------|
| HTTPRoute, GRPCRoute, TCPRoute, TLSRoute, UDPRoute                    | a ``backendRefs[].namespace`` (rules, and   |
|                                                                       | ``requestMirror.backendRef`` filters) other |
|                                                                       | than the route's own                        |
| Gateway                                                               | ``certificateRefs``/``backendTLS`` naming   |
|                                                                       | another namespace                           |
| Endpoints, EndpointSlice (declared by hand)                           | always: addresses name any pod, another     |
|                                                                       | tenant's too, behind this tenant's Service  |

A ReferenceGrant is the target namespace's consent and is not refused by itself: every route that would use one from
a tenant namespace is (here at deploy time, by the guard's ``tenant-routes`` policy at admission). Ingress backends name a Service of the Ingress's own namespace only (no namespace field), and ExternalName Services
are judged by ``tenant-services-inside-the-wall``. Fail closed: unknown references or namespaces are violations.

Sources (checked 2026-12-02): Gateway API reference v1.3 (``BackendObjectReference.namespace``, ``ReferenceGrant``
``HTTPRequestMirrorFilter``, ``GatewayTLSConfig.certificateRefs``; routes GRPCRoute, TCPRoute,
TLSRoute, UDPRoute); Kubernetes docs "Service" (Services without selectors, manual EndpointSlices) and
CVE-2021-25740 (Endpoints written by hand forward a Service to another namespace's pods).
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._pss import tenant_namespaces
    from ._rules import UNKNOWN, elements, read
    from .tenant_pods import _in_tenant
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pss import tenant_namespaces
    from _rules import UNKNOWN, elements, read
    from tenant_pods import _in_tenant

POLICY_NAME = "tenant-references-inside-the-wall"
GATEWAY_GROUP = "gateway.networking.k8s.io"
ROUTE_KINDS = frozenset({"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute"})
ENDPOINT_TYPES = frozenset({"kubernetes:core/v1:Endpoints", "kubernetes:core/v1:EndpointsPatch",
                            "kubernetes:core/v1:EndpointsList", "kubernetes:discovery.k8s.io/v1:EndpointSlice",
                            "kubernetes:discovery.k8s.io/v1:EndpointSlicePatch",
                            "kubernetes:discovery.k8s.io/v1:EndpointSliceList"})


def _kind(resource_type: str) -> Any:
    """The kind of a Gateway API resource type, None otherwise."""
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[0] == "kubernetes" and parts[1].split("/")[0] == GATEWAY_GROUP:
        return parts[2].removesuffix("Patch")
    return None


def _refs(node: Any, where: str) -> list[tuple[str, Any]]:
    """(where, ref) of the backend refs under a route rule or a backend ref's filters (mirrors)."""
    out = []
    for i, f in enumerate(elements(read(node, "filters")) or []):
        mirror = UNKNOWN if f is UNKNOWN else read(f, "requestMirror", "backendRef")
        if mirror is not None:
            out.append((f"{where}.filters[{i}].requestMirror.backendRef", mirror))
    return out


def route_refs(spec: Any) -> list[tuple[str, Any]]:
    rules = elements(read(spec, "rules"))
    if rules is UNKNOWN:
        return [("spec.rules", UNKNOWN)]
    out = []
    for i, rule in enumerate(rules or []):
        backends = elements(read(rule, "backendRefs"))
        for j, b in enumerate(backends if backends is not UNKNOWN else [UNKNOWN]):
            out.append((f"rules[{i}].backendRefs[{j}]", b))
            out += _refs(b, f"rules[{i}].backendRefs[{j}]") if b is not UNKNOWN else []
        out += _refs(rule, f"rules[{i}]")
    return out


def problems(r: Any, home: str) -> list[str]:
    if r.resource_type in ENDPOINT_TYPES:
        return ["declares endpoints by address: they put any pod — another tenant's too — behind this tenant's "
                "Service, where the shared gateway forwards; use a Service with a selector"]
    kind = _kind(r.resource_type)
    spec = read(r.props, "spec")
    found = []
    if kind in ROUTE_KINDS:
        for where, ref in route_refs(spec):
            ns = UNKNOWN if ref is UNKNOWN else read(ref, "namespace")
            if ns is UNKNOWN or (ns is not None and ns != home):
                found.append(f"{where} names a backend in namespace {ns if isinstance(ns, str) else '(unknown)'}: "
                             "the shared gateway then carries this tenant's traffic past the Cilium wall")
    elif kind == "Gateway":
        listeners = elements(read(spec, "listeners"))
        for i, listener in enumerate(listeners if listeners is not UNKNOWN else [UNKNOWN]):
            certs = UNKNOWN if listener is UNKNOWN else elements(read(listener, "tls", "certificateRefs"))
            for j, c in enumerate(certs if certs is not UNKNOWN else [UNKNOWN]):
                ns = UNKNOWN if c is UNKNOWN else read(c, "namespace")
                if ns is UNKNOWN or (ns is not None and ns != home):
                    found.append(f"listeners[{i}].tls.certificateRefs[{j}] names namespace "
                                 f"{ns if isinstance(ns, str) else '(unknown)'}")
    return found


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``tenant-references-inside-the-wall``: see the module docstring."""
    resources = with_derived(args.resources)
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    for r in resources:
        home = _in_tenant(r, tenants)
        if home is None:
            continue
        found = problems(r, home)
        if found:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' in tenant namespace {home!r} "
                             f"{'; '.join(found)}.", getattr(r, "urn", None))


POLICIES = [StackValidationPolicy(
    name=POLICY_NAME,
    description=("A tenant's routes, gateways and endpoints name only its own namespace: no backendRefs into "
                 "another namespace, no endpoints by address."),
    validate=validate, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
    remediation_steps=("Route to Services of the tenant's own namespace; let tenants that must talk do so through "
                       "network.allowFrom. Source: Gateway API reference; docs/tenants.md."),
    tags=["kubernetes", "tenancy", "isolation"])]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: unknown rules, backend refs, certificate refs or namespaces are "
                 "violations",
}
