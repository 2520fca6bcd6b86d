"""Node pool rules: a Compute Cluster pool's AD equals the Compute Cluster's (stack, mandatory), IMDSv2 only and PV
in-transit encryption (advisory) — pass, fail, unknown, and a hand-written stack that bypasses our config."""

import pulumi
import pulumi_oci as oci
import pytest

from offline.engine import run_program
from offline.policy_eval import evaluate_packs, has_mandatory
from policies.placement import placement
from policies.security import node_pool
from policies import PACK_DIRS
from tests.policies.test_policies import NODE_POOL, U, call_resource_rule, messages, pool, res, run

AD = "rdma-node-pool-compute-cluster-ad"
IMDS, PV = "node-pool-imds-v2-only", "node-pool-pv-encryption-in-transit"
CC = "oci:Core/computeCluster:ComputeCluster"
AD1, AD2 = "bxtG:SA-SAOPAULO-1-AD-1", "bxtG:SA-SAOPAULO-1-AD-2"


def linked(cc_ad=AD1, pool_ads=(AD1,), cc_id=U, link=True):
    cc = res(CC, "cc", {"availabilityDomain": cc_ad, "compartmentId": "c"})
    p = res(NODE_POOL, "gpu", pool(cc_id, [{"availabilityDomain": ad, "subnetId": U} for ad in pool_ads]),
            deps={"nodeConfigDetails": [cc]} if link else None)
    return cc, p


# --- AD of the Compute Cluster --------------------------------------------------------------------------------------
def test_ad_passes_when_the_pool_is_in_the_compute_clusters_ad():
    assert run(*linked(), policy=AD).violations == []


def test_ad_fails_when_the_pool_is_elsewhere():
    cc, p = linked(pool_ads=(AD2,))
    [v] = run(cc, p, policy=AD).violations
    assert v.urn == p.urn and v.policy_type == "stack" and v.enforcement_level == "mandatory"
    assert f"placementConfigs[0].availabilityDomain is '{AD2}' but Compute Cluster 'cc' is in '{AD1}'" in v.message


@pytest.mark.parametrize("cc_ad, pool_ads, link, expected", [
    (U, (AD1,), True, "availabilityDomain of Compute Cluster 'cc' is unknown during preview"),
    (AD1, (U,), True, "placementConfigs[0].availabilityDomain is unknown during preview"),
    (AD1, (AD1,), False, "cannot be identified"),  # computeClusterId unknown and no dependency to follow
])
def test_ad_fails_closed_on_unknowns(cc_ad, pool_ads, link, expected):
    [message] = messages(run(*linked(cc_ad, pool_ads, link=link), policy=AD), AD)
    assert expected in message


def test_ad_matches_by_id_and_ignores_compute_clusters_of_other_stacks():
    cc = res(CC, "cc", {"availabilityDomain": AD1}, outputs={"availabilityDomain": AD1, "id": "ocid1.cc.mine"})
    mine = res(NODE_POOL, "gpu", pool("ocid1.cc.mine", [{"availabilityDomain": AD2, "subnetId": "s"}]))
    assert len(run(cc, mine, policy=AD).violations) == 1
    theirs = res(NODE_POOL, "gpu", pool("ocid1.cc.elsewhere", [{"availabilityDomain": AD2, "subnetId": "s"}]))
    assert run(cc, theirs, policy=AD).violations == []


def test_ad_ignores_pools_outside_a_compute_cluster():
    cc, _ = linked()
    p = res(NODE_POOL, "cpu", pool(None, [{"availabilityDomain": AD2, "subnetId": "s"}]))
    assert run(cc, p, policy=AD).violations == []


# --- IMDSv2 only and PV in-transit encryption -------------------------------------------------------------------------
GOOD = {"nodeMetadata": {"areLegacyImdsEndpointsDisabled": "true"}}


def hardened(**details):
    p = pool(None, **GOOD)
    p["nodeConfigDetails"].update({"isPvEncryptionInTransitEnabled": True, **details})
    return p


def test_hardening_rules_pass_on_a_hardened_pool():
    report = run(res(NODE_POOL, "p", hardened()))
    assert messages(report, IMDS) == [] and messages(report, PV) == []


