"""Gateway API routes publish their backends wherever the Gateway they attach to listens, so a route is judged by its
parents: ``routes-attach-to-declared-gateways`` (MANDATORY, stack).

A route — HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute (group ``gateway.networking.k8s.io`` or the
experimental ``gateway.networking.x-k8s.io``, any version, ``*Patch`` too), in any namespace — names its parents in
``spec.parentRefs``; each ``parentRef`` defaults to ``group: gateway.networking.k8s.io``, ``kind: Gateway`` and the
route's own namespace. A parent passes when it is

* a Gateway this stack declares (same namespace and name): ``no-public-endpoints`` judges its class;
* a ListenerSet (``ListenerSet``/``XListenerSet``) this stack declares whose ``spec.parentRef`` is such a Gateway
  (its listeners are served by that Gateway);
* a Service (``group: ""``, ``kind: Service``): GAMMA mesh routing of that Service's in-cluster traffic, never an
  entry from outside.

Any other parent — a Gateway this stack does not declare (another team's shared or public gateway, one made by
hand), a kind the pack does not know — cannot be judged and is refused (fail closed), as are unknown parent refs.
A route with no ``parentRefs`` attaches to nothing and passes.

Sources (checked 2026-12-02): Gateway API reference v1.3 (``ParentReference``: group default
``gateway.networking.k8s.io``, kind default ``Gateway``, namespace default the route's; routes HTTPRoute, GRPCRoute,
TLSRoute, TCPRoute, UDPRoute), GEP-1426 / "Service Mesh" (GAMMA: a Service as parent), GEP-1713 (ListenerSet,
``spec.parentRef``).
"""
from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _rules import UNKNOWN, elements, read

POLICY_NAME = "routes-attach-to-declared-gateways"
GROUPS = ("gateway.networking.k8s.io", "gateway.networking.x-k8s.io")
ROUTE_KINDS = frozenset({"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"})
LISTENER_SETS = frozenset({"ListenerSet", "XListenerSet"})


def _group_kind(resource_type: str) -> tuple[Any, Any]:
    """(API group, kind without ``Patch``) of a Gateway API resource type; (None, None) otherwise."""
    parts = resource_type.split(":")
    if len(parts) == 3 and parts[0] == "kubernetes" and parts[1].split("/")[0] in GROUPS:
        return parts[1].split("/")[0], parts[2].removesuffix("Patch")
    return None, None


def _key(props: Any) -> tuple[Any, Any]:
    return read(props, "metadata", "namespace", default="default"), read(props, "metadata", "name")


def parent_problem(ref: Any, home: Any, gateways: set, listener_sets: dict) -> Any:
    """Why one parentRef of a route in namespace ``home`` cannot be judged (None: it can, and passes)."""
    if ref is UNKNOWN:
        return "a parentRef is unknown during preview"
    group = read(ref, "group", default="gateway.networking.k8s.io")
    kind = read(ref, "kind", default="Gateway")
    name, ns = read(ref, "name"), read(ref, "namespace", default=home)
    if UNKNOWN in (group, kind, name, ns) or not isinstance(name, str) or not isinstance(ns, str):
        return "a parentRef has a group, kind, name or namespace unknown during preview"
    if group in ("", "core") and kind == "Service":
        return None  # GAMMA: mesh routing of the Service's in-cluster traffic
    if group in GROUPS and kind == "Gateway":
        if (ns, name) in gateways:
            return None
        return (f"attaches to Gateway {ns}/{name}, which this stack does not declare: where it listens (the "
                "internet?) cannot be judged; attach it to a Gateway of this stack with an internal class")
    if group in GROUPS and kind in LISTENER_SETS:
        parent = listener_sets.get((ns, name))
        if parent is None:
            return (f"attaches to {kind} {ns}/{name}, which this stack does not declare: the Gateway serving it "
                    "cannot be judged")
        if parent not in gateways:
            shown = "an unknown Gateway" if UNKNOWN in parent else f"Gateway {parent[0]}/{parent[1]}"
            return (f"attaches to {kind} {ns}/{name}, whose parent is {shown}, which this stack does not declare: "
                    "where it listens cannot be judged")
        return None
    return (f"attaches to a parent of kind {kind!r} in group {group!r}, which the pack cannot judge: only Gateways "
            "and ListenerSets of this stack and Services (mesh) are")


def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``routes-attach-to-declared-gateways``: see the module docstring."""
    resources = with_derived(args.resources)
    gateways: set = set()
    listener_sets: dict = {}
    routes = []
    for r in resources:
        group, kind = _group_kind(r.resource_type)
        if kind is None:
            continue
        if kind == "Gateway" and not r.resource_type.endswith("Patch"):
            gateways.add(_key(r.props))
        elif kind in LISTENER_SETS and not r.resource_type.endswith("Patch"):
            ref = read(r.props, "spec", "parentRef")
            ns = read(ref, "namespace", default=_key(r.props)[0])
            listener_sets[_key(r.props)] = (ns, read(ref, "name")) if read(
                ref, "kind", default="Gateway") == "Gateway" else (UNKNOWN, UNKNOWN)
        elif kind in ROUTE_KINDS:
            routes.append(r)
    for r in routes:
        home = _key(r.props)[0]
        refs = elements(read(r.props, "spec", "parentRefs"))
        found = ["has spec.parentRefs unknown during preview"] if refs is UNKNOWN else [
            f"parentRefs[{i}] {p}" for i, p in enumerate(parent_problem(ref, home, gateways, listener_sets)
                                                        for ref in refs) if p]
        if found:
            where = home if isinstance(home, str) else "(unknown)"
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' in namespace {where} "
                             f"{'; '.join(found)}.", getattr(r, "urn", None))


POLICIES = [StackValidationPolicy(
    name=POLICY_NAME,
    description=("A Gateway API route attaches only to Gateways (or ListenerSets) this stack declares, whose class "
                 "is judged, or to a Service (mesh): a route on an outside Gateway publishes its backends wherever "
                 "that Gateway listens."),
    validate=validate, enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.CRITICAL,
    remediation_steps=("Attach routes to a Gateway declared in this stack with a class listed in "
                       "internalIngressClasses, or to a Service for mesh routing. Source: Gateway API reference "
                       "(ParentReference)."),
    tags=["kubernetes", "network", "exposure"])]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    POLICY_NAME: "fails closed: unknown parentRefs, or an unknown group, kind, name or namespace of one, are "
                 "violations",
}
