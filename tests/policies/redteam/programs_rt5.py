"""Red-team programs (pass 5, tenants' GPUs and routes): a tenant's GPU pod reaching another tenant's dedicated pool
by a NotIn affinity, by preferred affinity only, or with a MIG slice; a ClusterQueue borrowing another tenant's
quota it cannot take back; a ClusterQueue preempting other tenants by priority; a route on a Gateway the stack does
not declare. Registered in ``programs.CASES`` on import; each control differs only in what makes the input unsafe
(the preferred-affinity control also requires its own pool: a preferred term alone restricts nothing)."""
from __future__ import annotations

import pulumi_kubernetes as k8s

from tests.policies.redteam.programs import case
from tests.policies.redteam.programs_tenants import restricted, tenant

SCHEDULING = "tenant-pods-scheduled-by-the-platform"
POOL = "okerdma.io/node-pool"
KUEUE = "kueue.x-k8s.io/v1beta2"
TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def _flavors(*pools: str) -> None:
    for pool in pools:
        k8s.apiextensions.CustomResource(f"rf-{pool}", api_version=KUEUE, kind="ResourceFlavor",
                                         metadata={"name": pool}, spec={"nodeLabels": {POOL: pool}})


def _queue(ns: str, flavors: list, cohort: str | None = None, preemption: dict | None = None) -> None:
    spec = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
            "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                {"name": f, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": q}]} for f, q in flavors]}]}
    spec.update({k: v for k, v in (("cohortName", cohort), ("preemption", preemption)) if v is not None})
    k8s.apiextensions.CustomResource(f"cq-{ns}", api_version=KUEUE, kind="ClusterQueue", metadata={"name": ns},
                                     spec=spec)


def _dedicated_setup() -> None:
    """research owns pool gpu, analytics pool shared (the suite's tenant_gpu_pod_on_another_tenants_dedicated_pool)."""
    tenant("research"), tenant("analytics")
    _flavors("gpu", "shared")
    _queue("research", [("gpu", 8)])
    _queue("analytics", [("shared", 8)])


def _gpu_pod(resources: dict | None = None, **spec) -> None:
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "analytics"}, spec={
        "tolerations": TOLERATE, **spec,
        "containers": [restricted(resources={"limits": resources or {"nvidia.com/gpu": 1}})]})


def _required(expr: dict) -> dict:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}}


@case("placement", SCHEDULING)
def tenant_gpu_pod_notin_its_own_pool(bad):
    """analytics's GPU pod excludes its own pool with NotIn: every other pool — research's dedicated one — remains."""
    _dedicated_setup()
    expr = ({"key": POOL, "operator": "NotIn", "values": ["shared", "system"]} if bad
            else {"key": POOL, "operator": "In", "values": ["shared"]})
    _gpu_pod(affinity={"nodeAffinity": _required(expr)})


@case("placement", SCHEDULING)
def tenant_gpu_pod_with_preferred_affinity_only(bad):
    """A preferred node-affinity term only weighs nodes: with no required one the pod may land on any GPU pool."""
    _dedicated_setup()
    preferred = {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "preference": {
        "matchExpressions": [{"key": POOL, "operator": "In", "values": ["gpu" if bad else "shared"]}]}}]}
    _gpu_pod(affinity={"nodeAffinity": preferred if bad else {
        **preferred, **_required({"key": POOL, "operator": "In", "values": ["shared"]})}})


@case("placement", SCHEDULING)
def tenant_mig_pod_on_another_tenants_pool(bad):
    """A MIG slice (nvidia.com/mig-1g.10gb) instead of nvidia.com/gpu is still a GPU: the pool must be the tenant's."""
    _dedicated_setup()
    _gpu_pod({"nvidia.com/mig-1g.10gb": 1}, nodeSelector={POOL: "gpu" if bad else "shared"})


@case("placement", "tenant-quota-borrowed-only-while-idle")
def cluster_queue_borrows_another_tenants_unreclaimable_quota(bad):
    """analytics lists research's flavor with nominal 0 in their cohort; research lends without reclaiming."""
    tenant("research"), tenant("analytics")
    _flavors("gpu", "shared")
    _queue("research", [("gpu", 16)], cohort="tenants")
    _queue("analytics", [("shared", 8)] + ([("gpu", 0)] if bad else []), cohort="tenants")


@case("placement", "tenant-queues-never-preempt-by-priority")
def cluster_queue_preempts_other_tenants_by_priority(bad):
    """A WorkloadPriorityClass of 1e9 and borrowWithinCohort LowerPriority: analytics evicts research's workloads."""
    tenant("research"), tenant("analytics")
    _flavors("shared")
    never = {"reclaimWithinCohort": "Never", "withinClusterQueue": "LowerPriority"}
    _queue("research", [("shared", 8)], cohort="tenants", preemption=never)
    _queue("analytics", [("shared", 8)], cohort="tenants", preemption={
        "reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority",
        "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 1000000000}} if bad else never)
    k8s.yaml.v2.ConfigGroup("wpc", objs=[{"apiVersion": KUEUE, "kind": "WorkloadPriorityClass",
                                          "metadata": {"name": "urgent"}, "value": 1000000000}])


@case("network", "routes-attach-to-declared-gateways")
def tenant_route_on_a_gateway_outside_the_stack(bad):
    """An HTTPRoute on another team's Gateway publishes the tenant's Service wherever that Gateway listens; the
    control routes the same Service's mesh traffic (a Service parent)."""
    tenant("analytics")
    parent = ({"name": "public-gw", "namespace": "gateway-system"} if bad
              else {"group": "", "kind": "Service", "name": "app"})
    k8s.apiextensions.CustomResource("route", api_version="gateway.networking.k8s.io/v1", kind="HTTPRoute",
                                     metadata={"name": "app", "namespace": "analytics"}, spec={
                                         "parentRefs": [parent], "rules": [{"backendRefs": [
                                             {"name": "app", "port": 8080}]}]})
