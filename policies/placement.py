"""Placement rules for RDMA node pools in an OCI Compute Cluster.

Source: OKE docs, "Using Compute Clusters to Provision Managed Nodes" (contengusingcomputeclusters.htm): a managed
node pool joins a Compute Cluster through ``nodeConfigDetails.computeClusterId``; the cluster must be an enhanced
cluster; the pool has exactly one placement configuration (in the Compute Cluster's availability domain) and no
fault domains, because OCI places the nodes inside the Compute Cluster itself.

How each rule treats values that are unknown during preview (``pulumi preview`` of a stack that also creates the
Compute Cluster always has an unknown ``computeClusterId``):

| rule                     | kind     | unknown during preview                         | behaviour                     |
|--------------------------|----------|------------------------------------------------|-------------------------------|
| rdma-node-pool-placement | resource | ``computeClusterId``                           | counts as set; the rule runs  |
|                          |          | ``nodeShape`` (checked against ``allowedShapes``) | fail closed: violation     |
|                          |          | ``placementConfigs``, an entry, ``faultDomains`` | fail closed: violation      |
|                          |          | the whole ``nodeConfigDetails``                | engine note "can't run"       |
| rdma-cluster-enhanced    | stack    | ``computeClusterId``                           | counts as set; the rule runs  |
|                          |          | the cluster's ``type``                         | fail closed: violation        |
|                          |          | pool ``clusterId`` with no property dependency | fail closed: violation        |

"Engine note" means the proxy's ``UnknownValueError`` is left to the engine, which reports an ADVISORY "can't run
policy ... during preview" line; the resource rule then runs for real at ``pulumi up``, before the pool is created.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies` (tests, offline/)
    from ._rules import CLUSTER, NODE_POOL, UNKNOWN, elements, is_set, read
else:  # run by the Pulumi CLI from inside policies/ (the pack directory is on sys.path)
    from _rules import CLUSTER, NODE_POOL, UNKNOWN, elements, is_set, read

ENHANCED = "ENHANCED_CLUSTER"
_DOC = "OKE docs: Using Compute Clusters to Provision Managed Nodes"

#: Shapes Oracle lists as supporting RDMA and Compute Clusters for OKE managed nodes (OKE docs: Using Compute
#: Clusters to Provision Managed Nodes; Compute docs: Compute Clusters). Other shapes only through policy config.
ORACLE_RDMA_SHAPES = ("BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU4.8", "BM.GPU.GB200.4", "BM.HPC2.36",
                      "BM.Optimized3.36")


def shape_problem(props: Any, allowed_shapes: Sequence[str]) -> Optional[str]:
    """Why a Compute Cluster node pool's ``nodeShape`` is not acceptable (None = it is in ``allowed_shapes``)."""
    shape = read(props, "nodeShape")
    allowed = ", ".join(allowed_shapes)
    if shape is UNKNOWN:
        return (f"nodeShape is unknown during preview, so it cannot be checked against the allowed shapes "
                f"({allowed}); set it to a literal shape")
    if shape not in allowed_shapes:
        shown = "not set" if shape is None else f"'{shape}'"
        return (f"nodeShape is {shown}, which is not a shape allowed in a Compute Cluster ({allowed}); use an RDMA "
                "shape that supports Compute Clusters, or add the shape to this policy's allowedShapes config")
    return None


def placement_problems(props: Any, allowed_shapes: Optional[Sequence[str]] = None) -> list[str]:
    """What is wrong with a node pool's placement (empty list = fine, or not in a Compute Cluster).

    ``props`` are the node pool's engine props (inputs, behind the unknown-checking proxy). Reading the whole
    ``nodeConfigDetails`` goes through the proxy on purpose: if it is unknown the engine reports the rule as not run.
    ``allowed_shapes`` (default :data:`ORACLE_RDMA_SHAPES`) are the ``nodeShape`` values a pool in a Compute Cluster
    may use.
    """
    details = props["nodeConfigDetails"] if "nodeConfigDetails" in set(props) else None
    if details is None or not is_set(details, "computeClusterId"):
        return []  # not placed in a Compute Cluster: nothing to check
    shape = shape_problem(props, ORACLE_RDMA_SHAPES if allowed_shapes is None else allowed_shapes)
    return ([shape] if shape else []) + _placement_config_problems(details)


