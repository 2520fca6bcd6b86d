"""The cluster's options, the node pools' upgrade and hardening settings, the Vault key policy ordering, and a first
preview (unknown kubeconfig) that still registers every Kubernetes resource, under mocks."""

import pulumi
import pytest

from oke_rdma.adapter import cluster_args, compute_args
from oke_rdma.cluster import Cluster
from oke_rdma.compute import Compute
from offline.engine import run_program
from tests.componenttest import named, of_type, run_component
from tests.stackcfg import dev_config, edited, flannel, without_tenant_keys

RAW, SECRET_KEYS = dev_config()
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
KEY = "ocid1.key.oc1.sa-saopaulo-1.dvsi563naaa5c.abuwcljrppxnq3f7bvh4kga4hvm6cewbylwzr3l44ikt6hzm7i27cjugc75a"
IMG_KEY = "ocid1.key.oc1.sa-saopaulo-1.dvsi563naaa5c.abuwcljrimagesigningkey0000000000000000000000000000000000001"
KUBECONFIG_INVOKE = "oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig"
SUBNETS = {r: f"ocid1.subnet.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods",
                                                                       "internalLoadBalancers")}
NSGS = {r: f"ocid1.networksecuritygroup.oc1.sa-saopaulo-1.{r.lower()}" for r in ("controlPlane", "workers", "pods")}


def build_cluster(cfg):
    cluster = Cluster("cl", cluster_args(cfg, "ocid1.vcn.oc1.sa-saopaulo-1.vcn", SUBNETS, NSGS))
    if cluster.oidc_discovery_endpoint is not None:
        pulumi.export("oidc", cluster.oidc_discovery_endpoint)


def build_compute(cfg):
    Compute("cmp", compute_args(cfg, "ocid1.cluster.oc1.sa-saopaulo-1.c", "v1.34.1", SUBNETS, NSGS))


# --- cluster ------------------------------------------------------------------------------------------------------
def test_default_cluster_has_no_optional_features():
    (cluster,) = of_type(run_component(RAW, build_cluster), "oci:ContainerEngine/cluster:Cluster")
    assert "kmsKeyId" not in cluster.inputs and "imagePolicyConfig" not in cluster.inputs
    assert "openIdConnectDiscovery" not in cluster.inputs["options"]


def test_cluster_options_reach_the_oke_cluster():
    raw = edited(RAW, "cluster", ("kmsKeyId",), KEY)
    raw = edited(raw, "cluster", ("imageVerificationKeyIds",), [IMG_KEY])
    raw = edited(raw, "cluster", ("openIdConnectDiscovery",), True)
    raw = flannel(raw)  # as the config accepts flannel: no tenants, no Cilium, no maxPodsPerNode
    run = run_component(raw, build_cluster)
    (cluster,) = of_type(run, "oci:ContainerEngine/cluster:Cluster")
    p = cluster.inputs
    assert p["kmsKeyId"] == KEY
    assert p["imagePolicyConfig"] == {"isPolicyEnabled": True, "keyDetails": [{"kmsKeyId": IMG_KEY}]}
    assert p["options"]["openIdConnectDiscovery"] == {"isOpenIdConnectDiscoveryEnabled": True}
    assert p["clusterPodNetworkOptions"] == [{"cniType": "FLANNEL_OVERLAY"}]
    assert run.replace_on_changes[cluster.urn] == ["kmsKeyId", "clusterPodNetworkOptions[*].cniType"]


def test_basic_cluster_without_rdma_pools():
    raw = basic_cluster_raw()
    (cluster,) = of_type(run_component(raw, build_cluster), "oci:ContainerEngine/cluster:Cluster")
    assert cluster.inputs["type"] == "BASIC_CLUSTER"


