"""The whole dev stack under mocks: every component registers what it should, asserted on recorded values (network,
cluster, Compute Cluster and pools, IAM, storage, platform, ordering)."""

import pytest

from oke_rdma.outputs import OUTPUTS_VERSION
from offline.policy_eval import evaluate_packs, has_mandatory
from policies import PACK_DIRS
from tests.componenttest import named, of_type

SECRET = ("4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270")


@pytest.fixture(scope="module")
def run(dev_run):
    return dev_run


@pytest.fixture(scope="module")
def first_preview(dev_first_preview):
    return dev_first_preview


def test_every_required_resource_is_declared(run):
    counts = {}
    for r in run.resources:
        counts[r.type] = counts.get(r.type, 0) + 1
    for typ, n in {"oci:Core/vcn:Vcn": 1, "oci:Core/subnet:Subnet": 5, "oci:Core/natGateway:NatGateway": 1,
                   "oci:Core/serviceGateway:ServiceGateway": 1, "oci:Core/networkSecurityGroup:NetworkSecurityGroup": 5,
                   "oci:ContainerEngine/cluster:Cluster": 1, "oci:Core/computeCluster:ComputeCluster": 1,
                   "oci:ContainerEngine/nodePool:NodePool": 2, "oci:FileStorage/fileSystem:FileSystem": 1,
                   "oci:FileStorage/mountTarget:MountTarget": 1, "oci:FileStorage/export:Export": 2,  # tenants and preparation
                   "kubernetes:helm.sh/v3:Release": 5, "pulumi:providers:kubernetes": 1}.items():
        assert counts.get(typ) == n, typ
    assert counts["oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"] > 40
    assert counts["oci:Identity/policy:Policy"] >= 1


def test_gpu_pool_is_in_the_compute_cluster_of_the_enhanced_cluster(run):
    (cluster,) = of_type(run, "oci:ContainerEngine/cluster:Cluster")
    (cc,) = of_type(run, "oci:Core/computeCluster:ComputeCluster")
    gpu = named(run, "okerdma-dev-gpu")
    assert cluster.inputs["type"] == "ENHANCED_CLUSTER"
    assert gpu.inputs["clusterId"] == run.ids[cluster.urn]
    assert gpu.inputs["nodeConfigDetails"]["computeClusterId"] == run.ids[cc.urn]
    assert gpu.property_dependencies["clusterId"] == [cluster.urn]


def test_node_pools_wait_for_the_launch_policy(run):
    launch = named(run, "okerdma-dev-nodepool-launch")
    assert "COMPUTE_CLUSTER_LAUNCH_INSTANCE" in launch.inputs["statements"][0]
    for pool in of_type(run, "oci:ContainerEngine/nodePool:NodePool"):
        assert launch.urn in pool.dependencies


def test_every_kubernetes_resource_uses_the_explicit_provider(run):
    (provider,) = of_type(run, "pulumi:providers:kubernetes")
    k8s = [r for r in run.resources if r.type.startswith("kubernetes:")]
    assert len(k8s) >= 10
    assert all(r.provider and r.provider.startswith(provider.urn + "::") for r in k8s)


def test_every_oci_resource_carries_the_freeform_tags(run):
    tagged = [r for r in run.resources if r.type.startswith("oci:") and "SecurityRule" not in r.type
              and r.type != "oci:FileStorage/export:Export"]
    assert tagged and all(r.inputs.get("freeformTags") == {"project": "oke-rdma", "environment": "dev"}
                          for r in tagged), [r.name for r in tagged if r.inputs.get("freeformTags") is None]


def test_outputs_contract_and_secret_kubeconfig(run):
    assert set(run.outputs) == {
        "outputsVersion", "region", "compartmentId", "vcnId", "subnetIds", "subnetCidrs", "nsgIds", "clusterId",
        "kubernetesVersion",
        "apiEndpoint", "kubeconfig", "computeClusterId", "computeClusterAvailabilityDomain", "nodePools", "fss",
        "topology", "tenants", "policyStatements", "iamPolicies", "iamDynamicGroups", "weightsBucket"}
    assert run.outputs["outputsVersion"] == OUTPUTS_VERSION
    assert run.outputs["kubeconfig"][SECRET[0]] == SECRET[1]
    assert run.outputs["nodePools"]["gpu"] == {"id": run.ids[named(run, "okerdma-dev-gpu").urn],
                                               "shape": "BM.GPU.H100.8", "size": 2, "rdma": True, "gpusPerNode": 8,
                                               "localNvme": None}
    assert run.outputs["nodePools"]["system"]["gpusPerNode"] == 0
    assert run.outputs["fss"]["mountTargetIp"] == "10.0.3.10"
    assert run.outputs["topology"]["name"] == "okerdma-dev-rdma"
    assert run.outputs["tenants"] == {
        "research": {"namespace": "research", "podSecurity": "privileged", "rdma": True, "localQueue": "research",
                     "clusterQueue": "okerdma-dev-research", "serviceAccounts": ["trainer"],
                     "mappedCompartmentId": "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata",
                     "sharedStorageClaim": "fss-shared", "lustreClaim": None,
                     "weights": {"serviceAccount": "trainer", "access": "readWrite",
                                 "checkpointPrefix": "research.checkpoints/"},
                     "runAsUser": 20001, "runAsGroup": 20001, "sharedStorageSubPath": None, "lustreSubPath": None},
        "analytics": {"namespace": "analytics", "podSecurity": "restricted", "rdma": False, "localQueue": "analytics",
                      "clusterQueue": "okerdma-dev-analytics", "serviceAccounts": ["gpu-metrics"],
                      "mappedCompartmentId": None, "sharedStorageClaim": "fss-shared", "lustreClaim": None, "weights": None,
                      "runAsUser": 20002, "runAsGroup": 20002, "sharedStorageSubPath": "analytics", "lustreSubPath": None}}


def test_dev_stack_passes_every_policy(run):
    report = evaluate_packs(PACK_DIRS, run.resources)
    assert not has_mandatory(report) and report.violations == []


def test_first_preview_registers_every_resource_with_unknown_kubeconfig(run, first_preview):
    assert sorted((r.type, r.name) for r in first_preview.resources) == sorted((r.type, r.name) for r in run.resources)
    (provider,) = of_type(first_preview, "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"]["value"] == "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    report = evaluate_packs(PACK_DIRS, first_preview.resources)
    assert not has_mandatory(report)


def test_the_platform_waits_for_the_cpu_pools_only(dev_run):
    """The Helm releases need nodes to run on — the CPU pools — but not the bare-metal GPU pools, which take tens of
    minutes and would otherwise sit on `pulumi up`'s critical path (bench/critical_path.py measures it)."""
    run = dev_run
    urns = {r.name: r.urn for r in run.resources}
    releases = [r for r in run.resources if r.type == "kubernetes:helm.sh/v3:Release"]
    assert len(releases) == 5  # Cilium, kube-prometheus-stack, GPU Operator, Kueue, KEDA
    for release in releases:
        assert urns["okerdma-dev-system"] in release.dependencies, release.name
        assert urns["okerdma-dev-gpu"] not in release.dependencies, release.name
