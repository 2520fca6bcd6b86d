"""The config model: the dev stack loads; every mistake is one line naming the key path and the fix."""

import pytest

from oke_rdma.config import ConfigError, default_subnet_plan, load_stack_config, subnet_plan
from tests.stackcfg import dev_config, edited

RAW, _ = dev_config()


def problems(raw) -> list[str]:
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    return err.value.problems


def test_dev_stack_loads():
    cfg = load_stack_config(RAW)
    assert cfg.region == "sa-saopaulo-1"
    assert cfg.availability_domains == ("bxtG:SA-SAOPAULO-1-AD-1",)
    assert set(cfg.node_pools) == {"system", "gpu"}
    assert cfg.node_pools["gpu"].rdma and cfg.node_pools["gpu"].shape == "BM.GPU.H100.8"
    assert cfg.node_pools["system"].size == 3 and cfg.node_pools["system"].is_flex
    assert cfg.storage.fss.throughput_gbps == 1 and cfg.storage.fss.protect
    assert {cfg.tenant_namespace(t) for t in cfg.tenants} == {"research", "analytics"}
    assert cfg.tenants["research"].rdma and not cfg.tenants["analytics"].rdma


def test_config_is_frozen():
    cfg = load_stack_config(RAW)
    with pytest.raises(Exception):
        cfg.name_prefix = "other"


def test_rdma_pool_with_fault_domain_names_the_key():
    raw = edited(RAW, "nodePools", ("gpu", "faultDomains"), ["FAULT-DOMAIN-1"])
    assert problems(raw) == ["oke-rdma:nodePools.gpu.faultDomains: must be empty for a node pool in a Compute "
                             "Cluster (OCI places nodes itself); remove it"]


def test_typos_suggest_the_nearest_key():
    raw = edited(RAW, "nodePools", ("gpu", "maxPodPerNode"), 16)
    raw = edited(raw, "nodepools", (), "{}")
    found = problems(raw)
    assert "oke-rdma:nodePools.gpu.maxPodPerNode: unknown key; did you mean maxPodsPerNode?" in found
    assert "oke-rdma:nodepools: unknown key; did you mean nodePools?" in found


def test_all_problems_at_once_and_wrong_types():
    raw = edited(RAW, "nodePools", ("system", "size"), "3")
    raw = edited(raw, "nodePools", ("gpu", "bootVolumeGb"), 20)
    raw = edited(raw, "network", ("vcnCidr",), "10.0.0.1/16")
    found = problems(raw)
    assert len(found) == 3
    assert found[0].startswith("oke-rdma:network.vcnCidr: expected an IPv4 CIDR block")
    assert "oke-rdma:nodePools.system.size: expected a whole number, got the text '3'; write 3 without quotes" in found
    assert "oke-rdma:nodePools.gpu.bootVolumeGb: expected a number from 50 to 32768, got the number 20; change " \
           "the value" in found


def test_wrong_ocid_kind():
    raw = edited(RAW, "compartmentId", (), "ocid1.subnet.oc1.sa-saopaulo-1.aaaaaaaabc")
    assert problems(raw) == ["oke-rdma:compartmentId: expected the OCID of a compartment or a tenancy "
                             "(ocid1.compartment.…), got the OCID of a subnet; copy the OCID of the compartment from "
                             "the OCI console or `oci` CLI"]


def test_a_tenancy_ocid_is_a_compartment():
    raw = edited(RAW, "compartmentId", (), "ocid1.tenancy.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5")
    assert load_stack_config(raw).compartment_id.startswith("ocid1.tenancy.")


def test_missing_region_is_named_as_oci_region():
    raw = {k: v for k, v in RAW.items() if k != "oci:region"}
    assert problems(raw)[0].startswith("oci:region: required")


