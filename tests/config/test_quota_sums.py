"""The tenants' nominal quotas on one shared pool are added up: more GPUs, CPU or memory than the pool offers is
warned on the pool's key with each tenant's quota key; RDMA pools (topology-aware admission) are left alone."""

from __future__ import annotations

import pytest

from oke_rdma.quota_sums import quota_sum_warnings
from tests.stackcfg import dev_values, load_dev_config

IMAGE = "ocid1.image.oc1.sa-saopaulo-1.aaaaaaaa7u2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4j6k8lgpub"
#: 1 × BM.GPU.A100-v2.8 time-sliced 4 ways: 32 nvidia.com/gpu, 128 OCPUs = 256 vCPUs, 2048 GB.
TS_POOL = {"shape": "BM.GPU.A100-v2.8", "size": 1, "imageId": IMAGE,
           "gpuSharing": {"mode": "timeSlicing", "replicas": 4}}


def _two_shared(speech: dict, nlp: dict):
    """dev plus the time-sliced pool and two shared tenants (copies of analytics) with these quotas."""
    analytics = dev_values()["oke-rdma:tenants"]["analytics"]

    def tenant(name: str, uid: int, quota: dict) -> dict:
        return {**analytics, "isolation": "shared", "quota": quota,
                "sharedStorage": {**analytics["sharedStorage"], "subPath": name, "uid": uid, "gid": uid}}

    return load_dev_config(nodePools={"ts": TS_POOL}, tenants={
        "analytics": None, "speech": tenant("speech", 20003, speech), "nlp": tenant("nlp", 20004, nlp)})


def _quota(gpu: int, cpu: int = 100, memory: int = 500) -> dict:
    return {"gpu": gpu, "gpuBorrowingLimit": 0, "cpu": cpu, "memoryGb": memory}


def test_gpu_quotas_adding_up_beyond_a_shared_pool_are_warned_naming_the_keys():
    """speech 24 + nlp 32 on 32 time-sliced slots: one warning on nodePools.ts naming both quota keys."""
    (warning,) = quota_sum_warnings(_two_shared(_quota(24), _quota(32)))
    assert warning.startswith("oke-rdma:nodePools.ts: the tenants' nominal gpu quotas on this pool add up to 56")
    assert "oke-rdma:tenants.speech.quota.gpu" in warning and "oke-rdma:tenants.nlp.quota.gpu" in warning
    assert "offers 32" in warning


def test_gpu_quotas_that_fit_the_shared_pool_are_not_warned():
    """16 + 16 on 32 slots (borrowing beyond is lending, not a promise): no warning."""
    assert quota_sum_warnings(_two_shared({**_quota(16), "gpuBorrowingLimit": 16}, _quota(16))) == []


@pytest.mark.parametrize("field, speech, nlp, offered", [
    ("cpu", _quota(16, cpu=150), _quota(16, cpu=150), "256"),
    ("memoryGb", _quota(16, memory=1500), _quota(16, memory=1000), "2048"),
])
def test_cpu_and_memory_quotas_adding_up_beyond_the_pool_are_warned(field, speech, nlp, offered):
    """CPU (cores against vCPUs) and memory (GB) are added up per pool like GPUs."""
    (warning,) = quota_sum_warnings(_two_shared(speech, nlp))
    assert f"nominal {field} quotas" in warning and f"offers {offered}" in warning
    assert f"oke-rdma:tenants.speech.quota.{field}" in warning and "gpuBorrowingLimit" not in warning


def test_an_rdma_pool_with_quotas_beyond_it_is_left_to_topology_aware_admission():
    """dev: research 16 + analytics 4 on the 16-GPU RDMA pool, whose flavor has the RDMA Topology: no warning."""
    assert quota_sum_warnings(load_dev_config()) == []


def test_without_kueue_nothing_is_added_up():
    """No Kueue, no nominal quotas to promise."""
    cfg = _two_shared(_quota(24), _quota(32))
    assert quota_sum_warnings(cfg.model_copy(update={"platform": cfg.platform.model_copy(update={
        "kueue": cfg.platform.kueue.model_copy(update={"enabled": False})})})) == []


def test_an_a10_pool_offers_its_vcpus_not_half_of_them():
    """2 × VM.GPU.A10.2 (30 OCPUs each, Intel x86): 120 vCPUs; quotas of 50 + 100 are warned against 120, in vCPUs."""
    a10 = {"shape": "VM.GPU.A10.2", "size": 2, "imageId": IMAGE, "gpuSharing": {"mode": "timeSlicing", "replicas": 2}}
    analytics = dev_values()["oke-rdma:tenants"]["analytics"]

    def tenant(name: str, uid: int, cpu: int) -> dict:
        return {**analytics, "isolation": "shared", "quota": _quota(2, cpu=cpu, memory=100),
                "sharedStorage": {**analytics["sharedStorage"], "subPath": name, "uid": uid, "gid": uid}}

    over = load_dev_config(nodePools={"a10": a10}, tenants={
        "analytics": None, "speech": tenant("speech", 20003, 50), "nlp": tenant("nlp", 20004, 100)})
    (warning,) = quota_sum_warnings(over)
    assert "add up to 150 vCPUs" in warning and "offers 120 (2 × VM.GPU.A10.2)" in warning, warning
    within = load_dev_config(nodePools={"a10": a10}, tenants={
        "analytics": None, "speech": tenant("speech", 20003, 50), "nlp": tenant("nlp", 20004, 70)})
    assert quota_sum_warnings(within) == []
