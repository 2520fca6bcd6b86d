"""Kueue objects that decide who gets the tenants' GPUs: ClusterQueues select one namespace, a cohort holding tenants'
queues holds only tenants' queues, and GPU pods run only in tenant (or node-agent) namespaces."""
from __future__ import annotations

import pytest

from offline.policy_eval import evaluate
from policies.security import tenant_queues
from policies.security.pack import PACK_NAME, POLICIES
from tests.policies.test_policies import U, res
from tests.policies.test_tenant_isolation import tenant

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
NAME = "kubernetes.io/metadata.name"


def violations(rule, *resources):
    cfg = {"all": "disabled", rule: {"enforcementLevel": "mandatory"}}
    report = evaluate(POLICIES, list(resources), PACK_NAME, policy_config=cfg)
    return [v.message for v in report.violations if v.policy == rule]


def cq(name, selector=None, cohort=None, field="cohortName", **extra):
    spec = {**({"namespaceSelector": selector} if selector is not None else {}),
            **({field: cohort} if cohort is not None else {}), **extra}
    return res(KUEUE + "ClusterQueue", f"cq-{name}", {"metadata": {"name": name}, "spec": spec})


def pin(ns):
    return {"matchLabels": {NAME: ns}}


def cohort(name, parent):
    return res(KUEUE + "Cohort", f"co-{name}", {"metadata": {"name": name}, "spec": {"parentName": parent}})


@pytest.mark.parametrize("selector", [{}, {"matchLabels": {"team": "research"}},
                                      {"matchExpressions": [{"key": NAME, "operator": "NotIn", "values": ["x"]}]},
                                      {"matchExpressions": [{"key": NAME, "operator": "In", "values": ["a", "b"]}]},
                                      {"matchLabels": {NAME: U}}, U])
def test_a_cluster_queue_selecting_more_than_one_namespace_is_refused(selector):
    assert violations(tenant_queues.SELECT_ONE, cq("research", selector))


@pytest.mark.parametrize("selector", [pin("research"), None,
                                      {"matchExpressions": [{"key": NAME, "operator": "In", "values": ["research"]}]},
                                      {"matchLabels": {NAME: "research", "team": "r"}}])
def test_a_cluster_queue_naming_one_namespace_or_none_passes(selector):
    assert not violations(tenant_queues.SELECT_ONE, cq("research", selector))


@pytest.mark.parametrize("stranger", [
    cq("apps", pin("apps"), "tenants"),                     # a non-tenant namespace in the tenants' cohort
    cq("apps", pin("apps"), "tenants", field="cohort"),     # v1beta1's field name
    cq("apps", {}, "tenants"),
    cq("apps", pin("apps"), U),                             # an unknown cohort may be the tenants'
    cq("apps", pin("apps"), "child")])                      # a child cohort of the tenants' tree
def test_a_stranger_joining_the_tenants_cohort_is_refused(stranger):
    found = violations(tenant_queues.COHORTS, tenant("research"), cohort("child", "tenants"),
                       cq("research", pin("research"), "tenants"), stranger)
    assert found and all("cq-apps" in f or "'apps'" in f for f in found), found


@pytest.mark.parametrize("other", [cq("apps", pin("apps"), "batch"), cq("apps", pin("apps")),
                                   cq("analytics", pin("analytics"), "tenants")])
def test_tenants_sharing_a_cohort_and_strangers_apart_pass(other):
    assert not violations(tenant_queues.COHORTS, tenant("research"), tenant("analytics"),
                          cq("research", pin("research"), "tenants"), other)


def gpu_deployment(ns, gpu=True, toleration=False, queue=None):
    labels = {"kueue.x-k8s.io/queue-name": queue} if queue else {}
    container = {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "8"} if gpu else {"cpu": "1"}}}
    tolerations = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}] if toleration else []
    return res("kubernetes:apps/v1:Deployment", "d", {"metadata": {"name": "d", "namespace": ns, "labels": labels},
                                                      "spec": {"template": {"spec": {"containers": [container],
                                                                                     "tolerations": tolerations}}}})


def mig_pod(ns):
    return res("kubernetes:core/v1:Pod", "m", {"metadata": {"namespace": ns}, "spec": {"containers": [
        {"name": "c", "image": "i", "resources": {"requests": {"nvidia.com/mig-1g.10gb": "1"}}}]}})


@pytest.mark.parametrize("workload", [gpu_deployment("batch"), gpu_deployment("batch", toleration=True),
                                      mig_pod("batch"),
                                      res("kubernetes:core/v1:Pod", "p", {"metadata": {"namespace": "batch"},
                                                                          "spec": U})])
def test_gpu_pods_outside_tenant_namespaces_are_refused(workload):
    assert violations(tenant_queues.GPU_PODS, tenant("research"), workload)
    assert violations(tenant_queues.GPU_PODS, workload)  # a stack without tenants too


@pytest.mark.parametrize("workload", [gpu_deployment("research"), gpu_deployment("batch", gpu=False),
                                      gpu_deployment("gpu-operator"), gpu_deployment("batch", queue="batch"),
                                      gpu_deployment("batch", gpu=False, toleration=True)])  # tolerating takes none
def test_gpu_pods_in_tenant_or_node_agent_namespaces_or_queued_pass(workload):
    assert not violations(tenant_queues.GPU_PODS, tenant("research"), workload)
