"""The IAM rules of the policy pack (policies/security/iam.py): parser, pass / fail / unknown cases, a hand-written stack."""

from __future__ import annotations

import pulumi_oci as oci
import pytest

from offline.engine import run_program
from offline.policy_eval import evaluate
from policies.security import iam
from policies.security.iam import Group, Leaf, StatementSyntaxError, parse_statement, restricts
from policies.security.pack import PACK_NAME, POLICIES
from pulumi_policy import EnforcementLevel
from tests.policies.test_policies import NODE_POOL, U, call_resource_rule, messages, res, run

POLICY = "oci:Identity/policy:Policy"
C = "ocid1.compartment.oc1..aaaaaaaacomp"
NO_MANAGE_ALL = "iam-no-manage-all-resources"
ANY_USER = "iam-any-user-restricts-principal-type"
WORKLOAD = "iam-workload-statement-scoped"
LAUNCH = "iam-compute-cluster-launch-statement"
GOOD_WORKLOAD = (f"Allow any-user to read objects in compartment id {C} where all {{request.principal.type = "
                 f"'workload', request.principal.namespace = 'ml', request.principal.service_account = 'trainer', "
                 f"request.principal.cluster_id = 'ocid1.cluster.oc1..k'}}")
LAUNCH_STATEMENT = (f"Allow any-user to {{COMPUTE_CLUSTER_LAUNCH_INSTANCE}} in compartment id {C} where "
                    f"request.principal.type = 'nodepool'")


def policy(*statements) -> dict:
    return {"compartmentId": C, "description": "d", "statements": list(statements)}


# --- the parser -------------------------------------------------------------------------------------------------------
def test_parse_statement_shapes():
    st = parse_statement(GOOD_WORKLOAD)
    assert (st.action, st.subject, st.verb, st.resource, st.compartment_id) == (
        "allow", "any-user", "read", "objects", C)
    assert isinstance(st.condition, Group) and st.condition.items[0] == Leaf("request.principal.type", "=", "workload")
    perms = parse_statement("allow any-user to {A_ONE, B_TWO} in tenancy where request.principal.type=nodepool")
    assert (perms.permissions, perms.verb, perms.location) == (("A_ONE", "B_TWO"), None, "tenancy")
    assert perms.condition == Leaf("request.principal.type", "=", "nodepool")
    nested = parse_statement("Allow group id ocid1.group.oc1..g to use keys in compartment Vault:Keys where all "
                             "{target.key.id = 'k', any {request.region = 'gru', request.region = 'vcp'}}")
    assert nested.subject == "group id ocid1.group.oc1..g" and nested.compartment_id is None
    assert isinstance(nested.condition.items[1], Group) and nested.condition.items[1].quantifier == "any"


@pytest.mark.parametrize("text", ["Define tenancy Acme as ocid1.tenancy.oc1..a", "Allow any-user to read objects",
                                  "Allow any-user to read objects in tenancy where all {a = 'b'",
                                  "Allow any-user to read objects in tenancy where a in ('b')"])
def test_parse_statement_refuses_what_it_does_not_understand(text):
    with pytest.raises(StatementSyntaxError):
        parse_statement(text)


@pytest.mark.parametrize("where, restricted", [
    ("request.principal.type = 'cluster'", True),
    ("request.principal.type != 'cluster'", False),
    ("all {target.key.id = 'k', request.principal.type = 'cluster'}", True),
    ("any {target.key.id = 'k', request.principal.type = 'cluster'}", False),
    ("any {request.principal.type = 'cluster', request.principal.type = 'nodepool'}", True),
    ("target.key.id = 'k'", False),
])
def test_restricts_follows_all_and_any(where, restricted):
    st = parse_statement(f"Allow any-user to use keys in tenancy where {where}")
    assert restricts(st.condition, "request.principal.type") is restricted