def basic_cluster_raw() -> dict[str, str]:
    """The dev stack on a BASIC_CLUSTER: without what needs an enhanced one (RDMA pools, Workload Identity)."""
    raw = edited(edited(RAW, "cluster", ("type",), "BASIC_CLUSTER"), "nodePools", ("gpu", "rdma"), False)
    raw = edited(raw, "cluster", ("oidc",), None, delete=True)  # OIDC sign-in needs an enhanced cluster too
    return without_tenant_keys(raw, "serviceAccounts", "quota", "members")


# --- node pools ---------------------------------------------------------------------------------------------------
def test_pool_hardening_and_upgrade_settings_by_default():
    gpu = named(run_component(RAW, build_compute), "okerdma-dev-gpu").inputs
    assert gpu["nodeMetadata"]["areLegacyImdsEndpointsDisabled"] == "true"
    assert set(gpu["nodeMetadata"]) == {"areLegacyImdsEndpointsDisabled", "user_data"}  # user data: Cilium's taint
    assert gpu["nodeConfigDetails"]["isPvEncryptionInTransitEnabled"] is True
    assert gpu["nodeEvictionNodePoolSettings"] == {"evictionGraceDuration": "PT60M",
                                                   "isForceActionAfterGraceDuration": False,
                                                   "isForceDeleteAfterGraceDuration": False}
    assert gpu["nodePoolCyclingDetails"] == {"isNodeCyclingEnabled": False, "maximumSurge": "1",
                                             "maximumUnavailable": "0"}
    assert gpu["kubernetesVersion"] == "v1.34.1"  # the cluster's
    assert "preemptibleNodeConfig" not in gpu["nodeConfigDetails"]["placementConfigs"][0]


def test_pool_settings_from_config():
    raw = edited(RAW, "nodePools", ("gpu", "kubernetesVersion"), "v1.33.1")
    raw = edited(raw, "nodePools", ("gpu", "eviction"), {"graceDuration": "PT15M", "forceDeleteAfterGraceDuration":
                                                         True})
    raw = edited(raw, "nodePools", ("gpu", "cycling"), {"enabled": True, "maxSurge": "0", "maxUnavailable": "50%"})
    raw = edited(raw, "nodePools", ("gpu", "areLegacyImdsEndpointsDisabled"), False)
    raw = edited(raw, "nodePools", ("gpu", "isPvEncryptionInTransitEnabled"), False)
    raw = edited(raw, "nodePools", ("system", "preemptible"), {"preserveBootVolume": True})
    run = run_component(raw, build_compute)
    gpu = named(run, "okerdma-dev-gpu").inputs
    assert gpu["kubernetesVersion"] == "v1.33.1"
    assert gpu["nodeEvictionNodePoolSettings"]["evictionGraceDuration"] == "PT15M"
    assert gpu["nodeEvictionNodePoolSettings"]["isForceDeleteAfterGraceDuration"] is True
    assert gpu["nodePoolCyclingDetails"] == {"isNodeCyclingEnabled": True, "maximumSurge": "0",
                                             "maximumUnavailable": "50%"}
    assert gpu["nodeMetadata"]["areLegacyImdsEndpointsDisabled"] == "false"
    assert gpu["nodeConfigDetails"]["isPvEncryptionInTransitEnabled"] is False
    system = named(run, "okerdma-dev-system").inputs
    assert [p["preemptibleNodeConfig"] for p in system["nodeConfigDetails"]["placementConfigs"]] == [
        {"preemptionAction": {"type": "TERMINATE", "isPreserveBootVolume": True}}]


def test_flannel_pools_carry_only_the_cni_type():
    raw = flannel(RAW)  # as the config accepts flannel: no tenants, no Cilium, no maxPodsPerNode
    gpu = named(run_component(raw, build_compute), "okerdma-dev-gpu").inputs
    assert gpu["nodeConfigDetails"]["nodePoolPodNetworkOptionDetails"] == {"cniType": "FLANNEL_OVERLAY"}


