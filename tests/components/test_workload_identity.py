"""Workload Identity: the grant grammar, its validation, the generated statements of the dev stack (parsed back and
checked field by field), the ServiceAccounts and workload mapping, and ``iam.createPolicies: false``."""

from __future__ import annotations


import pytest
import yaml

from oke_rdma.config import ConfigError, Grant, parse_grant, workload_bindings
from oke_rdma.config.workload_identity import Condition
from tests.stackcfg import ROOT, dev_raw_config, load_dev_config
from offline.engine import run_program
from policies.security.iam import Group, Leaf, parse_statement, restricts
from tests.componenttest import named, of_type
from tests import inprocess

COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaa4m5xq2nq7d3jb6rkf2lq3v5wz7y6c4h2p8t1s9e0u3i5o7a2dfev"
DATA = "ocid1.compartment.oc1..aaaaaaaa2q7w9e4r6t8y1u3i5o7p9a2s4d6f8g1h3j5k7l9z2x4cdata"
OTHER = "ocid1.compartment.oc1..aaaaaaaaother0000000000000000000000000000000000000000other"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaatenancy2b4n6m8q1w3e5r7t9y2u4i6o8p1a3s5d7f9g2h4tenant"
GROUP = "ocid1.group.oc1..aaaaaaaa8k2j4h6g8f1d3s5a7p9o2i4u6y8t1r3e5w7q9z2x4c6v8platform"
POLICY = "oci:Identity/policy:Policy"
SA = "kubernetes:core/v1:ServiceAccount"


def _tenant_accounts(run):
    """The ServiceAccounts of the Workload Identity component (the platform has its own, e.g. readiness gates)."""
    return [r for r in of_type(run, SA) if "oke-rdma:workload_identity:WorkloadIdentity" in r.urn]


MAPPING = "oci:ContainerEngine/clusterWorkloadMapping:ClusterWorkloadMapping"
WORKLOAD_VARS = ("request.principal.type", "request.principal.namespace", "request.principal.service_account",
                 "request.principal.cluster_id")


# --- the grant grammar ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("read objects in tenancy", Grant("read", "objects", None)),
    ("  READ   Objects  IN  Tenancy ", Grant("read", "objects", None)),
    (f"use secret-family in compartment id {DATA}", Grant("use", "secret-family", DATA)),
    (f"manage objects in compartment id {DATA} where target.bucket.name = 'ckpt'",
     Grant("manage", "objects", DATA, (Condition("target.bucket.name", "=", "ckpt"),))),
    (f"inspect buckets in compartment id {DATA} where ALL {{target.bucket.name='a', request.region != 'gru'}}",
     Grant("inspect", "buckets", DATA, (Condition("target.bucket.name", "=", "a"),
                                        Condition("request.region", "!=", "gru")))),
    (f"read all-resources in compartment id {TENANCY}", Grant("read", "all-resources", TENANCY)),
])
def test_grants_parse(text, expected):
    assert parse_grant(text) == expected


def test_grant_render_is_canonical_and_reparses():
    g = parse_grant(f"READ objects in compartment id {DATA} where all {{target.bucket.name='a',request.region='gru'}}")
    assert g.render() == (f"read objects in compartment id {DATA} where all {{target.bucket.name = 'a', "
                          f"request.region = 'gru'}}")
    assert parse_grant(g.render()) == g
    assert parse_grant(f"read objects in compartment id {TENANCY}").location == "tenancy"


@pytest.mark.parametrize("text, expected", [
    ("write objects in tenancy", "'write' is not an OCI verb; use one of inspect, read, use, manage"),
    ("manage all-resources in tenancy", "'manage all-resources' gives the workload full control"),
    (f"Manage  ALL-RESOURCES in compartment id {DATA}", "'manage all-resources' gives the workload full control"),
    ("{OBJECT_READ} in tenancy", "permission lists ({...}) are not accepted"),
    ("read objects", "must read '<verb> <resource-type> in <location> [where <condition>]'"),
    ("read Objects! in tenancy", "is not an OCI resource-type name"),
    ("read objects in compartment data-team", "name the compartment by OCID"),
    ("read objects in compartment id ocid1.vcn.oc1.sa-saopaulo-1.aaaa", "is not a compartment or tenancy OCID"),
    ("read objects in compartment id ocid1.compartment.oc1..", "is not a compartment or tenancy OCID"),
    ("read objects in region sa-saopaulo-1", "must be 'tenancy' or 'compartment id <compartment OCID>'"),
    ("read objects in tenancy where any {target.bucket.name = 'a'}", "'any {...}' conditions cannot be combined"),
    ("read objects in tenancy where request.principal.namespace = 'x'", "is set by the program"),
    ("read objects in tenancy where target.bucket.name = a", "must read <variable> = '<value>'"),
    ("read objects in tenancy where bucket = 'a'", "must be a request.* or target.* variable"),
])
def test_bad_grants_are_refused_with_a_fix(text, expected):
    with pytest.raises(ValueError) as e:
        parse_grant(text)
    assert expected in str(e.value)


