"""Red-team pass 3 (2026-12-02), identity in the stack config: a tenant's ServiceAccount reading every object of
the weights bucket's compartment or every resource (secret contents included) of the platform's, pushing images to
the tenancy's registry, or creating load balancers in the platform's compartment. Controls: the same grant pinned
to the tenant's bucket, read-only or inspect-only."""
from __future__ import annotations

from tests.policies.redteam.configs import CONFIG_CASES

STACK = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"
TRAINER = "oke-rdma:tenants.research.serviceAccounts.trainer.allow"
_N = 2  # dev's trainer lists two grants; the appended one is allow[2]


def _grant(text: str):
    def edit(doc):
        doc["config"]["oke-rdma:tenants"]["research"]["serviceAccounts"]["trainer"]["allow"].append(text)
    return edit


CONFIG_CASES["tenant_sa_reads_every_dataset_of_the_data_compartment"] = (
    "data", f"{TRAINER}[{_N}]", _grant(f"read objects in compartment id {DATA}"),
    _grant(f"read objects in compartment id {DATA} where target.bucket.name = 'research-datasets'"))
CONFIG_CASES["tenant_sa_reads_all_resources_of_the_platform"] = (
    "data", f"{TRAINER}[{_N}]", _grant(f"read all-resources in compartment id {STACK}"),
    _grant(f"inspect all-resources in compartment id {STACK}"))
CONFIG_CASES["tenant_sa_pushes_to_the_tenancys_registry"] = (
    "supply-chain", f"{TRAINER}[{_N}]", _grant(f"manage repos in compartment id {STACK}"),
    _grant(f"read repos in compartment id {STACK}"))
CONFIG_CASES["tenant_sa_manages_the_platforms_load_balancers"] = (
    "network", f"{TRAINER}[{_N}]", _grant(f"manage load-balancers in compartment id {STACK}"),
    _grant(f"read load-balancers in compartment id {STACK}"))