# --- no manage all-resources ------------------------------------------------------------------------------------------
def test_manage_all_resources_passes_fails_and_meets_unknowns():
    ok = run(res(POLICY, "p", policy("Allow group admins to read all-resources in tenancy")), policy=NO_MANAGE_ALL)
    assert ok.violations == [] and ok.not_run == []
    bad = run(res(POLICY, "p", policy("Allow group admins to MANAGE  all-resources in tenancy")),
              policy=NO_MANAGE_ALL)
    [message] = messages(bad, NO_MANAGE_ALL)
    assert "statements[0] grants 'manage all-resources'" in message and bad.mandatory
    # A known bad statement is reported even when another statement of the policy is unknown during preview,
    # and the unknown one is left to the engine ("can't run", advisory).
    mixed = run(res(POLICY, "p", policy(U, "Allow any-user to manage all-resources in tenancy")),
                policy=NO_MANAGE_ALL)
    assert len(messages(mixed, NO_MANAGE_ALL)) == 1
    [note] = mixed.not_run
    assert note.reason == "string value at .statements.0 can't be known during preview"
    whole = run(res(POLICY, "p", {"compartmentId": C, "statements": U}), policy=NO_MANAGE_ALL)
    assert whole.violations == [] and len(whole.not_run) == 1


def test_manage_all_resources_rule_called_directly():
    found = call_resource_rule(iam.validate_no_manage_all_resources, POLICY,
                               policy("Endorse group g to manage all-resources in tenancy Other"))
    assert len(found) == 1


# --- any-user needs a principal type ----------------------------------------------------------------------------------
@pytest.mark.parametrize("statement, expected", [
    (f"Allow any-user to read objects in compartment id {C}", "lets any-user in with no where clause"),
    (f"Allow any-user to read objects in compartment id {C} where target.bucket.name = 'b'",
     "does not restrict request.principal.type"),
    (f"Allow any-user to read objects in compartment id {C} where any {{request.principal.type = 'workload', "
     f"target.bucket.name = 'b'}}", "does not restrict request.principal.type"),
    (f"Allow any-user to read objects in compartment id {C} where request.principal.type in ('x')",
     "cannot parse"),
])
def test_any_user_without_principal_type_fails(statement, expected):
    [message] = messages(run(res(POLICY, "p", policy(statement)), policy=ANY_USER), ANY_USER)
    assert expected in message and "Add where request.principal.type" in message


@pytest.mark.parametrize("statement", [GOOD_WORKLOAD, LAUNCH_STATEMENT,
                                       f"Allow group admins to read objects in compartment id {C}",
                                       "Allow service oke to use keys in tenancy where target.key.id = 'k'"])
def test_any_user_rule_passes(statement):
    assert run(res(POLICY, "p", policy(statement)), policy=ANY_USER).violations == []


def test_any_user_rule_unknown_statement_is_left_to_the_engine():
    report = run(res(POLICY, "p", policy(U, GOOD_WORKLOAD)), policy=ANY_USER)
    assert report.violations == [] and len(report.not_run) == 1


# --- workload statements are scoped -----------------------------------------------------------------------------------
def test_workload_statement_naming_the_namespace_but_no_cluster_fails():
    statement = (f"Allow any-user to read objects in compartment id {C} where all {{request.principal.type = "
                 f"'workload', request.principal.namespace = 'ml', request.principal.service_account = 'trainer'}}")
    [message] = messages(run(res(POLICY, "p", policy(statement)), policy=WORKLOAD), WORKLOAD)
    assert "is a workload statement that does not restrict cluster_id" in message


@pytest.mark.parametrize("where, missing", [
    ("request.principal.type = 'workload'", "cluster_id, namespace, service_account"),
    ("all {request.principal.namespace = 'ml', request.principal.service_account = 'sa', "
     "request.principal.cluster_id = 'c'}", "type = 'workload'"),
    ("all {request.principal.type = 'workload', request.principal.namespace = 'ml', "
     "request.principal.service_account != 'sa', request.principal.cluster_id = 'c'}", "service_account"),
])
def test_workload_statement_scope_violations(where, missing):
    statement = f"Allow any-user to read objects in tenancy where {where}"
    [message] = messages(run(res(POLICY, "p", policy(statement)), policy=WORKLOAD), WORKLOAD)
    assert f"does not restrict {missing}:" in message


def test_workload_rule_passes_and_ignores_other_principals():
    report = run(res(POLICY, "p", policy(GOOD_WORKLOAD, LAUNCH_STATEMENT)), policy=WORKLOAD)
    assert report.violations == [] and report.not_run == []


def test_workload_rule_unknown_statement_is_left_to_the_engine():
    report = run(res(POLICY, "p", policy(U)), policy=WORKLOAD)
    assert report.violations == [] and [n.policy for n in report.not_run] == [WORKLOAD]