# --- validation (each problem is a ConfigError line: the offline preview exits 2) -------------------------------------
def _problems(**overrides) -> list[str]:
    with pytest.raises(ConfigError) as e:
        load_dev_config(**overrides)
    return e.value.problems


def test_basic_cluster_refuses_workload_identity():
    problems = _problems(cluster={"type": "BASIC_CLUSTER", "oidc": None},  # RDMA, GPU quotas, OIDC: not the point
                         nodePools={"gpu": {"rdma": False}}, tenants={"research": {"quota": None, "members": None},
                                                                      "analytics": {"quota": None, "members": None}})
    assert problems == [
        f"oke-rdma:tenants.{t}.serviceAccounts.{sa}: Workload Identity needs an enhanced cluster, but cluster.type is "
        f"BASIC_CLUSTER; set oke-rdma:cluster.type to ENHANCED_CLUSTER or remove the binding"
        for t, sa in (("analytics", "gpu-metrics"), ("research", "trainer"))]  # sorted, as Pulumi hands maps over


def test_basic_cluster_without_bindings_is_fine():
    cfg = load_dev_config(cluster={"type": "BASIC_CLUSTER", "oidc": None}, nodePools={"gpu": {"rdma": False}},
                          tenants=None)
    assert cfg.cluster.type == "BASIC_CLUSTER" and workload_bindings(cfg) == []


def test_manage_all_resources_binding_is_refused():
    [problem] = _problems(tenants={"analytics": {"serviceAccounts": {"gpu-metrics": {
        "allow": ["read metrics in tenancy", "manage all-resources in tenancy"]}}}})
    assert problem.startswith("oke-rdma:tenants.analytics.serviceAccounts.gpu-metrics.allow[1]: "
                              "'manage all-resources in tenancy': 'manage all-resources' gives the workload full "
                              "control of everything in the location; name the resource types it needs")


@pytest.mark.parametrize("name", ["Trainer", "trainer_1", "-trainer", "a" * 254])
def test_service_account_must_be_a_kubernetes_name(name):
    [problem] = _problems(tenants={"analytics": {"serviceAccounts": {
        name: {"allow": [f"read metrics in compartment id {COMPARTMENT}"]}}}})
    assert problem.startswith(f"oke-rdma:tenants.analytics.serviceAccounts.{name}: {name!r} is not a Kubernetes "
                              f"ServiceAccount name")


def test_a_binding_cannot_name_another_namespace():
    [problem] = _problems(tenants={"analytics": {"serviceAccounts": {"gpu-metrics": {"namespace": "research"}}}})
    assert problem.startswith("oke-rdma:tenants.analytics.serviceAccounts.gpu-metrics: a service account lives in "
                              "its tenant's namespace")


def test_empty_allow_is_refused():
    [problem] = _problems(tenants={"analytics": {"serviceAccounts": {"gpu-metrics": {"allow": []}}}})
    assert "lists no grant" in problem


def test_one_mapped_compartment_per_namespace():
    [problem] = _problems(tenants={"research": {"serviceAccounts": {"eval": {
        "allow": [f"read objects in compartment id {OTHER}"]}}}})
    assert problem.startswith("oke-rdma:tenants.research.serviceAccounts: the grants of namespace 'research' reach "
                              "2 compartments besides oke-rdma:compartmentId")


def test_a_mapping_needs_the_deployer_group():
    [problem] = _problems(iam={"deployerGroupId": None})
    assert problem.startswith("oke-rdma:iam.deployerGroupId: required because tenant 'research' reaches "
                              f"compartment {DATA} through a ClusterWorkloadMapping")


