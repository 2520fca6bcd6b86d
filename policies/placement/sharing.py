"""GPU sharing by trust: a dedicated tenant's Kueue ClusterQueue never covers a shared (time-sliced or MIG) pool.

The rule follows the objects the engine sees, never the program's config:

* a ``kueue.x-k8s.io`` ``ClusterQueue`` admits the namespaces its ``spec.namespaceSelector`` selects; a namespace is
  *dedicated* unless its label ``okerdma.io/isolation`` is ``shared`` (secure by default: an unlabelled namespace
  counts as dedicated);
* each flavor of its ``spec.resourceGroups`` is a ``ResourceFlavor`` whose ``spec.nodeLabels`` select nodes; the
  pool it selects is the OCI node pool whose initial node label ``okerdma.io/node-pool`` matches;
* a node pool is *shared* when its initial node label ``okerdma.io/gpu-sharing`` is ``time-slicing`` or ``mig``.

Violation: a ClusterQueue that may admit a dedicated namespace and has a flavor that may land on a shared pool. Fail
closed: a namespace selector other than one ``kubernetes.io/metadata.name`` (it may select any namespace), a flavor
that does not pin ``okerdma.io/node-pool`` while a shared pool exists, a flavor not in the stack, or any of these
values unknown during preview count as "may".

Sources (checked 2026-11-30): Kueue docs "Cluster Queue" (``namespaceSelector``, ``resourceGroups.flavors``) and
"Resource Flavor" (``nodeLabels`` added to admitted pods' node selectors); Kubernetes docs "Namespaces" (the
``kubernetes.io/metadata.name`` label); NVIDIA GPU Operator docs "Time-Slicing GPUs in Kubernetes" (time-sliced
GPUs offer no memory or fault isolation between pods).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:
    from ._rules import NODE_POOL, UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/placement/
    from _rules import NODE_POOL, UNKNOWN, elements, read

NAMESPACE = "kubernetes:core/v1:Namespace"
KUEUE_GROUP = "kubernetes:kueue.x-k8s.io/"
POOL_LABEL = "okerdma.io/node-pool"
SHARING_LABEL = "okerdma.io/gpu-sharing"
ISOLATION_LABEL = "okerdma.io/isolation"
NAME_LABEL = "kubernetes.io/metadata.name"
SHARED_MODES = ("time-slicing", "mig")


def _kind(resource: Any, kind: str) -> bool:
    return resource.resource_type.startswith(KUEUE_GROUP) and resource.resource_type.endswith(f":{kind}")


def _labels(pool: Any) -> Any:
    """A node pool's initial node labels as a dict; UNKNOWN when any key or value is unknown."""
    out: dict[str, Any] = {}
    items = elements(read(pool.props, "initialNodeLabels"))
    if items is UNKNOWN:
        return UNKNOWN
    for item in items:
        key, value = read(item, "key"), read(item, "value")
        if key is UNKNOWN or value is UNKNOWN:
            return UNKNOWN
        out[key] = value
    return out


def shared_pools(resources: list[Any]) -> dict[str, Any]:
    """Pool label value → True (shared), False (exclusive or no GPU sharing label) or UNKNOWN, per node pool."""
    out: dict[str, Any] = {}
    for pool in resources:
        if pool.resource_type != NODE_POOL:
            continue
        labels = _labels(pool)
        if labels is UNKNOWN:
            out[f"<{pool.name}>"] = UNKNOWN
            continue
        name = labels.get(POOL_LABEL, f"<{pool.name}>")
        out[name] = labels.get(SHARING_LABEL) in SHARED_MODES
    return out


def _dedicated_namespaces(cq: Any, namespaces: dict[str, Any]) -> Optional[str]:
    """Why ClusterQueue ``cq`` may admit a dedicated namespace (None: it admits shared namespaces only)."""
    selector = read(cq.props, "spec", "namespaceSelector")
    if selector is UNKNOWN:
        return "its namespaceSelector is unknown during preview"
    if selector is None or read(selector, "matchExpressions"):
        return "its namespaceSelector may select any namespace"
    match = read(selector, "matchLabels", default={})
    name = read(selector, "matchLabels", NAME_LABEL)
    if match is UNKNOWN or name is UNKNOWN:
        return "its namespaceSelector is unknown during preview"
    if name is None or len(match) != 1:
        return "its namespaceSelector does not pin one namespace by kubernetes.io/metadata.name"
    ns = namespaces.get(name)
    isolation = UNKNOWN if ns is UNKNOWN else read(ns, "metadata", "labels", ISOLATION_LABEL) if ns else None
    if isolation is UNKNOWN:
        return f"namespace '{name}' has an isolation label unknown during preview"
    if isolation != "shared":
        return f"namespace '{name}' is dedicated ({ISOLATION_LABEL}: {isolation or 'unset'})"
    return None


