"""What one tenant's Kueue queue can take of another's (tenant-quota-borrowed-only-while-idle,
tenant-queues-never-preempt-by-priority) and where Gateway API routes attach (routes-attach-to-declared-gateways)."""
from __future__ import annotations

import pytest

from policies.security import route_parents, tenant_borrowing
from tests.policies.test_policies import U, res
from tests.policies.test_tenant_isolation import tenant, violations

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
GPU = "nvidia.com/gpu"


def quota(nominal, borrowing=None, lending=None, resource=GPU):
    q = {"name": resource, "nominalQuota": nominal}
    q.update({k: v for k, v in (("borrowingLimit", borrowing), ("lendingLimit", lending)) if v is not None})
    return q


def cq(ns, flavors, cohort="tenants", preemption=None, name=None):
    spec = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
            "resourceGroups": [{"coveredResources": [GPU], "flavors": [
                {"name": f, "resources": [q]} for f, q in flavors]}]}
    if cohort is not None:
        spec["cohortName"] = cohort
    if preemption is not None:
        spec["preemption"] = preemption
    return res(KUEUE + "ClusterQueue", f"cq-{name or ns}", {"metadata": {"name": name or ns}, "spec": spec})


def cohort(name, parent):
    return res(KUEUE + "Cohort", f"co-{name}", {"metadata": {"name": name}, "spec": {"parentName": parent}})


TENANTS = [tenant("research"), tenant("analytics")]
RESEARCH = cq("research", [("gpu", quota(16))])
BORROWED = tenant_borrowing.BORROWED


# --- borrowing on a pool where the tenant holds nothing --------------------------------------------------------------
@pytest.mark.parametrize("resources", [
    [RESEARCH, cq("analytics", [("shared", quota(8)), ("gpu", quota(0))])],
    [RESEARCH, cq("analytics", [("gpu", quota("0", borrowing="4"))])],
    [cq("research", [("gpu", quota(16))], preemption={"reclaimWithinCohort": "LowerPriority"}),
     cq("analytics", [("gpu", quota(0))])],
    [cq("research", [("gpu", quota(16, lending=8))]), cq("analytics", [("gpu", quota(0))])],
    [cq("research", [("gpu", quota(16))], cohort="team-a"), cohort("team-a", "all"), cohort("team-b", "all"),
     cq("analytics", [("gpu", quota(0))], cohort="team-b")],
    [RESEARCH, cq("analytics", [("gpu", quota(U))])],
    [cq("research", [("gpu", quota(16))], preemption=U), cq("analytics", [("gpu", quota(0))])],
    [RESEARCH, cq("analytics", [("gpu", quota(0))], cohort=U)],
], ids=["zero-nominal-no-limit", "zero-nominal-borrowing-limit", "lender-reclaims-lower-priority-only",
        "lender-lends-part", "hierarchical-cohorts", "unknown-nominal", "unknown-preemption", "unknown-cohort"])
def test_borrowing_another_tenants_quota_it_cannot_take_back_is_refused(resources):
    found = violations(BORROWED, *TENANTS, *resources)
    assert found and "cq-analytics" not in found[0] and "'analytics'" in found[0], found


@pytest.mark.parametrize("resources", [
    [RESEARCH, cq("analytics", [("shared", quota(8))])],
    [RESEARCH, cq("analytics", [("gpu", quota(0, borrowing=0))])],
    [cq("research", [("gpu", quota(16, lending=0))]), cq("analytics", [("gpu", quota(0))])],
    [cq("research", [("gpu", quota(16))], preemption={"reclaimWithinCohort": "Any"}),
     cq("analytics", [("gpu", quota(0))])],
    [RESEARCH, cq("analytics", [("gpu", quota(0))], cohort="analytics-only")],
    [cq("research", [("gpu", quota(8))]), cq("analytics", [("gpu", quota(8))])],
    [RESEARCH, cq("analytics", [("gpu", quota(0, resource="cpu"))])],
], ids=["other-pool", "borrowing-limit-zero", "lending-limit-zero", "lender-reclaims-any", "other-cohort",
        "both-hold-quota", "other-resource"])
def test_borrowing_that_is_idle_capacity_or_none_passes(resources):
    assert violations(BORROWED, *TENANTS, *resources) == []


def test_the_platforms_own_queues_pass():
    """The program's queues: one cohort, reclaimWithinCohort Any, GPU borrowing limits, zero-quota flavors listed."""
    pre = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}
    assert violations(BORROWED, *TENANTS, cq("research", [("gpu", quota("16", borrowing="0"))], preemption=pre),
                      cq("analytics", [("gpu", quota("0", borrowing="4"))], preemption=pre)) == []


