"""The IAM component under mocks: exact statements, one policy per purpose, policies on/off, KMS, first preview."""

from __future__ import annotations

import pulumi
import pulumi_oci as oci
import pytest

from oke_rdma.adapter import iam_args, iam_inputs
from oke_rdma.iam import Iam, iam_plan, policy_statements
from tests.stackcfg import dev_raw_config, load_dev_config, of_type, one
from offline.engine import fake_ocid, run_program

# The dev tenants ask for the shared FSS volume; with FSS disabled they must not (a config error otherwise).
NO_SHARED_STORAGE = {"research": {"sharedStorage": None}, "analytics": {"sharedStorage": None}}

POLICY = "oci:Identity/policy:Policy"
DYNAMIC_GROUP = "oci:Identity/dynamicGroup:DynamicGroup"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
VAULT = "ocid1.compartment.oc1..aaaaaaaavault7x3k9q2w5e8r1t4y7u0i3o6p9a2s5d8f1g4h7j0kvault"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaatenancy2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4tenant"
CLUSTER_KEY = "ocid1.key.oc1.sa-saopaulo-1.aaaaaaaaclusterkey"
FSS_KEY = "ocid1.key.oc1.sa-saopaulo-1.aaaaaaaafsskey"
GROUP = "ocid1.group.oc1..aaaaaaaa8k2j4h6g8f1d3s5a7p9o2i4u6y8t1r3e5w7q9z2x4c6v8platform"
# The id the offline mocks give the stub cluster below (deterministic).
CLUSTER_ID = fake_ocid("cluster", "sa-saopaulo-1", CLUSTER, "stub-cluster")
NO_TENANTS = {"tenants": None}  # the base statements alone (the dev tenants' bindings are tested below)

LAUNCH = (f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} in compartment id {COMPARTMENT} "
          f"where request.principal.type = 'nodepool'")
WHERE_CLUSTER = f"where all {{request.principal.type = 'cluster', request.principal.id = '{CLUSTER_ID}'}}"
FILE_FAMILY = f"Allow any-user to manage file-family in compartment id {COMPARTMENT} {WHERE_CLUSTER}"
VCN_FAMILY = f"Allow any-user to use virtual-network-family in compartment id {COMPARTMENT} {WHERE_CLUSTER}"


def _run(unknowns: bool = False, **overrides):
    overrides = {**NO_TENANTS, **overrides}
    raw = dev_raw_config(**overrides)
    cfg = load_dev_config(**overrides)
    built: dict[str, Iam] = {}

    def program():
        # A real cluster resource stands in for the cluster component, so dependency edges are visible.
        cluster = oci.containerengine.Cluster("stub-cluster", oci.containerengine.ClusterArgs(
            compartment_id=cfg.compartment_id, kubernetes_version="v1.34.1", vcn_id="ocid1.vcn.oc1..stub"))
        built["iam"] = Iam("iam", iam_args(cfg, cluster.id, None))
        pulumi.export("statements", built["iam"].statements)
        pulumi.export("texts", built["iam"].statement_texts)
        pulumi.export("documents", built["iam"].policy_documents)

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
    assert iam.cluster_kms_policy is None and iam.fss_kms_dependencies == []
    assert run.outputs["documents"]["okerdma-dev-cluster-principal"] == {
        "compartmentId": COMPARTMENT, "statements": [FILE_FAMILY, VCN_FAMILY],
        "description": "okerdma-dev: the OKE cluster principal uses FSS (CSI driver) and the VCN (load balancers)"}


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
    assert iam.launch_policy is None and iam.cluster_policy is None and iam.policies == {}
    assert set(run.outputs["documents"]) == {"okerdma-dev-nodepool-launch", "okerdma-dev-cluster-principal"}


def test_no_rdma_pool_no_launch_statement_or_policy():
    run, iam = _run(nodePools={"gpu": {"rdma": False, "shape": "VM.GPU.A10.1"}},
                    tenants={t: {"quota": None, "serviceAccounts": None, "weights": None, "members": None}
                             for t in ("research", "analytics")})  # only
    # platform statements: GPU quotas need RDMA pools; Workload Identity and members would add their own statements
    assert run.outputs["statements"] == [FILE_FAMILY, VCN_FAMILY]
    assert [p.name for p in of_type(run.resources, POLICY)] == ["okerdma-dev-cluster-principal"]
    assert iam.launch_policy is None


def test_fss_disabled_drops_file_family():
    no_bindings = {t: {**v, "serviceAccounts": None, "weights": None, "members": None}
                   for t, v in NO_SHARED_STORAGE.items()}
    run, _ = _run(storage={"fss": {"enabled": False}}, tenants=no_bindings)
    assert run.outputs["statements"] == [LAUNCH, VCN_FAMILY]
    assert one(run.resources, POLICY, "okerdma-dev-cluster-principal").inputs["statements"] == [VCN_FAMILY]


@pytest.mark.parametrize("overrides", [{}, {"iam": {"createPolicies": False}}, {"tenants": {}}])  # {}: dev tenants
def test_never_manage_all_resources(overrides):
    run, _ = _run(**overrides)
    texts = run.outputs["statements"] + [s for p in of_type(run.resources, POLICY) for s in p.inputs["statements"]]
    assert len(texts) >= 3
    assert not any("all-resources" in s for s in texts)
    assert all(s.startswith("Allow ") for s in texts)
    assert all(" where " in s for s in texts if s.startswith("Allow any-user "))


