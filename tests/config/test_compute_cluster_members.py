"""Membership of the stack's one Compute Cluster: RDMA pools of different shapes sharing it are warned about (OCI
places them together only where both shapes share a network block); one shape passes; the other membership rules
(the cluster's AD, bare metal RDMA shapes, no fault domains, not preemptible) are refused at config time."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from oke_rdma.config.checks.compute import compute_cluster_warnings
from tests.stackcfg import load_dev_config

GPU = {"size": 1, "bootVolumeGb": 500, "maxPodsPerNode": 64, "rdma": True,
       "imageId": "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"}


def test_rdma_pools_of_different_shapes_in_the_one_compute_cluster_are_warned_about():
    cfg = load_dev_config(nodePools={"gpuh200": {**GPU, "shape": "BM.GPU.H200.8"}})
    [line] = compute_cluster_warnings(cfg)
    assert line.startswith("oke-rdma:nodePools.gpuh200.shape (BM.GPU.H200.8):")
    assert "with gpu (BM.GPU.H100.8)" in line and "same network block" in line and "terraform-oci-oke PR #1007" in line
    assert "keep one RDMA shape per stack" in line


def test_rdma_pools_of_one_shape_share_the_compute_cluster_silently():
    assert compute_cluster_warnings(load_dev_config()) == []
    assert compute_cluster_warnings(load_dev_config(nodePools={"gpu2": {**GPU, "shape": "BM.GPU.H100.8"}})) == []


def test_a_non_rdma_gpu_pool_of_another_shape_is_not_a_member():
    cfg = load_dev_config(nodePools={"plain": {**GPU, "shape": "BM.GPU.H200.8", "rdma": False}})
    assert compute_cluster_warnings(cfg) == []


@pytest.mark.parametrize("override, key", [
    ({"faultDomains": ["FAULT-DOMAIN-1"]}, "oke-rdma:nodePools.gpu2.faultDomains"),
    ({"shape": "VM.GPU.A10.1"}, "oke-rdma:nodePools.gpu2.shape"),
    ({"preemptible": {"preserveBootVolume": False}}, "oke-rdma:nodePools.gpu2.preemptible"),
])
def test_other_compute_cluster_membership_rules_are_refused(override, key):
    with pytest.raises(ConfigError) as err:
        load_dev_config(nodePools={"gpu2": {**GPU, "shape": "BM.GPU.H100.8", **override}})
    assert any(p.startswith(key) for p in err.value.problems), err.value.problems
