"""IPv6 on load balancers the stack calls private: an OCI load balancer or network load balancer, a LoadBalancer
Service (declared, in Helm values, in a KubeRay resource, or patched) that gets an IPv6 address from a globally
routable prefix is refused by ``no-public-endpoints``; IPv4 only, a unique local pin, and a stack that allows public
load balancers pass."""
from __future__ import annotations

import pytest

from policies.security import _lb_ipv6
from policies.security.exposure_paths import custom_resource_exposure, exposure_problems
from policies.security.object_paths import patch_problems
from tests.policies.test_policies import U, messages, res, run

RULE = "no-public-endpoints"
LB, NLB = _lb_ipv6.LOAD_BALANCER, _lb_ipv6.NETWORK_LOAD_BALANCER
SVC, PATCH = "kubernetes:core/v1:Service", "kubernetes:core/v1:ServicePatch"
INTERNAL_NLB = {"oci.oraclecloud.com/load-balancer-type": "nlb",
                "oci-network-load-balancer.oraclecloud.com/internal": "true"}
INTERNAL_LB = {"service.beta.kubernetes.io/oci-load-balancer-internal": "true"}
GUA, ULA = "2603:c020:400d:5d7e::10", "fd00:10:20::10"


def nlb(**extra):
    return {"isPrivate": True, "subnetId": "ocid1.subnet.oc1..s", "displayName": "n", **extra}


def lb(**extra):
    return {"isPrivate": True, "shape": "flexible", "subnetIds": ["ocid1.subnet.oc1..s"], **extra}


def service(annotations=INTERNAL_NLB, **spec):
    return {"metadata": {"name": "s", "namespace": "apps", "annotations": dict(annotations)},
            "spec": {"type": "LoadBalancer", "ports": [{"port": 443}], **spec}}


def found(type_, props):
    return messages(run(res(type_, "x", props), policy=RULE), RULE)


@pytest.mark.parametrize("type_, props", [
    (NLB, nlb(nlbIpVersion="IPV4_AND_IPV6")), (NLB, nlb(nlbIpVersion="IPV6")),
    (NLB, nlb(nlbIpVersion="IPV4_AND_IPV6", assignedIpv6=GUA)),
    (NLB, nlb(nlbIpVersion="IPV4_AND_IPV6", subnetIpv6cidr="2603:c020:400d:5d00::/64")),
    (NLB, nlb(reservedIps=[{"id": "ocid1.ipv6.oc1.sa-saopaulo-1.aaaareserved"}])),
    (NLB, nlb(nlbIpVersion=U)), (NLB, nlb(nlbIpVersion="ipv4_and_ipv6")), (NLB, nlb(reservedIps=[{"id": U}])),
    (NLB, nlb(nlbIpVersion="IPV4_AND_IPV6", subnetIpv6cidr=U)),
    (LB, lb(ipMode="IPV6")), (LB, lb(ipv6subnetCidr="2603:c020:400d:5d00::/64")),
    (LB, lb(reservedIps=[{"id": "ocid1.ipv6.oc1..r"}])), (LB, lb(ipMode="DUAL")),
    (SVC, service(ipFamilyPolicy="RequireDualStack", ipFamilies=["IPv4", "IPv6"])),
    (SVC, service(ipFamilyPolicy="PreferDualStack")),  # dual-stack wherever the subnet has an IPv6 prefix
    (SVC, service(ipFamilyPolicy="SingleStack", ipFamilies=["IPv6"])),
    (SVC, service(INTERNAL_LB, ipFamilyPolicy="RequireDualStack", ipFamilies=["IPv4", "IPv6"])),  # flexible LB
    (SVC, service({**INTERNAL_NLB, _lb_ipv6.ASSIGNED_IPV6: GUA})),
    (SVC, service(ipFamilyPolicy=U)), (SVC, service(ipFamilies=["IPv5"])), (SVC, service(ipFamilyPolicy="Dual")),
    (SVC, service(loadBalancerIP=GUA)),
])
def test_a_load_balancer_with_a_global_ipv6_address_is_refused(type_, props):
    assert len(found(type_, props)) >= 1


@pytest.mark.parametrize("type_, props", [
    (NLB, nlb()), (NLB, nlb(nlbIpVersion="IPV4")),
    (NLB, nlb(nlbIpVersion="IPV4_AND_IPV6", subnetIpv6cidr="fd00:10:20::/64")),
    (NLB, nlb(nlbIpVersion="IPV6", subnetIpv6cidr="fd00:10:20::/64", assignedIpv6=ULA)),
    (NLB, nlb(reservedIps=[{"id": "ocid1.privateip.oc1..p"}])),
    (LB, lb()), (LB, lb(ipMode="IPV4")),
    (SVC, service()), (SVC, service(ipFamilyPolicy="SingleStack", ipFamilies=["IPv4"])),
    (SVC, service({**INTERNAL_NLB, _lb_ipv6.ASSIGNED_IPV6: ULA}, ipFamilyPolicy="RequireDualStack",
                  ipFamilies=["IPv4", "IPv6"])),
    (SVC, {"metadata": {"name": "s"}, "spec": {"type": "ClusterIP", "ipFamilyPolicy": "RequireDualStack"}}),
])
def test_ipv4_only_or_unique_local_ipv6_passes(type_, props):
    assert found(type_, props) == []


def test_a_stack_that_allows_public_load_balancers_may_use_ipv6():
    config = {"allowPublicLoadBalancers": True}
    assert _lb_ipv6.oci_load_balancer_problems(NLB, nlb(nlbIpVersion="IPV6")) != []
    problems = exposure_problems({"service": {"type": "LoadBalancer", "ipFamilyPolicy": "RequireDualStack"}}, config)
    assert problems == []


def test_helm_values_and_kuberay_services_are_judged_for_ipv6():
    values = {"controller": {"service": {"type": "LoadBalancer", "annotations": INTERNAL_NLB,
                                         "ipFamilyPolicy": "RequireDualStack", "ipFamilies": ["IPv4", "IPv6"]}}}
    assert any("IPv6" in p for p in exposure_problems(values, {}))
    values["controller"]["service"]["ipFamilyPolicy"] = "SingleStack"
    values["controller"]["service"]["ipFamilies"] = ["IPv4"]
    assert exposure_problems(values, {}) == []
    head = {"headService": service(ipFamilyPolicy="PreferDualStack")}
    spec = {"headGroupSpec": head, "workerGroupSpecs": []}
    assert any("IPv6" in p for p in custom_resource_exposure("kubernetes:ray.io/v1:RayCluster", {"spec": spec}, {}))


def test_a_service_patch_that_turns_on_ipv6_is_refused():
    """A patch that leaves spec.type to the live Service (possibly a LoadBalancer) but asks for IPv6 is refused; one
    that sets neither the families nor the annotation, or only IPv4, passes."""
    bad = {"metadata": {"name": "s"}, "spec": {"ipFamilyPolicy": "RequireDualStack", "ipFamilies": ["IPv4", "IPv6"]}}
    assert any("IPv6" in p for p in patch_problems(PATCH, bad, {}))
    assert patch_problems(PATCH, bad, {"allowPublicLoadBalancers": True}) == []
    good = {"metadata": {"name": "s"}, "spec": {"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4"]}}
    assert not any("IPv6" in p for p in patch_problems(PATCH, good, {}))
