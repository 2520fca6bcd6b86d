"""Every namespace the platform wall protects (non-tenant, not kube-system) is kept free of node-address and
load-balancer paths in a stack with tenants (policies/security/platform_wall.py)."""
from __future__ import annotations

import pytest

from oke_rdma import walls
from policies.security import platform_wall
from policies.security.platform_wall import NAME
from tests.policies.test_injected_settings import tenant
from tests.policies.test_policies import U, messages, res, run

SVC = "kubernetes:core/v1:Service"
NLB_KEEPS_SOURCE = {"oci.oraclecloud.com/load-balancer-type": "nlb",
                    "oci-network-load-balancer.oraclecloud.com/is-preserve-source": "true"}


def service(spec, ns="monitoring", annotations=None):
    meta = {"name": "s", "namespace": ns, **({"annotations": annotations} if annotations else {})}
    return res(SVC, "s", {"metadata": meta, "spec": {"selector": {"app": "grafana"},
                                                     "ports": [{"port": 80}], **spec}})


def pod(spec, ns="monitoring", kind="Pod"):
    if kind == "Pod":
        return res("kubernetes:core/v1:Pod", "p", {"metadata": {"name": "p", "namespace": ns}, "spec": spec})
    return res(f"kubernetes:apps/v1:{kind}", "p", {"metadata": {"name": "p", "namespace": ns}, "spec": {
        "selector": {"matchLabels": {"app": "p"}}, "template": {"metadata": {"labels": {"app": "p"}},
                                                                 "spec": spec}}})


def test_the_packs_open_namespaces_are_the_walls():
    assert platform_wall.OPEN_TO_TENANTS == frozenset(walls.OPEN_TO_TENANTS)


@pytest.mark.parametrize("ns", ["monitoring", "kueue-system", "default", "gpu-operator"])
@pytest.mark.parametrize("spec, annotations", [
    ({"type": "NodePort"}, None),
    ({"type": "NodePort", "externalTrafficPolicy": "Cluster"}, None),
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Cluster"}, NLB_KEEPS_SOURCE),
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}, None),  # OCI's flexible LB: a proxy
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}, {"oci.oraclecloud.com/load-balancer-type": "nlb"}),
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "loadBalancerClass": "x.io/lb"}, NLB_KEEPS_SOURCE),
    ({"type": U}, None),
    ({"type": "NodePort", "externalTrafficPolicy": U}, None),
])
def test_node_and_proxy_paths_into_a_walled_namespace_are_refused(ns, spec, annotations):
    [found] = messages(run(*tenant(), service(spec, ns, annotations), policy=NAME), NAME)
    assert f"namespace {ns!r}, which the platform wall protects" in found


@pytest.mark.parametrize("spec, annotations", [
    ({"type": "ClusterIP"}, None),
    ({}, None),
    ({"type": "NodePort", "externalTrafficPolicy": "Local"}, None),
    ({"type": "LoadBalancer", "externalTrafficPolicy": "Local"}, NLB_KEEPS_SOURCE),
    ({"type": "ExternalName", "externalName": "grafana.monitoring.svc"}, None),
])
def test_services_that_keep_the_clients_identity_pass(spec, annotations):
    assert messages(run(*tenant(), service(spec, annotations=annotations), policy=NAME), NAME) == []


def test_kube_system_tenants_and_stacks_without_tenants_are_not_this_rules():
    node_port = {"type": "NodePort"}
    assert messages(run(*tenant(), service(node_port, ns="kube-system"), policy=NAME), NAME) == []
    assert messages(run(*tenant(), service(node_port, ns="research"), policy=NAME), NAME) == []  # the tenant rule's
    assert messages(run(service(node_port), policy=NAME), NAME) == []


def test_an_unknown_namespace_fails_closed():
    svc = res(SVC, "s", {"metadata": {"name": "s", "namespace": U}, "spec": {"type": "NodePort"}})
    [found] = messages(run(*tenant(), svc, policy=NAME), NAME)
    assert "an unknown namespace" in found


@pytest.mark.parametrize("kind", ["Pod", "Deployment", "DaemonSet"])
def test_a_host_port_in_a_walled_namespace_is_refused_and_a_container_port_passes(kind):
    def spec(port):
        return {"containers": [{"name": "c", "image": "quay.io/prometheus/node-exporter:v1.9.1",
                                "ports": [{"containerPort": 9100, **port}]}]}
    [found] = messages(run(*tenant(), pod(spec({"hostPort": 9100}), kind=kind), policy=NAME), NAME)
    assert "hostPort 9100" in found
    assert messages(run(*tenant(), pod(spec({}), kind=kind), policy=NAME), NAME) == []
    unknown = {"containers": [{"name": "c", "image": "x", "ports": U}]}
    assert messages(run(*tenant(), pod(unknown, kind=kind), policy=NAME), NAME)


def test_a_host_networked_pod_is_left_to_the_node_escape_rule():
    spec = {"hostNetwork": True, "containers": [{"name": "c", "image": "x", "ports": [
        {"containerPort": 9100, "hostPort": 9100}]}]}
    assert messages(run(*tenant(), pod(spec), policy=NAME), NAME) == []
