"""Red-team pass 4 (2026-12-02), identity in the stack config: a tenant's bucket pin that names the weights bucket in
another case (OCI matches conditions case-insensitively), and bucket administration pinned to a bucket."""
from __future__ import annotations

from typing import Any

from tests.policies.redteam.configs import CONFIG_CASES

PLATFORM = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"
KEY = "oke-rdma:tenants.analytics.serviceAccounts.gpu-metrics.allow[1]"


def _grant(text: str):
    def edit(doc: dict[str, Any]) -> None:
        sa = doc["config"]["oke-rdma:tenants"]["analytics"]["serviceAccounts"]["gpu-metrics"]
        sa["allow"] = list(sa["allow"]) + [text]
    return edit


CONFIG_CASES.update({
    "tenant_bucket_pin_in_other_case_is_the_weights_bucket": (
        "identity", KEY,
        _grant(f"read objects in compartment id {DATA} where target.bucket.name = 'MODEL-WEIGHTS'"),
        _grant(f"read objects in compartment id {DATA} where target.bucket.name = 'analytics-datasets'")),
    "tenant_manages_a_bucket_of_the_platform_compartment_by_pin": (
        "data", KEY,
        _grant(f"manage buckets in compartment id {PLATFORM} where target.bucket.name = 'analytics-scratch'"),
        _grant(f"read buckets in compartment id {PLATFORM} where target.bucket.name = 'analytics-scratch'")),
})