# --- a Compute Cluster node pool has its launch statement (stack rule) ------------------------------------------------
def pool(compartment=C) -> dict:
    return {"clusterId": "ocid1.cluster.oc1..k", "compartmentId": compartment, "nodeShape": "BM.GPU.H100.8",
            "nodeConfigDetails": {"computeClusterId": "ocid1.computecluster.oc1..x", "size": 2.0,
                                  "placementConfigs": [{"availabilityDomain": "AD-1", "subnetId": "s"}]}}


@pytest.mark.parametrize("statement", [LAUNCH_STATEMENT,
                                       "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in tenancy where all "
                                       "{request.principal.type = 'nodepool', request.region = 'gru'}"])
def test_launch_statement_present_passes(statement):
    report = run(res(NODE_POOL, "gpu", pool()), res(POLICY, "launch", policy(statement)), policy=LAUNCH)
    assert report.violations == []


@pytest.mark.parametrize("statements", [
    [],
    [LAUNCH_STATEMENT.replace(C, "ocid1.compartment.oc1..elsewhere")],
    [LAUNCH_STATEMENT.replace(" where request.principal.type = 'nodepool'", "")],
    [LAUNCH_STATEMENT.replace("'nodepool'", "'cluster'")],
])
def test_launch_statement_missing_fails(statements):
    resources = [res(NODE_POOL, "gpu", pool())] + ([res(POLICY, "launch", policy(*statements))] if statements else [])
    [message] = messages(run(*resources, policy=LAUNCH), LAUNCH)
    assert "Node pool 'gpu' is placed in a Compute Cluster, but no policy of the stack has" in message


def test_launch_rule_ignores_pools_outside_a_compute_cluster():
    plain = pool()
    del plain["nodeConfigDetails"]["computeClusterId"]
    assert run(res(NODE_POOL, "cpu", plain), policy=LAUNCH).violations == []


def test_launch_rule_fails_closed_on_unknowns():
    [message] = messages(run(res(NODE_POOL, "gpu", pool()), res(POLICY, "launch", policy(U)), policy=LAUNCH), LAUNCH)
    assert "the statements of launch are unknown during preview and cannot be searched" in message
    [message] = messages(run(res(NODE_POOL, "gpu", pool(U)), res(POLICY, "launch", policy(LAUNCH_STATEMENT)),
                             policy=LAUNCH), LAUNCH)
    assert "compartmentId is unknown during preview" in message


def test_launch_rule_can_be_told_the_statement_is_applied_outside_the_stack():
    report = evaluate(POLICIES, [res(NODE_POOL, "gpu", pool())], PACK_NAME, pack_enforcement_level=EnforcementLevel.
                      MANDATORY, policy_config={"all": "disabled", LAUNCH: {
                          "enforcementLevel": "mandatory", "statementsManagedOutsideStack": True}})
    assert report.violations == []


# --- pack metadata ----------------------------------------------------------------------------------------------------
def test_iam_rules_are_in_the_pack_with_unknown_behaviour():
    names = [p.name for p in iam.POLICIES]
    assert set(names) <= {p.name for p in POLICIES}
    assert set(iam.UNKNOWN_BEHAVIOUR) == set(names)
    for p in iam.POLICIES:
        assert p.enforcement_level == EnforcementLevel.MANDATORY and p.description and p.remediation_steps
        assert p.severity is not None and p.tags
        assert iam.UNKNOWN_BEHAVIOUR[p.name].startswith(("fails closed:", "engine note:", "reads only"))