# --- preemption by priority across queues ----------------------------------------------------------------------------
@pytest.mark.parametrize("preemption", [
    {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}},
    {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100}},
    {"borrowWithinCohort": {"policy": U}},
], ids=["lower-priority", "with-threshold", "unknown"])
def test_a_queue_preempting_other_queues_by_priority_is_refused(preemption):
    found = violations(tenant_borrowing.PREEMPT, *TENANTS, RESEARCH,
                       cq("analytics", [("gpu", quota(8))], preemption=preemption))
    assert found and "borrowWithinCohort" in found[0]


@pytest.mark.parametrize("resources", [
    [cq("analytics", [("gpu", quota(8))], preemption={"reclaimWithinCohort": "Any",
                                                      "withinClusterQueue": "LowerPriority"})],
    [cq("analytics", [("gpu", quota(8))], preemption={"borrowWithinCohort": {"policy": "Never"}})],
    [cq("batch", [("gpu", quota(8))], cohort="batch",
        preemption={"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}})],
], ids=["reclaim-and-within-queue", "never", "cohort-without-tenants"])
def test_preemption_by_quota_or_within_one_queue_passes(resources):
    assert violations(tenant_borrowing.PREEMPT, *TENANTS, RESEARCH, *resources) == []


# --- route parents ---------------------------------------------------------------------------------------------------
GW = "kubernetes:gateway.networking.k8s.io/v1:"


def gateway(name="internal", ns="gateways"):
    return res(GW + "Gateway", f"gw-{name}", {"metadata": {"name": name, "namespace": ns}, "spec": {
        "gatewayClassName": "oci-internal", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}})


def route(kind, parents, ns="analytics", version="v1"):
    return res(f"kubernetes:gateway.networking.k8s.io/{version}:{kind}", "r", {
        "metadata": {"name": "r", "namespace": ns}, "spec": {"parentRefs": parents,
                                                             "rules": [{"backendRefs": [{"name": "app", "port": 80}]}]}})


def listener_set(parent_ns="gateways", parent="internal", ns="analytics"):
    return res("kubernetes:gateway.networking.x-k8s.io/v1alpha1:XListenerSet", "ls", {
        "metadata": {"name": "ls", "namespace": ns},
        "spec": {"parentRef": {"name": parent, "namespace": parent_ns, "kind": "Gateway"}}})


@pytest.mark.parametrize("resources", [
    [route("HTTPRoute", [{"name": "public-gw", "namespace": "gateway-system"}])],
    [route("GRPCRoute", [{"name": "internal"}])],  # the route's own namespace: another Gateway
    [gateway(), route("TLSRoute", [{"name": "internal", "namespace": "gateways"},
                                   {"name": "edge", "namespace": "gateways"}], version="v1alpha2")],
    [route("TCPRoute", [{"name": "public", "namespace": "x"}], version="v1alpha2")],
    [route("UDPRoute", [{"name": "public", "namespace": "x"}], version="v1alpha2")],
    [gateway(), route("HTTPRoute", [{"name": "ls", "kind": "XListenerSet", "group": "gateway.networking.x-k8s.io"}]),
     listener_set(parent="elsewhere")],
    [route("HTTPRoute", [{"name": "ls", "kind": "ListenerSet"}])],
    [route("HTTPRoute", [{"name": "gw", "kind": "Gateway", "group": "networking.istio.io"}])],
    [route("HTTPRoute", U)], [route("HTTPRoute", [{"name": U, "namespace": "gateways"}])],
    [res(GW + "HTTPRoutePatch", "p", {"metadata": {"name": "r", "namespace": "apps"}, "spec": {
        "parentRefs": [{"name": "public-gw", "namespace": "gateway-system"}]}})],
], ids=["outside-gateway", "default-namespace", "one-of-two-outside", "tcp", "udp", "listener-set-outside-parent",
        "listener-set-undeclared", "other-group", "unknown-refs", "unknown-name", "route-patch"])
def test_a_route_on_a_parent_the_stack_does_not_declare_is_refused(resources):
    assert violations(route_parents.POLICY_NAME, *resources)


@pytest.mark.parametrize("resources", [
    [gateway(), route("HTTPRoute", [{"name": "internal", "namespace": "gateways"}])],
    [gateway(ns="analytics"), route("GRPCRoute", [{"name": "internal", "sectionName": "http"}])],
    [route("HTTPRoute", [{"group": "", "kind": "Service", "name": "app"}])],
    [gateway(), listener_set(), route("HTTPRoute", [{"name": "ls", "kind": "XListenerSet",
                                                     "group": "gateway.networking.x-k8s.io"}])],
    [route("HTTPRoute", [])],
], ids=["declared-gateway", "same-namespace-default", "mesh-service", "listener-set-on-declared", "no-parents"])
def test_a_route_on_a_declared_gateway_or_a_service_passes(resources):
    assert violations(route_parents.POLICY_NAME, *resources) == []
