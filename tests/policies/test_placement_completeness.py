"""Placement, completed: an RDMA-capable shape outside any Compute Cluster, a preemptible node in a Compute Cluster
and a self-managed instance joining a Compute Cluster from another AD are refused, for node pools and instances of
any stack."""
from __future__ import annotations

import pytest

from policies.placement.completeness import (INSTANCE, INSTANCE_CONFIGURATION, validate_not_reclaimable,
                                             validate_shape_in_compute_cluster)
from tests.policies.test_policies import NODE_POOL, U, call_resource_rule, messages, res, run

CC = "ocid1.computecluster.oc1..aaaa"
PLACEMENT = {"availabilityDomain": "AD-1", "subnetId": "ocid1.subnet.oc1..a"}


def pool(shape="BM.GPU.H100.8", cc=CC, **placement) -> dict:
    details = {"size": 2.0, "placementConfigs": [{**PLACEMENT, **placement}]}
    if cc is not None:
        details["computeClusterId"] = cc
    return {"nodeShape": shape, "nodeConfigDetails": details}


@pytest.mark.parametrize("type_, props", [
    (NODE_POOL, pool(cc=None)), (NODE_POOL, pool(shape=U, cc=None)),
    (INSTANCE, {"shape": "BM.GPU.H200.8", "availabilityDomain": "AD-1"}),
    (INSTANCE_CONFIGURATION, {"instanceDetails": {"launchDetails": {"shape": "BM.GPU.B200.8"}}}),
])
def test_rdma_shapes_outside_a_compute_cluster_are_refused(type_, props):
    assert call_resource_rule(validate_shape_in_compute_cluster, type_, props)


@pytest.mark.parametrize("type_, props", [
    (NODE_POOL, pool()), (NODE_POOL, pool(cc=U)), (NODE_POOL, pool(shape="VM.Standard.E5.Flex", cc=None)),
    (INSTANCE, {"shape": "BM.GPU.H200.8", "computeClusterId": CC}),
])
def test_rdma_shapes_in_a_compute_cluster_and_other_shapes_pass(type_, props):
    assert call_resource_rule(validate_shape_in_compute_cluster, type_, props) == []


@pytest.mark.parametrize("type_, props", [
    (NODE_POOL, pool(preemptibleNodeConfig={"preemptionAction": {"type": "TERMINATE"}})),
    (NODE_POOL, pool(preemptibleNodeConfig=U)),
    (INSTANCE, {"shape": "BM.GPU.H100.8", "computeClusterId": CC, "preemptibleInstanceConfig": {
        "preemptionAction": {"type": "TERMINATE"}}}),
    (INSTANCE_CONFIGURATION, {"instanceDetails": {"launchDetails": {"computeClusterId": CC,
                                                                    "preemptibleInstanceConfig": {}}}}),
])
def test_preemptible_nodes_in_a_compute_cluster_are_refused(type_, props):
    assert call_resource_rule(validate_not_reclaimable, type_, props)


def test_preemptible_nodes_outside_a_compute_cluster_are_not_this_rules_business():
    assert call_resource_rule(validate_not_reclaimable, NODE_POOL, pool(
        shape="VM.GPU.A10.1", cc=None, preemptibleNodeConfig={"preemptionAction": {"type": "TERMINATE"}})) == []
    assert call_resource_rule(validate_not_reclaimable, NODE_POOL, pool()) == []


def test_an_instance_joining_a_compute_cluster_from_another_ad_is_refused():
    cc = res("oci:Core/computeCluster:ComputeCluster", "cc", {"availabilityDomain": "AD-1"})
    bad = res(INSTANCE, "node", {"shape": "BM.GPU.H100.8", "availabilityDomain": "AD-2", "computeClusterId": U},
              deps={"computeClusterId": [cc]})
    assert messages(run(cc, bad, policy="compute-cluster-instance-ad"), "compute-cluster-instance-ad")
    good = res(INSTANCE, "node", {"shape": "BM.GPU.H100.8", "availabilityDomain": "AD-1", "computeClusterId": U},
               deps={"computeClusterId": [cc]})
    assert messages(run(cc, good, policy="compute-cluster-instance-ad"), "compute-cluster-instance-ad") == []