@dataclass(frozen=True)
class _Pools:
    """The stack's node pools as the flavor check reads them, computed once per stack (not per flavor): the
    sharing of each pool label value, whether any pool is or may be shared, and whether a pool without a readable
    label may be shared."""

    sharing: dict[str, Any]
    any_shared: bool
    unlabelled_unknown: bool

    @classmethod
    def of(cls, pools: dict[str, Any]) -> "_Pools":
        return cls(pools, any(v is True or v is UNKNOWN for v in pools.values()),
                   any(v is UNKNOWN for k, v in pools.items() if k.startswith("<")))


def _shared_flavor(flavor: str, flavors: dict[str, Any], pools: _Pools) -> Optional[str]:
    """Why flavor ``flavor`` may land on a shared pool (None: it does not). Constant time per flavor."""
    any_shared = pools.any_shared
    rf = flavors.get(flavor)
    if rf is None:
        return f"flavor '{flavor}' is not in the stack" if any_shared else None
    pool = read(rf, "spec", "nodeLabels", POOL_LABEL)
    if pool is UNKNOWN:
        return f"flavor '{flavor}' selects a pool unknown during preview"
    if pool is None:
        return f"flavor '{flavor}' does not pin {POOL_LABEL} and the stack has shared pools" if any_shared else None
    shared = pools.sharing.get(pool, False)
    if shared is UNKNOWN or pools.unlabelled_unknown:
        return f"flavor '{flavor}' selects pool '{pool}', whose GPU sharing is unknown during preview"
    return f"flavor '{flavor}' selects pool '{pool}', whose GPUs are shared" if shared else None


def validate_dedicated_not_on_shared(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``dedicated-tenant-not-on-shared-pool`` (see the module docstring). Linear in the stack's
    resources plus the ClusterQueues' flavors: the namespaces, flavors and pools are indexed once."""
    namespaces: dict[str, Any] = {}
    for r in args.resources:
        if r.resource_type == NAMESPACE:
            name = read(r.props, "metadata", "name")
            if isinstance(name, str):
                namespaces[name] = r.props
    flavors: dict[str, Any] = {}
    for r in args.resources:
        if _kind(r, "ResourceFlavor"):
            name = read(r.props, "metadata", "name")
            if isinstance(name, str):
                flavors[name] = r.props
    pools = _Pools.of(shared_pools(args.resources))
    for cq in args.resources:
        if not _kind(cq, "ClusterQueue"):
            continue
        why_dedicated = _dedicated_namespaces(cq, namespaces)
        if why_dedicated is None:
            continue
        groups = elements(read(cq.props, "spec", "resourceGroups"))
        if groups is UNKNOWN:
            report_violation(f"ClusterQueue '{cq.name}': {why_dedicated}, and its resourceGroups are unknown "
                             f"during preview.", cq.urn)
            continue
        for group in groups:
            for flavor in ([UNKNOWN] if group is UNKNOWN else elements(read(group, "flavors"))) or []:
                name = read(flavor, "name") if flavor is not UNKNOWN else UNKNOWN
                why = (f"a flavor name is unknown during preview" if name is UNKNOWN or not isinstance(name, str)
                       else _shared_flavor(name, flavors, pools))
                if why:
                    report_violation(f"ClusterQueue '{cq.name}': {why_dedicated}, but {why}: a dedicated tenant "
                                     f"must never share a GPU with another tenant.", cq.urn)


dedicated_tenant_not_on_shared_pool = StackValidationPolicy(
    name="dedicated-tenant-not-on-shared-pool",
    description=("A Kueue ClusterQueue that may admit a dedicated tenant's namespace has no flavor on a time-sliced "
                 "or MIG (shared) GPU pool."),
    validate=validate_dedicated_not_on_shared,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Give dedicated tenants flavors of exclusive pools only (remove the shared pool's flavor "
                       "from their ClusterQueue), or set the tenant's isolation to shared; a ClusterQueue should "
                       "select its one namespace by kubernetes.io/metadata.name. Sources: Kueue docs Cluster Queue, "
                       "Resource Flavor; NVIDIA GPU Operator docs Time-Slicing GPUs in Kubernetes."),
    tags=["kueue", "gpu", "isolation"],
)

POLICIES = [dedicated_tenant_not_on_shared_pool]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "dedicated-tenant-not-on-shared-pool": (
        "fails closed: an unknown namespace selector, isolation label, flavor name, flavor node label or node "
        "pool label counts as a dedicated tenant that may land on a shared pool"),
}
