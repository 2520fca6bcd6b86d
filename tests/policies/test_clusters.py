"""Objects sent to another cluster through an explicit Kubernetes provider are judged against that cluster's
namespaces and tenancy: a namespace the stack declares on its own cluster says nothing about the same name elsewhere,
and this platform's node-agent namespaces count on another cluster only where the stack declares them there
(policies/security/_clusters.py). A stack whose objects all go to one cluster is judged as before."""
from __future__ import annotations

import dataclasses

import pytest
from pulumi_policy import PolicyProviderResource
from pulumi_policy.proxy import unknown_checking_proxy

from policies.security._clusters import AMBIENT, cluster_key
from tests.policies.test_policies import U, messages, res, run
from tests.policies.test_pod_security import POD, namespace

K8S = "pulumi:providers:kubernetes"
OKE = res("oci:ContainerEngine/cluster:Cluster", "oke", {"name": "oke", "type": "ENHANCED_CLUSTER"})
HOME = res(K8S, "home", {"kubeconfig": "apiVersion: v1 # home"}, deps={"kubeconfig": [OKE]})
MGMT = res(K8S, "mgmt", {"kubeconfig": "apiVersion: v1 # management"})
ESCAPE, RDMA, DECLARED, PRIORITY = ("node-escape-only-in-node-agent-namespaces", "rdma-pods-in-privileged-namespaces",
                                    "workload-namespace-declared", "system-priority-only-for-node-agents")
