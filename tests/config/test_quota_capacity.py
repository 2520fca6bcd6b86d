"""A tenant's CPU or memory quota beyond what all nodes of its pools hold is warned about (Kueue would admit jobs
no node can run); a pool whose shape facts are unknown makes no claim."""

from __future__ import annotations

from oke_rdma.config.checks.tenants import quota_capacity_warnings
from tests.stackcfg import load_dev_config


def test_cpu_and_memory_quotas_beyond_the_pools_are_warned_naming_the_key():
    """analytics on 2 × BM.GPU.H100.8 (448 vCPUs, 4096 GB): 100000 vCPUs and 9000000 GiB are both named."""
    cfg = load_dev_config(tenants={"analytics": {"quota": {"cpu": 100000, "memoryGb": 9000000}}})
    found = quota_capacity_warnings(cfg)
    assert any(w.startswith("oke-rdma:tenants.analytics.quota.cpu: 100000 vCPUs is more than the 448 vCPUs")
               for w in found), found
    assert any(w.startswith("oke-rdma:tenants.analytics.quota.memoryGb: 9000000 GiB") for w in found), found


def test_quotas_within_the_pools_pass_silently():
    """The dev stack's quotas fit its pools: no warning."""
    assert quota_capacity_warnings(load_dev_config()) == []


def test_a_pool_with_unknown_shape_facts_makes_no_claim():
    """A shape not in the shape table (no OCPU/memory facts) gives no warning, however large the quota."""
    cfg = load_dev_config(tenants={"analytics": {"quota": {"cpu": 100000, "memoryGb": 9000000}}})
    for pool in cfg.node_pools.values():
        pool.__dict__["shape"] = "BM.GPU.Unknown.8"
        pool.__dict__["ocpus"] = pool.__dict__["memory_gb"] = None
    assert quota_capacity_warnings(cfg) == []


def test_the_quota_new_stack_derives_from_the_nodes_is_not_warned_about():
    """new_stack's default quota is the GPU nodes' vCPUs and memory: exactly the capacity, so no warning."""
    cfg = load_dev_config(tenants={"analytics": {"quota": {"cpu": 448, "memoryGb": 4096}}})
    assert not [w for w in quota_capacity_warnings(cfg) if "analytics" in w]
