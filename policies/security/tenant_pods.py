"""A tenant's pods, volumes and Services stay inside its walls: three stack rules on the objects of tenant namespaces
(``_pss.tenant_namespaces``: a GPU quota, a Kueue LocalQueue or the ``okerdma.io/tenant`` label).

| rule                                  | judges, in a tenant namespace                                           |
|---------------------------------------|-------------------------------------------------------------------------|
| tenant-pods-scheduled-by-the-platform | every pod spec (workloads, their ``*Patch`` and ``*List`` kinds, the     |
|                                       | job operators' resources, rendered objects): no ``nodeName`` (it skips   |
|                                       | the scheduler, Kueue's admission and every NoSchedule taint), no         |
|                                       | toleration of every taint (``operator: Exists`` without a key), no       |
|                                       | DaemonSet (one pod on every node: the system pool and every other        |
|                                       | tenant's dedicated nodes, outside Kueue); no node picked by name         |
|                                       | (per-node labels, ``matchFields``, pod affinity into other namespaces);  |
|                                       | a GPU pod (any extended resource, DRA claims, the GPU taint tolerated)  |
|                                       | may land only on its tenant's Kueue pools, computed from its            |
|                                       | nodeSelector and required node affinity against the pools the stack     |
|                                       | declares (``_tenant_pools``); unbounded (no pool label pinned, and not  |
|                                       | queued through Kueue) is refused                                        |
| tenant-volumes-through-claims         | no inline ``nfs`` volume in a pod spec (it mounts any export path with   |
|                                       | any UID the pod claims); no PersistentVolumeClaim whose ``volumeName``   |
|                                       | names a PersistentVolume of the stack reserved for another namespace's   |
|                                       | claim, or one without a ``claimRef`` (the first claim naming it binds);  |
|                                       | the same for the claims pods make from templates (generic ephemeral     |
|                                       | volumes, a StatefulSet's ``volumeClaimTemplates``)                      |
| tenant-services-inside-the-wall       | no NodePort or LoadBalancer Service with ``externalTrafficPolicy``       |
|                                       | Cluster (every node forwards to the tenant's pods with the node's       |
|                                       | identity, which the Cilium walls do not deny); no LoadBalancer whose    |
|                                       | backend does not see the client's address (OCI's flexible load          |
|                                       | balancer, a proxy; a network load balancer without                      |
|                                       | ``is-preserve-source: "true"``; another ``loadBalancerClass``): its     |
|                                       | connections carry the LB's 'world' identity; no ExternalName Service     |
|                                       | naming a name inside the cluster (the shared ingress controller, a      |
|                                       | platform pod the walls let through, then reaches another tenant)         |

Unknown values fail closed: an unknown namespace of a pod spec, unknown tolerations, volumes, ``volumeName``, type,
traffic policy or external name are violations.

Sources (checked 2026-12-02): Kubernetes docs "Assigning Pods to Nodes" (``nodeName`` bypasses the scheduler),
"Taints and Tolerations" (an empty key with ``Exists`` tolerates everything), "DaemonSet", "Volumes" (nfs), "Ephemeral Volumes" (generic
ephemeral volumes: a claim made from ``volumeClaimTemplate``), "StatefulSets" (``volumeClaimTemplates``), "Persistent
Volumes" (reserving a PersistentVolume: ``claimRef``; a claim's ``volumeName``), "Service" (NodePort, LoadBalancer,
``externalTrafficPolicy``, ExternalName), "DNS for Services and Pods" (``<svc>.<ns>``, ``.svc.cluster.local``);
Cilium docs "Kubernetes without kube-proxy" (SNAT of NodePort traffic with policy Cluster), "Policy Language"
(traffic from addresses outside the cluster's endpoints has the ``world`` entity); oracle/oci-cloud-controller-manager
``load_balancer_spec.go`` (``getPreserveSource``: source kept only for ``nlb`` with Local and the annotation true;
backends are the nodes' NodePorts) and its example ``external-traffic-policy-local.yml`` (with Local, nginx logs the
load balancer's addresses as the source); OCI docs "Load Balancer" (X-Forwarded-For); Kueue docs "Run Jobs".
"""
from __future__ import annotations

import ipaddress
from typing import Any, Callable

