"""Placement, completed: RDMA shapes only inside a Compute Cluster, nothing reclaimable in one, and self-managed
nodes in the Compute Cluster's availability domain — for any stack, managed node pools and instances alike.

* ``rdma-shape-in-compute-cluster`` (MANDATORY, resource): a node pool (``nodeShape``), an instance (``shape``) or an
  instance configuration (``instanceDetails.launchDetails.shape``) with an RDMA-capable shape
  (``placement.ORACLE_RDMA_SHAPES``) sets ``computeClusterId``: outside a Compute Cluster OCI places the bare-metal
  hosts wherever it has capacity, off the RDMA network block, so the pool's GPUs cannot talk RDMA to each other (and
  a training job silently falls back to TCP). Config ``allowedOutsideComputeCluster`` lists resource names that are
  meant to run without RDMA.
* ``compute-cluster-not-reclaimable`` (MANDATORY, resource): nothing joining a Compute Cluster is preemptible
  (``placementConfigs[].preemptibleNodeConfig``, ``preemptibleInstanceConfig``): OCI reclaims preemptible capacity
  at any time, and a reclaimed node takes its RDMA peers' collective with it. The config refuses it for oke-rdma's
  own pools; this rule holds it for any stack.
* ``compute-cluster-instance-ad`` (MANDATORY, stack): a self-managed instance joining a Compute Cluster of the stack
  is in that Compute Cluster's availability domain (node pools: ``rdma-node-pool-compute-cluster-ad``).

Unknowns: an unknown shape is refused (it may be an RDMA shape); an unknown ``computeClusterId`` counts as set; an
unknown preemptible setting or AD fails closed.

Sources (checked 2026-12-01): OCI Compute docs "Compute Clusters" (instances of a compute cluster share the RDMA
network block, one AD), "Preemptible Instances" (reclaimed at any time; not supported in cluster networks and
compute clusters), OKE docs "Using Compute Clusters to Provision Managed Nodes"; pulumi_oci 5.5.0 ``core/instance.py``
(``computeClusterId``, ``preemptibleInstanceConfig``), ``containerengine/_inputs.py`` (``preemptibleNodeConfig``).
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)

if __package__:  # imported as the package `policies.placement` (tests, offline/)
    from ._rules import NODE_POOL, UNKNOWN, elements, is_set, read
    from .placement import COMPUTE_CLUSTER, ORACLE_RDMA_SHAPES
    from ._gate import examines
else:  # run by the Pulumi CLI from inside policies/placement/
    from _rules import NODE_POOL, UNKNOWN, elements, is_set, read
    from placement import COMPUTE_CLUSTER, ORACLE_RDMA_SHAPES
    from _gate import examines

INSTANCE = "oci:Core/instance:Instance"
INSTANCE_CONFIGURATION = "oci:Core/instanceConfiguration:InstanceConfiguration"
SHAPE_POLICY = "rdma-shape-in-compute-cluster"
RECLAIM_POLICY = "compute-cluster-not-reclaimable"
AD_POLICY = "compute-cluster-instance-ad"
#: Type → (path of the shape, path of computeClusterId, path of the preemptible setting(s)).
_PATHS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    NODE_POOL: (("nodeShape",), ("nodeConfigDetails", "computeClusterId"), ("nodeConfigDetails", "placementConfigs")),
    INSTANCE: (("shape",), ("computeClusterId",), ("preemptibleInstanceConfig",)),
    INSTANCE_CONFIGURATION: (("instanceDetails", "launchDetails", "shape"),
                             ("instanceDetails", "launchDetails", "computeClusterId"),
                             ("instanceDetails", "launchDetails", "preemptibleInstanceConfig")),
}


def shape_problem(resource_type: str, props: Any) -> Optional[str]:
    """Why a resource with an RDMA-capable shape is outside a Compute Cluster (None when it is not)."""
    shape_path, cc_path, _ = _PATHS[resource_type]
    shape = read(props, *shape_path)
    if is_set(props, *cc_path):
        return None
    if shape is UNKNOWN:
        return (f"its {'.'.join(shape_path)} is unknown during preview and it joins no Compute Cluster, so it may be "
                f"an RDMA shape placed off the RDMA network; set the shape literally")
    if isinstance(shape, str) and shape in ORACLE_RDMA_SHAPES:
        return (f"its shape {shape} is RDMA-capable but it sets no {'.'.join(cc_path)}: OCI places such hosts off "
                f"the RDMA network block, so their GPUs cannot reach each other over RDMA; join a Compute Cluster, "
                f"or, when it is meant to run without RDMA (a MIG, time-sliced or MPS pool), list its name in "
                f"{SHAPE_POLICY}.allowedOutsideComputeCluster of this pack's policy config (--policy-pack-config; "
                f"an oke-rdma stack: set nodePools.<pool>.rdma: false and pass the output of `python -m "
                f"offline.placement_config --stack <stack>`)")
    return None


def reclaimable(resource_type: str, props: Any) -> Iterator[str]:
    """Where a resource that joins a Compute Cluster is (or may be) preemptible."""
    _, cc_path, pre_path = _PATHS[resource_type]
    if not is_set(props, *cc_path):
        return
    if resource_type == NODE_POOL:
        configs = elements(read(props, *pre_path))
        if configs is UNKNOWN:
            yield "nodeConfigDetails.placementConfigs are unknown during preview (they may be preemptible)"
            return
        for i, entry in enumerate(configs):
            setting = UNKNOWN if entry is UNKNOWN else read(entry, "preemptibleNodeConfig")
            if setting is UNKNOWN:
                yield f"placementConfigs[{i}].preemptibleNodeConfig is unknown during preview"
            elif setting is not None:
                yield f"placementConfigs[{i}] sets preemptibleNodeConfig"
        return
    setting = read(props, *pre_path)
    if setting is UNKNOWN:
        yield f"{'.'.join(pre_path)} is unknown during preview"
    elif setting is not None:
        yield f"it sets {'.'.join(pre_path)}"


def validate_shape_in_compute_cluster(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type not in _PATHS or args.name in ((args.get_config() or {}).get(
            "allowedOutsideComputeCluster") or ()):
        return
    problem = shape_problem(args.resource_type, args.props)
    if problem:
        report_violation(f"{args.resource_type.rsplit(':', 1)[1]} '{args.name}': {problem}.", None)


def validate_not_reclaimable(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type not in _PATHS:
        return
    for where in reclaimable(args.resource_type, args.props):
        report_violation(f"{args.resource_type.rsplit(':', 1)[1]} '{args.name}' joins a Compute Cluster but {where}: "
                         f"OCI reclaims preemptible capacity at any time, taking its RDMA peers' job with it; use "
                         f"on-demand or reserved capacity.", None)


def validate_instance_ad(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    clusters = [r for r in args.resources if r.resource_type == COMPUTE_CLUSTER]
    for inst in args.resources:
        if inst.resource_type != INSTANCE or not is_set(inst.props, "computeClusterId"):
            continue
        linked = [r for r in (inst.property_dependencies or {}).get("computeClusterId", [])
                  if r.resource_type == COMPUTE_CLUSTER]
        cc_id = read(inst.props, "computeClusterId")
        matched = linked or [c for c in clusters if cc_id is not UNKNOWN and read(c.props, "id") == cc_id]
        if not matched:
            if cc_id is UNKNOWN:
                report_violation(f"Instance '{inst.name}': computeClusterId is unknown during preview and depends on "
                                 f"no Compute Cluster of this stack, so its AD cannot be checked.", inst.urn)
            continue
        cc = matched[0]
        cc_ad, ad = read(cc.props, "availabilityDomain"), read(inst.props, "availabilityDomain")
        if cc_ad is UNKNOWN or ad is UNKNOWN:
            report_violation(f"Instance '{inst.name}': its or Compute Cluster '{cc.name}''s availabilityDomain is "
                             f"unknown during preview; set both literally.", inst.urn)
        elif ad != cc_ad:
            report_violation(f"Instance '{inst.name}' joins Compute Cluster '{cc.name}' (in '{cc_ad}') from '{ad}': a "
                             f"Compute Cluster lives in one AD; launch the instance in '{cc_ad}'.", inst.urn)


_TAGS = ["placement", "rdma"]
rdma_shape_in_compute_cluster = ResourceValidationPolicy(
    name=SHAPE_POLICY, description="A node pool or instance with an RDMA-capable shape joins a Compute Cluster.",
    enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.MEDIUM, tags=_TAGS,
    remediation_steps="Set computeClusterId (nodeConfigDetails.computeClusterId for a node pool), or list the "
                      "resource in allowedOutsideComputeCluster when it is meant to run without RDMA (an oke-rdma "
                      "stack derives the list from its pools with rdma: false: python -m offline.placement_config "
                      "--stack <stack>; the offline preview uses it when no --policy-config is given).",
    validate=validate_shape_in_compute_cluster,
    config_schema=PolicyConfigSchema(properties={"allowedOutsideComputeCluster": {
        "type": "array", "items": {"type": "string"}, "default": [],
        "description": "Names of node pools or instances with an RDMA shape meant to run outside a Compute "
                       "Cluster (no RDMA between their hosts)."}}))
compute_cluster_not_reclaimable = ResourceValidationPolicy(
    name=RECLAIM_POLICY, description="Nothing that joins a Compute Cluster is preemptible.",
    enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.MEDIUM, tags=_TAGS,
    remediation_steps="Remove preemptibleNodeConfig / preemptibleInstanceConfig from Compute Cluster nodes.",
    validate=validate_not_reclaimable)
compute_cluster_instance_ad = StackValidationPolicy(
    name=AD_POLICY, description="A self-managed instance joins a Compute Cluster of the stack from its AD.",
    enforcement_level=EnforcementLevel.MANDATORY, severity=Severity.MEDIUM, tags=_TAGS,
    remediation_steps="Launch the instance in the Compute Cluster's availability domain.",
    validate=validate_instance_ad)

# The resource types each resource rule examines (it returns at once for any other; _gate.py).
examines(rdma_shape_in_compute_cluster, *_PATHS)
examines(compute_cluster_not_reclaimable, *_PATHS)

POLICIES = [rdma_shape_in_compute_cluster, compute_cluster_not_reclaimable, compute_cluster_instance_ad]

UNKNOWN_BEHAVIOUR: dict[str, str] = {
    SHAPE_POLICY: "fails closed: an unknown shape outside a Compute Cluster is a violation; an unknown "
                  "computeClusterId counts as set",
    RECLAIM_POLICY: "fails closed: unknown placement configs or preemptible settings of a Compute Cluster node are "
                    "violations",
    AD_POLICY: "fails closed: an unknown AD, or an unknown computeClusterId with no dependency on a Compute Cluster "
               "of the stack, is a violation",
}
