"""Red-team programs of the seventh pass: globally routable IPv6 addresses on load balancers the stack calls private
(OCI load balancers, network load balancers, LoadBalancer Services and the Services Helm values make), and tenancy on
a cluster whose pod network voids the storage walls. Registered into ``programs.CASES`` on import."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, case, namespace, release

SUBNET = "ocid1.subnet.oc1..aaaaaaaalbsubnet"
INTERNAL_NLB = {"oci.oraclecloud.com/load-balancer-type": "nlb",
                "oci-network-load-balancer.oraclecloud.com/internal": "true"}


@case("network", "no-public-endpoints")
def private_nlb_dual_stack(bad):
    """A private NLB asking for IPv4 and IPv6: the IPv6 address comes from the subnet's global prefix."""
    oci.networkloadbalancer.NetworkLoadBalancer("nlb", compartment_id=C, display_name="inference", subnet_id=SUBNET,
                                                is_private=True, nlb_ip_version="IPV4_AND_IPV6" if bad else "IPV4")


@case("network", "no-public-endpoints")
def private_nlb_global_ipv6_prefix(bad):
    """Dual-stack pinned to a prefix: a GUA prefix is global, a unique local one (the control) is not."""
    prefix = "2603:c020:400d:5d00::/64" if bad else "fd00:10:20::/64"
    oci.networkloadbalancer.NetworkLoadBalancer("nlb", compartment_id=C, display_name="inference", subnet_id=SUBNET,
                                                is_private=True, nlb_ip_version="IPV4_AND_IPV6",
                                                subnet_ipv6cidr=prefix)


@case("network", "no-public-endpoints")
def private_nlb_reserved_ipv6(bad):
    """A reserved IPv6 address handed to a private NLB."""
    reserved = "ocid1.ipv6.oc1.sa-saopaulo-1.aaaareserved" if bad else "ocid1.privateip.oc1.sa-saopaulo-1.aaaares"
    oci.networkloadbalancer.NetworkLoadBalancer("nlb", compartment_id=C, display_name="inference", subnet_id=SUBNET,
                                                is_private=True, reserved_ips=[{"id": reserved}])


@case("network", "no-public-endpoints")
def private_flexible_lb_ipv6_mode(bad):
    """A private flexible load balancer in IPv6 mode."""
    oci.loadbalancer.LoadBalancer("lb", compartment_id=C, display_name="inference", shape="flexible",
                                  subnet_ids=[SUBNET], is_private=True, ip_mode="IPV6" if bad else "IPV4",
                                  shape_details={"minimum_bandwidth_in_mbps": 10, "maximum_bandwidth_in_mbps": 100})


@case("network", "no-public-endpoints")
def internal_nlb_service_dual_stack(bad):
    """An internal NLB Service whose IP families include IPv6: OCI's cloud controller gives the NLB an IPv6 address
    from the subnet's prefix whatever the internal annotation says."""
    namespace("apps", "restricted")
    families = ({"ipFamilyPolicy": "RequireDualStack", "ipFamilies": ["IPv4", "IPv6"]} if bad
                else {"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4"]})
    k8s.core.v1.Service("svc", metadata={"name": "inference", "namespace": "apps", "annotations": INTERNAL_NLB},
                        spec={"type": "LoadBalancer", "selector": {"app": "inference"},
                              "ports": [{"port": 443, "targetPort": 8443}], **families})


@case("network", "no-public-endpoints")
def internal_lb_service_prefer_dual_stack(bad):
    """An internal flexible-LB Service that prefers dual-stack: dual-stack wherever its subnet has IPv6."""
    namespace("apps", "restricted")
    k8s.core.v1.Service("svc", metadata={"name": "inference", "namespace": "apps", "annotations": {
        "service.beta.kubernetes.io/oci-load-balancer-internal": "true"}},
        spec={"type": "LoadBalancer", "selector": {"app": "inference"}, "ports": [{"port": 443}],
              "ipFamilyPolicy": "PreferDualStack" if bad else "SingleStack"})


@case("network", "helm-values-exposure")
def helm_values_internal_service_dual_stack(bad):
    """A chart's internal LoadBalancer Service made dual-stack through the release's values."""
    service = {"type": "LoadBalancer", "annotations": INTERNAL_NLB,
               "ipFamilyPolicy": "RequireDualStack" if bad else "SingleStack",
               "ipFamilies": ["IPv4", "IPv6"] if bad else ["IPv4"]}
    release({"prometheus": {"service": service}})
