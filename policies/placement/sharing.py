"""GPU sharing by trust: a dedicated tenant's Kueue ClusterQueue never covers a node pool whose GPUs are shared (time
slicing, MPS or MIG), and no two node pools carry labels that let a selector meant for one land on the other.

The rules follow the objects the engine sees, never the program's config:

* a ``kueue.x-k8s.io`` ``ClusterQueue`` admits the namespaces its ``spec.namespaceSelector`` selects; a namespace is
  *dedicated* unless its label ``okerdma.io/isolation`` is ``shared`` (secure by default: an unlabelled namespace
  counts as dedicated);
* each flavor of its ``spec.resourceGroups`` is a ``ResourceFlavor`` whose ``spec.nodeLabels`` Kueue adds to the
  admitted pods' node selectors; it may land on every node pool that does not set one of those labels to another
  value (``_pools.may_select``);
* a node pool is *shared* by effect: what the GPU Operator's device plugin and MIG manager declared in the stack
  will do on its nodes — the device-plugin config its ``nvidia.com/device-plugin.config`` label or the default
  selects (time-slicing or MPS replicas), the MIG config of ``nvidia.com/mig.config`` — or when it carries
  ``okerdma.io/gpu-sharing`` ``time-slicing``/``mig`` (``_pools``, with a copy of ``oke_rdma.facts.gpu_sharing``).

Violation (``dedicated-tenant-not-on-shared-pool``): a ClusterQueue that may admit a dedicated namespace and has a
flavor that may land on a shared pool. Fail closed: a namespace selector other than one ``kubernetes.io/metadata.name``
(it may select any namespace), a flavor not in the stack while a pool may be shared, a pool whose sharing cannot be
read (its device-plugin or MIG config unknown, out of the stack, or naming a config that is not there), or any of
these values unknown during preview count as "may".

Violation (``node-pool-labels-distinct``): a node pool whose every initial label (and cloud-init ``--node-labels``)
another pool carries with the same value — equal label sets included: any nodeSelector, node affinity or
ResourceFlavor ``nodeLabels`` written for the first pool lands on the second's nodes too. A pool whose labels are
unknown during preview fails closed.

Sources (checked 2026-11-30, sharing by effect 2026-12-02): Kueue docs "Cluster Queue" (``namespaceSelector``,
``resourceGroups.flavors``) and "Resource Flavor" (``nodeLabels`` added to admitted pods' node selectors);
Kubernetes docs "Namespaces" (the ``kubernetes.io/metadata.name`` label) and "Assigning Pods to Nodes"
(``nodeSelector`` matches every node carrying all its labels); NVIDIA GPU Operator docs "Time-Slicing GPUs in
Kubernetes" (no memory or fault isolation between time-sliced pods) and the sources in ``_gpu_sharing``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs, StackValidationPolicy

if __package__:
    from ._pools import covers, may_select, node_pools, plain, sharing_by_pool
    from ._rules import UNKNOWN, elements, read
else:  # run by the Pulumi CLI from inside policies/placement/
    from _pools import covers, may_select, node_pools, plain, sharing_by_pool
    from _rules import UNKNOWN, elements, read

NAMESPACE = "kubernetes:core/v1:Namespace"
KUEUE_GROUP = "kubernetes:kueue.x-k8s.io/"
ISOLATION_LABEL = "okerdma.io/isolation"
NAME_LABEL = "kubernetes.io/metadata.name"


def _kind(resource: Any, kind: str) -> bool:
    return resource.resource_type.startswith(KUEUE_GROUP) and resource.resource_type.endswith(f":{kind}")


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
class _Shared:
    """The pools a dedicated tenant must not reach, computed once per stack: (pool name, labels, why) of every pool
    whose GPUs are or may be shared."""

    pools: tuple[tuple[str, Any, str], ...]

    @classmethod
    def of(cls, resources: list[Any]) -> "_Shared":
        return cls(tuple((p.label_name, p.labels, ("whose GPUs are shared: " if v.shared else
                                                   "whose GPU sharing cannot be read: ") + v.why)
                         for p, v in sharing_by_pool(resources) if v.shared is not False))


def _shared_flavor(flavor: str, flavors: dict[str, Any], shared: _Shared) -> Optional[str]:
    """Why flavor ``flavor`` may land on a shared pool (None: it does not)."""
    if not shared.pools:
        return None
    rf = flavors.get(flavor)
    if rf is None:
        return f"flavor '{flavor}' is not in the stack"
    selector = plain(read(rf, "spec", "nodeLabels"))
    if selector is None:
        selector = {}
    for name, labels, why in shared.pools:
        if may_select(selector, labels):
            return f"flavor '{flavor}' may land on pool '{name}', {why}"
    return None


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
    shared = _Shared.of(args.resources)
    verdicts: dict[str, Optional[str]] = {}  # per flavor name: the same for every queue that lists it
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
                       else verdicts[name] if name in verdicts
                       else verdicts.setdefault(name, _shared_flavor(name, flavors, shared)))
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

def validate_pool_labels_distinct(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``node-pool-labels-distinct`` (see the module docstring). Quadratic in the node pools only."""
    pools = node_pools(args.resources)
    for pool in pools:
        if pool.labels is UNKNOWN:
            report_violation(f"node pool '{pool.name}': its node labels are unknown during preview, so no selector "
                             f"can be shown to reach its nodes alone.", pool.urn)
    known = [p for p in pools if isinstance(p.labels, dict) and p.labels]
    for a in known:
        for b in known:
            if a is not b and covers(a.labels, b.labels) and (a.labels != b.labels or a.name < b.name):
                what = "the same labels as" if a.labels == b.labels else "every label of"
                report_violation(f"node pool '{a.name}' and node pool '{b.name}': '{b.name}' carries {what} "
                                 f"'{a.name}' ({', '.join(f'{k}={v}' for k, v in sorted(a.labels.items()))}), so "
                                 f"a nodeSelector, affinity or ResourceFlavor written for '{a.name}' also lands on "
                                 f"'{b.name}'s nodes.", a.urn)


node_pool_labels_distinct = StackValidationPolicy(
    name="node-pool-labels-distinct",
    description=("No node pool carries every label of another (equal label sets included): a selector written for "
                 "one pool never lands on another's nodes."),
    validate=validate_pool_labels_distinct,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Give every pool a label no other pool carries with the same value (oke-rdma sets "
                       "okerdma.io/node-pool to the pool's name) and select pools by it. Sources: Kubernetes docs "
                       "Assigning Pods to Nodes; Kueue docs Resource Flavor."),
    tags=["kueue", "gpu", "isolation"],
)

POLICIES = [dedicated_tenant_not_on_shared_pool, node_pool_labels_distinct]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "dedicated-tenant-not-on-shared-pool": (
        "fails closed: an unknown namespace selector, isolation label, flavor name, flavor node label, node pool "
        "label or GPU Operator device-plugin/MIG config counts as a dedicated tenant that may land on a shared "
        "pool"),
    "node-pool-labels-distinct": "fails closed: a pool whose node labels are unknown is reported",
}