def _placement_config_problems(details: Any) -> list[str]:
    """The placementConfigs / faultDomains problems of a pool's ``nodeConfigDetails``."""
    configs = elements(read(details, "placementConfigs"))
    if configs is UNKNOWN:
        return ["nodeConfigDetails.placementConfigs is unknown during preview, so the placement cannot be checked; "
                "build the list from literal values (one entry; its subnetId may be an output)"]
    if len(configs) != 1:
        return [f"nodeConfigDetails.placementConfigs has {len(configs)} entries; a node pool in a Compute Cluster "
                "needs exactly one, in the Compute Cluster's availability domain: keep one and delete the others"]
    entry = configs[0]
    if entry is UNKNOWN:
        return ["nodeConfigDetails.placementConfigs[0] is unknown during preview; build it from literal values"]
    fault_domains = elements(read(entry, "faultDomains"))
    if fault_domains is UNKNOWN:
        return ["nodeConfigDetails.placementConfigs[0].faultDomains is set but unknown during preview; a node pool "
                "in a Compute Cluster must not set fault domains: remove faultDomains"]
    if fault_domains:
        shown = ", ".join("?" if fd is UNKNOWN else str(fd) for fd in fault_domains)
        return [f"nodeConfigDetails.placementConfigs[0].faultDomains is [{shown}]; OCI places nodes in a Compute "
                "Cluster itself: remove faultDomains"]
    return []


