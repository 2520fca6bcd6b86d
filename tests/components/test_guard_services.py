"""The guard's tenant-services policy: the Services a tenant creates itself (not declared in the stack, so never
judged by the packs) stay inside the walls and off the internet — evaluated with cel-python as the other guard
policies are (tests/components/test_guard.py)."""

from __future__ import annotations

import pytest

from oke_rdma.guard_services import LB_TYPE, NLB_INTERNAL, PRESERVE_SOURCE, service_policies
from tests.components.test_guard import OBJECTS, failures

POLICY = next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicy"
              and o["metadata"]["name"] == "okerdma-dev-tenant-services")
SAFE_NLB = {LB_TYPE: "nlb", NLB_INTERNAL: "true", PRESERVE_SOURCE: "true"}


def service(spec: dict, annotations: dict | None = None) -> dict:
    metadata: dict = {"name": "s", "namespace": "analytics"}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata,
            "spec": {"ports": [{"port": 80}], **spec}}


def lb(annotations: dict, **spec) -> dict:
    return service({"type": "LoadBalancer", "externalTrafficPolicy": "Local", **spec}, annotations)


@pytest.mark.parametrize("manifest", [
    service({}),
    service({"type": "ClusterIP", "selector": {"app": "a"}}),
    service({"clusterIP": "None"}),
    lb(SAFE_NLB),
    lb({LB_TYPE: "nlb", NLB_INTERNAL: "T", PRESERVE_SOURCE: "1"}),
    service({"type": "ExternalName", "externalName": "api.example.com"}),
    service({"type": "ExternalName", "externalName": "objectstorage.sa-saopaulo-1.oraclecloud.com."}),
    service({"type": "ExternalName", "externalName": "example.org"}),
], ids=["default-type", "cluster-ip", "headless", "internal-nlb-keeping-source", "parsebool-spellings",
        "external-host", "external-fqdn-dot", "two-labels-not-a-namespace"])
def test_tenant_services_policy_admits_services_inside_the_walls(manifest):
    """ClusterIP and headless Services, an internal network load balancer that keeps the client's address, and an
    ExternalName naming a host outside the cluster are admitted."""
    assert failures(POLICY, manifest) == []


@pytest.mark.parametrize("manifest,message", [
    (service({"externalIPs": ["10.0.0.9"]}), "externalIPs"),
    (service({"type": "NodePort"}), "NodePort"),
    (service({"type": "NodePort", "externalTrafficPolicy": "Local"}), "NodePort"),
    (lb(SAFE_NLB, externalTrafficPolicy="Cluster"), "externalTrafficPolicy: Local"),
    (service({"type": "LoadBalancer"}, SAFE_NLB), "externalTrafficPolicy: Local"),
    (lb({}), "network load balancers"),
    (lb({**SAFE_NLB, LB_TYPE: "lb"}), "network load balancers"),
    (lb({LB_TYPE: "nlb", PRESERVE_SOURCE: "true"}), "internal"),
    (lb({**SAFE_NLB, NLB_INTERNAL: "yes"}), "internal"),
    (lb({LB_TYPE: "nlb", NLB_INTERNAL: "true"}), "keep the client's address"),
    (lb({**SAFE_NLB, PRESERVE_SOURCE: "false"}), "keep the client's address"),
    (lb(SAFE_NLB, loadBalancerClass="example.com/other"), "loadBalancerClass"),
    (service({"type": "ExternalName", "externalName": "grafana.monitoring"}), "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "svc.Research."}), "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "prometheus.monitoring.svc.cluster.local"}),
     "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "x.cluster.local"}), "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "kubernetes"}), "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "10.96.0.10"}), "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "fd00::1"}), "inside the cluster"),
    (service({"type": "ExternalName", "externalName": "kube-dns.kube-system"}), "inside the cluster"),
], ids=["external-ips", "node-port", "node-port-local", "lb-policy-cluster", "lb-policy-unset", "flexible-lb-default",
        "flexible-lb", "public-nlb", "internal-not-parsebool", "no-preserve-source", "preserve-source-false",
        "other-class", "platform-service", "tenant-namespace-any-case", "cluster-fqdn", "cluster-local",
        "single-label", "ipv4", "ipv6", "system-namespace"])
def test_tenant_services_policy_refuses_services_past_the_walls(manifest, message):
    """externalIPs, NodePorts, every LoadBalancer but an internal source-keeping network load balancer with policy
    Local, and ExternalNames inside the cluster (addresses, one label, cluster suffixes, a known namespace) are
    refused, each with its reason."""
    found = failures(POLICY, manifest)
    assert found and any(message in m for m in found), found


def test_tenant_services_binding_selects_every_tenant_namespace_and_only_with_tenants():
    """The policy binds to every namespace labelled okerdma.io/tenant on CREATE and UPDATE; a stack without tenants
    gets none, and the namespaces an ExternalName may not name include the platform's, the system's and default."""
    binding = next(o for o in OBJECTS if o["kind"] == "ValidatingAdmissionPolicyBinding"
                   and o["spec"]["policyName"] == "okerdma-dev-tenant-services")
    assert binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"] == [
        {"key": "okerdma.io/tenant", "operator": "Exists"}]
    assert POLICY["spec"]["matchConstraints"]["resourceRules"][0]["operations"] == ["CREATE", "UPDATE"]
    from oke_rdma.guard import policies

    assert not [o for o in policies("p", {}, {}, ["monitoring"]) if "tenant-services" in o["metadata"]["name"]]
    for name in ("grafana.default", "x.gpu-operator", "x.kube-public"):
        found = failures(POLICY, service({"type": "ExternalName", "externalName": name}))
        assert found, name
    (own,) = [o for o in service_policies("q", ["team-a"]) if o["kind"] == "ValidatingAdmissionPolicy"]
    assert failures(own, service({"type": "ExternalName", "externalName": "grafana.monitoring"})) == []


def test_the_guard_reads_the_annotations_as_the_packs_do():
    """The admission policy and the packs name the same cloud-controller annotations and read booleans the same way
    (Go's ParseBool): a copy in one that drifted would let kubectl create what the packs refuse."""
    from oke_rdma import guard_services
    from policies.security import public_endpoints, tenant_pods

    assert guard_services.LB_TYPE == tenant_pods.LB_TYPE
    assert guard_services.PRESERVE_SOURCE == tenant_pods.PRESERVE_SOURCE
    assert guard_services.NLB_INTERNAL == public_endpoints.INTERNAL_ANNOTATION["nlb"]
    assert set(guard_services.PARSEBOOL_TRUE) == set(public_endpoints.PARSEBOOL_TRUE)