@pytest.mark.parametrize("edit, expected", [
    (("nodePools", ("gpu", "shape"), "BM.Standard.E5.192"),
     "oke-rdma:nodePools.gpu.shape: BM.Standard.E5.192 is not a shape Oracle lists for RDMA"),
    (("computeCluster", ("availabilityDomain",), "bxtG:SA-SAOPAULO-1-AD-2"),
     "oke-rdma:computeCluster.availabilityDomain: 'bxtG:SA-SAOPAULO-1-AD-2' is not in oke-rdma:availabilityDomains"),
    (("nodePools", ("system", "ocpus"), None), "oke-rdma:nodePools.system.ocpus: required for the Flex shape"),
    (("nodePools", ("gpu", "ocpus"), 4), "oke-rdma:nodePools.gpu.ocpus: only Flex shapes take ocpus/memoryGb"),
    (("network", ("subnets", "storage"), "10.0.16.0/24"),
     "oke-rdma:network.subnets.storage: 10.0.16.0/24 overlaps the workers subnet 10.0.16.0/20"),
    (("network", ("subnets", "storage"), "192.168.0.0/24"),
     "oke-rdma:network.subnets.storage: 192.168.0.0/24 is not inside the VCN 10.0.0.0/16"),
    (("network", ("subnets", "pods"), "10.0.128.0/25"),
     "oke-rdma:network.subnets.pods: 10.0.128.0/25 has 125 usable IPs but the node pools need 316"),
    (("network", ("apiEndpoint",), {"public": True}),
     "oke-rdma:network.apiEndpoint.allowedCidrs: a public API endpoint needs the client CIDRs"),
    (("cluster", ("servicesCidr",), "10.0.0.0/16"), "oke-rdma:cluster.servicesCidr: 10.0.0.0/16 overlaps the VCN"),
    # the key the user set is named, whichever tenant is read first (Pulumi sorts map keys: analytics first)
    (("tenants", ("analytics", "namespace"), "research"),
     "oke-rdma:tenants.analytics.namespace: 'research' is already the namespace of tenant 'research' (its name"),
    (("tenants", ("analytics", "namespace"), "monitoring"),
     "oke-rdma:tenants.analytics.namespace: 'monitoring' is a system or platform namespace"),
    (("storage", ("fss", "throughputGbps"), 10), "oke-rdma:storage.fss.throughputGbps: must be one of 1, 20, 40, 80"),
    (("platform", ("kueue", "version"), "^0.18"), "oke-rdma:platform.kueue.version: must be an exact chart version"),
])
def test_cross_field_rules(edit, expected):
    key, path, value = edit
    raw = edited(RAW, key, path, value, delete=value is None)
    found = problems(raw)
    assert any(p.startswith(expected) for p in found), found


def test_rdma_pool_needs_a_compute_cluster():
    raw = {k: v for k, v in RAW.items() if k != "oke-rdma:computeCluster"}
    assert problems(raw) == ["oke-rdma:nodePools.gpu.rdma: an RDMA pool needs oke-rdma:computeCluster; add it with "
                             "availabilityDomain (plus existingId to use an ACTIVE Compute Cluster in that AD)"]


def test_an_existing_compute_cluster_still_names_its_availability_domain():
    existing = "ocid1.computecluster.oc1.sa-saopaulo-1.aaaaaaaabcdefgh"
    cfg = load_stack_config(edited(RAW, "computeCluster", ("existingId",), existing))
    assert cfg.compute_cluster.existing_id == existing
    raw = edited(RAW, "computeCluster", (), {"existingId": existing})
    assert problems(raw) == ["oke-rdma:computeCluster.availabilityDomain: required (the Compute Cluster's AD (for "
                             "existingId, the AD it was created in): every RDMA pool is placed there); set it in the "
                             "stack config (docs/configuration.md lists its type)"]


def test_default_subnet_plan_for_a_16():
    assert default_subnet_plan("10.0.0.0/16") == {
        "controlPlane": "10.0.0.0/28", "workers": "10.0.16.0/20", "pods": "10.0.128.0/17",
        "internalLoadBalancers": "10.0.1.0/24", "publicLoadBalancers": "10.0.2.0/24", "storage": "10.0.3.0/24"}


def test_default_subnet_plan_for_a_20_and_too_small():
    plan = default_subnet_plan("172.16.0.0/20")
    assert plan["pods"] == "172.16.8.0/21" and plan["controlPlane"] == "172.16.0.0/28"
    with pytest.raises(ValueError):
        default_subnet_plan("10.0.0.0/24")
    raw = edited(RAW, "network", ("vcnCidr",), "10.0.0.0/24")
    assert problems(raw)[0].startswith("oke-rdma:network.vcnCidr: is smaller than /20")


def test_overrides_win_over_the_plan():
    cfg = load_stack_config(edited(RAW, "network", ("subnets", "storage"), "10.0.4.0/24"))
    assert subnet_plan(cfg.network)["storage"] == "10.0.4.0/24"
    assert subnet_plan(cfg.network)["workers"] == "10.0.16.0/20"


def test_a_refused_list_item_is_reported_once():
    raw = edited(RAW, "availabilityDomains", (), "[1]")
    [problem] = problems(raw)
    assert problem.startswith("oke-rdma:availabilityDomains[0]: expected text, got the number 1; quoting it is not "
                              "enough, as text '1' is refused too: expected availability domain names like")
