"""A tenant's Workload Identity grants never reach what the platform owns: its Vault keys, every secret of its
compartments, or the weights bucket beyond what ``tenants.<t>.weights`` gives; grants on the tenant's own things
pass."""

from __future__ import annotations

import pytest

from oke_rdma.config import ConfigError
from tests.stackcfg import load_dev_config

DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"  # the weights bucket's
STACK = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"  # compartmentId
OWN = "ocid1.compartment.oc1..aaaaaaaa9z8y7x6w5v4u3t2s1r0q9p8o7n6m5l4k3j2h1g0f9e8d7c6tenant"


def _problems(grant: str) -> list[str]:
    try:
        load_dev_config(tenants={"research": {"serviceAccounts": {"trainer": {"allow": [grant]}}}})
    except ConfigError as e:
        return [p for p in e.problems if "allow[0]" in p]
    return []


@pytest.mark.parametrize("grant,says", [
    ("read secret-family in tenancy", "reads every secret"),
    (f"read secret-bundles in compartment id {STACK}", "reads every secret"),
    (f"read secrets in compartment id {STACK} where target.secret.name != 'x'", "reads every secret"),
    ("manage keys in tenancy", "platform's Vault keys"),
    (f"use keys in compartment id {STACK}", "platform's Vault keys"),
    (f"manage vaults in compartment id {STACK}", "platform's Vault keys"),
    (f"manage object-family in compartment id {DATA}", "weights bucket 'model-weights'"),
    (f"manage buckets in compartment id {DATA} where target.bucket.name = 'model-weights'", "weights bucket"),
    (f"use objects in compartment id {DATA}", "weights bucket"),
    ("manage objects in tenancy", "weights bucket"),
    # a read of the weights bucket's compartment without a bucket pin reads every tenant's checkpoints
    (f"read objects in compartment id {DATA}", "every tenant's <tenant>.checkpoints/"),
    (f"read object-family in compartment id {DATA}", "weights bucket"),
    (f"read all-resources in compartment id {DATA}", "weights bucket"),
    # all-resources includes secret-bundles: a read of it reads every secret's contents
    (f"read all-resources in compartment id {STACK}", "reads every secret"),
    ("read all-resources in tenancy", "reads every secret"),
])
def test_a_grant_reaching_the_platforms_keys_secrets_or_weights_is_refused_naming_it(grant, says):
    (problem,) = _problems(grant)
    assert problem.startswith("oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]: ") and says in problem


@pytest.mark.parametrize("grant", [
    f"read secret-bundles in compartment id {STACK} where target.secret.name = 'hf-token'",
    f"read secret-family in compartment id {OWN}",
    f"manage keys in compartment id {OWN}",
    f"inspect keys in compartment id {STACK}",
    f"manage objects in compartment id {DATA} where target.bucket.name = 'scratch'",
    f"read objects in compartment id {DATA} where target.bucket.name = 'analytics-datasets'",
    f"read objects in compartment id {OWN}",
    f"read all-resources in compartment id {OWN}",
    f"manage object-family in compartment id {OWN}",
])
def test_grants_on_the_tenants_own_things_or_read_only_pass(grant):
    assert _problems(grant) == []


@pytest.mark.parametrize("grant", [
    f"manage virtual-network-family in compartment id {STACK}",
    f"manage network-security-groups in compartment id {STACK}",
    "manage public-ips in tenancy",
    f"manage file-family in compartment id {STACK}",
    f"manage export-sets in compartment id {STACK}",
    "manage object-family in tenancy where target.bucket.name != 'x'",
    f"use buckets in compartment id {STACK}",
    # what the security pack's catalogue refuses or judges as a resource, created at run time
    f"manage load-balancers in compartment id {STACK}",
    f"manage network-load-balancers in compartment id {STACK}",
    "manage vtaps in tenancy",
    "manage zpr-family in tenancy",
    "manage network-firewall-family in tenancy",
    "manage serviceconnectors in tenancy",
    "manage cloud-guard-family in tenancy",
    f"manage instance-configurations in compartment id {STACK}",
    f"manage volume-backups in compartment id {STACK}",
    # use repos pushes images: a tag the security pack trusts (*.ocir.io) can be re-pushed
    "use repos in tenancy",
    f"manage repos in compartment id {STACK}",
])
def test_a_grant_that_changes_exposure_keys_or_data_others_share_is_refused(grant):
    (problem,) = _problems(grant)
    assert problem.startswith("oke-rdma:tenants.research.serviceAccounts.trainer.allow[0]: ")
    assert "what others share" in problem or "weights bucket" in problem


@pytest.mark.parametrize("grant", [
    f"read virtual-network-family in compartment id {STACK}",
    f"use virtual-network-family in compartment id {STACK}",
    f"manage virtual-network-family in compartment id {OWN}",
    f"read file-family in compartment id {STACK}",
    f"manage objects in compartment id {STACK} where target.bucket.name = 'research-scratch'",
    f"read load-balancers in compartment id {STACK}",
    "read repos in tenancy",
    f"manage repos in compartment id {OWN}",
    f"manage load-balancers in compartment id {OWN}",
])
def test_reading_the_platforms_network_or_writing_the_tenants_own_passes(grant):
    assert _problems(grant) == []


@pytest.mark.parametrize("grant", [
    f"read objects in compartment id {DATA} where target.bucket.name = 'MODEL-WEIGHTS'",
    f"read objects in compartment id {DATA} where target.bucket.name = 'Model-Weights'",
    f"manage objects in compartment id {DATA} where target.bucket.name = 'MoDeL-wEiGhTs'",
])
def test_a_pin_naming_the_weights_bucket_in_another_case_reaches_it(grant):
    """OCI matches conditions case-insensitively: 'MODEL-WEIGHTS' is the bucket model-weights."""
    (problem,) = _problems(grant)
    assert "weights bucket 'model-weights'" in problem


@pytest.mark.parametrize("grant", [
    f"manage buckets in compartment id {STACK} where target.bucket.name = 'research-scratch'",
    f"use buckets in compartment id {STACK} where target.bucket.name = 'research-scratch'",
    f"use object-family in compartment id {STACK} where target.bucket.name = 'research-scratch'",
])
def test_a_bucket_pin_does_not_narrow_bucket_administration_in_the_platforms_compartment(grant):
    """BUCKET_UPDATE and PAR_MANAGE make even a named bucket public or share it by pre-authenticated URL."""
    (problem,) = _problems(grant)
    assert "what others share" in problem