def test_statement_records_name_feature_and_source():
    cfg = load_dev_config(**NO_TENANTS)
    records = policy_statements(iam_inputs(cfg), "ocid1.cluster.oc1.sa-saopaulo-1.aaaaaaaaplain")
    assert [(r.name, r.feature, r.policy) for r in records] == [
        ("nodepool-launch", "rdma-node-pools", "nodepool-launch"),
        ("cluster-file-family", "fss-csi", "cluster-principal"),
        ("cluster-virtual-network-family", "load-balancers", "cluster-principal"),
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
    # The per-item list keeps what is known: this is what the policyStatements output is built from.
    assert run.outputs["texts"] == [LAUNCH, UNKNOWN, UNKNOWN]


# --- KMS keys ---------------------------------------------------------------------------------------------------------
KMS = {"cluster": {"kmsKeyId": CLUSTER_KEY}, "storage": {"fss": {"kmsKeyId": FSS_KEY}},
       "iam": {"tenancyId": TENANCY, "vaultCompartmentId": VAULT}}


def test_cluster_and_fss_keys_get_their_own_policies_in_the_vault_compartment():
    run, iam = _run(**KMS)
    cluster_kms = one(run.resources, POLICY, "okerdma-dev-cluster-kms")
    fss_kms = one(run.resources, POLICY, "okerdma-dev-fss-kms")
    group = one(run.resources, DYNAMIC_GROUP, "okerdma-dev-fss-file-systems")
    assert cluster_kms.inputs["compartmentId"] == VAULT and fss_kms.inputs["compartmentId"] == VAULT
    assert cluster_kms.inputs["statements"] == [
        f"Allow any-user to use keys in compartment id {VAULT} where all {{request.principal.type = 'cluster', "
        f"target.key.id = '{CLUSTER_KEY}'}}"]
    assert fss_kms.inputs["statements"] == [
        f"Allow dynamic-group okerdma-dev-fss-file-systems to use keys in compartment id {VAULT} where "
        f"target.key.id = '{FSS_KEY}'",
        f"Allow group id {GROUP} to use key-delegate in compartment id {VAULT} where target.key.id = '{FSS_KEY}'"]
    assert group.inputs["compartmentId"] == TENANCY
    assert group.inputs["matchingRule"] == (f"ALL {{resource.type = 'filesystem', resource.compartment.id = "
                                            f"'{COMPARTMENT}'}}")
    assert group.urn in fss_kms.dependencies
    # The cluster key statement must exist before the cluster: it cannot depend on it.
    assert one(run.resources, CLUSTER).urn not in cluster_kms.dependencies
    assert iam.cluster_kms_policy is not None and {r for r in iam.fss_kms_dependencies} == {
        iam.policies["fss-kms"], iam.dynamic_groups["okerdma-dev-fss-file-systems"]}


def test_keys_default_to_the_stack_compartment_and_need_no_resource_when_not_created():
    run, iam = _run(cluster={"kmsKeyId": CLUSTER_KEY}, storage={"fss": {"kmsKeyId": FSS_KEY}},
                    iam={"createPolicies": False, "deployerGroupId": None})
    assert of_type(run.resources, POLICY) == [] and of_type(run.resources, DYNAMIC_GROUP) == []
    assert run.outputs["statements"][-2:] == [
        f"Allow any-user to use keys in compartment id {COMPARTMENT} where all {{request.principal.type = "
        f"'cluster', target.key.id = '{CLUSTER_KEY}'}}",
        f"Allow dynamic-group okerdma-dev-fss-file-systems to use keys in compartment id {COMPARTMENT} where "
        f"target.key.id = '{FSS_KEY}'"]
    assert iam.dynamic_group_documents["okerdma-dev-fss-file-systems"]["compartmentId"] is None


def test_key_in_the_root_compartment_uses_the_tenancy_location():
    plan = iam_plan(iam_inputs(load_dev_config(**NO_TENANTS, cluster={"kmsKeyId": CLUSTER_KEY},
                                               iam={"vaultCompartmentId": TENANCY})), "ocid1.cluster.oc1..x")
    assert plan.policies["cluster-kms"].compartment_id == TENANCY
    assert plan.statements[-1].text.startswith("Allow any-user to use keys in tenancy where all {")


def test_lustre_gets_its_service_grant_in_the_root_compartment_and_needs_the_tenancy_to_create_it():
    """With storage.lustre the lustrefs service may use the VCN (a tenancy-level statement, attached to the root
    compartment); without Lustre there is no such statement; without iam.tenancyId it is listed, not created."""
    from dataclasses import replace

    cfg = load_dev_config()
    base = iam_inputs(cfg)
    with_lustre = replace(base, lustre=True, iam=base.iam.model_copy(update={"tenancy_id": "ocid1.tenancy.oc1..aaaa"}))
    plan = iam_plan(with_lustre, "ocid1.cluster.oc1..x")
    statements = {s.name: s for s in plan.statements}
    assert statements["lustre-service"].text == "Allow service lustrefs to use virtual-network-family in tenancy"
    assert plan.policies["lustre-service"].compartment_id == "ocid1.tenancy.oc1..aaaa"
    assert "lustre-service" not in {s.name for s in iam_plan(base, "c").statements}
    # without iam.tenancyId the root-compartment policy is not created: the preview warns and lists the statement
    run, _ = _run(storage={"lustre": {"capacityGb": 52000, "performanceTier": 250, "tenants": []}})
    assert "okerdma-dev-lustre-service" not in [p.name for p in of_type(run.resources, POLICY)]
    assert any(level == "warning" and "okerdma-dev-lustre-service is not created" in text
               for level, text in run.diagnostics), run.diagnostics
