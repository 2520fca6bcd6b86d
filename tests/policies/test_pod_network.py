"""tenant-walls-need-vcn-native-pods: a stack with tenants refuses a cluster or node pool whose pod networking may
give pods their node's address (flannel overlay, none declared, unknown); VCN-native only, or no tenants, passes."""
from __future__ import annotations

import pytest

from policies.security import pod_network
from tests.policies.test_policies import CLUSTER, NODE_POOL, U, messages, res, run

RULE = pod_network.RULE
NAMESPACE, QUOTA = "kubernetes:core/v1:Namespace", "kubernetes:core/v1:ResourceQuota"


def tenant(name="research"):
    return res(NAMESPACE, f"ns-{name}", {"metadata": {"name": name, "labels": {"okerdma.io/tenant": name}}})


def gpu_quota(ns="research"):
    return res(QUOTA, "q", {"metadata": {"name": "gpu", "namespace": ns},
                            "spec": {"hard": {"requests.nvidia.com/gpu": "8"}}})


def cluster(options):
    props = {"compartmentId": "c", "vcnId": "v", "kubernetesVersion": "v1.34.1"}
    if options is not None:
        props["clusterPodNetworkOptions"] = options
    return res(CLUSTER, "oke", props)


def pool(cni):
    details = {"size": 1, "nodePoolPodNetworkOptionDetails": {"cniType": cni, "podSubnetIds": ["s"]}}
    return res(NODE_POOL, "pool", {"clusterId": "k", "nodeShape": "VM.Standard.E5.Flex", "nodeConfigDetails": details})


def found(*resources):
    return messages(run(*resources, policy=RULE), RULE)


@pytest.mark.parametrize("resources", [
    (cluster([{"cniType": "FLANNEL_OVERLAY"}]), tenant()),
    (cluster([{"cniType": "OCI_VCN_IP_NATIVE"}, {"cniType": "FLANNEL_OVERLAY"}]), tenant()),
    (cluster(None), tenant()), (cluster([]), gpu_quota()),
    (cluster(U), tenant()), (cluster([{"cniType": U}]), tenant()),
    (cluster([{"cniType": "oci_vcn_ip_native"}]), tenant()),
    (cluster([{"cniType": "OCI_VCN_IP_NATIVE"}]), pool("FLANNEL_OVERLAY"), tenant()),
    (cluster([{"cniType": "OCI_VCN_IP_NATIVE"}]), pool(U), gpu_quota()),
])
def test_tenants_on_pod_networking_that_hides_them_are_refused(resources):
    assert found(*resources)


@pytest.mark.parametrize("resources", [
    (cluster([{"cniType": "OCI_VCN_IP_NATIVE"}]), tenant()),
    (cluster([{"cniType": "OCI_VCN_IP_NATIVE"}]), pool("OCI_VCN_IP_NATIVE"), gpu_quota()),
    (cluster([{"cniType": "FLANNEL_OVERLAY"}]),),  # a platform-only stack may use flannel
    (cluster([{"cniType": "FLANNEL_OVERLAY"}]), pool("FLANNEL_OVERLAY")),
    (tenant(),),  # a cluster brought by OCID is not read here
])
def test_vcn_native_pods_or_no_tenants_pass(resources):
    assert found(*resources) == []