from pulumi_policy import (EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.security`
    from ._objects import with_derived
    from ._pod_templates import canonical_type, pod_specs
    from ._pss import tenant_namespaces
    from .public_endpoints import PARSEBOOL_TRUE
    from ._rules import UNKNOWN, elements, member, read
    from ._tenant_pools import (RUNTIME_KINDS, declared_pools, pool_problems, tenant_pools, trainer_kind,
                                trainjob_pool_problems)
else:  # run by the Pulumi CLI from inside policies/security/
    from _objects import with_derived
    from _pod_templates import canonical_type, pod_specs
    from _pss import tenant_namespaces
    from public_endpoints import PARSEBOOL_TRUE
    from _rules import UNKNOWN, elements, member, read
    from _tenant_pools import (RUNTIME_KINDS, declared_pools, pool_problems, tenant_pools, trainer_kind,
                               trainjob_pool_problems)

SCHEDULING, VOLUMES, SERVICES = ("tenant-pods-scheduled-by-the-platform", "tenant-volumes-through-claims",
                                 "tenant-services-inside-the-wall")
DAEMON_SETS = ("kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:DaemonSetPatch")
SERVICE_TYPES = ("kubernetes:core/v1:Service", "kubernetes:core/v1:ServicePatch")
PVC_TYPES = ("kubernetes:core/v1:PersistentVolumeClaim", "kubernetes:core/v1:PersistentVolumeClaimPatch")
PV = "kubernetes:core/v1:PersistentVolume"
STATEFUL_SETS = ("kubernetes:apps/v1:StatefulSet", "kubernetes:apps/v1:StatefulSetPatch")
NAMESPACE = "kubernetes:core/v1:Namespace"
#: Node label keys whose value names one node: Kubernetes' well-known ``kubernetes.io/hostname`` (docs "Well-Known
#: Labels, Annotations and Taints"), and ``hostname``, ``displayName``, ``internal_addr`` that OKE writes on its
#: nodes (not verified from a primary source on 2026-12-02; refusing them costs a tenant nothing).
PER_NODE_LABELS = frozenset({"kubernetes.io/hostname", "hostname", "displayName", "internal_addr"})
#: Suffixes a name resolves inside the cluster with (the cluster domain OKE sets is ``cluster.local``).
CLUSTER_SUFFIXES = (".svc", ".svc.cluster.local", ".cluster.local", ".svc.cluster.local.")


def _namespace(r: Any) -> Any:
    """The namespace of an object: its ``metadata.namespace`` (``default`` when absent), or — unknown — the name of
    the one Namespace of the stack it depends on; UNKNOWN otherwise."""
    ns = read(r.props, "metadata", "namespace", default="default")
    if ns is UNKNOWN:
        names = {read(d.props, "metadata", "name") for d in (getattr(r, "property_dependencies", {}) or {}).get(
            "metadata", []) if getattr(d, "resource_type", None) == NAMESPACE}
        return names.pop() if len(names) == 1 and isinstance(next(iter(names)), str) else UNKNOWN
    return ns


def _in_tenant(r: Any, tenants: set) -> Any:
    """The tenant namespace ``r`` is in, ``"<unknown>"`` for an unknown one (fail closed), None otherwise."""
    ns = _namespace(r)
    if ns is UNKNOWN:
        return "<unknown>"
    return ns if ns in tenants else None


def scheduling_problems(spec: Any) -> list[str]:
    """Why a tenant pod spec escapes the platform's scheduling: ``nodeName``, a toleration of every taint."""
    if spec is UNKNOWN:
        return ["its pod spec is unknown during preview"]
    found = []
    node = read(spec, "nodeName")
    if node is UNKNOWN or (isinstance(node, str) and node):
        found.append("sets nodeName (it skips the scheduler, Kueue's admission and every NoSchedule taint: the pod "
                     "lands on any node, another tenant's dedicated GPU node too)")
    found += node_pick_problems(spec)
    tolerations = elements(read(spec, "tolerations"))
    if tolerations is UNKNOWN:
        found.append("its tolerations are unknown during preview")
    else:
        for i, t in enumerate(tolerations):
            key, op = read(t, "key"), read(t, "operator")
            if UNKNOWN in (t, key, op) or (op == "Exists" and not key):
                found.append(f"tolerations[{i}] tolerates every taint (operator Exists without a key): the pod may "
                             "run on the system pool and on every other tenant's dedicated nodes")
    return found


def _terms(affinity: Any) -> list[tuple[str, Any]]:
    """(where, node selector term) of a node affinity, required and preferred; UNKNOWN parts as UNKNOWN terms."""
    out: list[tuple[str, Any]] = []
    required = read(affinity, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for i, term in enumerate(elements(required) if required is not UNKNOWN else [UNKNOWN]):
        out.append((f"nodeAffinity required term {i}", term))
    preferred = read(affinity, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, pref in enumerate(elements(preferred) if preferred is not UNKNOWN else [UNKNOWN]):
        out.append((f"nodeAffinity preferred term {i}", UNKNOWN if pref is UNKNOWN else read(pref, "preference")))
    return out


def node_pick_problems(spec: Any) -> list[str]:
    """Why a pod spec picks its node by name around the scheduler's choice: a ``nodeSelector`` or node affinity on a
    per-node label (:data:`PER_NODE_LABELS`), node affinity ``matchFields`` (``metadata.name``, the one field node
    selectors support), a pod affinity to pods of other namespaces (it follows them onto their node)."""
    found = []
    selector = read(spec, "nodeSelector")
    if selector is UNKNOWN:
        found.append("its nodeSelector is unknown during preview")
    elif isinstance(selector, dict) or hasattr(selector, "keys"):
        found += [f"nodeSelector {k} picks one node by name" for k in selector.keys() if k in PER_NODE_LABELS]
    affinity = read(spec, "affinity")
    if affinity is UNKNOWN:
        return found + ["its affinity is unknown during preview"]
    for where, term in _terms(read(affinity, "nodeAffinity")):
        if term is UNKNOWN:
            found.append(f"{where} is unknown during preview")
            continue
        exprs, fields = elements(read(term, "matchExpressions")), elements(read(term, "matchFields"))
        if exprs is UNKNOWN or fields is UNKNOWN:
            found.append(f"{where} is unknown during preview")
            continue
        found += [f"{where} matches node label {read(e, 'key')} (one node by name)" for e in exprs
                  if e is UNKNOWN or member(read(e, "key"), PER_NODE_LABELS) or read(e, "key") is UNKNOWN]
        found += [f"{where} matches node field {read(f, 'key')} (one node by name)" for f in fields]
    for kind in ("requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"):
        terms = read(affinity, "podAffinity", kind)
        for i, term in enumerate(elements(terms) if terms is not UNKNOWN else [UNKNOWN]):
            term = read(term, "podAffinityTerm") if kind.startswith("preferred") and term is not UNKNOWN else term
            if term is UNKNOWN or read(term, "namespaceSelector") is not None or elements(
                    read(term, "namespaces")) not in (None, []):
                found.append(f"podAffinity {kind.split('During')[0]} term {i} follows pods of other namespaces "
                             "onto their nodes")
    return found


def nfs_problems(spec: Any) -> list[str]:
    if spec is UNKNOWN:
        return ["its pod spec is unknown during preview"]
    volumes = elements(read(spec, "volumes"))
    if volumes is UNKNOWN:
        return ["its volumes are unknown during preview"]
    return [f"volumes[{i}] mounts NFS directly ({read(v, 'nfs', 'server')}:{read(v, 'nfs', 'path')}): any export "
            "path, as any UID the pod claims (AUTH_SYS); mount the tenant's own PersistentVolumeClaim"
            for i, v in enumerate(volumes) if v is UNKNOWN or read(v, "nfs") is not None]


def claim_problems(claim: Any, home: str, volumes: dict[str, Any]) -> list[str]:
    """Why a claim in ``home`` takes a PersistentVolume that is not reserved for it (``volumes``: the stack's PVs by
    name)."""
    return claim_spec_problems(read(claim.props, "spec"), read(claim.props, "metadata", "name"), home, volumes)


def claim_spec_problems(spec: Any, claim_name: Any, home: str, volumes: dict[str, Any]) -> list[str]:
    """Why a claim spec in ``home`` — a PersistentVolumeClaim's, a generic ephemeral volume's
    ``volumeClaimTemplate.spec`` or a StatefulSet's ``volumeClaimTemplates[].spec`` — names (``volumeName``) a
    PersistentVolume not reserved for it. ``claim_name`` None: the claim's name is made by Kubernetes
    (``<pod>-<volume>``, ``<template>-<set>-<ordinal>``), so only the reservation's namespace is compared."""
    name = UNKNOWN if spec is UNKNOWN else read(spec, "volumeName")
    if name is None or name == "":
        return []
    if name is UNKNOWN:
        return ["its spec.volumeName is unknown during preview: it may take another tenant's PersistentVolume"]
    pv = volumes.get(name)
    if pv is None:
        return [f"names PersistentVolume {name!r} in spec.volumeName, which this stack does not declare: whose data "
                "it holds cannot be known; let the StorageClass provision the claim's volume"]
    ref = read(pv.props, "spec", "claimRef")
    ref_ns, ref_name = read(ref, "namespace"), read(ref, "name")
    if ref is None:
        return [f"names PersistentVolume {name!r}, which carries no claimRef: the first claim naming it binds it, "
                "whosever namespace it is in; reserve the volume with spec.claimRef"]
    if ref_ns != home or (isinstance(claim_name, str) and ref_name not in (None, claim_name)):
        return [f"names PersistentVolume {name!r}, reserved for claim {ref_ns}/{ref_name}: another namespace's data"]
    return []


def template_claims(resource_type: str, props: Any) -> list[tuple[str, Any]]:
    """(where, claim spec) of the claims a workload makes from templates: every pod spec's generic ephemeral volumes
    (``volumes[].ephemeral.volumeClaimTemplate.spec``; Kubernetes docs "Ephemeral Volumes") and a StatefulSet's
    ``volumeClaimTemplates[].spec`` (docs "StatefulSets"). Unknown volumes or templates come back as UNKNOWN specs."""
    out: list[tuple[str, Any]] = []
    for where, spec in pod_specs(resource_type, props):
        volumes = UNKNOWN if spec is UNKNOWN else elements(read(spec, "volumes"))
        for i, v in enumerate(volumes if volumes is not UNKNOWN else [UNKNOWN]):
            eph = UNKNOWN if v is UNKNOWN else read(v, "ephemeral")
            if eph is not None:
                out.append((f"{where + ': ' if where else ''}volumes[{i}].ephemeral.volumeClaimTemplate",
                            UNKNOWN if eph is UNKNOWN else read(eph, "volumeClaimTemplate", "spec")))
    if canonical_type(resource_type) in STATEFUL_SETS:
        templates = elements(read(props, "spec", "volumeClaimTemplates"))
        for i, t in enumerate(templates if templates is not UNKNOWN else [UNKNOWN]):
            out.append((f"spec.volumeClaimTemplates[{i}]", UNKNOWN if t is UNKNOWN else read(t, "spec")))
    return out


def _cluster_name(name: Any, namespaces: set, home: str) -> bool:
    if not isinstance(name, str):
        return True
    host = name.rstrip(".").lower()
    try:
        ipaddress.ip_address(host)
        return True  # an address: a pod's or a Service's inside the cluster as well as outside
    except ValueError:
        pass
    labels = host.split(".")
    if any((host + ".").endswith(s if s.endswith(".") else s + ".") for s in CLUSTER_SUFFIXES):
        return True
    return len(labels) == 1 or (len(labels) == 2 and labels[1] in namespaces and labels[1] != home)


#: oci-cloud-controller-manager's annotations (``pkg/cloudprovider/providers/oci/load_balancer_spec.go``
#: ``getPreserveSource``, ``getPreserveSourceAnnotation``; read 2026-12-02): the load balancer type, and whether a
#: network load balancer keeps the client's address (only for type ``nlb`` with ``externalTrafficPolicy: Local``,
#: parsed with Go ``strconv.ParseBool``: ``public_endpoints.PARSEBOOL_TRUE``).
LB_TYPE = "oci.oraclecloud.com/load-balancer-type"
PRESERVE_SOURCE = "oci-network-load-balancer.oraclecloud.com/is-preserve-source"
#: Why a proxy's backend connection passes the walls (the message's common part).
_PROXY = ("its backend connections come from the load balancer's own address, a 'world' identity the Cilium walls "
          "(which deny other tenants' namespaces) never match, so every other tenant's pod reaches this tenant's pods "
          "through the load balancer's VCN address")
_FIX = (f"use ClusterIP, or a network load balancer that keeps the client's address ({LB_TYPE}: nlb, "
        f"{PRESERVE_SOURCE}: \"true\", externalTrafficPolicy: Local)")


def load_balancer_problems(props: Any, spec: Any) -> list[str]:
    """Why a tenant's LoadBalancer Service (``externalTrafficPolicy: Local``) lets other tenants past the walls: the
    backend must see the client pod's own address, or the walls cannot tell one tenant from another. OCI's flexible
    load balancer (the cloud controller's default type ``lb``) is a proxy — the backend connection comes from the load
    balancer's private IP (the client's only in ``X-Forwarded-For`` over HTTP) — and a network load balancer keeps the
    client's address only with ``is-preserve-source`` true; ``loadBalancerSourceRanges`` and NSG annotations only add
    allow rules to what the load balancer subnet's own security lists admit (OCI unions them), so they prove nothing.
    Another ``loadBalancerClass`` hands the Service to a controller whose data path is not known. Unknown values
    fail closed; the preserve-source annotation must be written (not left to the controller's default)."""
    annotations = read(props, "metadata", "annotations", default={})
    if read(spec, "loadBalancerClass") not in (None, "") or annotations is UNKNOWN:
        what = ("hands its load balancer to another controller (loadBalancerClass)" if annotations is not UNKNOWN
                else "has annotations unknown during preview")
        return [f"is a LoadBalancer Service that {what}: whether its backend sees the client's address cannot be "
                f"told, and a proxy's backend connections pass the Cilium walls; {_FIX}"]
    lb_type = read(annotations, LB_TYPE, default="lb")
    if lb_type != "nlb":
        shown = "unknown" if lb_type is UNKNOWN else repr(lb_type)
        return [f"is a LoadBalancer Service of OCI load balancer type {shown} (the flexible load balancer, a proxy): "
                f"{_PROXY}, whatever its loadBalancerSourceRanges or NSGs; {_FIX}"]
    keep = read(annotations, PRESERVE_SOURCE, default=None)
    if not (isinstance(keep, str) and keep in PARSEBOOL_TRUE):
        shown = "unset" if keep is None else "unknown" if keep is UNKNOWN else repr(keep)
        return [f"is a network LoadBalancer Service with {PRESERVE_SOURCE} {shown}: without source preservation "
                f"{_PROXY}; {_FIX}"]
    return []


def service_problems(svc: Any, namespaces: set, home: str) -> list[str]:
    spec = read(svc.props, "spec")
    if spec is UNKNOWN:
        return ["its spec is unknown during preview"]
    kind = read(spec, "type", default="ClusterIP")
    if kind is UNKNOWN:
        return ["its type is unknown during preview"]
    if kind in ("NodePort", "LoadBalancer"):
        policy = read(spec, "externalTrafficPolicy", default="Cluster")
        if policy != "Local":
            return [f"is a {kind} Service with externalTrafficPolicy {policy if policy is not UNKNOWN else 'unknown'}"
                    ": every node forwards to the tenant's pods with the node's own identity, which the Cilium walls "
                    "do not deny, so other tenants' pods reach them through <node>:<nodePort>; use ClusterIP, or "
                    "externalTrafficPolicy: Local"]
        if kind == "LoadBalancer":
            return load_balancer_problems(svc.props, spec)
    if kind == "ExternalName":
        target = read(spec, "externalName")
        if _cluster_name(target, namespaces, home):
            return [f"is an ExternalName Service naming {target if isinstance(target, str) else 'an unknown name'}, "
                    "a name inside the cluster: the shared ingress controller (a platform pod the walls let through) "
                    "then carries the tenant's traffic into another namespace; name an address outside the cluster"]
    return []


def _judge(args: StackValidationArgs, report_violation: ReportViolation,
           check: Callable[[Any, str, set, list], list[str]]) -> None:
    resources = with_derived(args.resources)
    tenants = tenant_namespaces(resources)
    if not tenants:
        return
    namespaces = {read(r.props, "metadata", "name") for r in resources if r.resource_type == NAMESPACE}
    namespaces = {n for n in namespaces if isinstance(n, str)} | tenants
    for r in resources:
        home = _in_tenant(r, tenants)
        if home is None:
            continue
        found = check(r, home, namespaces, resources)
        if found:
            report_violation(f"{r.resource_type.split(':')[-1]} '{r.name}' in tenant namespace {home!r} "
                             f"{'; '.join(found)}.", getattr(r, "urn", None))


def _scheduling(r: Any, home: str, namespaces: set, resources: list) -> list[str]:
    found = []
    if canonical_type(r.resource_type) in DAEMON_SETS:
        found.append("is a DaemonSet: one pod on every node it tolerates — the system pool and other tenants' "
                     "nodes —, never admitted by Kueue; run the work as a Job through the tenant's LocalQueue")
    judged, pools, declared = _POOLS[0]
    if judged is not resources:
        pools, declared = tenant_pools(resources), declared_pools(resources)
        _POOLS[0] = (resources, pools, declared)
    trainer = trainer_kind(r.resource_type)
    specs = pod_specs(r.resource_type, r.props)
    for where, spec in specs:
        found += [f"{where + ': ' if where else ''}{p}" for p in scheduling_problems(spec) + pool_problems(
            spec, home, pools, declared, r.props, template=trainer in RUNTIME_KINDS)]
    if trainer == "TrainJob":  # its pods are its runtime's, placed as the TrainJob is queued
        found += trainjob_pool_problems(r, home, pools, declared, resources, specs, pod_specs)
    return found


#: (the resources list last judged, its tenant pools, its declared node pools): one derivation per stack
_POOLS: list = [(None, {}, [])]


def _volumes(r: Any, home: str, namespaces: set, resources: list) -> list[str]:
    found = []
    for where, spec in pod_specs(r.resource_type, r.props):
        found += [f"{where + ': ' if where else ''}{p}" for p in nfs_problems(spec)]
    if r.resource_type in PVC_TYPES:
        volumes = {read(v.props, "metadata", "name"): v for v in resources if v.resource_type == PV}
        found += claim_problems(r, home, volumes)
    templates = template_claims(r.resource_type, r.props)
    if templates:
        volumes = {read(v.props, "metadata", "name"): v for v in resources if v.resource_type == PV}
        found += [f"{where} {p}" for where, spec in templates for p in claim_spec_problems(spec, None, home, volumes)]
    return found


def _services(r: Any, home: str, namespaces: set, resources: list) -> list[str]:
    return service_problems(r, namespaces, home) if r.resource_type in SERVICE_TYPES else []


def _policy(name: str, description: str, check: Callable, remediation: str) -> StackValidationPolicy:
    return StackValidationPolicy(
        name=name, description=description,
        validate=lambda args, report: _judge(args, report, check),
        enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.HIGH,
        remediation_steps=remediation + " Source: docs/tenants.md; Kubernetes docs (see the module docstring).",
        tags=["kubernetes", "tenancy", "isolation"])


POLICIES = [
    _policy(SCHEDULING, ("A tenant's pods are placed by the scheduler and Kueue: no nodeName, no toleration of every "
                         "taint, no DaemonSet in a tenant namespace."), _scheduling,
            "Submit Jobs through the tenant's LocalQueue; tolerate only the taints of the tenant's own pools."),
    _policy(VOLUMES, ("A tenant's pods mount storage through claims: no inline nfs volume, no claim naming a "
                      "PersistentVolume reserved for another namespace or not reserved at all."), _volumes,
            "Mount the tenant's PersistentVolumeClaim (tenants.<t>.storage); reserve static volumes with claimRef."),
    _policy(SERVICES, ("A tenant's Services stay inside its wall: no NodePort or LoadBalancer with "
                       "externalTrafficPolicy Cluster, no LoadBalancer whose backend connections come from the load "
                       "balancer's address (a proxy), no ExternalName naming a name inside the cluster."), _services,
            "Use ClusterIP Services; expose a tenant's endpoint through a network load balancer that keeps the "
            "client's address (oci.oraclecloud.com/load-balancer-type: nlb, "
            "oci-network-load-balancer.oraclecloud.com/is-preserve-source: \"true\", externalTrafficPolicy: Local)."),
]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    SCHEDULING: "fails closed: an unknown pod spec, nodeName or toleration, or an unknown namespace, is a violation",
    VOLUMES: "fails closed: unknown volumes and an unknown volumeName are violations",
    SERVICES: ("fails closed: an unknown spec, type, traffic policy, load-balancer annotations or external name is a "
               "violation"),
}
