"""A GPU pool whose GPUs are in no tenant's Kueue quota is said before pulumi up: no job is ever admitted there."""
from __future__ import annotations

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
