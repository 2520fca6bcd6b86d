"""The IAM component under mocks: exact statements, policies on/off, dependencies, first-preview mode."""

from __future__ import annotations

import pulumi
import pulumi_oci as oci
import pytest

from components.iam import Iam, IamArgs, policy_statements
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one
from offline.engine import fake_ocid, run_program

POLICY = "oci:Identity/policy:Policy"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
# The id the offline mocks give the stub cluster below (deterministic).
CLUSTER_ID = fake_ocid("cluster", "sa-saopaulo-1", CLUSTER, "stub-cluster")

LAUNCH = (f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} in compartment id {COMPARTMENT} "
          f"where request.principal.type = 'nodepool'")
WHERE_CLUSTER = f"where all {{request.principal.type = 'cluster', request.principal.id = '{CLUSTER_ID}'}}"
FILE_FAMILY = f"Allow any-user to manage file-family in compartment id {COMPARTMENT} {WHERE_CLUSTER}"
VCN_FAMILY = f"Allow any-user to use virtual-network-family in compartment id {COMPARTMENT} {WHERE_CLUSTER}"


def _run(unknowns: bool = False, **overrides):
    raw = dev_raw_config(**overrides)
    cfg = load_dev_config(**overrides)
    built: dict[str, Iam] = {}

    def program():
        # A real cluster resource stands in for the cluster component, so dependency edges are visible.
        cluster = oci.containerengine.Cluster("stub-cluster", oci.containerengine.ClusterArgs(
            compartment_id=cfg.compartment_id, kubernetes_version="v1.34.1", vcn_id="ocid1.vcn.oc1..stub"))
        built["iam"] = Iam("iam", IamArgs(cfg, cluster.id, None))
        pulumi.export("statements", built["iam"].statements)

    run = run_program(raw, [], "dev", unknowns=unknowns, program=program)
    return run, built["iam"]


def test_statements_exact_text_and_policies():
    run, iam = _run()
    assert run.outputs["statements"] == [LAUNCH, FILE_FAMILY, VCN_FAMILY]
    launch = one(run.resources, POLICY, "okerdma-dev-nodepool-launch")
    cluster_policy = one(run.resources, POLICY, "okerdma-dev-cluster-principal")
    assert launch.inputs["statements"] == [LAUNCH]
    assert launch.inputs["name"] == "okerdma-dev-nodepool-launch"
    assert launch.inputs["compartmentId"] == COMPARTMENT
    assert launch.inputs["freeformTags"] == {"project": "oke-rdma", "environment": "dev"}
    assert cluster_policy.inputs["statements"] == [FILE_FAMILY, VCN_FAMILY]
    assert cluster_policy.inputs["compartmentId"] == COMPARTMENT
    assert iam.launch_policy is not None and iam.cluster_policy is not None


def test_launch_policy_does_not_wait_for_the_cluster_but_cluster_policy_does():
    run, _ = _run()
    cluster_urn = one(run.resources, CLUSTER).urn
    launch = one(run.resources, POLICY, "okerdma-dev-nodepool-launch")
    cluster_policy = one(run.resources, POLICY, "okerdma-dev-cluster-principal")
    assert cluster_urn not in launch.dependencies
    assert all(cluster_urn not in deps for deps in launch.property_dependencies.values())
    assert cluster_urn in cluster_policy.property_dependencies["statements"]


def test_children_are_parented_to_the_component():
    run, _ = _run()
    component = one(run.resources, "oke-rdma:iam:Iam")
    assert [p.parent for p in of_type(run.resources, POLICY)] == [component.urn, component.urn]


def test_create_policies_false_creates_nothing_but_keeps_statements():
    run, iam = _run(iam={"createPolicies": False})
    assert of_type(run.resources, POLICY) == []
    assert {r.type for r in run.resources} == {CLUSTER, "oke-rdma:iam:Iam"}
    assert run.outputs["statements"] == [LAUNCH, FILE_FAMILY, VCN_FAMILY]
    assert iam.launch_policy is None and iam.cluster_policy is None


def test_no_rdma_pool_no_launch_statement_or_policy():
    run, iam = _run(nodePools={"gpu": {"rdma": False, "shape": "VM.GPU.A10.1"}})
    assert run.outputs["statements"] == [FILE_FAMILY, VCN_FAMILY]
    assert [p.name for p in of_type(run.resources, POLICY)] == ["okerdma-dev-cluster-principal"]
    assert iam.launch_policy is None


def test_fss_disabled_drops_file_family():
    run, _ = _run(storage={"fss": {"enabled": False}})
    assert run.outputs["statements"] == [LAUNCH, VCN_FAMILY]
    assert one(run.resources, POLICY, "okerdma-dev-cluster-principal").inputs["statements"] == [VCN_FAMILY]


@pytest.mark.parametrize("overrides", [{}, {"iam": {"createPolicies": False}}])
def test_never_manage_all_resources(overrides):
    run, _ = _run(**overrides)
    texts = run.outputs["statements"] + [s for p in of_type(run.resources, POLICY) for s in p.inputs["statements"]]
    assert len(texts) >= 3
    assert not any("all-resources" in s for s in texts)
    assert all(s.startswith("Allow any-user to ") and f"in compartment id {COMPARTMENT} where " in s for s in texts)


def test_statement_records_name_feature_and_source():
    cfg = load_dev_config()
    records = policy_statements(cfg, "ocid1.cluster.oc1.sa-saopaulo-1.aaaaaaaaplain")
    assert [(r.name, r.feature, r.policy) for r in records] == [
        ("nodepool-launch", "rdma-node-pools", "launch"),
        ("cluster-file-family", "fss-csi", "cluster"),
        ("cluster-virtual-network-family", "load-balancers", "cluster"),
    ]
    assert all(isinstance(r.text, str) and r.source.startswith("OKE docs") for r in records)
    assert records[1].text.endswith("request.principal.id = 'ocid1.cluster.oc1.sa-saopaulo-1.aaaaaaaaplain'}")


def test_first_preview_registers_every_policy():
    run, _ = _run(unknowns=True)
    policies = {p.name: p for p in of_type(run.resources, POLICY)}
    assert set(policies) == {"okerdma-dev-nodepool-launch", "okerdma-dev-cluster-principal"}
    # The launch statement names no cluster, so it is known even on a first preview.
    assert policies["okerdma-dev-nodepool-launch"].inputs["statements"] == [LAUNCH]
    assert policies["okerdma-dev-cluster-principal"].inputs["statements"] == [UNKNOWN, UNKNOWN]
    assert run.outputs["statements"] == UNKNOWN