@pytest.mark.parametrize("props, expected", [
    (pool(None), "nodeMetadata has no areLegacyImdsEndpointsDisabled"),
    (pool(None, nodeMetadata={"areLegacyImdsEndpointsDisabled": "false"}), "is 'false'"),
    (pool(None, nodeMetadata=U), "nodeMetadata is unknown during preview"),
    (pool(None, nodeMetadata={"areLegacyImdsEndpointsDisabled": U}), "is unknown during preview"),
])
def test_imds_rule_fails_open_endpoints_and_unknowns(props, expected):
    report = run(res(NODE_POOL, "p", props), policy=IMDS)
    [v] = report.violations
    assert expected in v.message and v.enforcement_level == "mandatory"  # `run` forces mandatory for the test
    assert node_pool.node_pool_imds_v2_only.enforcement_level.value == "advisory"


@pytest.mark.parametrize("props, expected", [
    (hardened(isPvEncryptionInTransitEnabled=False), "is not true"),
    ({"clusterId": U, "subnetIds": ["s"]}, "legacy subnetIds form"),
    ({"clusterId": U, "nodeConfigDetails": U}, "nodeConfigDetails are unknown during preview"),
    (hardened(isPvEncryptionInTransitEnabled=U), "isPvEncryptionInTransitEnabled is unknown"),
])
def test_pv_rule_fails_off_and_unknowns(props, expected):
    [message] = messages(run(res(NODE_POOL, "p", props), policy=PV), PV)
    assert expected in message


def test_hardening_rules_called_directly_and_only_on_node_pools():
    assert len(call_resource_rule(node_pool.validate_imds_v2_only, NODE_POOL, pool(None))) == 1
    assert call_resource_rule(node_pool.validate_pv_encryption, CC, {}) == []
    assert set(node_pool.UNKNOWN_BEHAVIOUR) == {p.name for p in node_pool.POLICIES}
    assert set(placement.UNKNOWN_BEHAVIOUR) == {p.name for p in placement.POLICIES}


def test_advisory_findings_do_not_make_a_stack_fail():
    """A CPU pool whose only findings are the two advisories (IMDSv1 left on, no PV in-transit encryption): the
    stack does not fail."""
    cpu = pool(None, nodeShape="VM.Standard.E5.Flex", nodeShapeConfig={"ocpus": 4.0, "memoryInGbs": 64.0})
    report = evaluate_packs(PACK_DIRS, [res(NODE_POOL, "p", cpu)])
    assert {v.policy for v in report.violations} == {IMDS, PV} and not has_mandatory(report)


# --- a hand-written stack that bypasses our config ------------------------------------------------------------------
def bad_stack():
    """Raw pulumi_oci resources, no components: a pool in AD-2 joining a Compute Cluster created in AD-1, with a
    fault domain, IMDSv1 left on and no PV encryption, in a basic cluster."""
    cc = oci.core.ComputeCluster("cc", availability_domain=AD1, compartment_id="ocid1.compartment.oc1..c")
    cluster = oci.containerengine.Cluster("oke", compartment_id="ocid1.compartment.oc1..c", kubernetes_version="v1.34.1",
                                          name="oke", vcn_id="ocid1.vcn.oc1..v", type="BASIC_CLUSTER")
    oci.containerengine.NodePool(
        "gpu", cluster_id=cluster.id, compartment_id="ocid1.compartment.oc1..c", node_shape="BM.GPU.H100.8",
        node_config_details=oci.containerengine.NodePoolNodeConfigDetailsArgs(
            size=2, compute_cluster_id=cc.id, placement_configs=[
                oci.containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
                    availability_domain=AD2, subnet_id="ocid1.subnet.oc1..s", fault_domains=["FAULT-DOMAIN-1"])]))
    pulumi.export("ok", True)


@pytest.mark.parametrize("unknowns", [False, True])
def test_hand_written_bad_stack_is_caught(unknowns):
    stack = run_program({"oci:region": "sa-saopaulo-1"}, [], "bad", unknowns=unknowns, program=bad_stack)
    report = evaluate_packs(PACK_DIRS, stack.resources)
    found = {(v.policy, v.enforcement_level) for v in report.violations}
    assert {("rdma-node-pool-placement", "mandatory"), ("rdma-cluster-enhanced", "mandatory"),
            (AD, "mandatory"), (IMDS, "advisory"), (PV, "advisory")} <= found
    assert has_mandatory(report)
    [ad] = [v for v in report.violations if v.policy == AD]
    assert f"is '{AD2}' but Compute Cluster 'cc' is in '{AD1}'" in ad.message  # followed to the Compute Cluster
