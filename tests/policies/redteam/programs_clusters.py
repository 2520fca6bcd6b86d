"""Red-team programs that reach past what the packs see: objects sent through an explicit provider to another cluster
(a management cluster) that borrow this cluster's platform or tenant namespaces by name; a resource created inside an
``apply`` callback (judged here; named as not judged on a first preview); a helm.sh/v4 Chart, whose inputs never
reach the packs under ``pulumi preview``. Registered into ``programs.CASES`` on import; each safe control sends the
same object to the stack's own cluster, or declares it outside the callback, or uses a helm.sh/v3 Release."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from tests.policies.redteam.programs import C, PSA, case, namespace

IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"


def _clusters() -> tuple[pulumi.ResourceOptions, pulumi.ResourceOptions]:
    """This stack's OKE cluster with its provider (kubeconfig derived from the cluster, as oke_rdma builds it), and a
    provider for a management cluster the stack reaches with another kubeconfig."""
    from tests.policies.test_policy_pack_e2e import _oke_nsgs
    vcn = oci.core.Vcn("vcn", compartment_id=C, cidr_blocks=["10.2.0.0/16"])
    cp, _ = _oke_nsgs(C, vcn)
    cluster = oci.containerengine.Cluster("oke", compartment_id=C, kubernetes_version="v1.34.2", vcn_id=vcn.id,
                                          type="ENHANCED_CLUSTER",
                                          cluster_pod_network_options=[{"cni_type": "OCI_VCN_IP_NATIVE"}],
                                          endpoint_config={
                                              "subnet_id": "ocid1.subnet.oc1..aaaacp", "is_public_ip_enabled": False,
                                              "nsg_ids": [cp.id]})
    kubeconfig = oci.containerengine.get_cluster_kube_config_output(cluster_id=cluster.id, token_version="2.0.0")
    own = k8s.Provider("own", kubeconfig=kubeconfig.content, cluster_identifier=cluster.id)
    management = k8s.Provider("management", kubeconfig="apiVersion: v1\nkind: Config\n# the management cluster\n")
    return pulumi.ResourceOptions(provider=own), pulumi.ResourceOptions(provider=management)


def _daemon(name: str, ns: str, spec: dict, opts: pulumi.ResourceOptions) -> None:
    k8s.apps.v1.DaemonSet(name, metadata={"name": name, "namespace": ns}, spec={
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}, opts=opts)


@case("pod", "node-escape-only-in-node-agent-namespaces")
def host_root_on_the_management_clusters_namespace_named_like_a_node_agents(bad):
    own, management = _clusters()
    k8s.core.v1.Namespace("ns-gpu-operator", metadata={"name": "gpu-operator", "labels": {PSA: "privileged"}},
                          opts=own)
    _daemon("agent", "gpu-operator", {"hostPID": True, "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
                                      "containers": [{"name": "c", "image": IMAGE}]}, management if bad else own)


@case("pod", "rdma-pods-in-privileged-namespaces")
def host_network_pod_on_the_management_cluster_borrows_a_privileged_tenant(bad):
    own, management = _clusters()
    k8s.core.v1.Namespace("ns-research", metadata={"name": "research", "labels": {PSA: "privileged"}}, opts=own)
    k8s.core.v1.ResourceQuota("gpu-quota", metadata={"name": "gpu", "namespace": "research"},
                              spec={"hard": {"requests.nvidia.com/gpu": "16"}}, opts=own)
    k8s.core.v1.Pod("w", metadata={"name": "w", "namespace": "research"},
                    spec={"hostNetwork": True, "containers": [{"name": "c", "image": IMAGE}]},
                    opts=management if bad else own)


@case("pod", "system-priority-only-for-node-agents")
def system_priority_on_the_management_clusters_monitoring_namespace(bad):
    own, management = _clusters()
    k8s.core.v1.Namespace("ns-monitoring", metadata={"name": "monitoring", "labels": {PSA: "restricted"}}, opts=own)
    _daemon("exporter", "monitoring", {"priorityClassName": "system-node-critical",
                                       "containers": [{"name": "c", "image": IMAGE}]}, management if bad else own)


@case("pod", "privileged-namespace-purpose")
def privileged_namespace_created_inside_an_apply(bad):
    """pulumi preview does not see it on a first preview (the VCN id is unknown then); the offline run judges it
    and names it under "Not checked"."""
    vcn = oci.core.Vcn("v", compartment_id=C, cidr_blocks=["10.0.0.0/16"])
    vcn.id.apply(lambda _: namespace("late", "privileged" if bad else "restricted"))


@case("supply-chain", "helm-release-pinned")
def helm_v4_chart_hides_its_inputs_from_the_packs(bad):
    namespace("apps", "restricted")
    args = {"chart": "keda", "version": "2.20.2", "namespace": "apps",
            "repository_opts": {"repo": "https://kedacore.github.io/charts"}}
    if bad:
        k8s.helm.v4.Chart("keda", **args)
    else:
        k8s.helm.v3.Release("keda", **args)
