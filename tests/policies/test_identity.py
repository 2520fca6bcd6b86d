"""Identity escalation judged by effect: IAM types, all-resources, IAM permissions, cross-tenancy statements,
unparseable statements, and memberships in administrators groups."""
from __future__ import annotations

import pytest

from oke_rdma.config.workload_identity import IAM_ADMIN_RESOURCE_TYPES, parse_grant
from policies.security import identity
from policies.security.iam import parse_statement
from tests.policies.test_policies import U, messages, res, run

POLICY = "oci:Identity/policy:Policy"
ESCALATION = "iam-no-identity-escalation"
MEMBERSHIP = "iam-no-admin-group-membership"
ANY_USER = "iam-any-user-restricts-principal-type"
C = "ocid1.compartment.oc1..aaaaaaaacomp"
WL = ("where all {request.principal.type = 'workload', request.principal.namespace = 'ml', "
      "request.principal.service_account = 'sa', request.principal.cluster_id = 'ocid1.cluster.oc1..k'}")


def policy_findings(*statements: str, config: dict | None = None) -> list[str]:
    report = run(res(POLICY, "p", {"compartmentId": C, "description": "d", "statements": list(statements)}),
                 policy=ESCALATION)
    return messages(report, ESCALATION)


@pytest.mark.parametrize("statement", [
    "Allow group Ops to manage policies in tenancy",
    "Allow group Ops to manage groups in tenancy",
    "Allow group Ops to use groups in tenancy",
    "Allow group Ops to use users in tenancy",
    "allow group Ops to MANAGE dynamic-groups in tenancy",
    "Allow dynamic-group ci to use all-resources in compartment id " + C,
    "Allow group Ops to manage all-resources in tenancy",
    "Allow group Ops to manage identity-providers in tenancy",
    "Allow group Ops to manage compartments in tenancy",
    "Allow group Ops to use tag-namespaces in tenancy",
    "Allow group Ops to manage tag-defaults in tenancy",
    "Allow group Ops to manage domains in tenancy",
    "Allow group Ops to manage credentials in tenancy",
    "Allow group Ops to manage network-sources in tenancy",
    "Allow group Ops to {POLICY_CREATE, POLICY_UPDATE} in tenancy",
    "Allow group Ops to {GROUP_UPDATE, USER_UPDATE} in tenancy",
    "Allow any-user to {DYNAMIC_GROUP_UPDATE} in tenancy " + WL,
    "Allow group Ops to administer objects in tenancy",
    "Endorse group Ops to manage objects in any-tenancy",
    "Admit group Ops of tenancy Acme to read objects in tenancy",
    "Define tenancy Acme as ocid1.tenancy.oc1..aaaaaaaaacme",
    "Allow group Ops to read objects in tenancy where a in ('b')",
    "Allow group Ops manage objects",
])
def test_statements_that_change_iam_or_cannot_be_judged_are_refused(statement):
    [message] = policy_findings(statement)
    assert "statements[0]" in message


@pytest.mark.parametrize("statement", [
    "Allow group Ops to read policies in tenancy",
    "Allow group Ops to inspect groups in tenancy",
    "Allow group Ops to manage objects in compartment id " + C,
    "Allow any-user to read objects in compartment id " + C + " " + WL,
    "Allow any-user to {COMPUTE_CLUSTER_LAUNCH_INSTANCE} in compartment id " + C
    + " where request.principal.type = 'nodepool'",
    "Allow group Ops to {POLICY_READ, GROUP_INSPECT} in tenancy",
    "Allow any-user to use virtual-network-family in compartment id " + C + " where request.principal.type = 'cluster'",
])
def test_least_privilege_statements_pass(statement):
    assert policy_findings(statement) == []


def test_cross_tenancy_statements_pass_when_the_policy_config_allows_them():
    found = []
    for text in ("Endorse group Ops to manage objects in any-tenancy", "Define tenancy Acme as ocid1.tenancy.oc1..a"):
        found += identity.statement_findings(text, cross_tenancy_allowed=True)
    assert found == []
    assert identity.statement_findings("Endorse group Ops to manage policies in any-tenancy", True)


def test_any_group_without_a_principal_condition_is_refused_like_any_user():
    report = run(res(POLICY, "p", {"compartmentId": C, "description": "d", "statements": [
        "Allow any-group to read objects in tenancy",
        "Allow any-group to read objects in tenancy where request.principal.type = 'workload'"]}), policy=ANY_USER)
    [message] = messages(report, ANY_USER)
    assert "statements[0]" in message and "any-group" in message


# --- memberships ---------------------------------------------------------------------------------------------------
MEMBERSHIP_TYPE = "oci:Identity/userGroupMembership:UserGroupMembership"
GROUP = "oci:Identity/group:Group"


