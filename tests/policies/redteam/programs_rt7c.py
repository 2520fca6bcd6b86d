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


def _tenant(name: str) -> None:
    k8s.core.v1.Namespace(f"ns-{name}", metadata={"name": name, "labels": {
        "pod-security.kubernetes.io/enforce": "restricted", "okerdma.io/tenant": name}})


def _cluster(options) -> oci.containerengine.Cluster:
    return oci.containerengine.Cluster("oke", compartment_id=C, vcn_id="ocid1.vcn.oc1..aaaavcn",
                                       kubernetes_version="v1.34.1", type="ENHANCED_CLUSTER",
                                       cluster_pod_network_options=options, endpoint_config={
                                           "subnet_id": "ocid1.subnet.oc1..aaaaapi", "is_public_ip_enabled": False,
                                           "nsg_ids": ["ocid1.networksecuritygroup.oc1..aaaacontrolplane"]})


@case("data", "tenant-walls-need-vcn-native-pods")
def flannel_cluster_with_tenants_and_a_workers_export(bad):
    """A hand-written stack: a flannel cluster, two tenants and an FSS export to the workers subnet. Every tenant's
    pod reaches the export as a node, so the export's narrowing to the workers proves nothing."""
    _cluster([{"cni_type": "FLANNEL_OVERLAY" if bad else "OCI_VCN_IP_NATIVE"}])
    _tenant("research"), _tenant("analytics")
    fs = oci.filestorage.FileSystem("fs", availability_domain="AD-1", compartment_id=C)
    mt = oci.filestorage.MountTarget("mt", availability_domain="AD-1", compartment_id=C,
                                     subnet_id="ocid1.subnet.oc1..aaaastorage")
    oci.filestorage.Export("ex", export_set_id=mt.export_set_id, file_system_id=fs.id, path="/shared",
                           export_options=[{"source": "10.0.16.0/20", "access": "READ_WRITE",
                                            "identity_squash": "ROOT", "require_privileged_source_port": True}])


@case("data", "tenant-walls-need-vcn-native-pods")
def cluster_offering_flannel_beside_vcn_native(bad):
    """A cluster that offers node pools both CNIs: one flannel pool is enough to void the walls."""
    extra = [{"cni_type": "FLANNEL_OVERLAY"}] if bad else []
    _cluster([{"cni_type": "OCI_VCN_IP_NATIVE"}, *extra])
    _tenant("research")


@case("data", "tenant-walls-need-vcn-native-pods")
def cluster_without_pod_network_options_with_a_gpu_tenant(bad):
    """No clusterPodNetworkOptions at all, and a tenant known only by its GPU quota."""
    _cluster(None if bad else [{"cni_type": "OCI_VCN_IP_NATIVE"}])
    namespace("research", "restricted")


@case("data", "grafana-sidecars-read-their-namespace")
def grafana_datasources_from_every_namespace_in_a_hand_written_release(bad):
    """A hand-written kube-prometheus-stack release in a stack with a tenant: Grafana's datasource sidecar reads
    ConfigMaps from every namespace (the oke-rdma config refuses this; the pack did not)."""
    _tenant("research")
    namespace("monitoring", "privileged")
    search = "ALL" if bad else "monitoring"
    k8s.helm.v3.Release("kps", chart="kube-prometheus-stack", version="87.2.1", namespace="monitoring",
                        repository_opts={"repo": "https://prometheus-community.github.io/helm-charts"},
                        values={"grafana": {"sidecar": {"dashboards": {"searchNamespace": "monitoring"},
                                                        "datasources": {"searchNamespace": search}}}})


@case("data", "grafana-sidecars-read-their-namespace")
def grafana_dashboards_left_at_the_charts_all(bad):
    """kube-prometheus-stack's own default turns the dashboards sidecar to ALL: a release that does not pin it lets
    a tenant's ConfigMap replace the GPU metering dashboards."""
    _tenant("research")
    namespace("monitoring", "privileged")
    sidecar = {} if bad else {"dashboards": {"searchNamespace": "monitoring"}}
    k8s.helm.v3.Release("kps", chart="kube-prometheus-stack", version="87.2.1", namespace="monitoring",
                        repository_opts={"repo": "https://prometheus-community.github.io/helm-charts"},
                        values={"grafana": {"sidecar": sidecar}})
