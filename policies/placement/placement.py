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
| rdma-node-pool-compute-cluster-ad | stack | ``computeClusterId`` with no property dependency | fail closed: violation |
|                          |          | the Compute Cluster's or a placement's AD      | fail closed: violation        |

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
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/ (the pack directory is on sys.path)
    from _rules import CLUSTER, NODE_POOL, UNKNOWN, elements, is_set, read
    from _gate import examines

COMPUTE_CLUSTER = "oci:Core/computeCluster:ComputeCluster"

ENHANCED = "ENHANCED_CLUSTER"
_DOC = "OKE docs: Using Compute Clusters to Provision Managed Nodes"

#: Shapes that support RDMA and Compute Clusters for OKE managed nodes (OKE docs: Using Compute Clusters to
#: Provision Managed Nodes; Compute docs: Compute Clusters and Creating GPU Memory Clusters; Oracle's OKE RDMA
#: quickstart oracle-quickstart/oci-hpc-oke@61d210a; checked 2026-11-30). Other shapes only through policy config.
#: The pack is published alone and keeps its own copy: a test ties it to the program's table
#: (``oke_rdma.facts.shapes.COMPUTE_CLUSTER_SHAPES``).
ORACLE_RDMA_SHAPES = ("BM.GPU.H100.8", "BM.GPU.H200.8", "BM.GPU.B200.8", "BM.GPU.A100-v2.8", "BM.GPU4.8",
                      "BM.GPU.B4.8", "BM.GPU.GB200.4", "BM.GPU.GB200-v2.4", "BM.GPU.GB200-v3.4", "BM.GPU.GB300.4",
                      "BM.GPU.MI300X.8", "BM.HPC2.36", "BM.Optimized3.36",
                      # RDMA shapes Oracle runs on OKE (oracle-quickstart/oci-hpc-oke@61d210a; added 2026-12-01)
                      "BM.GPU.B300.8", "BM.GPU.MI355X.8", "BM.GPU.MI355X-v1.8", "BM.GPU.RTXPRO.8")


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


def _compute_cluster_of(pool: Any, compute_clusters: list[Any]) -> tuple[Optional[Any], Optional[str]]:
    """The Compute Cluster resource a pool joins, or (None, reason) when it cannot be identified, or (None, None)
    when it is not in this stack (an existing Compute Cluster: nothing to compare with).

    Follows ``property_dependencies["nodeConfigDetails"]`` (which also lists the pool's subnets and NSGs) to the
    ``ComputeCluster`` resources; with several, or none, compares ``computeClusterId`` with their ``id`` outputs.
    """
    linked = [r for r in pool.property_dependencies.get("nodeConfigDetails", []) if r.resource_type == COMPUTE_CLUSTER]
    if len(linked) == 1:
        return linked[0], None
    cc_id = read(pool.props, "nodeConfigDetails", "computeClusterId")
    candidates = linked or compute_clusters
    if cc_id is UNKNOWN:
        return None, ("its computeClusterId is unknown during preview and its nodeConfigDetails depend on "
                      f"{len(linked) or 'no'} Compute Cluster(s) of this stack, so the Compute Cluster cannot be "
                      "identified; pass the Compute Cluster's id output directly as compute_cluster_id")
    matched = [c for c in candidates if read(c.props, "id") == cc_id]
    return (matched[0], None) if matched else (None, None)


def availability_domain_problems(pool: Any, compute_cluster: Any) -> list[str]:
    """Why a pool's placements are not all in its Compute Cluster's availability domain (empty = fine)."""
    cc_ad = read(compute_cluster.props, "availabilityDomain")
    if cc_ad is UNKNOWN:
        return [f"the availabilityDomain of Compute Cluster '{compute_cluster.name}' is unknown during preview; "
                "set it from a literal value"]
    configs = elements(read(pool.props, "nodeConfigDetails", "placementConfigs"))
    if configs is UNKNOWN:
        return ["its nodeConfigDetails.placementConfigs are unknown during preview; build them from literal values"]
    problems = []
    for i, entry in enumerate(configs):
        ad = read(entry, "availabilityDomain")
        if ad is UNKNOWN:
            problems.append(f"nodeConfigDetails.placementConfigs[{i}].availabilityDomain is unknown during preview; "
                            f"set it to the Compute Cluster's '{cc_ad}'")
        elif ad != cc_ad:
            problems.append(f"nodeConfigDetails.placementConfigs[{i}].availabilityDomain is '{ad}' but Compute "
                            f"Cluster '{compute_cluster.name}' is in '{cc_ad}'; place the pool in '{cc_ad}'")
    return problems


def validate_compute_cluster_ad(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    """Stack rule ``rdma-node-pool-compute-cluster-ad``: every placement of a pool in a Compute Cluster is in that
    Compute Cluster's availability domain (OCI launches the pool's instances inside the Compute Cluster, which lives
    in one AD; OKE docs: Using Compute Clusters to Provision Managed Nodes).

    Links a pool to its ``oci:Core/computeCluster:ComputeCluster`` through the property dependencies of
    ``nodeConfigDetails``, else by id. Unknowns fail closed (stack rules do not run again before the pool is
    created). A pool joining a Compute Cluster that is not in the stack (an existing one) is not checked.
    """
    compute_clusters = [r for r in args.resources if r.resource_type == COMPUTE_CLUSTER]
    for pool in args.resources:
        if pool.resource_type != NODE_POOL or not is_set(pool.props, "nodeConfigDetails", "computeClusterId"):
            continue
        cc, reason = _compute_cluster_of(pool, compute_clusters)
        if reason:
            report_violation(f"Node pool '{pool.name}' is placed in a Compute Cluster but {reason}.", pool.urn)
        if cc is None:
            continue
        for problem in availability_domain_problems(pool, cc):
            report_violation(f"Node pool '{pool.name}': {problem}.", pool.urn)


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

rdma_node_pool_compute_cluster_ad = StackValidationPolicy(
    name="rdma-node-pool-compute-cluster-ad",
    description="A node pool in an OCI Compute Cluster is placed in that Compute Cluster's availability domain.",
    validate=validate_compute_cluster_ad,
    enforcement_level=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation_steps=("Set the availabilityDomain of the node pool's only placementConfigs entry to the "
                       "availabilityDomain of the Compute Cluster in computeClusterId, and pass the Compute "
                       f"Cluster's id output (not a copied string) so the link can be followed. Source: {_DOC}."),
    tags=["oke", "rdma", "placement"],
)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(rdma_node_pool_placement, NODE_POOL)

POLICIES = [rdma_node_pool_placement, rdma_cluster_enhanced, rdma_node_pool_compute_cluster_ad]

#: How each rule behaves when a value it reads is unknown during preview.
UNKNOWN_BEHAVIOUR: dict[str, str] = {
    "rdma-node-pool-placement": (
        "fails closed: an unknown nodeShape, placementConfigs, entry or faultDomains is a violation; an unknown "
        "computeClusterId counts as set; a wholly unknown nodeConfigDetails is an engine note: can't run (the rule "
        "runs again on known inputs at `pulumi up`)"),
    "rdma-cluster-enhanced": (
        "fails closed: an unknown cluster type, or a pool whose unknown clusterId has no property dependency on a "
        "cluster, is a violation; an unknown computeClusterId counts as set"),
    "rdma-node-pool-compute-cluster-ad": ("fails closed: an unknown AD on either side, or an unknown "
                                          "computeClusterId with no dependency on one Compute Cluster, is a "
                                          "violation"),
}