# --- a hand-written stack (raw pulumi_oci, none of our components) is caught ------------------------------------------
def test_hand_written_stack_is_caught_by_the_pack():
    def program():
        oci.identity.Policy("too-broad", compartment_id=C, description="d", statements=[
            "Allow group ml-admins to manage all-resources in tenancy"])
        oci.identity.Policy("open-any-user", compartment_id=C, description="d", statements=[
            f"Allow any-user to read objects in compartment id {C}"])
        oci.identity.Policy("unpinned-workload", compartment_id=C, description="d", statements=[
            f"Allow any-user to read objects in compartment id {C} where all {{request.principal.type = 'workload', "
            f"request.principal.namespace = 'ml', request.principal.service_account = 'trainer'}}"])
        oci.containerengine.NodePool("gpu", cluster_id="ocid1.cluster.oc1..k", compartment_id=C,
                                     kubernetes_version="v1.34.1", name="gpu", node_shape="BM.GPU.H100.8",
                                     node_config_details={"size": 2, "compute_cluster_id": "ocid1.computecluster.oc1..x",
                                                          "placement_configs": [{"availability_domain": "AD-1",
                                                                                 "subnet_id": "ocid1.subnet.oc1..s"}]})

    recorded = run_program({"oci:region": "sa-saopaulo-1"}, [], "hand", program=program)
    report = evaluate(POLICIES, recorded.resources, PACK_NAME, pack_enforcement_level=EnforcementLevel.MANDATORY)
    by_policy = {(v.policy, v.urn.rsplit("::", 1)[-1]) for v in report.violations}
    assert {(NO_MANAGE_ALL, "too-broad"), (ANY_USER, "open-any-user"), (WORKLOAD, "unpinned-workload"),
            (LAUNCH, "gpu")} <= by_policy
    iam_rules = {NO_MANAGE_ALL, ANY_USER, WORKLOAD, LAUNCH}
    assert all(v.enforcement_level == "mandatory" for v in report.violations if v.policy in iam_rules)


# --- patterns are not pins; double quotes mean the same as single quotes ----------------------------------------------
def test_parser_reads_double_quotes_and_patterns():
    st = parse_statement('Allow any-user to read objects in tenancy where all {request.principal.type = "workload", '
                         'request.principal.namespace = /ml-*/}')
    assert st.condition == Group("all", (Leaf("request.principal.type", "=", "workload"),
                                         Leaf("request.principal.namespace", "=", "ml-*", True)))
    assert restricts(st.condition, "request.principal.type", {"workload"})
    assert not restricts(st.condition, "request.principal.namespace")


@pytest.mark.parametrize("statement", [
    "Allow any-user to manage buckets in tenancy where request.principal.type = /*/",
    "Allow any-user to manage buckets in tenancy where request.principal.type = /work*/",
    "Allow group A, any-user to manage buckets in tenancy",
])
def test_any_user_with_pattern_type_or_in_a_subject_list_fails(statement):
    [message] = messages(run(res(POLICY, "p", policy(statement)), policy=ANY_USER), ANY_USER)
    assert "Add where request.principal.type" in message


@pytest.mark.parametrize("statement", [
    'Allow any-user to manage objects in tenancy where request.principal.type = "workload"',
    'Allow any-user to manage objects in tenancy where all {request.principal.type = "cluster", '
    'request.principal.id = "ocid1.cluster.oc1..k"}',
])
def test_any_user_with_double_quoted_type_passes(statement):
    assert run(res(POLICY, "p", policy(statement)), policy=ANY_USER).violations == []


@pytest.mark.parametrize("where, missing", [
    ("all {request.principal.type='workload', request.principal.namespace=/*/, request.principal.service_account=/*/, "
     "request.principal.cluster_id=/*/}", "cluster_id, namespace, service_account"),
    ("all {request.principal.type='workload', request.principal.namespace='ml', request.principal.service_account="
     "'sa', request.principal.cluster_id=/ocid1.cluster.*/}", "cluster_id"),
    ('all {request.principal.type="workload", request.principal.namespace="a"}', "cluster_id, service_account"),
    ("all {request.principal.type=/*/, request.principal.namespace='ml', request.principal.service_account='sa', "
     "request.principal.cluster_id='c'}", "type = 'workload'"),
])
def test_workload_statement_with_patterns_or_double_quotes_is_checked(where, missing):
    statement = f"Allow any-user to read objects in tenancy where {where}"
    [message] = messages(run(res(POLICY, "p", policy(statement)), policy=WORKLOAD), WORKLOAD)
    assert f"does not restrict {missing}:" in message


def test_workload_statement_in_double_quotes_passes_and_unknown_is_left_to_the_engine():
    statement = GOOD_WORKLOAD.replace("'", '"')
    assert run(res(POLICY, "p", policy(statement)), policy=WORKLOAD).violations == []
    report = run(res(POLICY, "p", policy(statement, U)), policy=WORKLOAD)
    assert report.violations == [] and [n.policy for n in report.not_run] == [WORKLOAD]
