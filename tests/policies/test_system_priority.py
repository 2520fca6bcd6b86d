"""System priorities only for the system: a pod naming system-node-critical or system-cluster-critical is refused
outside kube-system and the node-agent namespaces — in a tenant's namespace (even one configured as a node agent's),
in any namespace a consumer stack does not declare, in every workload kind whose pod spec the pack reads — and an
unknown class or namespace fails closed."""
from __future__ import annotations

import pytest

from tests.policies.test_node_agents import found, gpu_tenant
from tests.policies.test_policies import U, res
from tests.policies.test_pod_security import POD, namespace

RULE = "system-priority-only-for-node-agents"
SPEC = {"containers": [{"name": "c", "image": "i"}]}


def pod(ns, cls, kind=POD):
    spec = {**SPEC, "priorityClassName": cls}
    if kind == POD:
        return res(kind, "p", {"metadata": {"name": "p", "namespace": ns}, "spec": spec})
    return res(kind, "w", {"metadata": {"name": "w", "namespace": ns},
                           "spec": {"selector": {}, "template": {"metadata": {}, "spec": spec}}})


@pytest.mark.parametrize("cls", ["system-node-critical", "system-cluster-critical", "System-Node-Critical"])
@pytest.mark.parametrize("kind", [POD, "kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:Deployment",
                                  "kubernetes:batch/v1:Job"])
def test_a_system_priority_in_a_tenant_namespace_is_refused(cls, kind):
    got = found(RULE, *gpu_tenant("research"), pod("research", cls, kind))
    assert len(got) == 1 and "system priority" in got[0] and "namespace 'research'" in got[0], got


def test_a_consumer_stack_deploying_into_an_undeclared_namespace_is_refused():
    assert found(RULE, pod("research", "system-node-critical"))


@pytest.mark.parametrize("ns", ["kube-system", "gpu-operator", "cilium", "monitoring"])
def test_kube_system_and_node_agents_may(ns):
    assert found(RULE, namespace(ns, "privileged"), pod(ns, "system-node-critical", "kubernetes:apps/v1:DaemonSet")) \
        == []


@pytest.mark.parametrize("cls", [None, "", "okerdma-dev-tenant-high", "high-priority", "critical-system"])
def test_other_classes_pass_anywhere(cls):
    spec_pod = pod("research", cls) if cls is not None else res(POD, "p", {
        "metadata": {"name": "p", "namespace": "research"}, "spec": SPEC})
    assert found(RULE, *gpu_tenant("research"), spec_pod) == []


def test_a_tenant_namespace_configured_as_a_node_agent_one_still_refuses():
    got = found(RULE, *gpu_tenant("research"), pod("research", "system-node-critical"),
                config={"nodeAgentNamespaces": ["research", "gpu-operator"]})
    assert len(got) == 1


def test_unknowns_fail_closed():
    assert found(RULE, namespace("gpu-operator", "privileged"), pod("gpu-operator", U))
    assert found(RULE, pod(U, "system-node-critical"))