def test_unlisted_shape_override_logs_a_warning_on_every_run():
    raw = edited(edited(RAW, "nodePools", ("gpu", "shape"), "BM.GPU.L40S.4"), "nodePools",
                 ("gpu", "allowUnlistedRdmaShape"), True)
    raw = edited(edited(raw, "nodePools", ("gpu", "gpusPerNode"), 4), "nodePools", ("gpu", "size"), 4)  # 16 GPUs: the quota
    for unknowns in (False, True):
        run = run_component(raw, build_compute, unknowns=unknowns)
        assert [w.split(":", 2)[1] for w in run.warnings] == ["nodePools.gpu.allowUnlistedRdmaShape"]
        assert "BM.GPU.L40S.4 is not on Oracle's list" in run.warnings[0]
    assert run_component(RAW, build_compute).warnings == []


# --- the whole program: Vault key policy ordering -------------------------------------------------------------------
def test_key_policy_exists_before_the_cluster_and_every_node_pool():
    run = run_program(edited(RAW, "cluster", ("kmsKeyId",), KEY), SECRET_KEYS, "dev")
    keys = named(run, "okerdma-dev-cluster-kms")
    assert keys.inputs["statements"] == [
        "Allow any-user to use keys in compartment id ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t"
        "1s9e0u3i5o7a2dfev where all {request.principal.type = 'cluster', target.key.id = '" + KEY + "'}"]
    assert keys.dependencies == []  # it waits for nothing, in particular not for the cluster
    cluster = named(run, "okerdma-dev-oke")
    assert keys.urn in cluster.dependencies
    pools = of_type(run, "oci:ContainerEngine/nodePool:NodePool")
    assert len(pools) == 2 and all(keys.urn in p.dependencies for p in pools)
    order = [r.urn for r in run.resources]
    assert order.index(keys.urn) < order.index(cluster.urn)
    # the cluster-principal policy still names (and waits for) the cluster
    principal = named(run, "okerdma-dev-cluster-principal")
    assert principal.property_dependencies["statements"] == [cluster.urn]
    assert run.ids[cluster.urn] in principal.inputs["statements"][0]
    assert KEY in " ".join(run.outputs["policyStatements"])


def test_no_key_policy_without_a_key_and_none_created_when_policies_are_not_created(dev_run):
    assert not [r for r in dev_run.resources if r.name.endswith("cluster-kms")]
    raw = edited(edited(RAW, "cluster", ("kmsKeyId",), KEY), "iam", ("createPolicies",), False)
    run = run_program(raw, SECRET_KEYS, "dev")
    assert not of_type(run, "oci:Identity/policy:Policy")
    assert any(KEY in s for s in run.outputs["policyStatements"])  # still handed to an administrator


# --- first preview: unknown kubeconfig --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def known_and_first_preview(dev_run, dev_first_preview):
    return dev_run, dev_first_preview


def test_first_preview_registers_every_kubernetes_resource_without_the_kubeconfig(known_and_first_preview):
    known, first = known_and_first_preview
    k8s_known = sorted((r.type, r.name) for r in known.resources if r.type.startswith(("kubernetes:",
                                                                                       "pulumi:providers:kubernetes")))
    k8s_first = sorted((r.type, r.name) for r in first.resources if r.type.startswith(("kubernetes:",
                                                                                       "pulumi:providers:kubernetes")))
    assert len(k8s_known) >= 10 and k8s_first == k8s_known
    (provider,) = of_type(first, "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"]["value"] == UNKNOWN
    # The invoke that reads the kubeconfig ran on the update-like run and never on the first preview: nothing
    # needed its value while the cluster id was unknown.
    assert known.mocks.invokes.count(KUBECONFIG_INVOKE) == 1
    assert KUBECONFIG_INVOKE not in first.mocks.invokes
    assert all(r.provider and r.provider.startswith(provider.urn + "::")
               for r in first.resources if r.type.startswith("kubernetes:"))
