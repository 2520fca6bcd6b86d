"""The cluster and compute components under mocks: enhanced cluster, secret kubeconfig, RDMA placement."""

import pulumi
import pytest

from oke_rdma.adapter import cluster_args, compute_args
from oke_rdma.cluster import Cluster
from oke_rdma.compute import DISABLE_OKE_DEVICE_PLUGIN, Compute
from tests.componenttest import named, of_type, run_component
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SUBNETS = {r: f"ocid1.subnet.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods",
                                                                       "internalLoadBalancers")}
NSGS = {r: f"ocid1.networksecuritygroup.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods")}


def build_cluster(cfg):
    cluster = Cluster("cl", cluster_args(cfg, "ocid1.vcn.oc1.sa-saopaulo-1.vcn", SUBNETS, NSGS))
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("apiEndpoint", cluster.api_endpoint)


def build_compute(cfg):
    Compute("cmp", compute_args(cfg, "ocid1.cluster.oc1.sa-saopaulo-1.c", "v1.34.1", SUBNETS, NSGS))


def test_cluster_is_enhanced_private_and_vcn_native():
    run = run_component(RAW, build_cluster)
    (cluster,) = of_type(run, "oci:ContainerEngine/cluster:Cluster")
    p = cluster.inputs
    assert p["type"] == "ENHANCED_CLUSTER"
    assert p["clusterPodNetworkOptions"] == [{"cniType": "OCI_VCN_IP_NATIVE"}]
    assert p["endpointConfig"] == {"subnetId": SUBNETS["controlPlane"], "isPublicIpEnabled": False,
                                   "nsgIds": [NSGS["controlPlane"]]}
    assert p["options"]["serviceLbSubnetIds"] == [SUBNETS["internalLoadBalancers"]]
    assert p["kubernetesVersion"] == "v1.35.2"


def test_kubeconfig_is_a_secret_and_feeds_the_one_provider():
    run = run_component(RAW, build_cluster)
    secret = run.outputs["kubeconfig"]
    assert secret["4dabf18193072939515e22adb298388d"] == "1b47061264138c4ac30d75fd1eb44270"
    assert "generate-token" in secret["value"]
    (provider,) = of_type(run, "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"]["value"] == secret["value"]  # wrapped as a secret in the provider too
    assert provider.inputs["enableServerSideApply"] == "true"
    assert run.outputs["apiEndpoint"] == "10.0.0.2:6443"


def test_first_preview_kubeconfig_is_unknown_and_nothing_fails():
    run = run_component(RAW, build_cluster, unknowns=True)
    assert run.outputs["kubeconfig"]["value"] == UNKNOWN
    (provider,) = of_type(run, "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"]["value"] == UNKNOWN


def test_rdma_pool_joins_the_compute_cluster_with_one_placement_and_no_fault_domains():
    run = run_component(RAW, build_compute)
    (cc,) = of_type(run, "oci:Core/computeCluster:ComputeCluster")
    assert cc.inputs["availabilityDomain"] == "bxtG:SA-SAOPAULO-1-AD-1"
    gpu = named(run, "okerdma-dev-gpu").inputs
    details = gpu["nodeConfigDetails"]
    assert details["computeClusterId"] == run.ids[cc.urn]
    assert details["placementConfigs"] == [{"availabilityDomain": "bxtG:SA-SAOPAULO-1-AD-1",
                                            "subnetId": SUBNETS["workers"]}]
    assert details["isPvEncryptionInTransitEnabled"] is True
    assert details["nodePoolPodNetworkOptionDetails"]["maxPodsPerNode"] == 64
    assert gpu["nodeSourceDetails"]["bootVolumeSizeInGbs"] == "500"
    assert "nodeShapeConfig" not in gpu
    labels = {label["key"]: label["value"] for label in gpu["initialNodeLabels"]}
    assert labels[DISABLE_OKE_DEVICE_PLUGIN[0]] == "true"


def test_cpu_pool_is_flex_and_outside_the_compute_cluster():
    run = run_component(RAW, build_compute)
    system = named(run, "okerdma-dev-system").inputs
    assert "computeClusterId" not in system["nodeConfigDetails"]
    assert system["nodeShapeConfig"] == {"ocpus": 8, "memoryInGbs": 64}
    labels = {label["key"] for label in system["initialNodeLabels"]}
    assert DISABLE_OKE_DEVICE_PLUGIN[0] not in labels


def test_no_device_plugin_label_without_the_gpu_operator():
    raw = edited(RAW, "platform", ("gpuOperator", "enabled"), False)
    run = run_component(raw, build_compute)
    labels = {label["key"] for label in named(run, "okerdma-dev-gpu").inputs["initialNodeLabels"]}
    assert DISABLE_OKE_DEVICE_PLUGIN[0] not in labels


def test_existing_compute_cluster_is_used_not_created():
    existing = "ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaaexisting"
    raw = edited(RAW, "computeCluster", ("existingId",), existing)
    run = run_component(raw, build_compute)
    assert not of_type(run, "oci:Core/computeCluster:ComputeCluster")
    assert named(run, "okerdma-dev-gpu").inputs["nodeConfigDetails"]["computeClusterId"] == existing


def test_changing_the_compute_cluster_replaces_the_pool():
    run = run_component(RAW, build_compute)
    # a resource option: the engine replaces (not updates) a pool whose computeClusterId changes
    assert run.replace_on_changes[named(run, "okerdma-dev-gpu").urn] == ["nodeConfigDetails.computeClusterId"]


@pytest.mark.parametrize("unknowns", [False, True])
def test_compute_registers_every_pool(unknowns):
    run = run_component(RAW, build_compute, unknowns=unknowns)
    assert sorted(r.name for r in of_type(run, "oci:ContainerEngine/nodePool:NodePool")) == [
        "okerdma-dev-gpu", "okerdma-dev-system"]