HOST_ROOT = {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
             "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}
HOST_NETWORK = {"hostNetwork": True, "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}


def on(provider, resource):
    """``resource`` sent through ``provider`` (a registration's provider reference: ``<urn>::<id>``)."""
    return dataclasses.replace(resource, provider=f"{provider.urn}::id-{provider.name}",
                               urn=resource.urn + (f"-{provider.name}" if provider is not HOME else ""))


def pod(ns, spec, name="p"):
    return res(POD, name, {"metadata": {"name": name, "namespace": ns}, "spec": spec})


def found(policy, *resources):
    return messages(run(OKE, HOME, MGMT, *resources, policy=policy), policy)


def test_node_agent_namespaces_of_this_cluster_do_not_count_on_another_cluster():
    assert found(ESCAPE, on(HOME, namespace("gpu-operator", "privileged")),
                 on(HOME, pod("gpu-operator", HOST_ROOT))) == []
    got = found(ESCAPE, on(HOME, namespace("gpu-operator", "privileged")), on(MGMT, pod("gpu-operator", HOST_ROOT)))
    assert len(got) == 1 and "namespace 'gpu-operator'" in got[0] and "provider 'mgmt'" in got[0], got


def test_a_node_agent_namespace_the_stack_declares_on_the_other_cluster_counts_there():
    assert found(ESCAPE, on(MGMT, namespace("gpu-operator", "privileged")), on(MGMT, pod("gpu-operator", HOST_ROOT))) \
        == []


def test_a_privileged_namespace_of_this_cluster_does_not_admit_rdma_pods_on_another():
    research = [on(HOME, namespace("research", "privileged")),
                on(HOME, res("kubernetes:core/v1:ResourceQuota", "q", {
                    "metadata": {"name": "gpu", "namespace": "research"},
                    "spec": {"hard": {"requests.nvidia.com/gpu": "8"}}}))]
    assert found(RDMA, *research, on(HOME, pod("research", HOST_NETWORK))) == []
    got = found(RDMA, *research, on(MGMT, pod("research", HOST_NETWORK)))
    assert len(got) == 1 and "cannot be verified" in got[0] and "another cluster" in got[0], got
    # a platform namespace's name does not pass a pod on the other cluster either
    got = found(RDMA, on(HOME, namespace("gpu-operator", "privileged")), on(MGMT, pod("gpu-operator", HOST_NETWORK)))
    assert len(got) == 1, got


def test_a_namespace_declared_on_this_cluster_is_not_declared_on_another():
    deployment = res("kubernetes:apps/v1:Deployment", "d", {"metadata": {"name": "d", "namespace": "apps"}, "spec": {
        "template": {"spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}})
    assert found(DECLARED, on(HOME, namespace("apps", "restricted")), on(HOME, deployment)) == []
    assert len(found(DECLARED, on(HOME, namespace("apps", "restricted")), on(MGMT, deployment))) == 1
    assert found(DECLARED, on(MGMT, namespace("apps", "restricted")), on(MGMT, deployment)) == []


def test_each_clusters_tenants_are_its_own():
    """A tenant namespace named like a node-agent namespace on the other cluster takes nothing from this one, and
    is a tenant's there: node escape in it is refused."""
    tenant = on(MGMT, res("kubernetes:core/v1:Namespace", "ns-t", {"metadata": {"name": "monitoring", "labels": {
        "okerdma.io/tenant": "t", "pod-security.kubernetes.io/enforce": "privileged"}}}))
    assert found(ESCAPE, tenant, on(HOME, pod("monitoring", HOST_ROOT))) == []
    got = found(ESCAPE, tenant, on(MGMT, pod("monitoring", HOST_ROOT, "q")))
    assert len(got) == 1 and "namespace 'monitoring'" in got[0], got


def test_system_priority_on_another_cluster_only_in_its_kube_system_or_a_declared_node_agent_namespace():
    spec = {"priorityClassName": "system-node-critical", "containers": [{"name": "c", "image": "r.io/a:1"}]}
    assert found(PRIORITY, on(MGMT, pod("kube-system", spec))) == []
    assert found(PRIORITY, on(HOME, pod("monitoring", spec))) == []
    assert len(found(PRIORITY, on(HOME, pod("apps", spec)), on(MGMT, pod("monitoring", spec)))) == 2


def test_a_provider_whose_target_is_unknown_is_another_cluster():
    unknown = res(K8S, "later", {"kubeconfig": U})
    got = messages(run(OKE, HOME, unknown, on(HOME, namespace("gpu-operator", "privileged")),
                       on(unknown, pod("gpu-operator", HOST_ROOT)), policy=ESCAPE), ESCAPE)
    assert len(got) == 1 and "provider 'later'" in got[0], got


def test_without_an_own_cluster_every_cluster_counts_only_what_the_stack_declares_there():
    other = res(K8S, "other", {"kubeconfig": "apiVersion: v1 # other"})
    got = messages(run(MGMT, other, on(MGMT, pod("gpu-operator", HOST_ROOT)),
                       on(other, namespace("gpu-operator", "privileged")),
                       on(other, pod("gpu-operator", HOST_ROOT, "q")), policy=ESCAPE), ESCAPE)
    assert len(got) == 1 and "provider 'mgmt'" in got[0], got


def test_one_cluster_is_judged_as_before_whatever_its_provider():
    assert found(ESCAPE, on(MGMT, namespace("x", "privileged")), on(MGMT, pod("gpu-operator", HOST_ROOT))) == []


def _provider(**props):
    return PolicyProviderResource(K8S, unknown_checking_proxy(props), f"urn:pulumi:s::p::{K8S}::k", "k")


@pytest.mark.parametrize("a, b, same", [
    ({"kubeconfig": "x"}, {"kubeconfig": "x", "namespace": "apps", "clusterIdentifier": "other"}, True),
    ({"kubeconfig": "x"}, {"kubeconfig": "x", "context": "mgmt"}, False),
    ({"kubeconfig": "x"}, {"kubeconfig": "x", "cluster": "mgmt"}, False),
    ({"kubeconfig": "x"}, {"kubeconfig": "y", "clusterIdentifier": "x"}, False),
    ({}, {"namespace": "apps"}, True),
    ({}, {"renderYamlToDirectory": "out"}, False),
    ({"kubeconfig": "x"}, {"kubeconfig": U}, False),
])
def test_the_cluster_of_a_provider_is_what_it_connects_with(a, b, same):
    assert (cluster_key(_provider(**a)) == cluster_key(_provider(**b))) is same
    assert cluster_key(None) == cluster_key(_provider()) == AMBIENT


def test_a_shared_namespace_of_this_cluster_does_not_make_another_clusters_queue_shared():
    """The placement pack judges per cluster too: a ClusterQueue on the other cluster admitting 'evaluation' (shared
    here, unknown there) with a flavor on a shared pool is refused; on this cluster it passes."""
    from tests.policies.test_policies_sharing import RULE, by_name, flavor, namespace as tenant, node_pool, queue
    base = [node_pool("shared", "time-slicing"), on(HOME, flavor("f-shared", "shared")),
            on(HOME, tenant("evaluation", "shared"))]
    assert messages(run(OKE, HOME, MGMT, *base, on(HOME, queue("cq", by_name("evaluation"), "f-shared")),
                        policy=RULE), RULE) == []
    got = messages(run(OKE, HOME, MGMT, *base, on(MGMT, flavor("f-shared", "shared")),
                       on(MGMT, queue("cq", by_name("evaluation"), "f-shared")), policy=RULE), RULE)
    assert len(got) == 1 and "namespace 'evaluation' is dedicated" in got[0] and "another cluster" in got[0], got


def test_each_pack_carries_the_same_cluster_module():
    """The packs are published alone, so each has its own copy; the copies are the same file."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "policies"
    assert (root / "security" / "_clusters.py").read_text() == (root / "placement" / "_clusters.py").read_text()


def test_the_stacks_own_cluster_is_the_one_whose_kubeconfig_derives_from_its_oke_cluster():
    """With two clusters, configured node-agent namespaces hold on the own cluster without being declared; a provider
    not derived from the stack's OKE cluster is another cluster, where they do not."""
    other_pod = on(MGMT, pod("apps", {"containers": [{"name": "c", "image": "r.io/a:1"}]}, "q"))
    assert found(ESCAPE, on(HOME, pod("monitoring", HOST_ROOT)), other_pod) == []
    plain = res(K8S, "home", {"kubeconfig": "apiVersion: v1 # home"})  # same cluster, no OKE dependency
    got = messages(run(OKE, plain, MGMT, on(plain, pod("monitoring", HOST_ROOT)), other_pod, policy=ESCAPE), ESCAPE)
    assert len(got) == 1 and "namespace 'monitoring'" in got[0], got


def test_the_oke_rdma_cluster_provider_is_recognised_as_the_stacks_own(dev_plan_file):
    """In the dev plan, the program's provider (kubeconfig from getClusterKubeConfig of its OKE cluster) is this
    stack's cluster when another provider's object joins the stack."""
    import json
    from types import SimpleNamespace as NS

    from policies.security._clusters import views
    plan = json.loads(dev_plan_file[0].read_text())
    by_urn = {r["urn"]: r for r in plan["resources"]}
    resources = {}
    for r in plan["resources"]:
        deps = {k: [NS(resource_type=by_urn[u]["type"]) for u in v if u in by_urn]
                for k, v in r["propertyDependencies"].items()}
        resources[r["urn"]] = NS(resource_type=r["type"], urn=r["urn"], name=r["name"], props=r["inputs"],
                                 property_dependencies=deps, provider=None)
    for r in plan["resources"]:
        if r["provider"]:
            provider = by_urn[r["provider"].rsplit("::", 1)[0]]
            resources[r["urn"]].provider = NS(resource_type=provider["type"], urn=provider["urn"],
                                              name=provider["name"], props=provider["inputs"])
    extra = NS(resource_type=POD, urn="urn:x", name="x", props={}, property_dependencies={},
               provider=NS(resource_type=K8S, urn="urn:mgmt", name="mgmt", props={"kubeconfig": "other"}))
    split = views([*resources.values(), extra])
    assert len(split) == 2 and [v.own for v in split if "urn:x" not in v.urns] == [True]
    assert [v.own for v in split if "urn:x" in v.urns] == [False]