def membership(group_name: str | None, *extra, group_id="ocid1.group.oc1..aaaaext"):
    resources = list(extra)
    if group_name is None:
        resources.append(res(MEMBERSHIP_TYPE, "m", {"groupId": group_id, "userId": "ocid1.user.oc1..u"}))
    else:
        group = res(GROUP, "g", {"name": group_name, "description": "d", "compartmentId": "ocid1.tenancy.oc1..t"})
        resources += [group, res(MEMBERSHIP_TYPE, "m", {"groupId": U, "userId": "ocid1.user.oc1..u"},
                                 deps={"groupId": [group]})]
    return messages(run(*resources, policy=MEMBERSHIP), MEMBERSHIP)


@pytest.mark.parametrize("name", ["Administrators", "administrators", "Domain_Administrators"])
def test_adding_a_user_to_an_administrators_group_is_refused(name):
    [message] = membership(name)
    assert "administrators group" in message


def test_membership_in_a_group_the_stack_grants_iam_administration_is_refused():
    grant = res(POLICY, "p", {"compartmentId": C, "description": "d",
                              "statements": ["Allow group Builders to manage policies in tenancy"]})
    [message] = membership("Builders", grant)
    assert "grants IAM administration" in message


def test_membership_in_an_ordinary_group_passes_and_an_external_one_fails_closed():
    assert membership("Readers") == []
    [message] = membership(None)
    assert "not a Group of this stack" in message


def test_identity_domain_admin_members_and_app_role_grants_are_refused():
    group = res("oci:Identity/domainsGroup:DomainsGroup", "dg", {"displayName": "Administrators",
                                                                 "members": [{"type": "User", "value": "u"}]})
    plain = res("oci:Identity/domainsGroup:DomainsGroup", "ok", {"displayName": "ml", "members": [{"value": "u"}]})
    grant = res("oci:Identity/domainsGrant:DomainsGrant", "role", {"grantMechanism": "ADMINISTRATOR_TO_USER"})
    found = messages(run(group, plain, grant, policy=MEMBERSHIP), MEMBERSHIP)
    assert len(found) == 2 and any("'dg'" in m for m in found) and any("app role" in m for m in found)


# --- one grammar for the program and the pack ------------------------------------------------------------------------
GRANTS = [
    "read objects in compartment id " + C,
    "READ  buckets in tenancy where target.bucket.name = 'x'",
    "use keys in compartment id " + C + " where all {target.key.id = 'k', request.operation = 'Decrypt'}",
    "manage objects in tenancy",
    "inspect groups in tenancy",
    "read policies in tenancy",
    *[f"{verb} {t} in tenancy" for verb in ("use", "manage") for t in sorted(IAM_ADMIN_RESOURCE_TYPES)],
    "use all-resources in tenancy",
    "manage all-resources in tenancy",
]


def test_the_program_and_the_pack_name_the_same_iam_types():
    assert IAM_ADMIN_RESOURCE_TYPES == identity.IAM_RESOURCE_TYPES


@pytest.mark.parametrize("grant", GRANTS)
def test_the_program_and_the_pack_parse_a_grant_alike_and_agree_on_escalation(grant):
    statement = parse_statement(f"Allow any-user to {grant}")
    try:
        parsed = parse_grant(grant)
    except ValueError:
        assert identity.escalations(statement), grant  # the program refuses exactly what the pack calls escalation
        return
    assert identity.escalations(statement) == []
    assert (statement.verb, statement.resource) == (parsed.verb, parsed.resource)
    assert statement.location.lower() == parsed.location.lower()


def test_external_groups_listed_as_harmless_pass():
    from policies.security.identity import membership_findings
    from tests.policies.test_policies import proxied

    class R:  # the shape of a pulumi_policy PolicyResource that membership_findings reads
        resource_type, name, urn, property_dependencies = MEMBERSHIP_TYPE, "m", "urn:m", {}
        props = proxied({"groupId": "ocid1.group.oc1..aaaaext", "userId": "ocid1.user.oc1..u"})

    assert list(membership_findings([R()], ["ocid1.group.oc1..aaaaext"])) == []
    assert len(list(membership_findings([R()], []))) == 1


def test_mapping_an_identity_provider_group_onto_administrators_is_refused():
    group = res(GROUP, "g", {"name": "Administrators", "description": "d", "compartmentId": "ocid1.tenancy.oc1..t"})
    mapping = res("oci:Identity/idpGroupMapping:IdpGroupMapping", "map", {
        "groupId": U, "identityProviderId": "ocid1.saml2idp.oc1..i", "idpGroupName": "everyone"},
        deps={"groupId": [group]})
    [message] = messages(run(group, mapping, policy=MEMBERSHIP), MEMBERSHIP)
    assert "administrators group" in message
