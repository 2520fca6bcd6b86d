"""A GPU pool whose GPUs are in no tenant's Kueue quota is said before pulumi up: no job is ever admitted there."""
from __future__ import annotations

import pytest

from oke_rdma.adapter import idle_pool_warnings
from tests.stackcfg import dev_values, load_dev_config


def _with_second_gpu_pool(**extra):
    pools = dev_values()["oke-rdma:nodePools"]
    return load_dev_config(nodePools={"gpu2": dict(pools["gpu"])}, **extra)


def test_a_pool_added_after_the_quotas_filled_the_first_is_named():
    (warning,) = idle_pool_warnings(_with_second_gpu_pool())
    assert warning.startswith("oke-rdma:nodePools.gpu2: its 16 GPUs are in no tenant's Kueue quota")


def test_a_quota_that_reaches_the_pool_or_borrowing_silences_it():
    assert idle_pool_warnings(load_dev_config()) == []
    more = _with_second_gpu_pool(tenants={"research": {"quota": {"gpu": 16, "gpuBorrowingLimit": 8}}})
    assert idle_pool_warnings(more) == []


IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"


def _plain(shape: str, **extra) -> dict:
    return {"shape": shape, "size": 1, "imageId": IMAGE, **extra}


@pytest.mark.parametrize("shape,extra", [
    ("VM.GPU.A10.2", {}),                                        # the shape new_stack gives a plain pool
    ("BM.GPU.L40S.4", {}),                                       # a bare metal GPU shape not on the RDMA list
    ("BM.GPU.A100-v2.8", {"rdma": False}),                       # an RDMA-capable shape kept out of the cluster
    ("VM.GPU.A10.2", {"gpuSharing": {"mode": "exclusive"}}),     # exclusive said outright
])
def test_a_plain_gpu_pool_no_tenant_can_use_is_named(shape, extra):
    """Every GPU pool that is neither RDMA nor shared is in no tenant's flavors and the guard keeps tenants off it:
    the warning names its key and how to give it to tenants."""
    cfg = load_dev_config(nodePools={"plain": _plain(shape, **extra)})
    (warning,) = idle_pool_warnings(cfg)
    assert warning.startswith("oke-rdma:nodePools.plain: a plain GPU pool (exclusive, not RDMA): no tenant can use")
    assert "nodePools.plain.gpuSharing" in warning


def test_a_shared_pool_a_tenant_reaches_and_a_cpu_pool_are_not_named():
    """A time-sliced pool in a shared tenant's quota and a CPU pool make no idle-GPU warning."""
    cfg = load_dev_config(nodePools={"shared": _plain("VM.GPU.A10.2", gpuSharing={"mode": "timeSlicing", "replicas": 2}),
                                     "cpu": _plain("VM.Standard.E5.Flex", ocpus=4, memoryGb=32)},
                          tenants={"research": {"isolation": "shared", "quota": {"gpu": 20}}})
    assert idle_pool_warnings(cfg) == []


def test_a_plain_pool_without_tenants_is_not_named():
    """Without tenants nothing keeps anyone off a plain pool: no warning."""
    cfg = load_dev_config(nodePools={"plain": _plain("VM.GPU.A10.2")}, tenants=None)
    assert [w for w in idle_pool_warnings(cfg) if "plain" in w] == []


def test_an_idle_pool_names_the_tenants_an_earlier_pool_took_and_the_key_to_move_one():
    """A pool added ahead of another in the fill order takes the quota of the tenants that used the other: the idle
    pool's warning names those tenants, the pools their quota fills first, and the one key that gives one of them
    the idle pool."""
    ts = {"gpuSharing": {"mode": "timeSlicing", "replicas": 2}}
    cfg = load_dev_config(nodePools={"ts1": _plain("VM.GPU.A10.2", **ts), "ts2": _plain("VM.GPU.A10.2", **ts)},
                          tenants={"research": {"isolation": "shared", "quota": {"gpu": 4}}})
    (warning,) = [w for w in idle_pool_warnings(cfg) if w.startswith("oke-rdma:nodePools.ts2:")]
    assert warning.endswith("; tenant research could use it but its quota fills ts1 first: to give it this pool set "
                            "tenants.research.nodePools: [ts2]")


def test_an_idle_pool_no_tenant_could_use_names_no_tenant():
    """A pool every tenant's own nodePools list leaves out gets the plain warning, without a tenant to move."""
    ts = {"gpuSharing": {"mode": "timeSlicing", "replicas": 2}}
    cfg = load_dev_config(nodePools={"gpu2": dict(dev_values()["oke-rdma:nodePools"]["gpu"]),
                                     "ts1": _plain("VM.GPU.A10.2", **ts)},
                          tenants={"research": {"nodePools": ["gpu"]},
                                   "analytics": {"isolation": "shared", "nodePools": ["ts1"],
                                                 "quota": {"gpuBorrowingLimit": 0}}})
    (warning,) = [w for w in idle_pool_warnings(cfg) if w.startswith("oke-rdma:nodePools.gpu2:")]
    assert "could use it" not in warning and warning.endswith("or list the pool in tenants.<t>.nodePools")