def validate_node_pool_placement(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """Resource rule ``rdma-node-pool-placement`` on ``oci:ContainerEngine/nodePool:NodePool`` inputs.

    Checks: a pool with ``nodeConfigDetails.computeClusterId`` uses a shape from the ``allowedShapes`` config
    (default :data:`ORACLE_RDMA_SHAPES`), has exactly one ``placementConfigs`` entry and that entry has no
    ``faultDomains`` (OKE docs: Using Compute Clusters to Provision Managed Nodes). Unknowns: an unknown
    ``computeClusterId`` still counts as set; an unknown shape or unknown placement data fails closed; an unknown
    ``nodeConfigDetails`` as a whole is left to the engine ("can't run" note at preview; the rule runs again at
    ``pulumi up``).
    """
    if args.resource_type != NODE_POOL:
        return
    shapes = args.get_config().get("allowedShapes")
    for problem in placement_problems(args.props, None if shapes is None else list(shapes)):
        report_violation(f"Node pool '{args.name}': {problem}.", None)


def _cluster_of(pool: Any, clusters: list[Any]) -> tuple[list[Any], Optional[str]]:
    """The cluster resources a node pool belongs to, or ([], reason) when the link cannot be traced.

    First through ``property_dependencies["clusterId"]`` (stack-rule props are outputs, and a cluster created in the
    same preview has no id yet); then by comparing the pool's ``clusterId`` with each cluster's ``id`` output.
    """
    linked = [r for r in pool.property_dependencies.get("clusterId", []) if r.resource_type == CLUSTER]
    if linked:
        return linked, None
    cluster_id = read(pool.props, "clusterId")
    if cluster_id is UNKNOWN:
        return [], ("its clusterId is unknown during preview and has no property dependency on a cluster, so the "
                    "cluster cannot be identified; pass the cluster's id output directly as cluster_id")
    matched = [c for c in clusters if cluster_id is not None and read(c.props, "id") == cluster_id]
    return matched, None  # no match: the cluster lives in another stack and is not ours to check


def cluster_type_problem(cluster: Any) -> Optional[str]:
    """Why a cluster that hosts Compute Cluster node pools is not acceptable (None = it is enhanced)."""
    cluster_type = read(cluster.props, "type")
    if cluster_type is UNKNOWN:
        return "its type is unknown during preview; set type='ENHANCED_CLUSTER' explicitly"
    if cluster_type is None:
        return "it does not set type, so OCI creates a BASIC_CLUSTER; set type='ENHANCED_CLUSTER'"
    if cluster_type != ENHANCED:
        return f"its type is '{cluster_type}'; set type='ENHANCED_CLUSTER'"
    return None


def validate_cluster_enhanced(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``rdma-cluster-enhanced``: every cluster hosting a Compute Cluster node pool is ENHANCED_CLUSTER.

    Runs on outputs. A pool is linked to its cluster through ``property_dependencies["clusterId"]``, else by id
    (:func:`_cluster_of`). Unknowns fail closed: an unknown cluster ``type``, or a pool whose unknown ``clusterId``
    cannot be traced, is a violation (stack rules run only after resources are created at ``pulumi up``, so
    preview is the last chance). A pool joining a cluster of another stack is not checked.
    Source: OKE docs, Using Compute Clusters to Provision Managed Nodes; Comparing Enhanced with Basic Clusters.
    """
    clusters = [r for r in args.resources if r.resource_type == CLUSTER]
    pools_by_cluster: dict[str, tuple[Any, list[str]]] = {}
    for pool in args.resources:
        if pool.resource_type != NODE_POOL or not is_set(pool.props, "nodeConfigDetails", "computeClusterId"):
            continue
        owners, reason = _cluster_of(pool, clusters)
        if reason:
            report_violation(f"Node pool '{pool.name}' is placed in a Compute Cluster but {reason}.", pool.urn)
        for cluster in owners:
            pools_by_cluster.setdefault(cluster.urn, (cluster, []))[1].append(pool.name)
    for cluster, pool_names in pools_by_cluster.values():
        problem = cluster_type_problem(cluster)
        if problem:
            pools = ", ".join(f"'{p}'" for p in pool_names)
            report_violation(f"Cluster '{cluster.name}' hosts node pool(s) {pools} placed in a Compute Cluster, "
                             f"which requires an enhanced cluster, but {problem}.", cluster.urn)


rdma_node_pool_placement = ResourceValidationPolicy(
    name="rdma-node-pool-placement",
    description=("A node pool in an OCI Compute Cluster uses an allowed RDMA shape and has exactly one placement "
                 "config and no fault domains."),
    validate=validate_node_pool_placement,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Use a shape that supports RDMA and Compute Clusters; give the node pool exactly one "
                       "nodeConfigDetails.placementConfigs entry, in the Compute Cluster's availability domain, and "
                       f"remove its faultDomains (OCI places the nodes). Source: {_DOC}."),
    tags=["oke", "rdma", "placement"],
    config_schema=PolicyConfigSchema({
        "allowedShapes": {
            "type": "array", "items": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9.-]*$"},
            "minItems": 1, "uniqueItems": True, "default": list(ORACLE_RDMA_SHAPES),
            "description": "nodeShape values a node pool in a Compute Cluster may use",
        },
    }),
)

rdma_cluster_enhanced = StackValidationPolicy(
    name="rdma-cluster-enhanced",
    description="A cluster that hosts node pools in an OCI Compute Cluster is an ENHANCED_CLUSTER.",
    validate=validate_cluster_enhanced,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set type='ENHANCED_CLUSTER' on the oci.containerengine.Cluster that hosts the node pool "
                       f"(managed node pools in Compute Clusters need enhanced clusters). Source: {_DOC}."),
    tags=["oke", "rdma", "placement"],
)

POLICIES = [rdma_node_pool_placement, rdma_cluster_enhanced]

UNKNOWN_BEHAVIOUR = {
    "rdma-node-pool-placement": (
        "fails closed: an unknown nodeShape, placementConfigs, entry or faultDomains is a violation; an unknown "
        "computeClusterId counts as set; a wholly unknown nodeConfigDetails is an engine note: can't run (the rule "
        "runs again on known inputs at `pulumi up`)"),
    "rdma-cluster-enhanced": (
        "fails closed: an unknown cluster type, or a pool whose unknown clusterId has no property dependency on a "
        "cluster, is a violation; an unknown computeClusterId counts as set"),
}