def test_tenancy_grants_and_fss_key_need_the_tenancy_when_policies_are_created():
    overrides = dict(tenants={"analytics": {"serviceAccounts": {"gpu-metrics": {"allow": ["read metrics in tenancy"]}}}},
                     storage={"fss": {"kmsKeyId": "ocid1.key.oc1.sa-saopaulo-1.aaaakey"}})
    [problem] = _problems(**overrides)
    assert problem == ("oke-rdma:iam.tenancyId: required with iam.createPolicies because "
                       "oke-rdma:tenants.analytics.serviceAccounts.gpu-metrics.allow, oke-rdma:storage.fss.kmsKeyId "
                       "need a policy or dynamic group in the root compartment; set the tenancy OCID, or set "
                       "iam.createPolicies: false")
    load_dev_config(**overrides, iam={"tenancyId": TENANCY})
    load_dev_config(**overrides, iam={"createPolicies": False})


@pytest.mark.parametrize("iam, expected", [
    ({"tenancyId": "ocid1.compartment.oc1..x"},
     "oke-rdma:iam.tenancyId: expected the OCID of a tenancy (ocid1.tenancy.…), got the OCID of a compartment"),
    ({"deployerGroupId": "platform-admins"},
     "oke-rdma:iam.deployerGroupId: expected the OCID of a group (ocid1.group.oc1..<unique id>), got 'platform-admins'"),
    ({"vaultCompartmentId": "ocid1.vault.oc1..x"},
     "oke-rdma:iam.vaultCompartmentId: expected the OCID of a compartment or a tenancy (ocid1.compartment.…), got the "
     "OCID of a vault"),
])
def test_iam_ocids_are_checked(iam, expected):
    [problem] = _problems(iam=iam)
    assert problem.startswith(expected)


# --- the dev stack's generated statements, parsed back ----------------------------------------------------------------
def _leaves(condition) -> list[Leaf]:
    assert isinstance(condition, Group) and condition.quantifier == "all"
    assert all(isinstance(c, Leaf) for c in condition.items)
    return list(condition.items)


def test_every_generated_statement_parses_with_verb_resource_location_and_conditions(dev_run):
    cfg = load_dev_config()
    cluster_id = dev_run.ids[named(dev_run, "okerdma-dev-oke").urn]
    statements = dev_run.outputs["policyStatements"]
    # the tenant members' IAM groups: use clusters on this cluster only (oke_rdma.iam_access)
    members = [parse_statement(s) for s in statements if " to use clusters in " in s]
    groups = {m.iam_group_id for t in cfg.tenants.values() for m in t.members if m.iam_group_id}
    assert {st.subject for st in members} == {f"group id {g}" for g in groups} and len(members) == len(groups) > 0
    assert all((st.verb, st.resource, st.compartment_id, st.condition) == (
        "use", "clusters", COMPARTMENT, Leaf("target.cluster.id", "=", cluster_id)) for st in members)
    statements = [s for s in statements if " to use clusters in " not in s]
    parsed = [parse_statement(s) for s in statements]
    launch, file_family, vcn_family, *rest = parsed
    assert (launch.subject, launch.permissions, launch.location) == (
        "any-user", ("COMPUTE_CLUSTER_LAUNCH_INSTANCE",), f"compartment id {COMPARTMENT}")
    assert launch.condition == Leaf("request.principal.type", "=", "nodepool")
    for st, verb, resource in ((file_family, "manage", "file-family"), (vcn_family, "use", "virtual-network-family")):
        assert (st.subject, st.verb, st.resource, st.compartment_id) == ("any-user", verb, resource, COMPARTMENT)
        assert _leaves(st.condition) == [Leaf("request.principal.type", "=", "cluster"),
                                         Leaf("request.principal.id", "=", cluster_id)]
    workload = [st for st in rest if st.subject == "any-user"]
    expected = [(b, g) for b in workload_bindings(cfg) for g in b.grants]
    assert len(workload) == len(expected) and len(statements) == 3 + len(expected) + 2  # + the two mapping ones
    for st, (binding, grant) in zip(workload, expected):
        assert (st.action, st.verb or "", st.resource or "", st.permissions, st.location) == (
            "allow", grant.verb, grant.resource, grant.permissions, grant.location)
        assert _leaves(st.condition) == [
            Leaf("request.principal.type", "=", "workload"), Leaf("request.principal.namespace", "=",
                                                                  binding.namespace),
            Leaf("request.principal.service_account", "=", binding.service_account),
            Leaf("request.principal.cluster_id", "=", cluster_id),
            *[Leaf(c.variable, c.operator, c.value, c.pattern) for c in grant.conditions]]
        assert all(restricts(st.condition, v) for v in WORKLOAD_VARS)
    manage_mappings, bind = [st for st in rest if st.subject != "any-user"]
    assert (manage_mappings.subject, manage_mappings.verb, manage_mappings.resource, manage_mappings.compartment_id,
            manage_mappings.condition) == (f"group id {GROUP}", "manage", "cluster-workload-mappings", COMPARTMENT,
                                           None)
    assert (bind.subject, bind.permissions, bind.compartment_id) == (
        f"group id {GROUP}", ("CLUSTER_WORKLOAD_COMPARTMENT_BIND", "CLUSTER_WORKLOAD_COMPARTMENT_UNBIND"), DATA)


