"""An ``rdma: true`` tenant none of whose pools is an RDMA pool keeps a privileged namespace and hostNetwork rights it
cannot use: one warning line naming ``tenants.<t>.rdma`` and both fixes."""

from __future__ import annotations

from oke_rdma.config.checks.tenants import rdma_tenant_warnings
from tests.stackcfg import load_dev_config

A10 = {"shape": "VM.GPU.A10.2", "size": 2, "gpuSharing": {"mode": "timeSlicing", "replicas": 2},
       "imageId": "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"}


def test_an_rdma_tenant_with_an_rdma_pool_gets_no_warning():
    assert rdma_tenant_warnings(load_dev_config()) == []


def test_an_rdma_tenant_limited_to_a_shared_pool_is_warned_naming_its_rdma_key():
    cfg = load_dev_config(nodePools={"eval": A10},
                          tenants={"research": {"isolation": "shared", "nodePools": ["eval"], "quota": {"gpu": 4}}})
    (line,) = rdma_tenant_warnings(cfg)
    assert line.startswith("oke-rdma:tenants.research.rdma: true, but none of the tenant's pools is an RDMA pool "
                           "(its pools: eval)") and "tenants.research.nodePools" in line and "\n" not in line


def test_an_rdma_tenant_on_a_stack_without_rdma_pools_is_warned():
    cfg = load_dev_config(nodePools={"gpu": {"rdma": False, "gpuSharing": {"mode": "mig", "profile": "1g.10gb"}}},
                          tenants={"research": {"isolation": "shared", "quota": {"gpu": 8}},
                                   "analytics": {"quota": {"gpu": 0, "gpuBorrowingLimit": 0}}},
                          computeCluster=None)
    lines = rdma_tenant_warnings(cfg)
    assert [line.split(":", 2)[1] for line in lines] == ["tenants.research.rdma"]
    assert "add an RDMA pool" in lines[0]


def test_a_tenant_without_rdma_is_never_warned():
    cfg = load_dev_config(nodePools={"eval": A10},
                          tenants={"research": {"rdma": False, "isolation": "shared", "nodePools": ["eval"],
                                                "quota": {"gpu": 4}}})
    assert rdma_tenant_warnings(cfg) == []