def test_dev_bindings_are_the_realistic_ones(dev_run):
    assert {t: {k: v[k] for k in ("namespace", "serviceAccounts", "mappedCompartmentId")}
            for t, v in dev_run.outputs["tenants"].items()} == {
        "research": {"namespace": "research", "serviceAccounts": ["trainer"], "mappedCompartmentId": DATA},
        "analytics": {"namespace": "analytics", "serviceAccounts": ["gpu-metrics"], "mappedCompartmentId": None}}


def test_policies_are_attached_where_their_statements_point(dev_run):
    policies = {p.name: p for p in of_type(dev_run, POLICY)}
    expected = {"okerdma-dev-nodepool-launch": COMPARTMENT, "okerdma-dev-cluster-principal": COMPARTMENT,
                "okerdma-dev-wi-analytics": COMPARTMENT, "okerdma-dev-wi-research-mapped": DATA,
                "okerdma-dev-wi-mappings": COMPARTMENT, "okerdma-dev-wi-research-bind": DATA,
                "okerdma-dev-cluster-users": COMPARTMENT}
    assert {name: p.inputs["compartmentId"] for name, p in policies.items()} == expected
    for p in policies.values():
        for text in p.inputs["statements"]:
            st = parse_statement(text)
            assert st.compartment_id == p.inputs["compartmentId"]
    assert sorted(s for p in policies.values() for s in p.inputs["statements"]) == sorted(
        dev_run.outputs["policyStatements"])
    docs = dev_run.outputs["iamPolicies"]
    assert {n: d["compartmentId"] for n, d in docs.items()} == expected
    assert dev_run.outputs["iamDynamicGroups"] == {}


def test_service_accounts_live_in_the_tenant_namespaces_with_the_cluster_provider(dev_run):
    (provider,) = of_type(dev_run, "pulumi:providers:kubernetes")
    accounts = {(r.inputs["metadata"]["namespace"], r.inputs["metadata"]["name"]): r for r in _tenant_accounts(dev_run)}
    assert set(accounts) == {("research", "trainer"), ("analytics", "gpu-metrics")}
    component = named(dev_run, "okerdma-dev-workload-identity")
    for (ns, _), sa in accounts.items():
        assert sa.provider.startswith(provider.urn)
        assert named(dev_run, f"okerdma-dev-ns-{ns}").urn in sa.dependencies
        assert sa.parent == component.urn
        assert sa.inputs["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "pulumi"
        assert sa.name == f"okerdma-dev-sa-{ns}.{sa.inputs['metadata']['name']}"


def test_the_mapped_namespace_gets_a_workload_mapping_after_its_policies(dev_run):
    (mapping,) = of_type(dev_run, MAPPING)
    assert mapping.name == "okerdma-dev-wi-mapping-research"
    assert mapping.inputs["namespace"] == "research" and mapping.inputs["mappedCompartmentId"] == DATA
    assert mapping.inputs["clusterId"] == dev_run.ids[named(dev_run, "okerdma-dev-oke").urn]
    assert mapping.inputs["freeformTags"] == {"project": "oke-rdma", "environment": "dev"}
    for policy in ("okerdma-dev-wi-mappings", "okerdma-dev-wi-research-bind"):
        assert named(dev_run, policy).urn in mapping.dependencies
    assert named(dev_run, "okerdma-dev-wi-analytics").urn not in mapping.dependencies


def test_fss_key_policy_comes_before_the_file_system(dev_run):
    raw = dev_raw_config(storage={"fss": {"kmsKeyId": "ocid1.key.oc1.sa-saopaulo-1.aaaafsskey"}},
                         iam={"tenancyId": TENANCY})
    run = run_program(raw, [], "dev")
    fs = named(run, "okerdma-dev-fss")
    assert named(run, "okerdma-dev-fss-kms").urn in fs.dependencies
    assert named(run, "okerdma-dev-fss-file-systems").urn in fs.dependencies
    # Without a key nothing is added to the file system's dependencies.
    plain = dev_run
    assert not any("Identity" in d for d in named(plain, "okerdma-dev-fss").dependencies)


def test_first_preview_keeps_known_statements_known(dev_first_preview):
    run = dev_first_preview
    statements = run.outputs["policyStatements"]
    unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
    groups = {m.iam_group_id for t in load_dev_config().tenants.values() for m in t.members if m.iam_group_id}
    assert statements[-len(groups):] == [unknown] * len(groups)  # the members' use-clusters statements, last
    statements = statements[:-len(groups)]
    assert statements[0].startswith("Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE}")
    assert statements[1:-2] == [unknown] * (len(statements) - 3)  # they embed the cluster OCID
    assert statements[-2].startswith(f"Allow group id {GROUP} to manage cluster-workload-mappings")
    assert len(_tenant_accounts(run)) == 2 and len(of_type(run, MAPPING)) == 1


# --- createPolicies: false, through the CLI as a user runs it ---------------------------------------------------------
def _preview(tmp_path, edit, *args):
    doc = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())
    edit(doc["config"])
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))  # keep the tenants' order (statement order follows it)
    return inprocess.preview("--config-file", str(path), *args)


def test_create_policies_false_shows_zero_policies_and_the_statements(tmp_path, dev_run):
    out = _preview(tmp_path, lambda c: c["oke-rdma:iam"].update(createPolicies=False), "--json",
                   str(tmp_path / "plan.json"))
    created = dev_run.outputs["policyStatements"]
    plan = yaml.safe_load((tmp_path / "plan.json").read_text())
    assert [r for r in plan["resources"] if r["type"] in (POLICY, "oci:Identity/dynamicGroup:DynamicGroup")] == []
    assert plan["outputs"]["policyStatements"] == created
    assert f"IAM statements ({len(created)}):" in out.stdout and "no policy is created by this stack" in out.stdout
    assert "okerdma-dev-wi-research-mapped (not created; attach to " + DATA + ")" in out.stdout
    for text in created:
        assert f"      {text}" in out.stdout
    # The launch statement is now the administrator's: the pack says so until told (policy config).
    assert out.returncode == 1 and "iam-compute-cluster-launch-statement" in out.stdout
    config = tmp_path / "policy.json"
    config.write_text('{"iam-compute-cluster-launch-statement": {"statementsManagedOutsideStack": true}}')
    (tmp_path / "none.json").write_text("{}")
    again = _preview(tmp_path, lambda c: c["oke-rdma:iam"].update(createPolicies=False),
                     "--policy-pack", "policies/security", "--policy-config", str(config),
                     "--policy-pack", "policies/placement", "--policy-config", str(tmp_path / "none.json"))
    assert again.returncode == 0, again.stdout[-2000:]


@pytest.mark.parametrize("edit, expected", [
    (lambda c: c["oke-rdma:cluster"].update(type="BASIC_CLUSTER"),
     "oke-rdma:tenants.research.serviceAccounts.trainer: Workload Identity needs an enhanced cluster"),
    (lambda c: c["oke-rdma:tenants"]["analytics"]["serviceAccounts"]["gpu-metrics"]["allow"].append(
        "manage all-resources in tenancy"), "'manage all-resources' gives the workload full control"),
])
def test_cli_exits_2_on_refused_bindings(tmp_path, edit, expected):
    out = _preview(tmp_path, edit)
    assert out.returncode == 2 and expected in out.stderr and "Traceback" not in out.stderr
